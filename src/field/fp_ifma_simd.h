// GF(p) for the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 in eight
// independent lanes of AVX-512 IFMA (the multi-buffer field of
// sm2/sm2_curve_mb.cc). AVX-512 INTRINSICS: include this header only from .cc
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
//
// Vector width: the limb machinery that knows nothing of the prime (the
// element type, broadcasts, blends, the carry chain, the radix conversions,
// the 10-limb products and LaneArithmetic) is written once over a vector
// type V: Zmm (eight lanes in __m512i, the batches) or Ymm (four lanes in
// __m256i with the AVX-512VL forms of the same instructions: the single
// operations of curve25519/ed25519_x4.cc, where one field element per lane and
// the parallel formulas keep all four lanes busy, and where a ymm
// vpmadd52 costs half a zmm one on CPUs that split zmm operations in two).
// Fp8 (SM2) exists in the zmm width only; GF(2^255 - 19)
// (field/fe25519_ifma_simd.h) in both.
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

// The vector types: the instructions the lanes use, in one width each.
// Masks are lane bitmaps in an AVX-512 mask register (the low 8 or 4 bits).
struct Zmm {
  using Reg = __m512i;
  static constexpr int kLanes = 8;
  // Batches are throughput-bound: products and reductions arranged for the
  // fewest instructions.
  static constexpr bool kLatencyBound = false;
  KS_IFMA_INLINE static Reg zero() { return _mm512_setzero_si512(); }
  KS_IFMA_INLINE static Reg set1(uint64_t x) { return _mm512_set1_epi64((long long)x); }
  KS_IFMA_INLINE static Reg add(Reg a, Reg b) { return _mm512_add_epi64(a, b); }
  KS_IFMA_INLINE static Reg sub(Reg a, Reg b) { return _mm512_sub_epi64(a, b); }
  KS_IFMA_INLINE static Reg and_(Reg a, Reg b) { return _mm512_and_si512(a, b); }
  KS_IFMA_INLINE static Reg or_(Reg a, Reg b) { return _mm512_or_si512(a, b); }
  KS_IFMA_INLINE static Reg andnot(Reg a, Reg b) { return _mm512_andnot_si512(a, b); }  // ~a & b
  template <int n>
  KS_IFMA_INLINE static Reg srli(Reg a) { return _mm512_srli_epi64(a, n); }
  template <int n>
  KS_IFMA_INLINE static Reg srai(Reg a) { return _mm512_srai_epi64(a, n); }
  template <int n>
  KS_IFMA_INLINE static Reg slli(Reg a) { return _mm512_slli_epi64(a, n); }
  KS_IFMA_INLINE static Reg madd52lo(Reg acc, Reg a, Reg b) {
    return _mm512_madd52lo_epu64(acc, a, b);
  }
  KS_IFMA_INLINE static Reg madd52hi(Reg acc, Reg a, Reg b) {
    return _mm512_madd52hi_epu64(acc, a, b);
  }
  KS_IFMA_INLINE static Reg load(const uint64_t* p) { return _mm512_load_si512(p); }
  KS_IFMA_INLINE static void store(uint64_t* p, Reg a) { _mm512_store_si512(p, a); }
  KS_IFMA_INLINE static __mmask8 cmpeq(Reg a, Reg b) { return _mm512_cmpeq_epi64_mask(a, b); }
  KS_IFMA_INLINE static __mmask8 test(Reg a, Reg b) { return _mm512_test_epi64_mask(a, b); }
  // k ? b : a lane by lane
  KS_IFMA_INLINE static Reg blend(__mmask8 k, Reg a, Reg b) {
    return _mm512_mask_blend_epi64(k, a, b);
  }
};

