// Point formulas for the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2
// (a = -1: Edwards25519, RFC 8032 5.1), written once over a field policy F
// (field/policy.h) so that the CPU fields, the 8-lane IFMA field and the
// GPU fields use exactly these formulas. All KS_HD.
//
// The representations are those of Hisil, Wong, Carter and Dawson,
// "Twisted Edwards Curves Revisited" (2008), arranged as in Bernstein et
// al.'s ref10:
//   Projective (X:Y:Z)         x = X/Z, y = Y/Z                 (doublings)
//   Extended   (X:Y:Z:T)       ... and T = XY/Z                 (additions)
//   Completed  ((X:Z),(Y:T))   x = X/Z, y = Y/T                 (results)
//   Cached     (Y+X, Y-X, Z, 2dT)  an addend, prepared once
//   Niels      (y+x, y-x, 2dxy)    an affine addend (Z = 1): precomputed tables
// A doubling or an addition gives a Completed point; turning it into
// Projective costs 3M, into Extended 4M. So a doubling is 4S (+3M), an
// addition of a Cached point 4M (+4M), of a Niels point 3M (+4M). The
// formulas are complete on Edwards25519 (d is not a square): no input,
// the identity and points of small order included, needs a special case,
// which is what makes them constant time.
#ifndef KS_CURVE_EDWARDS_H_
#define KS_CURVE_EDWARDS_H_

#include "core/hd.h"

namespace ks {
namespace curve {
namespace ed {

template <class F>
struct Projective {
  typename F::Elem x, y, z;
};

template <class F>
struct Extended {
  typename F::Elem x, y, z, t;

  KS_HD static Extended identity() { return {F::zero(), F::one(), F::one(), F::zero()}; }
  KS_HD Projective<F> projective() const { return {x, y, z}; }
};

template <class F>
struct Completed {
  typename F::Elem x, y, z, t;

  KS_HD Projective<F> projective() const { return {F::mul(x, t), F::mul(y, z), F::mul(z, t)}; }
  KS_HD Extended<F> extended() const {
    return {F::mul(x, t), F::mul(y, z), F::mul(z, t), F::mul(x, y)};
  }
};

template <class F>
struct Cached {
  typename F::Elem y_plus_x, y_minus_x, z, t2d;
};

template <class F>
struct Niels {
  typename F::Elem y_plus_x, y_minus_x, xy2d;

