#include "hash/sha512.h"

#include <string.h>

#include "core/secure.h"
#include "hash/sha512_blocks.h"
#include "hash/sha512_compress.h"

namespace ks {
namespace sha512 {
namespace {

void store_digest(const uint64_t state[8], uint8_t out[kDigestBytes]) {
  for (int i = 0; i < 8; ++i) store_be64(out + 8 * i, state[i]);
}

}  // namespace

void Sha512::reset() {
  load_iv(state_);
  total_bytes_ = 0;
  block_len_ = 0;
}

void Sha512::update(const uint8_t* data, size_t len) {
  // An empty update may come with a null pointer (an empty message), which
  // memcpy must not see even with a zero length (C11 7.24.1).
  if (len == 0) return;
  total_bytes_ += len;
  if (block_len_ > 0) {
    const size_t take = len < kBlockBytes - block_len_ ? len : kBlockBytes - block_len_;
    memcpy(block_ + block_len_, data, take);
    block_len_ += take;
    data += take;
    len -= take;
    if (block_len_ < kBlockBytes) return;
    compress_blocks(state_, block_, 1);
    block_len_ = 0;
  }
  const size_t whole = len / kBlockBytes;
  compress_blocks(state_, data, whole);
  data += whole * kBlockBytes;
  len -= whole * kBlockBytes;
  if (len > 0) {
    memcpy(block_, data, len);
    block_len_ = len;
  }
}

void Sha512::finish(uint8_t out[kDigestBytes]) {
  compress_final(state_, block_, block_len_, total_bytes_);
  store_digest(state_, out);
  secure_wipe(block_, sizeof(block_));
  reset();
}

// Whole blocks straight from data, then the padded tail: no copy of the
// message into a block buffer.
void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]) {
  uint64_t state[8];
  load_iv(state);
  const size_t whole = len / kBlockBytes;
  if (whole > 0) compress_blocks(state, data, whole);
  compress_final(state, data + whole * kBlockBytes, len % kBlockBytes, len);
  store_digest(state, out);
  secure_wipe(state, sizeof(state));
}

void digest_parts(const uint8_t* const parts[], const size_t lens[], size_t nparts,
                  uint8_t out[kDigestBytes]) {
  Sha512 h;
  for (size_t i = 0; i < nparts; ++i) h.update(parts[i], lens[i]);
  h.finish(out);
}

}  // namespace sha512
}  // namespace ks
