// GF(p) for the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 on the GPU's
// double-precision units: [DPFECC20]'s method (field/dpf_split.cuh) carried
// to a Solinas prime, as the seed suggests, with the reduction in
// Montgomery form so that it too runs mostly on the FP64 pipe.
//
// Elements are five 64-bit limbs of radix B = 2^52 holding a R mod p for
// R = B^5 = 2^260 (Montgomery form). Invariant of an element (every
// operation keeps it):
//   (I)  l_0..l_3 < 2^52, l_4 < 2^49: the value is below 2^257
// so that every partial product is below 2^104, the bound of the split at
// radix 2^52 (anchor 2^104).
//
// Product: the 25 split products summed into ten columns (below 2^56 each,
// as for 2^255 - 19). Montgomery reduction, one limb a step: p = -1 mod B,
// so -p^-1 mod B = 1 and the step's multiplier m is the column's own low 52
// bits (no multiplication). In signed radix-B digits
//   p = -1 + d1 B + d4 B^4,  d1 = 2^12 - 2^44,  d4 = 2^48 - 2^16,
// so adding m p B^k clears column k (its carry moves up) and adds the two
// split products m |d1| (subtracted at columns k+1, k+2) and m d4 (added at
// k+4, k+5): one conversion and two split products a step, and no 64-bit
// shifts of m. The columns are two's-complement 64-bit integers (below
// 2^57 in magnitude); the exponent fields of every half added or
// subtracted, the reduction's included, are cancelled by each column's
// start value, and a column is read (for m and its carry) only after every
// term of it is in. After five
// steps columns 5..9 hold (T + M p) / R < T / R + p < 2^254 + p < 2^257 for
// T = a b < 2^514, and one signed carry round gives (I).
//
// Additions and subtractions fold the bits above 2^256 back with 2^256 = 2^224
// + 2^96 - 2^64 + 1 (mod p) and carry once. Fe25519Dpf's shape: the field
// policy (field/policy.h) with 64-bit masks, plus from_words / to_words in
// plain (non-Montgomery) values. Branch-free and index-free in the values.
// Compiles for the host with the FMA emulated (tests/cpp/field/test_fp_dpf.cc).
#ifndef KS_FIELD_FP_DPF_CUH_
#define KS_FIELD_FP_DPF_CUH_

#include <stdint.h>

#include "core/hd.h"
#include "field/dpf_split.cuh"
#include "field/fp_chain.h"

namespace ks {
namespace field {

struct FpDpfElem {
  uint64_t l[5];
};

namespace fp_dpf_detail {

using dpf_detail::diagonal_pairs;
using dpf_detail::pairs;
using Split52 = dpf_detail::AnchoredSplit<52>;

constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;
constexpr double kD1 = 0x1p44 - 0x1p12;  // |d1|: subtracted
constexpr double kD4 = 0x1p48 - 0x1p16;  // d4: added

// The reduction's halves at column k, net of the ones it subtracts: step s
// subtracts m |d1|'s low half at s+1 and high half at s+2 and adds m d4's
// at s+4 and s+5 (s = 0..4).
KS_HD constexpr int64_t in(int k, int first) { return k >= first && k <= first + 4 ? 1 : 0; }
KS_HD constexpr int64_t reduction_low_halves(int k) { return in(k, 4) - in(k, 1); }
KS_HD constexpr int64_t reduction_high_halves(int k) { return in(k, 5) - in(k, 2); }

// Signed carries through the five limbs; the top limb keeps the rest.
KS_HD FpDpfElem carry_round(uint64_t c0, uint64_t c1, uint64_t c2, uint64_t c3, uint64_t c4) {
  c1 += uint64_t(int64_t(c0) >> 52);
  c2 += uint64_t(int64_t(c1) >> 52);
  c3 += uint64_t(int64_t(c2) >> 52);
  c4 += uint64_t(int64_t(c3) >> 52);
  return {{c0 & kMask52, c1 & kMask52, c2 & kMask52, c3 & kMask52, c4}};
}

// Limbs below 2^60 of a value below 2^262 (a sum, or a difference plus
// 4p) back within (I) with one carry round: t = the bits of limb 4 from
// 2^256 up (below 2^14) is folded back first as t (2^224 + 2^96 - 2^64 +
// 1), i.e. t 2^16 at limb 4, t (2^44 - 2^12) at limb 1 and t at limb 0.
// The carries out of limb 3 that t did not see add a few units of 2^208:
// limb 4 ends below 2^48 + 2^30 < 2^49.
KS_HD FpDpfElem fold_and_carry(uint64_t c0, uint64_t c1, uint64_t c2, uint64_t c3, uint64_t c4) {
  const uint64_t t = c4 >> 48;
  return carry_round(c0 + t, c1 + t * ((uint64_t(1) << 44) - (uint64_t(1) << 12)), c2, c3,
                     (c4 & ((uint64_t(1) << 48) - 1)) + (t << 16));
}

// The five Montgomery steps over ten columns, then the carry round.
KS_HD FpDpfElem reduce(uint64_t c[10]) {
KS_UNROLL
  for (int k = 0; k < 5; ++k) {
    const uint64_t m = c[k] & kMask52;
    c[k + 1] += uint64_t(int64_t(c[k]) >> 52);
    const double x = dpf_detail::to_double(m);
    Split52::subtract(c[k + 1], c[k + 2], x, kD1);
    Split52::add(c[k + 4], c[k + 5], x, kD4);
  }
  return carry_round(c[5], c[6], c[7], c[8], c[9]);
}

// Column k's start: the product's low and high halves there (low_pairs,
// high_pairs) and the reduction's.
KS_HD constexpr uint64_t column_start(uint64_t low_pairs, uint64_t high_pairs, int k) {
  return Split52::bias(int64_t(low_pairs) + reduction_low_halves(k),
                       int64_t(high_pairs) + reduction_high_halves(k));
}

}  // namespace fp_dpf_detail

struct FpDpf {
  using Elem = FpDpfElem;
  using Mask = uint64_t;

