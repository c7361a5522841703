// SKINNY-128-256 on the GPU (skinny/gpu/skinny_gpu.h): the bitsliced
// kernel of cipher/gpu/sliced_gpu.cuh over SKINNY's rounds, constant time,
// the round tweakeys passed by value in the launch's parameters. The table
// and circuit kernels it was measured against are test and benchmark code
// (testing/skinny_gpu_testing.h; docs/design/0002-bitsliced-ciphers.md).
#include "skinny/gpu/skinny_gpu.h"

#include <cuda_runtime.h>

#include "cipher/gpu/sliced_gpu.cuh"
#include "core/endian.h"
#include "skinny/skinny128_256_sliced.h"

namespace ks {
namespace skinny {
namespace gpu {
namespace {

using skinny::kRounds;
using skinny::RoundTweakeys;

// --- The bitsliced kernel: cipher/gpu/sliced_gpu.cuh over SKINNY's rounds -------
// The rows are little-endian words (swizzle 0). The round tweakeys' bits
// as masks in shared memory (12 KiB), read four at a time by broadcast
// loads; one round per loop iteration: every plane of a round's output is
// computed afresh from the renamed inputs, so the loop needs no moves.
struct SkinnySliced {
  static constexpr int kPlaneSwizzle = 0;
  using Keys = RoundTweakeys;
  struct Shared {
    uint32_t masks[kRounds][64];
  };
  struct RoundMasks {
    const uint32_t* m;
    __device__ __forceinline__ void masks4(int row, int k, uint32_t out[4]) const {
      const uint4 v = *reinterpret_cast<const uint4*>(m + 32 * row + k);
      out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    }
  };
  __device__ __forceinline__ static void fill(Shared& s, const Keys& k) {
    for (unsigned e = threadIdx.x; e < kRounds * 64; e += blockDim.x)
      s.masks[e / 64][e % 64] = skinny::tweakey_mask(k, int(e / 64), int(e % 64));
  }
  __device__ __forceinline__ static void rounds(sliced_gpu::Slice w[4], const Shared& s) {
    const uint32_t* m = s.masks[0];
#pragma unroll 1
    for (const uint32_t* end = m + 64 * kRounds; m != end; m += 64)
      skinny::sliced_round(w, RoundMasks{m});
  }
};

// Decryption (ECB): the same masks, the inverse rounds in reverse order.
struct SkinnySlicedInverse : SkinnySliced {
  __device__ __forceinline__ static void rounds(sliced_gpu::Slice w[4], const Shared& s) {
#pragma unroll 1
    for (int i = kRounds - 1; i >= 0; --i) skinny::sliced_inv_round(w, RoundMasks{s.masks[i]});
  }
};


}  // namespace

int crypt(const RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in, uint8_t* d_out,
          size_t nblocks, cudaStream_t stream) {
  return crypt_bytes(rtk, counter, d_in, d_out, 16 * nblocks, stream);
}

int crypt_bytes(const RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in,
                uint8_t* d_out, size_t nbytes, cudaStream_t stream) {
  if (nbytes == 0) return cudaSuccess;
  sliced_gpu::Job j = {d_in, d_out, nbytes, {0, 0, 0, 0}, nullptr};
  if (counter == nullptr)
    return sliced_gpu::launch<SkinnySliced, sliced_gpu::Mode::kEcb>(rtk, j, stream);
  const uint64_t hi = load_be64(counter), lo = load_be64(counter + 8);
  j.ctr[0] = uint32_t(hi >> 32), j.ctr[1] = uint32_t(hi), j.ctr[2] = uint32_t(lo >> 32),
  j.ctr[3] = uint32_t(lo);
  return sliced_gpu::launch<SkinnySliced, sliced_gpu::Mode::kCtr128>(rtk, j, stream);
}

int decrypt_ecb_bytes(const RoundTweakeys& rtk, const uint8_t* d_in, uint8_t* d_out,
                      size_t nbytes, cudaStream_t stream) {
  if (nbytes == 0) return cudaSuccess;
  const sliced_gpu::Job j = {d_in, d_out, nbytes, {0, 0, 0, 0}, nullptr};
  return sliced_gpu::launch<SkinnySlicedInverse, sliced_gpu::Mode::kEcb>(rtk, j, stream);
}

}  // namespace gpu
}  // namespace skinny
}  // namespace ks
