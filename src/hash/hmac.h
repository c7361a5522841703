// HMAC (RFC 2104, FIPS 198-1) over any hash H with H::kBlockBytes,
// H::kDigestBytes, update, finish and a static digest: HMAC-SM3, and
// HMAC-SHA-256 / HMAC-SHA-1 for PBKDF2 in encrypted keys.
#ifndef KS_HASH_HMAC_H_
#define KS_HASH_HMAC_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/secure.h"

namespace ks {

template <class H>
class Hmac {
 public:
  static constexpr size_t kDigestBytes = H::kDigestBytes;

  // A key of any length (one longer than a block is hashed first).
  Hmac(const uint8_t* key, size_t key_len) {
    uint8_t block[H::kBlockBytes] = {0};
    if (key_len > H::kBlockBytes) {
      H::digest(key, key_len, block);
    } else if (key_len > 0) {
      memcpy(block, key, key_len);
    }
    uint8_t pad[H::kBlockBytes];
    for (size_t i = 0; i < H::kBlockBytes; ++i) pad[i] = block[i] ^ 0x36;
    inner_start_.update(pad, H::kBlockBytes);
    for (size_t i = 0; i < H::kBlockBytes; ++i) pad[i] = block[i] ^ 0x5c;
    outer_start_.update(pad, H::kBlockBytes);
    secure_wipe(block, sizeof(block));
    secure_wipe(pad, sizeof(pad));
    inner_ = inner_start_;
    outer_ = outer_start_;
  }
  ~Hmac() { secure_wipe(this, sizeof(*this)); }
  Hmac(const Hmac&) = default;
  Hmac& operator=(const Hmac&) = default;

  void update(const uint8_t* data, size_t len) { inner_.update(data, len); }

  // Writes the tag and rewinds to the keyed initial state for reuse.
  void finish(uint8_t out[kDigestBytes]) {
    uint8_t inner_digest[kDigestBytes];
    inner_.finish(inner_digest);
    outer_.update(inner_digest, kDigestBytes);
    outer_.finish(out);
    secure_wipe(inner_digest, sizeof(inner_digest));
    inner_ = inner_start_;
    outer_ = outer_start_;
  }

  bool consistent() const {
    return inner_.consistent() && outer_.consistent() && inner_start_.consistent() &&
           outer_start_.consistent();
  }

  static void mac(const uint8_t* key, size_t key_len, const uint8_t* data, size_t len,
                  uint8_t out[kDigestBytes]) {
    Hmac m(key, key_len);
    m.update(data, len);
    m.finish(out);
  }

 private:
  H inner_, outer_;              // running inner hash, keyed outer hash
  H inner_start_, outer_start_;  // keyed states to rewind to
};

}  // namespace ks

#endif  // KS_HASH_HMAC_H_
