// The ChaCha20 block function (RFC 8439 section 2.3), host and device. The
// GPU backend uses it as a counter-mode DRBG for nonces: a fresh 256-bit key
// from getrandom per batch, block counter = item index, so every item of
// every batch gets an independent, never-repeated stream without any state
// shared between threads (see docs/ARCHITECTURE.md, "Nonces on the GPU").
#ifndef KS_CORE_CHACHA20_H_
#define KS_CORE_CHACHA20_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace chacha20 {

KS_HD uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

KS_HD void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  a += b; d ^= a; d = rotl32(d, 16);
  c += d; b ^= c; b = rotl32(b, 12);
  a += b; d ^= a; d = rotl32(d, 8);
  c += d; b ^= c; b = rotl32(b, 7);
}

// out = ChaCha20 block (16 little-endian words) for key, 32-bit block
// counter and 96-bit nonce (RFC 8439 section 2.3.2 layout).
KS_HD void block(uint32_t out[16], const uint32_t key[8], uint32_t counter,
                 const uint32_t nonce[3]) {
  uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
                    key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                    counter, nonce[0], nonce[1], nonce[2]};
  uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = s[i];
  for (int round = 0; round < 10; ++round) {  // 20 rounds: 10 column + diagonal pairs
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) out[i] = x[i] + s[i];
}

}  // namespace chacha20
}  // namespace ks

#endif  // KS_CORE_CHACHA20_H_
