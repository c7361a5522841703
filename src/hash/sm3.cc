#include "hash/sm3.h"

#include <string.h>

#include "core/secure.h"
#include "hash/sm3_blocks.h"
#include "hash/sm3_compress.h"

namespace ks {
namespace sm3 {

void Sm3::reset() {
  load_iv(state_);
  total_bytes_ = 0;
  block_len_ = 0;
}

void Sm3::update(const uint8_t* data, size_t len) {
  // An empty update may come with a null pointer (an empty message or ID),
  // which memcpy must not see even with a zero length (C11 7.24.1).
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
  if (whole > 0) {
    compress_blocks(state_, data, whole);
    data += whole * kBlockBytes;
    len -= whole * kBlockBytes;
  }
  if (len > 0) {
    memcpy(block_, data, len);
    block_len_ = len;
  }
}

// Padding (section 5.2): 0x80, zeros to 56 mod 64, then the bit length as a
// 64-bit big-endian integer.
void Sm3::finish(uint8_t out[kDigestBytes]) {
  const uint64_t bit_len = total_bytes_ * 8;
  block_[block_len_++] = 0x80;
  if (block_len_ > 56) {
    memset(block_ + block_len_, 0, kBlockBytes - block_len_);
    compress_blocks(state_, block_, 1);
    block_len_ = 0;
  }
  memset(block_ + block_len_, 0, 56 - block_len_);
  store_be32(block_ + 56, uint32_t(bit_len >> 32));
  store_be32(block_ + 60, uint32_t(bit_len));
  compress_blocks(state_, block_, 1);
  for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, state_[i]);
  secure_wipe(block_, sizeof(block_));
  reset();
}

void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]) {
  Sm3 h;
  h.update(data, len);
  h.finish(out);
}

HmacSm3::HmacSm3(const uint8_t* key, size_t key_len) {
  uint8_t block[kBlockBytes] = {0};
  if (key_len > kBlockBytes) {
    digest(key, key_len, block);
  } else if (key_len > 0) {
    memcpy(block, key, key_len);
  }
  uint8_t pad[kBlockBytes];
  for (size_t i = 0; i < kBlockBytes; ++i) pad[i] = block[i] ^ 0x36;
  inner_start_.update(pad, kBlockBytes);
  for (size_t i = 0; i < kBlockBytes; ++i) pad[i] = block[i] ^ 0x5c;
  outer_start_.update(pad, kBlockBytes);
  secure_wipe(block, sizeof(block));
  secure_wipe(pad, sizeof(pad));
  inner_ = inner_start_;
  outer_ = outer_start_;
}

HmacSm3::~HmacSm3() { secure_wipe(this, sizeof(*this)); }

void HmacSm3::finish(uint8_t out[kDigestBytes]) {
  uint8_t inner_digest[kDigestBytes];
  inner_.finish(inner_digest);
  outer_.update(inner_digest, kDigestBytes);
  outer_.finish(out);
  secure_wipe(inner_digest, sizeof(inner_digest));
  inner_ = inner_start_;
  outer_ = outer_start_;
}

void hmac(const uint8_t* key, size_t key_len, const uint8_t* data, size_t len,
          uint8_t out[kDigestBytes]) {
  HmacSm3 mac(key, key_len);
  mac.update(data, len);
  mac.finish(out);
}

}  // namespace sm3
}  // namespace ks
