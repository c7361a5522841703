// SM4 over many independent messages on the GPU (sm4/gpu/sm4_gpu_messages.h).
//
// Modes whose blocks are independent (ECB, CTR, GCTR, CBC and CFB
// decryption): a unit is up to 32 consecutive blocks of one message: one
// thread holds them as the planes of the bitsliced rounds, so every block
// of a thread has the same key, and the round-key planes come from that
// message's 32 round-key words in registers (MessageKeyPlanes) instead of
// the shared masks of the one-key kernels. Unit u belongs to the message i
// with unit_starts[i] <= u < unit_starts[i + 1] (a binary search over
// public lengths).
//
// Chained modes (CBC and CFB encryption, OFB): block j needs block j - 1,
// so a thread takes 32 messages instead, bit lane l of its planes being
// message l of its group, and steps block j of all 32 together
// (chains_kernel). Each lane has its own key, so the round-key planes are
// a table per group, transposed across the lanes once by
// lane_key_planes_kernel.
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
// tag's mask). CBC decryption decrypts the data and XORs the previous
// ciphertext block (the IV before block 0); CFB decryption encrypts the
// previous ciphertext block (the IV) and XORs the data (NIST SP 800-38A 6.2,
// 6.3). Both read the blocks next to their own, which another thread may
// hold, so they write to a separate buffer (DeviceMessages::out).
enum class Blocks { kEcb, kCtr128, kGctr, kCbcDecrypt, kCfbDecrypt };

struct DeviceMessages {
  uint8_t* data;                // the messages, rebased to offset 0
  uint8_t* out;                 // the output, rebased: data (in place) but for kCbc/kCfbDecrypt
                                // (a buffer of its own)
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

// x ^= the block at p as big-endian words, only its first n <= 16 bytes
// (the rest as zeros; n public).
__device__ __forceinline__ void xor_words(const uint8_t* p, size_t n, uint32_t x[4]) {
  if (n == 16) {
    uint32_t y[4];
    load_words(p, y);
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] ^= y[k];
    return;
  }
#pragma unroll
  for (int b = 0; b < 16; ++b)
    if (size_t(b) < n) x[b / 4] ^= uint32_t(p[b]) << (24 - 8 * (b % 4));
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
  constexpr bool kCtr = B == Blocks::kCtr128 || B == Blocks::kGctr;
  const size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (u >= m.unit_starts[m.count]) return;
  const size_t i = message_of(m, u);
  if (m.ok != nullptr && m.ok[i] == 0) return;  // a tag that did not match: nothing released
  const size_t first = kUnitBlocks * (u - m.unit_starts[i]);  // block index in the message
  const size_t bytes = min_size(m.offsets[i + 1] - m.offsets[i] - 16 * first, 16 * kUnitBlocks);
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
        load_words(first + l == 0 ? iv : p + 16 * l - 16, x);
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
    uint32_t x[4] = {w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]};
    const size_t n = min_size(16, bytes - 16 * size_t(l));
    if (B == Blocks::kCbcDecrypt) xor_words(first + l == 0 ? iv : p + 16 * l - 16, 16, x);
    if (B == Blocks::kCfbDecrypt) xor_words(p + 16 * l, n, x);
    write_bytes<kCtr>(q + 16 * l, x, n);
  }
}

// --- Chained modes: 32 messages a thread ----------------------------------------
// Group g is 32 messages (fewer in the last group), its lane l the message
// of the call's l-th in the group; groups are cut from the messages sorted
// by length, longest first, so that the lanes of a thread, and the threads
// of a warp, run about as many steps. Tables are lane-major across groups,
// [l * groups + g], so that a warp's threads read consecutive entries.
enum class Chain { kCbc, kCfb, kOfb };

constexpr unsigned kChainThreads = 32;  // a warp a block: few groups still spread over the SMs
constexpr uint64_t kNoMessage = ~uint64_t(0);

struct DeviceChains {
  uint8_t* data;            // the messages, rebased to offset 0; in place
  const ulonglong2* spans;  // [l * groups + g]: (start, length) of lane l's message (0: none)
  const uint4* ivs;         // [l * groups + g]: lane l's IV
  const uint4* planes;      // [(8 r + k / 4) * groups + g]: planes k .. k + 3 of round key r
  const uint64_t* steps;    // [g]: blocks of the group's longest message
  size_t groups;
};

// Round-key planes of group g: bit l of plane k of round r is bit k of
// round key r of lane l (zero for a lane without a message), the 32 round
// keys r of the group transposed, one thread per (g, r). The addresses
// depend only on g, r and the message indices (public).
__global__ void lane_key_planes_kernel(const uint32_t* rk, const uint64_t* lane_message,
                                       uint4* planes, size_t groups) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= groups * kRounds) return;
  const size_t g = t % groups, r = t / groups;
  uint32_t a[32];
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    const uint64_t i = lane_message[size_t(l) * groups + g];
    a[l] = i != kNoMessage ? rk[kRounds * i + r] : 0;
  }
  transpose32(a);