  // The identity as an addend (y = 1, x = 0): what a table lookup of the
  // digit 0 returns.
  KS_HD static Niels identity() { return {F::one(), F::one(), F::zero()}; }
};

// An extended point prepared as an addend; d2 is 2d in F's representation.
template <class F>
KS_HD Cached<F> cached(const Extended<F>& p, const typename F::Elem& d2) {
  return {F::add(p.y, p.x), F::sub(p.y, p.x), p.z, F::mul(p.t, d2)};
}

// 2P (dbl-2008-hwcd, a = -1): XX = X^2, YY = Y^2, B = 2Z^2,
// X3 = (X+Y)^2 - YY - XX, Y3 = YY + XX, Z3 = YY - XX, T3 = B - Z3. 4S.
template <class F>
KS_HD Completed<F> dbl(const Projective<F>& p) {
  const auto xx = F::sqr(p.x);
  const auto yy = F::sqr(p.y);
  const auto b = F::dbl(F::sqr(p.z));
  const auto aa = F::sqr(F::add(p.x, p.y));
  Completed<F> r;
  r.y = F::add(yy, xx);
  r.z = F::sub(yy, xx);
  r.x = F::sub(aa, r.y);
  r.t = F::sub(b, r.z);
  return r;
}

// P + Q for Q cached (add-2008-hwcd-3): A = (Y1+X1)(Y2+X2),
// B = (Y1-X1)(Y2-X2), C = T1 2dT2, D = 2 Z1 Z2; (A - B, A + B, D + C, D - C).
// P - Q swaps the roles of Y2+X2 and Y2-X2 and the sign of C
// (-Q = (-X2, Y2, Z2, -T2)). 4M.
template <class F>
KS_HD Completed<F> add(const Extended<F>& p, const Cached<F>& q) {
  const auto a = F::mul(F::add(p.y, p.x), q.y_plus_x);
  const auto b = F::mul(F::sub(p.y, p.x), q.y_minus_x);
  const auto c = F::mul(p.t, q.t2d);
  const auto d = F::dbl(F::mul(p.z, q.z));
  return {F::sub(a, b), F::add(a, b), F::add(d, c), F::sub(d, c)};
}

template <class F>
KS_HD Completed<F> sub(const Extended<F>& p, const Cached<F>& q) {
  const auto a = F::mul(F::add(p.y, p.x), q.y_minus_x);
  const auto b = F::mul(F::sub(p.y, p.x), q.y_plus_x);
  const auto c = F::mul(p.t, q.t2d);
  const auto d = F::dbl(F::mul(p.z, q.z));
  return {F::sub(a, b), F::add(a, b), F::sub(d, c), F::add(d, c)};
}

// P + Q for an affine Q (madd-2008-hwcd-3 with Z2 = 1): 3M.
template <class F>
KS_HD Completed<F> add(const Extended<F>& p, const Niels<F>& q) {
  const auto a = F::mul(F::add(p.y, p.x), q.y_plus_x);
  const auto b = F::mul(F::sub(p.y, p.x), q.y_minus_x);
  const auto c = F::mul(p.t, q.xy2d);
  const auto d = F::dbl(p.z);
  return {F::sub(a, b), F::add(a, b), F::add(d, c), F::sub(d, c)};
}

template <class F>
KS_HD Completed<F> sub(const Extended<F>& p, const Niels<F>& q) {
  const auto a = F::mul(F::add(p.y, p.x), q.y_minus_x);
  const auto b = F::mul(F::sub(p.y, p.x), q.y_plus_x);
  const auto c = F::mul(p.t, q.xy2d);
  const auto d = F::dbl(p.z);
  return {F::sub(a, b), F::add(a, b), F::sub(d, c), F::add(d, c)};
}

// -Q when mask is all ones, Q otherwise, in constant time: -(x, y) = (-x,
// y) swaps y+x with y-x and negates the 2dxy term.
template <class F, class Mask>
KS_HD Niels<F> negate_if(Mask mask, const Niels<F>& q) {
  return {F::select(mask, q.y_minus_x, q.y_plus_x), F::select(mask, q.y_plus_x, q.y_minus_x),
          F::select(mask, F::neg(q.xy2d), q.xy2d)};
}

template <class F, class Mask>
KS_HD Niels<F> select(Mask mask, const Niels<F>& a, const Niels<F>& b) {
  return {F::select(mask, a.y_plus_x, b.y_plus_x), F::select(mask, a.y_minus_x, b.y_minus_x),
          F::select(mask, a.xy2d, b.xy2d)};
}

// The same for Cached addends (lane fields pick per-lane entries of
// per-lane tables this way): -Q swaps Y+X with Y-X and negates 2dT.
template <class F, class Mask>
KS_HD Cached<F> negate_if(Mask mask, const Cached<F>& q) {
  return {F::select(mask, q.y_minus_x, q.y_plus_x), F::select(mask, q.y_plus_x, q.y_minus_x), q.z,
          F::select(mask, F::neg(q.t2d), q.t2d)};
}

template <class F, class Mask>
KS_HD Cached<F> select(Mask mask, const Cached<F>& a, const Cached<F>& b) {
  return {F::select(mask, a.y_plus_x, b.y_plus_x), F::select(mask, a.y_minus_x, b.y_minus_x),
          F::select(mask, a.z, b.z), F::select(mask, a.t2d, b.t2d)};
}

template <class F, class Mask>
KS_HD Extended<F> select(Mask mask, const Extended<F>& a, const Extended<F>& b) {
  return {F::select(mask, a.x, b.x), F::select(mask, a.y, b.y), F::select(mask, a.z, b.z),
          F::select(mask, a.t, b.t)};
}

// The same point over another field type with the same elements (the
// CPU's portable and MULX/ADX fields share theirs): tables built once
// serve every field type of that representation.
template <class G, class F>
KS_HD Niels<G> rebind(const Niels<F>& p) {
  return {p.y_plus_x, p.y_minus_x, p.xy2d};
}
template <class G, class F>
KS_HD Extended<G> rebind(const Extended<F>& p) {
  return {p.x, p.y, p.z, p.t};
}

// [8]P, the cofactor multiple: three doublings.
template <class F>
KS_HD Extended<F> mul_by_cofactor(const Extended<F>& p) {
  const Projective<F> p2 = dbl(p.projective()).projective();
  const Projective<F> p4 = dbl(p2).projective();
  return dbl(p4).extended();
}

// All ones if P is the identity (X = 0 and Y = Z: T = XY/Z is then 0).
template <class F>
KS_HD auto is_identity(const Extended<F>& p) -> decltype(F::is_zero(p.x)) {
  return F::is_zero(p.x) & F::eq(p.y, p.z);
}

// All ones if P and Q are the same point: X1 Z2 = X2 Z1 and Y1 Z2 = Y2 Z1.
template <class F>
KS_HD auto equal(const Extended<F>& p, const Extended<F>& q) -> decltype(F::is_zero(p.x)) {
  return F::eq(F::mul(p.x, q.z), F::mul(q.x, p.z)) & F::eq(F::mul(p.y, q.z), F::mul(q.y, p.z));
}

}  // namespace ed
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_EDWARDS_H_