struct Ymm {
  using Reg = __m256i;
  static constexpr int kLanes = 4;
  // Single operations are latency-bound: products and reductions arranged
  // for shorter chains of dependent instructions, at the price of a few
  // more (mul_wide, Fe25519Lanes::reduce_product).
  static constexpr bool kLatencyBound = true;
  KS_IFMA_INLINE static Reg zero() { return _mm256_setzero_si256(); }
  KS_IFMA_INLINE static Reg set1(uint64_t x) { return _mm256_set1_epi64x((long long)x); }
  KS_IFMA_INLINE static Reg add(Reg a, Reg b) { return _mm256_add_epi64(a, b); }
  KS_IFMA_INLINE static Reg sub(Reg a, Reg b) { return _mm256_sub_epi64(a, b); }
  KS_IFMA_INLINE static Reg and_(Reg a, Reg b) { return _mm256_and_si256(a, b); }
  KS_IFMA_INLINE static Reg or_(Reg a, Reg b) { return _mm256_or_si256(a, b); }
  KS_IFMA_INLINE static Reg andnot(Reg a, Reg b) { return _mm256_andnot_si256(a, b); }  // ~a & b
  template <int n>
  KS_IFMA_INLINE static Reg srli(Reg a) { return _mm256_srli_epi64(a, n); }
  template <int n>
  KS_IFMA_INLINE static Reg srai(Reg a) { return _mm256_srai_epi64(a, n); }
  template <int n>
  KS_IFMA_INLINE static Reg slli(Reg a) { return _mm256_slli_epi64(a, n); }
  KS_IFMA_INLINE static Reg madd52lo(Reg acc, Reg a, Reg b) {
    return _mm256_madd52lo_epu64(acc, a, b);
  }
  KS_IFMA_INLINE static Reg madd52hi(Reg acc, Reg a, Reg b) {
    return _mm256_madd52hi_epu64(acc, a, b);
  }
  KS_IFMA_INLINE static Reg load(const uint64_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  KS_IFMA_INLINE static void store(uint64_t* p, Reg a) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), a);
  }
  KS_IFMA_INLINE static __mmask8 cmpeq(Reg a, Reg b) { return _mm256_cmpeq_epi64_mask(a, b); }
  KS_IFMA_INLINE static __mmask8 test(Reg a, Reg b) { return _mm256_test_epi64_mask(a, b); }
  KS_IFMA_INLINE static Reg blend(__mmask8 k, Reg a, Reg b) {  // k ? b : a lane by lane
    return _mm256_mask_blend_epi64(k, a, b);
  }
};

// An element of every lane: limb j of lane i in lane i of l[j].
template <class V>
struct LaneElem {
  typename V::Reg l[kLimbs];
};
using Fe8 = LaneElem<Zmm>;
using Fe4 = LaneElem<Ymm>;

// The limb-level helpers shared by every lane field of width V.
template <class V>
struct LaneOps {
  using Elem = LaneElem<V>;

  KS_IFMA_INLINE static Elem broadcast(const detail::L5& c) {
    Elem r;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r.l[j] = V::set1(c.l[j]);
    return r;
  }
  KS_IFMA_INLINE static Elem zero() {
    Elem r;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r.l[j] = V::zero();
    return r;
  }

  // Carry propagation to 52-bit limbs; arithmetic shifts so that a negative
  // value ends with every low limb normalized and the sign in the top limb.
  KS_IFMA_INLINE static void normalize_signed(typename V::Reg l[kLimbs]) {
    const typename V::Reg m = V::set1(kMask52);
    KS_IFMA_UNROLL for (int j = 0; j + 1 < kLimbs; ++j) {
      l[j + 1] = V::add(l[j + 1], V::template srai<52>(l[j]));
      l[j] = V::and_(l[j], m);
    }
  }

  KS_IFMA_INLINE static Elem select(uint64_t mask, const Elem& a, const Elem& b) {
    const __mmask8 k = __mmask8(mask);
    Elem r;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r.l[j] = V::blend(k, b.l[j], a.l[j]);
    return r;
  }

