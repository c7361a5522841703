// SM4 over many independent messages on the GPU (sm4/gpu/sm4_gpu_messages.h).
//
// A unit is up to 32 consecutive blocks of one message: one thread holds
// them as the planes of the bitsliced rounds, so every block of a thread
// has the same key, and the round-key planes come from that message's 32
// round-key words in registers (MessageKeyPlanes) instead of the shared
// masks of the one-key kernels. Unit u belongs to the message i with
// unit_starts[i] <= u < unit_starts[i + 1] (a binary search over public
// lengths).
#include "sm4/gpu/sm4_gpu_messages.h"

#include <cuda_runtime.h>
#include <string.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "cipher/gpu/gf128_gpu.cuh"
#include "sm4/sm4_core.h"
#include "sm4/gpu/sm4_gpu_rounds.cuh"
#include "gpu/gpu_engine.cuh"
#include "gpu/launch.cuh"
#include "kuaisuo/sm4.h"

namespace ks {
namespace sm4 {
namespace gpu {
namespace {

using ks::gpu::blocks_for;

constexpr int kThreads = 128;
constexpr size_t kUnitBlocks = 32;

// How a message's blocks are made: ECB encrypts the data; CTR the 128-bit
// counter IV + block index; GCTR (GCM, 96-bit IV) the counter IV || 2 +
// block index, inc32 (NIST SP 800-38D 6.2 and 7.1: J0 = IV || 1 is the
// tag's mask).
enum class Blocks { kEcb, kCtr128, kGctr };

struct DeviceMessages {
  uint8_t* data;                // the messages, rebased to offset 0; in place
  const uint64_t* offsets;      // count + 1, rebased
  const uint64_t* unit_starts;  // count + 1: units before message i
  const uint32_t* rk;           // 32 round-key words per message
  const uint8_t* ivs;           // iv_stride bytes per message (CTR, GCTR)
  size_t iv_stride;
  const int* ok;  // GCM-AD: message i only where ok[i] (null: all)
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

template <Blocks B>
__global__ void __launch_bounds__(kThreads) messages_kernel(const DeviceMessages m) {
  constexpr bool kCtr = B != Blocks::kEcb;
  const size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (u >= m.unit_starts[m.count]) return;
  const size_t i = message_of(m, u);
  if (m.ok != nullptr && m.ok[i] == 0) return;  // a tag that did not match: nothing released
  const size_t first = kUnitBlocks * (u - m.unit_starts[i]);  // block index in the message
  const size_t bytes = min_size(m.offsets[i + 1] - m.offsets[i] - 16 * first, 16 * kUnitBlocks);
  const size_t nblocks = (bytes + 15) / 16;
  uint8_t* p = m.data + m.offsets[i] + 16 * first;
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

// GCM's tag of message i, one thread each (SP 800-38D 7.1 steps 5-6):
// S = GHASH_H(A || 0* || C || 0* || [len(A)]64 || [len(C)]64), tag =
// S ^ E(J0), H = E(0^128), J0 = IV || 0^31 || 1; C is the message's data
// as it is on the device (the ciphertext: after GCTR when sealing, before
// it when opening). Sealing writes the 16-byte tag; opening compares its
// first tag_len bytes with expect in constant time into ok[i].
struct DeviceTags {
  const uint8_t* aad;           // rebased to offset 0
  const uint64_t* aad_offsets;  // count + 1, rebased (null: no AAD)
  uint8_t* tags;                // 16 bytes per message (sealing)
  const uint8_t* expect;        // tag_len bytes per message (opening; null when sealing)
  unsigned tag_len;
  int* ok;
};

// Up to 16 bytes at p as a block, zero-padded (n public).
__device__ __forceinline__ gf128_gpu::Gf128 load_block(const uint8_t* p, size_t n) {
  uint8_t b[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) b[k] = size_t(k) < n ? p[k] : 0;
  uint64_t hi = 0, lo = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) hi = hi << 8 | b[k], lo = lo << 8 | b[8 + k];
  return {hi, lo};
}

// y = (y ^ X_1) H, (y ^ X_2) H, ... over len bytes at p.
__device__ __forceinline__ gf128_gpu::Gf128 ghash_bytes(gf128_gpu::Gf128 y, gf128_gpu::Gf128 h,
                                                        const uint8_t* p, size_t len) {
  for (size_t at = 0; at < len; at += 16)
    y = gf128_gpu::gf_mul(gf128_gpu::gf_xor(y, load_block(p + at, min_size(16, len - at))), h);
  return y;
}

__global__ void gcm_tags_kernel(const DeviceMessages m, const DeviceTags t) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m.count) return;
  const uint32_t* rk = m.rk + kRounds * i;
  uint8_t block[16] = {}, mask[16];
  sm4::crypt_block(rk, block, block);  // H
  const gf128_gpu::Gf128 h = load_block(block, 16);
  const uint8_t* iv = m.ivs + m.iv_stride * i;
#pragma unroll
  for (int k = 0; k < 16; ++k) block[k] = k < 12 ? iv[k] : k == 15 ? 1 : 0;
  sm4::crypt_block(rk, block, mask);  // E(J0)
  const size_t aad_len = t.aad_offsets != nullptr ? t.aad_offsets[i + 1] - t.aad_offsets[i] : 0;
  const size_t len = m.offsets[i + 1] - m.offsets[i];
  gf128_gpu::Gf128 y = {0, 0};
  if (aad_len != 0) y = ghash_bytes(y, h, t.aad + t.aad_offsets[i], aad_len);
  y = ghash_bytes(y, h, m.data + m.offsets[i], len);
  y = gf128_gpu::gf_mul(gf128_gpu::gf_xor(y, {uint64_t(aad_len) * 8, uint64_t(len) * 8}), h);
  uint8_t diff = 0;
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const uint8_t tag = uint8_t((k < 8 ? y.hi >> (56 - 8 * k) : y.lo >> (120 - 8 * k))) ^ mask[k];
    if (t.expect == nullptr) t.tags[16 * i + k] = tag;
    else if (unsigned(k) < t.tag_len) diff |= tag ^ t.expect[size_t(t.tag_len) * i + k];
  }
  if (t.expect != nullptr) t.ok[i] = diff == 0 ? 1 : 0;
}

size_t round_up16(size_t x) { return (x + 15) & ~size_t(15); }

// One device allocation for a call, carved into 16-byte aligned parts;
// zeroed (plaintext, keys, round keys) and freed on every path.
class DeviceArea {
 public:
  // Reserves a part of n bytes (before allocate) and returns its offset.
  size_t reserve(size_t n) {
    const size_t at = bytes_;
    bytes_ += round_up16(n);
    return at;
  }
  cudaError_t allocate() {
    memory_.emplace(bytes_, nullptr, ks::gpu::Wipe::kYes);
    return memory_->error();
  }
  uint8_t* at(size_t offset) const { return memory_->get() + offset; }

