// Point formulas for short Weierstrass curves with a = -3 (SM2's
// sm2p256v1, GM/T 0003.5), written once over a field policy F (see
// field/fp.h for the interface: Elem, zero/one, add/sub/neg/dbl, mul/sqr,
// is_zero/eq -> all-ones mask, select(mask, a, b)). Every function is KS_HD
// so that the CUDA field type reuses exactly these formulas.
//
// Jacobian coordinates (X, Y, Z) stand for (X/Z^2, Y/Z^3); Z = 0 is the point
// at infinity. Formulas from the Explicit-Formulas Database (EFD),
// g1p/auto-shortw-jacobian-3: dbl-2001-b, add-2007-bl, madd-2007-bl.
#ifndef KS_CURVE_JACOBIAN_H_
#define KS_CURVE_JACOBIAN_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace curve {

template <class F>
struct AffinePoint {
  typename F::Elem x, y;
};

template <class F>
struct JacobianPoint {
  typename F::Elem x, y, z;

  KS_HD static JacobianPoint infinity() { return {F::one(), F::one(), F::zero()}; }
  KS_HD static JacobianPoint from_affine(const AffinePoint<F>& a) { return {a.x, a.y, F::one()}; }
  KS_HD uint64_t is_infinity() const { return F::is_zero(z); }
};

// mask ? a : b, coordinate by coordinate.
template <class F>
KS_HD JacobianPoint<F> select(uint64_t mask, const JacobianPoint<F>& a, const JacobianPoint<F>& b) {
  return {F::select(mask, a.x, b.x), F::select(mask, a.y, b.y), F::select(mask, a.z, b.z)};
}

template <class F>
KS_HD AffinePoint<F> select(uint64_t mask, const AffinePoint<F>& a, const AffinePoint<F>& b) {
  return {F::select(mask, a.x, b.x), F::select(mask, a.y, b.y)};
}

// -P when mask is all ones, P otherwise (y -> -y), in constant time.
template <class F, class Point>
KS_HD Point negate_if(uint64_t mask, Point p) {
  p.y = F::select(mask, F::neg(p.y), p.y);
  return p;
}

// 2P, dbl-2001-b (a = -3 turns 3X^2 + aZ^4 into 3(X-Z^2)(X+Z^2)), with
// Z3 = 2YZ computed directly (4M + 4S: a product costs what a square does
// here, and it saves three additions over (Y+Z)^2 - gamma - delta).
// Infinity maps to infinity (Z3 = 2YZ = 0), so no special case is needed.
// kSquareZ = true takes Z3 = (Y+Z)^2 - gamma - delta instead (3M + 5S, the
// published form), for fields whose squares are cheaper than products (the
// GPU's); the result is the same point, same coordinates.
template <class F, bool kSquareZ = false>
KS_HD JacobianPoint<F> dbl(const JacobianPoint<F>& p) {
  const auto delta = F::sqr(p.z);
  const auto gamma = F::sqr(p.y);
  const auto beta = F::mul(p.x, gamma);
  const auto t = F::mul(F::sub(p.x, delta), F::add(p.x, delta));
  const auto alpha = F::add(F::dbl(t), t);
  const auto beta4 = F::dbl(F::dbl(beta));
  JacobianPoint<F> r;
  r.x = F::sub(F::sqr(alpha), F::dbl(beta4));
  if constexpr (kSquareZ)
    r.z = F::sub(F::sub(F::sqr(F::add(p.y, p.z)), gamma), delta);
  else
    r.z = F::dbl(F::mul(p.y, p.z));
  const auto gamma2_8 = F::dbl(F::dbl(F::dbl(F::sqr(gamma))));
  r.y = F::sub(F::mul(alpha, F::sub(beta4, r.x)), gamma2_8);
  return r;
}

// The two ways the generic addition formulas fail, as masks: P == Q (they
// would need the doubling formula) and P == -Q (the sum is infinity; the
// formulas yield Z3 = 0 there by themselves).
struct AddCase {
  uint64_t same_x;      // H == 0: P == Q or P == -Q
  uint64_t same_point;  // H == 0 and R == 0: P == Q
};

// Q with Z^2 and Z^3 alongside: points added many times (the odd multiples
// in verification) pay for these two products once.
template <class F>
struct CachedJacobian {
  JacobianPoint<F> q;
  typename F::Elem zz, zzz;
};

template <class F>
KS_HD CachedJacobian<F> with_z_powers(const JacobianPoint<F>& q) {
  const auto zz = F::sqr(q.z);
  return {q, zz, F::mul(zz, q.z)};
}

