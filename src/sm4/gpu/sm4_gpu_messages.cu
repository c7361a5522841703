// SM4 over many independent messages on the GPU (sm4/gpu/sm4_gpu_messages.h).
//
// Modes whose blocks are independent (ECB, CTR, GCTR, CBC and CFB
// decryption) run cipher/gpu/messages_gpu.cuh's units of 32 blocks of one
// message, the round-key planes made from that message's 32 round-key
// words in registers (MessageKeyPlanes) instead of the shared masks of the
// one-key kernels.
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
#include <vector>

#include "cipher/gcm.h"
#include "cipher/gpu/gf128_gpu.cuh"
#include "cipher/gpu/messages_gpu.cuh"
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

using messages_gpu::Blocks;
using messages_gpu::DeviceChecks;
using messages_gpu::DeviceMessages;
using messages_gpu::kThreads;
using messages_gpu::kUnitBlocks;
using messages_gpu::message_of;
using messages_gpu::min_size;
using messages_gpu::units_of;

using messages_gpu::kUnitBytes;
using messages_gpu::messages_kernel;

// SM4 reads a block as four big-endian words (the chained modes' loads).
__device__ __forceinline__ void load_words(const uint8_t* p, uint32_t x[4]) {
  messages_gpu::load_words<true>(p, x);
}
__device__ __forceinline__ void xor_words(const uint8_t* p, size_t n, uint32_t x[4]) {
  messages_gpu::xor_words<true>(p, n, x);
}
__device__ __forceinline__ void write_bytes(uint8_t* p, const uint32_t x[4], size_t n) {
  messages_gpu::write_bytes<true>(p, x, n);
}

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

// SM4 for cipher/gpu/messages_gpu.cuh: 32 round keys a message.
struct Sm4Messages {
  static constexpr bool kBigEndian = true;
  static constexpr int kKeyWords = kRounds;
  __device__ __forceinline__ static void rounds(Slice w[4], const uint32_t* rk) {
    sliced_rounds(w, MessageKeyPlanes{rk});
  }
};

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
  const uint8_t* data;      // the messages, rebased to offset 0
  uint8_t* out;             // the output, rebased, apart from data
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
      const uint8_t* p = c.data + s.x + at;
      const size_t n = min_size(16, s.y - at);
      uint32_t x[4] = {w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]};
      if (C != Chain::kCbc) {  // CFB: C_j, the next step's input; OFB: the output
        xor_words(p, n, x);
        if (C == Chain::kCfb) {
#pragma unroll
          for (int k = 0; k < 4; ++k) w[k].bit[l] = x[k];
        }
      }
      write_bytes(c.out + s.x + at, x, n);
    }
  }
}

// GCM's tag of message i (SP 800-38D 7.1 steps 5-6): S = GHASH_H(A || 0*
// || C || 0* || L), L = [len(A)]64 || [len(C)]64, tag = S ^ E(J0), H =
// E(0^128), J0 = IV || 0^31 || 1; C is the message's data as it is on the
// device (the ciphertext: after GCTR when sealing, before it when
// opening). With a blocks of A and c of C, S is the sum
//   S = Y_A H^(c+1) ^ sum_k C_k H^(c-k+2) ^ L H,   Y_A = GHASH_H(A),
// so the text is hashed in parallel, one thread per unit of 32 blocks
// (the units of messages_kernel): Horner over its blocks, times H^(c - end
// + 1) for the unit ending at block `end`, XORed into the message's sum.
// Sealing writes the first tag_len bytes of the tag; opening compares
// them with expect in constant time into status[i].
struct DeviceTags {
  const uint8_t* aad;           // rebased to offset 0
  const uint64_t* aad_offsets;  // count + 1, rebased (null: no AAD)
  uint8_t* tags;                // tag_len bytes per message (sealing)
  const uint8_t* expect;        // tag_len bytes per message (opening; null when sealing)
  unsigned tag_len;
  int* status;  // as DeviceMessages::status; opening sets KS_ERR_TAG_MISMATCH
};

// A message's GHASH between the kernels: H, E(J0) and the running sum S.
struct GcmState {
  gf128_gpu::Gf128 h, mask;
  unsigned long long sum_hi, sum_lo;
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

__device__ __forceinline__ uint64_t text_blocks(const DeviceMessages& m, size_t i) {
  return (m.offsets[i + 1] - m.offsets[i] + 15) / 16;
}

// One thread a message: H, E(J0), and S = Y_A H^(c+1).
__global__ void gcm_start_kernel(const DeviceMessages m, const DeviceTags t, GcmState* st) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m.count || (m.status != nullptr && m.status[i] != KS_OK)) return;
  const uint32_t* rk = m.rk + kRounds * i;
  uint8_t block[16] = {}, mask[16];
  sm4::crypt_block(rk, block, block);  // H
  const gf128_gpu::Gf128 h = load_block(block, 16);
  const uint8_t* iv = m.ivs + m.iv_stride * i;