  // Lane i of in[i] (four 64-bit limbs, value below 2^256) to radix 2^52.
  KS_IFMA_INLINE static Elem load(const uint64_t (*in)[4]) {
    alignas(64) uint64_t t[4][V::kLanes];
    KS_IFMA_UNROLL for (int i = 0; i < V::kLanes; ++i) KS_IFMA_UNROLL for (int k = 0; k < 4; ++k)
        t[k][i] = in[i][k];
    const typename V::Reg w0 = V::load(t[0]), w1 = V::load(t[1]);
    const typename V::Reg w2 = V::load(t[2]), w3 = V::load(t[3]);
    const typename V::Reg m = V::set1(kMask52);
    Elem r;
    r.l[0] = V::and_(w0, m);
    r.l[1] = V::and_(V::or_(V::template srli<52>(w0), V::template slli<12>(w1)), m);
    r.l[2] = V::and_(V::or_(V::template srli<40>(w1), V::template slli<24>(w2)), m);
    r.l[3] = V::and_(V::or_(V::template srli<28>(w2), V::template slli<36>(w3)), m);
    r.l[4] = V::template srli<16>(w3);
    return r;
  }
  // Inverse of load for values below 2^256 (canonical ones).
  KS_IFMA_INLINE static void store(uint64_t (*out)[4], const Elem& a) {
    alignas(64) uint64_t t[4][V::kLanes];
    V::store(t[0], V::or_(a.l[0], V::template slli<52>(a.l[1])));
    V::store(t[1], V::or_(V::template srli<12>(a.l[1]), V::template slli<40>(a.l[2])));
    V::store(t[2], V::or_(V::template srli<24>(a.l[2]), V::template slli<28>(a.l[3])));
    V::store(t[3], V::or_(V::template srli<36>(a.l[3]), V::template slli<16>(a.l[4])));
    KS_IFMA_UNROLL for (int i = 0; i < V::kLanes; ++i) KS_IFMA_UNROLL for (int k = 0; k < 4; ++k)
        out[i][k] = t[k][i];
  }
};

// The products know nothing of the prime (field/fe25519_ifma_simd.h reduces
// them too): t = a b as ten 64-bit accumulators, limb k weighing 2^(52k),
// from the 25 limb products by product scanning (vpmadd52luq/huq). Limbs of
// a and b must be below 2^52; t[k] then gathers at most nine 52-bit halves
// (t[4] and t[5]; t[9] one), so t[k] < 9 * 2^52.
// Where V::kLatencyBound, the low and the high halves gather in separate
// accumulators, added at the end: the longest chain of dependent vpmadd52
// is then five, not nine (the latency of a single operation in four lanes
// is mostly that), for nine more additions.
template <class V>
KS_IFMA_INLINE void mul_wide(typename V::Reg t[2 * kLimbs], const LaneElem<V>& a,
                             const LaneElem<V>& b) {
  typename V::Reg hi[2 * kLimbs];
  KS_IFMA_UNROLL for (int k = 0; k < 2 * kLimbs; ++k) t[k] = hi[k] = V::zero();
  KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i) KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) {
    t[i + j] = V::madd52lo(t[i + j], a.l[i], b.l[j]);
    if (V::kLatencyBound)
      hi[i + j + 1] = V::madd52hi(hi[i + j + 1], a.l[i], b.l[j]);
    else
      t[i + j + 1] = V::madd52hi(t[i + j + 1], a.l[i], b.l[j]);
  }
  if (V::kLatencyBound)
    KS_IFMA_UNROLL for (int k = 1; k < 2 * kLimbs; ++k) t[k] = V::add(t[k], hi[k]);
}
// a^2 the same way: the ten cross products once, doubled, then the five
// squares (the same bounds).
template <class V>
KS_IFMA_INLINE void sqr_wide(typename V::Reg t[2 * kLimbs], const LaneElem<V>& a) {
  typename V::Reg hi[2 * kLimbs];
  KS_IFMA_UNROLL for (int k = 0; k < 2 * kLimbs; ++k) t[k] = hi[k] = V::zero();
  KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i)
      KS_IFMA_UNROLL for (int j = i + 1; j < kLimbs; ++j) {
    t[i + j] = V::madd52lo(t[i + j], a.l[i], a.l[j]);
    if (V::kLatencyBound)
      hi[i + j + 1] = V::madd52hi(hi[i + j + 1], a.l[i], a.l[j]);
    else
      t[i + j + 1] = V::madd52hi(t[i + j + 1], a.l[i], a.l[j]);
  }
  // (no cross product reaches t[9])
  KS_IFMA_UNROLL for (int k = 1; k < 2 * kLimbs - 1; ++k) {
    if (V::kLatencyBound) t[k] = V::add(t[k], hi[k]);
    t[k] = V::add(t[k], t[k]);
  }
  KS_IFMA_UNROLL for (int i = 0; i < kLimbs; ++i) {
    t[2 * i] = V::madd52lo(t[2 * i], a.l[i], a.l[i]);
    t[2 * i + 1] = V::madd52hi(t[2 * i + 1], a.l[i], a.l[i]);
  }
}

