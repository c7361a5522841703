// GF(p), p = 2^255 - 19, in independent lanes of AVX-512 IFMA: eight in
// zmm registers (Fe25519x8, the multi-buffer field of curve25519/ed25519_mb.cc)
// or four in ymm registers (Fe25519x4, the parallel formulas of single
// operations in curve25519/ed25519_x4.cc), one implementation over the vector
// type (field/fp_ifma_simd.h Zmm, Ymm). AVX-512 INTRINSICS: include this
// header only from .cc files that open the KS_IFMA target region
// (field/ifma_target_begin.h) before it and that no .cu file includes;
// call nothing here unless curve::ed25519::mb::available() (or
// x4::available()).
//
// Layout: the element type of the SM2 lanes, LaneElem<V> (Fe8, Fe4;
// field/fp_ifma_simd.h): five limb vectors, lane i of limb j holding bits
// [52j, 52j + 52) of lane i's value, radix 2^52. The limb-level helpers
// that know nothing of the prime are shared with Fp8 (LaneOps): the radix
// conversions, the broadcasts and blends, the carry chain, and the 10-limb
// products (mul_wide/sqr_wide).
//
// Values are plain (no Montgomery form: the prime's own shape reduces as
// cheaply) and weakly reduced, as in the scalar field/fe25519.h: any value
// congruent to the element will do. The invariant of every element, taken
// by every operation and given back by every one:
//   (I)  limbs 0-3 below 2^52, limb 4 below 2^47 + 2^12
//        (so the value is below 2^255 + 2^220)
// vpmadd52luq/huq, which read only the low 52 bits of their factors, then
// see every limb whole, and the top limbs' product (below 2^94.0001, its
// high half below 2^42.0001) times 608 fits one 52-bit half
// (reduce_product).
//
// Reduction, at 2^255 with 19 and at 2^260 with 608: bits 255 and up are
// bits 47.. of limb 4; they are shifted out and added to limb 0 times 19
// (2^255 = 19 mod p) BEFORE the carry chain (fold_normalize), which then
// ends with limb 4 below 2^47 plus the last carry: one pass normalizes
// every limb. Folding the carry out of limb 4 after the chain instead would
// put limb 0 back above 2^52 and need a second pass, and vpmadd52 has no
// headroom above 52 bits for a lazily carried limb. A product's upper half
// (limbs 5-9, weights 2^260 and up) goes in with 2^260 = 32 * 19 = 608
// (mod p): limb 9 into limb 4 before the fold at 2^255, limbs 5-8 into
// limbs 0-4 after it, where they are small enough for limb 4 to stay
// within (I) (the arrangement of Intel's crypto_mb x25519).
//
// The Montgomery ladder (curve25519/ed25519_mb.cc) also uses a looser form and
// the products before their reduction:
//   (L)  every limb below 2^56: what mul_loose and sqr_loose give (the
//        reduction without its fold at 2^255 and its carry chain), for
//        values that only go on into add or sub_loose, which normalize
//        anyway (and into select);
//   products_sum_difference reduces a b + c d and a b - c d from the two
//        10-limb products, one reduction each instead of one per product
//        and one normalization per sum.
//
// Fe25519Lanes<V> satisfies the field policy (field/policy.h) with masks as
// lane bitmaps (bit i set = true in lane i, as Fp8), plus mul_small (the
// ladder's a24), canonical, is_negative, from_canonical and the lane
// conversions. Every function is branch-free and index-free in the values:
// per-lane choices are AVX-512 mask registers.
#ifndef KS_FIELD_FE25519_IFMA_SIMD_H_
#define KS_FIELD_FE25519_IFMA_SIMD_H_

#include <stdint.h>

#include "field/fe25519_chain.h"
#include "field/fp_ifma_simd.h"
#include "field/policy.h"
#include "field/u256.h"

