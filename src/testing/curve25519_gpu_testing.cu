// Curve25519's GPU test hooks (testing/curve25519_gpu_testing.h): the
// field-operation kernels and the synchronous wrappers over the launchers
// of curve25519/gpu/curve25519_gpu.h.
#include "testing/curve25519_gpu_testing.h"

#include "curve25519/gpu/curve25519_gpu.h"
#include "field/fe25519_dpf.cuh"
#include "field/fe25519_gpu.cuh"
#include "gpu/launch.cuh"

namespace ks {
namespace curve25519 {
namespace gpu {
namespace {

using ks::gpu::blocks_for;
using ks::gpu::DeviceArray;
using ks::gpu::run_sync;

constexpr unsigned kThreads = 128;

__device__ __forceinline__ size_t item_index() {
  return size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

template <class F>
__global__ void field_op_kernel(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                                size_t count, int repeat) {
  const size_t i = item_index();
  if (i >= count) return;
  const typename F::Elem r =
      field::apply<F>(op, F::from_words(a + 4 * i), F::from_words(b + 4 * i), repeat);
  F::to_words(out + 4 * i, r);
}

__global__ void dpf_limb_op_kernel(FieldOp op, const uint64_t* a, const uint64_t* b,
                                   uint64_t* out, size_t count, int repeat) {
  using F = field::Fe25519Dpf;
  const size_t i = item_index();
  if (i >= count) return;
  F::Elem x, y;
#pragma unroll
  for (int j = 0; j < 5; ++j) x.l[j] = a[5 * i + j], y.l[j] = b[5 * i + j];
  F::to_words(out + 4 * i, field::apply<F>(op, x, y, repeat));
}

// 32 bytes in, 32 bytes out per item, through a launcher of that shape.
template <class Launcher>
int run_32_to_32(Launcher launcher, Field field, Layout layout, BaseTable base, const uint8_t* in,
                 uint8_t* out, size_t count) {
  DeviceArray<uint8_t> din(32 * count, in), dout(32 * count);
  const int rc = run_sync(
      [&] { return launcher(field, layout, din.get(), dout.get(), count, nullptr, base); }, din,
      dout);
  return rc != 0 ? rc : int(dout.copy_out(out));
}

}  // namespace

int run_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u, uint8_t* out,
               int* status, size_t count, int per_thread) {
  DeviceArray<uint8_t> dk(32 * (k_stride ? count : 1), k), du(32 * count, u), dout(32 * count);
  DeviceArray<int> dst(count);
  const int rc = run_sync(
      [&] {
        return launch_x25519(field, dk.get(), k_stride, du.get(), dout.get(), dst.get(), count,
                             nullptr, per_thread);
      },
      dk, du, dout, dst);
  if (rc != 0) return rc;
  cudaError_t err = dout.copy_out(out);
  if (err == cudaSuccess && status != nullptr) err = dst.copy_out(status);
  return int(err);
}

int run_ed25519_verify(Field field, Layout layout, const uint8_t* pubs, const uint8_t* sigs,
                       const uint8_t* data, const uint64_t* offsets, int* status, size_t count) {
  const size_t data_len = count > 0 ? size_t(offsets[count]) : 0;
  DeviceArray<uint8_t> dpub(32 * count, pubs), dsig(64 * count, sigs), ddata(data_len, data);
  DeviceArray<uint64_t> doff(count + 1, offsets);
  DeviceArray<int> dst(count);
  const int rc = run_sync(
      [&] {
        return launch_ed25519_verify(field, layout, dpub.get(), dsig.get(), ddata.get(), data_len,
                                     doff.get(), dst.get(), count, nullptr);
      },
      dpub, dsig, ddata, doff, dst);
  return rc != 0 ? rc : int(dst.copy_out(status));
}

int run_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds, uint8_t* pubs,
                            size_t count, BaseTable base) {
  return run_32_to_32(launch_ed25519_public_keys, field, layout, base, seeds, pubs, count);
}

int run_x25519_public_keys(Field field, Layout layout, const uint8_t* keys, uint8_t* pubs,
                           size_t count, BaseTable base) {
  return run_32_to_32(launch_x25519_public_keys, field, layout, base, keys, pubs, count);
}

int run_ed25519_sign(Field field, Layout layout, const uint8_t* key, const uint8_t* seeds,
                     const uint8_t* data, const uint64_t* offsets, uint8_t* sigs, size_t count,
                     BaseTable base) {
  const size_t data_len = count > 0 ? size_t(offsets[count]) : 0;
  DeviceArray<uint8_t> dkey(key != nullptr ? 96 : 0, key),
      dseed(seeds != nullptr ? 32 * count : 0, seeds), ddata(data_len, data), dsig(64 * count);
  DeviceArray<uint64_t> doff(count + 1, offsets);
  const int rc = run_sync(
      [&] {
        return launch_ed25519_sign(field, layout, key != nullptr ? dkey.get() : nullptr,
                                   seeds != nullptr ? dseed.get() : nullptr, ddata.get(),
                                   doff.get(), dsig.get(), count, nullptr, base);
      },
      dkey, dseed, ddata, doff, dsig);
  return rc != 0 ? rc : int(dsig.copy_out(sigs));
}

int run_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                 size_t count, int repeat) {
  DeviceArray<uint64_t> da(4 * count, a), db(4 * count, b), dout(4 * count);
  const int rc = run_sync(
      [&] {
        if (count == 0) return cudaSuccess;
        const unsigned blocks = blocks_for(count, kThreads);
        if (field == Field::kDpf)
          field_op_kernel<field::Fe25519Dpf>
              <<<blocks, kThreads>>>(op, da.get(), db.get(), dout.get(), count, repeat);
        else
          field_op_kernel<field::Fe25519Gpu>
              <<<blocks, kThreads>>>(op, da.get(), db.get(), dout.get(), count, repeat);
        return cudaGetLastError();
      },
      da, db, dout);
  return rc != 0 ? rc : int(dout.copy_out(out));
}

int run_dpf_limb_op(FieldOp op, const uint64_t* a_limbs, const uint64_t* b_limbs, uint64_t* out,
                    size_t count, int repeat) {
  DeviceArray<uint64_t> da(5 * count, a_limbs), db(5 * count, b_limbs), dout(4 * count);
  const int rc = run_sync(
      [&] {
        if (count == 0) return cudaSuccess;
        dpf_limb_op_kernel<<<blocks_for(count, kThreads), kThreads>>>(
            op, da.get(), db.get(), dout.get(), count, repeat);
        return cudaGetLastError();
      },
      da, db, dout);
  return rc != 0 ? rc : int(dout.copy_out(out));
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
