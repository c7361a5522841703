// SKINNY-128-256 on the shared GPU pipeline: the job of
// ks_skinny128_256_crypt_buffer (cipher/gpu/blocks_gpu_job.cuh over
// skinny::gpu::crypt).
#include <string.h>

#include "cipher/gpu/blocks_gpu_job.cuh"
#include "skinny/gpu/skinny_gpu.h"
#include "core/secure.h"

namespace ks {
namespace skinny {
namespace gpu {
namespace {

// SKINNY's launcher for blocks_gpu::BufferJob: the round tweakeys, passed
// as kernel parameters, and the direction (ECB decryption runs the inverse
// rounds; CTR is its own inverse).
struct SkinnyBlocks {
  skinny::RoundTweakeys rtk;
  bool encrypt;
  SkinnyBlocks(const skinny::RoundTweakeys& r, bool e) : rtk(r), encrypt(e) {}
  SkinnyBlocks(const SkinnyBlocks& o) : SkinnyBlocks(o.rtk, o.encrypt) {}
  ~SkinnyBlocks() { secure_wipe(&rtk, sizeof rtk); }
  cudaError_t operator()(const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nbytes,
                         cudaStream_t stream) const {
    if (counter == nullptr && !encrypt)
      return cudaError_t(decrypt_ecb_bytes(rtk, in, out, nbytes, stream));
    return cudaError_t(crypt_bytes(rtk, counter, in, out, nbytes, stream));
  }
};

}  // namespace

int crypt_buffer(ks::gpu::Engine& engine, const skinny::RoundTweakeys& rtk,
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool encrypt) {
  return blocks_gpu::crypt_buffer(engine, SkinnyBlocks(rtk, encrypt), counter, in, out, nblocks,
                                  encrypt);
}

int crypt_device(ks::gpu::Engine& engine, const skinny::RoundTweakeys& rtk,
                 const uint8_t* counter, const uint8_t* d_in, uint8_t* d_out, size_t nbytes,
                 bool encrypt, void* stream) {
  return blocks_gpu::crypt_device(engine, SkinnyBlocks(rtk, encrypt), counter, d_in, d_out,
                                  nbytes, static_cast<cudaStream_t>(stream));
}

}  // namespace gpu
}  // namespace skinny
}  // namespace ks