  KS_HD static Elem zero() { return {{0, 0, 0, 0, 0}}; }
  // R mod p = 2^260 mod p in limbs.
  KS_HD static Elem one() { return {{0x10, 0xffffffff0000, 0, 0, 0x100000}}; }

  KS_HD static Elem add(const Elem& a, const Elem& b) {
    return fp_dpf_detail::fold_and_carry(a.l[0] + b.l[0], a.l[1] + b.l[1], a.l[2] + b.l[2],
                                         a.l[3] + b.l[3], a.l[4] + b.l[4]);
  }
  // a - b + 4p, limb by limb non-negative: 4p written with limbs 0..3 in
  // [2^52, 2^53) and limb 4 at 2^50 - 2^18 - 2 (above any limb of b).
  KS_HD static Elem sub(const Elem& a, const Elem& b) {
    return fp_dpf_detail::fold_and_carry(
        a.l[0] + 0x1ffffffffffffc - b.l[0], a.l[1] + 0x1fc00000003ffe - b.l[1],
        a.l[2] + 0x1ffffffffffffe - b.l[2], a.l[3] + 0x1ffffffffffffe - b.l[3],
        a.l[4] + 0x3fffffffbfffe - b.l[4]);
  }
  KS_HD static Elem neg(const Elem& a) { return sub(zero(), a); }
  KS_HD static Elem dbl(const Elem& a) { return add(a, a); }
  // a / 2: a + p where a is odd (p in limbs, masked), carried (below
  // 2^258), then shifted down one bit across the limbs (below 2^257).
  KS_HD static Elem half(const Elem& a) {
    const uint64_t odd = 0 - (a.l[0] & 1), all = fp_dpf_detail::kMask52 & odd;
    const Elem v = fp_dpf_detail::carry_round(a.l[0] + all, a.l[1] + (0xff00000000fff & odd),
                                              a.l[2] + all, a.l[3] + all,
                                              a.l[4] + (0xfffffffeffff & odd));
    Elem r;
KS_UNROLL
    for (int i = 0; i < 4; ++i) r.l[i] = (v.l[i] >> 1) | ((v.l[i + 1] & 1) << 51);
    r.l[4] = v.l[4] >> 1;
    return r;
  }

