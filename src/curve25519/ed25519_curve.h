// Edwards25519 and Curve25519 on the CPU: the scalar multiplications of
// Ed25519 (RFC 8032) and X25519 (RFC 7748), point encodings, and the
// cofactored verification equation. The formulas are curve/edwards.h and
// curve/montgomery_ladder.h; this file picks the field at run time (MULX/ADX
// products where the CPU has them, portable ones otherwise: the same
// elements either way) and holds the build-time tables of B.
#ifndef KS_CURVE_ED25519_CURVE_H_
#define KS_CURVE_ED25519_CURVE_H_

#include <stdint.h>

#include <vector>

#include "curve25519/ed25519_params.h"
#include "curve/edwards.h"
#include "field/fe25519.h"

namespace ks {
namespace curve {
namespace ed25519 {

using field::Fe25519;
using Point = ed::Extended<Fe25519>;

// --- Constant time (secret scalars) ---------------------------------------

// [k]B for k < 2^255: a signed-window comb over the build-time table of B
// (no doublings), each entry found by a full scan of its sub-table.
Point mul_base(const U256& k);

// The 32-byte encoding of a point (RFC 8032 5.1.2): y with the sign of x in
// bit 255. One inversion.
void encode(uint8_t out[32], const Point& p);

// The X25519 function (RFC 7748 5): the u-coordinate of [k]u, k the clamped
// scalar as an integer below 2^255, u already reduced to 255 bits; the
// canonical result (0 when u has small order).
U256 x25519(const U256& k, const U256& u);
// [k] of the Curve25519 base point u = 9, through the Edwards comb (B and
// u = 9 are the same point, RFC 7748 4.1): u = (1 + y) / (1 - y).
U256 x25519_base(const U256& k);

// --- Variable time (public inputs: verification) --------------------------

// Decodes 32 bytes (RFC 8032 5.1.3): false if y >= p (non-canonical), if
// x^2 = (y^2 - 1) / (d y^2 + 1) has no root, or if x = 0 with the sign bit
// set (the other non-canonical encoding).
bool decode(Point& out, const uint8_t in[32]);

// Whether [8]P is the identity (P has order 1, 2, 4 or 8).
bool has_small_order(const Point& p);

// The cofactored verification equation of RFC 8032 5.1.7 step 3:
// [8][S]B = [8]R + [8][k]A, checked as [8]([S]B - [k]A - R) = identity,
// in its half-size form (field/sc25519_lattice.h): one chain of 128
// doublings for four 128-bit scalars.
bool verify_equation(const U256& s, const U256& k, const Point& a, const Point& r);

// mul_base's build-time table: kCombWindows rows (curve25519/ed25519_tables_layout.h)
// of kCombEntries affine addends, row w holding (j + 1) 2^(kCombBits w) B
// at j; canonical values. The GPU copies it (curve25519/gpu/curve25519_gpu_tables.cu).
const ed::Niels<Fe25519>* comb_table();

// The rows of a fixed-base comb of `bits`-bit signed windows (Booth
// digits, 2 <= bits <= 16): ceil(256 / bits) rows of 2^(bits - 1) entries,
// row w holding (j + 1) 2^(bits w) B at j, 12 words an entry (comb_table's
// layout). Built at run time for shapes other than mul_base's: the GPU's
// signing comb (6 bits, milliseconds) and its wide table (16 bits, 48 MiB,
// rows built on all cores; curve25519/gpu/curve25519_gpu_fixed_base.cuh).
std::vector<uint64_t> comb_words(int bits);

// Affine coordinates as canonical values (tests, table generation).
void to_affine(U256* x, U256* y, const Point& p);
Point from_affine(const U256& x, const U256& y);

}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_CURVE_H_
