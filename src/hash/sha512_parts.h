// SHA-512 of a message given in parts (FIPS 180-4 5.1.2 padding over the
// concatenation), written once for the CPU and the GPU: Ed25519 hashes
// R || A || M (RFC 8032 5.1.7 step 2) where R, A and M lie apart in the
// caller's arrays, and a GPU thread should read them where they are rather
// than copy them together first. Every block is gathered into a 128-byte
// buffer; one thread per message.
#ifndef KS_HASH_SHA512_PARTS_H_
#define KS_HASH_SHA512_PARTS_H_

#include <stdint.h>

#include "hash/sha512_compress.h"

namespace ks {
namespace sha512 {

// Up to three byte ranges, hashed as their concatenation.
struct Parts {
  static constexpr int kMax = 3;
  const uint8_t* p[kMax];
  uint64_t n[kMax];

  KS_HD uint64_t total() const { return n[0] + n[1] + n[2]; }
  // The bytes [pos, pos + len) of the concatenation into out.
  KS_HD void copy(uint8_t* out, uint64_t pos, unsigned len) const {
    for (int i = 0; i < kMax && len > 0; ++i) {
      if (pos >= n[i]) {
        pos -= n[i];
        continue;
      }
      const unsigned take = n[i] - pos < len ? unsigned(n[i] - pos) : len;
      for (unsigned j = 0; j < take; ++j) out[j] = p[i][pos + j];
      out += take;
      len -= take;
      pos = 0;
    }
  }
};

// digest = SHA-512(parts).
KS_HD void digest_parts(uint8_t digest[64], const Parts& parts) {
  uint64_t state[8];
  load_iv(state);
  const uint64_t total = parts.total(), whole = total / 128;
  uint8_t block[256];
  for (uint64_t b = 0; b < whole; ++b) {
    parts.copy(block, 128 * b, 128);
    compress_block(state, block);
  }
  // The padded tail (5.1.2): 0x80, zeros, the 128-bit length in bits.
  const unsigned rest = unsigned(total - 128 * whole);
  parts.copy(block, 128 * whole, rest);
  block[rest] = 0x80;
  const unsigned tail = rest < 112 ? 128 : 256;
  for (unsigned i = rest + 1; i < tail - 16; ++i) block[i] = 0;
  store_be64(block + tail - 16, total >> 61);
  store_be64(block + tail - 8, total << 3);
  compress_block(state, block);
  if (tail == 256) compress_block(state, block + 128);
#if KS_DEVICE_CODE
#pragma unroll
#endif
  for (int i = 0; i < 8; ++i) store_be64(digest + 8 * i, state[i]);
}

}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_PARTS_H_
