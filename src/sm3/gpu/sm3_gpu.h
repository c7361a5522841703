// SM3 on the GPU: one thread per message (device side of ks_sm3_batch, and
// of SM2's Z_A and e = SM3(Z_A || M)).
#ifndef KS_HASH_SM3_GPU_H_
#define KS_HASH_SM3_GPU_H_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace sm3 {
namespace gpu {

// A batch in device memory: item i is prefix_i || message_i, with
//   prefix_i  = prefix + prefix_stride * i, prefix_len bytes (stride 0: one
//               prefix for every item; prefix_len 0: none);
//   message_i = data[offsets[i] .. offsets[i + 1]) when offsets is set,
//               else data + data_stride * i, data_len bytes.
// Offsets no host has checked (device-memory batches) come with
// offsets_status: a range that descends or passes data_bytes is hashed as
// an empty message and gets KS_ERR_OFFSETS there, every other item 0.
struct DeviceItems {
  const uint8_t* prefix = nullptr;
  unsigned prefix_len = 0;
  size_t prefix_stride = 0;
  const uint8_t* data = nullptr;
  const uint64_t* offsets = nullptr;
  size_t data_stride = 0;
  unsigned data_len = 0;
  uint64_t data_bytes = 0;
  int* offsets_status = nullptr;
};

// digests[32*i ..] = SM3(item i) for i < count. Enqueued on `stream`.
cudaError_t launch_digests(const DeviceItems& items, size_t count, uint8_t* digests,
                           cudaStream_t stream);

// digests[32*i ..] = SM3(data[offsets[i] .. offsets[i + 1])) and
// status[i] = KS_OK, for offsets no host has checked: an item whose range
// is not within data_len gets KS_ERR_OFFSETS and 32 zero bytes. Enqueued
// on `stream`.
cudaError_t launch_digests_checked(const uint8_t* data, uint64_t data_len,
                                   const uint64_t* offsets, size_t count, uint8_t* digests,
                                   int* status, cudaStream_t stream);

}  // namespace gpu
}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_GPU_H_
