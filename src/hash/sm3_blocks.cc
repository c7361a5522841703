#include "hash/sm3_blocks.h"

#include "hash/sm3.h"
#include "hash/sm3_compress.h"

namespace ks {
namespace sm3 {

void compress_blocks_portable(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) compress_block(state, blocks + 64 * i);
}

void compress_blocks(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  compress_blocks_portable(state, blocks, nblocks);
}

const char* compress_variant_name() { return "portable"; }

void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n,
                 uint8_t (*out)[32]) {
  for (size_t i = 0; i < n; ++i) digest(msgs[i], lens[i], out[i]);
}

}  // namespace sm3
}  // namespace ks
