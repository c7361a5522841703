// Every SM3 variant built into the library (src/sm3/sm3_blocks.h) against
// the portable compression function and against OpenSSL's EVP_sm3(), on
// random data. Variants this CPU cannot run are skipped (and named).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

#include "sm3/sm3.h"
#include "sm3/sm3_blocks.h"
#include "sm3/sm3_compress.h"

namespace {

using ks::sm3::CompressVariant;
using ks::sm3::DigestManyVariant;
using Digest = std::vector<uint8_t>;

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = uint8_t(rng());
  return v;
}

Digest openssl_sm3(const uint8_t* data, size_t len) {
  Digest out(32);
  unsigned out_len = 0;
  EXPECT_EQ(EVP_Digest(data, len, out.data(), &out_len, EVP_sm3(), nullptr), 1);
  EXPECT_EQ(out_len, 32u);
  return out;
}

Digest ks_sm3(const uint8_t* data, size_t len) {
  Digest out(32);
  ks::sm3::digest(data, len, out.data());
  return out;
}

// The usable entries of a variant table; the others are named and skipped.
template <class Variant>
std::vector<const Variant*> usable(const Variant* (*table_of)(size_t*), const char* kind) {
  size_t count = 0;
  const Variant* table = table_of(&count);
  std::vector<const Variant*> out;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].usable) {
      out.push_back(&table[i]);
    } else {
      std::printf("  [%s variant %s: not usable on this CPU, skipped]\n", kind, table[i].name);
    }
  }
  return out;
}

std::vector<const CompressVariant*> usable_compress_variants() {
  return usable(ks::sm3::compress_variants, "compress");
}

std::vector<const DigestManyVariant*> usable_digest_many_variants() {
  return usable(ks::sm3::digest_many_variants, "digest_many");
}

// SM3 of msg through a single-stream variant: whole blocks, then the padded
// tail (GB/T 32905 section 5.2), written here independently of the library.
Digest digest_with(const CompressVariant& v, const uint8_t* msg, size_t len) {
  uint32_t state[8];
  ks::sm3::load_iv(state);
  v.compress_blocks(state, msg, len / 64);
  uint8_t tail[128] = {0};
  const size_t rest = len % 64;
  for (size_t i = 0; i < rest; ++i) tail[i] = msg[len - rest + i];
  tail[rest] = 0x80;
  const size_t tail_len = rest < 56 ? 64 : 128;
  const uint64_t bits = uint64_t(len) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = uint8_t(bits >> (8 * i));
  v.compress_blocks(state, tail, tail_len / 64);
  Digest out(32);
  for (int i = 0; i < 8; ++i) ks::sm3::store_be32(out.data() + 4 * i, state[i]);
  return out;
}

