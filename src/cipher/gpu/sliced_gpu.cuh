// Bitsliced block ciphers on the GPU, written once over a cipher policy:
// ECB, CTR (128-bit counter) and GCTR (inc32, SP 800-38D 6.2) over one
// buffer, 32 blocks per thread as the planes of their 128 bits, in constant
// time (no branch or address depends on a key or the data). SM4
// (sm4/gpu/sm4_gpu.cu) and SKINNY-128-256 (skinny/gpu/skinny_gpu.cu) supply
// only their rounds:
//
//   struct Cipher {
//     static constexpr int kPlaneSwizzle;  // plane k of word i = bit k ^ this
//                                          // of the i-th little-endian word in memory
//     struct Keys;                         // by value, in the launch's parameters
//     struct Shared;                       // the key planes, in shared memory
//     __device__ static void fill(Shared&, const Keys&);  // all threads take part
//     __device__ static void rounds(Slice w[4], const Shared&);
//   };
//
// SM4 reads its block as four big-endian words (swizzle 24: the bytes of a
// word reversed), SKINNY as four little-endian rows (swizzle 0). Device code
// and launch templates: include from .cu files only.
#ifndef KS_CIPHER_SLICED_GPU_CUH_
#define KS_CIPHER_SLICED_GPU_CUH_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/launch.cuh"

namespace ks {
namespace sliced_gpu {

// A word of 32 blocks: bit[k] bit l = bit k of the word in block l.
struct Slice {
  using Plane = uint32_t;
  uint32_t bit[32];
};

// (x & m) | (y & ~m) as one LOP3, written in PTX so that the compiler
// does not turn a shifted operand's mask into separate ANDs.
__device__ __forceinline__ uint32_t bit_select(uint32_t m, uint32_t x, uint32_t y) {
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, 0xE4;" : "=r"(r) : "r"(x), "r"(y), "r"(m));
  return r;
}

// x >> s as the high word of x * 2^(32 - s): an IMAD, which issues to the
// multiply-add pipe, where a shift would take a cycle of the integer ALU
// that these kernels' rounds keep 90-94% busy (Nsight Compute, H200).
__device__ __forceinline__ uint32_t shift_right(uint32_t x, int s) {
  uint32_t r;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(1u << (32 - s)));
  return r;
}

// 32x32 bit-matrix transpose in place: afterwards a[k] bit j = (before)
// a[j] bit k. Stage s swaps the entries whose row and column differ in bit
// s (Hacker's Delight 7-3); the 16- and 8-bit stages are byte moves, one
// PRMT per word.
__device__ __forceinline__ void transpose32(uint32_t a[32]) {
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const uint32_t lo = a[j], hi = a[j + 16];
    a[j] = __byte_perm(lo, hi, 0x5410);
    a[j + 16] = __byte_perm(lo, hi, 0x7632);
  }
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    if (j & 8) continue;
    const uint32_t lo = a[j], hi = a[j + 8];
    a[j] = __byte_perm(lo, hi, 0x6240);
    a[j + 8] = __byte_perm(lo, hi, 0x7351);
  }
  // The 4-, 2- and 1-bit stages: each word of a pair keeps its bits under
  // one mask M and takes the other's, shifted by s, under ~M = M << s: a
  // LOP3 bit-select each, the shifts on the multiply pipe, where the XOR
  // swap took three LOP3s and a shift of the integer ALU per pair.
  constexpr uint32_t kMask[3] = {0x0f0f0f0fu, 0x33333333u, 0x55555555u};
#pragma unroll
  for (int stage = 0; stage < 3; ++stage) {
    const int s = 4 >> stage;
    const uint32_t m = kMask[stage];
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      if (j & s) continue;
      const uint32_t lo = a[j], hi = a[j + s];
      a[j] = bit_select(m, lo, hi << s);
      a[j + s] = bit_select(m, shift_right(lo, s), hi);
    }
  }
}

// --- Jobs: blocks in memory ---------------------------------------------------
// What a kernel does with block i: encrypt it (ECB), or XOR it with the
// encryption of counter block i: ctr + i modulo 2^128 (kCtr128), or ctr
// with only its low 32 bits stepped, inc32 (kGctr).
enum class Mode { kEcb, kCtr128, kGctr };