#pragma unroll
  for (int k = 0; k < 16; ++k) block[k] = k < 12 ? iv[k] : k == 15 ? 1 : 0;
  sm4::crypt_block(rk, block, mask);  // E(J0)
  const size_t aad_len = t.aad_offsets != nullptr ? t.aad_offsets[i + 1] - t.aad_offsets[i] : 0;
  gf128_gpu::Gf128 y = {0, 0};
  if (aad_len != 0)
    y = gf128_gpu::gf_mul(ghash_bytes(y, h, t.aad + t.aad_offsets[i], aad_len),
                          gf128_gpu::gf_pow(h, text_blocks(m, i) + 1));
  st[i] = {h, load_block(mask, 16), y.hi, y.lo};
}

// One thread a unit of 32 blocks: its part of S.
__device__ __forceinline__ void gcm_text_unit(const DeviceMessages& m, GcmState* st, size_t u) {
  const size_t i = message_of(m, u);
  const size_t first = kUnitBlocks * (u - m.unit_starts[i]);
  const size_t bytes = min_size(m.offsets[i + 1] - m.offsets[i] - 16 * first, kUnitBytes);
  const gf128_gpu::Gf128 h = st[i].h;
  const uint64_t end = first + (bytes + 15) / 16;
  const gf128_gpu::Gf128 y =
      gf128_gpu::gf_mul(ghash_bytes({0, 0}, h, m.data + m.offsets[i] + 16 * first, bytes),
                        gf128_gpu::gf_pow(h, text_blocks(m, i) - end + 1));
  atomicXor(&st[i].sum_hi, y.hi);
  atomicXor(&st[i].sum_lo, y.lo);
}

__global__ void __launch_bounds__(kThreads) gcm_text_kernel(const DeviceMessages m, GcmState* st) {
  const size_t units = m.unit_starts[m.count];
  for (size_t u = size_t(blockIdx.x) * blockDim.x + threadIdx.x; u < units;
       u += size_t(gridDim.x) * blockDim.x)
    gcm_text_unit(m, st, u);
}

// One thread a message: S ^= L H; the tag written, or compared.
__global__ void gcm_finish_kernel(const DeviceMessages m, const DeviceTags t, const GcmState* st) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m.count || (t.status != nullptr && t.status[i] != KS_OK)) return;
  const size_t aad_len = t.aad_offsets != nullptr ? t.aad_offsets[i + 1] - t.aad_offsets[i] : 0;
  const size_t len = m.offsets[i + 1] - m.offsets[i];
  const GcmState s = st[i];
  const gf128_gpu::Gf128 y = gf128_gpu::gf_xor(
      {s.sum_hi, s.sum_lo},
      gf128_gpu::gf_mul({uint64_t(aad_len) * 8, uint64_t(len) * 8}, s.h));
  uint8_t diff = 0;
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const uint8_t tag = uint8_t(k < 8 ? (y.hi ^ s.mask.hi) >> (56 - 8 * k)
                                      : (y.lo ^ s.mask.lo) >> (120 - 8 * k));
    if (unsigned(k) >= t.tag_len) continue;
    if (t.expect == nullptr) t.tags[size_t(t.tag_len) * i + k] = tag;
    else diff |= tag ^ t.expect[size_t(t.tag_len) * i + k];
  }
  if (t.expect != nullptr) t.status[i] = diff == 0 ? KS_OK : KS_ERR_TAG_MISMATCH;
}

// The tags of a chunk's messages, as the device holds them (m.data).
void enqueue_gcm_tags(const DeviceMessages& m, const DeviceTags& t, GcmState* st,
                      unsigned unit_grid, cudaStream_t stream) {
  const unsigned grid = blocks_for(m.count, kThreads);
  gcm_start_kernel<<<grid, kThreads, 0, stream>>>(m, t, st);
  gcm_text_kernel<<<unit_grid, kThreads, 0, stream>>>(m, st);
  gcm_finish_kernel<<<grid, kThreads, 0, stream>>>(m, t, st);
}

// --- The batch on the engine's pipeline -------------------------------------------
// A call is cut into chunks of whole messages (about kChunkMessageBytes of
// text each) that run on the pipeline's streams (gpu/gpu_pipeline.cuh):
// chunk c + 1 crosses the bus while chunk c runs and chunk c - 1 comes
// back. Text in pinned caller memory (ks_host_alloc) is copied by the
// device directly; ordinary memory through the pipeline's pinned staging.

// What a call computes: kernel and direction.
enum class Work {
  kEcb, kCtr, kCbcDecrypt, kCfbDecrypt,  // blocks of one message a thread
  kCbcEncrypt, kCfbEncrypt, kOfb,        // 32 messages a thread
  kGcmSeal, kGcmOpen,
};

bool is_chained(Work w) {
  return w == Work::kCbcEncrypt || w == Work::kCfbEncrypt || w == Work::kOfb;
}
bool is_gcm(Work w) { return w == Work::kGcmSeal || w == Work::kGcmOpen; }

// The kernels of a call once its messages, round keys and (chained modes)
// lane tables are on the device, both paths alike: m over the text with
// m.out the output, t and gcm GCM's tags, c the chained modes' groups
// (their key planes made here from the round keys and lane_message).
void enqueue_work(Work work, DeviceMessages m, const DeviceTags& t, GcmState* gcm,
                  unsigned unit_grid, const DeviceChains& c, const uint64_t* lane_message,
                  uint4* planes, cudaStream_t stream) {
  switch (work) {
    case Work::kEcb: messages_kernel<Sm4Messages, Blocks::kEcb><<<unit_grid, kThreads, 0, stream>>>(m); break;
    case Work::kCtr: messages_kernel<Sm4Messages, Blocks::kCtr128><<<unit_grid, kThreads, 0, stream>>>(m); break;
    case Work::kCbcDecrypt:
      messages_kernel<Sm4Messages, Blocks::kCbcDecrypt><<<unit_grid, kThreads, 0, stream>>>(m);
      break;
    case Work::kCfbDecrypt:
      messages_kernel<Sm4Messages, Blocks::kCfbDecrypt><<<unit_grid, kThreads, 0, stream>>>(m);
      break;
    case Work::kGcmSeal: {  // encrypt, then hash the ciphertext
      messages_kernel<Sm4Messages, Blocks::kGctr><<<unit_grid, kThreads, 0, stream>>>(m);
      DeviceMessages ct = m;
      ct.data = m.out;
      enqueue_gcm_tags(ct, t, gcm, unit_grid, stream);
      break;
    }
    case Work::kGcmOpen:  // hash the ciphertext, then decrypt where the tag matched
      enqueue_gcm_tags(m, t, gcm, unit_grid, stream);
      m.status = t.status;
      messages_kernel<Sm4Messages, Blocks::kGctr><<<unit_grid, kThreads, 0, stream>>>(m);
      break;
    default: {  // chained
      if (c.groups == 0) break;
      lane_key_planes_kernel<<<blocks_for(c.groups * kRounds, kThreads), kThreads, 0, stream>>>(
          m.rk, lane_message, planes, c.groups);
      const unsigned grid = blocks_for(c.groups, kChainThreads);
      if (work == Work::kCbcEncrypt)
        chains_kernel<Chain::kCbc><<<grid, kChainThreads, 0, stream>>>(c);
      else if (work == Work::kCfbEncrypt)
        chains_kernel<Chain::kCfb><<<grid, kChainThreads, 0, stream>>>(c);
      else
        chains_kernel<Chain::kOfb><<<grid, kChainThreads, 0, stream>>>(c);
    }
  }
}

// Chunks of 8 MiB of text: the 64 MiB a batch needs to reach the bus's
// rate makes eight, so that copies in, kernels and copies out of
// different chunks overlap on the pipeline's four streams.
constexpr size_t kChunkMessageBytes = size_t(8) << 20;

size_t round_up16(size_t x) { return (x + 15) & ~size_t(15); }

// The arguments of crypt_messages / gcm_messages.
struct Batch {
  Work work;
  bool decrypt_keys;  // ECB and CBC decryption: the reversed schedule
  bool secret_input;  // the input is plaintext (else the output is)
  const uint8_t* keys;
  const uint8_t* ivs;
  size_t iv_stride;  // 0 (ECB), 12 (GCM) or 16
  const uint8_t* data;
  const uint64_t* offsets;
  const uint8_t* skip;  // message i computed and written only where skip[i] == 0
  uint8_t* out;
  const uint8_t* aad;            // GCM
  const uint64_t* aad_offsets;   // GCM; null: no AAD
  uint8_t* tags;                 // GCM: written (seal) or checked (open)
  size_t tag_len;
  uint8_t* passed;  // GCM: per message, sealed or its tag matched
};

// A chunk of n messages, the same layout in pinned staging and in dev_in:
// [keys][offsets][unit starts][IVs][AAD offsets][expected tags][AAD]
// [lane tables][text], then device scratch [round keys][lane key planes]
// [GHASH states].
// Results (dev_out, and pinned results where copied back through them):
// [text][GCM tags or verdicts]. Keys first: the leading bytes to wipe.
struct Layout {
  size_t offsets, starts, ivs, aad_offsets, expect, aad, spans, lane_ivs, lane_message, steps,
      text, staged;
  size_t rk, planes, gcm, in;
  size_t out_tags, out;
};

class Carve {
 public:
  size_t take(size_t n) {
    const size_t at = at_;
    at_ += round_up16(n);
    return at;
  }
  size_t size() const { return at_; }

 private:
  size_t at_ = 0;
};

// A chunk's units (32 blocks of one message each) and, for the chained
// modes, its lanes: the computed non-empty messages, longest first.
struct Shape {
  size_t first = SIZE_MAX, n = 0;
  size_t units = 0, groups = 0;
  std::vector<size_t> order;  // chunk-relative message indices
};

class MessagesChunkJob final : public ks::gpu::ChunkJob {
 public:
  explicit MessagesChunkJob(const Batch& b)
      : b_(b),
        data_pinned_(ks::gpu::is_pinned(b.data + b.offsets[0])),
        out_direct_(b.work != Work::kGcmOpen && ks::gpu::is_pinned(b.out + b.offsets[0])) {}