namespace ks {
namespace field {
namespace ifma {

namespace detail {

// 2^255 - 19, four 64-bit limbs
constexpr W4 k25519P64 = {
    {0xFFFFFFFFFFFFFFEDull, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, 0x7FFFFFFFFFFFFFFFull}};
constexpr L5 k25519P4 = times2(times2(to_radix52(k25519P64)));  // 4p = 2^257 - 76
// 4p with every limb but the top one at least 2^52 and the top one at least
// 2^48 (borrowing one unit from each next limb): a - b + 4p limb by limb is
// then non-negative, and below 2^54, for any elements a, b (invariant I).
constexpr L5 k25519P4Spread = {{k25519P4.l[0] + (uint64_t(1) << 52), k25519P4.l[1] + kMask52,
                                k25519P4.l[2] + kMask52, k25519P4.l[3] + kMask52,
                                k25519P4.l[4] - 1}};
static_assert(k25519P4.l[1] >= 1 && k25519P4.l[4] - 1 >= (uint64_t(1) << 48), "4p spread");

// 2^10 p = 2^265 - 19 2^10 (limb 4 = 2^57 - 1) with 32 units of every limb
// from 1 on lent to the one below: every limb at least 2^57 - 33, so a - b +
// it is non-negative for b loose (L), and below 2^59.
constexpr L5 times_pow2(const L5& a, int e) { return e == 0 ? a : times_pow2(times2(a), e - 1); }
constexpr L5 k25519P1024 = times_pow2(to_radix52(k25519P64), 10);
constexpr L5 k25519P1024Spread = {{k25519P1024.l[0] + (uint64_t(32) << 52),
                                   k25519P1024.l[1] + (uint64_t(32) << 52) - 32,
                                   k25519P1024.l[2] + (uint64_t(32) << 52) - 32,
                                   k25519P1024.l[3] + (uint64_t(32) << 52) - 32,
                                   k25519P1024.l[4] - 32}};
static_assert(k25519P1024.l[4] == (uint64_t(1) << 57) - 1 &&
                  k25519P1024Spread.l[4] >= (uint64_t(1) << 56) &&
                  k25519P1024Spread.l[0] >= (uint64_t(1) << 56),
              "2^10 p spread");

// A multiple of p in the ten limbs of a product, so that a b - c d + it is
// non-negative limb by limb for elements a, b, c, d (invariant I: the
// product c d has limb 0 below 2^52, limbs 1-7 below 9 2^52, limb 8 below
// 2^52 + 2^48.0001, limb 9 below 2^42.0001): 2^256 p = 2^511 - 19 2^256 is
// 2^43 in limb 9 (511 = 9 * 52 + 43) and -19 2^48 in limb 4 (256 = 4 * 52 +
// 48); 16 units of limbs 1-8 lent to limbs 0-7 and 2 of limb 9 to limb 8
// make limbs 0-7 at least 2^56 - 19 2^48 - 16 (> 2^55.9), limb 8 2^53 - 16
// and limb 9 2^43 - 2. (Limb 8 kept small: products_sum_difference.)
struct L10 {
  uint64_t l[2 * kLimbs];
};
constexpr L10 wide_sub_bias() {
  L10 w{};
  for (int k = 0; k < 2 * kLimbs; ++k) {
    uint64_t v = k == 2 * kLimbs - 1 ? uint64_t(1) << 43 : 0;
    if (k == 4) v -= 19 * (uint64_t(1) << 48);  // wraps; the units below bring it back
    const uint64_t units = k < 8 ? 16 : 2;      // lent to limb k by limb k + 1
    if (k + 1 < 2 * kLimbs) v += units << 52;
    if (k > 0) v -= k <= 8 ? 16 : 2;  // lent by limb k to limb k - 1
    w.l[k] = v;
  }
  return w;
}
constexpr L10 k25519WideSubBias = wide_sub_bias();
static_assert(k25519WideSubBias.l[4] > 9 * (uint64_t(1) << 52) &&
                  k25519WideSubBias.l[8] > (uint64_t(1) << 52) + (uint64_t(1) << 49) &&
                  k25519WideSubBias.l[8] < 2 * (uint64_t(1) << 52) &&
                  k25519WideSubBias.l[9] > (uint64_t(1) << 42) + (uint64_t(1) << 31),
              "wide bias above the subtrahend");

}  // namespace detail

template <class V>
struct Fe25519Lanes : LaneArithmetic<Fe25519Lanes<V>, V> {
  using Elem = LaneElem<V>;
  using Reg = typename V::Reg;
  using Ops = LaneOps<V>;
  using Base = LaneArithmetic<Fe25519Lanes<V>, V>;
  using Base::sub;

