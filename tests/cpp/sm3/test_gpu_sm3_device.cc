// SM3 batches already in device memory (kuaisuo/common.h, "Device
// memory"): ks_sm3_batch with device pointers on a GPU context against a
// CPU context on fresh random messages (0 to 300 bytes, and the 64-byte
// ones of the benchmark), on the default stream and on a user stream with
// work queued before and after the call; offsets outside the data
// reported per item with a zero digest; mixed host and device arguments
// refused. Skipped where no GPU is present.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "testing/gpu_memory_testing.h"
#include "gpu_fixture.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks::testing::DeviceBytes;

constexpr size_t kItems = 100003;

struct Messages {
  Bytes data;
  std::vector<uint64_t> offsets{0};
  size_t count() const { return offsets.size() - 1; }
};

class Sm3Device : public ks_test::GpuAgainstCpu {
 protected:
  Sm3Device() : GpuAgainstCpu(2, 0) {}
  // n messages, every fourth 64 bytes long, the rest 0 to 300.
  Messages messages(size_t n) {
    Messages m;
    for (size_t i = 0; i < n; ++i) m.offsets.push_back(m.offsets.back() + (i % 4 == 0 ? 64 : rng_() % 301));
    m.data = ks_test::random_bytes(rng_, m.offsets.back());
    return m;
  }
  Bytes cpu_digests(const Messages& m) {
    Bytes want(32 * m.count());
    EXPECT_EQ(ks_sm3_batch(cpu_ctx_.ctx, m.data.data(), m.data.size(), m.offsets.data(),
                           m.count(), want.data(), want.size(), nullptr),
              KS_OK);
    return want;
  }

};

TEST_F(Sm3Device, MatchesTheCpuOnAUserStreamBetweenOtherWork) {
  SCOPED_TRACE(trace_);
  const Messages m = messages(kItems);
  const Bytes want = cpu_digests(m);
  const DeviceBytes data(m.data), staged(m.offsets);
  DeviceBytes offsets(8 * m.offsets.size()), digests(want.size()), after(want.size()),
      status(sizeof(int) * kItems);
  ASSERT_TRUE(data.ok() && staged.ok() && offsets.ok() && digests.ok() && after.ok() &&
              status.ok());
  const Bytes ones(offsets.size(), 0xFF);
  ASSERT_TRUE(offsets.upload(ones.data(), ones.size()));  // every range bad until the copy
  const auto call = [&] {
    return ks_sm3_batch(gpu_ctx_.ctx, data.get(), m.data.size(), offsets.as<const uint64_t>(),
                        kItems, digests.get(), want.size(), status.as<int>());
  };
  ASSERT_EQ(ks::testing::run_between(gpu_ctx_.ctx, offsets.get(), staged.get(), offsets.size(),
                                     call, after.get(), digests.get(), want.size()),
            KS_OK);
  EXPECT_EQ(after.download(want.size()), want);
  EXPECT_EQ(status.download_as<int>(kItems), std::vector<int>(kItems, KS_OK));
}

TEST_F(Sm3Device, OffsetsOutsideTheDataFailPerItemWithAZeroDigest) {
  SCOPED_TRACE(trace_);
  const Messages m = messages(5000);
  Bytes want = cpu_digests(m);
  std::vector<int> want_status(m.count(), KS_OK);
  std::vector<uint64_t> bad = m.offsets;
  for (size_t k = 3; k < m.count(); k += 97) {  // items k - 1 (ends past) and k (descends)
    bad[k] = m.data.size() + 1 + rng_() % 100;
    want_status[k - 1] = want_status[k] = KS_ERR_OFFSETS;
    std::fill(want.begin() + 32 * (k - 1), want.begin() + 32 * (k + 1), 0);
  }
  const DeviceBytes data(m.data), offsets(bad);
  DeviceBytes digests(want.size()), status(sizeof(int) * m.count());
  ASSERT_EQ(ks_sm3_batch(gpu_ctx_.ctx, data.get(), m.data.size(), offsets.as<const uint64_t>(),
                         m.count(), digests.get(), want.size(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  EXPECT_EQ(digests.download(want.size()), want);
  EXPECT_EQ(status.download_as<int>(m.count()), want_status);
}

TEST_F(Sm3Device, MixedAndMissingBuffersAreRefused) {
  const Messages m = messages(64);
  const DeviceBytes data(m.data), offsets(m.offsets);
  DeviceBytes digests(32 * 64), status(sizeof(int) * 64);
  Bytes host_digests(32 * 64, 7);
  ks_ctx* ctx = gpu_ctx_.ctx;
  const auto* offs = offsets.as<const uint64_t>();
  EXPECT_EQ(ks_sm3_batch(ctx, data.get(), m.data.size(), offs, 64, host_digests.data(),
                         host_digests.size(), status.as<int>()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host_digests, Bytes(32 * 64, 7));  // not written
  EXPECT_EQ(ks_sm3_batch(ctx, data.get(), m.data.size(), m.offsets.data(), 64, digests.get(),
                         32 * 64, status.as<int>()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm3_batch(ctx, data.get(), m.data.size(), offs, 64, digests.get(), 32 * 64,
                         nullptr),
            KS_ERR_NULL_POINTER);  // device batches report per item
  EXPECT_EQ(ks_sm3_batch(ctx, data.get(), m.data.size(), offs, 64, digests.get(), 32 * 63,
                         status.as<int>()),
            KS_ERR_LENGTH);
}

}  // namespace