  size_t chunk_items(size_t first, size_t remaining) const override {
    size_t lo = 1, hi = std::min(remaining, ks::gpu::kChunkMaxItems);
    while (lo < hi) {  // the most messages whose text fits, at least one
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (text_bytes(first, mid) + aad_bytes(first, mid) <= kChunkMessageBytes) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  size_t in_bytes(size_t first, size_t n) const override { return layout(first, n).in; }
  size_t staged_bytes(size_t first, size_t n) const override {
    const Layout l = layout(first, n);
    return data_pinned_ ? l.text : l.staged;
  }
  size_t out_bytes(size_t first, size_t n) const override { return layout(first, n).out; }
  // Keys always; the text where it is plaintext and was staged.
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    const Layout l = layout(first, n);
    return b_.secret_input ? staged_bytes(first, n) : l.offsets;
  }
  size_t secret_result_bytes(size_t first, size_t n) const override {
    return !b_.secret_input && !out_direct_ ? layout(first, n).out_tags : 0;
  }

  void stage(size_t first, size_t n, uint8_t* staging, const ks::gpu::Copier& copy) const override;
  cudaError_t copy_in(size_t first, size_t n, const uint8_t* staging, uint8_t* dev_in,
                      cudaStream_t stream) const override;
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override;
  cudaError_t copy_out(size_t first, size_t n, const uint8_t* dev_out, uint8_t* results,
                       cudaStream_t stream) const override;
  void deliver(size_t first, size_t n, const uint8_t* results,
               const ks::gpu::Copier& copy) const override;

 private:
  size_t text_bytes(size_t first, size_t n) const {
    return size_t(b_.offsets[first + n] - b_.offsets[first]);
  }
  size_t aad_bytes(size_t first, size_t n) const {
    return b_.aad_offsets != nullptr ? size_t(b_.aad_offsets[first + n] - b_.aad_offsets[first])
                                     : 0;
  }
  size_t length(size_t i) const { return size_t(b_.offsets[i + 1] - b_.offsets[i]); }
  Layout layout(size_t first, size_t n) const;
  const Shape& shape(size_t first, size_t n) const;
  void stage_lanes(size_t first, size_t n, const Layout& l, uint8_t* staging) const;
  // f(i, j) for each run [i, j) of neighbouring chunk messages with
  // keep(i), in order.
  template <class Keep, class F>
  static void for_each_run(size_t n, const Keep& keep, const F& f) {
    for (size_t i = 0; i < n;) {
      if (!keep(i)) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < n && keep(j)) ++j;
      f(i, j);
      i = j;
    }
  }

  const Batch b_;
  const bool data_pinned_, out_direct_;
  mutable Shape shape_;  // of the chunk last staged: launch follows stage
};

Layout MessagesChunkJob::layout(size_t first, size_t n) const {
  const size_t groups = is_chained(b_.work) ? (n + 31) / 32 : 0, lanes = 32 * groups;
  const bool gcm = is_gcm(b_.work);
  Layout l;
  Carve c;
  c.take(16 * n);  // keys
  l.offsets = c.take(8 * (n + 1));
  l.starts = c.take(8 * (n + 1));
  l.ivs = c.take(is_chained(b_.work) ? 0 : b_.iv_stride * n);
  l.aad_offsets = c.take(gcm && b_.aad_offsets != nullptr ? 8 * (n + 1) : 0);
  l.expect = c.take(b_.work == Work::kGcmOpen ? b_.tag_len * n : 0);
  l.aad = c.take(aad_bytes(first, n));
  l.spans = c.take(16 * lanes);
  l.lane_ivs = c.take(16 * lanes);
  l.lane_message = c.take(8 * lanes);
  l.steps = c.take(8 * groups);
  l.text = c.take(0);
  l.staged = l.text + text_bytes(first, n);
  c.take(text_bytes(first, n));
  l.rk = c.take(4 * kRounds * n);
  l.planes = c.take(16 * 8 * size_t(kRounds) * groups);
  l.gcm = c.take(gcm ? sizeof(GcmState) * n : 0);
  l.in = c.size();
  Carve r;
  r.take(text_bytes(first, n));
  l.out_tags = r.take(b_.work == Work::kGcmSeal   ? b_.tag_len * n
                      : b_.work == Work::kGcmOpen ? sizeof(int) * n
                                                  : 0);
  l.out = r.size();
  return l;
}

const Shape& MessagesChunkJob::shape(size_t first, size_t n) const {
  if (shape_.first == first && shape_.n == n) return shape_;
  Shape s;
  s.first = first, s.n = n;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = length(first + i);
    if (b_.skip[first + i] != 0) continue;
    s.units += units_of(len);
    if (is_chained(b_.work) && len != 0) s.order.push_back(i);
  }
  // Longest first (a stable sort: lengths are public).
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](size_t x, size_t y) { return length(first + x) > length(first + y); });
  s.groups = (s.order.size() + 31) / 32;
  shape_ = std::move(s);
  return shape_;
}