#pragma unroll
  for (int q = 0; q < 8; ++q)
    planes[(8 * r + q) * groups + g] =
        make_uint4(a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]);
}

// The round-key planes of a thread's 32 lanes, four per load, coalesced
// across the warp (consecutive groups); public addresses.
struct LaneKeyPlanes {
  const uint4* planes;  // + g
  size_t groups;
  __device__ __forceinline__ uint4 planes4(int round, int k) const {
    return __ldg(planes + (8 * size_t(round) + size_t(k / 4)) * groups);
  }
};

// One thread a group; w holds a block of each lane as words (w[k].bit[l]:
// word k of lane l) between the steps: the chaining value. Step j, for
// every lane whose message has a block j (lengths are public: the other
// lanes compute on and write nothing):
//   CBC:  X = P_j ^ C_{j-1}, C_j = E(X)          (C_{-1} = IV)
//   CFB:  C_j = P_j ^ E(C_{j-1}), the last block truncated
//   OFB:  O_j = E(O_{j-1}), out_j = in_j ^ O_j   (O_{-1} = IV), truncated
template <Chain C>
__global__ void __launch_bounds__(kChainThreads) chains_kernel(const DeviceChains c) {
  const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= c.groups) return;
  const LaneKeyPlanes keys{c.planes + g, c.groups};
  Slice w[4];
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    uint32_t x[4];
    load_words(reinterpret_cast<const uint8_t*>(c.ivs + size_t(l) * c.groups + g), x);
#pragma unroll
    for (int k = 0; k < 4; ++k) w[k].bit[l] = x[k];
  }
  const uint64_t steps = c.steps[g];
  for (uint64_t j = 0; j < steps; ++j) {
    const uint64_t at = 16 * j;
    if (C == Chain::kCbc) {
#pragma unroll
      for (int l = 0; l < 32; ++l) {
        const ulonglong2 s = c.spans[size_t(l) * c.groups + g];
        if (at >= s.y) continue;
        uint32_t x[4] = {w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]};
        xor_words(c.data + s.x + at, 16, x);
#pragma unroll
        for (int k = 0; k < 4; ++k) w[k].bit[l] = x[k];
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) transpose32(w[k].bit);
    sliced_rounds(w, keys);
#pragma unroll
    for (int k = 0; k < 4; ++k) transpose32(w[k].bit);
#pragma unroll
    for (int l = 0; l < 32; ++l) {
      const ulonglong2 s = c.spans[size_t(l) * c.groups + g];
      if (at >= s.y) continue;
      uint8_t* p = c.data + s.x + at;
      const size_t n = min_size(16, s.y - at);
      uint32_t x[4] = {w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]};
      if (C == Chain::kCfb) {  // C_j, the next step's input
        xor_words(p, n, x);
#pragma unroll
        for (int k = 0; k < 4; ++k) w[k].bit[l] = x[k];
      }
      write_bytes<C == Chain::kOfb>(p, x, n);
    }
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
          a.at(at_data),
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

