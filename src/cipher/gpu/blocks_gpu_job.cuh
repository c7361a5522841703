// One buffer of a 128-bit block cipher in ECB or CTR on the GPU engine's
// pipeline (gpu/gpu_pipeline.cuh), written once for every cipher: the
// job of ks_sm4_crypt_buffer and ks_skinny128_256_crypt_buffer, and their
// path for buffers already in device memory. A cipher supplies a launcher,
// a value that holds its keys (and wipes them when destroyed) and enqueues
// nbytes bytes on a stream (whole blocks in ECB; in CTR the last block may
// be partial):
//
//   cudaError_t operator()(const uint8_t* counter,  // null: ECB
//                          const uint8_t* d_in, uint8_t* d_out, size_t nbytes,
//                          cudaStream_t stream) const;
//
// counter is the first counter block (host memory, 128-bit big-endian);
// the launcher may not keep it.
#ifndef KS_CIPHER_BLOCKS_GPU_JOB_CUH_
#define KS_CIPHER_BLOCKS_GPU_JOB_CUH_

#include <string.h>

#include <algorithm>

#include "cipher/modes.h"
#include "gpu/gpu_engine.cuh"
#include "gpu/gpu_jobs.cuh"

namespace ks {
namespace blocks_gpu {

// Blocks of one buffer as fixed-size items: input block (16), output block
// (16). Chunk c of CTR starts at counter + (its first block). Plaintext,
// on whichever side it is, is wiped from pinned staging once a chunk is done.
template <class Launcher>
class BufferJob final : public gpu::FixedSizeJob {
 public:
  BufferJob(const Launcher& launcher, const uint8_t* counter, const uint8_t* in, uint8_t* out,
            bool secret_input)
      : launcher_(launcher), ctr_(counter != nullptr), secret_input_(secret_input) {
    if (ctr_) memcpy(counter_, counter, 16);
    add_input(in, 16);
    add_output(out, 16);
  }
  // Chunks of 16 MiB (in and out: the pipeline's kChunkMaxBytes): enough
  // blocks to fill the GPU (a bitsliced warp takes 1,024), few enough to
  // keep four chunks in flight.
  size_t chunk_items(size_t, size_t remaining) const override {
    return std::min(remaining, gpu::kChunkMaxBytes / 32);
  }
  size_t secret_staged_bytes(size_t first, size_t n) const override {
    return secret_input_ && !input_pinned(0) ? staged_bytes(first, n) : 0;
  }
  size_t secret_result_bytes(size_t, size_t n) const override {
    return !secret_input_ && !output_pinned(0) ? 16 * n : 0;
  }
  cudaError_t launch(size_t first, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    const uint8_t* in = in_part(dev_in, n, 0);
    uint8_t* out = out_part(dev_out, n, 0);
    if (!ctr_) return launcher_(nullptr, in, out, 16 * n, stream);
    uint8_t counter[16];
    memcpy(counter, counter_, 16);
    modes::ctr128_add(counter, first);
    return launcher_(counter, in, out, 16 * n, stream);
  }

 private:
  Launcher launcher_;
  uint8_t counter_[16] = {};
  bool ctr_, secret_input_;
};

// Runs the job over nblocks blocks on the engine; a ks_status.
template <class Launcher>
int crypt_buffer(gpu::Engine& engine, const Launcher& launcher, const uint8_t* counter,
                 const uint8_t* in, uint8_t* out, size_t nblocks, bool secret_input) {
  return gpu::CudaEngine::of(engine).run(
      BufferJob<Launcher>(launcher, counter, in, out, secret_input), nblocks);
}

// The buffer already in device memory of the engine's device: nbytes from
// d_in to d_out in place on `stream`, no staging, returning once queued
// (kuaisuo/common.h, "Device memory"); a ks_status for the launch.
template <class Launcher>
int crypt_device(gpu::Engine& engine, const Launcher& launcher, const uint8_t* counter,
                 const uint8_t* d_in, uint8_t* d_out, size_t nbytes, cudaStream_t stream) {
  const gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK || nbytes == 0) return scope.status();
  return gpu::to_status(launcher(counter, d_in, d_out, nbytes, stream));
}

}  // namespace blocks_gpu
}  // namespace ks

#endif  // KS_CIPHER_BLOCKS_GPU_JOB_CUH_