  // a b R^-1: the 25 split products (Split52::add_product), then reduce().
  KS_HD static Elem mul(const Elem& a, const Elem& b) {
    using namespace fp_dpf_detail;
    uint64_t c[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) c[k] = column_start(pairs(k), pairs(k - 1), k);
    Split52::add_product(c, a.l, b.l);
    return reduce(c);
  }
  // a^2 R^-1: 15 split products (Split52::add_square), then reduce().
  KS_HD static Elem sqr(const Elem& a) {
    using namespace fp_dpf_detail;
    uint64_t d[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) d[k] = column_start(diagonal_pairs(k), diagonal_pairs(k - 1), k);
    Split52::add_square(d, a.l);
    return reduce(d);
  }
  KS_HD static Elem sqr_n(Elem a, int n) {
KS_NO_UNROLL
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
  // a k through a product with k's Montgomery form (any k below p; only
  // the field tests use it).
  KS_HD static Elem mul_small(const Elem& a, uint32_t k) {
    const uint64_t w[4] = {k, 0, 0, 0};
    return mul(a, from_words(w));
  }
  KS_HD static Elem inv(const Elem& a) { return sm2_p_inverse<FpDpf>(a); }

  KS_HD static Elem select(Mask m, const Elem& a, const Elem& b) {
    Elem r;
KS_UNROLL
    for (int i = 0; i < 5; ++i) r.l[i] = (a.l[i] & m) | (b.l[i] & ~m);
    return r;
  }
  // Zero mod p without a product: under (I) the limbs of a value are
  // unique and the value is below 2^257 < 3p, so it is 0, p or 2p.
  KS_HD static Mask is_zero(const Elem& a) {
    constexpr uint64_t kP[5] = {0xfffffffffffff, 0xff00000000fff, 0xfffffffffffff,
                                0xfffffffffffff, 0xfffffffeffff};
    constexpr uint64_t k2P[5] = {0xffffffffffffe, 0xfe00000001fff, 0xfffffffffffff,
                                 0xfffffffffffff, 0x1fffffffdffff};
    uint64_t zero = 0, p = 0, two_p = 0;
KS_UNROLL
    for (int i = 0; i < 5; ++i) {
      zero |= a.l[i];
      p |= a.l[i] ^ kP[i];
      two_p |= a.l[i] ^ k2P[i];
    }
    return 0 - uint64_t((zero == 0) | (p == 0) | (two_p == 0));
  }
  KS_HD static Mask eq(const Elem& a, const Elem& b) { return is_zero(sub(a, b)); }

  // A plain value below 2^256 (four little-endian words) into the form:
  // its limbs times R^2 mod p, reduced.
  KS_HD static Elem from_words(const uint64_t w[4]) {
    using fp_dpf_detail::kMask52;
    const Elem plain = {{w[0] & kMask52, ((w[0] >> 52) | (w[1] << 12)) & kMask52,
                         ((w[1] >> 40) | (w[2] << 24)) & kMask52,
                         ((w[2] >> 28) | (w[3] << 36)) & kMask52, w[3] >> 16}};
    const Elem r2 = {{0x20000000300, 0xffffffff00000, 0x100000002, 0x200000001000, 0x4000000}};
    return mul(plain, r2);
  }
  // The canonical plain value: a R^-1 (a product with plain 1) below
  // 2^257, its bit 256 folded back (below 2^256 + 2^225 < 2p), then p
  // subtracted where that does not borrow.
  KS_HD static void to_words(uint64_t w[4], const Elem& a) {
    const Elem m = mul(a, Elem{{1, 0, 0, 0, 0}});
    const Elem v = fp_dpf_detail::fold_and_carry(m.l[0], m.l[1], m.l[2], m.l[3], m.l[4]);
    // v < 2^256 + 2^230 in (I) limbs; as words with the bit 256 apart
    uint64_t x[5] = {v.l[0] | (v.l[1] << 52), (v.l[1] >> 12) | (v.l[2] << 40),
                     (v.l[2] >> 24) | (v.l[3] << 28), (v.l[3] >> 36) | (v.l[4] << 16),
                     v.l[4] >> 48};
    constexpr uint64_t kP[4] = {~uint64_t(0), 0xffffffff00000000, ~uint64_t(0),
                                0xfffffffeffffffff};
    uint64_t d[4], borrow = 0;
KS_UNROLL
    for (int i = 0; i < 4; ++i) {
      const uint64_t t = x[i] - kP[i];
      const uint64_t b1 = uint64_t(x[i] < kP[i]);
      d[i] = t - borrow;
      borrow = b1 | uint64_t(t < borrow);
    }
    // x - p borrows out of the 257-bit value only if x < p: keep x then
    const uint64_t keep = 0 - (borrow & (x[4] ^ 1));
KS_UNROLL
    for (int i = 0; i < 4; ++i) w[i] = (x[i] & keep) | (d[i] & ~keep);
  }
};

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_DPF_CUH_
