// SKINNY-128-256 on the CPU: the expanded tweakey, whole-block encryption
// and decryption, CTR, and the block-cipher policy through which modes.h
// gives ECB, CTR and the streaming modes. Constant time: the S-box is its
// circuit (skinny128_256_core.h), computed on the rows, never looked up.
//
// table_* is the other kind of code, kept as a baseline only: the S-box
// looked up in a 256-byte table, as the seed's one-thread CPU reference and
// most software SKINNY do. Its memory addresses depend on the data and the
// tweakey; nothing but the benchmarks calls it.
#ifndef KS_CIPHER_SKINNY128_256_H_
#define KS_CIPHER_SKINNY128_256_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/modes.h"
#include "skinny/skinny128_256_core.h"

namespace ks {
namespace skinny {

// The round tweakeys of one 32-byte tweakey TK1 || TK2. Secret: wipe_key.
struct Key {
  RoundTweakeys rtk;
};

void set_key(Key* k, const uint8_t tweakey[kTweakeyBytes]);
void wipe_key(Key* k);

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
// out[i] = in[i] ^ E(counter + i), counter a 128-bit big-endian integer
// modulo 2^128, advanced by nblocks.
void ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                size_t nblocks);

// A tweak per block (Romulus- and Deoxys-style use): block i under TK1 =
// tweaks[16 i .. 16 i + 16) and the TK2 of k2 (a Key set from 0^128 ||
// TK2), encrypted or decrypted; TK1's part of each round tweakey is added
// to k2's, so no block pays a whole schedule.
void tweaked_blocks(const Key& k2, bool encrypt, const uint8_t* tweaks, const uint8_t* in,
                    uint8_t* out, size_t nblocks);

// "gfni-avx512", "avx512", "gfni-avx2", "avx2" or "portable": the kernel encrypt/decrypt/ctr_blocks use
// for whole groups of 16 or 8 blocks (the rest one block at a time).
const char* kernel_name();

// SKINNY-128-256 as the block-cipher policy of modes.h (key: a const Key*).
const BlockCipher& block_cipher();

// The table-based baseline (not constant time; benchmarks only).
void table_encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
void table_ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                      size_t nblocks);

}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY128_256_H_
