// GF(p) for the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 in eight
// independent lanes of AVX-512 IFMA (the multi-buffer field of
// curve/sm2_mb.cc). AVX-512 INTRINSICS: include this header only from .cc
// files that start with the KS_IFMA_BEGIN pragma block (see below) and that
// no .cu file includes; call nothing here unless cpu_features().avx512ifma.
//
// Layout: an element is five __m512i limbs, lane i of limb j holding bits
// [52j, 52j + 52) of lane i's value: radix 2^52, every limb normalized below
// 2^52 (vpmadd52luq/huq read only the low 52 bits of their factors).
// Values are in Montgomery form x * R mod p with R = 2^260 and are kept
// below 2^257 (about 2p): Montgomery products of such inputs land below
// 2^254 + p < 2p; add and sub fold the bits above 2^256 back in with
// 2^256 = 2^224 + 2^96 - 2^64 + 1 (mod p), which needs no comparison;
// canonical() gives [0, p), is_zero() matches 0, p and 2p.
// Because p = -1 mod 2^52, -p^-1 mod 2^52 = 1: the Montgomery quotient digit
// is the low limb itself, no multiplication; and three of p's five limbs
// are 2^52 - 1, so m p is mostly additions (mont_reduce).
//
// Fp8 satisfies the field policy of curve/jacobian.h with one twist: the
// uint64_t "masks" are lane bitmaps (bit i set = true in lane i, so all ones
// still means every lane). Every function is branch-free and index-free in
// the values: per-lane choices are AVX-512 mask registers.
#ifndef KS_FIELD_FP_IFMA_SIMD_H_
#define KS_FIELD_FP_IFMA_SIMD_H_

#include <immintrin.h>
#include <stdint.h>

#include "field/u256.h"

// Target of every function that uses these intrinsics.
#define KS_IFMA_TARGET "avx512f,avx512vl,avx512bw,avx512ifma"
#define KS_IFMA_INLINE inline __attribute__((always_inline, target(KS_IFMA_TARGET)))
// Every fixed limb loop must be unrolled (and its arrays kept in registers):
// gcc does that by itself at -O3 only, and -O2 code is three times slower.
#define KS_IFMA_UNROLL _Pragma("GCC unroll 16")

namespace ks {
namespace field {
namespace ifma {

constexpr int kLimbs = 5;
constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;

namespace detail {

// The Montgomery constants are derived from p at compile time
// (field/u256.h pow2_mod): no pasted numbers.
using W4 = U256;
constexpr W4 kP64 = {
    {0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFF00000000ull, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFEFFFFFFFFull}};

constexpr W4 pow2_mod_p(int e) { return pow2_mod(e, kP64); }

struct L5 {
  uint64_t l[kLimbs];
};
constexpr L5 to_radix52(const W4& a) {
  return {{a.w[0] & kMask52, ((a.w[0] >> 52) | (a.w[1] << 12)) & kMask52,
           ((a.w[1] >> 40) | (a.w[2] << 24)) & kMask52, ((a.w[2] >> 28) | (a.w[3] << 36)) & kMask52,
           a.w[3] >> 16}};
}
constexpr L5 times2(const L5& a) {
  // 2p in radix 2^52 with the carries propagated
  L5 r{};
  uint64_t carry = 0;
  for (int j = 0; j < kLimbs; ++j) {
    const uint64_t v = 2 * a.l[j] + carry;
    r.l[j] = j + 1 < kLimbs ? (v & kMask52) : v;
    carry = v >> 52;
  }
  return r;
}

constexpr L5 kP = to_radix52(kP64);
constexpr L5 kP2 = times2(kP);
constexpr L5 kP4 = times2(kP2);
// 4p with every limb but the top one at least 2^52 and the top one at least
// 2^49 (borrowing one unit from each next limb): a - b + 4p limb by limb is
// then non-negative for any normalized a, b below 2^257.
constexpr L5 kP4Spread = {{kP4.l[0] + (uint64_t(1) << 52), kP4.l[1] + kMask52, kP4.l[2] + kMask52,
                           kP4.l[3] + kMask52, kP4.l[4] - 1}};
static_assert(kP4.l[1] >= 1 && kP4.l[4] - 1 >= (uint64_t(1) << 49), "4p spread");
constexpr L5 kOneMont = to_radix52(pow2_mod_p(260));  // R mod p
constexpr L5 kR2 = to_radix52(pow2_mod_p(520));       // R^2 mod p
static_assert(kP.l[0] == kMask52, "p = -1 mod 2^52: the Montgomery digit is the low limb");
static_assert(kP.l[2] == kMask52 && kP.l[3] == kMask52,
              "mont_reduce: limbs 0, 2, 3 of p are 2^52 - 1");

}  // namespace detail

struct Fe8 {
  __m512i l[kLimbs];
};

// The products know nothing of the prime (field/fe25519_ifma_simd.h reduces
// them too): t = a b as ten 64-bit accumulators, limb k weighing 2^(52k),
// from the 25 limb products by product scanning (vpmadd52luq/huq). Limbs of
// a and b must be below 2^52; t[k] then gathers at most nine 52-bit halves
// (t[4] and t[5]; t[9] one), so t[k] < 9 * 2^52.
KS_IFMA_INLINE void mul_wide(__m512i t[2 * kLimbs], const Fe8& a, const Fe8& b) {
  KS_IFMA_UNROLL for (int k = 0; k < 2 * kLimbs; ++k) t[k] = _mm512_setzero_si512();
  KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i) KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) {
    t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[i], b.l[j]);
    t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[i], b.l[j]);
  }
}
// a^2 the same way: the ten cross products once, doubled, then the five
// squares (the same bounds).
KS_IFMA_INLINE void sqr_wide(__m512i t[2 * kLimbs], const Fe8& a) {
  KS_IFMA_UNROLL for (int k = 0; k < 2 * kLimbs; ++k) t[k] = _mm512_setzero_si512();
  KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i)
      KS_IFMA_UNROLL for (int j = i + 1; j < kLimbs; ++j) {
    t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[i], a.l[j]);
    t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[i], a.l[j]);
  }
  // (no cross product reaches t[9])
  KS_IFMA_UNROLL for (int k = 1; k < 2 * kLimbs - 1; ++k) t[k] = _mm512_add_epi64(t[k], t[k]);
  KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i) {
    t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.l[i], a.l[i]);
    t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.l[i], a.l[i]);
  }
}

