// Test hooks of SM4 on the GPU (built into kuaisuo_testing, not into
// libkuaisuo): ECB and CTR from host memory, synchronously on the current
// device, over the launchers of sm4/gpu/sm4_gpu.h (whose gcm_seal_host
// and gcm_open_host do the same for GCM). in == out runs the kernel in
// place on one device buffer. Each returns 0 or a cudaError_t value.
#ifndef KS_TESTING_SM4_GPU_TESTING_H_
#define KS_TESTING_SM4_GPU_TESTING_H_

#include <stddef.h>
#include <stdint.h>

#include "sm4/gpu/sm4_gpu.h"

namespace ks {
namespace sm4 {
namespace gpu {

int run_ecb(Kernel k, const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t nblocks);
// counter advanced by nblocks, as ctr() does.
int run_ctr(Kernel k, const uint32_t rk[32], uint8_t counter[16], const uint8_t* in,
            uint8_t* out, size_t nblocks);

}  // namespace gpu
}  // namespace sm4
}  // namespace ks

#endif  // KS_TESTING_SM4_GPU_TESTING_H_
