// Bitsliced block ciphers over many independent messages on the GPU, each
// with its own key (and IV), written once over a cipher policy: ECB, CTR
// (128-bit counter), GCTR (inc32) and CBC / CFB decryption, whose blocks
// are independent. A unit is up to 32 consecutive blocks of one message:
// one thread holds them as the planes of the bitsliced rounds
// (cipher/gpu/sliced_gpu.cuh's Slice), so every block of a thread has the
// same key, and the round-key planes come from that message's round-key
// words (the policy's rounds). Unit u belongs to the message i with
// unit_starts[i] <= u < unit_starts[i + 1] (a binary search over public
// lengths). Constant time: no key- or data-dependent branch or address.
//
//   struct Cipher {
//     static constexpr bool kBigEndian;  // a block's words: big-endian (SM4)
//                                        // or little-endian rows (SKINNY)
//     static constexpr int kKeyWords;    // round-key words per message
//     __device__ static void rounds(Slice w[4], const uint32_t* rk);
//   };
//
// SM4 (sm4/gpu/sm4_gpu_messages.cu) and SKINNY-128-256
// (skinny/gpu/skinny_gpu_messages.cu) use it. Device code: include from
// .cu files only.
#ifndef KS_CIPHER_MESSAGES_GPU_CUH_
#define KS_CIPHER_MESSAGES_GPU_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>

#include "cipher/gpu/sliced_gpu.cuh"
#include "core/endian.h"
#include "kuaisuo/common.h"

namespace ks {
namespace messages_gpu {

using sliced_gpu::Slice;
using sliced_gpu::transpose32;

constexpr unsigned kThreads = 128;
constexpr size_t kUnitBlocks = 32;
constexpr uint64_t kUnitBytes = 16 * kUnitBlocks;

// The units of a message of len bytes: its blocks, 32 a unit.
__host__ __device__ constexpr uint64_t units_of(uint64_t len) {
  return (len + kUnitBytes - 1) / kUnitBytes;
}

// How a message's blocks are made: ECB encrypts the data; CTR the 128-bit
// counter IV + block index; GCTR (GCM, 96-bit IV) the counter IV || 2 +
// block index, inc32 (NIST SP 800-38D 6.2 and 7.1: J0 = IV || 1 is the
// tag's mask). CBC decryption decrypts the data and XORs the previous
// ciphertext block (the IV before block 0); CFB decryption encrypts the
// previous ciphertext block (the IV) and XORs the data (NIST SP 800-38A
// 6.2, 6.3). Both read the blocks next to their own, which another thread
// may hold: they write to a buffer apart from their input.
enum class Blocks { kEcb, kCtr128, kGctr, kCbcDecrypt, kCfbDecrypt };

struct DeviceMessages {
  const uint8_t* data;          // the messages, rebased to offset 0
  uint8_t* out;                 // the output, rebased (CBC, CFB: apart from data)
  const uint64_t* offsets;      // count + 1, rebased
  const uint64_t* unit_starts;  // count + 1: units before message i
  const uint32_t* rk;           // Cipher::kKeyWords round-key words per message
  const uint8_t* ivs;           // iv_stride bytes per message (CTR, GCTR, CBC, CFB)
  size_t iv_stride;
  const int* status;  // message i only where status[i] == KS_OK (null: all): a
                      // range or length the device found bad, a GCM tag that did
                      // not match (nothing released)
  size_t count;
};

__device__ __forceinline__ size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

__device__ __forceinline__ bool aligned16(const uint8_t* p) {
  return (reinterpret_cast<uintptr_t>(p) & 15) == 0;
}

// A big-endian word (a counter's) as the cipher's word of the same bytes.
template <bool kBigEndian>
__device__ __forceinline__ uint32_t from_be(uint32_t w) {
  return kBigEndian ? w : byte_swap32(w);
}

// Byte b (0..3) of a cipher word, in memory order.
template <bool kBigEndian>
__device__ __forceinline__ int byte_shift(int b) {
  return kBigEndian ? 24 - 8 * b : 8 * b;
}

// Block p as the cipher's words (messages start at any byte).
template <bool kBigEndian>
__device__ __forceinline__ void load_words(const uint8_t* p, uint32_t x[4]) {
  if (aligned16(p)) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    const uint32_t m[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) x[i] = kBigEndian ? byte_swap32(m[i]) : m[i];
    return;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[i] = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) x[i] |= uint32_t(p[4 * i + b]) << byte_shift<kBigEndian>(b);
  }
}