// ECB, CTR, and CBC and CFB decryption: units of one message. skip is
// never null here; keep = its complement.
cudaError_t blocks_on_device(MessageMode mode, const uint8_t* keys, const uint8_t* ivs,
                             const uint8_t* data, const uint64_t* offsets, size_t count,
                             const uint8_t* skip, const uint8_t* keep, uint8_t* out) {
  const bool ecb = mode == MessageMode::kEcbEncrypt || mode == MessageMode::kEcbDecrypt;
  // CBC and CFB decryption read their neighbours' input: output apart.
  const bool apart = mode == MessageMode::kCbcDecrypt || mode == MessageMode::kCfbDecrypt;
  Staged s;
  DeviceArea output;
  cudaError_t e = stage(keys, ivs, ecb ? 0 : 16, data, offsets, count, skip,
                        mode == MessageMode::kEcbDecrypt || mode == MessageMode::kCbcDecrypt, &s);
  if (e == cudaSuccess && apart) {
    output.reserve(size_t(s.offsets[count]));
    e = output.allocate();
    if (e == cudaSuccess) s.m.out = output.at(0);
  }
  if (e == cudaSuccess) {
    switch (mode) {
      case MessageMode::kCtr: e = launch_blocks<Blocks::kCtr128>(s, nullptr); break;
      case MessageMode::kCbcDecrypt: e = launch_blocks<Blocks::kCbcDecrypt>(s, nullptr); break;
      case MessageMode::kCfbDecrypt: e = launch_blocks<Blocks::kCfbDecrypt>(s, nullptr); break;
      default: e = launch_blocks<Blocks::kEcb>(s, nullptr); break;
    }
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = copy_back(s.m.out, s.offsets.data(), count, keep, out + offsets[0]);
  return e;
}

template <Chain C>
cudaError_t launch_chains(const DeviceChains& c) {
  chains_kernel<C><<<blocks_for(c.groups, kChainThreads), kChainThreads>>>(c);
  return cudaGetLastError();
}

// CBC and CFB encryption and OFB: groups of 32 messages (chains_kernel).
// The messages computed (not skipped, not empty) sorted by length, longest
// first (a stable sort: lengths are public), cut into groups; each
// group's lanes, IVs and round-key planes laid out lane-major.
cudaError_t chains_on_device(MessageMode mode, const uint8_t* keys, const uint8_t* ivs,
                             const uint8_t* data, const uint64_t* offsets, size_t count,
                             const uint8_t* skip, const uint8_t* keep, uint8_t* out) {
  Staged s;  // the data in place, the key schedules (IVs go in the lanes' table)
  cudaError_t e = stage(keys, nullptr, 0, data, offsets, count, skip, false, &s);
  if (e != cudaSuccess) return e;
  const uint64_t* at = s.offsets.data();
  std::vector<size_t> order;
  for (size_t i = 0; i < count; ++i)
    if (skip[i] == 0 && at[i + 1] > at[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return at[x + 1] - at[x] > at[y + 1] - at[y]; });
  const size_t groups = (order.size() + 31) / 32, lanes = 32 * groups;
  std::vector<uint64_t> spans(2 * lanes, 0), lane_message(lanes, kNoMessage), steps(groups, 0);
  std::vector<uint8_t> lane_ivs(16 * lanes, 0);
  for (size_t n = 0; n < order.size(); ++n) {
    const size_t i = order[n], g = n / 32, slot = (n % 32) * groups + g;
    const uint64_t len = at[i + 1] - at[i];
    spans[2 * slot] = at[i];
    spans[2 * slot + 1] = len;
    lane_message[slot] = i;
    memcpy(lane_ivs.data() + 16 * slot, ivs + 16 * i, 16);
    steps[g] = std::max<uint64_t>(steps[g], (len + 15) / 16);
  }
  DeviceArea t;  // lanes, IVs, steps and the round-key planes
  const size_t at_spans = t.reserve(16 * lanes), at_ivs = t.reserve(16 * lanes),
               at_lane_message = t.reserve(8 * lanes), at_steps = t.reserve(8 * groups),
               at_planes = t.reserve(16 * 8 * size_t(kRounds) * groups);
  e = t.allocate();
  if (e == cudaSuccess) e = to_device(t.at(at_spans), spans.data(), 16 * lanes);
  if (e == cudaSuccess) e = to_device(t.at(at_ivs), lane_ivs.data(), 16 * lanes);
  if (e == cudaSuccess) e = to_device(t.at(at_lane_message), lane_message.data(), 8 * lanes);
  if (e == cudaSuccess) e = to_device(t.at(at_steps), steps.data(), 8 * groups);
  if (e == cudaSuccess && groups != 0) {
    uint4* planes = reinterpret_cast<uint4*>(t.at(at_planes));
    lane_key_planes_kernel<<<blocks_for(groups * kRounds, kThreads), kThreads>>>(
        s.m.rk, reinterpret_cast<const uint64_t*>(t.at(at_lane_message)), planes, groups);
    const DeviceChains c = {s.m.data,
                            reinterpret_cast<const ulonglong2*>(t.at(at_spans)),
                            reinterpret_cast<const uint4*>(t.at(at_ivs)),
                            planes,
                            reinterpret_cast<const uint64_t*>(t.at(at_steps)),
                            groups};
    e = cudaGetLastError();
    if (e == cudaSuccess) {
      switch (mode) {
        case MessageMode::kCbcEncrypt: e = launch_chains<Chain::kCbc>(c); break;
        case MessageMode::kCfbEncrypt: e = launch_chains<Chain::kCfb>(c); break;
        default: e = launch_chains<Chain::kOfb>(c); break;
      }
    }
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = copy_back(s.m.data, s.offsets.data(), count, keep, out + offsets[0]);
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
  if (ivs == nullptr && mode != MessageMode::kEcbEncrypt && mode != MessageMode::kEcbDecrypt)
    return KS_ERR_NULL_POINTER;
  // The messages skipped: the caller's, and CBC messages that are not
  // whole blocks.
  const bool cbc = mode == MessageMode::kCbcEncrypt || mode == MessageMode::kCbcDecrypt;
  std::vector<uint8_t> skipped(count), keep(count);
  for (size_t i = 0; i < count; ++i) {
    const bool partial = (offsets[i + 1] - offsets[i]) % 16 != 0;
    skipped[i] = (skip != nullptr && skip[i] != 0) || (cbc && partial);
    keep[i] = skipped[i] == 0;
  }
  const bool chained = mode == MessageMode::kCbcEncrypt || mode == MessageMode::kCfbEncrypt ||
                       mode == MessageMode::kOfb;
  cudaError_t e = cudaSetDevice(engine.device());
  if (e == cudaSuccess)
    e = (chained ? chains_on_device : blocks_on_device)(mode, keys, ivs, data, offsets, count,
                                                        skipped.data(), keep.data(), out);
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
