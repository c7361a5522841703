// Eight Edwards25519 / Curve25519 scalar multiplications at once in AVX-512
// IFMA lanes: the field of field/fe25519_ifma_simd.h, the formulas of
// curve/edwards.h and curve/montgomery_ladder.h instantiated for it, the
// build-time tables of curve25519/ed25519_curve.h re-laid out for lanes. The
// batch counterparts of the scalar operations of curve25519/ed25519_curve.h,
// with the same answers on every input. Plain types in and out; no
// intrinsics in this header. Every function but available() requires
// available(); every one reads and writes all eight lanes (callers fill
// idle lanes with dummies, e.g. copies of lane 0).
#ifndef KS_CURVE_ED25519_MB_H_
#define KS_CURVE_ED25519_MB_H_

#include <stdint.h>

#include "curve25519/ed25519_curve.h"

namespace ks {
namespace curve {
namespace ed25519 {
namespace mb {

constexpr int kLanes = 8;

// True when the lanes can run: the CPU has AVX-512 F, VL, BW and IFMA, and
// KS_CPU_FEATURES does not mask them (core/cpu_features.h).
bool available();

// --- Constant time (secret scalars) ---------------------------------------

// Each function below takes kLanes * groups items, groups in [1,
// kMaxGroups]: the lanes run group after group, and one inversion serves
// all the groups (Montgomery's trick, field/batch_invert.h: the ~265
// products of an inversion per group become 3 and a share of one).
constexpr int kMaxGroups = 8;

// out[i] = encode(mul_base(k[i])) for k[i] < 2^255 (RFC 8032 5.1.2: y with
// the sign of x in bit 255): the signed-window comb of mul_base over the
// build-time table of B, every lane's entry picked from its whole window by
// permutations, then the inversion of Z.
// With `points` not null, the points themselves too (affine: Z = 1).
void mul_base_encode_x8(uint8_t out[][32], const U256 k[], Point* points = nullptr,
                        int groups = 1);
// out[i] = x25519(k[i], u[i]) (RFC 7748 5: bits 254..0 of k[i], u[i] below
// 2^255, not necessarily canonical): the Montgomery ladder in lanes, then
// x2 / z2; canonical results, 0 where u[i] has small order.
void x25519_x8(U256 out[], const U256 k[], const U256 u[], int groups = 1);
// out[i] = x25519_base(k[i]) for k[i] < 2^255: the comb, then u = (Z + Y) /
// (Z - Y) (RFC 7748 4.1; 0 for the identity).
void x25519_base_x8(U256 out[], const U256 k[], int groups = 1);

// --- Variable time (public inputs: verification) --------------------------

// decode() and has_small_order() of curve25519/ed25519_curve.h in lanes: bit i
// set where in[i] is a canonical encoding of a point of large order (the
// rules verification applies to A and R), out[i] that point; masked by
// the bitmap `lanes`. One lane-wise exponentiation for the eight square
// roots.
unsigned decode_large_order_x8(Point out[kLanes], const uint8_t in[kLanes][32], unsigned lanes);

// The cofactored equation of verify_equation in lanes: bit i set where
// [8]([s[i]]B - [k[i]]A[i] - R[i]) is the identity, for any s[i], k[i] below
// 2^256 and points A[i], R[i] on the curve (what decode gives), masked by
// the bitmap `lanes` of the lanes in use (bit i = lane i). The equation
// multiplied through by the z of field::half_size_equation (half-size
// scalars w, z below 2^127; field/sc25519_lattice.h): [z s mod L]B,
// [w]A and [z]R in one chain of 128 doublings shared by the lanes.
unsigned verify_equation_x8(const U256 s[kLanes], const U256 k[kLanes], const Point a[kLanes],
                            const Point r[kLanes], unsigned lanes);

}  // namespace mb
}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_MB_H_
