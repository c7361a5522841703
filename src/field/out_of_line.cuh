// A GPU field policy with its products compiled out of line: the same
// arithmetic as F, but mul and sqr are calls (operands by value, so that
// they stay in registers: sm2/gpu/sm2_gpu.cu measured +31% over passing
// them by reference). Point formulas instantiated over a fully inlined
// field become loop bodies far larger than the instruction caches; long
// scalar multiplications (verification) can run faster with calls. Which
// layout each kernel uses is decided by measurement
// (curve25519/gpu/curve25519_gpu_*.cu).
#ifndef KS_FIELD_OUT_OF_LINE_CUH_
#define KS_FIELD_OUT_OF_LINE_CUH_

namespace ks {
namespace field {

template <class F>
struct OutOfLineProducts : F {
  using Elem = typename F::Elem;
  __device__ __noinline__ static Elem mul(Elem a, Elem b) { return F::mul(a, b); }
  __device__ __noinline__ static Elem sqr(Elem a) { return F::sqr(a); }
  __device__ static Elem sqr_n(Elem a, int n) {
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
};

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_OUT_OF_LINE_CUH_
