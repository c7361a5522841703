// SM3 hash (GB/T 32905-2016) and HMAC-SM3 (RFC 2104 over SM3), CPU side.
#ifndef KS_HASH_SM3_H_
#define KS_HASH_SM3_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace sm3 {

constexpr size_t kDigestBytes = 32;
constexpr size_t kBlockBytes = 64;

// Streaming SM3. Plain value type: copy it to fork a running hash.
class Sm3 {
 public:
  Sm3() { reset(); }
  void reset();
  void update(const uint8_t* data, size_t len);
  // Writes the digest and resets the object for reuse.
  void finish(uint8_t out[kDigestBytes]);

 private:
  uint32_t state_[8];
  uint64_t total_bytes_;
  uint8_t block_[kBlockBytes];
  size_t block_len_;
};

void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]);

// HMAC-SM3 with a key of any length (longer than a block is hashed first).
class HmacSm3 {
 public:
  HmacSm3(const uint8_t* key, size_t key_len);
  ~HmacSm3();
  void update(const uint8_t* data, size_t len) { inner_.update(data, len); }
  // Writes the tag and rewinds to the keyed initial state for reuse.
  void finish(uint8_t out[kDigestBytes]);

 private:
  Sm3 inner_, outer_;            // running inner hash, keyed outer hash
  Sm3 inner_start_, outer_start_;  // keyed states to rewind to
};

void hmac(const uint8_t* key, size_t key_len, const uint8_t* data, size_t len,
          uint8_t out[kDigestBytes]);

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_H_
