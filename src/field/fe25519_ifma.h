// The 8-lane AVX-512 IFMA field GF(2^255 - 19) (field/fe25519_ifma_simd.h)
// behind plain arrays, for tests and tools: eight 256-bit values in, every
// lane's five raw limbs out, so that a test sees both the residue and the
// limb bounds of the element invariant. The point code uses the vector type
// directly. No intrinsics here, so any file may include this header, but
// call these functions only when curve::ed25519::mb::available().
#ifndef KS_FIELD_FE25519_IFMA_H_
#define KS_FIELD_FE25519_IFMA_H_

#include <stdint.h>

#include "field/u256.h"

namespace ks {
namespace field {
namespace ifma {
namespace fe25519 {

constexpr int kLanes = 8;
constexpr int kLimbs = 5;  // radix 2^52

enum class Op { kAdd, kSub, kNeg, kDbl, kMul, kSqr, kMulSmall, kInv, kCanonical, kChain, kLoose };

// kLoose: a b - b^2 through the loose forms (mul_loose, sqr_loose,
// sub_loose, from_loose), the ladders' products at their bounds.

// kChain: the operation sequence below, with no canonical() in between (the
// lane values wander through their whole redundant range), as tests replay
// it with the scalar Fe25519:
//   r = a; 64 times: r = dbl(dbl(r + b)); r = b - (r - a); r = r (r + b);
//   r = -r; r = (r - 2b)^2; r = r k + (r + b).
template <class F>
typename F::Elem op_chain(const typename F::Elem& a, const typename F::Elem& b, uint32_t k) {
  typename F::Elem r = a;
  for (int i = 0; i < 64; ++i) {
    r = F::dbl(F::dbl(F::add(r, b)));
    r = F::sub(b, F::sub(r, a));
    r = F::mul(r, F::add(r, b));
    r = F::neg(r);
    r = F::sqr(F::sub(r, F::dbl(b)));
    r = F::add(F::mul_small(r, k), F::add(r, b));
  }
  return r;
}

// Lanes as raw limbs: limbs[i][j] is limb j (weight 2^(52j)) of lane i.
using Limbs = uint64_t[kLanes][kLimbs];

// The limbs of Fe25519x8::load(in): any 256-bit values, folded into the
// element invariant.
void load_x8(Limbs out, const U256 in[kLanes]);

// out[i] = the value lane i holds (Fe25519x8::store), a within the element
// invariant.
void store_x8(U256 out[kLanes], const Limbs a);

// out = op(a, b) lane by lane, a and b given as limbs within the element
// invariant (b ignored by the one-operand ops, k used by kMulSmall and
// kChain only).
void apply_x8(Op op, Limbs out, const Limbs a, const Limbs b, uint32_t k);

// The ladder's forms of Fe25519x8 (curve25519/ed25519_mb.cc; the loose form (L)
// of field/fe25519_ifma_simd.h: every limb below 2^56), lane by lane:
//   kMulLoose, kSqrLoose    a b, a^2 as (L), for a, b within the invariant
//   kAddLoose, kSubLoose    a + b, a - b for a, b loose (L): within the
//                           invariant
//   kProductsSum            a b + a a  } products_sum_difference(a, b, a, a),
//   kProductsDifference     a b - a a  } a, b within the invariant
//   kMulSmallAdd            b + k a (mul_small_add)
enum class LadderOp {
  kMulLoose,
  kSqrLoose,
  kAddLoose,
  kSubLoose,
  kProductsSum,
  kProductsDifference,
  kMulSmallAdd
};
constexpr uint64_t kLooseLimbMax = (uint64_t(1) << 56) - 1;
void apply_ladder_x8(LadderOp op, Limbs out, const Limbs a, const Limbs b, uint32_t k);

// from_canonical(c) in every lane.
void broadcast_x8(Limbs out, const U256& c);

enum class Predicate { kIsZero, kEq, kIsNegative };
// Bit i set where the predicate holds in lane i: is_zero(a[i]),
// eq(a[i], b[i]), is_negative(a[i]).
unsigned test_x8(Predicate predicate, const Limbs a, const Limbs b);

}  // namespace fe25519
}  // namespace ifma
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_IFMA_H_
