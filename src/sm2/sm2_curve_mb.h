// Eight SM2 point multiplications at once in AVX-512 IFMA lanes (the field
// of field/fp_ifma_simd.h, the formulas of curve/jacobian.h instantiated for
// it). Plain types in and out; no intrinsics in this header. Every function
// here requires cpu_features().avx512ifma (sm2/sm2_mb.cc checks it).
#ifndef KS_CURVE_SM2_MB_H_
#define KS_CURVE_SM2_MB_H_

#include <stdint.h>

#include <memory>

#include "sm2/sm2_curve.h"
#include "sm2/sm2_params.h"

namespace ks {
namespace curve {
namespace mb {

constexpr int kLanes = 8;

// out[i] = [k[i]]G in affine form for k[i] in [1, n-1] (k = 0 gives (0, 0)):
// the comb of sm2/sm2_curve.cc (Booth digits of 7 bits, 37 mixed
// additions) in lanes, every sub-table scanned in full for every lane, then
// a lane-wise Fermat inversion. Constant time in k.
void mul_base_x8(Affine out[kLanes], const U256 k[kLanes]);

// out[i] = [k[i]]P[i] in affine form (infinity, from k = 0, gives (0, 0)),
// k[i] in [0, n-1], P[i] on the curve: the signed 5-bit windows of
// sm2/sm2_curve.cc's mul_point over a per-lane table of 1P..16P, every
// entry scanned for every lane, then a lane-wise Fermat inversion.
// Constant time in k and in P (decryption's [d]C1, encryption's [k]P_B).
void mul_point_x8(Affine out[kLanes], const U256 k[kLanes], const Affine p[kLanes]);

// Verification core for public inputs: for lane i computes
// R = [s[i]]G + [t[i]]P[i] (s, t in [1, n-1], P[i] a valid public key) and
// tests x(R) == c[i] (mod p), or x(R) == c2[i] where bit i of c2_valid is
// set (the caller passes c = (r - e) mod n and c2 = c + n when below p).
// Returns the bitmap of lanes that verify. Lanes whose final addition
// degenerates (the two partial sums coincide, probability ~2^-256 unless
// forged on purpose) are reported in *fallback for the scalar verifier;
// their result bit is 0.
unsigned verify_x8(const U256 s[kLanes], const U256 t[kLanes], const Affine p[kLanes],
                   const U256 c[kLanes], const U256 c2[kLanes], unsigned c2_valid,
                   unsigned* fallback);

// A public point's comb (curve::make_point_table) in the lanes' form, as
// G's is held here: 189 KiB. nullptr when memory is short.
struct LaneTable;
struct LaneTableDeleter {
  void operator()(LaneTable* t) const;
};
using LaneTablePtr = std::unique_ptr<LaneTable, LaneTableDeleter>;
LaneTablePtr make_lane_table(const PointTable& table);

// verify_x8 with one public key P for every lane, from its comb: R = [s]G +
// [t]P walks both combs (74 mixed additions, no doubling). Lanes where an
// addition meets P == Q (only for forged inputs) are reported in
// *fallback, their result bit 0.
unsigned verify_table_x8(const U256 s[kLanes], const U256 t[kLanes], const LaneTable& table,
                         const U256 c[kLanes], const U256 c2[kLanes], unsigned c2_valid,
                         unsigned* fallback);

}  // namespace mb
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_SM2_MB_H_
