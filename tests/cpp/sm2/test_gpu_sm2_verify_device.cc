// SM2 verification of batches already in device memory (kuaisuo/common.h,
// "Device memory"): ks_sm2_verify_batch (messages; Z_A and e on the
// device) and ks_sm2_verify_digest_batch with device pointers on a GPU
// context, against a CPU context on fresh random items under 64 keys
// (valid ones, tampered messages, signatures and keys, r = 0), on a user
// stream with work queued before and after the call; offsets outside the
// data reported per item; mixed host and device arguments refused.
// Skipped where no GPU is present.
#include <gtest/gtest.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "gpu_fixture.h"
#include "kuaisuo.h"
#include "sm2/sm2.h"
#include "testing/gpu_memory_testing.h"
#include "test_util.h"

namespace {

using ks::testing::DeviceBytes;

constexpr size_t kItems = 50021;
const uint8_t kId[] = "ALICE123@YAHOO.COM";
constexpr size_t kIdLen = 18;

struct Items {
  std::vector<uint8_t> pubs, sigs, data, digests;
  std::vector<uint64_t> offsets{0};
  size_t count() const { return offsets.size() - 1; }
};

class Sm2VerifyDevice : public ks_test::GpuAgainstCpu {
 protected:
  Sm2VerifyDevice() : GpuAgainstCpu(2, 0) {}

