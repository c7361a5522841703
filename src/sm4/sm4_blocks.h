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

// One message of a chain_lanes call: whole blocks of CBC, CFB-128 or OFB
// encryption under the 16-byte key (expanded in the lanes, all of a group's
// keys at once), the chaining block in iv (in: C_{-1} or O_{-1}; out: the
// last C or O). in == out is allowed; messages must not overlap each other.
struct ChainJob {
  const uint8_t* key;
  uint8_t* iv;
  const uint8_t* in;
  uint8_t* out;
  size_t nblocks;
};

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
  // The encryption round keys rk_0 .. rk_31 of a 16-byte key.
  void (*expand_key)(const uint8_t key[16], uint32_t rk[32]);
  // CBC, CFB-128 or OFB encryption of nblocks whole blocks, one block at a
  // time with the chaining block (C_{-1} or O_{-1} in iv; the last C or O
  // out) in registers. in == out is allowed.
  void (*chain)(const uint32_t rk[32], ChainMode mode, uint8_t iv[16], const uint8_t* in,
                uint8_t* out, size_t nblocks);
  // Up to chain_width independent messages at once (jobs[0 .. n)), one per
  // SIMD lane, each with its own key: the serial modes of many streams.
  size_t chain_width;
  void (*chain_lanes)(ChainMode mode, ChainJob* jobs, size_t n);
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
