// SHA-512 (src/hash/sha512*.h): the NIST examples, OpenSSL's EVP_sha512()
// as an independent oracle on random inputs (seeded: a failure repeats),
// streaming splits, digest_parts, and every variant built into the library
// (compress_blocks, digest_many with and without per-item prefixes, the
// lane kernels) against the portable code and OpenSSL. Variants this CPU
// cannot run are skipped (and named).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hash/sha512.h"
#include "hash/sha512_blocks.h"
#include "hash/sha512_compress.h"
#include "test_util.h"

namespace {

using ks::sha512::CompressVariant;
using ks::sha512::DigestManyVariant;
using ks_test::from_hex;
using Bytes = std::vector<uint8_t>;

Bytes random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes v(n);
  for (uint8_t& b : v) b = uint8_t(rng());
  return v;
}

const uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

Bytes openssl_sha512(const uint8_t* data, size_t len) {
  Bytes out(64);
  unsigned out_len = 0;
  EXPECT_EQ(EVP_Digest(data, len, out.data(), &out_len, EVP_sha512(), nullptr), 1);
  EXPECT_EQ(out_len, 64u);
  return out;
}

Bytes ks_sha512(const uint8_t* data, size_t len) {
  Bytes out(64);
  ks::sha512::digest(data, len, out.data());
  return out;
}

