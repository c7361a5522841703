// Random 32-byte strings on the GPU from ChaCha20 (core/chacha20.h) in
// counter mode: item i of a launch gets the first 32 bytes of the block
// (key, counter = i, nonce = {first_lo, first_hi, tag}). The key is fresh
// from getrandom for every batch call (gpu/gpu_runtime.cu), so streams
// never repeat across items, chunks or batches.
#ifndef KS_CORE_CHACHA20_GPU_H_
#define KS_CORE_CHACHA20_GPU_H_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace chacha20 {

struct Key {
  uint32_t words[8];
};

// out[32*i .. 32*i+32) for i < count (count < 2^32), device memory.
cudaError_t launch_random_bytes32(const Key& key, uint64_t first, uint32_t tag, size_t count,
                                  uint8_t* out, cudaStream_t stream);

}  // namespace chacha20
}  // namespace ks

#endif  // KS_CORE_CHACHA20_GPU_H_