// The ring operations of a lane field F of width V, written once. F
// supplies fold_normalize (carries, folding back what lies above its
// bound), kSubBias (a multiple of p spread so that a - b + kSubBias is
// non-negative limb by limb for any two elements) and reduce_product (a
// 10-limb product to an element): the fields differ only there.
template <class F, class V>
struct LaneArithmetic {
  using Elem = LaneElem<V>;

  KS_IFMA_INLINE static Elem add(const Elem& a, const Elem& b) {
    Elem s;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) s.l[j] = V::add(a.l[j], b.l[j]);
    F::fold_normalize(s.l);
    return s;
  }
  KS_IFMA_INLINE static Elem sub(const Elem& a, const Elem& b) {
    return sub_biased(a, b, F::kSubBias);
  }
  // a - b + bias, bias a multiple of p spread so that no limb of the
  // difference goes negative (kSubBias for two elements; a larger one where
  // b may be less reduced).
  KS_IFMA_INLINE static Elem sub_biased(const Elem& a, const Elem& b, const detail::L5& bias) {
    Elem d;
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) d.l[j] =
        V::sub(V::add(a.l[j], V::set1(bias.l[j])), b.l[j]);
    F::fold_normalize(d.l);
    return d;
  }
  KS_IFMA_INLINE static Elem neg(const Elem& a) { return sub(F::zero(), a); }
  KS_IFMA_INLINE static Elem dbl(const Elem& a) { return add(a, a); }

  KS_IFMA_INLINE static Elem mul(const Elem& a, const Elem& b) {
    typename V::Reg t[2 * kLimbs];
    mul_wide<V>(t, a, b);
    return F::reduce_product(t);
  }
  KS_IFMA_INLINE static Elem sqr(const Elem& a) {
    typename V::Reg t[2 * kLimbs];
    sqr_wide<V>(t, a);
    return F::reduce_product(t);
  }
  __attribute__((target(KS_IFMA_TARGET))) static Elem sqr_n(Elem a, int n) {
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
};

struct Fp8 : LaneArithmetic<Fp8, Zmm> {
  using Elem = Fe8;
  using Ops = LaneOps<Zmm>;

  KS_IFMA_INLINE static Fe8 broadcast(const detail::L5& c) { return Ops::broadcast(c); }
  KS_IFMA_INLINE static Fe8 zero() { return Ops::zero(); }
  KS_IFMA_INLINE static Fe8 one() { return broadcast(detail::kOneMont); }

  // Carry propagation to 52-bit limbs (LaneOps): arithmetic shifts, so that
  // a negative value ends with every low limb normalized and the sign in
  // the top limb.
  KS_IFMA_INLINE static void normalize_signed(__m512i l[kLimbs]) { Ops::normalize_signed(l); }

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
    return Ops::select(mask, a, b);
  }

  KS_IFMA_INLINE static Fe8 to_mont(const Fe8& plain) { return mul(plain, broadcast(detail::kR2)); }
  // Canonical plain value of a Montgomery element.
  KS_IFMA_INLINE static Fe8 from_mont(const Fe8& a) {
    Fe8 one_plain = zero();
    one_plain.l[0] = _mm512_set1_epi64(1);
    return canonical(mul(a, one_plain));
  }

  // Lane i of in[i] (four 64-bit limbs, value below 2^256) to radix 2^52,
  // and back (values below 2^256): LaneOps.
  KS_IFMA_INLINE static Fe8 load(const uint64_t (*in)[4]) { return Ops::load(in); }
  KS_IFMA_INLINE static void store(uint64_t (*out)[4], const Fe8& a) { Ops::store(out, a); }

  // a^(p-2) per lane (0 -> 0), the 255S + 14M chain of field/fp.h.
  static Fe8 inv(const Fe8& a);
};

}  // namespace ifma
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_IFMA_SIMD_H_
