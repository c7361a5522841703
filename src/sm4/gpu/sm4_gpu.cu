// SM4 kernels on the GPU (sm4/gpu/sm4_gpu.h): the T-table and the bitsliced
// kernel, each in ECB, CTR (128-bit counter) and GCTR (inc32) form, and a
// parallel GHASH for GCM.
//
// GHASH in parallel (SP 800-38D 6.4): for ciphertext blocks C_1 .. C_c,
//   Y = (Y_A H^c ^ G ^ L) H,   G = sum_j C_j H^(c - j + 1)   (*)
// where Y_A is the GHASH state after the AAD (the CPU computes it, and
// Y_A H^c ^ L, while the GPU encrypts) and L the lengths block. G is a sum,
// so it is cut anywhere: lane l of a warp runs Horner with H^32 over blocks
// l, l + 32, ... of its chunk (loads coalesced), weighs its sum by
// H^(31 - l), and the warp XORs the 32 sums: one value per chunk of 32 J
// blocks, relative to the chunk's last block. Reduction kernels then fold
// 32 neighbouring values at a time the same way (weights H^(span (31 - l))),
// until one is left. Sequences are padded with zero blocks at the front to
// a whole number of groups (zeros add nothing), which keeps every value
// relative to the same last block. All powers are computed on the host.
#include "sm4/gpu/sm4_gpu.h"

#include <cuda_runtime.h>
#include <string.h>

#include <vector>

#include "cipher/gcm.h"
#include "cipher/gpu/gf128_gpu.cuh"
#include "cipher/ghash.h"
#include "sm4/sm4_blocks.h"
#include "sm4/sm4_core.h"
#include "sm4/gpu/sm4_gpu_rounds.cuh"
#include "core/secure.h"
#include "gpu/launch.cuh"

