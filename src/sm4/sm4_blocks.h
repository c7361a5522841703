// SM4 over many blocks on the CPU, dispatched at run time to the fastest
// constant-time variant the CPU has (core/cpu_features.h; KS_CPU_FEATURES
// masks extensions for tests), as sm3/sm3_blocks.h does for SM3.
#ifndef KS_CIPHER_SM4_BLOCKS_H_
#define KS_CIPHER_SM4_BLOCKS_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/modes.h"

namespace ks {
namespace sm4 {

// One way of running SM4. Every function is constant time: no branch or
// memory index depends on the key or the data.
struct Variant {
  const char* name;
  bool usable;  // false where this CPU (after KS_CPU_FEATURES) lacks an extension
  // tau (the S-box on each byte of a word), for the key expansion.
  uint32_t (*tau)(uint32_t w);
  // out[i] = SM4 of in[i] under the round keys rk (encryption with the
  // encryption keys, decryption with the reversed ones), nblocks blocks.
  // in == out is allowed; other overlaps are not.
  void (*crypt_blocks)(const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t nblocks);
  // CTR: out[i] = in[i] ^ E(counter + i) over nblocks blocks, the counter a
  // 128-bit big-endian integer taken modulo 2^128; counter is advanced by
  // nblocks. in == out is allowed.
  void (*ctr_blocks)(const uint32_t rk[32], uint8_t counter[16], const uint8_t* in,
                     uint8_t* out, size_t nblocks);
};

// Every variant built into the library, preferred first; the last one
// (portable) is always usable.
const Variant* variants(size_t* count);

// The variant the library uses on this CPU (the first usable one).
const Variant& chosen_variant();

// The portable variant (bitsliced, no tables), always present.
const Variant& portable_variant();

using modes::ctr128_add;  // counter += n, modulo 2^128, big endian

// CTR built from crypt_blocks: writes counter blocks, encrypts them, XORs.
// For variants (and kernels' edge cases) without a faster counter path.
void ctr_by_blocks(void (*crypt_blocks)(const uint32_t*, const uint8_t*, uint8_t*, size_t),
                   const uint32_t rk[32], uint8_t counter[16], const uint8_t* in, uint8_t* out,
                   size_t nblocks);

}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_BLOCKS_H_
