// SHA-256 (FIPS 180-4 6.2) and SHA-1 (FIPS 180-4 6.1), portable: the PRFs
// of PBKDF2 in encrypted PKCS#8 keys that OpenSSL and others write
// (hmacWithSHA256, the default; hmacWithSHA1, in older files). Key files
// hash a few kilobytes at most (2,048 to a few hundred thousand PBKDF2
// iterations of two blocks each), so no SIMD kernels; both are free of
// data-dependent branches and indices.
#ifndef KS_HASH_SHA256_H_
#define KS_HASH_SHA256_H_

#include <stddef.h>
#include <stdint.h>

#include "hash/md_hash.h"

namespace ks {

struct Sha256Compress {
  using Word = uint32_t;
  static constexpr size_t kStateWords = 8, kDigestBytes = 32, kBlockBytes = 64, kLengthBytes = 8;
  static void init(uint32_t state[8]);
  static void blocks(uint32_t state[8], const uint8_t* data, size_t nblocks);
};
using Sha256 = MdHash<Sha256Compress>;

struct Sha1Compress {
  using Word = uint32_t;
  static constexpr size_t kStateWords = 5, kDigestBytes = 20, kBlockBytes = 64, kLengthBytes = 8;
  static void init(uint32_t state[5]);
  static void blocks(uint32_t state[5], const uint8_t* data, size_t nblocks);
};
using Sha1 = MdHash<Sha1Compress>;

}  // namespace ks

#endif  // KS_HASH_SHA256_H_