struct Job {
  const uint8_t* in;
  uint8_t* out;
  size_t nbytes;    // ECB: a multiple of 16; CTR/GCTR: the last block may be partial
  uint32_t ctr[4];  // the first counter block, big-endian words
  const int* gate;  // do nothing unless *gate (null: always run): SM4-GCM-AD's tag check
};

__device__ __forceinline__ size_t nblocks_of(const Job& j) { return (j.nbytes + 15) / 16; }

// Whole blocks of the job (a CTR job's last block may be partial).
__device__ __forceinline__ size_t whole_blocks_of(const Job& j) { return j.nbytes / 16; }

__device__ __forceinline__ bool gate_closed(const Job& j) {
  return j.gate != nullptr && *j.gate == 0;
}

// Writes whole block b: the cipher output v (its bytes in memory order)
// for ECB, or src ^ v, src = block b of the input.
template <Mode M>
__device__ __forceinline__ void store_block(const Job& j, size_t b, uint4 v, const uint4& src) {
  if (M != Mode::kEcb) v.x ^= src.x, v.y ^= src.y, v.z ^= src.z, v.w ^= src.w;
  reinterpret_cast<uint4*>(j.out)[b] = v;
}

// Writes the partial last block b of a CTR job: its bytes of in ^ the
// keystream v (memory order). Selects, not an indexed array: an array
// would live in local memory.
__device__ __forceinline__ void output_partial_block(const Job& j, size_t b, const uint4& v) {
  for (size_t i = 16 * b; i < j.nbytes; ++i) {
    const unsigned k = unsigned(i & 15);
    const uint32_t word = k < 8 ? (k < 4 ? v.x : v.y) : (k < 12 ? v.z : v.w);
    j.out[i] = uint8_t(j.in[i] ^ (word >> (8 * (k % 4))));
  }
}

// --- Tiles --------------------------------------------------------------------
constexpr int kThreads = 128;
constexpr size_t kTile = 32 * 32;  // blocks per warp per step

// All ones if bit k of x is set, else zero: a shift brings the bit to the
// top of its byte and PRMT's sign mode (a selector nibble's bit 3, PTX ISA
// "prmt") copies it into all four bytes; the four bits 8i + j of a word
// share the shift.
__device__ __forceinline__ uint32_t bit_plane(uint32_t x, int k) {
  uint32_t r;
  asm("prmt.b32 %0, %1, 0, %2;"
      : "=r"(r)
      : "r"(x << (7 - k % 8)), "r"(0x8888 | 0x1111 * (k / 8)));
  return r;
}

// The counter blocks first + 32 l (l = 0 .. 31) of a CTR or GCTR job as
// planes, built directly instead of 32 counters and four transposes:
// with base = the counter of block first, block first + 32 l has counter
// base + 32 l, so its bits 0-4 are base's for every l; bits 5-9 are
// u0 + l mod 32 (u0 = bits 5-9 of base), the plane of bit j of m = 0..31
// rotated by u0; above them sits A = base >> 10, plus one in the lanes
// l >= 32 - u0 where u0 + l carries, which flips exactly the bits of
// A ^ (A + 1). GCTR steps only the low 32 bits (inc32): its carry stops at
// bit 31. Counter bit p lies in byte 15 - p / 8 of the block: word
// 3 - p / 32, little-endian bit (p % 32) ^ 24.
template <int kSwizzle, Mode M>
__device__ __forceinline__ void counter_planes(const Job& j, size_t first, Slice w[4]) {
  uint64_t hi = uint64_t(j.ctr[0]) << 32 | j.ctr[1], lo = uint64_t(j.ctr[2]) << 32 | j.ctr[3];
  uint64_t d_lo, d_hi = 0;  // A ^ (A + 1), A = base >> 10
  if (M == Mode::kCtr128) {
    const uint64_t lo0 = lo;
    lo += first;
    hi += lo < lo0 ? 1 : 0;
    const uint64_t a_lo = lo >> 10 | hi << 54, a_hi = hi >> 10;
    d_lo = a_lo ^ (a_lo + 1);
    d_hi = d_lo == ~uint64_t(0) ? a_hi ^ (a_hi + 1) : 0;
  } else {
    lo = (lo & 0xffffffff00000000ull) | uint32_t(uint32_t(lo) + uint32_t(first));
    const uint32_t a = uint32_t(lo) >> 10;
    d_lo = (a ^ (a + 1)) & 0x3fffffu;  // bits 10 .. 31 only
  }
  const uint64_t a_lo = lo >> 10 | hi << 54, a_hi = hi >> 10;
  const uint32_t a[4] = {uint32_t(a_lo), uint32_t(a_lo >> 32), uint32_t(a_hi),
                         uint32_t(a_hi >> 32)};
  const uint32_t d[4] = {uint32_t(d_lo), uint32_t(d_lo >> 32), uint32_t(d_hi),
                         uint32_t(d_hi >> 32)};
  const uint32_t u0 = uint32_t(lo >> 5) & 31;
  const uint32_t carry = u0 == 0 ? 0u : ~0u << (32 - u0);
  constexpr uint32_t kCount[5] = {0xaaaaaaaau, 0xccccccccu, 0xf0f0f0f0u, 0xff00ff00u, 0xffff0000u};
#pragma unroll
  for (int p = 0; p < 128; ++p) {
    uint32_t plane;
    if (p < 5) {
      plane = bit_plane(uint32_t(lo), p);
    } else if (p < 10) {
      plane = __funnelshift_r(kCount[p - 5], kCount[p - 5], u0);
    } else {
      const int q = p - 10;
      plane = bit_plane(a[q / 32], q % 32) ^ (bit_plane(d[q / 32], q % 32) & carry);
    }
    w[3 - p / 32].bit[(p % 32) ^ 24 ^ kSwizzle] = plane;
  }
}

