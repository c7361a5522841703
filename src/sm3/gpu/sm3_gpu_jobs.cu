// SM3 on the shared GPU pipeline: the job of ks_sm3_batch.
#include "gpu/gpu_engine.cuh"
#include "gpu/gpu_jobs.cuh"
#include "sm3/gpu/sm3_gpu.h"
#include "sm3/gpu/sm3_gpu_batch.h"

namespace ks {
namespace sm3 {
namespace gpu {
namespace {

using ks::gpu::Copier;
using ks::gpu::MessagesJob;

// SM3 of each message -> 32-byte digests.
class Sm3Job final : public MessagesJob {
 public:
  Sm3Job(const uint8_t* data, const uint64_t* offsets, uint8_t* digests)
      : MessagesJob(data, offsets), digests_(digests) {}
  size_t out_bytes(size_t, size_t n) const override { return 32 * n; }
  cudaError_t launch(size_t, size_t n, const uint8_t* dev_in, uint8_t* dev_out,
                     cudaStream_t stream) const override {
    DeviceItems items;
    items.data = dev_messages(dev_in, n);
    items.offsets = dev_offsets(dev_in);
    return launch_digests(items, n, dev_out, stream);
  }
  void deliver(size_t first, size_t n, const uint8_t* results, const Copier& copy) const override {
    copy(digests_ + 32 * first, results, 32 * n);
  }

 private:
  uint8_t* digests_;
};

}  // namespace

int digest_batch(ks::gpu::Engine& engine, const uint8_t* data, const uint64_t* offsets,
                 size_t count, uint8_t* digests) {
  return ks::gpu::CudaEngine::of(engine).run(Sm3Job(data, offsets, digests), count);
}

int digest_device(ks::gpu::Engine& engine, const uint8_t* data, size_t data_len,
                  const uint64_t* offsets, size_t count, uint8_t* digests, int* status,
                  void* stream) {
  const ks::gpu::DeviceScope scope(engine.device());
  if (scope.status() != KS_OK) return scope.status();
  return ks::gpu::to_status(launch_digests_checked(data, data_len, offsets, count, digests,
                                                   status, static_cast<cudaStream_t>(stream)));
}

}  // namespace gpu
}  // namespace sm3
}  // namespace ks