// x ^= the block at p as the cipher's words, only its first n <= 16 bytes
// (the rest as zeros; n public).
template <bool kBigEndian>
__device__ __forceinline__ void xor_words(const uint8_t* p, size_t n, uint32_t x[4]) {
  if (n == 16) {
    uint32_t y[4];
    load_words<kBigEndian>(p, y);
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] ^= y[k];
    return;
  }
#pragma unroll
  for (int b = 0; b < 16; ++b)
    if (size_t(b) < n) x[b / 4] ^= uint32_t(p[b]) << byte_shift<kBigEndian>(b % 4);
}

// p[0 .. n) = the bytes of the cipher's words x, n <= 16.
template <bool kBigEndian>
__device__ __forceinline__ void write_bytes(uint8_t* p, const uint32_t x[4], size_t n) {
  if (n == 16 && aligned16(p)) {
    *reinterpret_cast<uint4*>(p) =
        kBigEndian ? make_uint4(byte_swap32(x[0]), byte_swap32(x[1]), byte_swap32(x[2]),
                                byte_swap32(x[3]))
                   : make_uint4(x[0], x[1], x[2], x[3]);
    return;
  }
  for (size_t b = 0; b < n; ++b) {
    // Selects, not an indexed array: an array would live in local memory.
    const uint32_t word = b < 8 ? (b < 4 ? x[0] : x[1]) : (b < 12 ? x[2] : x[3]);
    p[b] = uint8_t(word >> byte_shift<kBigEndian>(int(b % 4)));
  }
}

__device__ __forceinline__ uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
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

// Unit u of the call's messages.
template <class Cipher, Blocks B>
__device__ __forceinline__ void message_unit(const DeviceMessages& m, size_t u) {
  constexpr bool kBE = Cipher::kBigEndian;
  constexpr bool kCtr = B == Blocks::kCtr128 || B == Blocks::kGctr;
  const size_t i = message_of(m, u);
  if (m.status != nullptr && m.status[i] != KS_OK) return;
  const size_t first = kUnitBlocks * (u - m.unit_starts[i]);  // block index in the message
  const size_t bytes = min_size(m.offsets[i + 1] - m.offsets[i] - 16 * first, kUnitBytes);
  const size_t nblocks = (bytes + 15) / 16;
  const uint8_t* p = m.data + m.offsets[i] + 16 * first;
  uint8_t* q = m.out + m.offsets[i] + 16 * first;
  uint64_t hi = 0, lo = 0;  // the counter of block `first`
  const uint8_t* iv = m.ivs + m.iv_stride * i;
  if (B == Blocks::kCtr128) {
    hi = uint64_t(load_be32(iv)) << 32 | load_be32(iv + 4);
    lo = uint64_t(load_be32(iv + 8)) << 32 | load_be32(iv + 12);
    const uint64_t lo0 = lo;
    lo += first;
    hi += lo < lo0 ? 1 : 0;
  } else if (B == Blocks::kGctr) {
    hi = uint64_t(load_be32(iv)) << 32 | load_be32(iv + 4);
    lo = uint64_t(load_be32(iv + 8)) << 32 | uint32_t(2 + first);
  }
  Slice w[4];
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    uint32_t x[4] = {0, 0, 0, 0};
    if (size_t(l) < nblocks) {
      if (B == Blocks::kCtr128) {
        const uint64_t c_lo = lo + uint64_t(l), c_hi = hi + (c_lo < lo ? 1 : 0);
        x[0] = uint32_t(c_hi >> 32), x[1] = uint32_t(c_hi), x[2] = uint32_t(c_lo >> 32),
        x[3] = uint32_t(c_lo);
      } else if (B == Blocks::kGctr) {
        x[0] = uint32_t(hi >> 32), x[1] = uint32_t(hi), x[2] = uint32_t(lo >> 32),
        x[3] = uint32_t(lo) + uint32_t(l);
      } else if (B == Blocks::kCfbDecrypt) {  // the previous ciphertext block, or the IV
        load_words<kBE>(first + l == 0 ? iv : p + 16 * l - 16, x);
      } else {
        load_words<kBE>(p + 16 * l, x);
      }
      if (kCtr) {
#pragma unroll
        for (int k = 0; k < 4; ++k) x[k] = from_be<kBE>(x[k]);
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) w[k].bit[l] = x[k];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) transpose32(w[k].bit);
  Cipher::rounds(w, m.rk + size_t(Cipher::kKeyWords) * i);
#pragma unroll
  for (int k = 0; k < 4; ++k) transpose32(w[k].bit);
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    if (size_t(l) >= nblocks) continue;
    uint32_t x[4] = {w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]};
    const size_t n = min_size(16, bytes - 16 * size_t(l));
    if (B == Blocks::kCbcDecrypt)
      xor_words<kBE>(first + l == 0 ? iv : p + 16 * l - 16, 16, x);
    if (B == Blocks::kCfbDecrypt || kCtr) xor_words<kBE>(p + 16 * l, n, x);
    write_bytes<kBE>(q + 16 * l, x, n);
  }
}