// Words in memory order (bit[l] = word of block l) to planes and back: the
// transpose, with the planes renamed by the swizzle (registers only).
template <int kSwizzle>
__device__ __forceinline__ void transpose_swizzled(Slice w[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    uint32_t t[32];
#pragma unroll
    for (int k = 0; k < 32; ++k) t[k] = w[i].bit[k ^ kSwizzle];
    transpose32(t);
#pragma unroll
    for (int k = 0; k < 32; ++k) w[i].bit[k] = t[k];
  }
}

template <int kSwizzle>
__device__ __forceinline__ void memory_to_planes(Slice w[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    transpose32(w[i].bit);
    uint32_t t[32];
#pragma unroll
    for (int k = 0; k < 32; ++k) t[k] = w[i].bit[k ^ kSwizzle];
#pragma unroll
    for (int k = 0; k < 32; ++k) w[i].bit[k] = t[k];
  }
}

// The input of a CTR tile is copied to shared memory (cp.async, 16 bytes
// per lane and block, coalesced) when the tile starts, so that the reads
// from memory overlap the rounds instead of stalling every warp of a wave
// at once when it writes. staged[l][lane]: block first + 32 l of the lane.
// Blocks past the job's whole blocks are not copied.
__device__ __forceinline__ void copy_async16(uint4* dst, const void* src) {
  const unsigned s = unsigned(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}

template <bool kFull>
__device__ __forceinline__ void stage_input(const Job& j, size_t first, size_t whole,
                                            uint4 (*staged)[32]) {
  const unsigned lane = threadIdx.x & 31;
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    const size_t b = first + 32 * size_t(l);
    if (kFull || b < whole) copy_async16(&staged[l][lane], j.in + 16 * b);
  }
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Loads an ECB tile's blocks as planes (blocks past the end: zeros).
template <int kSwizzle>
__device__ __forceinline__ void load_planes(const Job& j, size_t first, size_t n, Slice w[4]) {
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    const size_t b = first + 32 * size_t(l);
    const uint4 v = b < n ? reinterpret_cast<const uint4*>(j.in)[b] : make_uint4(0, 0, 0, 0);
    w[0].bit[l] = v.x, w[1].bit[l] = v.y, w[2].bit[l] = v.z, w[3].bit[l] = v.w;
  }
  memory_to_planes<kSwizzle>(w);
}

