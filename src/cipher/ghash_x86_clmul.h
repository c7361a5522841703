// GHASH with carry-less multiplication, 128 bits at a time: shared by the
// PCLMULQDQ and VPCLMULQDQ kernels, included inside their target regions
// (the reason is in sm4_x86_lanes.h).
//
// Blocks are byte-reversed into registers, so that a register holds the
// block as a big-endian 128-bit integer: the field element with its bits
// reflected (SP 800-38D 6.3: bit 0 of the block is the coefficient of x^0).
// As in ghash.cc, the carry-less product of reflected operands is the
// reflected product shifted right by one; products of up to 16 blocks with
// the matching powers of H are summed unreduced (the shift and the
// reduction are linear, Gueron and Kounavis' aggregated reduction) and
// reduced once.
#ifndef KS_CIPHER_GHASH_X86_CLMUL_H_
#define KS_CIPHER_GHASH_X86_CLMUL_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "cipher/ghash.h"

#define KS_GHASH_INLINE inline __attribute__((always_inline))

namespace ks {
namespace ghash {
namespace {

constexpr int kPowers = 16;  // the key holds H^16 .. H^1, in that order

KS_GHASH_INLINE __m128i byte_reverse() {
  return _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

KS_GHASH_INLINE __m128i load_block(const uint8_t* p) {
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), byte_reverse());
}

KS_GHASH_INLINE void store_block(uint8_t* p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_shuffle_epi8(v, byte_reverse()));
}

// H^(16 - i) of the key, i = 0 .. 15 (unaligned: keys live in callers'
// opaque structs).
KS_GHASH_INLINE const __m128i* powers(const Key& key) {
  return reinterpret_cast<const __m128i*>(key.words);
}

// An unreduced 256-bit sum of products: lo + mid * 2^64 + hi * 2^128.
struct Wide {
  __m128i lo, mid, hi;
};

KS_GHASH_INLINE Wide wide_zero() {
  return {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
}

KS_GHASH_INLINE void mul_add(Wide* acc, __m128i x, __m128i h) {
  acc->lo = _mm_xor_si128(acc->lo, _mm_clmulepi64_si128(x, h, 0x00));
  acc->hi = _mm_xor_si128(acc->hi, _mm_clmulepi64_si128(x, h, 0x11));
  acc->mid = _mm_xor_si128(acc->mid, _mm_xor_si128(_mm_clmulepi64_si128(x, h, 0x01),
                                                   _mm_clmulepi64_si128(x, h, 0x10)));
}

// Multiplication of each 64-bit half by x^63 + x^62 + x^57 (the spill of
// the fold below: x^128 = 1 + x + x^2 + x^7, reflected).
KS_GHASH_INLINE __m128i spill(__m128i v) {
  return _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(v, 63), _mm_slli_epi64(v, 62)),
                       _mm_slli_epi64(v, 57));
}

KS_GHASH_INLINE __m128i fold(__m128i v) {
  return _mm_xor_si128(_mm_xor_si128(v, _mm_srli_epi64(v, 1)),
                       _mm_xor_si128(_mm_srli_epi64(v, 2), _mm_srli_epi64(v, 7)));
}

// The reflected element of a 256-bit product: shift left by one, then fold
// the low 128 bits (coefficients x^128 and up) into the high ones, the low
// word first since its spill lands in the high word of the low half.
KS_GHASH_INLINE __m128i reduce(const Wide& w) {
  __m128i lo = _mm_xor_si128(w.lo, _mm_slli_si128(w.mid, 8));
  __m128i hi = _mm_xor_si128(w.hi, _mm_srli_si128(w.mid, 8));
  const __m128i carry_lo = _mm_srli_epi64(lo, 63), carry_hi = _mm_srli_epi64(hi, 63);
  lo = _mm_or_si128(_mm_slli_epi64(lo, 1), _mm_slli_si128(carry_lo, 8));
  hi = _mm_or_si128(_mm_or_si128(_mm_slli_epi64(hi, 1), _mm_slli_si128(carry_hi, 8)),
                    _mm_srli_si128(carry_lo, 8));
  lo = _mm_xor_si128(lo, _mm_slli_si128(spill(lo), 8));  // v1 ^= spill(v0)
  hi = _mm_xor_si128(hi, fold(lo));                       // v3:v2 ^= fold(v1:v0)
  return _mm_xor_si128(hi, _mm_srli_si128(spill(lo), 8));  // v2 ^= spill(v1)
}

KS_GHASH_INLINE __m128i mul(__m128i x, __m128i h) {
  Wide w = wide_zero();
  mul_add(&w, x, h);
  return reduce(w);
}

// The key: H^16 .. H^1, reflected.
KS_GHASH_INLINE void init_powers(Key* key, const uint8_t h[16]) {
  __m128i* out = reinterpret_cast<__m128i*>(key->words);
  const __m128i h1 = load_block(h);
  __m128i p = h1;
  for (int i = kPowers - 1; i >= 0; --i) {
    _mm_storeu_si128(out + i, p);
    p = mul(p, h1);
  }
}

// Up to 16 blocks with one reduction: block j of k gets H^(k - j).
KS_GHASH_INLINE __m128i chunk(const Key& key, __m128i y, const uint8_t* data, size_t k) {
  const __m128i* h = powers(key) + (kPowers - k);
  Wide w = wide_zero();
  mul_add(&w, _mm_xor_si128(load_block(data), y), _mm_loadu_si128(h));
  for (size_t j = 1; j < k; ++j) mul_add(&w, load_block(data + 16 * j), _mm_loadu_si128(h + j));
  return reduce(w);
}

}  // namespace
}  // namespace ghash
}  // namespace ks

#endif  // KS_CIPHER_GHASH_X86_CLMUL_H_