// Grid-stride over the units (the device-memory path sizes its grid
// without reading their number).
template <class Cipher, Blocks B>
__global__ void __launch_bounds__(kThreads) messages_kernel(const DeviceMessages m) {
  const size_t units = m.unit_starts[m.count];
  for (size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x; u < units;
       u += size_t(gridDim.x) * blockDim.x)
    message_unit<Cipher, B>(m, u);
}

// --- Batches on device memory ------------------------------------------------------
// Every array is the caller's device memory (kuaisuo/common.h, "Device
// memory"): the host reads none of it, so the offsets are checked per
// message on the device and the units counted there.
//
// Message i: status[i] = KS_ERR_OFFSETS where its range (or its AAD's)
// descends or passes the buffer, KS_ERR_LENGTH where a block mode has a
// partial block or a message is over max_len, else KS_OK; units[i] its
// units of 32 blocks (0 unless KS_OK).
struct DeviceChecks {
  const uint64_t* offsets;
  uint64_t limit;  // min(data_len, out_len)
  const uint64_t* aad_offsets;
  uint64_t aad_len;
  bool whole_blocks;
  uint64_t max_len;
  size_t count;
  uint64_t* units;
  int* status;
};

// static: each .cu that includes this has its own.
static __global__ void device_check_kernel(const DeviceChecks c) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= c.count) return;
  const uint64_t lo = c.offsets[i], hi = c.offsets[i + 1];
  int st = KS_OK;
  if (lo > hi || hi > c.limit) st = KS_ERR_OFFSETS;
  else if (c.aad_offsets != nullptr &&
           (c.aad_offsets[i] > c.aad_offsets[i + 1] || c.aad_offsets[i + 1] > c.aad_len))
    st = KS_ERR_OFFSETS;
  else if ((c.whole_blocks && (hi - lo) % 16 != 0) || hi - lo > c.max_len)
    st = KS_ERR_LENGTH;
  c.status[i] = st;
  c.units[i] = st == KS_OK ? units_of(hi - lo) : 0;
}

// starts[0] = 0 and starts[i + 1] = starts[i] + units[i] for i < n (CUB's
// scan) on stream, with temp_bytes of device scratch at temp; temp null:
// only sets temp_bytes to what the scan needs.
inline cudaError_t scan_units(void* temp, size_t* temp_bytes, const uint64_t* units,
                              uint64_t* starts, size_t n, cudaStream_t stream) {
  if (temp == nullptr)
    return cub::DeviceScan::InclusiveSum(nullptr, *temp_bytes, units, starts, n, stream);
  const cudaError_t e = cudaMemsetAsync(starts, 0, sizeof(uint64_t), stream);
  if (e != cudaSuccess) return e;
  return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, units, starts + 1, n, stream);
}

// A device batch's messages checked (checks: the offsets the kernels will
// read, status and units written per message) and their units counted into
// starts (scan_units, temp_bytes of scratch at temp), on stream. static,
// as the kernel it launches is.
static inline cudaError_t count_units(const DeviceChecks& checks, void* temp,
                                      size_t temp_bytes, uint64_t* starts, cudaStream_t stream) {
  const unsigned grid = unsigned((checks.count + kThreads - 1) / kThreads);
  device_check_kernel<<<grid, kThreads, 0, stream>>>(checks);
  return scan_units(temp, &temp_bytes, checks.units, starts, checks.count, stream);
}

// Blocks of messages_kernel for a device batch of data_len bytes in n
// messages (grid-stride: a few blocks per SM cover any number of units,
// which the host does not read).
inline unsigned unit_grid(size_t data_len, size_t n) {
  return gpu::grid_for(data_len / kUnitBytes + n, kThreads, 16);
}

}  // namespace messages_gpu
}  // namespace ks

#endif  // KS_CIPHER_MESSAGES_GPU_CUH_
