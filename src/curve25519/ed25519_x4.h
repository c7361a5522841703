// Single Edwards25519 / Curve25519 operations in four AVX-512 IFMA lanes of
// ymm registers (field/fe25519_ifma_simd.h Fe25519x4): not four operations
// at once, as curve25519/ed25519_mb.h does in eight lanes, but one, its
// independent field multiplications side by side. One lane vector holds
// the four coordinates of a point (X, Y, Z, T), or the four values a step
// multiplies next, and the formulas are arranged so that each round of a
// point operation is one 4-lane product (the parallel formulas of Hisil,
// Wong, Carter and Dawson, "Twisted Edwards curves revisited", section 4):
//   - the X25519 ladder step (RFC 7748 5) in three rounds,
//     [AA, BB, DA, CB], [AA BB, 121666 E, (DA+CB)^2, (DA-CB)^2],
//     [E (BB + 121666 E), x1 (DA-CB)^2];
//   - the doubling (dbl-2008-hwcd, a = -1) in two, [XX, YY, ZZ, TZ], then
//     [E F, G H, F G, H E] (the signs of F and H flipped, which negates all
//     four coordinates: the same point);
//   - the addition of a prepared addend (add-2008-hwcd-3) in two,
//     [(Y1-X1)(Y2-X2), (Y1+X1)(Y2+X2), T1 2dT2, Z1 2Z2], then
//     [E F, G H, F G, E H].
// The same answers as the scalar operations of curve25519/ed25519_curve.h on
// every input; curve25519/ed25519_curve.cc calls these where the CPU has the
// lanes (available()) and they are faster. Plain types in and out, no
// intrinsics in this header.
#ifndef KS_CURVE_ED25519_X4_H_
#define KS_CURVE_ED25519_X4_H_

#include <stdint.h>

#include "curve25519/ed25519_curve.h"

namespace ks {
namespace curve {
namespace ed25519 {
namespace x4 {

// True when the lanes can run: the CPU has AVX2, AVX-512 F and VL, and
// IFMA, and KS_CPU_FEATURES does not mask them (core/cpu_features.h).
bool available();

// --- Constant time (secret scalars) ---------------------------------------

// mul_base(k) for k < 2^255: the signed-window comb over the build-time
// table of B (52 additions, each entry found by a full scan of its
// window), the additions in lanes.
Point mul_base(const U256& k);

// x25519(k, u): the Montgomery ladder, one step in three 4-lane products
// on loose values (one carry chain per product, before it is multiplied);
// the conditional swap is folded into the step's lane permutations (their
// index vector depends on the scalar bit; a permutation runs in the same
// time whatever its indices); the final x2 / z2 on the scalar field
// (scalar::divide: one inversion is a chain of dependent products, which
// the MULX/ADX field runs with less latency than one lane of four).
// Canonical result, 0 for u of small order.
U256 x25519(const U256& k, const U256& u);


// --- Variable time (public inputs: verification) --------------------------

// decode(out, in) and has_small_order(p) of curve25519/ed25519_curve.h: the
// same rules, the square root's exponentiation and the doublings in lanes.
// decode gives canonical coordinates (Z = 1).
bool decode(Point& out, const uint8_t in[32]);
bool has_small_order(const Point& p);

// verify_equation(s, k, a, r): [8]([s]B - [k]A - R) is the identity,
// through the half-size scalars of field/sc25519_lattice.h as the scalar
// code: width-8 NAFs of the halves of z s mod L over the odd multiples of
// B and 2^128 B, width-5 NAFs of w and z over those of A and R, one chain
// of 128 doublings.
bool verify_equation(const U256& s, const U256& k, const Point& a, const Point& r);

}  // namespace x4

// The scalar-field paths (MULX/ADX where the CPU has it, portable
// otherwise) of the operations above, whatever the CPU: what
// curve25519/ed25519_curve.h runs where the lanes are unavailable, the oracle of
// tests/cpp/curve25519/test_ed25519_x4.cc and the baseline of
// tools/ed25519_x4_micro.cc. Defined in curve25519/ed25519_curve.cc.
namespace scalar {
// x / z, canonical (0 where z = 0), in constant time.
U256 divide(const U256& x, const U256& z);
Point mul_base(const U256& k);
U256 x25519(const U256& k, const U256& u);
U256 x25519_base(const U256& k);
void encode(uint8_t out[32], const Point& p);
bool decode(Point& out, const uint8_t in[32]);
bool has_small_order(const Point& p);
bool verify_equation(const U256& s, const U256& k, const Point& a, const Point& r);
}  // namespace scalar
}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_X4_H_