// Fed to one Sha512 object in pieces of the given sizes (the last piece
// takes the rest).
Bytes streamed(const uint8_t* data, size_t len, const std::vector<size_t>& pieces) {
  ks::sha512::Sha512 h;
  size_t at = 0;
  for (size_t piece : pieces) {
    piece = std::min(piece, len - at);
    h.update(data + at, piece);
    at += piece;
  }
  h.update(data + at, len - at);
  Bytes out(64);
  h.finish(out.data());
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

// SHA-512 of msg through a single-stream variant: whole blocks, then the
// padded tail (FIPS 180-4 section 5.1.2), written here independently of the
// library.
Bytes digest_with(const CompressVariant& v, const uint8_t* msg, size_t len) {
  uint64_t state[8];
  ks::sha512::load_iv(state);
  v.compress_blocks(state, msg, len / 128);
  uint8_t tail[256] = {0};
  const size_t rest = len % 128;
  for (size_t i = 0; i < rest; ++i) tail[i] = msg[len - rest + i];
  tail[rest] = 0x80;
  const size_t tail_len = rest < 112 ? 128 : 256;
  const uint64_t bits = uint64_t(len) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = uint8_t(bits >> (8 * i));
  v.compress_blocks(state, tail, tail_len / 128);
  Bytes out(64);
  for (int i = 0; i < 8; ++i) ks::sha512::store_be64(out.data() + 8 * i, state[i]);
  return out;
}

// The examples of NIST's FIPS 180-4 example file SHA512.pdf ("abc" and the
// 896-bit two-block message), the empty message, and one million 'a'
// (FIPS 180-2 appendix C.3), through every path of the library.
TEST(Sha512, NistExamples) {
  const std::string two_block =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
      "opqrsmnopqrstnopqrstu";
  const std::string million_a(1000000, 'a');
  const struct {
    const std::string& message;
    const char* digest;
  } kExamples[] = {
      {"abc",
       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
      {two_block,
       "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
       "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
      {"",
       "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
       "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
      {million_a,
       "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
       "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
  };
  const auto compress = usable(ks::sha512::compress_variants, "compress");
  const auto many = usable(ks::sha512::digest_many_variants, "digest_many");
  for (const auto& example : kExamples) {
    const Bytes want = from_hex(example.digest);
    const uint8_t* m = bytes_of(example.message);
    const size_t len = example.message.size();
    SCOPED_TRACE("message of " + std::to_string(len) + " bytes");
    EXPECT_EQ(ks_sha512(m, len), want);
    EXPECT_EQ(streamed(m, len, {1, 126, 1000}), want);
    for (const CompressVariant* v : compress) EXPECT_EQ(digest_with(*v, m, len), want) << v->name;
    for (const DigestManyVariant* v : many) {
      uint8_t out[1][64];
      v->digest_many(&m, &len, 1, out, ks::sha512::Prefixes());
      EXPECT_EQ(Bytes(out[0], out[0] + 64), want) << v->name;
    }
  }
}

TEST(Sha512, EveryLengthTo300MatchesOpenSsl) {
  const Bytes data = random_bytes(300, 1);
  for (size_t len = 0; len <= data.size(); ++len) {
    const Bytes want = openssl_sha512(data.data(), len);
    ASSERT_EQ(ks_sha512(data.data(), len), want) << "len " << len;
    ASSERT_EQ(streamed(data.data(), len, {len / 3, 128}), want) << "len " << len;
  }
}

TEST(Sha512, MebibytesMatchOpenSsl) {
  const Bytes data = random_bytes((size_t(5) << 20) + 77, 2);
  for (size_t len : {size_t(1) << 20, (size_t(3) << 20) + 17, data.size()}) {
    const Bytes want = openssl_sha512(data.data(), len);
    EXPECT_EQ(ks_sha512(data.data(), len), want) << "len " << len;
    EXPECT_EQ(streamed(data.data(), len, {5, 1 << 20, 300}), want) << "len " << len;
  }
}

TEST(Sha512, StreamingInRandomPiecesEqualsOneShot) {
  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    const Bytes m = random_bytes(rng() % 3000, rng());
    std::vector<size_t> pieces;
    for (size_t at = 0; at < m.size(); at += pieces.back()) pieces.push_back(rng() % 300);
    ASSERT_EQ(streamed(m.data(), m.size(), pieces), ks_sha512(m.data(), m.size()))
        << "round " << round;
  }
}

TEST(Sha512, FinishResetsAndCopiesFork) {
  const Bytes m = random_bytes(500, 4);
  ks::sha512::Sha512 h;
  Bytes got(64);
  for (int reuse = 0; reuse < 3; ++reuse) {
    h.update(m.data(), m.size());
    h.finish(got.data());
    ASSERT_EQ(got, openssl_sha512(m.data(), m.size())) << "reuse " << reuse;
  }
  h.update(m.data(), 200);
  ks::sha512::Sha512 fork = h;  // both continue from the first 200 bytes
  h.update(m.data() + 200, 300);
  fork.update(m.data() + 200, 100);
  h.finish(got.data());
  EXPECT_EQ(got, openssl_sha512(m.data(), 500));
  fork.finish(got.data());
  EXPECT_EQ(got, openssl_sha512(m.data(), 300));
}

// Null pointers with zero lengths anywhere (UBSan builds check that no
// memcpy sees them).
TEST(Sha512, NullEmptyInputs) {
  const Bytes want = openssl_sha512(nullptr, 0);
  EXPECT_EQ(ks_sha512(nullptr, 0), want);
  ks::sha512::Sha512 h;
  h.update(nullptr, 0);
  Bytes got(64);
  h.finish(got.data());
  EXPECT_EQ(got, want);
  const uint8_t* parts[2] = {nullptr, nullptr};
  const size_t lens[2] = {0, 0};
  ks::sha512::digest_parts(parts, lens, 2, got.data());
  EXPECT_EQ(got, want);
  ks::sha512::digest_parts(nullptr, nullptr, 0, got.data());
  EXPECT_EQ(got, want);
}

// R || A || M as Ed25519 hashes it, and random cuts into up to six parts
// (empty ones included).
TEST(Sha512, DigestPartsEqualsDigestOfConcatenation) {
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    const Bytes m = random_bytes(rng() % 600, rng());
    std::vector<size_t> cuts = {0, m.size()};
    for (size_t k = rng() % 5; k > 0; --k) cuts.push_back(m.empty() ? 0 : rng() % m.size());
    std::sort(cuts.begin(), cuts.end());
    std::vector<const uint8_t*> parts;
    std::vector<size_t> lens;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      parts.push_back(cuts[i + 1] > cuts[i] ? m.data() + cuts[i] : nullptr);
      lens.push_back(cuts[i + 1] - cuts[i]);
    }
    Bytes got(64);
    ks::sha512::digest_parts(parts.data(), lens.data(), parts.size(), got.data());
    ASSERT_EQ(got, openssl_sha512(m.data(), m.size())) << "round " << round;
  }
}

TEST(Sha512Variants, ReportsChosenVariant) {
  std::printf("  compress_blocks uses: %s\n", ks::sha512::compress_variant_name());
  ASSERT_FALSE(usable(ks::sha512::compress_variants, "compress").empty());
}

TEST(Sha512Variants, CompressMatchesPortable) {
  const Bytes data = random_bytes(128 * 20 + 1, 6);
  std::mt19937_64 rng(7);
  for (const CompressVariant* v : usable(ks::sha512::compress_variants, "compress")) {
    SCOPED_TRACE(v->name);
    for (size_t nblocks = 0; nblocks <= 20; ++nblocks) {
      uint64_t want[8], got[8];
      for (int i = 0; i < 8; ++i) want[i] = got[i] = rng();
      const uint8_t* blocks = data.data() + (nblocks & 1);  // odd addresses too
      ks::sha512::compress_blocks_portable(want, blocks, nblocks);
      v->compress_blocks(got, blocks, nblocks);
      ASSERT_EQ(0, memcmp(want, got, sizeof(want))) << nblocks << " blocks";
    }
  }
}

TEST(Sha512Variants, EveryLengthTo1100MatchesOpenSsl) {
  const Bytes data = random_bytes(1100, 8);
  const auto variants = usable(ks::sha512::compress_variants, "compress");
  for (size_t len = 0; len <= data.size(); ++len) {
    const Bytes want = openssl_sha512(data.data(), len);
    for (const CompressVariant* v : variants) {
      ASSERT_EQ(digest_with(*v, data.data(), len), want) << v->name << ", len " << len;
    }
  }
}

// A batch for digest_many: messages of the given lengths (some at odd
// addresses), each after a prefix of its own of plen bytes (none when 0;
// items 2k and 2k+1 share one, as one key's R || A would not, but the
// scheduler must not care), and OpenSSL's digest of each prefix || message.
struct Batch {
  std::vector<size_t> lens;
  Bytes pool, prefix_pool;
  std::vector<const uint8_t*> msgs, prefixes;
  std::vector<Bytes> want;
  ks::sha512::Prefixes with;

  Batch(std::vector<size_t> lengths, uint32_t seed, size_t plen = 0) : lens(std::move(lengths)) {
    size_t total = 0;
    for (size_t len : lens) total += len + 1;
    pool = random_bytes(total, seed);
    prefix_pool = random_bytes(plen * lens.size() + 1, seed + 1);
    size_t offset = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
      msgs.push_back(pool.data() + offset + (lens[i] & 1));
      offset += lens[i] + 1;
      prefixes.push_back(prefix_pool.data() + plen * (i & ~size_t(1)));
      Bytes joined(prefixes[i], prefixes[i] + plen);
      joined.insert(joined.end(), msgs[i], msgs[i] + lens[i]);
      want.push_back(openssl_sha512(joined.data(), joined.size()));
    }
    with.bytes = plen > 0 ? prefixes.data() : nullptr;
    with.len = plen;
  }

  using Fn = void (*)(const uint8_t* const*, const size_t*, size_t, uint8_t (*)[64],
                      ks::sha512::Prefixes);
  void check(const char* name, Fn fn) const {
    std::vector<uint8_t> out(64 * lens.size() + 64, 0xee);  // one spare digest: no overrun
    fn(msgs.data(), lens.data(), lens.size(), reinterpret_cast<uint8_t(*)[64]>(out.data()), with);
    for (size_t i = 0; i < lens.size(); ++i) {
      ASSERT_EQ(Bytes(out.begin() + 64 * i, out.begin() + 64 * (i + 1)), want[i])
          << name << ": message " << i << " of " << lens.size() << ", len " << lens[i]
          << ", prefix " << with.len;
    }
    for (size_t i = 64 * lens.size(); i < out.size(); ++i) ASSERT_EQ(out[i], 0xee) << name;
  }
};

// digest_many and every usable variant of it.
void check_digest_many(const Batch& b) {
  b.check("digest_many", ks::sha512::digest_many);
  for (const DigestManyVariant* v : usable(ks::sha512::digest_many_variants, "digest_many")) {
    b.check(v->name, v->digest_many);
  }
}

// Ed25519's R || A (64 bytes) and prefixes of other lengths: the head
// block straddles prefix and message, short items fit the tail with their
// prefix.
TEST(Sha512Variants, DigestManyWithPrefixes) {
  for (size_t plen : {1, 32, 64, 111, 112, 127}) {
    std::vector<size_t> lens;
    for (size_t len = 0; len <= 270; ++len) lens.push_back(len);
    lens.push_back(9000);
    check_digest_many(Batch(lens, uint32_t(100 + plen), plen));
    check_digest_many(
        Batch({0, 7, 128 - plen, 256 - plen, 257 - plen}, uint32_t(200 + plen), plen));
  }
}

TEST(Sha512Variants, DigestManyMixedLengths) {
  std::mt19937 rng(9);
  for (size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100, 257}) {
    std::vector<size_t> lens(n);
    for (size_t& len : lens) len = rng() % 4 == 0 ? 0 : rng() % 600;
    check_digest_many(Batch(lens, uint32_t(n)));
  }
}