// Writes a thread's blocks first + 32 l from the planes w (kFull: all of
// them are whole blocks of the job), XORed for CTR with the input that
// stage_input copied (in may be out: it was read before any write).
template <int kSwizzle, Mode M, bool kFull>
__device__ __forceinline__ void write_blocks(const Job& j, size_t first, Slice w[4],
                                             size_t whole, size_t n, const uint4 (*staged)[32]) {
  const unsigned lane = threadIdx.x & 31;
  transpose_swizzled<kSwizzle>(w);
  if (M != Mode::kEcb) asm volatile("cp.async.wait_all;\n" ::: "memory");  // this lane's copies
  uint4 tail = make_uint4(0, 0, 0, 0);  // keystream of a partial last block
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    const size_t b = first + 32 * size_t(l);
    const uint4 v = make_uint4(w[0].bit[l], w[1].bit[l], w[2].bit[l], w[3].bit[l]);
    if (kFull || b < whole) store_block<M>(j, b, v, M == Mode::kEcb ? v : staged[l][lane]);
    if (!kFull && M != Mode::kEcb && b == whole) tail = v;
  }
  // A partial last block (CTR) is block `whole` (= n - 1), held by one
  // thread of the last tile.
  if (!kFull && M != Mode::kEcb && whole < n && whole >= first && whole - first < kTile &&
      (whole - first) % 32 == 0)
    output_partial_block(j, whole, tail);
}

// Dynamic shared memory of a launch: each warp's staged input (CTR and
// GCTR), 16 KiB per warp.
template <Mode M>
constexpr size_t staging_bytes() {
  return M == Mode::kEcb ? 0 : size_t(kThreads / 32) * kTile * 16;
}

// Each warp takes tiles of 1024 blocks; lane l holds blocks l, l + 32, ...
// of the tile as bit l .. of its planes (loads and stores coalesced).
// Blocks past the end are zeros in the planes and are not written.
template <class Cipher, Mode M>
__global__ void __launch_bounds__(kThreads) kernel(const typename Cipher::Keys keys, const Job j) {
  __shared__ __align__(16) typename Cipher::Shared key_planes;
  extern __shared__ uint4 staging[];  // staging_bytes<M>()
  Cipher::fill(key_planes, keys);
  __syncthreads();
  if (gate_closed(j)) return;
  constexpr int kSwz = Cipher::kPlaneSwizzle;
  const unsigned lane = threadIdx.x & 31;
  uint4(*staged)[32] = reinterpret_cast<uint4(*)[32]>(staging + (threadIdx.x / 32) * kTile);
  const size_t warp = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
  const size_t n = nblocks_of(j);
  const size_t whole = M == Mode::kEcb ? n : whole_blocks_of(j);
  for (size_t tile = warp; tile * kTile < n; tile += warps) {
    const size_t first = tile * kTile + lane;
    // Every tile but the last lies inside the job's whole blocks: no block
    // of it needs a bounds check.
    const bool full = (tile + 1) * kTile <= whole;
    if (M != Mode::kEcb)
      full ? stage_input<true>(j, first, whole, staged)
           : stage_input<false>(j, first, whole, staged);
    Slice w[4];
    if (M == Mode::kEcb)
      load_planes<kSwz>(j, first, n, w);
    else
      counter_planes<kSwz, M>(j, first, w);  // blocks past the end are not written
    Cipher::rounds(w, key_planes);
    if (full)
      write_blocks<kSwz, M, true>(j, first, w, whole, n, staged);
    else
      write_blocks<kSwz, M, false>(j, first, w, whole, n, staged);
  }
}

// Enqueues job j on stream; a cudaError_t.
template <class Cipher, Mode M>
cudaError_t launch(const typename Cipher::Keys& keys, const Job& j, cudaStream_t stream) {
  const size_t n = (j.nbytes + 15) / 16;
  if (n == 0) return cudaSuccess;
  constexpr size_t smem = staging_bytes<M>();
  static gpu::PerDeviceOnce smem_allowed;  // past the default 48 KiB: asked for per function
  if (smem > 0) {
    const cudaError_t e = smem_allowed.run([] {
      return cudaFuncSetAttribute(kernel<Cipher, M>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(smem));
    });
    if (e != cudaSuccess) return e;
  }
  // Enough resident CUDA blocks to fill the GPU; the kernels stride over the rest.
  kernel<Cipher, M><<<gpu::grid_for(n, kThreads * 32, 4), kThreads, smem, stream>>>(keys, j);
  return cudaGetLastError();
}

}  // namespace sliced_gpu
}  // namespace ks

#endif  // KS_CIPHER_SLICED_GPU_CUH_
