// SM3 batches on the GPU (sm3/gpu/sm3_gpu.h): one thread per message.
#include "gpu/launch.cuh"
#include "kuaisuo/common.h"
#include "sm3/gpu/sm3_gpu.h"
#include "sm3/gpu/sm3_gpu_digest.cuh"

namespace ks {
namespace sm3 {
namespace gpu {
namespace {

// prefix || msg (prefix_len 0 or a few hundred bytes: SM2's Z_A, or Z_A's
// curve part): whole blocks straight from msg when there is no prefix,
// gathered otherwise.
struct PrefixedMessage {
  const uint8_t* prefix;
  unsigned prefix_len;
  const uint8_t* msg;
  __device__ uint8_t byte(uint64_t pos) const {
    return pos < prefix_len ? prefix[pos] : msg[pos - prefix_len];
  }
  __device__ const uint8_t* block(uint64_t b, uint8_t* buf) const {
    if (prefix_len == 0) return msg + 64 * b;
    for (unsigned i = 0; i < 64; ++i) buf[i] = byte(64 * b + i);
    return buf;
  }
};

__device__ void digest_one(const uint8_t* prefix, unsigned prefix_len, const uint8_t* msg,
                           uint64_t len, uint8_t* out) {
  digest_source(PrefixedMessage{prefix, prefix_len, msg}, prefix_len + len, out);
}

__global__ void digests_kernel(DeviceItems items, size_t count, uint8_t* digests) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint8_t* prefix = items.prefix + items.prefix_stride * i;
  if (items.offsets != nullptr) {
    uint64_t begin = items.offsets[i], end = items.offsets[i + 1];
    if (items.offsets_status != nullptr) {
      const bool in_range = begin <= end && end <= items.data_bytes;
      items.offsets_status[i] = in_range ? KS_OK : KS_ERR_OFFSETS;
      if (!in_range) begin = end = 0;
    }
    digest_one(prefix, items.prefix_len, items.data + begin, end - begin, digests + 32 * i);
  } else {
    digest_one(prefix, items.prefix_len, items.data + items.data_stride * i, items.data_len,
               digests + 32 * i);
  }
}

// The device-memory form of ks_sm3_batch: offsets straight from the
// caller, so each thread checks its own range first; one outside the data
// hashes nothing, gets KS_ERR_OFFSETS and a zero digest.
__global__ void checked_digests_kernel(const uint8_t* data, uint64_t data_len,
                                       const uint64_t* offsets, size_t count, uint8_t* digests,
                                       int* status) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint64_t begin = offsets[i], end = offsets[i + 1];
  uint8_t* out = digests + 32 * i;
  if (begin > end || end > data_len) {
    for (int b = 0; b < 32; ++b) out[b] = 0;
    status[i] = KS_ERR_OFFSETS;
    return;
  }
  digest_one(nullptr, 0, data + begin, end - begin, out);
  status[i] = KS_OK;
}

}  // namespace

cudaError_t launch_digests_checked(const uint8_t* data, uint64_t data_len,
                                   const uint64_t* offsets, size_t count, uint8_t* digests,
                                   int* status, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  constexpr unsigned kThreads = 256;
  checked_digests_kernel<<<ks::gpu::blocks_for(count, kThreads), kThreads, 0, stream>>>(
      data, data_len, offsets, count, digests, status);
  return cudaGetLastError();
}

cudaError_t launch_digests(const DeviceItems& items, size_t count, uint8_t* digests,
                           cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  constexpr unsigned kThreads = 256;
  digests_kernel<<<ks::gpu::blocks_for(count, kThreads), kThreads, 0, stream>>>(items, count,
                                                                                 digests);
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace sm3
}  // namespace ks
