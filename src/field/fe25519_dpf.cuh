// GF(2^255 - 19) on the GPU's double-precision units (DPF, [DPFECC20]:
// "DPF-ECC", Gao, Zheng, Emmart et al.): limbs of radix 2^51 multiplied as
// doubles, each 52 x 52-bit partial product split exactly into a high and a
// low half by two fused multiply-adds with anchored exponents, the halves'
// bit patterns summed as integers with the exponent fields cancelled in
// advance, then the 2^255 = 19 fold and one round of carry resolution.
//
// Elements are five unsigned 64-bit limbs of radix 2^51 (value = sum l_i
// 2^(51 i)): additions, subtractions, carries and selects run on the
// integer pipe, products on the FP64 pipe (a limb below 2^53 converts to a
// double exactly). Invariant of an element (every operation keeps it):
//   (I)  l_1..l_4 < 2^51, l_0 < 2^51 + 2^13: the value is below 2^255 + 2^13
// so that every partial product of two elements is below (2^51 + 2^13)^2 <
// 2^103, the bound the anchoring needs (the seed's T102/T103/T104 argument:
// even the two top limbs' product stays under 103 bits).
//
// The anchored split (field/dpf_split.cuh) at radix 2^51, anchor 2^103.
// Column k of the product collects the low halves of the pairs i + j = k
// and the high halves of the pairs i + j = k - 1, at most 9 terms below
// 2^52 each (below 2^56: no carry into bit 64); the exponent fields are
// cancelled by starting each column at minus their sum.
//
// Reduction: c_k += 19 c_(k+5) (2^255 = 19) keeps every column below 2^61;
// one carry round c_(k+1) += c_k >> 51 for k < 4, then c_0 += 19 (c_4 >>
// 51): limbs 1..4 below 2^51, limb 0 below 2^51 + 19 2^10: (I). No
// normalisation to [0, p) between operations; canonical() gives it.
//
// Fe25519Dpf satisfies the field policy (field/policy.h) with 64-bit masks,
// plus mul_small and the conversions. Branch-free and index-free in the
// values (the FP64 operations have data-independent timing on NVIDIA GPUs
// for normal operands; no operand here is subnormal, infinite or NaN).
//
// The header also compiles for the host (the FMA emulated): the CPU tests
// check the same formulas and bounds without a GPU
// (tests/cpp/field/test_fe25519_dpf.cc); nothing on the CPU path uses this field.
#ifndef KS_FIELD_FE25519_DPF_CUH_
#define KS_FIELD_FE25519_DPF_CUH_

#include <stdint.h>

#include "core/hd.h"
#include "field/dpf_split.cuh"
#include "field/fe25519_chain.h"

namespace ks {
namespace field {

struct FeDpf {
  uint64_t l[5];
};

namespace dpf_detail {

#define KS_DPF KS_HD

constexpr uint64_t kMask51 = (uint64_t(1) << 51) - 1;

using Split51 = AnchoredSplit<51>;

// Carries column k into k + 1 for k < 4, then the carry out of limb 4
// (weight 2^255) into limb 0 as 19. Columns below 2^63 in; (I) out.
KS_DPF FeDpf carry_round(uint64_t c0, uint64_t c1, uint64_t c2, uint64_t c3, uint64_t c4) {
  c1 += c0 >> 51;
  c0 &= kMask51;
  c2 += c1 >> 51;
  c1 &= kMask51;
  c3 += c2 >> 51;
  c2 &= kMask51;
  c4 += c3 >> 51;
  c3 &= kMask51;
  c0 += 19 * (c4 >> 51);
  c4 &= kMask51;
  return {{c0, c1, c2, c3, c4}};
}

// A product's ten columns (each below 2^56) to an element: 2^255 = 19
// folds column k + 5 into column k (below 2^61), then one carry round.
KS_DPF FeDpf fold(const uint64_t c[10]) {
  return carry_round(c[0] + 19 * c[5], c[1] + 19 * c[6], c[2] + 19 * c[7], c[3] + 19 * c[8],
                     c[4] + 19 * c[9]);
}

}  // namespace dpf_detail

struct Fe25519Dpf {
  using Elem = FeDpf;
  using Mask = uint64_t;

  KS_DPF static Elem zero() { return {{0, 0, 0, 0, 0}}; }
  KS_DPF static Elem one() { return {{1, 0, 0, 0, 0}}; }

  // a + b: limbs below 2^52 + 2^14, one carry round.
  KS_DPF static Elem add(const Elem& a, const Elem& b) {
    return dpf_detail::carry_round(a.l[0] + b.l[0], a.l[1] + b.l[1], a.l[2] + b.l[2],
                                   a.l[3] + b.l[3], a.l[4] + b.l[4]);
  }
  // a - b + 4p, limb by limb non-negative: 4p in radix 2^51 with every limb
  // at least 2^53 - 76 (above any limb of b), then one carry round.
  KS_DPF static Elem sub(const Elem& a, const Elem& b) {
    constexpr uint64_t k4p0 = 4 * (dpf_detail::kMask51 - 18), k4p = 4 * dpf_detail::kMask51;
    return dpf_detail::carry_round(a.l[0] + k4p0 - b.l[0], a.l[1] + k4p - b.l[1],
                                   a.l[2] + k4p - b.l[2], a.l[3] + k4p - b.l[3],
                                   a.l[4] + k4p - b.l[4]);
  }
  KS_DPF static Elem neg(const Elem& a) { return sub(zero(), a); }
  KS_DPF static Elem dbl(const Elem& a) { return add(a, a); }

