// Test hook of SKINNY-128-256 on the GPU (built into kuaisuo_testing, not
// into libkuaisuo): skinny/gpu/skinny_gpu.h's crypt from host buffers,
// synchronously on the current device (one device buffer, in place; in
// and out may be equal). Returns 0 or a cudaError_t value.
#ifndef KS_TESTING_SKINNY_GPU_TESTING_H_
#define KS_TESTING_SKINNY_GPU_TESTING_H_

#include <stddef.h>
#include <stdint.h>

#include "skinny/gpu/skinny_gpu.h"

namespace ks {
namespace skinny {
namespace gpu {

int run_crypt(Kernel k, const skinny::RoundTweakeys& rtk, const uint8_t* counter,
              const uint8_t* in, uint8_t* out, size_t nblocks);

}  // namespace gpu
}  // namespace skinny
}  // namespace ks

#endif  // KS_TESTING_SKINNY_GPU_TESTING_H_
