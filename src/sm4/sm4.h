// SM4 block cipher (GB/T 32907-2016) on the CPU: expanded keys and whole
// blocks, on the variant chosen for this CPU (sm4_blocks.h). The modes of
// operation are in modes.h and gcm.h, written once over BlockCipher.
#ifndef KS_CIPHER_SM4_H_
#define KS_CIPHER_SM4_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/modes.h"
#include "sm4/sm4_blocks.h"

namespace ks {
namespace sm4 {

// Round keys for both directions and the variant that runs them. Secret:
// wipe with wipe_key (or secure_wipe) when done.
struct Key {
  uint32_t enc[32];  // rk_0 .. rk_31
  uint32_t dec[32];  // rk_31 .. rk_0
  const Variant* variant;
};

// Expands a 16-byte key for `variant` (the chosen one by default: tests
// name others).
void set_key(Key* k, const uint8_t key[16], const Variant& variant = chosen_variant());
void wipe_key(Key* k);

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
// out[i] = in[i] ^ E(counter + i), counter a 128-bit big-endian integer
// (modulo 2^128), advanced by nblocks.
void ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                size_t nblocks);

// CBC, CFB-128 or OFB encryption of whole blocks (BlockCipher::chain).
void chain_blocks(const Key& k, ChainMode mode, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t nblocks);

// SM4 as the block-cipher policy of modes.h / gcm.h (key: a const Key*).
const BlockCipher& block_cipher();

// --- The portable variant (sm4.cc), the reference for the others ---------
uint32_t tau_portable(uint32_t w);
// 64 blocks at a time bitsliced (BitslicedOps), fewer than 4 word by word.
void crypt_blocks_portable(const uint32_t rk[32], const uint8_t* in, uint8_t* out,
                           size_t nblocks);

}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_H_
