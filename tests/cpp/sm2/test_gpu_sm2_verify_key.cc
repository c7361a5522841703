// Batch verification under a key object (ks_sm2_verify_batch_key,
// ks_sm2_verify_digest_batch_key) on a GPU context against a CPU one, on
// >= 100,000 fresh items with every odd one invalid (sm2_key_batch.h): host
// memory through the pipeline over the key's device table, at any batch
// size (1000 items is below the size from which a batch of repeated key
// bytes builds a table: with a key object there are no per-item keys to
// read, and the table path must still be taken), and every array in device
// memory, with offsets outside the data reported per item. Skipped where no
// GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "gpu_fixture.h"
#include "kuaisuo.h"
#include "sm2/gpu/sm2_gpu_batch.h"
#include "sm2_key_batch.h"
#include "testing/gpu_memory_testing.h"
#include "test_util.h"

namespace {

using ks::testing::DeviceBytes;
using ks_test::Sm2KeyBatch;

constexpr size_t kItems = 100000;

// got against want item by item (the first few differences named).
void expect_statuses(const std::vector<int>& got, const std::vector<int>& want) {
  ASSERT_EQ(got.size(), want.size());
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && wrong++ < 5)
      ADD_FAILURE() << "item " << i << ": " << got[i] << ", want " << want[i];
  EXPECT_EQ(wrong, 0u);
}

class Sm2VerifyKeyGpu : public ks_test::GpuAgainstCpu {
 protected:
  Sm2VerifyKeyGpu() : GpuAgainstCpu(2, 0) {}

  // The GPU's statuses against the CPU context's under the key object,
  // half of which (the even items) must be valid.
  static void expect_cpu_answers(const std::vector<int>& got, const std::vector<int>& cpu,
                                 const Sm2KeyBatch& b) {
    expect_statuses(got, cpu);
    EXPECT_EQ(size_t(std::count(cpu.begin(), cpu.end(), KS_OK)), b.valid());
  }
  std::vector<int> digests_on(ks_ctx* ctx, const Sm2KeyBatch& b, int* rc) {
    std::vector<int> status(b.count(), 99);
    *rc = ks_sm2_verify_digest_batch_key(ctx, b.pub.get(), b.digests.data(), b.count(),
                                         b.digest_sigs.data(), status.data());
    return status;
  }
  std::vector<int> messages_on(ks_ctx* ctx, const Sm2KeyBatch& b, int* rc) {
    std::vector<int> status(b.count(), 99);
    *rc = ks_sm2_verify_batch_key(ctx, b.pub.get(), b.id.data(), b.id.size(),
                                  b.messages.data.data(), b.messages.data.size(),
                                  b.messages.offsets.data(), b.count(), b.message_sigs.data(),
                                  status.data());
    return status;
  }
  // Both forms of b on the GPU context (each over the key's table) against
  // the CPU context.
  void expect_gpu_matches_cpu(const Sm2KeyBatch& b) {
    for (bool messages : {false, true}) {
      SCOPED_TRACE(messages ? "messages" : "digests");
      const auto on = [&](ks_ctx* ctx, int* rc) {
        return messages ? messages_on(ctx, b, rc) : digests_on(ctx, b, rc);
      };
      int gpu_rc = 0, cpu_rc = 0;
      const uint64_t before = ks::sm2::gpu::one_key_batches();
      const std::vector<int> got = on(gpu_ctx_.ctx, &gpu_rc);
      EXPECT_EQ(ks::sm2::gpu::one_key_batches() - before, 1u);
      const std::vector<int> cpu = on(cpu_ctx_.ctx, &cpu_rc);
      EXPECT_EQ(gpu_rc, cpu_rc);
      expect_cpu_answers(got, cpu, b);
    }
  }
};

TEST_F(Sm2VerifyKeyGpu, HostMemoryMatchesTheCpu) {
  SCOPED_TRACE(trace_);
  const Sm2KeyBatch b(cpu_ctx_.ctx, kItems, rng_, "ALICE123@YAHOO.COM");
  expect_gpu_matches_cpu(b);
  expect_gpu_matches_cpu(b);  // again: the table kept from the first batch
  // The CPU's key-object answers are the single calls'.
  int rc = 0;
  expect_statuses(digests_on(cpu_ctx_.ctx, b, &rc), b.single_digest_answers());
}

// Below the size from which repeated key bytes get a table (4096), and
// tiny: the key object's batch still runs over its table, reading no key
// bytes beyond its own.
TEST_F(Sm2VerifyKeyGpu, SmallBatchesUnderANewKeyTakeTheTable) {
  SCOPED_TRACE(trace_);
  for (size_t n : {size_t(1000), size_t(7), size_t(1)}) {
    SCOPED_TRACE(n);
    expect_gpu_matches_cpu(Sm2KeyBatch(cpu_ctx_.ctx, n, rng_));
  }
  const Sm2KeyBatch empty(cpu_ctx_.ctx, 0, rng_);
  int rc = -1;
  EXPECT_TRUE(digests_on(gpu_ctx_.ctx, empty, &rc).empty());
  EXPECT_EQ(rc, KS_OK);
}

TEST_F(Sm2VerifyKeyGpu, DeviceMemoryMatchesTheCpu) {
  SCOPED_TRACE(trace_);
  const Sm2KeyBatch b(cpu_ctx_.ctx, kItems, rng_);
  int rc = 0;
  const std::vector<int> want_digests = digests_on(cpu_ctx_.ctx, b, &rc);
  std::vector<int> want_messages = messages_on(cpu_ctx_.ctx, b, &rc);
  // Offsets that leave the data fail their items alone on the device.
  std::vector<uint64_t> offsets = b.messages.offsets;
  for (size_t k = 5; k < kItems; k += 997) {  // items k - 1 (ends past) and k (descends)
    offsets[k] = b.messages.data.size() + 1 + rng_() % 100;
    want_messages[k - 1] = want_messages[k] = KS_ERR_OFFSETS;
  }
  const DeviceBytes digests(b.digests), digest_sigs(b.digest_sigs), data(b.messages.data),
      offs(offsets), message_sigs(b.message_sigs);
  DeviceBytes status(sizeof(int) * kItems);
  const uint64_t before = ks::sm2::gpu::one_key_batches();
  ASSERT_EQ(ks_sm2_verify_digest_batch_key(gpu_ctx_.ctx, b.pub.get(), digests.get(), kItems,
                                           digest_sigs.get(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  expect_cpu_answers(status.download_as<int>(kItems), want_digests, b);
  ASSERT_EQ(ks_sm2_verify_batch_key(gpu_ctx_.ctx, b.pub.get(), b.id.data(), b.id.size(),
                                    data.get(), b.messages.data.size(), offs.as<const uint64_t>(),
                                    kItems, message_sigs.get(), status.as<int>()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  expect_statuses(status.download_as<int>(kItems), want_messages);
  EXPECT_EQ(ks::sm2::gpu::one_key_batches() - before, 2u);
  // Host and device memory mixed, and no statuses on the device.
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(gpu_ctx_.ctx, b.pub.get(), digests.get(), kItems,
                                           b.digest_sigs.data(), status.as<int>()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(gpu_ctx_.ctx, b.pub.get(), digests.get(), kItems,
                                           digest_sigs.get(), nullptr),
            KS_ERR_NULL_POINTER);
}

}  // namespace
