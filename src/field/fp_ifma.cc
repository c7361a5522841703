// 8-lane GF(p) out of line: the inversion chain and the array wrappers.
// The target region (field/ifma_target_begin.h) covers the SIMD header and
// op_chain only, so that nothing shared with other files is compiled for
// AVX-512 IFMA here.
#if defined(__x86_64__)
#include "field/u256.h"  // outside the region: shared inline functions
// clang-format off
#include "field/ifma_target_begin.h"
#include "field/fp_ifma_simd.h"
#include "field/fp_ifma.h"  // op_chain<Fp8> must be defined for this target
#include "field/ifma_target_end.h"
// clang-format on

namespace ks {
namespace field {
namespace ifma {

// Seed 001 table 4 (the chain of FpField::chain_prefix and inv in
// field/fp.h), lane-wise.
__attribute__((target(KS_IFMA_TARGET))) Fe8 Fp8::inv(const Fe8& z) {
  Fe8 t0 = mul(sqr(z), z);               // z^(2^2 - 1)
  Fe8 t1 = mul(sqr(t0), z);              // z^(2^3 - 1)
  Fe8 t2 = mul(sqr_n(t1, 3), t1);        // z^(2^6 - 1)
  t1 = sqr(t2);                          // z^(2^7 - 2)
  Fe8 t3 = mul(t1, z);                   // z^(2^7 - 1)
  t1 = mul(sqr_n(t1, 5), t2);            // z^(2^12 - 1)
  t2 = mul(sqr_n(t1, 12), t1);           // z^(2^24 - 1)
  t1 = mul(sqr_n(t2, 7), t3);            // z^(2^31 - 1)
  t2 = sqr_n(t1, 2);                     // z^(2^33 - 4)
  t3 = sqr_n(t2, 29);                    // z^(2^62 - 2^31)
  t1 = mul(t1, t3);                      // z^(2^62 - 1)
  t3 = sqr_n(t3, 2);                     // z^(2^64 - 2^33)
  t0 = mul(mul(t0, t3), t2);             // z^(2^64 - 1)
  t2 = mul(sqr_n(t3, 32), t0);           // z^(2^96 - 2^64 - 1)
  t2 = mul(sqr_n(t2, 64), t0);           // z^(2^160 - 2^128 - 1)
  t2 = sqr_n(t2, 94);                    // z^(2^254 - 2^222 - 2^94)
  return mul(sqr_n(mul(t1, t2), 2), z);  // z^(p-2)
}

namespace {

using Lanes = const uint64_t (*)[4];

__attribute__((target(KS_IFMA_TARGET))) Fe8 load_mont(const U256 a[kLanes]) {
  return Fp8::to_mont(Fp8::load(reinterpret_cast<Lanes>(a)));
}

}  // namespace

__attribute__((target(KS_IFMA_TARGET))) void apply_x8(Op op, U256 out[kLanes], const U256 a[kLanes],
                                                      const U256 b[kLanes]) {
  const Fe8 x = load_mont(a), y = load_mont(b);
  Fe8 r;
  switch (op) {
    case Op::kAdd:
      r = Fp8::add(x, y);
      break;
    case Op::kSub:
      r = Fp8::sub(x, y);
      break;
    case Op::kNeg:
      r = Fp8::neg(x);
      break;
    case Op::kDbl:
      r = Fp8::dbl(x);
      break;
    case Op::kHalf:
      r = Fp8::half(x);
      break;
    case Op::kMul:
      r = Fp8::mul(x, y);
      break;
    case Op::kSqr:
      r = Fp8::sqr(x);
      break;
    case Op::kInv:
      r = Fp8::inv(x);
      break;
    case Op::kChain:
      r = op_chain<Fp8>(x, y);
      break;
    default:
      r = Fp8::zero();
      break;
  }
  Fp8::store(reinterpret_cast<uint64_t(*)[4]>(out), Fp8::from_mont(r));
}

__attribute__((target(KS_IFMA_TARGET))) unsigned eq_x8(const U256 a[kLanes], const U256 b[kLanes]) {
  return unsigned(Fp8::eq(load_mont(a), load_mont(b)));
}

}  // namespace ifma
}  // namespace field
}  // namespace ks
#endif  // __x86_64__
