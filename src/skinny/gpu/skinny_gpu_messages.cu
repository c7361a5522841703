// SKINNY-128-256 over many messages in device memory, each under its own
// tweakey (skinny/gpu/skinny_gpu.h's crypt_messages_device): ECB and CTR
// through cipher/gpu/messages_gpu.cuh, 32 blocks of one
// message a thread, the round-tweakey masks made from that message's round
// tweakeys (two row words a round) as the rounds go. The tweakey schedules
// run on the device, one thread per message, into scratch that is wiped in
// stream order before it is freed.
#include <cuda_runtime.h>

#include <algorithm>

#include "cipher/gpu/messages_gpu.cuh"
#include "gpu/gpu_engine.cuh"
#include "gpu/launch.cuh"
#include "skinny/gpu/skinny_gpu.h"
#include "skinny/skinny128_256_sliced.h"

namespace ks {
namespace skinny {
namespace gpu {
namespace {

using messages_gpu::Blocks;
using messages_gpu::kThreads;
using ks::gpu::blocks_for;

constexpr int kRowWords = 2 * kRounds;  // RoundTweakeys::rows, row-major

// The round tweakeys of message i (skinny128_256_core.h's schedule), one
// thread each, written straight to scratch.
__global__ void tweakey_schedule_kernel(const uint8_t* tweakeys, uint32_t* rows, size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  uint8_t tk[32];
#pragma unroll
  for (int b = 0; b < 32; ++b) tk[b] = tweakeys[32 * i + b];
  static_assert(sizeof(RoundTweakeys) == sizeof(uint32_t) * kRowWords, "rows only");
  expand_tweakey(*reinterpret_cast<RoundTweakeys*>(rows + size_t(kRowWords) * i), tk);
}

// Round i's tweakey masks of one message (tweakey_mask's planes), made
// from its two row words.
struct MessageTweakeyMasks {
  const uint32_t* rows;  // the round's two words
  __device__ __forceinline__ void masks4(int row, int k, uint32_t out[4]) const {
    const uint32_t r = __ldg(rows + row);
#pragma unroll
    for (int j = 0; j < 4; ++j) out[j] = 0u - ((r >> (k + j)) & 1u);
  }
};

// SKINNY for cipher/gpu/messages_gpu.cuh: its rows are little-endian words.
struct SkinnyMessages {
  static constexpr bool kBigEndian = false;
  static constexpr int kKeyWords = kRowWords;
  __device__ __forceinline__ static void rounds(sliced_gpu::Slice w[4], const uint32_t* rows) {
#pragma unroll 1
    for (int i = 0; i < kRounds; ++i) sliced_round(w, MessageTweakeyMasks{rows + 2 * i});
  }
};

// ECB decryption: the inverse rounds, in reverse order.
struct SkinnyMessagesInverse : SkinnyMessages {
  __device__ __forceinline__ static void rounds(sliced_gpu::Slice w[4], const uint32_t* rows) {
#pragma unroll 1
    for (int i = kRounds - 1; i >= 0; --i)
      sliced_inv_round(w, MessageTweakeyMasks{rows + 2 * i});
  }
};

size_t round_up16(size_t x) { return (x + 15) & ~size_t(15); }

cudaError_t run_on_device(bool ctr, bool encrypt, const uint8_t* tweakeys, const uint8_t* ivs,
                          const uint8_t* data, size_t data_len, const uint64_t* offsets,
                          size_t n, uint8_t* out, size_t out_len, int* status,
                          cudaStream_t stream) {
  size_t scan_bytes = 0;
  cudaError_t e = messages_gpu::scan_units(nullptr, &scan_bytes, nullptr, nullptr, n, stream);
  if (e != cudaSuccess) return e;
  // Scratch: [scan][units][unit starts][offsets, copied][round tweakeys]
  const size_t at_units = round_up16(scan_bytes), at_starts = at_units + round_up16(8 * n),
               at_offsets = at_starts + round_up16(8 * (n + 1)),
               at_rows = at_offsets + round_up16(8 * (n + 1));
  ks::gpu::StreamScratch scratch(stream);
  e = scratch.allocate(at_rows + sizeof(uint32_t) * kRowWords * n);
  if (e != cudaSuccess) return e;
  // The kernels read a copy of the offsets, checked once: statuses or
  // outputs a caller placed over them cannot change what was checked.
  auto* copied = reinterpret_cast<uint64_t*>(scratch.at(at_offsets));
  auto* units = reinterpret_cast<uint64_t*>(scratch.at(at_units));
  auto* starts = reinterpret_cast<uint64_t*>(scratch.at(at_starts));
  auto* rows = reinterpret_cast<uint32_t*>(scratch.at(at_rows));
  e = cudaMemcpyAsync(copied, offsets, 8 * (n + 1), cudaMemcpyDeviceToDevice, stream);
  if (e != cudaSuccess) return e;
  const messages_gpu::DeviceChecks checks = {copied, std::min<uint64_t>(data_len, out_len),
                                             nullptr, 0, !ctr, UINT64_MAX, n, units, status};
  e = messages_gpu::count_units(checks, scratch.at(0), scan_bytes, starts, stream);
  if (e != cudaSuccess) return e;
  tweakey_schedule_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(tweakeys, rows, n);
  const messages_gpu::DeviceMessages m = {data, out, copied, starts, rows,
                                          ivs,  ctr ? 16u : 0u, status, n};
  const unsigned unit_grid = messages_gpu::unit_grid(data_len, n);
  if (ctr)
    messages_gpu::messages_kernel<SkinnyMessages, Blocks::kCtr128>
        <<<unit_grid, kThreads, 0, stream>>>(m);
  else if (encrypt)
    messages_gpu::messages_kernel<SkinnyMessages, Blocks::kEcb>
        <<<unit_grid, kThreads, 0, stream>>>(m);
  else
    messages_gpu::messages_kernel<SkinnyMessagesInverse, Blocks::kEcb>
        <<<unit_grid, kThreads, 0, stream>>>(m);
  return cudaGetLastError();
}

}  // namespace

int crypt_messages_device(ks::gpu::Engine& engine, bool ctr, bool encrypt,
                          const uint8_t* tweakeys, const uint8_t* ivs, const uint8_t* data,
                          size_t data_len,
                          const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                          int* status, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK || count == 0) return scope.status();
  return ks::gpu::to_status(run_on_device(ctr, encrypt, tweakeys, ivs, data, data_len, offsets,
                                          count, out, out_len, status,
                                          static_cast<cudaStream_t>(stream)));
}

}  // namespace gpu
}  // namespace skinny
}  // namespace ks