// The chained modes' lanes, lane-major: lane l of group g at l * groups + g.
void MessagesChunkJob::stage_lanes(size_t first, size_t n, const Layout& l,
                                   uint8_t* staging) const {
  const Shape& s = shape(first, n);
  const size_t lanes = 32 * s.groups;
  ulonglong2* spans = reinterpret_cast<ulonglong2*>(staging + l.spans);
  uint8_t* ivs = staging + l.lane_ivs;
  uint64_t* lane_message = reinterpret_cast<uint64_t*>(staging + l.lane_message);
  uint64_t* steps = reinterpret_cast<uint64_t*>(staging + l.steps);
  const uint64_t* rebased = reinterpret_cast<const uint64_t*>(staging + l.offsets);
  memset(spans, 0, 16 * lanes);
  memset(ivs, 0, 16 * lanes);
  memset(steps, 0, 8 * s.groups);
  for (size_t k = 0; k < lanes; ++k) lane_message[k] = kNoMessage;
  for (size_t k = 0; k < s.order.size(); ++k) {
    const size_t i = s.order[k], g = k / 32, slot = (k % 32) * s.groups + g;
    const uint64_t len = rebased[i + 1] - rebased[i];
    spans[slot] = make_ulonglong2(rebased[i], len);
    lane_message[slot] = i;
    memcpy(ivs + 16 * slot, b_.ivs + 16 * (first + i), 16);
    steps[g] = std::max<uint64_t>(steps[g], (len + 15) / 16);
  }
}

void MessagesChunkJob::stage(size_t first, size_t n, uint8_t* staging,
                             const ks::gpu::Copier& copy) const {
  const Layout l = layout(first, n);
  memcpy(staging, b_.keys + 16 * first, 16 * n);
  uint64_t* rebased = reinterpret_cast<uint64_t*>(staging + l.offsets);
  uint64_t* starts = reinterpret_cast<uint64_t*>(staging + l.starts);
  starts[0] = 0;
  for (size_t i = 0; i <= n; ++i) rebased[i] = b_.offsets[first + i] - b_.offsets[first];
  for (size_t i = 0; i < n; ++i)
    starts[i + 1] = starts[i] + (b_.skip[first + i] != 0 ? 0 : units_of(length(first + i)));
  if (!is_chained(b_.work) && b_.iv_stride != 0)
    memcpy(staging + l.ivs, b_.ivs + b_.iv_stride * first, b_.iv_stride * n);
  if (is_gcm(b_.work) && b_.aad_offsets != nullptr) {
    uint64_t* aad_rebased = reinterpret_cast<uint64_t*>(staging + l.aad_offsets);
    for (size_t i = 0; i <= n; ++i)
      aad_rebased[i] = b_.aad_offsets[first + i] - b_.aad_offsets[first];
    memcpy(staging + l.aad, b_.aad + b_.aad_offsets[first], aad_bytes(first, n));
  }
  if (b_.work == Work::kGcmOpen)
    memcpy(staging + l.expect, b_.tags + b_.tag_len * first, b_.tag_len * n);
  if (is_chained(b_.work)) stage_lanes(first, n, l, staging);
  if (!data_pinned_) copy(staging + l.text, b_.data + b_.offsets[first], text_bytes(first, n));
}

cudaError_t MessagesChunkJob::copy_in(size_t first, size_t n, const uint8_t* staging,
                                      uint8_t* dev_in, cudaStream_t stream) const {
  const Layout l = layout(first, n);
  const size_t text = text_bytes(first, n);
  cudaError_t e = cudaMemcpyAsync(dev_in, staging, data_pinned_ ? l.text : l.staged,
                                  cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess && data_pinned_ && text != 0)
    e = cudaMemcpyAsync(dev_in + l.text, b_.data + b_.offsets[first], text,
                        cudaMemcpyHostToDevice, stream);
  return e;
}

cudaError_t MessagesChunkJob::launch(size_t first, size_t n, const uint8_t* dev_in,
                                     uint8_t* dev_out, cudaStream_t stream) const {
  const Layout l = layout(first, n);
  const Shape& s = shape(first, n);
  uint8_t* in = const_cast<uint8_t*>(dev_in);
  uint32_t* rk = reinterpret_cast<uint32_t*>(in + l.rk);
  key_schedule_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(in, rk, n,
                                                                        b_.decrypt_keys);
  DeviceMessages m = {in + l.text,
                      dev_out,
                      reinterpret_cast<const uint64_t*>(in + l.offsets),
                      reinterpret_cast<const uint64_t*>(in + l.starts),
                      rk,
                      in + l.ivs,
                      b_.iv_stride,
                      nullptr,
                      n};
  // A grid of no blocks is a launch error: where there are no units
  // (every message empty or skipped) one block starts and returns.
  const unsigned unit_grid = blocks_for(std::max<size_t>(s.units, 1), kThreads);
  const DeviceTags t = {in + l.aad,
                        b_.aad_offsets != nullptr
                            ? reinterpret_cast<const uint64_t*>(in + l.aad_offsets)
                            : nullptr,
                        dev_out + l.out_tags,
                        b_.work == Work::kGcmOpen ? in + l.expect : nullptr,
                        unsigned(b_.tag_len),
                        b_.work == Work::kGcmOpen ? reinterpret_cast<int*>(dev_out + l.out_tags)
                                                  : nullptr};
  GcmState* gcm = reinterpret_cast<GcmState*>(in + l.gcm);
  if (b_.work == Work::kGcmOpen) cudaMemsetAsync(t.status, 0, sizeof(int) * n, stream);  // KS_OK
  uint4* planes = reinterpret_cast<uint4*>(in + l.planes);
  const DeviceChains c = {in + l.text,
                          dev_out,
                          reinterpret_cast<const ulonglong2*>(in + l.spans),
                          reinterpret_cast<const uint4*>(in + l.lane_ivs),
                          planes,
                          reinterpret_cast<const uint64_t*>(in + l.steps),
                          s.groups};
  enqueue_work(b_.work, m, t, gcm, unit_grid, c,
               reinterpret_cast<const uint64_t*>(in + l.lane_message), planes, stream);
  cudaError_t e = cudaGetLastError();
  // Keys, round keys, their planes and the text leave the device buffer.
  if (e == cudaSuccess) e = cudaMemsetAsync(in, 0, l.in, stream);
  return e;
}

