// SM3 and HMAC-SM3 through the C API: the GB/T 32905 vectors, OpenSSL as an
// independent oracle on fresh random inputs, streaming splits, and batches
// on the CPU and (where present) the GPU.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <thread>

#include "kuaisuo.h"
#include "test_util.h"

using ks_test::bytes_of;
using ks_test::from_hex;
using ks_test::random_bytes;
using ks_test::random_u32;
using ks_test::to_hex;

namespace {

using Digest = std::vector<uint8_t>;

Digest ours(const std::vector<uint8_t>& m) {
  Digest d(32);
  EXPECT_EQ(ks_sm3(m.data(), m.size(), d.data()), KS_OK);
  return d;
}

Digest openssl_sm3(const std::vector<uint8_t>& m) {
  Digest d(32);
  unsigned len = 0;
  EXPECT_EQ(EVP_Digest(m.data(), m.size(), d.data(), &len, EVP_sm3(), nullptr), 1);
  return d;
}

Digest openssl_hmac_sm3(const std::vector<uint8_t>& key, const std::vector<uint8_t>& m) {
  Digest d(32);
  unsigned len = 0;
  static const uint8_t kEmpty[1] = {0};  // OpenSSL's HMAC refuses a NULL empty key
  const uint8_t* k = key.empty() ? kEmpty : key.data();
  EXPECT_NE(HMAC(EVP_sm3(), k, int(key.size()), m.data(), m.size(), d.data(), &len), nullptr);
  return d;
}

// GB/T 32905-2016 appendix A (also GmSSL tests/sm3test.c).
TEST(Sm3, StandardVectors) {
  EXPECT_EQ(to_hex(ours(bytes_of("abc")).data(), 32),
            "66C7F0F462EEEDD9D1F2D46BDC10E4E24167C4875CF2F7A2297DA02B8F4BA8E0");
  std::string abcd16;
  for (int i = 0; i < 16; ++i) abcd16 += "abcd";
  EXPECT_EQ(to_hex(ours(bytes_of(abcd16)).data(), 32),
            "DEBE9FF92275B8A138604889C18E5A4D6FDB70E5387E5765293DCBA39C0C5732");
}

TEST(Sm3, MatchesOpenSslForEveryLengthTo4096) {
  const std::vector<uint8_t> all = random_bytes(4096);
  for (size_t len = 0; len <= all.size(); ++len) {
    const std::vector<uint8_t> m(all.begin(), all.begin() + len);
    ASSERT_EQ(ours(m), openssl_sm3(m)) << "length " << len;
  }
}

TEST(Sm3, MatchesOpenSslOnMebibytes) {
  for (size_t len : {size_t(1) << 20, (size_t(3) << 20) + 17}) {
    const std::vector<uint8_t> m = random_bytes(len);
    EXPECT_EQ(ours(m), openssl_sm3(m)) << "length " << len;
  }
}

TEST(Sm3, StreamingSplitAtEveryPosition) {
  const std::vector<uint8_t> m = random_bytes(300);
  const Digest want = openssl_sm3(m);
  for (size_t cut = 0; cut <= m.size(); ++cut) {
    ks_sm3_ctx c;
    ASSERT_EQ(ks_sm3_init(&c), KS_OK);
    ASSERT_EQ(ks_sm3_update(&c, m.data(), cut), KS_OK);
    ASSERT_EQ(ks_sm3_update(&c, m.data() + cut, m.size() - cut), KS_OK);
    Digest got(32);
    ASSERT_EQ(ks_sm3_final(&c, got.data()), KS_OK);
    ASSERT_EQ(got, want) << "cut " << cut;
  }
}

TEST(Sm3, StreamingInRandomPiecesAndReuseAfterFinal) {
  ks_sm3_ctx c;
  ASSERT_EQ(ks_sm3_init(&c), KS_OK);
  for (int round = 0; round < 3; ++round) {  // final re-initialises
    const std::vector<uint8_t> m = random_bytes(5000 + random_u32() % 3000);
    for (size_t at = 0; at < m.size();) {
      const size_t piece = std::min<size_t>(random_u32() % 200, m.size() - at);
      ASSERT_EQ(ks_sm3_update(&c, m.data() + at, piece), KS_OK);
      at += piece;
    }
    Digest got(32);
    ASSERT_EQ(ks_sm3_final(&c, got.data()), KS_OK);
    EXPECT_EQ(got, openssl_sm3(m));
  }
}

TEST(HmacSm3, MatchesOpenSslForKeyAndMessageLengths) {
  for (size_t key_len : {0, 1, 16, 32, 63, 64, 65, 100, 200}) {
    const std::vector<uint8_t> key = random_bytes(key_len);
    for (size_t len : {0, 1, 55, 56, 64, 1000}) {
      const std::vector<uint8_t> m = random_bytes(len);
      Digest got(32);
      ASSERT_EQ(ks_hmac_sm3(key.data(), key.size(), m.data(), m.size(), got.data()), KS_OK);
      ASSERT_EQ(got, openssl_hmac_sm3(key, m)) << "key " << key_len << " msg " << len;
    }
  }
}

TEST(HmacSm3, StreamingReusesTheKey) {
  const std::vector<uint8_t> key = random_bytes(77);
  ks_hmac_sm3_ctx c;
  ASSERT_EQ(ks_hmac_sm3_init(&c, key.data(), key.size()), KS_OK);
  for (size_t len : {0, 10, 300}) {
    const std::vector<uint8_t> m = random_bytes(len);
    ASSERT_EQ(ks_hmac_sm3_update(&c, m.data(), len / 2), KS_OK);
    ASSERT_EQ(ks_hmac_sm3_update(&c, m.data() + len / 2, len - len / 2), KS_OK);
    Digest got(32);
    ASSERT_EQ(ks_hmac_sm3_final(&c, got.data()), KS_OK);
    EXPECT_EQ(got, openssl_hmac_sm3(key, m));
  }
  ks_hmac_sm3_cleanse(&c);
  for (uint64_t w : c.opaque) EXPECT_EQ(w, 0u);
}

// A batch of messages with mixed lengths (zero included) in flat layout.
struct FlatBatch {
  std::vector<uint8_t> data;
  std::vector<uint64_t> offsets{0};
  std::vector<std::vector<uint8_t>> messages;

