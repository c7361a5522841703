// Exponentiations in GF(p) for the SM2 prime p = 2^256 - 2^224 - 2^96 +
// 2^64 - 1, written once over a field type F (F::Elem, F::mul, F::sqr,
// F::sqr_n): the CPU field (field/fp.h) and the CUDA one share them.
#ifndef KS_FIELD_FP_CHAIN_H_
#define KS_FIELD_FP_CHAIN_H_

#include "core/hd.h"

namespace ks {
namespace field {

// Steps (1)-(14) of [ZHU22 table 4]: t1 = z^(2^62 - 1) and
// t2 = z^(2^254 - 2^222 - 2^94), from which both the inverse and the square
// root follow with a few more operations (253S + 12M).
template <class F>
KS_HD void sm2_p_chain_prefix(typename F::Elem& t1, typename F::Elem& t2,
                              const typename F::Elem& z) {
  using Elem = typename F::Elem;
  Elem t0 = F::mul(F::sqr(z), z);     // (1)  z^(2^2 - 1)
  t1 = F::mul(F::sqr(t0), z);         // (2)  z^(2^3 - 1)
  t2 = F::mul(F::sqr_n(t1, 3), t1);   // (3)  z^(2^6 - 1)
  t1 = F::sqr(t2);                    // (4)  z^(2^7 - 2)
  Elem t3 = F::mul(t1, z);            // (5)  z^(2^7 - 1)
  t1 = F::mul(F::sqr_n(t1, 5), t2);   // (6)  z^(2^12 - 1)
  t2 = F::mul(F::sqr_n(t1, 12), t1);  // (7)  z^(2^24 - 1)
  t1 = F::mul(F::sqr_n(t2, 7), t3);   // (8)  z^(2^31 - 1)
  t2 = F::sqr_n(t1, 2);               // (9)  z^(2^33 - 4)
  t3 = F::sqr_n(t2, 29);              // (10) z^(2^62 - 2^31)
  t1 = F::mul(t1, t3);                // (11) z^(2^62 - 1)
  t3 = F::sqr_n(t3, 2);               // (12) z^(2^64 - 2^33)
  t0 = F::mul(F::mul(t0, t3), t2);    // (13) z^(2^64 - 1)
  t2 = F::mul(F::sqr_n(t3, 32), t0);  // (14) z^(2^96 - 2^64 - 1)
  t2 = F::mul(F::sqr_n(t2, 64), t0);  //      z^(2^160 - 2^128 - 1)
  t2 = F::sqr_n(t2, 94);              //      z^(2^254 - 2^222 - 2^94)
}

// z^(p-2) = z^-1 (0 for 0): the 255S + 14M chain of [ZHU22 table 4].
template <class F>
KS_HD typename F::Elem sm2_p_inverse(const typename F::Elem& z) {
  typename F::Elem t1, t2;
  sm2_p_chain_prefix<F>(t1, t2, z);
  // (15): ((t1 t2)^4) z = z^(2^256 - 2^224 - 2^96 + 2^64 - 3) = z^(p-2)
  return F::mul(F::sqr_n(F::mul(t1, t2), 2), z);
}

// z^((p+1)/4), a square root of z whenever z is a square (p = 3 mod 4):
// (p+1)/4 = 2^254 - 2^222 - 2^94 + 2^62 = (exponent of t2) + (2^62 - 1) + 1.
template <class F>
KS_HD typename F::Elem sm2_p_sqrt_candidate(const typename F::Elem& z) {
  typename F::Elem t1, t2;
  sm2_p_chain_prefix<F>(t1, t2, z);
  return F::mul(F::mul(t1, t2), z);
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_CHAIN_H_