 private:
  size_t bytes_ = 0;
  std::optional<ks::gpu::DeviceArray<uint8_t>> memory_;
};

cudaError_t to_device(uint8_t* dst, const void* src, size_t n) {
  return n == 0 ? cudaSuccess : cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
}

// offsets[0 .. count] minus offsets[0].
std::vector<uint64_t> rebase(const uint64_t* offsets, size_t count) {
  std::vector<uint64_t> r(count + 1);
  for (size_t i = 0; i <= count; ++i) r[i] = offsets[i] - offsets[0];
  return r;
}

// Copies back the messages with keep[i] (all if keep is null), runs of
// neighbours in one copy each.
cudaError_t copy_back(const uint8_t* dev, const uint64_t* rebased, size_t count,
                      const uint8_t* keep, uint8_t* out) {
  size_t i = 0;
  while (i < count) {
    if (keep != nullptr && keep[i] == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < count && (keep == nullptr || keep[j] != 0)) ++j;
    const size_t from = rebased[i], len = rebased[j] - rebased[i];
    if (len != 0) {
      const cudaError_t e = cudaMemcpy(out + from, dev + from, len, cudaMemcpyDeviceToHost);
      if (e != cudaSuccess) return e;
    }
    i = j;
  }
  return cudaSuccess;
}

// One call's messages on the device: the data, offsets, units, keys, IVs
// and round keys copied in and the key schedules run.
struct Staged {
  DeviceArea area;
  DeviceMessages m = {};
  std::vector<uint64_t> offsets;  // rebased
  size_t units = 0;
};

cudaError_t stage(const uint8_t* keys, const uint8_t* ivs, size_t iv_stride,
                  const uint8_t* data, const uint64_t* offsets, size_t count,
                  const uint8_t* skip, bool decrypt_keys, Staged* s) {
  s->offsets = rebase(offsets, count);
  std::vector<uint64_t> starts(count + 1, 0);
  constexpr uint64_t kUnitBytes = 16 * kUnitBlocks;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t len = s->offsets[i + 1] - s->offsets[i];
    const bool skipped = skip != nullptr && skip[i] != 0;
    starts[i + 1] = starts[i] + (skipped ? 0 : (len + kUnitBytes - 1) / kUnitBytes);
  }
  s->units = size_t(starts[count]);
  const size_t total = size_t(s->offsets[count]);
  DeviceArea& a = s->area;
  const size_t at_data = a.reserve(total), at_offsets = a.reserve(8 * (count + 1)),
               at_starts = a.reserve(8 * (count + 1)), at_keys = a.reserve(16 * count),
               at_ivs = a.reserve(iv_stride * count), at_rk = a.reserve(4 * kRounds * count);
  cudaError_t e = a.allocate();
  if (e == cudaSuccess) e = to_device(a.at(at_data), data + offsets[0], total);
  if (e == cudaSuccess) e = to_device(a.at(at_offsets), s->offsets.data(), 8 * (count + 1));
  if (e == cudaSuccess) e = to_device(a.at(at_starts), starts.data(), 8 * (count + 1));
  if (e == cudaSuccess) e = to_device(a.at(at_keys), keys, 16 * count);
  if (e == cudaSuccess && iv_stride != 0) e = to_device(a.at(at_ivs), ivs, iv_stride * count);
  if (e != cudaSuccess) return e;
  uint32_t* rk = reinterpret_cast<uint32_t*>(a.at(at_rk));
  key_schedule_kernel<<<blocks_for(count, kThreads), kThreads>>>(a.at(at_keys), rk, count,
                                                                  decrypt_keys);
  s->m = {a.at(at_data),
          reinterpret_cast<const uint64_t*>(a.at(at_offsets)),
          reinterpret_cast<const uint64_t*>(a.at(at_starts)),
          rk,
          a.at(at_ivs),
          iv_stride,
          nullptr,
          count};
  return cudaGetLastError();
}

template <Blocks B>
cudaError_t launch_blocks(const Staged& s, const int* ok) {
  if (s.units == 0) return cudaSuccess;
  DeviceMessages m = s.m;
  m.ok = ok;
  messages_kernel<B><<<blocks_for(s.units, kThreads), kThreads>>>(m);
  return cudaGetLastError();
}

cudaError_t blocks_on_device(MessageMode mode, const uint8_t* keys, const uint8_t* ivs,
                             const uint8_t* data, const uint64_t* offsets, size_t count,
                             const uint8_t* skip, uint8_t* out) {
  const bool ctr = mode == MessageMode::kCtr;
  Staged s;
  cudaError_t e = stage(keys, ivs, ctr ? 16 : 0, data, offsets, count, skip,
                        mode == MessageMode::kEcbDecrypt, &s);
  if (e == cudaSuccess)
    e = ctr ? launch_blocks<Blocks::kCtr128>(s, nullptr) : launch_blocks<Blocks::kEcb>(s, nullptr);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<uint8_t> keep(count, 1);
  for (size_t i = 0; skip != nullptr && i < count; ++i) keep[i] = skip[i] == 0;
  if (e == cudaSuccess) e = copy_back(s.m.data, s.offsets.data(), count, keep.data(), out + offsets[0]);
  return e;
}

cudaError_t gcm_on_device(bool seal, const uint8_t* keys, const uint8_t* ivs, const uint8_t* aad,
                          const uint64_t* aad_offsets, const uint8_t* data,
                          const uint64_t* offsets, size_t count, uint8_t* tags, size_t tag_len,
                          uint8_t* out, uint8_t* passed) {
  Staged s;
  DeviceArea t;  // AAD, its offsets, tags, verdicts
  const std::vector<uint64_t> aad_rebased =
      aad_offsets != nullptr ? rebase(aad_offsets, count) : std::vector<uint64_t>();
  const size_t aad_total = aad_offsets != nullptr ? size_t(aad_rebased[count]) : 0;
  const size_t at_aad = t.reserve(aad_total), at_aad_offsets = t.reserve(8 * (count + 1)),
               at_tags = t.reserve(16 * count), at_expect = t.reserve(tag_len * count),
               at_ok = t.reserve(sizeof(int) * count);
  cudaError_t e = stage(keys, ivs, 12, data, offsets, count, nullptr, false, &s);
  if (e == cudaSuccess) e = t.allocate();
  if (e == cudaSuccess && aad_offsets != nullptr) {
    e = to_device(t.at(at_aad), aad + aad_offsets[0], aad_total);
    if (e == cudaSuccess) e = to_device(t.at(at_aad_offsets), aad_rebased.data(), 8 * (count + 1));
  }
  if (e == cudaSuccess && !seal) e = to_device(t.at(at_expect), tags, tag_len * count);
  if (e != cudaSuccess) return e;
  int* ok = reinterpret_cast<int*>(t.at(at_ok));
  const DeviceTags dt = {t.at(at_aad),
                         aad_offsets != nullptr
                             ? reinterpret_cast<const uint64_t*>(t.at(at_aad_offsets))
                             : nullptr,
                         t.at(at_tags), seal ? nullptr : t.at(at_expect), unsigned(tag_len), ok};
  const unsigned grid = blocks_for(count, kThreads);
  if (seal) {  // encrypt, then hash the ciphertext
    e = launch_blocks<Blocks::kGctr>(s, nullptr);
    if (e == cudaSuccess) gcm_tags_kernel<<<grid, kThreads>>>(s.m, dt);
  } else {  // hash the ciphertext, then decrypt only where the tag matched
    gcm_tags_kernel<<<grid, kThreads>>>(s.m, dt);
    e = launch_blocks<Blocks::kGctr>(s, ok);
  }
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return e;
  if (seal) {
    std::vector<uint8_t> full(16 * count);
    e = cudaMemcpy(full.data(), t.at(at_tags), full.size(), cudaMemcpyDeviceToHost);
    for (size_t i = 0; e == cudaSuccess && i < count; ++i)
      memcpy(tags + tag_len * i, full.data() + 16 * i, tag_len);
    memset(passed, 1, count);
  } else {
    std::vector<int> verdict(count);
    e = cudaMemcpy(verdict.data(), ok, sizeof(int) * count, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < count; ++i) passed[i] = e == cudaSuccess && verdict[i] != 0;
  }
  if (e == cudaSuccess) e = copy_back(s.m.data, s.offsets.data(), count, passed, out + offsets[0]);
  return e;
}

}  // namespace

int crypt_messages(ks::gpu::Engine& engine, MessageMode mode, const uint8_t* keys,
                   const uint8_t* ivs, const uint8_t* data, const uint64_t* offsets,
                   size_t count, const uint8_t* skip, uint8_t* out) {
  if (count == 0) return KS_OK;
  cudaError_t e = cudaSetDevice(engine.device());
  if (e == cudaSuccess) e = blocks_on_device(mode, keys, ivs, data, offsets, count, skip, out);
  return ks::gpu::to_status(e);
}

int gcm_messages(ks::gpu::Engine& engine, bool seal, const uint8_t* keys, const uint8_t* ivs,
                 const uint8_t* aad, const uint64_t* aad_offsets, const uint8_t* data,
                 const uint64_t* offsets, size_t count, uint8_t* tags, size_t tag_len,
                 uint8_t* out, uint8_t* passed) {
  if (count == 0) return KS_OK;
  cudaError_t e = cudaSetDevice(engine.device());
  if (e == cudaSuccess)
    e = gcm_on_device(seal, keys, ivs, aad, aad_offsets, data, offsets, count, tags, tag_len,
                      out, passed);
  return ks::gpu::to_status(e);
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks
