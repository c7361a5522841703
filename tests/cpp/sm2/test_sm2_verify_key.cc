// Batch verification under a key object (ks_sm2_verify_batch_key,
// ks_sm2_verify_digest_batch_key) on CPU contexts: every item's status is
// the one the per-item-key batch calls and the single calls give, for valid
// signatures and invalid ones (a bit of r or s flipped, r or s = 0 or >= n,
// r + s = n, another item's signature, a changed digest or message), at
// batch sizes on both sides of the one-key thresholds, with and without
// ks_sm2_pubkey_precompute; a batch large enough leaves the table on the
// key, a small one does not; argument errors are the per-item calls'. Run
// again without AVX-512 IFMA (src/sm2/CMakeLists.txt). The GPU's side:
// test_gpu_sm2_verify_key.cc.
#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kuaisuo.h"
#include "sm2/sm2_handles.h"
#include "sm2_key_batch.h"
#include "test_util.h"

namespace {

using ks_test::Sm2KeyBatch;

// Empty, one item, fewer than a group of 8 lanes and a group, then both
// sides of the sizes from which a batch builds the key's table: 64 (32 a
// thread on these 2 threads, without IFMA) and 256 (with IFMA).
constexpr size_t kSizes[] = {0, 1, 7, 8, 63, 64, 255, 256, 1000};
const std::string kIds[] = {KS_SM2_DEFAULT_ID, "", "ALICE123@YAHOO.COM"};

enum class Form { kDigests, kMessages };

class Sm2VerifyKey : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ctx_.rc, KS_OK);
    const uint64_t seed = std::random_device{}() * 0x100000000ull + std::random_device{}();
    rng_.seed(seed);
    trace_ = "seed " + std::to_string(seed);
  }

  // The key-object call's statuses on b, and its return code in *rc.
  std::vector<int> under_key(const Sm2KeyBatch& b, Form form, int* rc) {
    std::vector<int> status(b.count(), 99);
    *rc = form == Form::kDigests
              ? ks_sm2_verify_digest_batch_key(ctx_.ctx, b.pub.get(), b.digests.data(),
                                               b.count(), b.digest_sigs.data(), status.data())
              : ks_sm2_verify_batch_key(ctx_.ctx, b.pub.get(), b.id.data(), b.id.size(),
                                        b.messages.data.data(), b.messages.data.size(),
                                        b.messages.offsets.data(), b.count(),
                                        b.message_sigs.data(), status.data());
    return status;
  }
  // The per-item-key call's statuses on b (the key's bytes repeated).
  std::vector<int> per_item_keys(const Sm2KeyBatch& b, Form form) {
    std::vector<int> status(b.count(), 98);
    if (form == Form::kDigests) {
      ks_sm2_verify_digest_batch(ctx_.ctx, b.pubs.data(), b.digests.data(), b.count(),
                                 b.digest_sigs.data(), status.data());
    } else {
      ks_sm2_verify_batch(ctx_.ctx, b.pubs.data(), b.id.data(), b.id.size(),
                          b.messages.data.data(), b.messages.data.size(),
                          b.messages.offsets.data(), b.count(), b.message_sigs.data(),
                          status.data());
    }
    return status;
  }
  // The key-object call on b against the per-item-key call and the
  // single calls, item by item; half the items (the even ones) valid.
  void expect_agrees(const Sm2KeyBatch& b, Form form) {
    SCOPED_TRACE(std::string(form == Form::kDigests ? "digests" : "messages") + ", " +
                 std::to_string(b.count()) + " items");
    int rc = 0;
    const std::vector<int> got = under_key(b, form, &rc);
    const std::vector<int> per_item = per_item_keys(b, form);
    const std::vector<int> single =
        form == Form::kDigests ? b.single_digest_answers() : b.single_message_answers();
    size_t wrong = 0;
    for (size_t i = 0; i < b.count(); ++i) {
      if ((got[i] != single[i] || per_item[i] != single[i]) && wrong++ < 5)
        ADD_FAILURE() << "item " << i << ": key object " << got[i] << ", per-item keys "
                      << per_item[i] << ", single call " << single[i];
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(size_t(std::count(single.begin(), single.end(), KS_OK)), b.valid());
    EXPECT_EQ(rc, b.valid() == b.count() ? KS_OK : KS_ERR_BATCH_ITEMS);
  }

  ks_test::Context ctx_{KS_BACKEND_CPU, 2};
  std::mt19937_64 rng_;
  std::string trace_;
};

// Each size and form on a fresh key without a table (a batch large enough
// builds it during the call), then again (a large batch now finds the
// table), and on a fresh key precomputed first.
TEST_F(Sm2VerifyKey, AgreesWithPerItemKeysAndSingleCalls) {
  SCOPED_TRACE(trace_);
  size_t k = 0;
  for (size_t n : kSizes) {
    for (Form form : {Form::kDigests, Form::kMessages}) {
      const Sm2KeyBatch plain(ctx_.ctx, n, rng_, kIds[k++ % 3]);
      expect_agrees(plain, form);
      expect_agrees(plain, form);
      const Sm2KeyBatch precomputed(ctx_.ctx, n, rng_, kIds[k++ % 3]);
      ASSERT_EQ(ks_sm2_pubkey_precompute(precomputed.pub.get()), KS_OK);
      expect_agrees(precomputed, form);
    }
  }
  // The statuses the invalid items give: both kinds of failure.
  const Sm2KeyBatch b(ctx_.ctx, 256, rng_);
  int rc = 0;
  const std::vector<int> got = under_key(b, Form::kDigests, &rc);
  EXPECT_GT(std::count(got.begin(), got.end(), KS_ERR_SIGNATURE_RANGE), 40);
  EXPECT_GT(std::count(got.begin(), got.end(), KS_ERR_VERIFY_FAILED), 30);
}

// The documented memory: a batch from 256 items (fewer without IFMA) builds
// the key's table and leaves it there; a batch of 7 builds none.
TEST_F(Sm2VerifyKey, LargeBatchesLeaveTheTableOnTheKey) {
  SCOPED_TRACE(trace_);
  for (Form form : {Form::kDigests, Form::kMessages}) {
    const Sm2KeyBatch small(ctx_.ctx, 7, rng_), large(ctx_.ctx, 256, rng_);
    int rc = 0;
    under_key(small, form, &rc);
    EXPECT_EQ(small.pub->point_table(), nullptr);
    under_key(large, form, &rc);
    EXPECT_NE(large.pub->point_table(), nullptr);
    expect_agrees(large, form);
  }
}

// Threads verifying under one key object at once, each large enough to
// build its table: one table wins, every answer is right.
TEST_F(Sm2VerifyKey, ConcurrentBatchesUnderOneKey) {
  SCOPED_TRACE(trace_);
  const Sm2KeyBatch b(ctx_.ctx, 300, rng_);
  const std::vector<int> want = b.single_digest_answers();
  std::vector<std::vector<int>> got(4);
  std::vector<std::thread> threads;
  for (auto& g : got)
    threads.emplace_back([&] {
      ks_test::Context ctx(KS_BACKEND_CPU, 1);
      g.assign(b.count(), 99);
      ks_sm2_verify_digest_batch_key(ctx.ctx, b.pub.get(), b.digests.data(), b.count(),
                                     b.digest_sigs.data(), g.data());
    });
  for (std::thread& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
}

TEST_F(Sm2VerifyKey, ArgumentErrors) {
  const Sm2KeyBatch b(ctx_.ctx, 4, rng_);
  const ks_sm2_pubkey* key = b.pub.get();
  const uint8_t* e = b.digests.data();
  const uint8_t* sigs = b.digest_sigs.data();
  const uint8_t* data = b.messages.data.data();
  const size_t len = b.messages.data.size();
  const uint64_t* offs = b.messages.offsets.data();
  const uint8_t* id = b.id.data();
  int status[4];
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(nullptr, key, e, 4, sigs, status), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(ctx_.ctx, nullptr, e, 4, sigs, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(ctx_.ctx, key, nullptr, 4, sigs, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(ctx_.ctx, key, e, 4, nullptr, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(ctx_.ctx, key, e, SIZE_MAX / 32 + 1, sigs, status),
            KS_ERR_OVERFLOW);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(ctx_.ctx, key, nullptr, 0, nullptr, nullptr), KS_OK);
  EXPECT_EQ(ks_sm2_verify_digest_batch_key(ctx_.ctx, key, e, 4, sigs, nullptr),
            KS_ERR_BATCH_ITEMS);  // statuses are optional on the host
  EXPECT_EQ(ks_sm2_verify_batch_key(nullptr, key, id, 16, data, len, offs, 4, sigs, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, nullptr, id, 16, data, len, offs, 4, sigs, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, nullptr, 16, data, len, offs, 4, sigs, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, id, KS_SM2_MAX_ID_BYTES + 1, data, len, offs,
                                    4, sigs, status),
            KS_ERR_ID_LENGTH);
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, id, 16, data, len, nullptr, 4, sigs, status),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, id, 16, data, len, offs, 4, nullptr, status),
            KS_ERR_NULL_POINTER);
  if (len > 0) {  // data shorter than the offsets say
    EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, id, 16, data, len - 1, offs, 4, sigs,
                                      status),
              KS_ERR_OFFSETS);
  }
  std::vector<uint64_t> descending(offs, offs + 5);
  descending[2] = descending[3] + 1;
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, id, 16, data, len + 1, descending.data(), 4,
                                    sigs, status),
            KS_ERR_OFFSETS);
  const uint64_t zero = 0;
  EXPECT_EQ(ks_sm2_verify_batch_key(ctx_.ctx, key, nullptr, 0, nullptr, 0, &zero, 0, nullptr,
                                    nullptr),
            KS_OK);
}

}  // namespace
