// One field operation chosen at run time, over any field policy
// (field/policy.h) that also has mul_small: what the field tests and
// benchmarks run on every backend (CPU, host emulation, GPU kernels), so
// that the oracle and the implementation under test share one dispatch.
#ifndef KS_FIELD_FIELD_OP_H_
#define KS_FIELD_FIELD_OP_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace field {

// kMulSmall multiplies by 121666 (X25519's a24 + 1, RFC 7748 5);
// kMulChain is `repeat` dependent products a b b ... b.
enum class FieldOp { kAdd, kSub, kMul, kSqr, kMulSmall, kInv, kMulChain };

template <class F>
KS_HD typename F::Elem apply(FieldOp op, const typename F::Elem& a, const typename F::Elem& b,
                             int repeat) {
  switch (op) {
    case FieldOp::kAdd: return F::add(a, b);
    case FieldOp::kSub: return F::sub(a, b);
    case FieldOp::kMul: return F::mul(a, b);
    case FieldOp::kSqr: return F::sqr(a);
    case FieldOp::kMulSmall: return F::mul_small(a, 121666);
    case FieldOp::kInv: return F::inv(a);
    case FieldOp::kMulChain: {
      typename F::Elem x = a;
      for (int r = 0; r < repeat; ++r) x = F::mul(x, b);
      return x;
    }
  }
  return a;
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FIELD_OP_H_
