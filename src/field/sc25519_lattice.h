// Half-size scalars for Ed25519 verification: for a scalar k mod L, a pair
// (w, z) of integers below 2^127 with w = z k (mod L), from the extended
// Euclidean algorithm on (L, k) stopped half way (the classic "half-gcd"
// bound: the remainders r_i and cofactors t_i satisfy r_i = t_i k mod L
// and r_(i-1) |t_i| + r_i |t_(i-1)| = L, so the first r_i below 2^127 comes
// with |t_i| <= L / r_(i-1) < 2^126).
//
// Multiplying the verification equation [8]([S]B - [k]A - R) = 0 by z
// (invertible mod L) gives [8]([z S mod L]B - [w]A - [z]R) = 0, which has
// the same solutions (z and L are coprime, and the multiple of L that w
// drops is killed by the cofactor) and whose A and R parts need half the
// doublings. Antipa et al., "Accelerated verification of ECDSA
// signatures" (SAC 2005); Pornin, "Optimized lattice basis reduction in
// dimension 2" (2020), applies it to Ed25519.
//
// Variable time: verification's inputs are public.
#ifndef KS_FIELD_SC25519_LATTICE_H_
#define KS_FIELD_SC25519_LATTICE_H_

#include "field/u256.h"

namespace ks {
namespace field {

struct HalfScalars {
  u128 z;           // 0 < z < 2^126
  u128 w;           // |w| < 2^127
  bool w_negative;  // the sign of w
};

// For any k < 2^256, taken mod L first (k = 0 gives (w, z) = (0, 1)).
// Lehmer's method: about five rounds of single-precision Euclid steps,
// each round's quotients proven exact (sc25519_lattice.cc), so (w, z) is
// exactly what the plain algorithm stopped at the first remainder below
// 2^127 gives.
HalfScalars half_scalars(const U256& k);

// The scalars of the equation above for any s, k below 2^256 (mod L: B has
// order L, and [8] kills the multiple of [L]A that k mod L drops):
// half_scalars(k) and z s mod L.
struct HalfSizeEquation {
  U256 s;  // z s mod L, the scalar of B
  HalfScalars h;
};
HalfSizeEquation half_size_equation(const U256& s, const U256& k);

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_SC25519_LATTICE_H_