  // Bit 255 sits at bit 47 of limb 4 (255 = 4 * 52 + 47).
  static constexpr int kTopBits = 255 - 4 * 52;
  static constexpr uint64_t kFold255 = 19;   // 2^255 = 19 (mod p)
  static constexpr uint64_t kFold260 = 608;  // 2^260 = 2^5 * 19 (mod p)

  KS_IFMA_INLINE static Elem zero() { return Ops::zero(); }
  KS_IFMA_INLINE static Elem one() { return Ops::broadcast(detail::L5{{1, 0, 0, 0, 0}}); }
  // A constant (d, 2d, sqrt(-1)) given as its canonical value, in every lane.
  KS_IFMA_INLINE static Elem from_canonical(const U256& a) {
    return Ops::broadcast(detail::to_radix52(a));
  }

  // Bits 255 and up (bits 47.. of limb 4) into limb 0 as 19 each. Limb 4
  // below 2^62 (the fold below 2^15) in; limb 4 below 2^47 out.
  KS_IFMA_INLINE static void fold_top(Reg l[kLimbs]) {
    const Reg top = V::template srli<kTopBits>(l[4]);
    l[4] = V::and_(l[4], V::set1((uint64_t(1) << kTopBits) - 1));
    l[0] = V::madd52lo(l[0], top, V::set1(kFold255));
  }
  // fold_top, then the carry chain. Non-negative limbs below 2^62 in; out:
  // limbs 0-3 below 2^52, limb 4 below 2^47 plus the last carry (below
  // 2^11): (I).
  KS_IFMA_INLINE static void fold_normalize(Reg l[kLimbs]) {
    fold_top(l);
    Ops::normalize_signed(l);  // non-negative here: a plain carry chain
  }

  // Limbs 5-8 of a 10-limb product into r (r[i] holds limb i's sum so far):
  // limb 5 + i weighs 608 2^(52i); its low 52 bits times 608 go into limbs i
  // (low half) and i + 1 (high half, below 608), its bits from 52 on (below
  // 2^5 for the products and their sums here) times 608 into limb i + 1,
  // unless kCarried says that limbs 5-8 are below 2^52.
  template <bool kCarried = false>
  KS_IFMA_INLINE static void fold_upper(Reg r[kLimbs], const Reg t[2 * kLimbs]) {
    const Reg c608 = V::set1(kFold260);
    KS_IFMA_UNROLL for (int i = 0; i + 1 < kLimbs; ++i) {
      const Reg high = t[kLimbs + i];  // vpmadd52 reads its low 52 bits
      r[i] = V::madd52lo(r[i], high, c608);
      r[i + 1] = V::madd52hi(r[i + 1], high, c608);
      if (!kCarried) r[i + 1] = V::madd52lo(r[i + 1], V::template srli<52>(high), c608);
    }
  }

