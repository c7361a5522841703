// Point formulas for short Weierstrass curves with a = -3 (SM2's
// sm2p256v1, GM/T 0003.5), written once over a field policy F (see
// field/fp.h for the interface: Elem, zero/one, add/sub/neg/dbl, mul/sqr,
// is_zero/eq -> all-ones mask, select(mask, a, b)). Every function is KS_HD
// so that the CUDA field type reuses exactly these formulas.
//
// Jacobian coordinates (X, Y, Z) stand for (X/Z^2, Y/Z^3); Z = 0 is the point
// at infinity. Formulas from the Explicit-Formulas Database (EFD),
// g1p/auto-shortw-jacobian-3: dbl-2001-b (in ecp_nistz256's arrangement),
// add-1998-cmo-2, madd-2004-hmv.
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

// 2P for a = -3 (dbl-2001-b's 3X^2 + aZ^4 = 3(X-Z^2)(X+Z^2)), arranged as
// OpenSSL's ecp_nistz256 doubling: with S = (2Y)^2 = 4Y^2,
//   M = 3(X - Z^2)(X + Z^2), X3 = M^2 - 2XS, Y3 = M(XS - X3) - S^2/2,
//   Z3 = 2Y Z,
// 4M + 4S and ten additions/halvings (the EFD form takes fourteen: 2Y is
// formed once and feeds both S and Z3, and 8Y^4 = S^2/2 is one halving).
// The products on the critical path (Z^2, then M, M^2, Y3) come first in
// each group so that the independent ones fill in behind them: 10% faster
// on the EPYC than the EFD order. Infinity maps to infinity (Z3 = 0).
// kSquareZ = true forms Z3 = ((2Y + Z)^2 - S - Z^2)/2 instead (3M + 5S),
// for fields whose squares are cheaper than products (the GPU's); same
// coordinates either way.
template <class F, bool kSquareZ = false>
KS_HD JacobianPoint<F> dbl(const JacobianPoint<F>& p) {
  const auto zz = F::sqr(p.z);
  const auto y2 = F::dbl(p.y);
  const auto s = F::sqr(y2);  // 4Y^2
  JacobianPoint<F> r;
  if constexpr (kSquareZ)
    r.z = F::half(F::sub(F::sub(F::sqr(F::add(y2, p.z)), s), zz));
  else
    r.z = F::mul(y2, p.z);
  const auto x_plus = F::add(p.x, zz);
  const auto x_minus = F::sub(p.x, zz);
  const auto y4_8 = F::half(F::sqr(s));  // 8Y^4
  const auto t = F::mul(x_plus, x_minus);
  const auto m = F::add(F::dbl(t), t);
  const auto xs = F::mul(p.x, s);  // 4XY^2
  r.x = F::sub(F::sqr(m), F::dbl(xs));
  r.y = F::sub(F::mul(m, F::sub(xs, r.x)), y4_8);
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

// The sum's X and Y from H = U2 - U1, R = S2 - S1 and U1, S1 (shared by
// both additions below): X3 = R^2 - H^3 - 2 U1 H^2, Y3 = R (U1 H^2 - X3) -
// S1 H^3, and the masks for the cases the formulas cannot take.
template <class F>
KS_HD void add_finish(JacobianPoint<F>& out, const typename F::Elem& h, const typename F::Elem& r,
                      const typename F::Elem& u1, const typename F::Elem& s1, AddCase* c) {
  const auto hh = F::sqr(h);
  const auto rr = F::sqr(r);
  const auto hhh = F::mul(hh, h);
  const auto v = F::mul(u1, hh);
  c->same_x = F::is_zero(h);
  c->same_point = c->same_x & F::is_zero(r);
  out.x = F::sub(F::sub(rr, hhh), F::dbl(v));
  out.y = F::sub(F::mul(r, F::sub(v, out.x)), F::mul(s1, hhh));
}

// P + Q for P, Q finite and P != Q: add-1998-cmo-2 (12M + 4S, of which the
// 1M + 1S of Q's Z powers are precomputed in c). As many products as
// add-2007-bl (one of its squares becomes a product) but seven additions
// instead of thirteen: 15% faster on the EPYC, where a square costs what a
// product does.
template <class F>
KS_HD JacobianPoint<F> add_generic(const JacobianPoint<F>& p, const CachedJacobian<F>& cq,
                                   AddCase* c) {
  const JacobianPoint<F>& q = cq.q;
  const auto z1z1 = F::sqr(p.z);
  const auto u1 = F::mul(p.x, cq.zz);
  const auto s1 = F::mul(p.y, cq.zzz);
  const auto z1z1z1 = F::mul(z1z1, p.z);
  const auto u2 = F::mul(q.x, z1z1);
  const auto s2 = F::mul(q.y, z1z1z1);
  JacobianPoint<F> out;
  const auto h = F::sub(u2, u1);
  out.z = F::mul(F::mul(p.z, q.z), h);
  add_finish(out, h, F::sub(s2, s1), u1, s1, c);
  return out;
}

// P + Q with Q affine, P finite, P != Q: madd-2004-hmv (8M + 3S; seven
// additions against madd-2007-bl's fourteen, 24% faster on the EPYC).
template <class F>
KS_HD JacobianPoint<F> add_mixed_generic(const JacobianPoint<F>& p, const AffinePoint<F>& q,
                                         AddCase* c) {
  const auto z1z1 = F::sqr(p.z);
  const auto z1z1z1 = F::mul(z1z1, p.z);
  const auto u2 = F::mul(q.x, z1z1);
  const auto s2 = F::mul(q.y, z1z1z1);
  JacobianPoint<F> out;
  const auto h = F::sub(u2, p.x);
  out.z = F::mul(p.z, h);
  add_finish(out, h, F::sub(s2, p.y), p.x, p.y, c);
  return out;
}

// P + Q in constant time, infinity on either side handled by selects.
// P == Q is NOT handled (the formulas then give infinity): the windowed
// multiplications prove where it cannot happen and take add_or_dbl where
// it can (see sm2/sm2_curve.cc); checking every time would cost a doubling
// per addition.
template <class F>
KS_HD JacobianPoint<F> add(const JacobianPoint<F>& p, const JacobianPoint<F>& q) {
  AddCase c;
  JacobianPoint<F> r = add_generic(p, with_z_powers(q), &c);
  r = select(p.is_infinity(), q, r);
  return select(q.is_infinity(), p, r);
}

// P + Q in constant time for every P and Q: add() with 2P selected where
// P == Q (both finite). One doubling more than add().
template <class F>
KS_HD JacobianPoint<F> add_or_dbl(const JacobianPoint<F>& p, const JacobianPoint<F>& q) {
  AddCase c;
  JacobianPoint<F> r = add_generic(p, with_z_powers(q), &c);
  r = select(c.same_point & ~p.is_infinity() & ~q.is_infinity(), dbl(p), r);
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
