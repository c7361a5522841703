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
// Variable time: verification's inputs are public. Written once for the CPU
// (curve25519/ed25519_curve.cc, the lane batches) and the GPU verifier
// (curve25519/ed25519_verify_one.h): KS_HD, u128 arithmetic, no host-only
// helper.
#ifndef KS_FIELD_SC25519_LATTICE_H_
#define KS_FIELD_SC25519_LATTICE_H_

#include <stdint.h>

#include "core/hd.h"
#include "field/mont_cios.h"
#include "field/sc25519_wide.h"
#include "field/u256.h"

namespace ks {
namespace field {

struct HalfScalars {
  u128 z;           // 0 < z < 2^126
  u128 w;           // |w| < 2^127
  bool w_negative;  // the sign of w
};

// The scalars of the half-size equation for any s, k below 2^256 (mod L: B
// has order L, and [8] kills the multiple of [L]A that k mod L drops):
// half_scalars(k) and z s mod L.
struct HalfSizeEquation {
  U256 s;  // z s mod L, the scalar of B
  HalfScalars h;
};

namespace lattice_detail {

KS_HD int clz64(uint64_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

KS_HD int bit_length(const U256& a) {
  for (int i = 3; i >= 0; --i)
    if (a.w[i] != 0) return 64 * i + 64 - clz64(a.w[i]);
  return 0;
}

KS_HD U256 shift_left(const U256& a, int s) {  // s < 256, no bits lost here
  U256 r{{0, 0, 0, 0}};
  const int words = s / 64, bits = s % 64;
  for (int i = 3; i >= words; --i) {
    r.w[i] = a.w[i - words] << bits;
    if (bits != 0 && i - words - 1 >= 0) r.w[i] |= a.w[i - words - 1] >> (64 - bits);
  }
  return r;
}

// r = a - b mod 2^256 (u128 borrows: the x86 carry intrinsics of u256.h are
// host-only).
KS_HD void sub(U256& r, const U256& a, const U256& b) {
  uint64_t borrow = 0;
KS_UNROLL
  for (int i = 0; i < 4; ++i) {
    const u128 d = u128(a.w[i]) - b.w[i] - borrow;
    r.w[i] = uint64_t(d);
    borrow = uint64_t(d >> 64) & 1;
  }
}

// a mod b and the quotient, by binary long division (any quotient).
KS_HD u128 divide_binary(U256& a, const U256& b) {
  u128 q = 0;
  for (int s = bit_length(a) - bit_length(b); s >= 0; --s) {
    const U256 bs = shift_left(b, s);
    if (!less_vartime(a, bs)) {
      sub(a, a, bs);
      q |= u128(1) << s;
    }
  }
  return q;
}

// The 64 bits of a from bit s up (s >= 0, a below 2^(s + 64)).
KS_HD uint64_t bits_from(const U256& a, int s) {
  const int word = s / 64, bit = s % 64;
  uint64_t r = a.w[word] >> bit;
  if (bit != 0 && word < 3) r |= a.w[word + 1] << (64 - bit);
  return r;
}

// m a mod 2^256.
KS_HD U256 mul_small(const U256& a, uint64_t m) {
  U256 r;
  u128 carry = 0;
  KS_UNROLL for (int i = 0; i < 4; ++i) {
    const u128 p = u128(a.w[i]) * m + carry;
    r.w[i] = uint64_t(p);
    carry = p >> 64;
  }
  return r;
}

// a mod b and the quotient, for b >= 2^127 (so a's top 64 bits reach b's
// top bits): when the quotient has at most 31 bits (all but a 2^-30
// fraction of the steps), the top 64 bits of a over those of b plus one
// underestimate it by at most about q / 2^32, and a few subtractions
// finish; otherwise binary long division.
KS_HD u128 divide(U256& a, const U256& b) {
  const int la = bit_length(a), d = la - bit_length(b);
  if (d < 0) return 0;
  if (d > 30) return divide_binary(a, b);
  const int s = la - 64;  // la >= 128
  uint64_t q = bits_from(a, s) / ((b.w[3] == 0 && s >= 192 ? 0 : bits_from(b, s)) + 1);
  sub(a, a, mul_small(b, q));
  while (!less_vartime(a, b)) {
    sub(a, a, b);
    ++q;
  }
  return q;
}

// The state of the extended Euclidean algorithm on (L, k): remainders
// r0 > r1 and cofactors with r_i = t_i k (mod L). The t_i alternate in sign
// and stay below 2^126 in magnitude until the loop stops (the bound at the
// top of this file), so they are kept in two's complement u128, where the
// wrap-around arithmetic is exact; the r_i likewise mod 2^256.
struct Euclid {
  U256 r0, r1;
  u128 t0, t1;

  // One step at full precision.
  KS_HD void step() {
    const u128 q = divide(r0, r1);  // r0 <- r0 mod r1
    const u128 t = t0 - q * t1;
    const U256 r = r0;
    r0 = r1;
    r1 = r;
    t0 = t1;
    t1 = t;
  }
};

// Lehmer's method (Knuth, TAOCP vol. 2, 4.5.2, Algorithm L; the exit
// condition is Jebelean's, "Improving the multiprecision Euclidean
// algorithm", DISCO 1993, in a slightly weaker symmetric form): Euclid's
// steps run on a = r0 >> s and b = r1 >> s in single precision, a_0 = a,
// a_1 = b, a_(i+1) = a_(i-1) - q_i a_i, while the cofactors
// a_i = u_i a + v_i b, whose signs alternate (u_i of sign (-1)^i, v_i the
// opposite, |u_i| <= |v_i| for i >= 1), prove that the quotients are those
// of the full numbers. With r0 = a 2^s + alpha, r1 = b 2^s + beta
// (0 <= alpha, beta < 2^s), the full remainders would be
// R_i = a_i 2^s + u_i alpha + v_i beta, the error term (i >= 1) strictly
// between -|v_i| 2^s and |v_i| 2^s. So q_i is exact (0 <= R_(i+1) < R_i) when
//   a_(i+1) >= |v_(i+1)|  and  a_i - a_(i+1) >= |v_(i+1)| + |v_i|.
// The simulation must also stop exactly at the first remainder below 2^127,
// which is 2^127 / 2^s = `stop` in units of 2^s (s < 127; stop = 0 stands
// for less than one unit): a_(i+1) - |v_(i+1)| >= max(stop, 1) proves
// R_(i+1) >= 2^127 (go on), a_(i+1) + |v_(i+1)| <= stop proves
// R_(i+1) < 2^127 (take the step, and it is the last); in between, or for
// an unproven quotient, the caller takes one step at full precision. The
// magnitudes are below 2^64: a_i |v_(i+1)| + a_(i+1) |v_i| = a_0; so is
// |v_i| + |v_(i+1)| once a_(i+1) >= |v_(i+1)|: |v_i| <= a_i (v_1 = 1, then
// the step before), so both are below a_i if a_i <= 2^63, and 1 or less
// (below a_0 / a_i) otherwise.
struct Lehmer {
  uint64_t u0, v0, u1, v1;  // |u_i|, |v_i|, |u_(i+1)|, |v_(i+1)|
  int steps;                // i

  KS_HD Lehmer(uint64_t a0, uint64_t a1, uint64_t stop) {
    const uint64_t go_on = stop > 1 ? stop : 1;
    uint64_t x0 = 1, y0 = 0, x1 = 0, y1 = 1;  // in registers while it runs
    int i = 0;
    // One step: (older, newer) <- (newer, next) written over the older
    // values (unrolled by two so that no value moves between registers).
    const auto step = [&](uint64_t& ao, uint64_t an, uint64_t& xo, uint64_t xn, uint64_t& yo,
                          uint64_t yn) {
      if (an == 0) return false;
      const uint64_t q = ao / an, a2 = ao % an;
      const uint64_t x2 = xo + q * xn, y2 = yo + q * yn;
      if (a2 < y2 || an - a2 < yn + y2) return false;  // q unproven
      const bool go = a2 - y2 >= go_on;
      if (!go && (a2 > stop || y2 > stop - a2)) return false;  // too close to the stop
      ao = a2, xo = x2, yo = y2;
      ++i;
      return go;
    };
    while (step(a0, a1, x0, x1, y0, y1) && step(a1, a0, x1, x0, y1, y0)) {
    }
    if (i % 2 == 0) {
      u0 = x0, v0 = y0, u1 = x1, v1 = y1;
    } else {
      u0 = x1, v0 = y1, u1 = x0, v1 = y0;
    }
    steps = i;
  }

  // (x, y) <- (u_i x + v_i y, u_(i+1) x + v_(i+1) y) with the signs above,
  // for the remainders and for the cofactors: both results are known to be
  // exact in the wrap-around arithmetic.
  template <class T, class MulSub>
  KS_HD void apply(T& x, T& y, MulSub mul_sub) const {
    const T x0 = x;
    if (steps % 2 == 0) {
      x = mul_sub(u0, x0, v0, y);
      y = mul_sub(v1, y, u1, x0);
    } else {
      x = mul_sub(v0, y, u0, x0);
      y = mul_sub(u1, x0, v1, y);
    }
  }
  KS_HD void apply(Euclid& e) const {
    apply(e.r0, e.r1, [](uint64_t m, const U256& a, uint64_t n, const U256& b) {
      U256 r;
      sub(r, mul_small(a, m), mul_small(b, n));
      return r;
    });
    apply(e.t0, e.t1, [](uint64_t m, u128 a, uint64_t n, u128 b) { return m * a - n * b; });
  }
};

}  // namespace lattice_detail

// For any k < 2^256, taken mod L first (k = 0 gives (w, z) = (0, 1)).
// Lehmer's method: about five rounds of single-precision Euclid steps,
// each round's quotients proven exact (above), so (w, z) is exactly what
// the plain algorithm stopped at the first remainder below 2^127 gives.
KS_HD HalfScalars half_scalars(const U256& k) {
  using namespace lattice_detail;
  // (r0, t0) = (L, 0), (r1, t1) = (k mod L, 1); x mod L = (x R^2) / R / R
  // for any x < 2^256 (mont_cios.h's products take any first factor).
  const Sc25519Words c;
  const U256 l{{c.l[0], c.l[1], c.l[2], c.l[3]}};
  U256 k_mod_l = k;
  if (!less_vartime(k, l)) {
    const uint64_t one[4] = {1, 0, 0, 0};
    mont_mul_cios(k_mod_l.w, k.w, c.r2, c.l, c.kN0Inv);
    mont_mul_cios(k_mod_l.w, k_mod_l.w, one, c.l, c.kN0Inv);
  }
  Euclid e{l, k_mod_l, 0, 1};
  const U256 kBound{{0, uint64_t(1) << 63, 0, 0}};  // 2^127
  while (!less_vartime(e.r1, kBound)) {
    // r0 > r1 >= 2^127: s >= 64, and r0's top 64 bits start at bit s.
    const int s = bit_length(e.r0) - 64;
    const Lehmer m(bits_from(e.r0, s), bits_from(e.r1, s), s < 127 ? uint64_t(1) << (127 - s) : 0);
    if (m.steps > 0) {
      m.apply(e);
    } else {
      e.step();  // an unproven quotient (a large one), or too close to the stop
    }
  }
  const bool t_negative = (e.t1 >> 127) != 0;
  const u128 w = u128(e.r1.w[0]) | (u128(e.r1.w[1]) << 64);
  // z = |t1| > 0, w with t1's sign moved onto it.
  return HalfScalars{t_negative ? 0 - e.t1 : e.t1, w, t_negative && w != 0};
}

KS_HD HalfSizeEquation half_size_equation(const U256& s, const U256& k) {
  // z (s R mod L) / R = z s mod L (the product takes any s < 2^256 first).
  const HalfScalars h = half_scalars(k);
  const U256 z{{uint64_t(h.z), uint64_t(h.z >> 64), 0, 0}};
  HalfSizeEquation e{{{0, 0, 0, 0}}, h};
  uint64_t s_mont[4];
  sc25519_to_mont(s_mont, s.w);
  const Sc25519Words c;
  mont_mul_cios(e.s.w, z.w, s_mont, c.l, c.kN0Inv);
  return e;
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_SC25519_LATTICE_H_
