// SM4 keys, the dispatching block functions and the portable variant.
#include "sm4/sm4.h"

#include <string.h>

#include "sm4/sm4_core.h"
#include "core/secure.h"

namespace ks {
namespace sm4 {
namespace {

// Below this many blocks the word-at-a-time circuit beats one bitsliced
// pass, which costs the same for 1 block as for 64.
constexpr size_t kBitslicedMinBlocks = 4;
constexpr size_t kBitslicedBlocks = 64;

// 32x32 bit-matrix transpose in place: afterwards a[k] bit j = (before)
// a[j] bit k. Stage s swaps the entries whose row and column differ in bit
// s (Hacker's Delight 7-3): 5 x 16 masked swaps instead of 1,024 bit moves.
void transpose32(uint32_t a[32]) {
  static constexpr uint32_t kMask[5] = {0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u,
                                        0x55555555u};
  for (int stage = 0; stage < 5; ++stage) {
    const int s = 16 >> stage;
    for (int j = 0; j < 32; ++j) {
      if (j & s) continue;
      const uint32_t t = ((a[j] >> s) ^ a[j + s]) & kMask[stage];
      a[j] ^= t << s;
      a[j + s] ^= t;
    }
  }
}

// Blocks -> bit planes: word i of block l, bit k, goes to w[i].bit[k], bit
// l: two 32x32 transposes (blocks 0-31 and 32-63) per word position.
void to_planes(const uint8_t* in, size_t nblocks, BitslicedWord w[4]) {
  for (int i = 0; i < 4; ++i) {
    uint32_t half[2][32] = {};
    for (size_t l = 0; l < nblocks; ++l) half[l / 32][l % 32] = load_be32(in + 16 * l + 4 * i);
    transpose32(half[0]);
    transpose32(half[1]);
    for (int k = 0; k < 32; ++k) w[i].bit[k] = half[0][k] | uint64_t(half[1][k]) << 32;
    secure_wipe(half, sizeof half);
  }
}

void from_planes(const BitslicedWord w[4], size_t nblocks, uint8_t* out) {
  for (int i = 0; i < 4; ++i) {
    uint32_t half[2][32];
    for (int k = 0; k < 32; ++k) {
      half[0][k] = uint32_t(w[i].bit[k]);
      half[1][k] = uint32_t(w[i].bit[k] >> 32);
    }
    transpose32(half[0]);
    transpose32(half[1]);
    for (size_t l = 0; l < nblocks; ++l) store_be32(out + 16 * l + 4 * i, half[l / 32][l % 32]);
    secure_wipe(half, sizeof half);
  }
}

void crypt_bitsliced(const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t nblocks) {
  BitslicedWord w[4];
  to_planes(in, nblocks, w);
  crypt_words<BitslicedOps>(w, rk);
  from_planes(w, nblocks, out);
  secure_wipe(w, sizeof w);
}

}  // namespace

BitslicedWord BitslicedOps::tau(BitslicedWord w) {
  KS_UNROLL for (int byte = 0; byte < 4; ++byte) sbox_planes(w.bit + 8 * byte);
  return w;
}

uint32_t tau_portable(uint32_t w) { return tau_word(w); }

void crypt_blocks_portable(const uint32_t rk[32], const uint8_t* in, uint8_t* out,
                           size_t nblocks) {
  while (nblocks >= kBitslicedMinBlocks) {
    const size_t n = nblocks < kBitslicedBlocks ? nblocks : kBitslicedBlocks;
    crypt_bitsliced(rk, in, out, n);
    in += 16 * n;
    out += 16 * n;
    nblocks -= n;
  }
  for (size_t i = 0; i < nblocks; ++i) crypt_block(rk, in + 16 * i, out + 16 * i);
}

void set_key(Key* k, const uint8_t key[16], const Variant& variant) {
  variant.expand_key(key, k->enc);
  for (int i = 0; i < 32; ++i) k->dec[i] = k->enc[31 - i];
  k->variant = &variant;
}

void wipe_key(Key* k) { secure_wipe(k, sizeof *k); }

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  if (nblocks != 0) k.variant->crypt_blocks(k.enc, in, out, nblocks);
}

void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  if (nblocks != 0) k.variant->crypt_blocks(k.dec, in, out, nblocks);
}

void ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                size_t nblocks) {
  if (nblocks != 0) k.variant->ctr_blocks(k.enc, counter, in, out, nblocks);
}

void chain_blocks(const Key& k, ChainMode mode, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t nblocks) {
  if (nblocks != 0) k.variant->chain(k.enc, mode, iv, in, out, nblocks);
}

const BlockCipher& block_cipher() {
  return block_cipher_of<Key, encrypt_blocks, decrypt_blocks, ctr_blocks, chain_blocks>();
}

}  // namespace sm4
}  // namespace ks
