// The ChaCha20 block function against RFC 8439 section 2.3.2, and against
// OpenSSL's ChaCha20 keystream on fresh random keys.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <string.h>

#include "core/chacha20.h"
#include "test_util.h"

namespace {

void words_le(uint32_t* w, const uint8_t* b, int n) {
  for (int i = 0; i < n; ++i)
    w[i] = uint32_t(b[4 * i]) | uint32_t(b[4 * i + 1]) << 8 | uint32_t(b[4 * i + 2]) << 16 |
           uint32_t(b[4 * i + 3]) << 24;
}

TEST(ChaCha20, Rfc8439BlockVector) {  // section 2.3.2
  uint8_t key[32];
  for (int i = 0; i < 32; ++i) key[i] = uint8_t(i);
  const uint8_t nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  uint32_t k[8], n[3], out[16];
  words_le(k, key, 8);
  words_le(n, nonce, 3);
  ks::chacha20::block(out, k, 1, n);
  const uint32_t want[16] = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
                             0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                             0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(ChaCha20, MatchesOpenSslKeystream) {
  const std::vector<uint8_t> key = ks_test::random_bytes(32), nonce = ks_test::random_bytes(12);
  const uint32_t counter = ks_test::random_u32() & 0xffff;
  // OpenSSL's IV is the 32-bit little-endian counter followed by the nonce.
  uint8_t iv[16];
  for (int i = 0; i < 4; ++i) iv[i] = uint8_t(counter >> (8 * i));
  memcpy(iv + 4, nonce.data(), 12);
  uint8_t zeros[64 * 3] = {0}, stream[64 * 3];
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int len = 0;
  ASSERT_EQ(EVP_EncryptInit_ex(c, EVP_chacha20(), nullptr, key.data(), iv), 1);
  ASSERT_EQ(EVP_EncryptUpdate(c, stream, &len, zeros, sizeof zeros), 1);
  EVP_CIPHER_CTX_free(c);
  uint32_t k[8], n[3], out[16];
  words_le(k, key.data(), 8);
  words_le(n, nonce.data(), 3);
  for (uint32_t b = 0; b < 3; ++b) {
    ks::chacha20::block(out, k, counter + b, n);
    uint32_t want[16];
    words_le(want, stream + 64 * b, 16);
    for (int i = 0; i < 16; ++i) ASSERT_EQ(out[i], want[i]) << "block " << b << " word " << i;
  }
}

}  // namespace