// P + Q for P, Q finite and P != Q, add-2007-bl (11M + 5S, of which the
// 1M + 1S of Q's Z powers are precomputed in c).
template <class F>
KS_HD JacobianPoint<F> add_generic(const JacobianPoint<F>& p, const CachedJacobian<F>& cq,
                                   AddCase* c) {
  const JacobianPoint<F>& q = cq.q;
  const auto z1z1 = F::sqr(p.z);
  const auto u1 = F::mul(p.x, cq.zz);
  const auto u2 = F::mul(q.x, z1z1);
  const auto s1 = F::mul(p.y, cq.zzz);
  const auto s2 = F::mul(F::mul(q.y, p.z), z1z1);
  const auto h = F::sub(u2, u1);
  const auto i = F::sqr(F::dbl(h));
  const auto j = F::mul(h, i);
  const auto r = F::dbl(F::sub(s2, s1));
  const auto v = F::mul(u1, i);
  c->same_x = F::is_zero(h);
  c->same_point = c->same_x & F::is_zero(r);
  JacobianPoint<F> out;
  out.x = F::sub(F::sub(F::sqr(r), j), F::dbl(v));
  out.y = F::sub(F::mul(r, F::sub(v, out.x)), F::dbl(F::mul(s1, j)));
  out.z = F::mul(F::sub(F::sub(F::sqr(F::add(p.z, q.z)), z1z1), cq.zz), h);
  return out;
}

// P + Q with Q affine, P finite, P != Q: madd-2007-bl (7M + 4S).
template <class F>
KS_HD JacobianPoint<F> add_mixed_generic(const JacobianPoint<F>& p, const AffinePoint<F>& q,
                                         AddCase* c) {
  const auto z1z1 = F::sqr(p.z);
  const auto u2 = F::mul(q.x, z1z1);
  const auto s2 = F::mul(F::mul(q.y, p.z), z1z1);
  const auto h = F::sub(u2, p.x);
  const auto hh = F::sqr(h);
  const auto i = F::dbl(F::dbl(hh));
  const auto j = F::mul(h, i);
  const auto r = F::dbl(F::sub(s2, p.y));
  const auto v = F::mul(p.x, i);
  c->same_x = F::is_zero(h);
  c->same_point = c->same_x & F::is_zero(r);
  JacobianPoint<F> out;
  out.x = F::sub(F::sub(F::sqr(r), j), F::dbl(v));
  out.y = F::sub(F::mul(r, F::sub(v, out.x)), F::dbl(F::mul(p.y, j)));
  out.z = F::sub(F::sub(F::sqr(F::add(p.z, h)), z1z1), hh);
  return out;
}

// P + Q in constant time, infinity on either side handled by selects.
// P == Q is NOT handled: the constant-time scalar multiplications never add a
// point to itself for scalars in [1, n-1] (see curve/sm2_curve.cc), and
// checking would cost a doubling per addition.
template <class F>
KS_HD JacobianPoint<F> add(const JacobianPoint<F>& p, const JacobianPoint<F>& q) {
  AddCase c;
  JacobianPoint<F> r = add_generic(p, with_z_powers(q), &c);
  r = select(p.is_infinity(), q, r);
  return select(q.is_infinity(), p, r);
}

// P + Q for affine Q, constant time; q_is_infinity (a mask) marks an absent Q
// (a zero digit of a table lookup). Same exclusion of P == Q as add().
template <class F>
KS_HD JacobianPoint<F> add_mixed(const JacobianPoint<F>& p, const AffinePoint<F>& q,
                                 uint64_t q_is_infinity) {
  AddCase c;
  JacobianPoint<F> r = add_mixed_generic(p, q, &c);
  r = select(p.is_infinity(), JacobianPoint<F>::from_affine(q), r);
  return select(q_is_infinity, p, r);
}

// P + Q for public points (verification, table generation): every case,
// with branches.
template <class F>
KS_HD JacobianPoint<F> add_vartime(const JacobianPoint<F>& p, const CachedJacobian<F>& q) {
  if (p.is_infinity()) return q.q;
  if (q.q.is_infinity()) return p;
  AddCase c;
  const JacobianPoint<F> r = add_generic(p, q, &c);
  return c.same_point ? dbl(p) : r;  // P == -Q already gave Z3 = 0
}

template <class F>
KS_HD JacobianPoint<F> add_vartime(const JacobianPoint<F>& p, const JacobianPoint<F>& q) {
  return add_vartime(p, with_z_powers(q));
}

template <class F>
KS_HD JacobianPoint<F> add_mixed_vartime(const JacobianPoint<F>& p, const AffinePoint<F>& q) {
  if (p.is_infinity()) return JacobianPoint<F>::from_affine(q);
  AddCase c;
  const JacobianPoint<F> r = add_mixed_generic(p, q, &c);
  return c.same_point ? dbl(p) : r;
}

// (X/Z^2, Y/Z^3); the point at infinity gives (0, 0), callers check first.
template <class F>
KS_HD AffinePoint<F> to_affine(const JacobianPoint<F>& p) {
  const auto zinv = F::inv(p.z);
  const auto zinv2 = F::sqr(zinv);
  return {F::mul(p.x, zinv2), F::mul(p.y, F::mul(zinv2, zinv))};
}

// y^2 == x^3 - 3x + b, as a mask.
template <class F>
KS_HD uint64_t on_curve(const AffinePoint<F>& a, const typename F::Elem& b) {
  const auto x2_minus_3 = F::sub(F::sqr(a.x), F::add(F::dbl(F::one()), F::one()));
  const auto rhs = F::add(F::mul(x2_minus_3, a.x), b);
  return F::eq(F::sqr(a.y), rhs);
}

}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_JACOBIAN_H_