cudaError_t MessagesChunkJob::copy_out(size_t first, size_t n, const uint8_t* dev_out,
                                       uint8_t* results, cudaStream_t stream) const {
  const Layout l = layout(first, n);
  cudaError_t e = cudaSuccess;
  if (!out_direct_) {
    e = cudaMemcpyAsync(results, dev_out, l.out, cudaMemcpyDeviceToHost, stream);
  } else {
    const uint64_t base = b_.offsets[first];
    for_each_run(n, [&](size_t i) { return b_.skip[first + i] == 0; }, [&](size_t i, size_t j) {
      const size_t at = size_t(b_.offsets[first + i] - base);
      const size_t len = size_t(b_.offsets[first + j] - b_.offsets[first + i]);
      if (e == cudaSuccess && len != 0)
        e = cudaMemcpyAsync(b_.out + b_.offsets[first + i], dev_out + at, len,
                            cudaMemcpyDeviceToHost, stream);
    });
    if (e == cudaSuccess && l.out > l.out_tags)
      e = cudaMemcpyAsync(results + l.out_tags, dev_out + l.out_tags, l.out - l.out_tags,
                          cudaMemcpyDeviceToHost, stream);
  }
  // The output (plaintext, when decrypting) leaves the device buffer.
  if (e == cudaSuccess) e = cudaMemsetAsync(const_cast<uint8_t*>(dev_out), 0, l.out, stream);
  return e;
}

void MessagesChunkJob::deliver(size_t first, size_t n, const uint8_t* results,
                               const ks::gpu::Copier& copy) const {
  const Layout l = layout(first, n);
  std::vector<int> status(n, KS_OK);
  if (b_.work == Work::kGcmSeal)
    memcpy(b_.tags + b_.tag_len * first, results + l.out_tags, b_.tag_len * n);
  else if (b_.work == Work::kGcmOpen)
    memcpy(status.data(), results + l.out_tags, sizeof(int) * n);
  if (is_gcm(b_.work))
    for (size_t i = 0; i < n; ++i) b_.passed[first + i] = status[i] == KS_OK;
  if (out_direct_) return;
  const uint64_t base = b_.offsets[first];
  for_each_run(n, [&](size_t i) { return b_.skip[first + i] == 0 && status[i] == KS_OK; },
               [&](size_t i, size_t j) {
                 copy(b_.out + b_.offsets[first + i], results + (b_.offsets[first + i] - base),
                      size_t(b_.offsets[first + j] - b_.offsets[first + i]));
               });
}

Work work_of(MessageMode mode) {
  switch (mode) {
    case MessageMode::kEcbEncrypt:
    case MessageMode::kEcbDecrypt: return Work::kEcb;
    case MessageMode::kCtr: return Work::kCtr;
    case MessageMode::kCbcEncrypt: return Work::kCbcEncrypt;
    case MessageMode::kCbcDecrypt: return Work::kCbcDecrypt;
    case MessageMode::kCfbEncrypt: return Work::kCfbEncrypt;
    case MessageMode::kCfbDecrypt: return Work::kCfbDecrypt;
    default: return Work::kOfb;
  }
}

// --- The batch on device memory ------------------------------------------------------
// Every array is the caller's device memory (kuaisuo/common.h, "Device
// memory"): nothing is staged and the host reads none of it, so the
// offsets are checked per message on the device, the units counted there
// (a scan over the messages: cub::DeviceScan) and the kernels sized without their number
// (grid-stride). The chained modes take messages in index order, 32 a
// group (no sort by length: the lengths stay on the device). Scratch (round
// keys, their lane planes, GHASH states) comes from the library's stream-
// ordered pool and is wiped before it is freed.

// The chained modes' lanes: group g is messages 32 g .. 32 g + 31, each
// lane l at l * groups + g (as stage_lanes lays them out).
__global__ void device_lanes_kernel(const uint64_t* offsets, const uint8_t* ivs, const int* status,
                                    size_t count, size_t groups, ulonglong2* spans,
                                    uint8_t* lane_ivs, uint64_t* lane_message, uint64_t* steps) {
  const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= groups) return;
  uint64_t most = 0;
  for (int l = 0; l < 32; ++l) {
    const size_t i = 32 * g + l, slot = size_t(l) * groups + g;
    const bool lane = i < count && status[i] == KS_OK && offsets[i + 1] > offsets[i];
    const uint64_t len = lane ? offsets[i + 1] - offsets[i] : 0;
    spans[slot] = make_ulonglong2(lane ? offsets[i] : 0, len);
    lane_message[slot] = lane ? i : kNoMessage;
    for (int b = 0; b < 16; ++b) lane_ivs[16 * slot + b] = lane ? ivs[16 * i + b] : 0;
    most = max(most, (len + 15) / 16);
  }
  steps[g] = most;
}

