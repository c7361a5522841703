// SM4 on the shared GPU pipeline (gpu/gpu_pipeline.cuh): the job of
// ks_sm4_crypt_buffer (cipher/gpu/blocks_gpu_job.cuh over the launchers of
// sm4/gpu/sm4_gpu.h) and GCM over one buffer.
#include <string.h>

#include "cipher/gpu/blocks_gpu_job.cuh"
#include "sm4/gpu/sm4_gpu.h"
#include "sm4/gpu/sm4_gpu_batch.h"
#include "core/secure.h"
#include "gpu/gpu_engine.cuh"
#include "gpu/launch.cuh"
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
  cudaError_t operator()(const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nbytes,
                         cudaStream_t stream) const {
    return cudaError_t(crypt(kernel, rk, counter, in, out, nbytes, stream));
  }
};

}  // namespace

int crypt_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool secret_input) {
  return blocks_gpu::crypt_buffer(engine, Sm4Blocks(kernel, rk), counter, in, out, nblocks,
                                  secret_input);
}

int crypt_device(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                 const uint8_t* counter, const uint8_t* d_in, uint8_t* d_out, size_t nbytes,
                 void* stream) {
  return blocks_gpu::crypt_device(engine, Sm4Blocks(kernel, rk), counter, d_in, d_out, nbytes,
                                  static_cast<cudaStream_t>(stream));
}

int gcm_seal_device(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* d_in,
                    size_t len, uint8_t* d_out, uint8_t* d_tag, size_t tag_len, void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  return ks::gpu::to_status(cudaError_t(gcm_seal_tag(kernel, rk, iv, aad, aad_len, d_in, len,
                                                     d_out, d_tag, tag_len,
                                                     static_cast<cudaStream_t>(stream))));
}

int gcm_open_device(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* d_in,
                    size_t len, const uint8_t* d_tag, size_t tag_len, uint8_t* d_out,
                    void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  int* d_ok = nullptr;
  int verdict = 0;
  cudaError_t e = ks::gpu::scratch_alloc_async(reinterpret_cast<void**>(&d_ok), sizeof(int), s);
  if (e == cudaSuccess)
    e = cudaError_t(gcm_open_tag(kernel, rk, iv, aad, aad_len, d_in, len, d_tag, tag_len, true,
                                 d_out, d_ok, s));
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(&verdict, d_ok, sizeof verdict, cudaMemcpyDeviceToHost, s);
  if (d_ok != nullptr) {
    const cudaError_t f = cudaFreeAsync(d_ok, s);
    if (e == cudaSuccess) e = f;
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);  // the verdict is the return value
  if (e != cudaSuccess) return ks::gpu::to_status(e);
  return verdict == 1 ? KS_OK : KS_ERR_TAG_MISMATCH;
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
