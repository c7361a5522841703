// SM3 (GB/T 32905-2016) of one message in a GPU thread, over any source of
// bytes: the message, or a prefix and the message, or SM2's Z_A input
// gathered from its parts. Device code: include from .cu files only.
#ifndef KS_HASH_SM3_GPU_DIGEST_CUH_
#define KS_HASH_SM3_GPU_DIGEST_CUH_

#include <stdint.h>

#include "sm3/sm3_compress.h"

namespace ks {
namespace sm3 {
namespace gpu {

// out = SM3 of `total` bytes of src, which gives them as
//   const uint8_t* src.block(b, buf): 64-byte block b (< total / 64),
//                                     in memory or gathered into buf;
//   uint8_t src.byte(pos):            byte pos (the tail only).
// Whole blocks are compressed as they come, then the padded tail (section
// 5.2) in a local 128-byte buffer.
template <class Source>
__device__ void digest_source(const Source& src, uint64_t total, uint8_t* out) {
  uint32_t state[8];
  load_iv(state);
  const uint64_t whole = total / 64;
  uint8_t block[128];
  for (uint64_t b = 0; b < whole; ++b) compress_block(state, src.block(b, block));
  const unsigned rest = unsigned(total - 64 * whole);
  for (unsigned i = 0; i < rest; ++i) block[i] = src.byte(64 * whole + i);
  block[rest] = 0x80;
  const unsigned tail_len = rest < 56 ? 64 : 128;
  for (unsigned i = rest + 1; i < tail_len - 8; ++i) block[i] = 0;
  const uint64_t bits = total * 8;
  store_be32(block + tail_len - 8, uint32_t(bits >> 32));
  store_be32(block + tail_len - 4, uint32_t(bits));
  compress_block(state, block);
  if (tail_len == 128) compress_block(state, block + 64);
#pragma unroll
  for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, state[i]);
}

// A source that gathers every block from byte(pos) (Source::byte).
template <class Bytes>
struct GatheredBlocks {
  Bytes bytes;
  __device__ const uint8_t* block(uint64_t b, uint8_t* buf) const {
    for (unsigned i = 0; i < 64; ++i) buf[i] = bytes(64 * b + i);
    return buf;
  }
  __device__ uint8_t byte(uint64_t pos) const { return bytes(pos); }
};

}  // namespace gpu
}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_GPU_DIGEST_CUH_