// The arguments of the device calls.
struct DeviceArgs {
  Work work;
  bool decrypt_keys;
  const uint8_t* keys;
  const uint8_t* ivs;
  size_t iv_stride;
  const uint8_t* data;
  size_t data_len;
  const uint64_t* offsets;
  size_t count;
  uint8_t* out;
  size_t out_len;
  const uint8_t* aad;
  size_t aad_len;
  const uint64_t* aad_offsets;
  uint8_t* tags;
  size_t tag_len;
  int* status;
};

cudaError_t run_on_device(const DeviceArgs& a, cudaStream_t stream) {
  const size_t n = a.count, groups = is_chained(a.work) ? (n + 31) / 32 : 0;
  // CBC and CFB decryption read their neighbours' input: in place, the
  // input is copied aside first.
  const bool overlap = a.data < a.out + a.out_len && a.out < a.data + a.data_len;
  const bool aside = overlap && (a.work == Work::kCbcDecrypt || a.work == Work::kCfbDecrypt);
  size_t scan_bytes = 0;
  cudaError_t e = messages_gpu::scan_units(nullptr, &scan_bytes, nullptr, nullptr, n, stream);
  if (e != cudaSuccess) return e;
  Carve c;
  const size_t at_scan = c.take(scan_bytes), at_units = c.take(8 * n),
               at_starts = c.take(8 * (n + 1)),
               at_rk = c.take(4 * kRounds * n),
               at_gcm = c.take(is_gcm(a.work) ? sizeof(GcmState) * n : 0),
               at_spans = c.take(16 * 32 * groups), at_ivs = c.take(16 * 32 * groups),
               at_lanes = c.take(8 * 32 * groups), at_steps = c.take(8 * groups),
               at_planes = c.take(16 * 8 * size_t(kRounds) * groups),
               at_aside = c.take(aside ? a.data_len : 0), at_offsets = c.take(8 * (n + 1)),
               at_aad_offsets = c.take(a.aad_offsets != nullptr ? 8 * (n + 1) : 0);
  ks::gpu::StreamScratch scratch(stream);  // carved like Layout
  e = scratch.allocate(c.size());
  if (e != cudaSuccess) return e;
  const uint8_t* data = a.data;
  if (aside && a.data_len != 0) {
    e = cudaMemcpyAsync(scratch.at(at_aside), a.data, a.data_len, cudaMemcpyDeviceToDevice, stream);
    if (e != cudaSuccess) return e;
    data = scratch.at(at_aside);
  }
  // The kernels read the offsets again after writing statuses and outputs,
  // which a caller may have placed over them: they read copies, checked
  // once by device_check_kernel, so what was checked is what is read.
  const uint64_t* offsets = reinterpret_cast<const uint64_t*>(scratch.at(at_offsets));
  const uint64_t* aad_offsets = nullptr;
  e = cudaMemcpyAsync(scratch.at(at_offsets), a.offsets, 8 * (n + 1), cudaMemcpyDeviceToDevice,
                      stream);
  if (e == cudaSuccess && a.aad_offsets != nullptr) {
    aad_offsets = reinterpret_cast<const uint64_t*>(scratch.at(at_aad_offsets));
    e = cudaMemcpyAsync(scratch.at(at_aad_offsets), a.aad_offsets, 8 * (n + 1),
                        cudaMemcpyDeviceToDevice, stream);
  }
  if (e != cudaSuccess) return e;
  uint64_t* units = reinterpret_cast<uint64_t*>(scratch.at(at_units));
  uint64_t* starts = reinterpret_cast<uint64_t*>(scratch.at(at_starts));
  uint32_t* rk = reinterpret_cast<uint32_t*>(scratch.at(at_rk));
  const bool block_mode = a.work == Work::kEcb || a.work == Work::kCbcEncrypt ||
                          a.work == Work::kCbcDecrypt;
  const DeviceChecks checks = {offsets, std::min<uint64_t>(a.data_len, a.out_len),
                               is_gcm(a.work) ? aad_offsets : nullptr, a.aad_len, block_mode,
                               is_gcm(a.work) ? ks::gcm::kMaxTextBytes : UINT64_MAX, n, units,
                               a.status};
  e = messages_gpu::count_units(checks, scratch.at(at_scan), scan_bytes, starts, stream);
  if (e != cudaSuccess) return e;
  key_schedule_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(a.keys, rk, n,
                                                                        a.decrypt_keys);
  DeviceMessages m = {data, a.out, offsets, starts, rk, a.ivs, a.iv_stride, a.status, n};
  const unsigned unit_grid = messages_gpu::unit_grid(a.data_len, n);
  const DeviceTags t = {a.aad, aad_offsets, a.tags,
                        a.work == Work::kGcmOpen ? a.tags : nullptr, unsigned(a.tag_len),
                        a.status};
  GcmState* gcm = reinterpret_cast<GcmState*>(scratch.at(at_gcm));
  ulonglong2* spans = reinterpret_cast<ulonglong2*>(scratch.at(at_spans));
  uint64_t* lanes = reinterpret_cast<uint64_t*>(scratch.at(at_lanes));
  uint64_t* steps = reinterpret_cast<uint64_t*>(scratch.at(at_steps));
  uint4* planes = reinterpret_cast<uint4*>(scratch.at(at_planes));
  if (groups != 0)
    device_lanes_kernel<<<blocks_for(groups, kThreads), kThreads, 0, stream>>>(
        offsets, a.ivs, a.status, n, groups, spans, scratch.at(at_ivs), lanes, steps);
  const DeviceChains chains = {data,   a.out, spans,
                               reinterpret_cast<const uint4*>(scratch.at(at_ivs)),
                               planes, steps, groups};
  enqueue_work(a.work, m, t, gcm, unit_grid, chains, lanes, planes, stream);
  return cudaGetLastError();
}

}  // namespace