TEST(Sha512Variants, DigestManyPaddingBoundaries) {
  std::vector<size_t> lens;  // one or two tail blocks, around block edges
  for (size_t len = 0; len <= 400; ++len) lens.push_back(len);
  check_digest_many(Batch(lens, 10));
}

// Long messages among short ones: lanes refill around them, and the last
// ones are finished alone at the end.
TEST(Sha512Variants, DigestManyLongAndShort) {
  std::vector<size_t> lens(40, 64);
  lens[3] = 200000;
  lens[20] = 0;
  lens[39] = 7777;
  check_digest_many(Batch(lens, 11));
  check_digest_many(Batch({5000, 0, 3000, 1, 128, 111, 112, 239, 240}, 12));
  // Few messages: lanes go serial after one kernel call, some of them
  // between their two padded tail blocks.
  check_digest_many(Batch({0, 120, 240}, 13));
  check_digest_many(Batch({0, 0, 120, 240, 260}, 14));
  check_digest_many(Batch({0, 0, 120, 240, 260}, 15, 64));
}

TEST(Sha512Variants, DigestManyOfNothing) {
  uint8_t out[1][64];
  memset(out, 0xee, sizeof(out));
  ks::sha512::digest_many(nullptr, nullptr, 0, out);
  for (const DigestManyVariant* v : usable(ks::sha512::digest_many_variants, "digest_many")) {
    v->digest_many(nullptr, nullptr, 0, out, ks::sha512::Prefixes());
  }
  for (uint8_t b : out[0]) ASSERT_EQ(b, 0xee);
}

// Three rounds of one block per lane, lanes reading shuffled (and shared)
// blocks, against the portable compression lane by lane.
template <int L>
void check_lanes(void (*compress_lanes)(uint64_t state[8][L], const uint8_t* const blocks[L])) {
  const Bytes data = random_bytes(128 * L * 3, 16);
  std::mt19937_64 rng(17);
  uint64_t state[8][L];
  uint64_t want[L][8];
  for (int i = 0; i < 8; ++i) {
    for (int l = 0; l < L; ++l) want[l][i] = state[i][l] = rng();
  }
  for (int round = 0; round < 3; ++round) {
    const uint8_t* blocks[L];
    for (int l = 0; l < L; ++l) {
      blocks[l] = data.data() + 128 * ((l * 7 + round * 5) % (3 * L));
      ks::sha512::compress_blocks_portable(want[l], blocks[l], 1);
    }
    compress_lanes(state, blocks);
  }
  for (int l = 0; l < L; ++l) {
    for (int i = 0; i < 8; ++i) ASSERT_EQ(state[i][l], want[l][i]) << "lane " << l << " word " << i;
  }
}

TEST(Sha512Variants, LaneKernelsMatchPortable) {
  check_lanes<8>(ks::sha512::compress_x8);
  check_lanes<4>(ks::sha512::compress_x4);
}

}  // namespace