// The ring operations of a lane field F, written once. F supplies
// fold_normalize (carries, folding back what lies above its bound),
// kSubBias (a multiple of p spread so that a - b + kSubBias is non-negative
// limb by limb for any two elements) and reduce_product (a 10-limb product
// to an element): the fields differ only there.
template <class F>
struct LaneArithmetic {
  KS_IFMA_INLINE static Fe8 add(const Fe8& a, const Fe8& b) {
    Fe8 s;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
    F::fold_normalize(s.l);
    return s;
  }
  KS_IFMA_INLINE static Fe8 sub(const Fe8& a, const Fe8& b) {
    Fe8 d;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) d.l[j] = _mm512_sub_epi64(
        _mm512_add_epi64(a.l[j], _mm512_set1_epi64((long long)F::kSubBias.l[j])), b.l[j]);
    F::fold_normalize(d.l);
    return d;
  }
  KS_IFMA_INLINE static Fe8 neg(const Fe8& a) { return sub(F::zero(), a); }
  KS_IFMA_INLINE static Fe8 dbl(const Fe8& a) { return add(a, a); }

  KS_IFMA_INLINE static Fe8 mul(const Fe8& a, const Fe8& b) {
    __m512i t[2 * kLimbs];
    mul_wide(t, a, b);
    return F::reduce_product(t);
  }
  KS_IFMA_INLINE static Fe8 sqr(const Fe8& a) {
    __m512i t[2 * kLimbs];
    sqr_wide(t, a);
    return F::reduce_product(t);
  }
  __attribute__((target(KS_IFMA_TARGET))) static Fe8 sqr_n(Fe8 a, int n) {
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
};

struct Fp8 : LaneArithmetic<Fp8> {
  using Elem = Fe8;

  KS_IFMA_INLINE static Fe8 broadcast(const detail::L5& c) {
    Fe8 r;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r.l[j] = _mm512_set1_epi64((long long)c.l[j]);
    return r;
  }
  KS_IFMA_INLINE static Fe8 zero() {
    Fe8 r;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r.l[j] = _mm512_setzero_si512();
    return r;
  }
  KS_IFMA_INLINE static Fe8 one() { return broadcast(detail::kOneMont); }

  // Carry propagation to 52-bit limbs; arithmetic shifts so that a negative
  // value ends with every low limb normalized and the sign in the top limb.
  KS_IFMA_INLINE static void normalize_signed(__m512i l[kLimbs]) {
    const __m512i m = _mm512_set1_epi64((long long)kMask52);
    KS_IFMA_UNROLL for (int j = 0; j + 1 < kLimbs; ++j) {
      l[j + 1] = _mm512_add_epi64(l[j + 1], _mm512_srai_epi64(l[j], 52));
      l[j] = _mm512_and_si512(l[j], m);
    }
  }