  explicit FlatBatch(size_t count, size_t max_len = 700) {
    for (size_t i = 0; i < count; ++i) {
      const size_t len = i % 7 == 0 ? 0 : random_u32() % max_len;
      messages.push_back(random_bytes(len));
      data.insert(data.end(), messages.back().begin(), messages.back().end());
      offsets.push_back(data.size());
    }
  }
};

using CtxHolder = ks_test::Context;

void expect_batch_matches(ks_ctx* ctx, const FlatBatch& b) {
  const size_t n = b.messages.size();
  std::vector<uint8_t> digests(32 * n, 0xEE);
  std::vector<int> status(n, 12345);
  ASSERT_EQ(ks_sm3_batch(ctx, b.data.data(), b.data.size(), b.offsets.data(), n,
                         digests.data(), digests.size(), status.data()),
            KS_OK);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(status[i], KS_OK);
    ASSERT_EQ(Digest(digests.begin() + 32 * i, digests.begin() + 32 * i + 32),
              openssl_sm3(b.messages[i]))
        << "item " << i;
  }
}

TEST(Sm3Batch, CpuMixedLengthsOnOneAndManyThreads) {
  const FlatBatch b(3001);
  for (unsigned threads : {1u, 2u, 5u}) {
    CtxHolder h(KS_BACKEND_CPU, threads);
    ASSERT_EQ(h.rc, KS_OK);
    expect_batch_matches(h.ctx, b);
  }
}

TEST(Sm3Batch, EmptyBatch) {
  CtxHolder h(KS_BACKEND_CPU, 2);
  const uint64_t offsets[1] = {0};
  EXPECT_EQ(ks_sm3_batch(h.ctx, nullptr, 0, offsets, 0, nullptr, 0, nullptr), KS_OK);
}

TEST(Sm3Batch, OneContextSharedByThreads) {
  CtxHolder h(KS_BACKEND_CPU, 2);
  const FlatBatch b(500);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) callers.emplace_back([&] { expect_batch_matches(h.ctx, b); });
  for (std::thread& t : callers) t.join();
}

// The GPU result must equal OpenSSL's and the CPU path's on fresh inputs.
TEST(Sm3Batch, GpuMatchesOpenSsl) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  CtxHolder gpu(KS_BACKEND_GPU, 0);
  ASSERT_EQ(gpu.rc, KS_OK);
  expect_batch_matches(gpu.ctx, FlatBatch(20000));
  expect_batch_matches(gpu.ctx, FlatBatch(300, 70000));  // long messages
}

// More items than one GPU chunk holds, so both staging slots are reused.
TEST(Sm3Batch, GpuMatchesCpuAcrossChunks) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  CtxHolder gpu(KS_BACKEND_GPU, 0), cpu(KS_BACKEND_CPU, 0);
  ASSERT_EQ(gpu.rc, KS_OK);
  const FlatBatch b((size_t(1) << 21) + 999, 100);
  const size_t n = b.messages.size();
  std::vector<uint8_t> from_gpu(32 * n), from_cpu(32 * n);
  ASSERT_EQ(ks_sm3_batch(gpu.ctx, b.data.data(), b.data.size(), b.offsets.data(), n,
                         from_gpu.data(), from_gpu.size(), nullptr), KS_OK);
  ASSERT_EQ(ks_sm3_batch(cpu.ctx, b.data.data(), b.data.size(), b.offsets.data(), n,
                         from_cpu.data(), from_cpu.size(), nullptr), KS_OK);
  EXPECT_TRUE(from_gpu == from_cpu);
}

}  // namespace
