// SM4 on the shared GPU pipeline (engine/gpu_pipeline.cuh): the job of
// ks_sm4_crypt_buffer over the launchers of cipher/sm4_gpu.h.
#include <string.h>

#include <algorithm>

#include "cipher/sm4_blocks.h"
#include "cipher/sm4_gpu.h"
#include "cipher/sm4_gpu_batch.h"
#include "core/secure.h"
#include "engine/gpu_engine.cuh"
#include "engine/gpu_jobs.cuh"
#include "kuaisuo.h"

namespace ks {
namespace sm4_gpu {
namespace {

// Blocks of one buffer as fixed-size items: input block (16), output block
// (16). The round keys travel as kernel parameters; chunk c of CTR starts
// at counter + (its first block). Plaintext, on whichever side it is, is
// wiped from pinned memory once a chunk is done.
class BlocksJob final : public ks::gpu::FixedSizeJob {
 public:
  BlocksJob(Kernel kernel, const uint32_t rk[32], const uint8_t* counter, const uint8_t* in,
            uint8_t* out, bool secret_input)
      : kernel_(kernel), ctr_(counter != nullptr), secret_input_(secret_input) {
    memcpy(rk_, rk, sizeof rk_);
    if (ctr_) memcpy(counter_, counter, 16);
    add_input(in, 16);
    add_output(out, 16);
  }
  ~BlocksJob() override { secure_wipe(rk_, sizeof rk_); }
  // Chunks of 16 MiB (in and out: the pipeline's kChunkMaxBytes): enough
  // blocks to fill the GPU (a bitsliced warp takes 1,024), few enough to
  // keep four chunks in flight.
  size_t chunk_items(size_t, size_t remaining) const override {
    return std::min(remaining, ks::gpu::kChunkMaxBytes / 32);
  }
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return secret_input_ && !input_pinned(0) ? staged_bytes(first, n) : 0;
  }
  size_t secret_result_bytes(size_t n) const override {
    return !secret_input_ && !output_pinned(0) ? 16 * n : 0;
  }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const uint8_t* in = in_part(dev_in, n, 0);
    uint8_t* out = out_part(dev_out, n, 0);
    if (!ctr_) return cudaError_t(ecb(kernel_, rk_, in, out, n, stream));
    uint8_t counter[16];
    memcpy(counter, counter_, 16);
    sm4::ctr128_add(counter, first);
    return cudaError_t(ctr(kernel_, rk_, counter, in, out, n, stream));
  }

 private:
  Kernel kernel_;
  uint32_t rk_[32];
  uint8_t counter_[16] = {};
  bool ctr_, secret_input_;
};

}  // namespace

int crypt_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool secret_input) {
  return ks::gpu::CudaEngine::of(engine).run(
      BlocksJob(kernel, rk, counter, in, out, secret_input), nblocks);
}

int gcm_seal_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* in,
                    size_t len, uint8_t* out, uint8_t tag[16]) {
  cudaError_t err = cudaSetDevice(engine.device());
  if (err == cudaSuccess) err = cudaError_t(run_gcm_seal(kernel, rk, iv, aad, aad_len, in, len, out, tag));
  return ks::gpu::to_status(err);
}

int gcm_open_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* in,
                    size_t len, const uint8_t* tag, size_t tag_len, uint8_t* out) {
  bool ok = false;
  cudaError_t err = cudaSetDevice(engine.device());
  if (err == cudaSuccess)
    err = cudaError_t(run_gcm_open(kernel, rk, iv, aad, aad_len, in, len, tag, tag_len, out, &ok));
  if (err != cudaSuccess) return ks::gpu::to_status(err);
  return ok ? KS_OK : KS_ERR_TAG_MISMATCH;
}

}  // namespace sm4_gpu
}  // namespace ks
