// The 4-lane (ymm) AVX-512 IFMA field GF(2^255 - 19) (Fe25519x4,
// field/fe25519_ifma_simd.h) behind plain arrays, for tests and tools: the
// counterpart of field/fe25519_ifma.h for four lanes, with its operation
// and predicate names. No intrinsics here, so any file may include this
// header, but call these functions only when curve::ed25519::x4::available().
#ifndef KS_FIELD_FE25519_IFMA_X4_H_
#define KS_FIELD_FE25519_IFMA_X4_H_

#include <stdint.h>

#include "field/fe25519_ifma.h"
#include "field/u256.h"

namespace ks {
namespace field {
namespace ifma {
namespace fe25519x4 {

constexpr int kLanes = 4;
constexpr int kLimbs = fe25519::kLimbs;

using fe25519::Op;
using fe25519::Predicate;

// limbs[i][j] is limb j (weight 2^(52j)) of lane i.
using Limbs = uint64_t[kLanes][kLimbs];

// As fe25519::load_x8, store_x8, apply_x8, broadcast_x8 and test_x8, in
// four lanes.
void load_x4(Limbs out, const U256 in[kLanes]);
void store_x4(U256 out[kLanes], const Limbs a);
void apply_x4(Op op, Limbs out, const Limbs a, const Limbs b, uint32_t k);
void broadcast_x4(Limbs out, const U256& c);
unsigned test_x4(Predicate predicate, const Limbs a, const Limbs b);

}  // namespace fe25519x4
}  // namespace ifma
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_IFMA_X4_H_
