// SM2's GPU test hooks (testing/sm2_gpu_testing.h): the field-operation
// kernel and the synchronous wrappers over the launchers of
// sm2/gpu/sm2_gpu.h.
#include "testing/sm2_gpu_testing.h"

#include "field/fn_gpu.cuh"
#include "field/fp_dpf.cuh"
#include "field/fp_gpu.cuh"
#include "gpu/launch.cuh"
#include "sm2/gpu/sm2_gpu.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

using field::FnGpu;
using field::FpGpu;
using field::U32x8;
using ks::gpu::DeviceArray;
using ks::gpu::run_sync;

constexpr unsigned kThreads = 128;

// The DPF field's operations on plain 8-word values.
__device__ U32x8 dpf_field_op(FieldOp op, const U32x8& a, const U32x8& b) {
  using F = field::FpDpf;
  uint64_t w[4];
  FpGpu::to_words(w, a);
  const F::Elem x = F::from_words(w);
  FpGpu::to_words(w, b);
  const F::Elem y = F::from_words(w);
  F::Elem r = x;
  switch (op) {
    case FieldOp::kDpfAdd: r = F::add(x, y); break;
    case FieldOp::kDpfSub: r = F::sub(x, y); break;
    case FieldOp::kDpfMul: r = F::mul(x, y); break;
    case FieldOp::kDpfSqr: r = F::sqr(x); break;
    case FieldOp::kDpfInv: r = F::inv(x); break;
    case FieldOp::kDpfNeg: r = F::neg(x); break;
    default: break;
  }
  F::to_words(w, r);
  return FpGpu::from_words(w);
}

__device__ U32x8 field_op(FieldOp op, const U32x8& a, const U32x8& b) {
  switch (op) {
    case FieldOp::kFpAdd: return FpGpu::add(a, b);
    case FieldOp::kFpSub: return FpGpu::sub(a, b);
    case FieldOp::kFpMul: return FpGpu::mul(a, b);
    case FieldOp::kFpSqr: return FpGpu::sqr(a);
    case FieldOp::kFpInv: return FpGpu::inv(a);
    case FieldOp::kFpNeg: return FpGpu::neg(a);
    case FieldOp::kFpHalf: return FpGpu::half(a);
    case FieldOp::kFnAdd: return FnGpu::add(a, b);
    case FieldOp::kFnSub: return FnGpu::sub(a, b);
    case FieldOp::kFnMontMul: return FnGpu::mont_mul(a, b);
    case FieldOp::kFnInvMont: return FnGpu::inv_mont(a);
    case FieldOp::kFnToMont: return FnGpu::to_mont(a);
    case FieldOp::kDpfAdd:
    case FieldOp::kDpfSub:
    case FieldOp::kDpfMul:
    case FieldOp::kDpfSqr:
    case FieldOp::kDpfInv:
    case FieldOp::kDpfNeg: return dpf_field_op(op, a, b);
  }
  return a;
}

__global__ void field_op_kernel(FieldOp op, const uint32_t* a, const uint32_t* b, uint32_t* out,
                                size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  U32x8 x, y;
#pragma unroll
  for (int j = 0; j < 8; ++j) x.w[j] = a[8 * i + j], y.w[j] = b[8 * i + j];
  const U32x8 r = field_op(op, x, y);
#pragma unroll
  for (int j = 0; j < 8; ++j) out[8 * i + j] = r.w[j];
}

// The first error of two copies back, both made.
int first_of(cudaError_t a, cudaError_t b) { return int(a != cudaSuccess ? a : b); }

}  // namespace

int run_field_op(FieldOp op, const uint32_t* a, const uint32_t* b, uint32_t* out, size_t count) {
  DeviceArray<uint32_t> da(8 * count, a), db(8 * count, b), dout(8 * count);
  const int err = run_sync(
      [&] {
        if (count == 0) return cudaSuccess;
        field_op_kernel<<<ks::gpu::blocks_for(count, kThreads), kThreads>>>(
            op, da.get(), db.get(), dout.get(), count);
        return cudaGetLastError();
      },
      da, db, dout);
  return err != 0 ? err : int(dout.copy_out(out));
}

int run_keygen(const uint8_t* priv, uint8_t* pub, size_t count) {
  DeviceArray<uint8_t> dpriv(32 * count, priv), dpub(65 * count);
  const int err = run_sync(
      [&] {
        return launch_keygen(dpriv.get(), dpub.get(), nullptr, count, 0,
                             forced_items_per_thread());
      },
      dpriv, dpub);
  return err != 0 ? err : int(dpub.copy_out(pub));
}

int run_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count) {
  DeviceArray<uint8_t> dpriv(32 * count, priv);
  DeviceArray<SignKey> dkeys(count);
  const int err =
      run_sync([&] { return launch_prepare_sign_keys(dpriv.get(), dkeys.get(), count, 0); },
               dpriv, dkeys);
  return err != 0 ? err : int(dkeys.copy_out(keys));
}

int run_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                    const uint8_t* nonces, uint8_t* sigs, int* status, size_t count) {
  DeviceArray<uint8_t> de(32 * count, digests), dk(32 * count, nonces), dsig(64 * count);
  DeviceArray<SignKey> dkeys(key_stride ? count : 1, keys);
  DeviceArray<int> dstatus(count);
  const int err = run_sync(
      [&] {
        return launch_sign_digest(de.get(), dkeys.get(), key_stride, dk.get(), dsig.get(),
                                  dstatus.get(), count, 0, forced_items_per_thread());
      },
      de, dk, dsig, dkeys, dstatus);
  return err != 0 ? err : first_of(dsig.copy_out(sigs), dstatus.copy_out(status));
}

int run_verify_digest(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs,
                      int* status, size_t count) {
  DeviceArray<uint8_t> dpub(65 * count, pubs), de(32 * count, digests), dsig(64 * count, sigs);
  DeviceArray<int> dstatus(count);
  const int err = run_sync(
      [&] {
        return launch_verify_digest(dpub.get(), de.get(), dsig.get(), dstatus.get(), count, 0);
      },
      dpub, de, dsig, dstatus);
  return err != 0 ? err : int(dstatus.copy_out(status));
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