Digest from_hex(const std::string& hex) {
  Digest out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(Sm3Variants, ReportsChosenVariant) {
  std::printf("  compress_blocks uses: %s\n", ks::sm3::compress_variant_name());
  ASSERT_FALSE(usable_compress_variants().empty());
}

// The two examples of GB/T 32905-2016, appendix A.
TEST(Sm3Variants, StandardExamples) {
  const std::string abc = "abc";
  std::string abcd16;
  for (int i = 0; i < 16; ++i) abcd16 += "abcd";
  const Digest want_abc =
      from_hex("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0");
  const Digest want_abcd16 =
      from_hex("debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732");
  const auto* p_abc = reinterpret_cast<const uint8_t*>(abc.data());
  const auto* p_abcd16 = reinterpret_cast<const uint8_t*>(abcd16.data());
  EXPECT_EQ(ks_sm3(p_abc, abc.size()), want_abc);
  EXPECT_EQ(ks_sm3(p_abcd16, abcd16.size()), want_abcd16);
  for (const CompressVariant* v : usable_compress_variants()) {
    SCOPED_TRACE(v->name);
    EXPECT_EQ(digest_with(*v, p_abc, abc.size()), want_abc);
    EXPECT_EQ(digest_with(*v, p_abcd16, abcd16.size()), want_abcd16);
  }
}

TEST(Sm3Variants, CompressMatchesPortable) {
  const std::vector<uint8_t> data = random_bytes(64 * 40 + 1, 1);
  std::mt19937 rng(2);
  for (const CompressVariant* v : usable_compress_variants()) {
    SCOPED_TRACE(v->name);
    for (size_t nblocks = 0; nblocks <= 40; ++nblocks) {
      uint32_t want[8], got[8];
      for (int i = 0; i < 8; ++i) want[i] = got[i] = uint32_t(rng());
      const uint8_t* blocks = data.data() + (nblocks & 1);  // odd addresses too
      ks::sm3::compress_blocks_portable(want, blocks, nblocks);
      v->compress_blocks(got, blocks, nblocks);
      ASSERT_EQ(0, memcmp(want, got, sizeof(want))) << nblocks << " blocks";
    }
  }
}

TEST(Sm3Variants, AllLengthsTo2048MatchOpenSsl) {
  const std::vector<uint8_t> data = random_bytes(2048, 3);
  const auto variants = usable_compress_variants();
  for (size_t len = 0; len <= 2048; ++len) {
    const Digest want = openssl_sm3(data.data(), len);
    ASSERT_EQ(ks_sm3(data.data(), len), want) << "digest(), len " << len;
    for (const CompressVariant* v : variants) {
      ASSERT_EQ(digest_with(*v, data.data(), len), want) << v->name << ", len " << len;
    }
  }
}

TEST(Sm3Variants, MebibytesMatchOpenSsl) {
  const std::vector<uint8_t> data = random_bytes((3 << 20) + 17, 4);
  const auto variants = usable_compress_variants();
  for (size_t len : {size_t(1) << 20, (size_t(3) << 20) + 17}) {
    const Digest want = openssl_sm3(data.data(), len);
    EXPECT_EQ(ks_sm3(data.data(), len), want) << "digest(), len " << len;
    for (const CompressVariant* v : variants) {
      EXPECT_EQ(digest_with(*v, data.data(), len), want) << v->name << ", len " << len;
    }
  }
}

// n messages of mixed lengths (0 included), each checked against OpenSSL.
// Every digest_many variant against OpenSSL on messages of the given
// lengths, each after a prefix of its own of plen bytes (none when 0; items
// 2k and 2k+1 share one prefix, as SM2's runs of one key share Z_A).
void check_digest_many(const std::vector<size_t>& lens, uint32_t seed, size_t plen = 0) {
  size_t total = 0;
  for (size_t len : lens) total += len + 1;
  const std::vector<uint8_t> pool = random_bytes(total, seed);
  const std::vector<uint8_t> prefix_pool = random_bytes(plen * lens.size() + 1, seed + 1);
  std::vector<const uint8_t*> msgs, prefixes;
  size_t offset = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    msgs.push_back(pool.data() + offset + (lens[i] & 1));  // some unaligned
    offset += lens[i] + 1;
    prefixes.push_back(prefix_pool.data() + plen * (i & ~size_t(1)));
  }
  std::vector<Digest> want;
  for (size_t i = 0; i < lens.size(); ++i) {
    std::vector<uint8_t> joined(prefixes[i], prefixes[i] + plen);
    joined.insert(joined.end(), msgs[i], msgs[i] + lens[i]);
    want.push_back(openssl_sm3(joined.data(), joined.size()));
  }
  ks::sm3::Prefixes with;
  with.bytes = plen > 0 ? prefixes.data() : nullptr;
  with.len = plen;

  const auto run = [&](const char* name, void (*fn)(const uint8_t* const*, const size_t*, size_t,
                                                    uint8_t(*)[32], ks::sm3::Prefixes)) {
    std::vector<uint8_t> out(32 * lens.size() + 32, 0xee);  // one spare digest: no overrun
    fn(msgs.data(), lens.data(), lens.size(), reinterpret_cast<uint8_t(*)[32]>(out.data()), with);
    for (size_t i = 0; i < lens.size(); ++i) {
      ASSERT_EQ(Digest(out.begin() + 32 * i, out.begin() + 32 * (i + 1)), want[i])
          << name << ": message " << i << " of " << lens.size() << ", len " << lens[i]
          << ", prefix " << plen;
    }
    for (size_t i = 32 * lens.size(); i < out.size(); ++i) ASSERT_EQ(out[i], 0xee) << name;
  };
  run("digest_many", ks::sm3::digest_many);
  for (const DigestManyVariant* v : usable_digest_many_variants()) run(v->name, v->digest_many);
}

// Z_A || M as SM2 hashes it, and prefixes of other lengths: the head block
// straddles prefix and message, short items fit the tail with their prefix.
TEST(Sm3Variants, DigestManyWithPrefixes) {
  for (size_t plen : {1, 31, 32, 33, 55, 56, 63}) {
    std::vector<size_t> lens;
    for (size_t len = 0; len <= 140; ++len) lens.push_back(len);
    lens.push_back(5000);
    check_digest_many(lens, uint32_t(100 + plen), plen);
    check_digest_many({0, 7, 64 - plen, 128 - plen, 129 - plen}, uint32_t(200 + plen), plen);
  }
}

TEST(Sm3Variants, DigestManyMixedLengths) {
  std::mt19937 rng(5);
  for (size_t n : {1, 2, 7, 15, 16, 17, 31, 33, 100, 257}) {
    std::vector<size_t> lens(n);
    for (size_t& len : lens) len = rng() % 4 == 0 ? 0 : rng() % 300;
    check_digest_many(lens, uint32_t(n));
  }
}

TEST(Sm3Variants, DigestManyPaddingBoundaries) {
  std::vector<size_t> lens;  // one or two tail blocks, around block edges
  for (size_t len = 0; len <= 200; ++len) lens.push_back(len);
  check_digest_many(lens, 6);
}

// One long message among short ones: lanes refill around it, and it is
// finished alone at the end.
TEST(Sm3Variants, DigestManyLongAndShort) {
  std::vector<size_t> lens(40, 64);
  lens[3] = 100000;
  lens[20] = 0;
  lens[39] = 7777;
  check_digest_many(lens, 7);
  check_digest_many({5000, 0, 3000, 1, 64, 55, 56, 119, 120}, 8);
  // Few messages: lanes go serial after one kernel call, some of them
  // between their two padded tail blocks.
  check_digest_many({0, 60, 120}, 9);
  check_digest_many({0, 0, 60, 120, 130}, 10);
}

TEST(Sm3Variants, DigestManyOfNothing) {
  uint8_t out[1][32];
  memset(out, 0xee, sizeof(out));
  ks::sm3::digest_many(nullptr, nullptr, 0, out);
  for (const DigestManyVariant* v : usable_digest_many_variants()) {
    v->digest_many(nullptr, nullptr, 0, out, ks::sm3::Prefixes());
  }
  for (uint8_t b : out[0]) ASSERT_EQ(b, 0xee);
}

template <int L>
void check_lanes(void (*compress_lanes)(uint32_t state[8][L], const uint8_t* const blocks[L])) {
  const std::vector<uint8_t> data = random_bytes(64 * L * 3, 9);
  std::mt19937 rng(10);
  uint32_t state[8][L];
  for (auto& row : state) {
    for (uint32_t& word : row) word = uint32_t(rng());
  }
  uint32_t want[L][8];
  for (int l = 0; l < L; ++l) {
    for (int i = 0; i < 8; ++i) want[l][i] = state[i][l];
  }
  for (int round = 0; round < 3; ++round) {
    const uint8_t* blocks[L];
    for (int l = 0; l < L; ++l) {
      blocks[l] = data.data() + 64 * ((l * 7 + round * 5) % (3 * L));  // shuffled, shared
      ks::sm3::compress_blocks_portable(want[l], blocks[l], 1);
    }
    compress_lanes(state, blocks);
  }
  for (int l = 0; l < L; ++l) {
    for (int i = 0; i < 8; ++i) ASSERT_EQ(state[i][l], want[l][i]) << "lane " << l << " word " << i;
  }
}

TEST(Sm3Variants, LaneKernelsMatchPortable) {
  check_lanes<16>(ks::sm3::compress_x16);
  check_lanes<8>(ks::sm3::compress_x8);
}

}  // namespace
