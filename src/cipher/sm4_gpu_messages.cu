// SM4 over many independent messages on the GPU (cipher/sm4_gpu_messages.h).
//
// A unit is up to 32 consecutive blocks of one message: one thread holds
// them as the planes of the bitsliced rounds, so every block of a thread
// has the same key, and the round-key planes come from that message's 32
// round-key words in registers (MessageKeyPlanes) instead of the shared
// masks of the one-key kernels. Unit u belongs to the message i with
// unit_starts[i] <= u < unit_starts[i + 1] (a binary search over public
// lengths).
#include "cipher/sm4_gpu_messages.h"

#include <cuda_runtime.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "cipher/sm4_core.h"
#include "cipher/sm4_gpu_rounds.cuh"
#include "engine/gpu_engine.cuh"
#include "kuaisuo.h"

namespace ks {
namespace sm4_gpu {
namespace {

constexpr int kThreads = 128;
constexpr size_t kUnitBlocks = 32;

struct DeviceMessages {
  uint8_t* data;                // the messages, rebased to offset 0; in place
  const uint64_t* offsets;      // count + 1, rebased
  const uint64_t* unit_starts;  // count + 1: units before message i
  const uint32_t* rk;           // 32 round-key words per message
  const uint8_t* ivs;           // 16 bytes per message (CTR)
  size_t count;
};

// Round keys of message i, one thread each (GB/T 32907-2016 key schedule
// through sm4_core.h's S-box circuit: no table), reversed to decrypt.
__global__ void key_schedule_kernel(const uint8_t* keys, uint32_t* rk, size_t count,
                                    bool reverse) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  uint8_t key[16];
  uint32_t w[kRounds];
#pragma unroll
  for (int b = 0; b < 16; ++b) key[b] = keys[16 * i + b];
  sm4::expand_key(key, w);
#pragma unroll
  for (int r = 0; r < kRounds; ++r) rk[kRounds * i + r] = w[reverse ? kRounds - 1 - r : r];
}

// Round-key planes of one message: bit k of round key `round` as an
// all-ones or all-zero mask, made from the word in registers.
struct MessageKeyPlanes {
  const uint32_t* rk;
  __device__ __forceinline__ uint4 planes4(int round, int k) const {
    const uint32_t r = rk[round];
    return make_uint4(0u - (r >> k & 1), 0u - (r >> (k + 1) & 1), 0u - (r >> (k + 2) & 1),
                      0u - (r >> (k + 3) & 1));
  }
};

__device__ __forceinline__ size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

__device__ __forceinline__ bool aligned16(const uint8_t* p) {
  return (reinterpret_cast<uintptr_t>(p) & 15) == 0;
}

__device__ __forceinline__ uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// Block p as big-endian words (messages start at any byte).
__device__ __forceinline__ void load_words(const uint8_t* p, uint32_t x[4]) {
  if (aligned16(p)) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    x[0] = bswap32(v.x), x[1] = bswap32(v.y), x[2] = bswap32(v.z), x[3] = bswap32(v.w);
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) x[i] = load_be32(p + 4 * i);
}

// p[0 .. n) = (CTR: p ^) the bytes of the big-endian words x, n <= 16.
template <bool kXor>
__device__ __forceinline__ void write_bytes(uint8_t* p, const uint32_t x[4], size_t n) {
  if (n == 16 && aligned16(p)) {
    uint4 v = make_uint4(bswap32(x[0]), bswap32(x[1]), bswap32(x[2]), bswap32(x[3]));
    if (kXor) {
      const uint4 s = *reinterpret_cast<const uint4*>(p);
      v.x ^= s.x, v.y ^= s.y, v.z ^= s.z, v.w ^= s.w;
    }
    *reinterpret_cast<uint4*>(p) = v;
    return;
  }
  for (size_t b = 0; b < n; ++b) {
    // Selects, not an indexed array: an array would live in local memory.
    const uint32_t word = b < 8 ? (b < 4 ? x[0] : x[1]) : (b < 12 ? x[2] : x[3]);
    const uint8_t k = uint8_t(word >> (24 - 8 * (b % 4)));
    p[b] = kXor ? uint8_t(p[b] ^ k) : k;
  }
}

// The message of unit u: the last i with unit_starts[i] <= u (messages
// without units share their start with the next one).
__device__ __forceinline__ size_t message_of(const DeviceMessages& m, size_t u) {
  size_t lo = 0, hi = m.count - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    if (m.unit_starts[mid] <= u) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

template <bool kCtr>
__global__ void __launch_bounds__(kThreads) messages_kernel(const DeviceMessages m) {
  const size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (u >= m.unit_starts[m.count]) return;
  const size_t i = message_of(m, u);
  const size_t first = kUnitBlocks * (u - m.unit_starts[i]);  // block index in the message
  const size_t bytes = min_size(m.offsets[i + 1] - m.offsets[i] - 16 * first, 16 * kUnitBlocks);
  const size_t nblocks = (bytes + 15) / 16;
  uint8_t* p = m.data + m.offsets[i] + 16 * first;
  uint64_t hi = 0, lo = 0;  // CTR: the counter of block `first`
  if (kCtr) {
    const uint8_t* iv = m.ivs + 16 * i;
    hi = uint64_t(load_be32(iv)) << 32 | load_be32(iv + 4);
    lo = uint64_t(load_be32(iv + 8)) << 32 | load_be32(iv + 12);
    const uint64_t lo0 = lo;
    lo += first;
    hi += lo < lo0 ? 1 : 0;
  }
  Slice w[4];
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    uint32_t x[4] = {0, 0, 0, 0};
    if (size_t(l) < nblocks) {
      if (kCtr) {
        const uint64_t c_lo = lo + uint64_t(l), c_hi = hi + (c_lo < lo ? 1 : 0);
        x[0] = uint32_t(c_hi >> 32), x[1] = uint32_t(c_hi), x[2] = uint32_t(c_lo >> 32),
        x[3] = uint32_t(c_lo);
      } else {
        load_words(p + 16 * l, x);
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) w[k].bit[l] = x[k];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) transpose32(w[k].bit);
  sliced_rounds(w, MessageKeyPlanes{m.rk + kRounds * i});
#pragma unroll
  for (int k = 0; k < 4; ++k) transpose32(w[k].bit);
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    if (size_t(l) >= nblocks) continue;
    const uint32_t x[4] = {w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]};
    write_bytes<kCtr>(p + 16 * l, x, min_size(16, bytes - 16 * size_t(l)));
  }
}

