// SM3 batches on the GPU engine (the device side of ks_sm3_batch). Built
// with the CUDA backend (sm3/gpu/sm3_gpu_jobs.cu); without it,
// sm3/gpu/sm3_gpu_absent.cc answers KS_ERR_BACKEND_UNAVAILABLE.
#ifndef KS_HASH_SM3_GPU_BATCH_H_
#define KS_HASH_SM3_GPU_BATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

namespace ks {
namespace sm3 {
namespace gpu {

// digests[32 i ..] = SM3(item i) for count messages (flat layout, offsets
// validated). Returns a ks_status.
int digest_batch(ks::gpu::Engine& engine, const uint8_t* data, const uint64_t* offsets,
                 size_t count, uint8_t* digests);

// The same on buffers in device memory of the engine's device, queued on
// `stream` (a cudaStream_t) without waiting: status[i] is KS_OK, or
// KS_ERR_OFFSETS for an item whose range lies outside data_len.
int digest_device(ks::gpu::Engine& engine, const uint8_t* data, size_t data_len,
                  const uint64_t* offsets, size_t count, uint8_t* digests, int* status,
                  void* stream);

}  // namespace gpu
}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_GPU_BATCH_H_
