// SM2 keygen and signing on batches already in device memory
// (kuaisuo/common.h, "Device memory"): ks_sm2_keygen_batch,
// ks_sm2_sign_digest_batch, _keys and ks_sm2_sign_batch with device
// pointers on a GPU context. Keys and nonces are drawn on the device, so
// the CPU checks the results instead of reproducing them: every public key
// is [d]G of its private key, every signature verifies on the CPU under
// its key, two signatures of one digest differ. Bad per-item keys and
// offsets fail per item with a zeroed signature. ks_sm2_digest_batch (per
// item keys and IDs) matches the CPU byte for byte. Skipped where no GPU
// is present.
#include <gtest/gtest.h>
#include <string.h>

#include <set>
#include <vector>

#include "gpu_fixture.h"
#include "kuaisuo.h"
#include "sm2/sm2.h"
#include "testing/gpu_memory_testing.h"
#include "test_util.h"

namespace {

using ks::testing::DeviceBytes;

constexpr size_t kItems = 100003;
const uint8_t kId[] = "ALICE123@YAHOO.COM";
constexpr size_t kIdLen = 18;
// n - 1, the smallest value above the private keys' range [1, n - 2]
// (GB/T 32918.1 6.1).
const uint8_t kNMinus1[32] = {0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                              0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6,
                              0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09, 0x39, 0xD5, 0x41, 0x22};

class Sm2SignDevice : public ks_test::GpuAgainstCpu {
 protected:
  Sm2SignDevice() : GpuAgainstCpu(2, 0) {}
  void SetUp() override {
    GpuAgainstCpu::SetUp();
    if (IsSkipped()) return;
    std::vector<uint8_t> d = random(32);
    d[0] &= 0x7F;  // below n
    ASSERT_EQ(ks_sm2_key_from_bytes(d.data(), 32, &key_), KS_OK);
    ks_sm2_pubkey* pub = nullptr;
    ASSERT_EQ(ks_sm2_key_public(key_, &pub), KS_OK);
    size_t len = 0;
    ASSERT_EQ(ks_sm2_pubkey_to_bytes(pub, 0, pub_, sizeof pub_, &len), KS_OK);
    ks_sm2_pubkey_free(pub);
  }
  void TearDown() override { ks_sm2_key_free(key_); }

  // The CPU's verdicts on digests signed under pubs (65 bytes each).
  std::vector<int> cpu_verify(const std::vector<uint8_t>& pubs,
                              const std::vector<uint8_t>& digests,
                              const std::vector<uint8_t>& sigs) {
    const size_t n = digests.size() / 32;
    std::vector<int> status(n, 98);
    ks_sm2_verify_digest_batch(cpu_ctx_.ctx, pubs.data(), digests.data(), n, sigs.data(),
                               status.data());
    return status;
  }
  std::vector<uint8_t> repeated_pub(size_t n) const {
    std::vector<uint8_t> pubs(65 * n);
    for (size_t i = 0; i < n; ++i) memcpy(&pubs[65 * i], pub_, 65);
    return pubs;
  }
  static bool zero(const std::vector<uint8_t>& v, size_t at, size_t len) {
    for (size_t k = 0; k < len; ++k)
      if (v[at + k] != 0) return false;
    return true;
  }

  ks_sm2_key* key_ = nullptr;
  uint8_t pub_[65];
};

TEST_F(Sm2SignDevice, KeygenGivesKeyPairsOnAUserStream) {
  SCOPED_TRACE(trace_);
  DeviceBytes priv(32 * kItems), pub(65 * kItems), status(sizeof(int) * kItems);
  void* stream = ks::testing::stream_create();
  ASSERT_NE(stream, nullptr);
  ASSERT_EQ(ks_ctx_set_stream(gpu_ctx_.ctx, stream), KS_OK);
  const int rc = ks_sm2_keygen_batch(gpu_ctx_.ctx, kItems, priv.get(), priv.size(), pub.get(),
                                     pub.size(), status.as<int>());
  ASSERT_TRUE(ks::testing::stream_sync(stream));
  ks_ctx_set_stream(gpu_ctx_.ctx, nullptr);
  ks::testing::stream_destroy(stream);
  ASSERT_EQ(rc, KS_OK);
  EXPECT_EQ(status.download_as<int>(kItems), std::vector<int>(kItems, KS_OK));
  const std::vector<uint8_t> d = priv.download(priv.size()), p = pub.download(pub.size());
  std::vector<int> bad(kItems, 0);
  ks_test::parallel_for(kItems, [&](size_t i) {
    ks::sm2::PrivateKey k;
    uint8_t want[65];
    if (ks::sm2::private_key_from_bytes(k, &d[32 * i]) != ks::sm2::Error::kOk) {
      bad[i] = 1;
      return;
    }
    ks::sm2::public_key_to_bytes(want, k.pub);
    bad[i] = memcmp(want, &p[65 * i], 65) != 0 ? 2 : 0;
  });
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(bad[i], 0) << "item " << i;
  std::set<uint64_t> prefixes;  // fresh keys: no two share their first 8 bytes
  for (size_t i = 0; i < kItems; ++i) {
    uint64_t v;
    memcpy(&v, &d[32 * i], 8);
    prefixes.insert(v);
  }
  EXPECT_EQ(prefixes.size(), kItems);
}

TEST_F(Sm2SignDevice, DigestsUnderOneKeyVerifyOnTheCpu) {
  SCOPED_TRACE(trace_);
  std::vector<uint8_t> e = random(32 * kItems);
  memcpy(&e[32], &e[0], 32);  // items 0 and 1 sign the same digest
  const DeviceBytes staged(e);
  DeviceBytes digests(e.size()), sigs(64 * kItems), status(sizeof(int) * kItems),
      after(status.size());
  const std::vector<uint8_t> zeros(e.size(), 0);
  ASSERT_TRUE(digests.upload(zeros.data(), zeros.size()));  // the digests arrive late
  const auto call = [&] {
    return ks_sm2_sign_digest_batch(gpu_ctx_.ctx, key_, digests.get(), kItems, KS_SM2_NONCE_RANDOM,
                                    sigs.get(), sigs.size(), status.as<int>());
  };
  ASSERT_EQ(ks::testing::run_between(gpu_ctx_.ctx, digests.get(), staged.get(), e.size(), call,
                                     after.get(), status.get(), status.size()),
            KS_OK);
  EXPECT_EQ(after.download_as<int>(kItems), std::vector<int>(kItems, KS_OK));
  const std::vector<uint8_t> s = sigs.download(sigs.size());
  EXPECT_EQ(cpu_verify(repeated_pub(kItems), e, s), std::vector<int>(kItems, KS_OK));
  EXPECT_NE(memcmp(&s[0], &s[64], 64), 0);  // fresh nonces
}

TEST_F(Sm2SignDevice, PerItemKeysOutOfRangeFailWithNoSignature) {
  SCOPED_TRACE(trace_);
  const size_t n = 50021;
  std::vector<uint8_t> d = random(32 * n), e = random(32 * n);
  for (size_t i = 0; i < n; ++i) d[32 * i] &= 0x7F;
  std::vector<bool> bad(n, false);
  for (size_t i = 7; i < n; i += 97) {
    const int kind = int(i % 4);
    uint8_t* k = &d[32 * i];
    if (kind == 0) memset(k, 0, 32);
    else if (kind == 1) memcpy(k, kNMinus1, 32);
    else if (kind == 2) memset(k, 0xFF, 32);
    else memcpy(k, kNMinus1, 32), k[31] += 1;  // n
    bad[i] = true;
  }
  const DeviceBytes keys(d), digests(e);
  DeviceBytes sigs(64 * n), status(sizeof(int) * n);
  const std::vector<uint8_t> ones(sigs.size(), 0xAB);
  ASSERT_TRUE(sigs.upload(ones.data(), ones.size()));
  ASSERT_EQ(ks_sm2_sign_digest_batch_keys(gpu_ctx_.ctx, keys.get(), digests.get(), n,
                                          KS_SM2_NONCE_RANDOM, sigs.get(), sigs.size(),
                                          status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  const std::vector<int> got = status.download_as<int>(n);
  const std::vector<uint8_t> s = sigs.download(sigs.size());
  std::vector<uint8_t> pubs(65 * n, 0);
  ks_test::parallel_for(n, [&](size_t i) {
    ks::sm2::PrivateKey k;
    if (ks::sm2::private_key_from_bytes(k, &d[32 * i]) == ks::sm2::Error::kOk)
      ks::sm2::public_key_to_bytes(&pubs[65 * i], k.pub);
  });
  const std::vector<int> verdict = cpu_verify(pubs, e, s);
  for (size_t i = 0; i < n; ++i) {
    if (bad[i]) {
      ASSERT_EQ(got[i], KS_ERR_BAD_PRIVATE_KEY) << "item " << i;
      ASSERT_TRUE(zero(s, 64 * i, 64)) << "item " << i;
    } else {
      ASSERT_EQ(got[i], KS_OK) << "item " << i;
      ASSERT_EQ(verdict[i], KS_OK) << "item " << i;
    }
  }
}

TEST_F(Sm2SignDevice, MessagesVerifyOnTheCpuAndBadOffsetsFailPerItem) {
  SCOPED_TRACE(trace_);
  const size_t n = 30011;
  std::vector<uint64_t> offsets{0};
  for (size_t i = 0; i < n; ++i) offsets.push_back(offsets.back() + rng_() % 300);
  const std::vector<uint8_t> data = random(offsets.back());
  std::vector<uint64_t> damaged = offsets;
  std::vector<bool> bad(n, false);
  for (size_t k = 5; k < n; k += 211) {  // items k - 1 (ends past) and k (descends)
    damaged[k] = data.size() + 1 + rng_() % 100;
    bad[k - 1] = bad[k] = true;
  }
  const DeviceBytes d_data(data), d_offsets(damaged);
  DeviceBytes sigs(64 * n), status(sizeof(int) * n);
  ASSERT_EQ(ks_sm2_sign_batch(gpu_ctx_.ctx, key_, kId, kIdLen, d_data.get(), data.size(),
                              d_offsets.as<const uint64_t>(), n, KS_SM2_NONCE_RANDOM, sigs.get(),
                              sigs.size(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  const std::vector<int> got = status.download_as<int>(n);
  const std::vector<uint8_t> s = sigs.download(sigs.size());
  std::vector<int> verdict(n, 98);
  ks_sm2_verify_batch(cpu_ctx_.ctx, repeated_pub(n).data(), kId, kIdLen, data.data(), data.size(),
                      offsets.data(), n, s.data(), verdict.data());
  for (size_t i = 0; i < n; ++i) {
    if (bad[i]) {
      ASSERT_EQ(got[i], KS_ERR_OFFSETS) << "item " << i;
      ASSERT_TRUE(zero(s, 64 * i, 64)) << "item " << i;
    } else {
      ASSERT_EQ(got[i], KS_OK) << "item " << i;
      ASSERT_EQ(verdict[i], KS_OK) << "item " << i;
    }
  }
}

TEST_F(Sm2SignDevice, RefusedArguments) {
  const size_t n = 64;
  const DeviceBytes digests(random(32 * n)), data(random(640));
  DeviceBytes sigs(64 * n), status(sizeof(int) * n), offsets(8 * (n + 1));
  std::vector<int> host_status(n, 7);
  ks_ctx* ctx = gpu_ctx_.ctx;
  // RFC 6979 nonces are derived on the CPU only.
  EXPECT_EQ(ks_sm2_sign_digest_batch(ctx, key_, digests.get(), n, KS_SM2_NONCE_DETERMINISTIC,
                                     sigs.get(), sigs.size(), status.as<int>()),
            KS_ERR_UNSUPPORTED);
  EXPECT_EQ(ks_sm2_sign_digest_batch(ctx, key_, digests.get(), n, KS_SM2_NONCE_RANDOM, sigs.get(),
                                     sigs.size(), host_status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host_status, std::vector<int>(n, 7));
  EXPECT_EQ(ks_sm2_sign_digest_batch(ctx, key_, digests.get(), n, KS_SM2_NONCE_RANDOM, sigs.get(),
                                     sigs.size(), nullptr),
            KS_ERR_NULL_POINTER);
  std::vector<uint8_t> host_pub(65 * n);
  EXPECT_EQ(ks_sm2_keygen_batch(ctx, n, sigs.get(), sigs.size(), host_pub.data(), host_pub.size(),
                                status.as<int>()),
            KS_ERR_MEMORY_MIX);
  // Calls that draw secrets refuse a stream being captured into a graph
  // (every replay would draw the same nonces and keys); verification,
  // which draws nothing, is captured.
  // (Every array is made before the capture: a synchronous copy or
  // allocation on the capturing thread would end it.)
  DeviceBytes priv(32 * n), pubs(65 * n);
  const DeviceBytes pubs_one(repeated_pub(n));
  void* stream = ks::testing::stream_create();
  ASSERT_NE(stream, nullptr);
  ASSERT_EQ(ks_ctx_set_stream(ctx, stream), KS_OK);
  ASSERT_TRUE(ks::testing::capture_begin(stream));
  const int sign_rc = ks_sm2_sign_digest_batch(ctx, key_, digests.get(), n, KS_SM2_NONCE_RANDOM,
                                               sigs.get(), sigs.size(), status.as<int>());
  const int keygen_rc = ks_sm2_keygen_batch(ctx, n, priv.get(), priv.size(), pubs.get(),
                                            pubs.size(), status.as<int>());
  const int verify_rc = ks_sm2_verify_digest_batch(ctx, pubs_one.get(), digests.get(), n,
                                                   sigs.get(), status.as<int>());
  EXPECT_TRUE(ks::testing::capture_end(stream));
  ks_ctx_set_stream(ctx, nullptr);
  ks::testing::stream_destroy(stream);
  EXPECT_EQ(sign_rc, KS_ERR_UNSUPPORTED);
  EXPECT_EQ(keygen_rc, KS_ERR_UNSUPPORTED);
  EXPECT_EQ(verify_rc, KS_OK);
  // Keys and IDs on the host, messages on the device.
  const std::vector<uint64_t> id_offsets(n + 1, 0);
  EXPECT_EQ(ks_sm2_digest_batch(ctx, repeated_pub(n).data(), kId, kIdLen, id_offsets.data(),
                                data.get(), 640, offsets.as<const uint64_t>(), n, sigs.get(),
                                sigs.size(), status.as<int>()),
            KS_ERR_MEMORY_MIX);
}

// ks_sm2_digest_batch on device memory (Z_A from each item's own key and
// ID, then SM3(Z_A || M)) against the CPU context's batch: 100,003 items
// over 61 keys, one in 61 off the curve or not 04-prefixed, IDs of 0 to 40
// bytes with some of 8,191 (the longest) and 8,192 bytes (KS_ERR_ID_LENGTH);
// ID and message ranges damaged for some items fail those items only
// (KS_ERR_OFFSETS) with a zeroed digest.
TEST_F(Sm2SignDevice, DigestsWithPerItemIdsMatchTheCpu) {
  SCOPED_TRACE(trace_);
  constexpr size_t kKeys = 61;
  std::vector<uint8_t> priv(32 * kKeys), keys(65 * kKeys);
  std::vector<int> key_status(kKeys);
  ASSERT_EQ(ks_sm2_keygen_batch(cpu_ctx_.ctx, kKeys, priv.data(), priv.size(), keys.data(),
                                keys.size(), key_status.data()),
            KS_OK);
  keys[65 * 7 + 64] ^= 1;  // off the curve
  keys[65 * 8] = 0x05;     // not an uncompressed point
  std::vector<uint8_t> pubs(65 * kItems), ids;
  std::vector<uint64_t> id_offsets{0}, offsets{0};
  for (size_t i = 0; i < kItems; ++i) {
    memcpy(&pubs[65 * i], &keys[65 * (i % kKeys)], 65);
    const size_t id_len = i % 5003 == 17 ? 8192 : i % 5003 == 18 ? 8191 : rng_() % 41;
    const std::vector<uint8_t> id = random(id_len);
    ids.insert(ids.end(), id.begin(), id.end());
    id_offsets.push_back(ids.size());
    offsets.push_back(offsets.back() + rng_() % 300);
  }
  const std::vector<uint8_t> data = random(offsets.back());
  std::vector<uint8_t> want(32 * kItems);
  std::vector<int> want_status(kItems, 99);
  ks_sm2_digest_batch(cpu_ctx_.ctx, pubs.data(), ids.data(), ids.size(), id_offsets.data(),
                      data.data(), data.size(), offsets.data(), kItems, want.data(), want.size(),
                      want_status.data());
  std::vector<bool> bad(kItems, false);
  std::vector<uint64_t> bad_ids = id_offsets, bad_offsets = offsets;
  for (size_t k = 5; k + 500 < kItems; k += 1009) {  // items k - 1 (ends past), k (descends)
    bad_ids[k] = ids.size() + 1 + rng_() % 9;
    bad_offsets[k + 500] = data.size() + 1 + rng_() % 9;
    bad[k - 1] = bad[k] = bad[k + 499] = bad[k + 500] = true;
  }
  const DeviceBytes d_pubs(pubs), d_ids(ids), d_id_offsets(bad_ids), d_data(data),
      d_offsets(bad_offsets);
  DeviceBytes digests(32 * kItems), status(sizeof(int) * kItems);
  ASSERT_EQ(ks_sm2_digest_batch(gpu_ctx_.ctx, d_pubs.get(), d_ids.get(), ids.size(),
                                d_id_offsets.as<const uint64_t>(), d_data.get(), data.size(),
                                d_offsets.as<const uint64_t>(), kItems, digests.get(),
                                digests.size(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  const std::vector<int> got = status.download_as<int>(kItems);
  const std::vector<uint8_t> e = digests.download(digests.size());
  size_t ok = 0, id_length = 0, bad_key = 0;
  for (size_t i = 0; i < kItems; ++i) {
    const int expect = bad[i] ? KS_ERR_OFFSETS : want_status[i];
    ASSERT_EQ(got[i], expect) << "item " << i;
    if (expect == KS_OK) ASSERT_EQ(memcmp(&e[32 * i], &want[32 * i], 32), 0) << "item " << i;
    else ASSERT_TRUE(zero(e, 32 * i, 32)) << "item " << i;
    ok += expect == KS_OK;
    id_length += expect == KS_ERR_ID_LENGTH;
    bad_key += expect == KS_ERR_BAD_PUBLIC_KEY;
  }
  EXPECT_GT(ok, kItems * 9 / 10);
  EXPECT_GT(id_length, 10u);
  EXPECT_GT(bad_key, 2 * kItems / kKeys - 100);
}

}  // namespace
