// X25519 shared secrets on the GPU (curve25519/gpu/curve25519_gpu.h): the
// Montgomery ladder of curve/montgomery_ladder.h over either GPU field,
// and the field-operation kernels that test and measure those fields.
// Nothing in X25519 branches on or indexes memory by a secret.
#include "curve25519/gpu/curve25519_gpu.h"

#include "curve/montgomery_ladder.h"
#include "field/batch_invert.h"
#include "curve25519/gpu/curve25519_gpu_launch.cuh"

namespace ks {
namespace curve25519_gpu {

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

template <class F>
__global__ void field_op_kernel(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                                size_t count, int repeat) {
  const size_t i = item_index();
  if (i >= count) return;
  const typename F::Elem r =
      field::apply<F>(op, F::from_words(a + 4 * i), F::from_words(b + 4 * i), repeat);
  F::to_words(out + 4 * i, r);
}

__global__ void dpf_limb_op_kernel(FieldOp op, const uint64_t* a, const uint64_t* b,
                                   uint64_t* out, size_t count, int repeat) {
  using F = field::Fe25519Dpf;
  const size_t i = item_index();
  if (i >= count) return;
  F::Elem x, y;
#pragma unroll
  for (int j = 0; j < 5; ++j) x.l[j] = a[5 * i + j], y.l[j] = b[5 * i + j];
  F::to_words(out + 4 * i, field::apply<F>(op, x, y, repeat));
}

}  // namespace

cudaError_t launch_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u,
                          uint8_t* out, int* status, size_t count, cudaStream_t stream,
                          int per_thread) {
  if (count == 0) return cudaSuccess;
  const auto launch = [&](auto* kernel) {
    if (per_thread < 1 || per_thread > kMaxItemsPerThread)
      per_thread = items_per_thread(kernel, count);
    const unsigned blocks = blocks_for((count + per_thread - 1) / per_thread, kThreads);
    kernel<<<blocks, kThreads, 0, stream>>>(k, k_stride, u, out, status, count, per_thread);
    return cudaGetLastError();
  };
  return field == Field::kDpf ? launch(x25519_kernel<field::Fe25519Dpf>)
                              : launch(x25519_kernel<field::Fe25519Gpu>);
}


cudaError_t launch_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b,
                            uint64_t* out, size_t count, int repeat, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(count, kThreads);
  if (field == Field::kDpf) {
    field_op_kernel<field::Fe25519Dpf><<<blocks, kThreads, 0, stream>>>(op, a, b, out, count,
                                                                        repeat);
  } else {
    field_op_kernel<field::Fe25519Gpu><<<blocks, kThreads, 0, stream>>>(op, a, b, out, count,
                                                                        repeat);
  }
  return cudaGetLastError();
}

int run_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u, uint8_t* out,
               int* status, size_t count, int per_thread) {
  DeviceBytes dk(k, 32 * (k_stride ? count : 1)), du(u, 32 * count), dout(nullptr, 32 * count),
      dst(nullptr, sizeof(int) * count);
  if (const cudaError_t err = first_error(dk, du, dout, dst)) return int(err);
  const int rc = run_sync([&] {
    return launch_x25519(field, dk.as<uint8_t>(), k_stride, du.as<uint8_t>(), dout.as<uint8_t>(),
                         dst.as<int>(), count, nullptr, per_thread);
  });
  if (rc != 0) return rc;
  cudaError_t err = cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && status != nullptr)
    err = cudaMemcpy(status, dst.p, sizeof(int) * count, cudaMemcpyDeviceToHost);
  return int(err);
}

int run_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                 size_t count, int repeat) {
  DeviceBytes da(a, 32 * count), db(b, 32 * count), dout(nullptr, 32 * count);
  if (const cudaError_t err = first_error(da, db, dout)) return int(err);
  const int rc = run_sync([&] {
    return launch_field_op(field, op, da.as<uint64_t>(), db.as<uint64_t>(), dout.as<uint64_t>(),
                           count, repeat, nullptr);
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost));
}

int run_dpf_limb_op(FieldOp op, const uint64_t* a_limbs, const uint64_t* b_limbs, uint64_t* out,
                    size_t count, int repeat) {
  DeviceBytes da(a_limbs, 40 * count), db(b_limbs, 40 * count), dout(nullptr, 32 * count);
  if (const cudaError_t err = first_error(da, db, dout)) return int(err);
  const int rc = run_sync([&] {
    if (count == 0) return cudaSuccess;
    dpf_limb_op_kernel<<<blocks_for(count, kThreads), kThreads>>>(
        op, da.as<uint64_t>(), db.as<uint64_t>(), dout.as<uint64_t>(), count, repeat);
    return cudaGetLastError();
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost));
}

}  // namespace curve25519_gpu
}  // namespace ks
