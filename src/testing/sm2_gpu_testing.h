// Test and benchmark hooks of SM2 on the GPU (built into kuaisuo_testing,
// not into libkuaisuo): element-wise field operations, and synchronous
// host-memory wrappers of the launchers of sm2/gpu/sm2_gpu.h (copy in,
// launch on the current device, wait, copy out). Each returns 0 or a
// cudaError_t value. No CUDA header needed.
#ifndef KS_TESTING_SM2_GPU_TESTING_H_
#define KS_TESTING_SM2_GPU_TESTING_H_

#include <stddef.h>
#include <stdint.h>

#include "sm2/gpu/sm2_gpu_host.h"

namespace ks {
namespace sm2 {
namespace gpu {

// Element-wise field operations on 8-word little-endian elements
// (canonical inputs: a, b < modulus). kDpf*: the same in the DPF field
// (field/fp_dpf.cuh), through its Montgomery form.
enum class FieldOp : int {
  kFpAdd, kFpSub, kFpMul, kFpSqr, kFpInv, kFpNeg, kFpHalf,
  kFnAdd, kFnSub, kFnMontMul, kFnInvMont, kFnToMont,
  kDpfAdd, kDpfSub, kDpfMul, kDpfSqr, kDpfInv, kDpfNeg,
};

// Items per thread of keygen and sign (1, 2, 4 or 8) for the run_*
// wrappers below, or 0 (any other value) for the launchers' choice by
// batch size.
void set_items_per_thread(int m);
int forced_items_per_thread();

int run_field_op(FieldOp op, const uint32_t* a, const uint32_t* b, uint32_t* out, size_t count);
int run_keygen(const uint8_t* priv, uint8_t* pub, size_t count);
int run_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count);
int run_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                    const uint8_t* nonces, uint8_t* sigs, int* status, size_t count);
int run_verify_digest(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs,
                      int* status, size_t count);

}  // namespace gpu
}  // namespace sm2
}  // namespace ks

#endif  // KS_TESTING_SM2_GPU_TESTING_H_
