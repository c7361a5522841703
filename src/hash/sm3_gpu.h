// SM3 on the GPU: one thread per message (device side of ks_sm3_batch).
#ifndef KS_HASH_SM3_GPU_H_
#define KS_HASH_SM3_GPU_H_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace sm3 {

// digests[32*i ..] = SM3(data[offsets[i] .. offsets[i+1])) for i < count,
// all pointers in device memory. Enqueued on `stream`.
cudaError_t launch_digest_batch(const uint8_t* data, const uint64_t* offsets, size_t count,
                                uint8_t* digests, cudaStream_t stream);

// The same over prefix || message for every message, with one prefix of
// prefix_len bytes in device memory (SM2's e = SM3(Z_A || M)).
cudaError_t launch_prefixed_digest_batch(const uint8_t* prefix, unsigned prefix_len,
                                         const uint8_t* data, const uint64_t* offsets,
                                         size_t count, uint8_t* digests, cudaStream_t stream);

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_GPU_H_