  // n items signed on the CPU under 64 keys, about one in three tampered,
  // with their digests e = SM3(Z_A || M) from the CPU context.
  Items items(size_t n) {
    std::vector<ks::sm2::PrivateKey> keys(64);
    for (auto& k : keys) {
      std::vector<uint8_t> d = random(32);
      d[0] &= 0x7F;  // below n
      d[31] |= 1;    // not zero
      EXPECT_EQ(ks::sm2::private_key_from_bytes(k, d.data()), ks::sm2::Error::kOk);
    }
    Items it;
    for (size_t i = 0; i < n; ++i) it.offsets.push_back(it.offsets.back() + rng_() % 200);
    it.data = random(it.offsets.back());
    it.pubs.resize(65 * n);
    it.sigs.resize(64 * n);
    ks_test::parallel_for(n, [&](size_t i) {
      const ks::sm2::PrivateKey& key = keys[i % keys.size()];
      ks::sm2::public_key_to_bytes(&it.pubs[65 * i], key.pub);
      ks::sm2::sign_message(&it.sigs[64 * i], key, kId, kIdLen, it.data.data() + it.offsets[i],
                            size_t(it.offsets[i + 1] - it.offsets[i]), ks::sm2::Nonce::kRandom);
    });
    for (size_t i = 1; i < n; i += 3) {
      const size_t len = size_t(it.offsets[i + 1] - it.offsets[i]), kind = rng_() % 4;
      if (kind == 0 && len > 0) it.data[it.offsets[i] + rng_() % len] ^= 1;
      else if (kind == 1) it.sigs[64 * i + rng_() % 64] ^= uint8_t(1 << (rng_() % 8));
      else if (kind == 2) it.pubs[65 * i + 1 + rng_() % 64] ^= 1;  // off the curve
      else memset(&it.sigs[64 * i], 0, 32);                      // r = 0
    }
    std::vector<uint8_t> ids;
    std::vector<uint64_t> id_offsets{0};
    for (size_t i = 0; i < n; ++i) {
      ids.insert(ids.end(), kId, kId + kIdLen);
      id_offsets.push_back(ids.size());
    }
    it.digests.resize(32 * n);
    std::vector<int> status(n);
    ks_sm2_digest_batch(cpu_ctx_.ctx, it.pubs.data(), ids.data(), ids.size(), id_offsets.data(),
                        it.data.data(), it.data.size(), it.offsets.data(), n, it.digests.data(),
                        it.digests.size(), status.data());  // a bad key's digest stays zero
    return it;
  }
  std::vector<int> cpu_statuses(const Items& it, const std::vector<uint64_t>& offsets) {
    std::vector<int> want(it.count(), 98);
    EXPECT_EQ(ks_sm2_verify_batch(cpu_ctx_.ctx, it.pubs.data(), kId, kIdLen, it.data.data(),
                                  it.data.size(), offsets.data(), it.count(), it.sigs.data(),
                                  want.data()),
              KS_ERR_BATCH_ITEMS);
    return want;
  }
};

TEST_F(Sm2VerifyDevice, MessagesMatchTheCpuOnAUserStreamBetweenOtherWork) {
  SCOPED_TRACE(trace_);
  const Items it = items(kItems);
  const std::vector<int> want = cpu_statuses(it, it.offsets);
  const DeviceBytes pubs(it.pubs), sigs(it.sigs), data(it.data), staged(it.offsets);
  DeviceBytes offsets(staged.size()), status(sizeof(int) * kItems), after(status.size());
  const std::vector<uint8_t> ones(offsets.size(), 0xFF);
  ASSERT_TRUE(offsets.upload(ones.data(), ones.size()));  // every range bad until the copy
  const auto call = [&] {
    return ks_sm2_verify_batch(gpu_ctx_.ctx, pubs.get(), kId, kIdLen, data.get(), it.data.size(),
                               offsets.as<const uint64_t>(), kItems, sigs.get(),
                               status.as<int>());
  };
  ASSERT_EQ(ks::testing::run_between(gpu_ctx_.ctx, offsets.get(), staged.get(), offsets.size(),
                                     call, after.get(), status.get(), status.size()),
            KS_OK);
  const std::vector<int> got = after.download_as<int>(kItems);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(got[i], want[i]) << "item " << i;
  EXPECT_GT(std::count(want.begin(), want.end(), KS_OK), ptrdiff_t(kItems / 2));
}

TEST_F(Sm2VerifyDevice, DigestsMatchTheCpu) {
  SCOPED_TRACE(trace_);
  const Items it = items(kItems);
  std::vector<int> want(kItems, 98);
  ASSERT_EQ(ks_sm2_verify_digest_batch(cpu_ctx_.ctx, it.pubs.data(), it.digests.data(), kItems,
                                       it.sigs.data(), want.data()),
            KS_ERR_BATCH_ITEMS);
  const DeviceBytes pubs(it.pubs), sigs(it.sigs), digests(it.digests);
  DeviceBytes status(sizeof(int) * kItems);
  ASSERT_EQ(ks_sm2_verify_digest_batch(gpu_ctx_.ctx, pubs.get(), digests.get(), kItems,
                                       sigs.get(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  const std::vector<int> got = status.download_as<int>(kItems);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(got[i], want[i]) << "item " << i;
}

TEST_F(Sm2VerifyDevice, OffsetsOutsideTheDataFailPerItem) {
  SCOPED_TRACE(trace_);
  const Items it = items(3001);
  const size_t n = it.count();
  std::vector<int> want = cpu_statuses(it, it.offsets);
  std::vector<uint64_t> bad = it.offsets;
  for (size_t k = 5; k < n; k += 211) {  // items k - 1 (ends past) and k (descends)
    bad[k] = it.data.size() + 1 + rng_() % 100;
    want[k - 1] = want[k] = KS_ERR_OFFSETS;
  }
  const DeviceBytes pubs(it.pubs), sigs(it.sigs), data(it.data), offsets(bad);
  DeviceBytes status(sizeof(int) * n);
  ASSERT_EQ(ks_sm2_verify_batch(gpu_ctx_.ctx, pubs.get(), kId, kIdLen, data.get(), it.data.size(),
                                offsets.as<const uint64_t>(), n, sigs.get(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  EXPECT_EQ(status.download_as<int>(n), want);
}

TEST_F(Sm2VerifyDevice, MixedAndMissingBuffersAreRefused) {
  const Items it = items(64);
  const DeviceBytes pubs(it.pubs), sigs(it.sigs), data(it.data), offsets(it.offsets),
      digests(it.digests);
  DeviceBytes status(sizeof(int) * 64);
  std::vector<int> host_status(64, 7);
  ks_ctx* ctx = gpu_ctx_.ctx;
  const auto* offs = offsets.as<const uint64_t>();
  EXPECT_EQ(ks_sm2_verify_batch(ctx, pubs.get(), kId, kIdLen, data.get(), it.data.size(), offs,
                                64, sigs.get(), host_status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host_status, std::vector<int>(64, 7));  // not written
  EXPECT_EQ(ks_sm2_verify_digest_batch(ctx, it.pubs.data(), digests.get(), 64, sigs.get(),
                                       status.as<int>()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm2_verify_batch(ctx, pubs.get(), kId, kIdLen, data.get(), it.data.size(), offs,
                                64, sigs.get(), nullptr),
            KS_ERR_NULL_POINTER);
  std::vector<uint8_t> long_id(9000, 'a');  // over the ID limit: refused before any work
  EXPECT_EQ(ks_sm2_verify_batch(ctx, pubs.get(), long_id.data(), long_id.size(), data.get(),
                                it.data.size(), offs, 64, sigs.get(), status.as<int>()),
            KS_ERR_ID_LENGTH);
}

}  // namespace
