// SM4's GPU test hooks (testing/sm4_gpu_testing.h).
#include "testing/sm4_gpu_testing.h"

#include <cuda_runtime.h>

#include "gpu/launch.cuh"

namespace ks {
namespace sm4 {
namespace gpu {
namespace {

// launch(d_in, d_out) over nblocks blocks of host in, the result to host out.
template <class Launch>
int run_blocks(const uint8_t* in, uint8_t* out, size_t nblocks, const Launch& launch) {
  const ks::gpu::DeviceInOut d(in, out, 16 * nblocks);
  cudaError_t e = d.error();
  if (e == cudaSuccess) e = cudaError_t(launch(d.in(), d.out()));
  if (e == cudaSuccess && nblocks != 0)
    e = cudaMemcpy(out, d.out(), 16 * nblocks, cudaMemcpyDeviceToHost);
  return e;
}

}  // namespace

int run_ecb(Kernel k, const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t nblocks) {
  return run_blocks(in, out, nblocks, [&](const uint8_t* d_in, uint8_t* d_out) {
    return ecb(k, rk, d_in, d_out, nblocks, nullptr);
  });
}

int run_ctr(Kernel k, const uint32_t rk[32], uint8_t counter[16], const uint8_t* in,
            uint8_t* out, size_t nblocks) {
  return run_blocks(in, out, nblocks, [&](const uint8_t* d_in, uint8_t* d_out) {
    return ctr(k, rk, counter, d_in, d_out, nblocks, nullptr);
  });
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks
