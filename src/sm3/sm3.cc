#include "sm3/sm3.h"

#include "sm3/sm3_blocks.h"
#include "sm3/sm3_compress.h"

namespace ks {
namespace sm3 {

void Sm3Compress::init(uint32_t state[8]) { load_iv(state); }

void Sm3Compress::blocks(uint32_t state[8], const uint8_t* data, size_t nblocks) {
  compress_blocks(state, data, nblocks);
}

void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]) {
  Sm3::digest(data, len, out);
}

void hmac(const uint8_t* key, size_t key_len, const uint8_t* data, size_t len,
          uint8_t out[kDigestBytes]) {
  HmacSm3::mac(key, key_len, data, len, out);
}

}  // namespace sm3
}  // namespace ks