size_t round_up16(size_t x) { return (x + 15) & ~size_t(15); }

// One device allocation for a call: [data][offsets][unit starts][keys]
// [ivs][round keys], freed (secrets zeroed first) on every path.
class DeviceArea {
 public:
  ~DeviceArea() {
    if (base_ == nullptr) return;
    cudaMemset(base_, 0, bytes_);  // plaintext, keys and round keys
    cudaDeviceSynchronize();
    cudaFree(base_);
  }
  cudaError_t allocate(size_t bytes) {
    bytes_ = bytes;
    return cudaMalloc(&base_, bytes);
  }
  uint8_t* at(size_t offset) const { return base_ + offset; }

 private:
  uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
};

cudaError_t copy_back(const uint8_t* dev, const uint64_t* rebased, size_t count,
                      const uint8_t* skip, uint8_t* out) {
  // Runs of messages that were computed, each in one copy.
  size_t i = 0;
  while (i < count) {
    if (skip != nullptr && skip[i] != 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < count && (skip == nullptr || skip[j] == 0)) ++j;
    const size_t from = rebased[i], len = rebased[j] - rebased[i];
    if (len != 0) {
      const cudaError_t e = cudaMemcpy(out + from, dev + from, len, cudaMemcpyDeviceToHost);
      if (e != cudaSuccess) return e;
    }
    i = j;
  }
  return cudaSuccess;
}

cudaError_t run(MessageMode mode, const uint8_t* keys, const uint8_t* ivs, const uint8_t* data,
                const uint64_t* offsets, size_t count, const uint8_t* skip, uint8_t* out) {
  const uint64_t base = offsets[0];
  std::vector<uint64_t> rebased(count + 1), starts(count + 1, 0);
  for (size_t i = 0; i <= count; ++i) rebased[i] = offsets[i] - base;
  constexpr uint64_t kUnitBytes = 16 * kUnitBlocks;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t len = rebased[i + 1] - rebased[i];
    const bool skipped = skip != nullptr && skip[i] != 0;
    starts[i + 1] = starts[i] + (skipped ? 0 : (len + kUnitBytes - 1) / kUnitBytes);
  }
  const size_t units = size_t(starts[count]);
  const bool ctr = mode == MessageMode::kCtr;
  const size_t total = size_t(rebased[count]);
  const size_t at_offsets = round_up16(total);
  const size_t at_starts = at_offsets + 8 * (count + 1);
  const size_t at_keys = round_up16(at_starts + 8 * (count + 1));
  const size_t at_ivs = at_keys + 16 * count;
  const size_t at_rk = at_ivs + (ctr ? 16 * count : 0);
  DeviceArea area;
  cudaError_t e = area.allocate(at_rk + 4 * kRounds * count);
  if (e == cudaSuccess && total != 0)
    e = cudaMemcpy(area.at(0), data + base, total, cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(area.at(at_offsets), rebased.data(), 8 * (count + 1), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(area.at(at_starts), starts.data(), 8 * (count + 1), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(area.at(at_keys), keys, 16 * count, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && ctr)
    e = cudaMemcpy(area.at(at_ivs), ivs, 16 * count, cudaMemcpyHostToDevice);
  if (e != cudaSuccess || units == 0) return e;
  uint32_t* rk = reinterpret_cast<uint32_t*>(area.at(at_rk));
  key_schedule_kernel<<<unsigned((count + kThreads - 1) / kThreads), kThreads>>>(
      area.at(at_keys), rk, count, mode == MessageMode::kEcbDecrypt);
  const DeviceMessages m = {area.at(0),
                            reinterpret_cast<const uint64_t*>(area.at(at_offsets)),
                            reinterpret_cast<const uint64_t*>(area.at(at_starts)),
                            rk,
                            area.at(at_ivs),
                            count};
  const unsigned grid = unsigned((units + kThreads - 1) / kThreads);
  if (ctr) messages_kernel<true><<<grid, kThreads>>>(m);
  else messages_kernel<false><<<grid, kThreads>>>(m);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = copy_back(area.at(0), rebased.data(), count, skip, out + base);
  return e;
}

}  // namespace

int crypt_messages(ks::gpu::Engine& engine, MessageMode mode, const uint8_t* keys,
                   const uint8_t* ivs, const uint8_t* data, const uint64_t* offsets,
                   size_t count, const uint8_t* skip, uint8_t* out) {
  if (count == 0) return KS_OK;
  cudaError_t e = cudaSetDevice(engine.device());
  if (e == cudaSuccess) e = run(mode, keys, ivs, data, offsets, count, skip, out);
  return ks::gpu::to_status(e);
}

}  // namespace sm4_gpu
}  // namespace ks