  // Folds the bits of a non-negative limb vector above 2^256 (those of the
  // top limb from bit 48 on, carries of the lower limbs not yet propagated)
  // back in through 2^256 = 2^224 + 2^96 - 2^64 + 1 (mod p), then carries.
  // For limbs below 2^55 the result is below 2^256 + 2^230 < 2^257.
  // (2^96 - 2^64 = (2^44 - 2^12) 2^52 and 2^224 = 2^16 2^208 go in through
  // vpmadd52luq: one instruction for what shifts and adds take three.)
  KS_IFMA_INLINE static void fold_normalize(__m512i l[kLimbs]) {
    // h < 2^16 here, so the products below are exact in 52 bits
    const __m512i h = _mm512_srli_epi64(l[4], 48);
    l[4] = _mm512_madd52lo_epu64(_mm512_and_si512(l[4], _mm512_set1_epi64((1ll << 48) - 1)), h,
                                 _mm512_set1_epi64(1ll << 16));
    l[1] = _mm512_madd52lo_epu64(l[1], h, _mm512_set1_epi64((1ll << 44) - (1ll << 12)));
    l[0] = _mm512_add_epi64(l[0], h);
    normalize_signed(l);  // non-negative here: a plain carry chain
  }

  // add and sub (LaneArithmetic) reduce below 2^257 (not necessarily below
  // p or 2p); sub computes a - b + 4p, limbs kept non-negative by
  // kP4Spread.
  static constexpr detail::L5 kSubBias = detail::kP4Spread;

