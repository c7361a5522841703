// SM2 curve operations on the CPU: scalar multiplications and point
// encodings (GB/T 32918.1 clause 4.2.8-4.2.10). Scalars are plain 256-bit
// integers (field/fn.h), reduced below n by the caller.
#ifndef KS_CURVE_SM2_CURVE_H_
#define KS_CURVE_SM2_CURVE_H_

#include <stddef.h>
#include <stdint.h>

#include <memory>

#include "sm2/sm2_params.h"

namespace ks {
namespace curve {

// [k]G in constant time: comb over the build-time table, every sub-table
// scanned in full. k in [0, n-1] (0 gives infinity).
Jacobian mul_base(const U256& k);
// affine_of(mul_base(k)), without the conversions between them: keygen's
// public key and signing's x1.
Affine mul_base_affine(const U256& k);

// [k]P in constant time in k: signed 5-bit fixed window, table of
// 1P..16P chosen by a full scan. P must be on the curve; k in [0, n-1].
Jacobian mul_point(const U256& k, const Affine& p);

// [s]G + [t]P in variable time (public inputs only: verification), one
// doubling chain for both: t by width-5 wNAF, s by width-12 wNAF over the
// build-time odd multiples of G.
Jacobian mul_base_add_point_vartime(const U256& s, const U256& t, const Affine& p);

// The comb table of a fixed public point P, G's layout (sm2_params.h):
// [k]P then costs what [k]G does, and [s]G + [t]P needs no doubling. 148
// KiB (kPointTableBytes), built in about a millisecond; for a key used many
// times (one recipient, one signer's key checked millions of times).
struct PointTable;
constexpr size_t kPointTableBytes = size_t(kCombWindows) * kCombEntries * sizeof(Affine);
struct PointTableDeleter {
  void operator()(PointTable* t) const;
};
using PointTablePtr = std::unique_ptr<PointTable, PointTableDeleter>;
// nullptr when memory is short. p must be on the curve.
PointTablePtr make_point_table(const Affine& p);
// [k]P from P's table in constant time (the comb of mul_base, every
// sub-table scanned in full); k in [0, n-1].
Affine mul_table_affine(const PointTable& table, const U256& k);
// [s]G + [t]P in variable time (public inputs only: verification under
// one key): both combs, 74 mixed additions at most and no doubling.
Jacobian mul_base_add_table_vartime(const U256& s, const U256& t, const PointTable& table);

// Window i of the table in plain coordinates (the IFMA lanes convert it
// to their own form, sm2_curve_mb.h).
void point_table_window(const PointTable& table, int i, Affine out[kCombEntries]);

// Affine form in constant time (the field inversion of [ZHU22 table 4]);
// the point at infinity gives (0, 0).
Affine affine_of(const Jacobian& p);
// Affine form of a finite point; false (and out untouched) for infinity.
bool to_affine_checked(Affine& out, const Jacobian& p);

// Affine point check: coordinates below p (by construction of Fp elements)
// and y^2 = x^3 - 3x + b.
bool is_on_curve(const Affine& p);

// Public key encodings: 04||x||y (65 bytes), x||y (64), 02/03||x (33,
// decompressed with the square root mod p). Rejects non-canonical
// coordinates (>= p) and points off the curve. The point at infinity has no
// encoding here and is never returned.
bool decode_point(Affine& out, const uint8_t* in, size_t len);
void encode_point_uncompressed(uint8_t out[65], const Affine& p);
// x || y (64 bytes): what SM2 encryption and key exchange hash.
void encode_point_xy(uint8_t out[64], const Affine& p);
void encode_point_compressed(uint8_t out[33], const Affine& p);

}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_SM2_CURVE_H_