namespace ks {
namespace sm4 {
namespace gpu {
namespace {

// --- Blocks in memory: cipher/gpu/sliced_gpu.cuh's jobs --------------------------
using ks::gpu::blocks_for;
using ks::gpu::DeviceArray;
using ks::gpu::DeviceInOut;
using ks::gpu::grid_for;
using sliced_gpu::Job;
using sliced_gpu::Mode;
using sliced_gpu::gate_closed;
using sliced_gpu::nblocks_of;
using sliced_gpu::output_partial_block;
using sliced_gpu::store_block;
using sliced_gpu::whole_blocks_of;

struct RoundKeys {
  uint32_t rk[kRounds];
};

// A block's bytes as SM4's four big-endian words (GB/T 32907 7.1), and back.
__device__ __forceinline__ void be_words(const uint4& v, uint32_t w[4]) {
  w[0] = byte_swap32(v.x), w[1] = byte_swap32(v.y);
  w[2] = byte_swap32(v.z), w[3] = byte_swap32(v.w);
}
__device__ __forceinline__ uint4 be_block(const uint32_t w[4]) {
  return make_uint4(byte_swap32(w[0]), byte_swap32(w[1]), byte_swap32(w[2]), byte_swap32(w[3]));
}

// The cipher's input words for block b: the data (ECB) or the counter.
template <Mode M>
__device__ __forceinline__ void input_words(const Job& j, size_t b, uint32_t w[4]) {
  if (M == Mode::kEcb) {
    const uint4 v = reinterpret_cast<const uint4*>(j.in)[b];
    be_words(v, w);
  } else if (M == Mode::kCtr128) {
    const uint64_t lo0 = uint64_t(j.ctr[2]) << 32 | j.ctr[3];
    const uint64_t lo = lo0 + b;
    const uint64_t hi = (uint64_t(j.ctr[0]) << 32 | j.ctr[1]) + (lo < lo0 ? 1 : 0);
    w[0] = uint32_t(hi >> 32), w[1] = uint32_t(hi), w[2] = uint32_t(lo >> 32), w[3] = uint32_t(lo);
  } else {
    w[0] = j.ctr[0], w[1] = j.ctr[1], w[2] = j.ctr[2], w[3] = j.ctr[3] + uint32_t(b);
  }
}

// Input block b for output_block, loaded ahead (zeros for ECB, whose output
// does not read it).
template <Mode M>
__device__ __forceinline__ uint4 load_input(const Job& j, size_t b) {
  if (M == Mode::kEcb) return make_uint4(0, 0, 0, 0);
  return reinterpret_cast<const uint4*>(j.in)[b];
}

// The same from the cipher's big-endian words w.
template <Mode M>
__device__ __forceinline__ void output_block(const Job& j, size_t b, const uint32_t w[4],
                                             const uint4& src) {
  store_block<M>(j, b, be_block(w), src);
}

// Block b, whole or partial.
template <Mode M>
__device__ __forceinline__ void output_any_block(const Job& j, size_t b, const uint32_t w[4]) {
  if (M == Mode::kEcb || b < whole_blocks_of(j))
    output_block<M>(j, b, w, load_input<M>(j, b));
  else
    output_partial_block(j, b, be_block(w));
}

// --- The T-table kernel ----------------------------------------------------
constexpr int kTableThreads = 256;
constexpr int kTableGroup = 2;  // blocks per thread per step: two independent round chains

// Tiles of kTableThreads * G blocks; thread t takes blocks t, t + threads,
// ... of a tile (coalesced).
template <Mode M>
__global__ void __launch_bounds__(kTableThreads) table_kernel(const RoundKeys keys, const Job j) {
  __shared__ uint32_t tab[256][32];
  __shared__ uint32_t t0[256];
  fill_table(tab, t0);
  if (gate_closed(j)) return;
  const uint32_t* col = &tab[0][threadIdx.x & 31];
  const size_t n = nblocks_of(j);
  constexpr size_t kTile = size_t(kTableThreads) * kTableGroup;
  for (size_t tile = blockIdx.x; tile * kTile < n; tile += gridDim.x) {
    const size_t first = tile * kTile + threadIdx.x;
    uint32_t x[kTableGroup][4] = {};
#pragma unroll
    for (int g = 0; g < kTableGroup; ++g) {
      const size_t b = first + size_t(g) * kTableThreads;
      if (b < n) input_words<M>(j, b, x[g]);
    }
    table_rounds<kTableGroup>(x, keys.rk, col);
#pragma unroll
    for (int g = 0; g < kTableGroup; ++g) {
      const size_t b = first + size_t(g) * kTableThreads;
      if (b < n) output_any_block<M>(j, b, x[g]);
    }
  }
}

// --- The bitsliced kernel: cipher/gpu/sliced_gpu.cuh over SM4's rounds ------------
// The cipher words are big-endian: plane k of a word is bit k ^ 24 of the
// little-endian word in memory. The round-key bit masks (4 KiB) sit in
// shared memory: the round loop is not unrolled (its body is the S-box
// circuit four times), so they are indexed at run time.
struct Sm4Sliced {
  static constexpr int kPlaneSwizzle = 24;
  using Keys = RoundKeys;
  struct Shared {
    uint32_t masks[kRounds][32];
  };
  __device__ __forceinline__ static void fill(Shared& s, const Keys& k) {
    fill_key_planes(s.masks, k.rk);
  }
  __device__ __forceinline__ static void rounds(Slice w[4], const Shared& s) {
    sliced_rounds(w, SharedKeyPlanes{s.masks});
  }
};

// --- GF(2^128) for GHASH: cipher/gpu/gf128_gpu.cuh ---------------------------------
using gf128_gpu::Gf128;
using gf128_gpu::gf_mul;
using gf128_gpu::gf_one;
using gf128_gpu::gf_pow;
using gf128_gpu::gf_xor;

Gf128 gf_load(const uint8_t* p) {
  return {uint64_t(sm4::load_be32(p)) << 32 | sm4::load_be32(p + 4),
          uint64_t(sm4::load_be32(p + 8)) << 32 | sm4::load_be32(p + 12)};
}

// base^0 .. base^31: the weights of the 32 lanes (lane l takes [31 - l]).
struct Weights {
  Gf128 w[32];
  Gf128 step;  // the chunk kernel's Horner factor H^32
};

Weights weights_of(Gf128 base, Gf128 step) {
  Weights p;
  p.w[0] = gf_one();
  for (int i = 1; i < 32; ++i) p.w[i] = gf_mul(p.w[i - 1], base);
  p.step = step;
  return p;
}

// Block i of the data as a field element, the last block zero-padded.
__device__ __forceinline__ Gf128 load_block_gf(const uint8_t* data, size_t nbytes, size_t i) {
  uint32_t w[4] = {0, 0, 0, 0};
  if (16 * i + 16 <= nbytes) {
    const uint4 v = reinterpret_cast<const uint4*>(data)[i];
    be_words(v, w);
  } else {
    for (size_t k = 16 * i; k < nbytes; ++k)
      w[(k & 15) / 4] |= uint32_t(data[k]) << (24 - 8 * (k & 3));
  }
  return {uint64_t(w[0]) << 32 | w[1], uint64_t(w[2]) << 32 | w[3]};
}

__device__ __forceinline__ Gf128 warp_xor(Gf128 x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    x.hi ^= __shfl_xor_sync(0xffffffffu, x.hi, d);
    x.lo ^= __shfl_xor_sync(0xffffffffu, x.lo, d);
  }
  return x;
}

constexpr int kGhashThreads = 256;

__device__ __forceinline__ void copy_weights(Gf128* s, const Weights& p) {
  if (threadIdx.x < 32) s[threadIdx.x] = p.w[threadIdx.x];
  __syncthreads();
}

// Chunk c covers virtual blocks [32 J c, 32 J (c + 1)), virtual block v
// being data block v - pad (zero where v < pad). out[c] = sum over the
// chunk of C_v H^(last - v).
__global__ void __launch_bounds__(kGhashThreads)
    ghash_chunks_kernel(const Weights p, const uint8_t* data, size_t nbytes, size_t pad,
                        unsigned per_lane, size_t nchunks, Gf128* out) {
  __shared__ Gf128 weight[32];
  copy_weights(weight, p);
  const unsigned lane = threadIdx.x & 31;
  const size_t c = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (c >= nchunks) return;  // whole warps
  Gf128 s = {0, 0};
  const size_t first = c * 32 * per_lane + lane;
  for (unsigned l = 0; l < per_lane; ++l) {
    const size_t v = first + 32 * size_t(l);
    const Gf128 x = v >= pad ? load_block_gf(data, nbytes, v - pad) : Gf128{0, 0};
    s = gf_xor(gf_mul(s, p.step), x);
  }
  s = warp_xor(gf_mul(s, weight[31 - lane]));
  if (lane == 0) out[c] = s;
}

// Folds groups of 32 values (each `span` blocks after the one before it,
// front-padded with pad zeros) into one, relative to the group's last.
__global__ void __launch_bounds__(kGhashThreads)
    ghash_fold_kernel(const Weights p, const Gf128* in, size_t n, size_t pad, size_t ngroups,
                      Gf128* out) {
  __shared__ Gf128 weight[32];
  copy_weights(weight, p);
  const unsigned lane = threadIdx.x & 31;
  const size_t g = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (g >= ngroups) return;
  const size_t v = 32 * g + lane;
  const Gf128 x = v >= pad && v - pad < n ? in[v - pad] : Gf128{0, 0};
  const Gf128 s = warp_xor(gf_mul(x, weight[31 - lane]));
  if (lane == 0) out[g] = s;
}

// What the final step needs from the host (SP 800-38D 7.1 steps 5-6).
struct Final {
  Gf128 h;
  Gf128 k;          // Y_A H^c ^ L, see (*)
  uint8_t ek_j0[16];  // E(J0)
  uint8_t expect[16];  // GCM-AD: the tag to match
  const uint8_t* d_expect;  // GCM-AD: or this device copy of it (null: expect)
  unsigned tag_len;    // GCM-AD: bytes of it compared (0: GCM-AE)
  unsigned write_len;  // GCM-AE: bytes of the tag written
};

// Y = (k ^ root H) H (root: G H^-1, null when there is no text); the tag
// Y ^ E(J0) to tag (GCM-AE), or the verdict of comparing it, in constant
// time, to ok (GCM-AD).
__global__ void ghash_final_kernel(const Final f, const Gf128* root, uint8_t* tag, int* ok) {
  Gf128 y = f.k;
  if (root != nullptr) y = gf_xor(y, gf_mul(*root, f.h));
  y = gf_mul(y, f.h);
  uint8_t t[16];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    t[i] = uint8_t(y.hi >> (56 - 8 * i)) ^ f.ek_j0[i];
    t[8 + i] = uint8_t(y.lo >> (56 - 8 * i)) ^ f.ek_j0[8 + i];
  }
  if (f.tag_len == 0) {
#pragma unroll
    for (unsigned i = 0; i < 16; ++i)
      if (i < f.write_len) tag[i] = t[i];
    return;
  }
  uint8_t diff = 0;
#pragma unroll
  for (unsigned i = 0; i < 16; ++i)
    if (i < f.tag_len) diff |= t[i] ^ (f.d_expect != nullptr ? f.d_expect[i] : f.expect[i]);
  *ok = diff == 0 ? 1 : 0;
}

// --- Host side ------------------------------------------------------------------
bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

RoundKeys keys_of(const uint32_t rk[32]) {
  RoundKeys k;
  memcpy(k.rk, rk, sizeof k.rk);
  return k;
}

template <Mode M>
int launch(Kernel kernel, const RoundKeys& keys, const Job& j, cudaStream_t stream) {
  const size_t n = (j.nbytes + 15) / 16;
  if (n == 0) return cudaSuccess;
  if (kernel == Kernel::kTable) {
    table_kernel<M><<<grid_for(n, kTableThreads * kTableGroup, 8), kTableThreads, 0, stream>>>(
        keys, j);
    return cudaGetLastError();
  }
  return sliced_gpu::launch<Sm4Sliced, M>(keys, j, stream);
}

void words_of(const uint8_t b[16], uint32_t w[4]) {
  for (int i = 0; i < 4; ++i) w[i] = sm4::load_be32(b + 4 * i);
}

// The GCM values computed on the host: H = E(0^128), E(J0) with J0 = IV ||
// 0^31 || 1 (SP 800-38D 7.1 step 2, 96-bit IV), and Y_A H^c ^ L.
struct GcmSetup {
  Final f;
  uint32_t ctr[4];  // inc32(J0)
  ~GcmSetup() { secure_wipe(this, sizeof *this); }
};

void gcm_setup(const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad, size_t aad_len,
               size_t len, GcmSetup* s) {
  uint8_t h[16] = {}, j0[16] = {};
  sm4::crypt_block(rk, h, h);
  memcpy(j0, iv, 12);
  j0[15] = 1;
  sm4::crypt_block(rk, j0, s->f.ek_j0);
  words_of(j0, s->ctr);
  s->ctr[3] += 1;  // inc32(J0): the first counter block of the text
  ghash::Key hk;
  ghash::init(&hk, h);
  uint8_t y[16] = {}, last[16] = {};
  ghash::blocks(hk, y, aad, aad_len / 16);
  if (aad_len % 16 != 0) {
    memcpy(last, aad + aad_len / 16 * 16, aad_len % 16);
    ghash::blocks(hk, y, last, 1);
  }
  s->f.h = gf_load(h);
  const Gf128 ya_hc = gf_mul(gf_load(y), gf_pow(s->f.h, (uint64_t(len) + 15) / 16));
  s->f.k = gf_xor(ya_hc, Gf128{uint64_t(aad_len) * 8, uint64_t(len) * 8});
  s->f.tag_len = 0;
  s->f.write_len = 16;
  s->f.d_expect = nullptr;
  secure_wipe(&hk, sizeof hk);
  secure_wipe(h, sizeof h);
  secure_wipe(y, sizeof y);
  secure_wipe(last, sizeof last);
}

// Blocks per lane in the chunk kernel: each lane pays one product per
// block plus one for its weight, so as many as keep at least 4,096 chunks
// (warps: about 31 per SM of an H100) to fill the GPU, up to 32.
unsigned per_lane_for(size_t nblocks) {
  unsigned per_lane = 1;
  while (per_lane < 32 && nblocks / (32 * size_t(2 * per_lane)) >= 4096) per_lane *= 2;
  return per_lane;
}

// Enqueues G H^-1 of the text's blocks (*) into scratch; returns the
// device pointer to it, or null for an empty text. scratch holds at least
// scratch_values(nblocks) values.
size_t scratch_values(size_t nblocks) {
  const size_t chunk = 32 * size_t(per_lane_for(nblocks));
  const size_t n1 = (nblocks + chunk - 1) / chunk;
  return n1 + (n1 + 31) / 32 + 1;
}

cudaError_t enqueue_ghash(const Gf128& h, const uint8_t* data, size_t nbytes, Gf128* scratch,
                          cudaStream_t stream, const Gf128** root) {
  const size_t nblocks = (nbytes + 15) / 16;
  *root = nullptr;
  if (nblocks == 0) return cudaSuccess;
  const unsigned per_lane = per_lane_for(nblocks);
  const size_t chunk = 32 * size_t(per_lane);
  size_t n = (nblocks + chunk - 1) / chunk;
  const Gf128 h32 = gf_pow(h, 32);
  Weights w = weights_of(h, h32);
  const unsigned warps_per_block = kGhashThreads / 32;
  ghash_chunks_kernel<<<blocks_for(n, warps_per_block), kGhashThreads, 0, stream>>>(
      w, data, nbytes, n * chunk - nblocks, per_lane, n, scratch);
  // Ping-pong between the front of scratch and the space after the chunks.
  Gf128 *in = scratch, *spare = scratch + n;
  Gf128 span = gf_pow(h, chunk);
  while (n > 1) {
    const size_t groups = (n + 31) / 32;
    Gf128* out = in == scratch ? spare : scratch;
    w = weights_of(span, h32);
    ghash_fold_kernel<<<blocks_for(groups, warps_per_block), kGhashThreads, 0, stream>>>(
        w, in, n, groups * 32 - n, groups, out);
    span = gf_pow(span, 32);
    in = out;
    n = groups;
  }
  secure_wipe(&w, sizeof w);
  *root = in;
  return cudaGetLastError();
}

cudaError_t alloc_scratch(size_t nbytes, Gf128** scratch, cudaStream_t stream) {
  const size_t values = scratch_values((nbytes + 15) / 16);
  return ks::gpu::scratch_alloc_async(reinterpret_cast<void**>(scratch), values * sizeof(Gf128), stream);
}

}  // namespace

const char* kernel_name(Kernel k) { return k == Kernel::kTable ? "table" : "bitsliced"; }

int crypt(Kernel k, const uint32_t rk[32], const uint8_t* counter, const uint8_t* d_in,
          uint8_t* d_out, size_t nbytes, cudaStream_t stream) {
  if (!aligned16(d_in) || !aligned16(d_out)) return cudaErrorInvalidValue;
  Job j = {d_in, d_out, nbytes, {0, 0, 0, 0}, nullptr};
  if (counter == nullptr) return launch<Mode::kEcb>(k, keys_of(rk), j, stream);
  words_of(counter, j.ctr);
  return launch<Mode::kCtr128>(k, keys_of(rk), j, stream);
}

int ecb(Kernel k, const uint32_t rk[32], const uint8_t* d_in, uint8_t* d_out, size_t nblocks,
        cudaStream_t stream) {
  return crypt(k, rk, nullptr, d_in, d_out, 16 * nblocks, stream);
}

int ctr(Kernel k, const uint32_t rk[32], uint8_t counter[16], const uint8_t* d_in,
        uint8_t* d_out, size_t nblocks, cudaStream_t stream) {
  const int e = crypt(k, rk, counter, d_in, d_out, 16 * nblocks, stream);
  if (e == cudaSuccess) sm4::ctr128_add(counter, nblocks);
  return e;
}

int gcm_seal(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
             size_t aad_len, const uint8_t* d_in, size_t len, uint8_t* d_out, uint8_t* d_tag,
             cudaStream_t stream) {
  return gcm_seal_tag(k, rk, iv, aad, aad_len, d_in, len, d_out, d_tag, 16, stream);
}

int gcm_seal_tag(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                 size_t aad_len, const uint8_t* d_in, size_t len, uint8_t* d_out,
                 uint8_t* d_tag, size_t tag_len, cudaStream_t stream) {
  if (!aligned16(d_in) || !aligned16(d_out) || uint64_t(len) > gcm::kMaxTextBytes ||
      tag_len == 0 || tag_len > 16)
    return cudaErrorInvalidValue;
  GcmSetup s;
  gcm_setup(rk, iv, aad, aad_len, len, &s);
  s.f.write_len = unsigned(tag_len);
  Job j = {d_in, d_out, len, {s.ctr[0], s.ctr[1], s.ctr[2], s.ctr[3]}, nullptr};
  cudaError_t e = cudaError_t(launch<Mode::kGctr>(k, keys_of(rk), j, stream));
  Gf128* scratch = nullptr;
  if (e == cudaSuccess) e = alloc_scratch(len, &scratch, stream);
  if (e != cudaSuccess) return e;
  const Gf128* root = nullptr;
  e = enqueue_ghash(s.f.h, d_out, len, scratch, stream, &root);
  if (e == cudaSuccess) {
    ghash_final_kernel<<<1, 1, 0, stream>>>(s.f, root, d_tag, nullptr);
    e = cudaGetLastError();
  }
  const cudaError_t f = cudaFreeAsync(scratch, stream);
  return e != cudaSuccess ? e : f;
}

int gcm_open(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
             size_t aad_len, const uint8_t* d_in, size_t len, const uint8_t* tag,
             size_t tag_len, uint8_t* d_out, int* d_ok, cudaStream_t stream) {
  return gcm_open_tag(k, rk, iv, aad, aad_len, d_in, len, tag, tag_len, false, d_out, d_ok,
                      stream);
}

int gcm_open_tag(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                 size_t aad_len, const uint8_t* d_in, size_t len, const uint8_t* tag,
                 size_t tag_len, bool device_tag, uint8_t* d_out, int* d_ok,
                 cudaStream_t stream) {
  if (!aligned16(d_in) || !aligned16(d_out) || uint64_t(len) > gcm::kMaxTextBytes ||
      !gcm::valid_tag_length(tag_len))
    return cudaErrorInvalidValue;
  GcmSetup s;
  gcm_setup(rk, iv, aad, aad_len, len, &s);
  if (device_tag)
    s.f.d_expect = tag;
  else
    memcpy(s.f.expect, tag, tag_len);
  s.f.tag_len = unsigned(tag_len);
  Gf128* scratch = nullptr;
  cudaError_t e = alloc_scratch(len, &scratch, stream);
  if (e != cudaSuccess) return e;
  // Authenticate first (SP 800-38D 7.2 step 8 before any plaintext leaves):
  // the decryption kernel reads the verdict and writes nothing on a mismatch.
  const Gf128* root = nullptr;
  e = enqueue_ghash(s.f.h, d_in, len, scratch, stream, &root);
  if (e == cudaSuccess) {
    ghash_final_kernel<<<1, 1, 0, stream>>>(s.f, root, nullptr, d_ok);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) {
    const Job j = {d_in, d_out, len, {s.ctr[0], s.ctr[1], s.ctr[2], s.ctr[3]}, d_ok};
    e = cudaError_t(launch<Mode::kGctr>(k, keys_of(rk), j, stream));
  }
  const cudaError_t f = cudaFreeAsync(scratch, stream);
  return e != cudaSuccess ? e : f;
}

int gcm_seal_host(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                  size_t aad_len, const uint8_t* in, size_t len, uint8_t* out, uint8_t tag[16]) {
  const DeviceInOut d(in, out, len);
  const DeviceArray<uint8_t> dtag(16);
  cudaError_t e = ks::gpu::first_error(d, dtag);
  if (e == cudaSuccess)
    e = cudaError_t(gcm_seal(k, rk, iv, aad, aad_len, d.in(), len, d.out(), dtag.get(), nullptr));
  if (e == cudaSuccess && len != 0) e = cudaMemcpy(out, d.out(), len, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = dtag.copy_out(tag);
  return e;
}

int gcm_open_host(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                  size_t aad_len, const uint8_t* in, size_t len, const uint8_t* tag,
                  size_t tag_len, uint8_t* out, bool* ok) {
  *ok = false;
  const DeviceInOut d(in, out, len);
  const DeviceArray<int> dok(1);
  cudaError_t e = ks::gpu::first_error(d, dok);
  if (e == cudaSuccess)
    e = cudaError_t(
        gcm_open(k, rk, iv, aad, aad_len, d.in(), len, tag, tag_len, d.out(), dok.get(), nullptr));
  int verdict = 0;
  if (e == cudaSuccess) e = dok.copy_out(&verdict);
  if (e == cudaSuccess && verdict == 1 && len != 0)
    e = cudaMemcpy(out, d.out(), len, cudaMemcpyDeviceToHost);
  *ok = e == cudaSuccess && verdict == 1;
  return e;
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks
