// SM4 on the shared GPU pipeline (gpu/gpu_pipeline.cuh): the job of
// ks_sm4_crypt_buffer (cipher/gpu/blocks_gpu_job.cuh over the launchers of
// sm4/gpu/sm4_gpu.h) and GCM over one buffer.
#include <string.h>

#include "cipher/gpu/blocks_gpu_job.cuh"
#include "sm4/gpu/sm4_gpu.h"
#include "sm4/gpu/sm4_gpu_batch.h"
#include "core/secure.h"
#include "gpu/gpu_engine.cuh"
#include "kuaisuo/sm4.h"

namespace ks {
namespace sm4 {
namespace gpu {
namespace {

// SM4's launcher for blocks_gpu::BufferJob: the kernel and the round keys
// (encryption or decryption ones for ECB), passed as kernel parameters.
struct Sm4Blocks {
  Kernel kernel;
  uint32_t rk[32];
  Sm4Blocks(Kernel k, const uint32_t keys[32]) : kernel(k) { memcpy(rk, keys, sizeof rk); }
  Sm4Blocks(const Sm4Blocks& o) : Sm4Blocks(o.kernel, o.rk) {}
  ~Sm4Blocks() { secure_wipe(rk, sizeof rk); }
  cudaError_t operator()(const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t n,
                         cudaStream_t stream) const {
    if (counter == nullptr) return cudaError_t(ecb(kernel, rk, in, out, n, stream));
    uint8_t c[16];
    memcpy(c, counter, 16);  // ctr() advances its copy
    return cudaError_t(ctr(kernel, rk, c, in, out, n, stream));
  }
};

}  // namespace

int crypt_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool secret_input) {
  return blocks_gpu::crypt_buffer(engine, Sm4Blocks(kernel, rk), counter, in, out, nblocks,
                                  secret_input);
}

int gcm_seal_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* in,
                    size_t len, uint8_t* out, uint8_t tag[16]) {
  cudaError_t err = cudaSetDevice(engine.device());
  if (err == cudaSuccess)
    err = cudaError_t(gcm_seal_host(kernel, rk, iv, aad, aad_len, in, len, out, tag));
  return ks::gpu::to_status(err);
}

int gcm_open_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* in,
                    size_t len, const uint8_t* tag, size_t tag_len, uint8_t* out) {
  bool ok = false;
  cudaError_t err = cudaSetDevice(engine.device());
  if (err == cudaSuccess)
    err = cudaError_t(
        gcm_open_host(kernel, rk, iv, aad, aad_len, in, len, tag, tag_len, out, &ok));
  if (err != cudaSuccess) return ks::gpu::to_status(err);
  return ok ? KS_OK : KS_ERR_TAG_MISMATCH;
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks
