// core/endian.h: the big-endian loads and stores and byte_swap32 against
// byte-by-byte definitions, on words whose bytes all differ.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <random>

#include "core/endian.h"

namespace {

TEST(Endian, ByteSwapReversesTheBytes) {
  EXPECT_EQ(ks::byte_swap32(0x01020304u), 0x04030201u);
  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t v = uint32_t(rng());
    const uint32_t expected = (v & 0xff) << 24 | (v >> 8 & 0xff) << 16 | (v >> 16 & 0xff) << 8 |
                              v >> 24;
    EXPECT_EQ(ks::byte_swap32(v), expected);
    EXPECT_EQ(ks::byte_swap32(ks::byte_swap32(v)), v);
  }
}

TEST(Endian, BigEndianLoadsAndStoresPutTheHighByteFirst) {
  const uint8_t bytes[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  EXPECT_EQ(ks::load_be32(bytes), 0x01234567u);
  EXPECT_EQ(ks::load_be64(bytes), 0x0123456789abcdefull);
  uint8_t out[8] = {};
  ks::store_be32(out, 0x01234567u);
  EXPECT_EQ(0, memcmp(out, bytes, 4));
  ks::store_be64(out, 0x0123456789abcdefull);
  EXPECT_EQ(0, memcmp(out, bytes, 8));
  // A word read from memory in the host's (little-endian) order and
  // swapped is the big-endian load.
  uint32_t host_order;
  memcpy(&host_order, bytes, 4);
  EXPECT_EQ(ks::byte_swap32(host_order), ks::load_be32(bytes));
}

}  // namespace
