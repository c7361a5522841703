// SM3 batches on the GPU in a build without CUDA.
#include "sm3/gpu/sm3_gpu_batch.h"
#include "kuaisuo/sm3.h"

namespace ks {
namespace sm3 {
namespace gpu {

int digest_batch(ks::gpu::Engine&, const uint8_t*, const uint64_t*, size_t, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int digest_device(ks::gpu::Engine&, const uint8_t*, size_t, const uint64_t*, size_t, uint8_t*,
                  int*, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

}  // namespace gpu
}  // namespace sm3
}  // namespace ks
