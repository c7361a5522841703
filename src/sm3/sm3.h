// SM3 hash (GB/T 32905-2016) and HMAC-SM3 (RFC 2104 over SM3), CPU side.
#ifndef KS_HASH_SM3_H_
#define KS_HASH_SM3_H_

#include <stddef.h>
#include <stdint.h>

#include "hash/hmac.h"
#include "hash/md_hash.h"

namespace ks {
namespace sm3 {

constexpr size_t kDigestBytes = 32;
constexpr size_t kBlockBytes = 64;

// SM3's compression (section 5.3) for MdHash, which adds the padding of
// section 5.2; dispatched to the fastest kernel (sm3_blocks.h).
struct Sm3Compress {
  using Word = uint32_t;
  static constexpr size_t kStateWords = 8, kDigestBytes = 32, kBlockBytes = 64, kLengthBytes = 8;
  static void init(uint32_t state[8]);
  static void blocks(uint32_t state[8], const uint8_t* data, size_t nblocks);
};

// Streaming SM3. Plain value type: copy it to fork a running hash.
using Sm3 = MdHash<Sm3Compress>;

void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]);

// HMAC-SM3 with a key of any length (longer than a block is hashed first).
using HmacSm3 = Hmac<Sm3>;

void hmac(const uint8_t* key, size_t key_len, const uint8_t* data, size_t len,
          uint8_t out[kDigestBytes]);

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_H_
