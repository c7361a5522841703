// GF(2^255 - 19) on the GPU's double-precision units (DPF, seed 002:
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
// The anchored split of p = a b (a, b < 2^52, p < 2^103), rounding toward
// zero (seed 002, "improved Dekker"):
//   hi = fma_rz(a, b, 2^103)                has exponent 103, ulp 2^51:
//        bits(hi) = 0x466 << 52 | floor(p / 2^51)
//   lo = fma_rz(a, b, 2^103 + 2^52 - hi)  = 2^52 + (p mod 2^51), exact:
//        bits(lo) = 0x433 << 52 | (p mod 2^51)
// (2^103 + 2^52 - hi is exact: a multiple of 2^51 below 2^104.) Column k of
// the product collects the low halves of the pairs i + j = k and the high
// halves of the pairs i + j = k - 1, at most 9 terms below 2^52 each (below
// 2^56: no carry into bit 64); the exponent fields (0x433 and 0x466 per
// term) are cancelled by starting each column at minus their sum, shifted
// to bit 52, mod 2^64.
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
// The header also compiles for the host, where the round-toward-zero FMA is
// emulated (fma under FE_TOWARDZERO): the CPU tests check the same formulas
// and bounds without a GPU (tests/cpp/test_fe25519_dpf.cc). The emulation
// is for tests only; nothing on the CPU path uses this field.
#ifndef KS_FIELD_FE25519_DPF_CUH_
#define KS_FIELD_FE25519_DPF_CUH_

#include <stdint.h>
#include <string.h>

#if !defined(__CUDA_ARCH__)
#include <cfenv>
#include <cmath>
#endif

#include "core/hd.h"
#include "field/fe25519_chain.h"

namespace ks {
namespace field {

struct FeDpf {
  uint64_t l[5];
};

namespace dpf_detail {

#define KS_DPF KS_HD

#if defined(__CUDA_ARCH__)
KS_DPF double fma_rz(double a, double b, double c) { return __fma_rz(a, b, c); }
KS_DPF uint64_t bits(double x) { return uint64_t(__double_as_longlong(x)); }
KS_DPF double from_bits(uint64_t x) { return __longlong_as_double(int64_t(x)); }
#else
// fma rounded toward zero; the volatile operands keep the compiler from
// moving the fma across the rounding-mode switches.
inline double fma_rz(double a, double b, double c) {
  const int mode = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  volatile double va = a, vb = b, vc = c;
  volatile double r = std::fma(va, vb, vc);
  std::fesetround(mode);
  return r;
}
inline uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}
inline double from_bits(uint64_t x) {
  double d;
  memcpy(&d, &x, 8);
  return d;
}
#endif

constexpr uint64_t kMask51 = (uint64_t(1) << 51) - 1;

// The exponent fields of the halves (1023 + 103 and 1023 + 52).
constexpr uint64_t kHiExp = 0x466, kLoExp = 0x433;

// Pairs (i, j) of a 5 x 5 product with i + j = k; of a square's, the
// diagonal pair (i = i) and the cross pairs (i < j, each standing for two).
KS_HD constexpr uint64_t pairs(int k) { return k < 0 || k > 8 ? 0 : uint64_t(k <= 4 ? k + 1 : 9 - k); }
KS_HD constexpr uint64_t diagonal_pairs(int k) { return k >= 0 && k <= 8 && k % 2 == 0 ? 1 : 0; }
KS_HD constexpr uint64_t cross_pairs(int k) { return (pairs(k) - diagonal_pairs(k)) / 2; }

// A column's start: minus the exponent fields of its low and high halves,
// at bit 52, mod 2^64.
KS_HD constexpr uint64_t bias(uint64_t low_halves, uint64_t high_halves) {
  return 0 - ((low_halves * kLoExp + high_halves * kHiExp) << 52);
}

// x < 2^52 as a double, exactly: the bit pattern of 2^52 + x (exponent
// field 0x433 over x), minus 2^52. One logic operation and one DADD, where
// the 64-bit integer conversion (I2F.F64.U64) issues at a quarter of the
// DFMA rate on sm_90 and would cost more than a third of a product's
// floating-point work.
KS_DPF double to_double(uint64_t x) { return from_bits(x | (kLoExp << 52)) - 0x1p52; }

// The anchored split of x y (header comment): the low half's bits into
// `low`, the high half's into `high` (the next column).
KS_DPF void add_split_product(uint64_t& low, uint64_t& high, double x, double y) {
  const double hi = fma_rz(x, y, 0x1p103);
  const double lo = fma_rz(x, y, (0x1p103 + 0x1p52) - hi);
  high += bits(hi);
  low += bits(lo);
}

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

  // a b: the 25 split products of the header comment, column sums in the
  // integer domain, the fold and one carry round.
  KS_DPF static Elem mul(const Elem& a, const Elem& b) {
    using namespace dpf_detail;
    double x[5], y[5];
KS_UNROLL
    for (int i = 0; i < 5; ++i) {
      x[i] = to_double(a.l[i]);
      y[i] = to_double(b.l[i]);
    }
    uint64_t c[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) c[k] = bias(pairs(k), pairs(k - 1));
KS_UNROLL
    for (int i = 0; i < 5; ++i)
KS_UNROLL
      for (int j = 0; j < 5; ++j) add_split_product(c[i + j], c[i + j + 1], x[i], y[j]);
    return fold(c);
  }
  // a^2: 15 split products, the 10 cross ones summed apart and doubled in
  // the integer domain (doubling an operand instead would take a product
  // past the 2^103 the anchoring needs). Columns stay as bounded as mul's.
  KS_DPF static Elem sqr(const Elem& a) {
    using namespace dpf_detail;
    double x[5];
KS_UNROLL
    for (int i = 0; i < 5; ++i) x[i] = to_double(a.l[i]);
    uint64_t d[10], e[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) {
      d[k] = bias(diagonal_pairs(k), diagonal_pairs(k - 1));
      e[k] = bias(cross_pairs(k), cross_pairs(k - 1));
    }
KS_UNROLL
    for (int i = 0; i < 5; ++i) {
      add_split_product(d[2 * i], d[2 * i + 1], x[i], x[i]);
KS_UNROLL
      for (int j = i + 1; j < 5; ++j) add_split_product(e[i + j], e[i + j + 1], x[i], x[j]);
    }
KS_UNROLL
    for (int k = 0; k < 10; ++k) d[k] += e[k] << 1;
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