  // The 10-limb product t of two elements (field/fp_ifma_simd.h mul_wide:
  // t[k] < 9 * 2^52, t[8] < 3 * 2^52, t[9] < 2^42.0001) reduced. Limb 9
  // weighs 608 2^208: 608 t[9] < 2^52 goes into limb 4 whole, then bits
  // 255.. of limb 4 (below 10 * 2^52) into limb 0; limbs 5-8 by fold_upper,
  // limb 4 so getting below 2^47 + 607 + 2 * 608. The chain then leaves
  // limb 4 below 2^47 + 2^11 + 9: (I).
  // Where V::kLatencyBound, the additions into limbs 0-3 do not wait for
  // each other (limb 0's first, then the fold at 2^255; limbs 1-3 in two
  // halves): the carry chain starts a few cycles sooner, for three more
  // additions.
  KS_IFMA_INLINE static Elem reduce_product(const Reg t[2 * kLimbs]) {
    const Reg c608 = V::set1(kFold260);
    Elem r;
    r.l[4] = V::madd52lo(t[4], t[9], c608);
    if (V::kLatencyBound) {
      const Reg top = V::template srli<kTopBits>(r.l[4]);
      r.l[4] = V::and_(r.l[4], V::set1((uint64_t(1) << kTopBits) - 1));
      r.l[0] = V::madd52lo(V::madd52lo(t[0], t[kLimbs], c608), top, V::set1(kFold255));
      KS_IFMA_UNROLL for (int i = 1; i < kLimbs; ++i) {
        r.l[i] = V::add(i + 1 < kLimbs ? V::madd52lo(t[i], t[kLimbs + i], c608) : r.l[i],
                        from_below(t[kLimbs + i - 1]));
      }
    } else {
      KS_IFMA_UNROLL for (int i = 0; i + 1 < kLimbs; ++i) r.l[i] = t[i];
      fold_top(r.l);
      fold_upper(r.l, t);
    }
    Ops::normalize_signed(r.l);  // non-negative: a plain carry chain
    return r;
  }

  // What limb 4 + i (1 <= i <= 4, below 9 2^52) of a product brings to
  // limb i, its low 52 bits times 608 going to limb i - 1: the high half of
  // that product, and its bits 52.. (below 2^4) times 608; two dependent
  // vpmadd52.
  KS_IFMA_INLINE static Reg from_below(const Reg limb) {
    const Reg c608 = V::set1(kFold260);
    return V::madd52lo(V::madd52hi(V::zero(), limb, c608), V::template srli<52>(limb), c608);
  }

  // reduce_product without the fold at 2^255 and the carry chain: limbs
  // below 9 2^52 + 2^52 + 2^13, limb 4 below 10 2^52 + 2^13: (L).
  // Where V::kLatencyBound, each limb's three folded terms go in side by
  // side (at most two dependent vpmadd52 and an addition). Elsewhere the
  // carries of limbs 5-8 go first, each into the next (t[9] then stays
  // below 2^42.0001 + 3): fold_upper then takes two vpmadd52 per limb, not
  // three, for a serial chain that what follows a loose product (an
  // addition) can wait for.
  KS_IFMA_INLINE static Elem reduce_product_loose(const Reg product[2 * kLimbs]) {
    if (V::kLatencyBound) {
      const Reg c608 = V::set1(kFold260);
      Elem r;
      r.l[0] = V::madd52lo(product[0], product[kLimbs], c608);
      KS_IFMA_UNROLL for (int i = 1; i < kLimbs; ++i) {
        const Reg folded = V::madd52lo(product[i], product[kLimbs + i], c608);  // i = 4: limb 9
        r.l[i] = V::add(folded, from_below(product[kLimbs + i - 1]));
      }
      return r;
    }
    Reg t[2 * kLimbs];
    KS_IFMA_UNROLL for (int k = 0; k < 2 * kLimbs; ++k) t[k] = product[k];
    KS_IFMA_UNROLL for (int k = kLimbs; k + 1 < 2 * kLimbs; ++k) {
      t[k + 1] = V::add(t[k + 1], V::template srli<52>(t[k]));
      t[k] = V::and_(t[k], V::set1(kMask52));
    }
    Elem r;
    KS_IFMA_UNROLL for (int i = 0; i + 1 < kLimbs; ++i) r.l[i] = t[i];
    r.l[4] = V::madd52lo(t[4], t[9], V::set1(kFold260));
    fold_upper<true>(r.l, t);
    return r;
  }
  KS_IFMA_INLINE static Elem mul_loose(const Elem& a, const Elem& b) {
    Reg t[2 * kLimbs];
    ifma::mul_wide<V>(t, a, b);
    return reduce_product_loose(t);
  }
  KS_IFMA_INLINE static Elem sqr_loose(const Elem& a) {
    Reg t[2 * kLimbs];
    ifma::sqr_wide<V>(t, a);
    return reduce_product_loose(t);
  }
  // (L) back to (I) (also any limbs below 2^62).
  KS_IFMA_INLINE static Elem from_loose(Elem a) {
    fold_normalize(a.l);
    return a;
  }