int crypt_messages(ks::gpu::Engine& engine, MessageMode mode, const uint8_t* keys,
                   const uint8_t* ivs, const uint8_t* data, const uint64_t* offsets,
                   size_t count, const uint8_t* skip, uint8_t* out) {
  if (count == 0) return KS_OK;
  const bool ecb = mode == MessageMode::kEcbEncrypt || mode == MessageMode::kEcbDecrypt;
  if (ivs == nullptr && !ecb) return KS_ERR_NULL_POINTER;
  // The messages skipped: the caller's, and CBC messages that are not
  // whole blocks.
  const bool cbc = mode == MessageMode::kCbcEncrypt || mode == MessageMode::kCbcDecrypt;
  std::vector<uint8_t> skipped(count);
  for (size_t i = 0; i < count; ++i)
    skipped[i] = (skip != nullptr && skip[i] != 0) ||
                 (cbc && (offsets[i + 1] - offsets[i]) % 16 != 0);
  Batch b = {};
  b.work = work_of(mode);
  b.decrypt_keys = mode == MessageMode::kEcbDecrypt || mode == MessageMode::kCbcDecrypt;
  b.secret_input = mode == MessageMode::kEcbEncrypt || mode == MessageMode::kCtr ||
                   mode == MessageMode::kCbcEncrypt || mode == MessageMode::kCfbEncrypt ||
                   mode == MessageMode::kOfb;
  b.keys = keys, b.ivs = ivs, b.iv_stride = ecb ? 0 : 16;
  b.data = data, b.offsets = offsets, b.skip = skipped.data(), b.out = out;
  return ks::gpu::CudaEngine::of(engine).run(MessagesChunkJob(b), count);
}

int gcm_messages(ks::gpu::Engine& engine, bool seal, const uint8_t* keys, const uint8_t* ivs,
                 const uint8_t* aad, const uint64_t* aad_offsets, const uint8_t* data,
                 const uint64_t* offsets, size_t count, uint8_t* tags, size_t tag_len,
                 uint8_t* out, uint8_t* passed) {
  if (count == 0) return KS_OK;
  const std::vector<uint8_t> none(count, 0);
  Batch b = {};
  b.work = seal ? Work::kGcmSeal : Work::kGcmOpen;
  b.secret_input = seal;
  b.keys = keys, b.ivs = ivs, b.iv_stride = 12;
  b.data = data, b.offsets = offsets, b.skip = none.data(), b.out = out;
  b.aad = aad, b.aad_offsets = aad_offsets, b.tags = tags, b.tag_len = tag_len;
  b.passed = passed;
  return ks::gpu::CudaEngine::of(engine).run(MessagesChunkJob(b), count);
}


int crypt_messages_device(ks::gpu::Engine& engine, MessageMode mode, const uint8_t* keys,
                          const uint8_t* ivs, const uint8_t* data, size_t data_len,
                          const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                          int* status, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK || count == 0) return scope.status();
  const bool ecb = mode == MessageMode::kEcbEncrypt || mode == MessageMode::kEcbDecrypt;
  DeviceArgs a = {};
  a.work = work_of(mode);
  a.decrypt_keys = mode == MessageMode::kEcbDecrypt || mode == MessageMode::kCbcDecrypt;
  a.keys = keys, a.ivs = ivs, a.iv_stride = ecb ? 0 : 16;
  a.data = data, a.data_len = data_len, a.offsets = offsets, a.count = count;
  a.out = out, a.out_len = out_len, a.status = status;
  return ks::gpu::to_status(run_on_device(a, static_cast<cudaStream_t>(stream)));
}

int gcm_messages_device(ks::gpu::Engine& engine, bool seal, const uint8_t* keys,
                        const uint8_t* ivs, const uint8_t* aad, size_t aad_len,
                        const uint64_t* aad_offsets, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, uint8_t* tags, size_t tag_len,
                        uint8_t* out, size_t out_len, int* status, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK || count == 0) return scope.status();
  DeviceArgs a = {};
  a.work = seal ? Work::kGcmSeal : Work::kGcmOpen;
  a.keys = keys, a.ivs = ivs, a.iv_stride = 12;
  a.data = data, a.data_len = data_len, a.offsets = offsets, a.count = count;
  a.out = out, a.out_len = out_len, a.status = status;
  a.aad = aad, a.aad_len = aad_len, a.aad_offsets = aad_offsets;
  a.tags = tags, a.tag_len = tag_len;
  return ks::gpu::to_status(run_on_device(a, static_cast<cudaStream_t>(stream)));
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks
