// X25519's scalar multiplication (RFC 7748 section 5): the Montgomery ladder
// on the u-coordinate of Curve25519, v^2 = u^3 + 486662 u^2 + u, written
// once over a field policy F with mul_small (field/policy.h), for the CPU,
// IFMA and GPU fields alike. Constant time: every step does the same
// operations, and the conditional swap is a select on the scalar bit.
#ifndef KS_CURVE_MONTGOMERY_LADDER_H_
#define KS_CURVE_MONTGOMERY_LADDER_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace curve {

// (A - 2) / 4 for A = 486662, the constant RFC 7748 5 calls a24 (its
// formula z_2 = E (AA + a24 E) uses (A - 2) / 4 = 121665 with AA; the
// equivalent form z_2 = E (BB + 121666 E) below uses (A + 2) / 4).
constexpr uint32_t kLadderA24 = 121666;

// The x-only state of one ladder: (x2 : z2) = [m]P and (x3 : z3) = [m+1]P
// for the bits m of the scalar consumed so far.
template <class F>
struct LadderState {
  typename F::Elem x2, z2, x3, z3;
};

// One differential addition and doubling step (RFC 7748 5, the "ladder
// step" with x1 the input u): 5M + 4S + one multiplication by 121666.
template <class F>
KS_HD void ladder_step(LadderState<F>& s, const typename F::Elem& x1) {
  const auto a = F::add(s.x2, s.z2);
  const auto b = F::sub(s.x2, s.z2);
  const auto c = F::add(s.x3, s.z3);
  const auto d = F::sub(s.x3, s.z3);
  const auto da = F::mul(d, a);
  const auto cb = F::mul(c, b);
  const auto aa = F::sqr(a);
  const auto bb = F::sqr(b);
  s.x3 = F::sqr(F::add(da, cb));
  s.z3 = F::mul(x1, F::sqr(F::sub(da, cb)));
  s.x2 = F::mul(aa, bb);
  const auto e = F::sub(aa, bb);
  s.z2 = F::mul(e, F::add(bb, F::mul_small(e, kLadderA24)));
}

// ladder()'s default step: ladder_step over the field policy. A field with
// faster forms of its own may bring another arrangement of the same
// formulas (curve25519/ed25519_mb.cc, the 8-lane IFMA field), as a type with a
// static step(state, x1) like this one.
template <class F>
struct LadderStep {
  KS_HD static void step(LadderState<F>& s, const typename F::Elem& x1) { ladder_step<F>(s, x1); }
};

// Swaps (x2, z2) with (x3, z3) where mask is all ones.
template <class F, class Mask>
KS_HD void ladder_swap(LadderState<F>& s, Mask mask) {
  const auto x2 = F::select(mask, s.x3, s.x2), x3 = F::select(mask, s.x2, s.x3);
  const auto z2 = F::select(mask, s.z3, s.z2), z3 = F::select(mask, s.z2, s.z3);
  s.x2 = x2, s.x3 = x3, s.z2 = z2, s.z3 = z3;
}

// [k]u as the projective (x2 : z2), for the 255-bit scalar k given by
// bit(i) (bits 254 down to 0; X25519's clamping sets bit 254 and clears
// the three low bits and bit 255). bit(i) returns a mask: all ones for a 1.
// The ladder runs over every bit position whatever k is. Step::step
// computes each step (LadderStep above unless the caller names another).
template <class F, class Step = LadderStep<F>, class BitMask>
KS_HD LadderState<F> ladder(const typename F::Elem& u, const BitMask& bit) {
  LadderState<F> s{F::one(), F::zero(), u, F::one()};
  auto swapped = bit(254) ^ bit(254);  // zero of the mask type
  for (int i = 254; i >= 0; --i) {
    const auto b = bit(i);
    ladder_swap(s, swapped ^ b);
    swapped = b;
    Step::step(s, u);
  }
  ladder_swap(s, swapped);
  return s;
}

}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_MONTGOMERY_LADDER_H_