  // s = a b + c d and e = a b - c d for elements a, b, c, d, from the two
  // 10-limb products: limb by limb the sum (limbs 0-7 below 18 2^52, limb 8
  // below 2^53 + 2^49.0001, limb 9 below 2^43.0001) and the difference plus
  // k25519WideSubBias (limbs 0-7 below 9 2^52 + 2^56, limb 8 below 2^53 +
  // 2^52 + 2^48.0001, limb 9 below 2^43.6), each reduced once (reduce_sum).
  KS_IFMA_INLINE static void products_sum_difference(const Elem& a, const Elem& b, const Elem& c,
                                                     const Elem& d, Elem* s, Elem* e) {
    Reg ab[2 * kLimbs], cd[2 * kLimbs], sum[2 * kLimbs], diff[2 * kLimbs];
    ifma::mul_wide<V>(ab, a, b);
    ifma::mul_wide<V>(cd, c, d);
    KS_IFMA_UNROLL for (int k = 0; k < 2 * kLimbs; ++k) {
      sum[k] = V::add(ab[k], cd[k]);
      diff[k] = V::sub(V::add(ab[k], V::set1(detail::k25519WideSubBias.l[k])), cd[k]);
    }
    *s = reduce_sum(sum);
    *e = reduce_sum(diff);
  }
  // reduce_product for those: limb 9 goes into limb 4 as (19 t[9]) 2^5
  // (19 t[9] < 2^48 is exact in vpmadd52luq, where 608 t[9] would not be);
  // limb 4 (below 2^56.7 + 2^53) then folds at 2^255, limbs 5-8 through
  // fold_upper (bits 52.. below 25, of limb 8 below 4: limb 4 gets below 4
  // * 608 from it), and the chain gives (I).
  KS_IFMA_INLINE static Elem reduce_sum(const Reg t[2 * kLimbs]) {
    Elem r;
    KS_IFMA_UNROLL for (int i = 0; i + 1 < kLimbs; ++i) r.l[i] = t[i];
    r.l[4] = V::add(t[4], V::template slli<5>(V::madd52lo(V::zero(), t[9], V::set1(kFold255))));
    fold_top(r.l);
    fold_upper(r.l, t);
    Ops::normalize_signed(r.l);  // non-negative: a plain carry chain
    return r;
  }

  // add, sub, neg, dbl, mul, sqr, sqr_n: LaneArithmetic
  // (field/fp_ifma_simd.h) with fold_normalize and reduce_product above;
  // a + b has limbs below 2^53, a - b + 4p (kSubBias) below 2^54. add also
  // takes loose elements (L): limbs below 2^57 before the fold.
  static constexpr detail::L5 kSubBias = detail::k25519P4Spread;
  // a - b for loose elements (L): + 2^10 p, limbs below 2^59 before the fold.
  KS_IFMA_INLINE static Elem sub_loose(const Elem& a, const Elem& b) {
    return Base::sub_biased(a, b, detail::k25519P1024Spread);
  }

