// What the Curve25519 kernel files share (curve25519/gpu/curve25519_gpu_*.cu, one
// a kind of operation so that they compile in parallel): the grid shape,
// the items a thread takes (gpu/launch.cuh's rule by fill), 32-byte word
// loads and stores, and the launch of a kernel over a field policy and
// layout. Internal to those files.
#ifndef KS_SCHEME_CURVE25519_GPU_LAUNCH_CUH_
#define KS_SCHEME_CURVE25519_GPU_LAUNCH_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "gpu/device_table.cuh"
#include "gpu/launch.cuh"
#include "field/fe25519_dpf.cuh"
#include "field/fe25519_gpu.cuh"
#include "field/out_of_line.cuh"
#include "curve25519/gpu/curve25519_gpu.h"

namespace ks {
namespace curve25519 {
namespace gpu {
namespace detail {

using ks::gpu::blocks_for;

constexpr unsigned kThreads = 128;

// Items a thread computes where they share one inversion (public keys and
// signatures: Signer::encode_all; X25519: x25519_kernel): up to this many,
// as many as keep the device's resident threads busy (per_thread_for).
// Measured on the H100, DPF inline, 2^20 keys (tools/
// curve25519_gpu_bench.cu): Ed25519 1.91e8/s for 1, 2.22e8 for 2, 2.35e8 for 4; X25519 public
// keys 2.01e8, 2.32e8, 2.54e8; signatures 1.53e8 for 1, 1.61e8 adaptive.
// At 2^16 keys 2 leads 4 by 6-9% (4 leaves the SMs under one wave), and 4
// quadruples the latency of small batches. X25519 shared secrets
// (2^20): 4.42e7 against 4.27e7 for 1.
constexpr int kMaxItemsPerThread = 4;

__device__ __forceinline__ size_t item_index() {
  return size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ void load_words(uint64_t w[4], const uint8_t* p) {
  const uint2* q = reinterpret_cast<const uint2*>(p);  // 8-byte aligned items
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint2 v = q[i];
    w[i] = uint64_t(v.x) | (uint64_t(v.y) << 32);
  }
}

__device__ __forceinline__ void store_words(uint8_t* p, const uint64_t w[4]) {
  uint2* q = reinterpret_cast<uint2*>(p);
#pragma unroll
  for (int i = 0; i < 4; ++i) q[i] = make_uint2(uint32_t(w[i]), uint32_t(w[i] >> 32));
}

// Items a thread takes when they share an inversion: kMaxItemsPerThread
// from that many resident threads' worth of items (blocks_per_sm blocks of
// kThreads on every SM, or the occupancy of `kernel` itself), 2 from one,
// else 1 (so that small batches still fill the SMs).
inline int per_thread_for(size_t count, int blocks_per_sm) {
  return ks::gpu::items_per_thread(count, ks::gpu::residency(blocks_per_sm), kThreads,
                                   kMaxItemsPerThread);
}
template <class Kernel>
int per_thread_for(Kernel* kernel, size_t count) {
  return ks::gpu::items_per_thread(count, ks::gpu::residency(kernel, kThreads), kThreads,
                                   kMaxItemsPerThread);
}

// Launches kernel<G, MinBlocks> for the field policy G of `layout` over F
// (field/out_of_line.cuh).
template <class F, class Launch>
cudaError_t launch_in_layout(Layout layout, const Launch& launch) {
  using Calls = field::OutOfLineProducts<F>;
  if (layout == Layout::kInline)
    launch(std::integral_constant<int, 1>(), static_cast<F*>(nullptr));
  else if (layout == Layout::kOutOfLine)
    launch(std::integral_constant<int, 1>(), static_cast<Calls*>(nullptr));
  else
    launch(std::integral_constant<int, 4>(), static_cast<Calls*>(nullptr));
  return cudaGetLastError();
}

// Whether the kernels over the integer field, which the library's batches
// never pick (they run over the DPF field: design/0003), are compiled.
// Off only in a build that checks that the CUDA code compiles (CI, with
// -DKS_GPU_KERNEL_VARIANTS=OFF): half of the Ed25519 kernels' compile
// time; such a build answers cudaErrorNotSupported for them.
#ifndef KS_GPU_KERNEL_VARIANTS
#define KS_GPU_KERNEL_VARIANTS 1
#endif

// An Ed25519 kernel over `field` in `layout`, `per_thread` items a
// thread: launch(min_blocks, G*, comb, blocks) once `table` is on the
// current device.
template <class Launch>
cudaError_t launch_ed25519(ks::gpu::DeviceTable& table, Field field, Layout layout, size_t count,
                           int per_thread, const Launch& launch) {
  const uint64_t* comb = nullptr;
  const cudaError_t err = table.get(&comb);
  if (err != cudaSuccess || count == 0) return err;
  const unsigned blocks = blocks_for((count + per_thread - 1) / per_thread, kThreads);
  const auto with_table = [&](auto min_blocks, auto* f) { launch(min_blocks, f, comb, blocks); };
  if (field == Field::kDpf) return launch_in_layout<field::Fe25519Dpf>(layout, with_table);
#if KS_GPU_KERNEL_VARIANTS
  return launch_in_layout<field::Fe25519Gpu>(layout, with_table);
#else
  return cudaErrorNotSupported;
#endif
}

// The tables on each device (curve25519/gpu/curve25519_gpu_tables.cu): the comb
// of the CPU's fixed-base multiplication (verification's [S]B), the
// signing comb of WarpRow and the wide table of WideRow
// (curve25519/gpu/curve25519_gpu_fixed_base.cuh).
extern ks::gpu::DeviceTable g_comb;
extern ks::gpu::DeviceTable g_sign_comb;
extern ks::gpu::DeviceTable g_wide_table;

}  // namespace detail
}  // namespace gpu
}  // namespace curve25519
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_LAUNCH_CUH_
