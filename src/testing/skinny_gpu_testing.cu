// SKINNY's GPU test hook (testing/skinny_gpu_testing.h).
#include "testing/skinny_gpu_testing.h"

#include <cuda_runtime.h>

#include "gpu/launch.cuh"

namespace ks {
namespace skinny {
namespace gpu {

int run_crypt(Kernel k, const skinny::RoundTweakeys& rtk, const uint8_t* counter,
              const uint8_t* in, uint8_t* out, size_t nblocks) {
  if (nblocks == 0) return cudaSuccess;
  const ks::gpu::DeviceArray<uint8_t> d(16 * nblocks, in);
  cudaError_t e = d.error();
  if (e == cudaSuccess) e = cudaError_t(crypt(k, rtk, counter, d.get(), d.get(), nblocks, nullptr));
  if (e == cudaSuccess) e = d.copy_out(out);
  return e;
}

}  // namespace gpu
}  // namespace skinny
}  // namespace ks