  // a / 2 mod p (a normalized, below 2^257): a + p in the lanes where a is
  // odd (even, below 2^258), carried, then one bit to the right; below 2^257.
  KS_IFMA_INLINE static Fe8 half(const Fe8& a) {
    const __mmask8 odd = _mm512_test_epi64_mask(a.l[0], _mm512_set1_epi64(1));
    Fe8 s;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) s.l[j] = _mm512_mask_add_epi64(
        a.l[j], odd, a.l[j], _mm512_set1_epi64((long long)detail::kP.l[j]));
    normalize_signed(s.l);  // non-negative: a plain carry chain
    const __m512i top_bit = _mm512_set1_epi64(1ll << 51);
    KS_IFMA_UNROLL for (int j = 0; j + 1 < kLimbs; ++j) s.l[j] = _mm512_or_si512(
        _mm512_srli_epi64(s.l[j], 1), _mm512_and_si512(_mm512_slli_epi64(s.l[j + 1], 51), top_bit));
    s.l[kLimbs - 1] = _mm512_srli_epi64(s.l[kLimbs - 1], 1);
    return s;
  }

  // Montgomery reduction of a 10-limb product t (64-bit accumulators, limb
  // k weighing 2^(52k)): five steps of t += m p B^i, m = t_i mod B (p = -1
  // mod B = 2^52, so m needs no multiplication), then t / B^5. Limbs 0, 2
  // and 3 of p are B - 1, so m (B - 1) B^i is -m at limb i and +m at limb
  // i + 1 (and those of limbs 2 and 3 partly cancel): the product m p costs
  // four vpmadd52 (limbs 1 and 4 of p) and four additions instead of ten
  // vpmadd52. Accumulators may dip below zero, hence arithmetic shifts.
  KS_IFMA_INLINE static Fe8 mont_reduce(__m512i t[2 * kLimbs]) {
    const __m512i mask = _mm512_set1_epi64((long long)kMask52);
    const __m512i p1 = _mm512_set1_epi64((long long)detail::kP.l[1]);
    const __m512i p4 = _mm512_set1_epi64((long long)detail::kP.l[4]);
    KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i) {
      const __m512i m = _mm512_and_si512(t[i], mask);
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_add_epi64(m, _mm512_srai_epi64(t[i], 52)));
      t[i + 1] = _mm512_madd52lo_epu64(t[i + 1], m, p1);
      t[i + 2] = _mm512_madd52hi_epu64(_mm512_sub_epi64(t[i + 2], m), m, p1);
      t[i + 4] = _mm512_madd52lo_epu64(_mm512_add_epi64(t[i + 4], m), m, p4);
      t[i + 5] = _mm512_madd52hi_epu64(t[i + 5], m, p4);
    }
    Fe8 r = {{t[5], t[6], t[7], t[8], t[9]}};
    normalize_signed(r.l);
    return r;
  }

  // mul and sqr (LaneArithmetic) give Montgomery products a b / 2^260 mod p:
  // inputs below 2^257, output below 2^514 / 2^260 + p < 2p, limbs
  // normalized.
  KS_IFMA_INLINE static Fe8 reduce_product(__m512i t[2 * kLimbs]) { return mont_reduce(t); }

  // x - c when that is not negative, else x (x normalized, c a constant).
  KS_IFMA_INLINE static Fe8 subtract_if_ge(const Fe8& x, const detail::L5& c) {
    Fe8 d;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) d.l[j] =
        _mm512_sub_epi64(x.l[j], _mm512_set1_epi64((long long)c.l[j]));
    normalize_signed(d.l);
    const __mmask8 neg = _mm512_cmplt_epi64_mask(d.l[kLimbs - 1], _mm512_setzero_si512());
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) d.l[j] =
        _mm512_mask_blend_epi64(neg, d.l[j], x.l[j]);
    return d;
  }
  // The representative in [0, p) of a value below 2^257 < 3p.
  KS_IFMA_INLINE static Fe8 canonical(const Fe8& a) {
    return subtract_if_ge(subtract_if_ge(a, detail::kP2), detail::kP);
  }

  // Lane bitmaps (see the header comment). A normalized value below 2^257
  // is 0 mod p exactly when it is 0, p or 2p.
  KS_IFMA_INLINE static uint64_t is_zero(const Fe8& a) {
    __mmask8 z = 0xFF, is_p = 0xFF, is_2p = 0xFF;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) {
      z &= _mm512_cmpeq_epi64_mask(a.l[j], _mm512_setzero_si512());
      is_p &= _mm512_cmpeq_epi64_mask(a.l[j], _mm512_set1_epi64((long long)detail::kP.l[j]));
      is_2p &= _mm512_cmpeq_epi64_mask(a.l[j], _mm512_set1_epi64((long long)detail::kP2.l[j]));
    }
    return uint64_t(z | is_p | is_2p);
  }
  KS_IFMA_INLINE static uint64_t eq(const Fe8& a, const Fe8& b) { return is_zero(sub(a, b)); }
  KS_IFMA_INLINE static Fe8 select(uint64_t mask, const Fe8& a, const Fe8& b) {
    const __mmask8 k = __mmask8(mask);
    Fe8 r;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r.l[j] =
        _mm512_mask_blend_epi64(k, b.l[j], a.l[j]);
    return r;
  }

  KS_IFMA_INLINE static Fe8 to_mont(const Fe8& plain) { return mul(plain, broadcast(detail::kR2)); }
  // Canonical plain value of a Montgomery element.
  KS_IFMA_INLINE static Fe8 from_mont(const Fe8& a) {
    Fe8 one_plain = zero();
    one_plain.l[0] = _mm512_set1_epi64(1);
    return canonical(mul(a, one_plain));
  }

  // Lane i of in[i] (four 64-bit limbs, value below 2^256) to radix 2^52.
  KS_IFMA_INLINE static Fe8 load(const uint64_t (*in)[4]) {
    alignas(64) uint64_t t[4][8];
    KS_IFMA_UNROLL for (int i = 0; i < 8; ++i) KS_IFMA_UNROLL for (int k = 0; k < 4; ++k) t[k][i] =
        in[i][k];
    const __m512i w0 = _mm512_load_si512(t[0]), w1 = _mm512_load_si512(t[1]);
    const __m512i w2 = _mm512_load_si512(t[2]), w3 = _mm512_load_si512(t[3]);
    const __m512i m = _mm512_set1_epi64((long long)kMask52);
    Fe8 r;
    r.l[0] = _mm512_and_si512(w0, m);
    r.l[1] =
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w0, 52), _mm512_slli_epi64(w1, 12)), m);
    r.l[2] =
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w1, 40), _mm512_slli_epi64(w2, 24)), m);
    r.l[3] =
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w2, 28), _mm512_slli_epi64(w3, 36)), m);
    r.l[4] = _mm512_srli_epi64(w3, 16);
    return r;
  }
  // Inverse of load for values below 2^256 (canonical ones).
  KS_IFMA_INLINE static void store(uint64_t (*out)[4], const Fe8& a) {
    alignas(64) uint64_t t[4][8];
    _mm512_store_si512(t[0], _mm512_or_si512(a.l[0], _mm512_slli_epi64(a.l[1], 52)));
    _mm512_store_si512(
        t[1], _mm512_or_si512(_mm512_srli_epi64(a.l[1], 12), _mm512_slli_epi64(a.l[2], 40)));
    _mm512_store_si512(
        t[2], _mm512_or_si512(_mm512_srli_epi64(a.l[2], 24), _mm512_slli_epi64(a.l[3], 28)));
    _mm512_store_si512(
        t[3], _mm512_or_si512(_mm512_srli_epi64(a.l[3], 36), _mm512_slli_epi64(a.l[4], 16)));
    KS_IFMA_UNROLL for (int i = 0; i < 8; ++i) KS_IFMA_UNROLL for (int k = 0; k < 4; ++k)
        out[i][k] = t[k][i];
  }

  // a^(p-2) per lane (0 -> 0), the 255S + 14M chain of field/fp.h.
  static Fe8 inv(const Fe8& a);
};

}  // namespace ifma
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_IFMA_SIMD_H_
