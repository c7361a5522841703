#include "hash/sha256.h"

#include "core/endian.h"
#include "core/secure.h"

namespace ks {
namespace {

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
// roots of the first 64 primes.
constexpr uint32_t kSha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

void sha256_block(uint32_t s[8], const uint8_t* p) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t) w[t] = load_be32(p + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (int t = 0; t < 64; ++t) {
    const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                        kSha256K[t] + w[t];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
  secure_wipe(w, sizeof(w));  // the schedule of a password-derived block
}

void sha1_block(uint32_t s[5], const uint8_t* p) {
  uint32_t w[80];
  for (int t = 0; t < 16; ++t) w[t] = load_be32(p + 4 * t);
  for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t f, k;  // FIPS 180-4 4.1.1 and 4.2.1, by the round's index (public)
    if (t < 20) {
      f = (b & c) ^ (~b & d), k = 0x5a827999;
    } else if (t < 40) {
      f = b ^ c ^ d, k = 0x6ed9eba1;
    } else if (t < 60) {
      f = (b & c) ^ (b & d) ^ (c & d), k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d, k = 0xca62c1d6;
    }
    const uint32_t tmp = rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = tmp;
  }
  s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e;
  secure_wipe(w, sizeof(w));
}

}  // namespace

void Sha256Compress::init(uint32_t s[8]) {
  // FIPS 180-4 5.3.3.
  static constexpr uint32_t kIv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  for (int i = 0; i < 8; ++i) s[i] = kIv[i];
}

void Sha256Compress::blocks(uint32_t s[8], const uint8_t* data, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) sha256_block(s, data + 64 * i);
}

void Sha1Compress::init(uint32_t s[5]) {
  // FIPS 180-4 5.3.1.
  static constexpr uint32_t kIv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
                                      0xc3d2e1f0};
  for (int i = 0; i < 5; ++i) s[i] = kIv[i];
}

void Sha1Compress::blocks(uint32_t s[5], const uint8_t* data, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) sha1_block(s, data + 64 * i);
}

}  // namespace ks
