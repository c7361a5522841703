// The anchored split of [DPFECC20] (DPF-ECC, "improved Dekker"), shared by
// the double-precision fields (field/fe25519_dpf.cuh for 2^255 - 19,
// field/fp_dpf.cuh for the SM2 prime): a product p = x y of two limbs held
// exactly in doubles, below 2^(52 + kRadix), is split into its high and low
// radix-2^kRadix halves by two fused multiply-adds rounding toward zero,
// each with a fixed exponent, so that their bit patterns can be summed as
// integers once the exponent fields are cancelled in advance:
//   hi = fma_rz(x, y, A)              A = 2^(52 + kRadix), ulp 2^kRadix:
//        bits(hi) = kHiExp << 52 | floor(p / 2^kRadix)
//   lo = fma_rz(x, y, (A + 2^52) - hi)  = 2^52 + (p mod 2^kRadix), exact:
//        bits(lo) = 0x433 << 52 | (p mod 2^kRadix)
// ((A + 2^52) - hi is exact: a multiple of 2^kRadix below 2^(53 + kRadix).)
//
// The header also compiles for the host, where the round-toward-zero FMA is
// emulated (fma under FE_TOWARDZERO) so that the CPU tests check the same
// formulas without a GPU. The emulation is for tests only.
#ifndef KS_FIELD_DPF_SPLIT_CUH_
#define KS_FIELD_DPF_SPLIT_CUH_

#include <stdint.h>
#include <string.h>

#if !defined(__CUDA_ARCH__)
#include <cfenv>
#include <cmath>
#endif

#include "core/hd.h"

namespace ks {
namespace field {
namespace dpf_detail {

#if defined(__CUDA_ARCH__)
KS_HD double fma_rz(double a, double b, double c) { return __fma_rz(a, b, c); }
KS_HD uint64_t bits(double x) { return uint64_t(__double_as_longlong(x)); }
KS_HD double from_bits(uint64_t x) { return __longlong_as_double(int64_t(x)); }
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

// The exponent field of a low half (1023 + 52).
constexpr uint64_t kLoExp = 0x433;

// x < 2^52 as a double, exactly: the bit pattern of 2^52 + x (exponent
// field 0x433 over x), minus 2^52. One logic operation and one DADD, where
// the 64-bit integer conversion (I2F.F64.U64) issues at a quarter of the
// DFMA rate on sm_90 and would cost more than a third of a product's
// floating-point work.
KS_HD double to_double(uint64_t x) { return from_bits(x | (kLoExp << 52)) - 0x1p52; }

// Pairs (i, j) of a 5 x 5 product with i + j = k; of a square's, the
// diagonal pair (i = i) and the cross pairs (i < j, each standing for two).
KS_HD constexpr uint64_t pairs(int k) { return k < 0 || k > 8 ? 0 : uint64_t(k <= 4 ? k + 1 : 9 - k); }
KS_HD constexpr uint64_t diagonal_pairs(int k) { return k >= 0 && k <= 8 && k % 2 == 0 ? 1 : 0; }
KS_HD constexpr uint64_t cross_pairs(int k) { return (pairs(k) - diagonal_pairs(k)) / 2; }

template <int kRadix>
struct AnchoredSplit {
  static_assert(kRadix == 51 || kRadix == 52, "the anchors below");
  static constexpr uint64_t kHiExp = 1023 + 52 + kRadix;  // exponent field of a high half
  static constexpr double kAnchor = kRadix == 51 ? 0x1p103 : 0x1p104;

  // The bit patterns of x y's halves: {low, high} (header comment).
  struct Halves {
    uint64_t low, high;
  };
  KS_HD static Halves split(double x, double y) {
    const double hi = fma_rz(x, y, kAnchor);
    const double lo = fma_rz(x, y, (kAnchor + 0x1p52) - hi);
    return {bits(lo), bits(hi)};
  }
  // low += the low half's bits, high += the high half's (the next column).
  KS_HD static void add(uint64_t& low, uint64_t& high, double x, double y) {
    const Halves h = split(x, y);
    low += h.low;
    high += h.high;
  }
  // The same halves subtracted.
  KS_HD static void subtract(uint64_t& low, uint64_t& high, double x, double y) {
    const Halves h = split(x, y);
    low -= h.low;
    high -= h.high;
  }
  // The 25 split products of a b (limbs below 2^52, their products below
  // 2^(52 + kRadix)) added into ten columns: column k gets the low halves
  // of the pairs i + j = k and the high halves of i + j = k - 1. The caller
  // starts each column at bias(pairs(k), pairs(k - 1)) plus its own terms.
  KS_HD static void add_product(uint64_t c[10], const uint64_t a[5], const uint64_t b[5]) {
    double x[5], y[5];
KS_UNROLL
    for (int i = 0; i < 5; ++i) {
      x[i] = to_double(a[i]);
      y[i] = to_double(b[i]);
    }
KS_UNROLL
    for (int i = 0; i < 5; ++i)
KS_UNROLL
      for (int j = 0; j < 5; ++j) add(c[i + j], c[i + j + 1], x[i], y[j]);
  }
  // a^2 the same way with 15 split products: the diagonal ones into d
  // (started by the caller at bias(diagonal_pairs(k), diagonal_pairs(k -
  // 1)) plus its own terms), the 10 cross ones summed apart and doubled in
  // the integer domain (doubling an operand instead would take a product
  // past the split's bound).
  KS_HD static void add_square(uint64_t d[10], const uint64_t a[5]) {
    double x[5];
KS_UNROLL
    for (int i = 0; i < 5; ++i) x[i] = to_double(a[i]);
    uint64_t e[10];
KS_UNROLL
    for (int k = 0; k < 10; ++k) e[k] = bias(cross_pairs(k), cross_pairs(k - 1));
KS_UNROLL
    for (int i = 0; i < 5; ++i) {
      add(d[2 * i], d[2 * i + 1], x[i], x[i]);
KS_UNROLL
      for (int j = i + 1; j < 5; ++j) add(e[i + j], e[i + j + 1], x[i], x[j]);
    }
KS_UNROLL
    for (int k = 0; k < 10; ++k) d[k] += e[k] << 1;
  }
  // A column's start: minus the exponent fields of the halves it adds,
  // plus those of the halves it subtracts (net counts), at bit 52, mod 2^64.
  KS_HD static constexpr uint64_t bias(int64_t low_halves, int64_t high_halves) {
    return 0 - (uint64_t(low_halves * int64_t(kLoExp) + high_halves * int64_t(kHiExp)) << 52);
  }
};

}  // namespace dpf_detail
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_DPF_SPLIT_CUH_
