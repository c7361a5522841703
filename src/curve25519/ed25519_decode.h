// Point decompression of Edwards25519 (RFC 8032 5.1.3 steps 2-4), written
// once over a field policy F (field/policy.h) for the CPU's fields, the
// 4-lane IFMA field (read in lane 0) and the GPU's. Decoding reads public
// data only (public keys, the R of a signature): it branches on the result.
#ifndef KS_CURVE_ED25519_DECODE_H_
#define KS_CURVE_ED25519_DECODE_H_

#include <stdint.h>

#include "core/hd.h"
#include "field/fe25519_chain.h"

namespace ks {
namespace curve {
namespace ed25519 {

// x with x^2 = u / v, u = y^2 - 1, v = d y^2 + 1, and x's low bit equal to
// `sign`: the candidate u v^3 (u v^7)^((p-5)/8) is a root when v x^2 = u,
// sqrt(-1) times it when v x^2 = -u; otherwise there is none. x = 0 with
// sign 1 is rejected (step 4). y is the (canonical) y-coordinate, d and
// sqrt_m1 the constants in F's representation. Returns false where no x
// exists.
template <class F>
KS_HD bool recover_x(typename F::Elem& x, const typename F::Elem& y, uint64_t sign,
                     const typename F::Elem& d, const typename F::Elem& sqrt_m1) {
  using Elem = typename F::Elem;
  const Elem yy = F::sqr(y);
  const Elem u = F::sub(yy, F::one());
  const Elem v = F::add(F::mul(yy, d), F::one());
  const Elem v3 = F::mul(F::sqr(v), v);
  x = F::mul(F::mul(u, v3), field::fe25519_pow_p58<F>(F::mul(u, F::mul(F::sqr(v3), v))));
  const Elem vxx = F::mul(v, F::sqr(x));
  if (!(F::eq(vxx, u) & 1)) {
    if (!(F::eq(vxx, F::neg(u)) & 1)) return false;
    x = F::mul(x, sqrt_m1);
  }
  if ((F::is_zero(x) & 1) && sign) return false;
  if ((F::is_negative(x) & 1) != sign) x = F::neg(x);
  return true;
}

}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_DECODE_H_
