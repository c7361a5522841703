// SHA-512 (FIPS 180-4), CPU side: the hash of Ed25519 (RFC 8032), which
// hashes short messages on every signature: SHA-512(seed),
// SHA-512(dom2 || prefix || M) and SHA-512(dom2 || R || A || M).
#ifndef KS_HASH_SHA512_H_
#define KS_HASH_SHA512_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace sha512 {

constexpr size_t kDigestBytes = 64, kBlockBytes = 128;

// Streaming SHA-512. Plain value type: copy it to fork a running hash.
class Sha512 {
 public:
  Sha512() { reset(); }
  void reset();
  // Accepts (nullptr, 0).
  void update(const uint8_t* data, size_t len);
  // Writes the digest, wipes the buffered message bytes and resets the
  // object for reuse.
  void finish(uint8_t out[kDigestBytes]);

 private:
  uint64_t state_[8];
  uint64_t total_bytes_;  // the 128-bit length field holds total_bytes_ * 8
  uint8_t block_[kBlockBytes];
  size_t block_len_;
};

void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]);

// SHA-512 of parts[0] || parts[1] || ... || parts[nparts - 1] without
// joining them (Ed25519's R || A || M). A part may be (nullptr, 0).
void digest_parts(const uint8_t* const parts[], const size_t lens[], size_t nparts,
                  uint8_t out[kDigestBytes]);

}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_H_
