// X25519 shared secrets on the GPU (curve25519/gpu/curve25519_gpu.h): the
// Montgomery ladder of curve/montgomery_ladder.h over either GPU field.
// Nothing in X25519 branches on or indexes memory by a secret.
#include "curve25519/gpu/curve25519_gpu.h"

#include "curve/montgomery_ladder.h"
#include "field/batch_invert.h"
#include "curve25519/gpu/curve25519_gpu_launch.cuh"

namespace ks {
namespace curve25519 {
namespace gpu {

using namespace detail;

namespace {

// The clamped scalar's bit i as a mask (RFC 7748 5: bits 0-2 and 255
// cleared, bit 254 set).
struct ClampedBits {
  uint64_t w[4];
  __device__ explicit ClampedBits(const uint8_t* k) {
    load_words(w, k);
    w[0] &= ~uint64_t(7);
    w[3] = (w[3] & 0x7FFFFFFFFFFFFFFFull) | 0x4000000000000000ull;
  }
  __device__ __forceinline__ uint64_t operator()(int i) const {
    return 0 - ((w[i >> 6] >> (i & 63)) & 1);
  }
};

// out[i] = X25519(k[i * k_stride], u[i]) for per_thread consecutive items
// a thread: one ladder after another, then one inversion for all their z
// (Montgomery's trick, field/batch_invert.h: 3 products an item in place of
// 254 squarings and 11 products, about 8% of a ladder). A z of zero (u of
// small order) would be inverted as 1 there, so its result is masked to
// zero: the all-zero secret of RFC 7748 6.1, status 1. The item count a
// thread takes is public, so the loops' bounds are.
//
// Four blocks an SM: ptxas fits the DPF ladder in 128 registers (134
// unbounded, 3 blocks) with 52 bytes of spills, and the extra warps hide
// more of its latency: 4.33e7 -> 4.52e7/s at 2^20 and 4.13e7 -> 4.37e7 at
// 2^18 (the pipeline's chunk) on an H200, integer field +1.4% (tools/
// curve25519_gpu_bench.cu). 5 blocks (96 registers) spills 148 bytes.
constexpr int kX25519MinBlocks = 4;

template <class F>
__global__ void __launch_bounds__(kThreads, kX25519MinBlocks)
    x25519_kernel(const uint8_t* k, size_t k_stride, const uint8_t* u, uint8_t* out, int* status,
                  size_t count, int per_thread) {
  const size_t first = item_index() * per_thread;
  if (first >= count) return;
  const int n = int(count - first < size_t(per_thread) ? count - first : per_thread);
  typename F::Elem x[kMaxItemsPerThread], z[kMaxItemsPerThread], prefix[kMaxItemsPerThread];
  uint64_t z_zero[kMaxItemsPerThread];
  KS_NO_UNROLL for (int j = 0; j < n; ++j) {
    const size_t i = first + j;
    const ClampedBits bits(k + 32 * k_stride * i);
    uint64_t u_words[4];
    load_words(u_words, u + 32 * i);
    u_words[3] &= 0x7FFFFFFFFFFFFFFFull;
    const curve::LadderState<F> s = curve::ladder<F>(F::from_words(u_words), bits);
    x[j] = s.x2;
    z[j] = s.z2;
    z_zero[j] = F::is_zero(s.z2);
  }
  field::batch_invert<F>(z, prefix, n);
  KS_NO_UNROLL for (int j = 0; j < n; ++j) {
    uint64_t r[4];
    F::to_words(r, F::select(z_zero[j], F::zero(), F::mul(x[j], z[j])));
    store_words(out + 32 * (first + j), r);
    if (status != nullptr) status[first + j] = (r[0] | r[1] | r[2] | r[3]) == 0 ? 1 : 0;
  }
}

}  // namespace

cudaError_t launch_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u,
                          uint8_t* out, int* status, size_t count, cudaStream_t stream,
                          int per_thread) {
  if (count == 0) return cudaSuccess;
  const auto launch = [&](auto* kernel) {
    if (per_thread < 1 || per_thread > kMaxItemsPerThread)
      per_thread = per_thread_for(kernel, count);
    const unsigned blocks = blocks_for((count + per_thread - 1) / per_thread, kThreads);
    kernel<<<blocks, kThreads, 0, stream>>>(k, k_stride, u, out, status, count, per_thread);
    return cudaGetLastError();
  };
  return field == Field::kDpf ? launch(x25519_kernel<field::Fe25519Dpf>)
                              : launch(x25519_kernel<field::Fe25519Gpu>);
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
