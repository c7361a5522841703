// SM4's rounds on the GPU, shared by the kernels of one key per launch
// (sm4/gpu/sm4_gpu.cu) and those of one key per item: the T-table rounds
// (fast, NOT constant time: see sm4/gpu/sm4_gpu.h) and the bitsliced rounds
// over 32 blocks per thread (constant time), with the transpose that turns
// 32 blocks into planes and back. Device code only: include from .cu files.
#ifndef KS_CIPHER_SM4_GPU_ROUNDS_CUH_
#define KS_CIPHER_SM4_GPU_ROUNDS_CUH_

#include <stdint.h>

#include "cipher/gpu/sliced_gpu.cuh"
#include "core/endian.h"
#include "sm4/sm4_core.h"

namespace ks {
namespace sm4 {
namespace gpu {

using sm4::kRounds;

// --- T-table rounds ----------------------------------------------------------
// T0[a] = L(S(a) << 24) (GB/T 32907-2016, the composite T = L(tau(.))),
// computed by the circuit of sm4_core.h; T of a word is then
// T0[b0] ^ (T0[b1] >>> 8) ^ (T0[b2] >>> 16) ^ (T0[b3] >>> 24), b0 the top
// byte, since L commutes with rotations.
__device__ inline uint32_t t0_entry(uint32_t a) {
  const uint32_t s = sm4::tau_word(a) & 0xff;
  return sm4::xor_l<sm4::ScalarOps>(0u, s << 24);
}

// tab[a][c] = T0[a] for every copy c: word a * 32 + c lies in bank c, so
// lane c reading its own column never conflicts, whatever the indices.
__device__ inline void fill_table(uint32_t (*tab)[32], uint32_t* t0) {
  for (int a = threadIdx.x; a < 256; a += blockDim.x) t0[a] = t0_entry(a);
  __syncthreads();
  for (int i = threadIdx.x; i < 256 * 32; i += blockDim.x) tab[i >> 5][i & 31] = t0[i >> 5];
  __syncthreads();
}

__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return __funnelshift_r(x, x, n); }

// L(tau(w)) through the table; col = &tab[0][lane], rows 32 words apart.
__device__ __forceinline__ uint32_t t_lookup(const uint32_t* col, uint32_t w) {
  const uint32_t a = col[32 * __byte_perm(w, 0, 0x4443)];
  const uint32_t b = col[32 * __byte_perm(w, 0, 0x4442)];
  const uint32_t c = col[32 * __byte_perm(w, 0, 0x4441)];
  const uint32_t d = col[32 * __byte_perm(w, 0, 0x4440)];
  return a ^ rotr(b, 8) ^ rotr(c, 16) ^ rotr(d, 24);
}

// The 32 rounds and R on G blocks at once, as sm4::crypt_words (rounds i
// and i+1 share X_{i+2} ^ X_{i+3}); rk from the kernel's parameters, so
// every round key is a constant-bank operand.
template <int G>
__device__ __forceinline__ void table_rounds(uint32_t x[G][4], const uint32_t* rk,
                                             const uint32_t* col) {
#pragma unroll
  for (int i = 0; i < kRounds; i += 4) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      uint32_t& a = x[g][0];
      uint32_t& b = x[g][1];
      uint32_t& c = x[g][2];
      uint32_t& d = x[g][3];
      uint32_t p = c ^ d;
      a ^= t_lookup(col, b ^ p ^ rk[i]);
      b ^= t_lookup(col, p ^ a ^ rk[i + 1]);
      p = a ^ b;
      c ^= t_lookup(col, d ^ p ^ rk[i + 2]);
      d ^= t_lookup(col, p ^ c ^ rk[i + 3]);
    }
  }
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint32_t a = x[g][0], b = x[g][1];
    x[g][0] = x[g][3], x[g][1] = x[g][2], x[g][2] = b, x[g][3] = a;
  }
}

// --- Bitsliced rounds ----------------------------------------------------------
// Slice (cipher/gpu/sliced_gpu.cuh): a word of 32 blocks, the layout of
// sm4::BitslicedOps with 32-bit planes.
using sliced_gpu::Slice;
using sliced_gpu::transpose32;

