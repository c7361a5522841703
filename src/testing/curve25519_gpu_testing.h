// Test and benchmark hooks of Curve25519 on the GPU (built into
// kuaisuo_testing, not into libkuaisuo): host-memory wrappers of the
// launchers of curve25519/gpu/curve25519_gpu.h (copy in, launch on the
// current device, wait, copy out) and the field-operation kernels that
// test and measure the two GPU fields. Each returns 0 or a cudaError_t
// value. No CUDA header needed.
#ifndef KS_TESTING_CURVE25519_GPU_TESTING_H_
#define KS_TESTING_CURVE25519_GPU_TESTING_H_

#include <stddef.h>
#include <stdint.h>

#include "curve25519/gpu/curve25519_gpu_host.h"
#include "field/field_op.h"

namespace ks {
namespace curve25519 {
namespace gpu {

// out[i] = op(a[i], b[i]) (field/field_op.h), canonical, on elements given
// as 4 little-endian 64-bit words.
using field::FieldOp;

// X25519 of count items through device copies (per_thread as
// launch_x25519 takes it).
int run_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u, uint8_t* out,
               int* status, size_t count, int per_thread = 0);
// Ed25519 verification of count items in the flat layout (offsets has
// count + 1 entries from 0); status[i] as launch_ed25519_verify.
int run_ed25519_verify(Field field, Layout layout, const uint8_t* pubs, const uint8_t* sigs,
                       const uint8_t* data, const uint64_t* offsets, int* status, size_t count);
// Ed25519 public keys of count seeds, and signatures under one key (96
// bytes, as launch_ed25519_sign) or per-item seeds (key null).
int run_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds, uint8_t* pubs,
                            size_t count, BaseTable base = BaseTable::kComb);
// X25519 public keys of count private keys.
int run_x25519_public_keys(Field field, Layout layout, const uint8_t* keys, uint8_t* pubs,
                           size_t count, BaseTable base = BaseTable::kComb);
int run_ed25519_sign(Field field, Layout layout, const uint8_t* key, const uint8_t* seeds,
                     const uint8_t* data, const uint64_t* offsets, uint8_t* sigs, size_t count,
                     BaseTable base = BaseTable::kComb);
// op repeated `repeat` times (field/field_op.h's apply) in `field`.
int run_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                 size_t count, int repeat);
// The DPF field's operations on raw radix-2^51 limbs (five per element,
// any limbs within the field's invariant, field/fe25519_dpf.cuh), results
// canonical as four words: the bounds test at the limb maxima.
int run_dpf_limb_op(FieldOp op, const uint64_t* a_limbs, const uint64_t* b_limbs, uint64_t* out,
                    size_t count, int repeat);

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks

#endif  // KS_TESTING_CURVE25519_GPU_TESTING_H_
