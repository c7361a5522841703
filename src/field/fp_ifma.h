// The 8-lane AVX-512 IFMA field GF(p) of SM2 (field/fp_ifma_simd.h) behind
// plain arrays: eight canonical values in, eight canonical values out. For
// tests and tools; the point code uses the vector type directly. No
// intrinsics here, so any file may include this header, but call these
// functions only when cpu_features().avx512ifma.
#ifndef KS_FIELD_FP_IFMA_H_
#define KS_FIELD_FP_IFMA_H_

#include <stdint.h>

#include "field/u256.h"

namespace ks {
namespace field {
namespace ifma {

constexpr int kLanes = 8;

enum class Op { kAdd, kSub, kNeg, kDbl, kHalf, kMul, kSqr, kInv, kChain };

// kChain: the operation sequence below, with no reduction to [0, p) in
// between (the lane values wander through their whole redundant range), as
// tests replay it with the scalar Fp:
//   r = a; 64 times: r = dbl(dbl(dbl(r + b))); r = b - (r - a);
//   r = r (r + b); r = -r; r = (r - 2b)^2; r = (r + r) + (r + b);
//   r = (r + b) / 2.
template <class F>
typename F::Elem op_chain(const typename F::Elem& a, const typename F::Elem& b) {
  typename F::Elem r = a;
  for (int i = 0; i < 64; ++i) {
    r = F::dbl(F::dbl(F::dbl(F::add(r, b))));
    r = F::sub(b, F::sub(r, a));
    r = F::mul(r, F::add(r, b));
    r = F::neg(r);
    r = F::sqr(F::sub(r, F::dbl(b)));
    r = F::add(F::add(r, r), F::add(r, b));
    r = F::half(F::add(r, b));
  }
  return r;
}

// out[i] = op(a[i], b[i]) mod p for a[i], b[i] in [0, p) (b ignored by the
// one-operand ops), through the Montgomery form and back.
void apply_x8(Op op, U256 out[kLanes], const U256 a[kLanes], const U256 b[kLanes]);

// Bit i set where a[i] == b[i] mod p, computed in lanes (Fp8::eq).
unsigned eq_x8(const U256 a[kLanes], const U256 b[kLanes]);

}  // namespace ifma
}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_IFMA_H_
