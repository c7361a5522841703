// What the Curve25519 kernel files share (curve25519/gpu/curve25519_gpu_*.cu, one
// a kind of operation so that they compile in parallel): the grid shape,
// the items a thread takes, 32-byte word loads and stores, the launch of a
// kernel over a field policy and layout, and the device copies behind the
// run_* calls of curve25519/gpu/curve25519_gpu_host.h. Internal to those files.
#ifndef KS_SCHEME_CURVE25519_GPU_LAUNCH_CUH_
#define KS_SCHEME_CURVE25519_GPU_LAUNCH_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <initializer_list>
#include <type_traits>

#include "gpu/device_table.cuh"
#include "field/fe25519_dpf.cuh"
#include "field/fe25519_gpu.cuh"
#include "field/out_of_line.cuh"
#include "curve25519/gpu/curve25519_gpu.h"

namespace ks {
namespace curve25519_gpu {
namespace detail {

constexpr unsigned kThreads = 128;

// Items a thread computes where they share one inversion (public keys and
// signatures: Signer::encode_all; X25519: x25519_kernel): up to this many,
// as many as keep the device's resident threads busy (items_per_thread).
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

inline unsigned blocks_for(size_t count, unsigned threads) {
  return unsigned((count + threads - 1) / threads);
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
// kThreads on every SM), 2 from one, else 1 (so that small batches still
// fill the SMs).
inline int items_per_thread(size_t count, int blocks_per_sm) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 1;
  const size_t resident = size_t(sms) * size_t(blocks_per_sm < 1 ? 1 : blocks_per_sm) * kThreads;
  return count >= kMaxItemsPerThread * resident ? kMaxItemsPerThread : count >= resident ? 2 : 1;
}
// The same with the occupancy of `kernel` itself.
template <class Kernel>
int items_per_thread(Kernel* kernel, size_t count) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess)
    blocks = 1;
  return items_per_thread(count, blocks);
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
  return field == Field::kDpf ? launch_in_layout<field::Fe25519Dpf>(layout, with_table)
                              : launch_in_layout<field::Fe25519Gpu>(layout, with_table);
}

// A device copy of a host array, or an output array, freed on scope exit.
struct DeviceBytes {
  void* p = nullptr;
  cudaError_t err;
  DeviceBytes(const void* host, size_t bytes) : err(cudaMalloc(&p, bytes > 0 ? bytes : 1)) {
    if (err == cudaSuccess && host != nullptr && bytes > 0)
      err = cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
  }
  ~DeviceBytes() { cudaFree(p); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

// The first allocation or upload error of `buffers`, else cudaSuccess.
template <class... Buffers>
cudaError_t first_error(const Buffers&... buffers) {
  const std::initializer_list<cudaError_t> errors = {buffers.err...};
  for (cudaError_t err : errors)
    if (err != cudaSuccess) return err;
  return cudaSuccess;
}

// launch(), then a wait for the device: the first error of the two.
template <class Launch>
int run_sync(Launch launch) {
  cudaError_t err = launch();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return int(err);
}

// The tables on each device (curve25519/gpu/curve25519_gpu_tables.cu): the comb
// of the CPU's fixed-base multiplication (verification's [S]B), the
// signing comb of WarpRow and the wide table of WideRow
// (curve25519/gpu/curve25519_gpu_fixed_base.cuh).
extern ks::gpu::DeviceTable g_comb;
extern ks::gpu::DeviceTable g_sign_comb;
extern ks::gpu::DeviceTable g_wide_table;

}  // namespace detail
}  // namespace curve25519_gpu
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_LAUNCH_CUH_
