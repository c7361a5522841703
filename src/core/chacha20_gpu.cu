#include "core/chacha20.h"
#include "core/chacha20_gpu.h"

namespace ks {
namespace chacha20 {
namespace {

__global__ void random_bytes32_kernel(Key key, uint32_t first_lo, uint32_t first_hi,
                                      uint32_t tag, uint32_t count, uint8_t* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t nonce[3] = {first_lo, first_hi, tag};
  uint32_t words[16];
  block(words, key.words, i, nonce);
  uint4* dst = reinterpret_cast<uint4*>(out + 32 * size_t(i));
  dst[0] = make_uint4(words[0], words[1], words[2], words[3]);
  dst[1] = make_uint4(words[4], words[5], words[6], words[7]);
}

}  // namespace

cudaError_t launch_random_bytes32(const Key& key, uint64_t first, uint32_t tag, size_t count,
                                  uint8_t* out, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (count > 0xffffffffu) return cudaErrorInvalidValue;
  constexpr unsigned kThreads = 256;
  const unsigned blocks = unsigned((count + kThreads - 1) / kThreads);
  random_bytes32_kernel<<<blocks, kThreads, 0, stream>>>(key, uint32_t(first),
                                                         uint32_t(first >> 32), tag,
                                                         uint32_t(count), out);
  return cudaGetLastError();
}

}  // namespace chacha20
}  // namespace ks