  // a * k for k < 2^32 (121666, the ladder's (A + 2) / 4, RFC 7748 5).
  KS_IFMA_INLINE static Elem mul_small(const Elem& a, uint32_t k) {
    return mul_small_add(a, k, zero());
  }
  // b + a * k (the ladder's BB + a24 E in one pass): limb j's product
  // splits into limbs j (low 52 bits) and j + 1 (below 2^32), on top of b's
  // limbs; limb 4's high half (below 2^28) weighs 2^260 = 608 and goes into
  // limb 0. Limbs below 2^53 + 2^32 before the fold.
  KS_IFMA_INLINE static Elem mul_small_add(const Elem& a, uint32_t k, const Elem& b) {
    const Reg kv = V::set1(k);
    Reg r[kLimbs + 1];
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) r[j] = b.l[j];
    r[kLimbs] = V::zero();
    KS_IFMA_UNROLL for (int j = 0; j < kLimbs; ++j) {
      r[j] = V::madd52lo(r[j], a.l[j], kv);
      r[j + 1] = V::madd52hi(r[j + 1], a.l[j], kv);
    }
    r[0] = V::madd52lo(r[0], r[kLimbs], V::set1(kFold260));
    fold_normalize(r);
    return {{r[0], r[1], r[2], r[3], r[4]}};
  }

  // The representative in [0, p), as Fe25519::canonical: fold_normalize
  // leaves v = (a mod 2^255) + 19 (a >> 255) < 2^255 + 19 < 2p; v - p =
  // v + 19 - 2^255 is taken where v + 19 reaches 2^255 (bit 47 of limb 4).
  KS_IFMA_INLINE static Elem canonical(const Elem& a) {
    Elem v = a;
    fold_normalize(v.l);
    Elem w = v;
    w.l[0] = V::add(w.l[0], V::set1(kFold255));
    Ops::normalize_signed(w.l);  // v + 19 < 2^256: limb 4 below 2^48
    const Reg bit255 = V::set1(uint64_t(1) << kTopBits);
    const __mmask8 ge_p = V::test(w.l[4], bit255);
    w.l[4] = V::andnot(bit255, w.l[4]);
    return Ops::select(ge_p, w, v);
  }

  // Lane bitmaps (see the header comment).
  KS_IFMA_INLINE static uint64_t is_zero(const Elem& a) {
    const Elem c = canonical(a);
    Reg any = c.l[0];
    KS_IFMA_UNROLL for (int j = 1; j < kLimbs; ++j) any = V::or_(any, c.l[j]);
    return uint64_t(V::cmpeq(any, V::zero()));
  }
  KS_IFMA_INLINE static uint64_t eq(const Elem& a, const Elem& b) { return is_zero(sub(a, b)); }
  // The low bit of the canonical value ("negative" in RFC 8032 5.1.2).
  KS_IFMA_INLINE static uint64_t is_negative(const Elem& a) {
    return uint64_t(V::test(canonical(a).l[0], V::set1(1)));
  }
  KS_IFMA_INLINE static Elem select(uint64_t mask, const Elem& a, const Elem& b) {
    return Ops::select(mask, a, b);
  }

  // Lane i of in[i], any 256-bit value (folded at 2^255 into (I)), and
  // back: store gives the exact value an element holds.
  KS_IFMA_INLINE static Elem load(const uint64_t (*in)[4]) {
    Elem r = Ops::load(in);
    fold_normalize(r.l);
    return r;
  }
  KS_IFMA_INLINE static void store(uint64_t (*out)[4], const Elem& a) { Ops::store(out, a); }

  // a^-1 per lane (0 -> 0): fe25519_invert (field/fe25519_chain.h), out of
  // line (field/fe25519_ifma.cc, field/fe25519_ifma_x4.cc).
  static Elem inv(const Elem& a);
};

using Fe25519x8 = Fe25519Lanes<Zmm>;
using Fe25519x4 = Fe25519Lanes<Ymm>;
template <>
Fe8 Fe25519Lanes<Zmm>::inv(const Fe8& a);
template <>
Fe4 Fe25519Lanes<Ymm>::inv(const Fe4& a);
KS_ASSERT_FIELD_POLICY(Fe25519x8);
KS_ASSERT_FIELD_POLICY(Fe25519x4);

}  // namespace ifma
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_IFMA_SIMD_H_
