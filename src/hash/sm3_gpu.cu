#include "hash/sm3_compress.h"
#include "hash/sm3_gpu.h"

namespace ks {
namespace sm3 {
namespace {

// SM3 of one message in global memory: whole blocks straight from the
// input, then the padded tail (section 5.2) in a local 128-byte buffer.
__device__ void digest_one(const uint8_t* msg, uint64_t len, uint8_t* out) {
  uint32_t state[8];
  load_iv(state);
  const uint64_t whole = len / 64;
  for (uint64_t b = 0; b < whole; ++b) compress_block(state, msg + 64 * b);

  uint8_t tail[128];
  const unsigned rest = unsigned(len - 64 * whole);
  for (unsigned i = 0; i < rest; ++i) tail[i] = msg[64 * whole + i];
  tail[rest] = 0x80;
  const unsigned tail_len = rest < 56 ? 64 : 128;
  for (unsigned i = rest + 1; i < tail_len - 8; ++i) tail[i] = 0;
  const uint64_t bits = len * 8;
  store_be32(tail + tail_len - 8, uint32_t(bits >> 32));
  store_be32(tail + tail_len - 4, uint32_t(bits));
  compress_block(state, tail);
  if (tail_len == 128) compress_block(state, tail + 64);
#pragma unroll
  for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, state[i]);
}

__global__ void digest_batch_kernel(const uint8_t* data, const uint64_t* offsets,
                                    size_t count, uint8_t* digests) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint64_t begin = offsets[i];
  digest_one(data + begin, offsets[i + 1] - begin, digests + 32 * i);
}

}  // namespace

cudaError_t launch_digest_batch(const uint8_t* data, const uint64_t* offsets, size_t count,
                                uint8_t* digests, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  constexpr unsigned kThreads = 256;
  const size_t blocks = (count + kThreads - 1) / kThreads;
  digest_batch_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(data, offsets, count, digests);
  return cudaGetLastError();
}

}  // namespace sm3
}  // namespace ks
