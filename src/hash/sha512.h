// SHA-512 (FIPS 180-4), CPU side: the hash of Ed25519 (RFC 8032), which
// hashes short messages on every signature: SHA-512(seed),
// SHA-512(dom2 || prefix || M) and SHA-512(dom2 || R || A || M).
#ifndef KS_HASH_SHA512_H_
#define KS_HASH_SHA512_H_

#include <stddef.h>
#include <stdint.h>

#include "hash/md_hash.h"

namespace ks {
namespace sha512 {

constexpr size_t kDigestBytes = 64, kBlockBytes = 128;

// SHA-512's compression (FIPS 180-4 6.4) for MdHash, which adds the
// padding of section 5.1.2; dispatched to the fastest kernel
// (sha512_blocks.h).
struct Sha512Compress {
  using Word = uint64_t;
  static constexpr size_t kStateWords = 8, kDigestBytes = 64, kBlockBytes = 128,
                          kLengthBytes = 16;
  static void init(uint64_t state[8]);
  static void blocks(uint64_t state[8], const uint8_t* data, size_t nblocks);
};

// Streaming SHA-512. Plain value type: copy it to fork a running hash.
using Sha512 = MdHash<Sha512Compress>;

void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]);

// SHA-512 of parts[0] || parts[1] || ... || parts[nparts - 1] without
// joining them (Ed25519's R || A || M). A part may be (nullptr, 0).
void digest_parts(const uint8_t* const parts[], const size_t lens[], size_t nparts,
                  uint8_t out[kDigestBytes]);

}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_H_
