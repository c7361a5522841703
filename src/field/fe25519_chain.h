// Exponentiations in GF(p), p = 2^255 - 19, written once over a field type F
// (field/policy.h): the CPU fields, the 8-lane IFMA field and the GPU fields
// share them. Addition chains of Bernstein et al.'s ref10 (curve25519
// and ed25519 reference code): z^(2^250 - 1) in 249S + 10M, then
//   z^(p-2)     = z^(2^255 - 21)    (the inverse; 0 maps to 0): 254S + 11M,
//   z^((p-5)/8) = z^(2^252 - 3)     (square roots, RFC 8032 5.1.3): 251S + 11M.
#ifndef KS_FIELD_FE25519_CHAIN_H_
#define KS_FIELD_FE25519_CHAIN_H_

#include "core/hd.h"

namespace ks {
namespace field {

// z^(2^250 - 1) and z^11 (the inverse needs the latter too).
template <class F>
KS_HD typename F::Elem fe25519_pow_2_250_1(const typename F::Elem& z, typename F::Elem* z11) {
  using Elem = typename F::Elem;
  const Elem z2 = F::sqr(z);                         // 2
  const Elem z9 = F::mul(F::sqr_n(z2, 2), z);        // 9
  *z11 = F::mul(z9, z2);                             // 11
  const Elem z_5_0 = F::mul(F::sqr(*z11), z9);       // 2^5 - 2^0 = 31
  const Elem z_10_0 = F::mul(F::sqr_n(z_5_0, 5), z_5_0);
  const Elem z_20_0 = F::mul(F::sqr_n(z_10_0, 10), z_10_0);
  const Elem z_40_0 = F::mul(F::sqr_n(z_20_0, 20), z_20_0);
  const Elem z_50_0 = F::mul(F::sqr_n(z_40_0, 10), z_10_0);
  const Elem z_100_0 = F::mul(F::sqr_n(z_50_0, 50), z_50_0);
  const Elem z_200_0 = F::mul(F::sqr_n(z_100_0, 100), z_100_0);
  return F::mul(F::sqr_n(z_200_0, 50), z_50_0);     // 2^250 - 2^0
}

// z^(p-2) = z^-1 for z != 0.
template <class F>
KS_HD typename F::Elem fe25519_invert(const typename F::Elem& z) {
  typename F::Elem z11;
  const typename F::Elem z_250_0 = fe25519_pow_2_250_1<F>(z, &z11);
  return F::mul(F::sqr_n(z_250_0, 5), z11);  // 2^255 - 2^5 + 11 = 2^255 - 21
}

// z^((p-5)/8) = z^(2^252 - 3).
template <class F>
KS_HD typename F::Elem fe25519_pow_p58(const typename F::Elem& z) {
  typename F::Elem z11;
  const typename F::Elem z_250_0 = fe25519_pow_2_250_1<F>(z, &z11);
  return F::mul(F::sqr_n(z_250_0, 2), z);  // 2^252 - 4 + 1
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_CHAIN_H_