  // a b: the 25 split products (Split51::add_product), the fold and one
  // carry round.
  KS_DPF static Elem mul(const Elem& a, const Elem& b) {
    using namespace dpf_detail;
    uint64_t c[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) c[k] = Split51::bias(pairs(k), pairs(k - 1));
    Split51::add_product(c, a.l, b.l);
    return fold(c);
  }
  // a^2: 15 split products (Split51::add_square). Columns stay as bounded
  // as mul's.
  KS_DPF static Elem sqr(const Elem& a) {
    using namespace dpf_detail;
    uint64_t d[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) d[k] = Split51::bias(diagonal_pairs(k), diagonal_pairs(k - 1));
    Split51::add_square(d, a.l);
    return fold(d);
  }
  KS_DPF static Elem sqr_n(Elem a, int n) {
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
  // a k for k < 2^32: each limb product below 2^84 split at bit 51.
  KS_DPF static Elem mul_small(const Elem& a, uint32_t k) {
    uint64_t c[5], carry = 0;
KS_UNROLL
    for (int i = 0; i < 5; ++i) {
      const unsigned __int128 p = (unsigned __int128)a.l[i] * k + carry;
      c[i] = uint64_t(p) & dpf_detail::kMask51;
      carry = uint64_t(p >> 51);
    }
    return dpf_detail::carry_round(c[0] + 19 * carry, c[1], c[2], c[3], c[4]);
  }

  // The representative in [0, p): the value v < 2^255 + 2^13 after a carry
  // round is below 2p; v - p = v + 19 - 2^255 where v + 19 reaches 2^255.
  KS_DPF static Elem canonical(const Elem& a) {
    using dpf_detail::kMask51;
    const Elem v = dpf_detail::carry_round(a.l[0], a.l[1], a.l[2], a.l[3], a.l[4]);
    uint64_t w[5] = {v.l[0] + 19, v.l[1], v.l[2], v.l[3], v.l[4]};
KS_UNROLL
    for (int i = 0; i < 4; ++i) {
      w[i + 1] += w[i] >> 51;
      w[i] &= kMask51;
    }
    const uint64_t ge_p = 0 - (w[4] >> 51);  // v + 19 >= 2^255
    w[4] &= kMask51;
    Elem r;
    // v itself has limb 0 below 2^52 here: carry it too for the canonical form
    uint64_t u[5] = {v.l[0], v.l[1], v.l[2], v.l[3], v.l[4]};
KS_UNROLL
    for (int i = 0; i < 4; ++i) {
      u[i + 1] += u[i] >> 51;
      u[i] &= kMask51;
    }
KS_UNROLL
    for (int i = 0; i < 5; ++i) r.l[i] = (w[i] & ge_p) | (u[i] & ~ge_p);
    return r;
  }
  KS_DPF static Mask is_zero(const Elem& a) {
    const Elem c = canonical(a);
    const uint64_t any = c.l[0] | c.l[1] | c.l[2] | c.l[3] | c.l[4];
    return 0 - uint64_t(any == 0);
  }
  KS_DPF static Mask eq(const Elem& a, const Elem& b) { return is_zero(sub(a, b)); }
  KS_DPF static Mask is_negative(const Elem& a) { return 0 - (canonical(a).l[0] & 1); }
  KS_DPF static Elem select(Mask m, const Elem& a, const Elem& b) {
    Elem r;
KS_UNROLL
    for (int i = 0; i < 5; ++i) r.l[i] = (a.l[i] & m) | (b.l[i] & ~m);
    return r;
  }
  KS_DPF static Elem inv(const Elem& a) { return fe25519_invert<Fe25519Dpf>(a); }
  KS_DPF static Elem pow_p58(const Elem& a) { return fe25519_pow_p58<Fe25519Dpf>(a); }

  // Four 64-bit little-endian words (any value below 2^256) <-> radix 2^51.
  KS_DPF static Elem from_words(const uint64_t w[4]) {
    using dpf_detail::kMask51;
    const uint64_t l0 = w[0] & kMask51, l1 = ((w[0] >> 51) | (w[1] << 13)) & kMask51,
                   l2 = ((w[1] >> 38) | (w[2] << 26)) & kMask51,
                   l3 = ((w[2] >> 25) | (w[3] << 39)) & kMask51, l4 = w[3] >> 12;  // < 2^52
    return dpf_detail::carry_round(l0, l1, l2, l3, l4);
  }
  // The canonical value as four 64-bit words.
  KS_DPF static void to_words(uint64_t w[4], const Elem& a) {
    const Elem c = canonical(a);
    w[0] = c.l[0] | (c.l[1] << 51);
    w[1] = (c.l[1] >> 13) | (c.l[2] << 38);
    w[2] = (c.l[2] >> 26) | (c.l[3] << 25);
    w[3] = (c.l[3] >> 39) | (c.l[4] << 12);
  }
};

#undef KS_DPF

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_DPF_CUH_
