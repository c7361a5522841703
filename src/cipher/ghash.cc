// The portable GHASH and the dispatch.
//
// Portable multiplication without tables or secret branches, after the
// design of BearSSL's ghash_ctmul64: a block is read as a big-endian 128-bit
// integer, which is the field element with its bits reflected (bit 127 is
// the coefficient of x^0, SP 800-38D 6.3). The carry-less product of two
// reflected values is the reflected product shifted right by one, so the
// 256-bit product is shifted left by one and reduced modulo
// x^128 + x^7 + x^2 + x + 1 by folding its low half into the high half.
// 64x64 carry-less products come from integer multiplications of the
// operands masked to every fourth bit ("holes"), which keeps the carries of
// each partial sum out of the bits that are kept.
#include "cipher/ghash.h"

#include <string.h>

#include "cipher/gf128_karatsuba.h"
#include "cipher/ghash_x86_kernels.h"
#include "cipher/x86_cpu.h"
#include "core/cpu_features.h"
#include "core/secure.h"

namespace ks {
namespace ghash {
namespace {

uint64_t load_be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void store_be64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}

// The low 64 bits of the carry-less product x * y. Each masked product
// x_i * y_j has its terms 4 bits apart and at most 16 of them per column
// below bit 64 (15 below bit 60), so the column sums never carry into the
// next kept bit of the same class.
uint64_t clmul_lo(uint64_t x, uint64_t y) {
  constexpr uint64_t m0 = 0x1111111111111111, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
  const uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
  const uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
  const uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
  const uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
  const uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
  const uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
  return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

uint64_t rev64(uint64_t x) {
  x = ((x & 0x5555555555555555) << 1) | ((x >> 1) & 0x5555555555555555);
  x = ((x & 0x3333333333333333) << 2) | ((x >> 2) & 0x3333333333333333);
  x = ((x & 0x0f0f0f0f0f0f0f0f) << 4) | ((x >> 4) & 0x0f0f0f0f0f0f0f0f);
  return __builtin_bswap64(x);
}

// The full 128-bit product: the high half is the low half of the product
// of the bit-reversed operands, reversed back (and one bit short).
void clmul64(uint64_t x, uint64_t y, uint64_t* hi, uint64_t* lo) {
  *lo = clmul_lo(x, y);
  *hi = rev64(clmul_lo(rev64(x), rev64(y))) >> 1;
}

// y = y * h, both reflected as (hi, lo) word pairs.
void mul(uint64_t* y1, uint64_t* y0, uint64_t h1, uint64_t h0) {
  gf128::mul(y1, y0, h1, h0, [](uint64_t x, uint64_t y, uint64_t* hi, uint64_t* lo) {
    clmul64(x, y, hi, lo);
  });
}

}  // namespace

void init_portable(Key* key, const uint8_t h[16]) {
  memset(key->words, 0, sizeof key->words);
  key->words[0] = load_be64(h);
  key->words[1] = load_be64(h + 8);
}

void blocks_portable(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks) {
  uint64_t y1 = load_be64(y), y0 = load_be64(y + 8);
  for (size_t i = 0; i < nblocks; ++i, data += 16) {
    y1 ^= load_be64(data);
    y0 ^= load_be64(data + 8);
    mul(&y1, &y0, key.words[0], key.words[1]);
  }
  store_be64(y, y1);
  store_be64(y + 8, y0);
}

const Variant* variants(size_t* count) {
  static const Variant kTable[] = {
#if KS_GHASH_X86
      {"vpclmul-avx512", x86::has_vpclmul(), init_vpclmul, blocks_vpclmul},
      {"pclmul", x86::has_pclmul(), init_pclmul, blocks_pclmul},
#endif
      {"portable", true, init_portable, blocks_portable},
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

const Variant& chosen_variant() {
  static const Variant& chosen = first_usable(variants);
  return chosen;
}

void init(Key* key, const uint8_t h[16], const Variant& variant) {
  variant.init(key, h);
  key->variant = &variant;
}

}  // namespace ghash
}  // namespace ks