struct SliceOps {
  using Word = Slice;
  // a ^ b ^ (round key `round` as planes), the planes from a key source
  // (SharedKeyPlanes, or one that derives them per thread), four at a time.
  template <class Keys>
  __device__ __forceinline__ static Word key_xor(const Word& a, const Word& b, const Keys& keys,
                                                 int round) {
    Word r;
#pragma unroll
    for (int k = 0; k < 32; k += 4) {
      const uint4 m = keys.planes4(round, k);
      r.bit[k] = a.bit[k] ^ b.bit[k] ^ m.x;
      r.bit[k + 1] = a.bit[k + 1] ^ b.bit[k + 1] ^ m.y;
      r.bit[k + 2] = a.bit[k + 2] ^ b.bit[k + 2] ^ m.z;
      r.bit[k + 3] = a.bit[k + 3] ^ b.bit[k + 3] ^ m.w;
    }
    return r;
  }
  __device__ __forceinline__ static Word tau(Word w) {
#pragma unroll
    for (int byte = 0; byte < 4; ++byte) sm4::sbox_planes<uint32_t>(w.bit + 8 * byte);
    return w;
  }
  template <int n>
  __device__ __forceinline__ static Word rotl(const Word& w) {
    Word r;
#pragma unroll
    for (int k = 0; k < 32; ++k) r.bit[(k + n) & 31] = w.bit[k];
    return r;
  }
  __device__ __forceinline__ static Word xor2(const Word& a, const Word& b) {
    Word r;
#pragma unroll
    for (int k = 0; k < 32; ++k) r.bit[k] = a.bit[k] ^ b.bit[k];
    return r;
  }
};

// One key for every block of a launch: the round keys' bits as all-ones
// or all-zero masks, made once per thread block in shared memory
// (masks[i][k] for bit k of round key i) and read four at a time by
// broadcast loads: one LOP3 per plane instead of a shift, an AND and a
// negation too.
struct SharedKeyPlanes {
  const uint32_t (*masks)[32];
  __device__ __forceinline__ uint4 planes4(int round, int k) const {
    return *reinterpret_cast<const uint4*>(masks[round] + k);
  }
};

// Fills masks[kRounds][32] from rk (all threads of the block take part;
// the caller synchronises before reading).
__device__ __forceinline__ void fill_key_planes(uint32_t (*masks)[32], const uint32_t* rk) {
  for (unsigned e = threadIdx.x; e < kRounds * 32; e += blockDim.x)
    masks[e / 32][e % 32] = 0u - ((rk[e / 32] >> (e % 32)) & 1);
}

// The 32 rounds and R (GB/T 32907-2016) over 32 blocks. sm4::crypt_words
// keeps X_{i+2} ^ X_{i+3} for two rounds, which costs 32 more live planes
// during the S-box than recomputing it (one XOR per plane): at 255
// registers that was the difference between spilling and not.
// keys.planes4(i, k): bits k .. k+3 of round key i as 32-bit masks.
template <class Keys>
__device__ __forceinline__ void sliced_rounds(Slice x[4], const Keys& keys) {
  using O = SliceOps;
  Slice a = x[0], b = x[1], c = x[2], d = x[3];
#pragma unroll 1
  for (int i = 0; i < kRounds; i += 4) {
    a = sm4::xor_l<O>(a, O::tau(O::key_xor(O::xor2(b, c), d, keys, i)));
    b = sm4::xor_l<O>(b, O::tau(O::key_xor(O::xor2(c, d), a, keys, i + 1)));
    c = sm4::xor_l<O>(c, O::tau(O::key_xor(O::xor2(d, a), b, keys, i + 2)));
    d = sm4::xor_l<O>(d, O::tau(O::key_xor(O::xor2(a, b), c, keys, i + 3)));
  }
  x[0] = d;
  x[1] = c;
  x[2] = b;
  x[3] = a;
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_GPU_ROUNDS_CUH_
