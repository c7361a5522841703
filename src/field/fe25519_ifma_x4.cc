// 4-lane GF(2^255 - 19) out of line: the inversion chain of Fe25519x4 and
// the array wrappers of field/fe25519_ifma_x4.h. As field/fe25519_ifma.cc,
// the target region covers the SIMD headers and the chains only.
#if defined(__x86_64__)
#include "field/policy.h"  // outside the region: shared inline functions
#include "field/u256.h"
// clang-format off
#include "field/ifma_target_begin.h"
#include "field/fe25519_chain.h"
#include "field/fe25519_ifma_simd.h"
#include "field/fe25519_ifma.h"
#include "field/ifma_target_end.h"
// clang-format on
#include "field/fe25519_ifma_x4.h"

#define KS_IFMA_FN __attribute__((target(KS_IFMA_TARGET)))

namespace ks {
namespace field {
namespace ifma {

template <>
KS_IFMA_FN Fe4 Fe25519Lanes<Ymm>::inv(const Fe4& a) {
  return fe25519_invert<Fe25519x4>(a);
}

namespace fe25519x4 {
namespace {

using F = Fe25519x4;

KS_IFMA_FN Fe4 from_limbs(const Limbs a) {
  Fe4 r;
  for (int j = 0; j < kLimbs; ++j) {
    alignas(32) uint64_t limb[kLanes];
    for (int i = 0; i < kLanes; ++i) limb[i] = a[i][j];
    r.l[j] = Ymm::load(limb);
  }
  return r;
}

KS_IFMA_FN void to_limbs(Limbs out, const Fe4& r) {
  for (int j = 0; j < kLimbs; ++j) {
    alignas(32) uint64_t limb[kLanes];
    Ymm::store(limb, r.l[j]);
    for (int i = 0; i < kLanes; ++i) out[i][j] = limb[i];
  }
}

KS_IFMA_FN Fe4 apply(Op op, const Fe4& x, const Fe4& y, uint32_t k) {
  switch (op) {
    case Op::kAdd:
      return F::add(x, y);
    case Op::kSub:
      return F::sub(x, y);
    case Op::kNeg:
      return F::neg(x);
    case Op::kDbl:
      return F::dbl(x);
    case Op::kMul:
      return F::mul(x, y);
    case Op::kSqr:
      return F::sqr(x);
    case Op::kMulSmall:
      return F::mul_small(x, k);
    case Op::kInv:
      return F::inv(x);
    case Op::kCanonical:
      return F::canonical(x);
    case Op::kLoose:
      return F::from_loose(F::sub_loose(F::mul_loose(x, y), F::sqr_loose(y)));
    case Op::kChain:
    default:
      return fe25519::op_chain<F>(x, y, k);
  }
}

}  // namespace

KS_IFMA_FN void load_x4(Limbs out, const U256 in[kLanes]) {
  to_limbs(out, F::load(reinterpret_cast<const uint64_t(*)[4]>(in)));
}

KS_IFMA_FN void store_x4(U256 out[kLanes], const Limbs a) {
  F::store(reinterpret_cast<uint64_t(*)[4]>(out), from_limbs(a));
}

KS_IFMA_FN void apply_x4(Op op, Limbs out, const Limbs a, const Limbs b, uint32_t k) {
  to_limbs(out, apply(op, from_limbs(a), from_limbs(b), k));
}

KS_IFMA_FN void broadcast_x4(Limbs out, const U256& c) { to_limbs(out, F::from_canonical(c)); }

KS_IFMA_FN unsigned test_x4(Predicate predicate, const Limbs a, const Limbs b) {
  const Fe4 x = from_limbs(a);
  switch (predicate) {
    case Predicate::kIsZero:
      return unsigned(F::is_zero(x));
    case Predicate::kEq:
      return unsigned(F::eq(x, from_limbs(b)));
    case Predicate::kIsNegative:
    default:
      return unsigned(F::is_negative(x));
  }
}

}  // namespace fe25519x4
}  // namespace ifma
}  // namespace field
}  // namespace ks
#endif  // __x86_64__
