// The C API's contract: version, error strings, contexts, and every kind of
// bad input answered with an error code (never a crash).
#include <gtest/gtest.h>

#include <stddef.h>
#include <string.h>

#include <vector>

#include "kuaisuo.h"

namespace {

TEST(Library, VersionMatchesHeader) {
  EXPECT_EQ(ks_version(), (uint32_t(KS_VERSION_MAJOR) << 16) | (KS_VERSION_MINOR << 8) |
                              KS_VERSION_PATCH);
  char want[32];
  snprintf(want, sizeof(want), "%d.%d.%d", KS_VERSION_MAJOR, KS_VERSION_MINOR, KS_VERSION_PATCH);
  EXPECT_STREQ(ks_version_string(), want);
}

TEST(Library, EveryErrorHasADistinctSentence) {
  std::vector<std::string> seen;
  for (int code = KS_OK; code >= KS_ERR_SHUTTING_DOWN; --code) {
    if (code < KS_ERR_ALIGNMENT && code > KS_ERR_DER_TRUNCATED) continue;   // unassigned
    if (code < KS_ERR_KEY_MISMATCH && code > KS_ERR_BAD_PRIVATE_KEY) continue;
    if (code < KS_ERR_CONFIRMATION && code > KS_ERR_OVERLOADED) continue;
    const std::string s = ks_strerror(code);
    EXPECT_NE(s, "unknown error code") << code;
    for (const std::string& other : seen) EXPECT_NE(s, other) << code;
    seen.push_back(s);
  }
  EXPECT_STREQ(ks_strerror(-999), "unknown error code");
  EXPECT_STREQ(ks_strerror(42), "unknown error code");
}

TEST(Library, CpuFeaturesAreReported) { EXPECT_GT(strlen(ks_cpu_features()), 0u); }

TEST(Context, Defaults) {
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  EXPECT_EQ(cfg.struct_size, sizeof(cfg));
  EXPECT_EQ(cfg.backend, KS_BACKEND_AUTO);
  ks_ctx* ctx = nullptr;
  ASSERT_EQ(ks_ctx_new(nullptr, &ctx), KS_OK);
  EXPECT_GE(ks_ctx_cpu_threads(ctx), 1u);
  const int backend = ks_ctx_backend(ctx);
  EXPECT_EQ(backend, ks_gpu_device_count() > 0 ? KS_BACKEND_GPU : KS_BACKEND_CPU);
  ks_ctx_free(ctx);
  ks_ctx_free(nullptr);  // accepted
}

TEST(Context, RejectsBadConfigs) {
  ks_ctx* ctx = reinterpret_cast<ks_ctx*>(0x1);
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  EXPECT_EQ(ks_ctx_new(&cfg, nullptr), KS_ERR_NULL_POINTER);

  ks_ctx_config bad = cfg;
  bad.struct_size = 4;
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_LENGTH);
  EXPECT_EQ(ctx, nullptr);  // cleared on failure
  bad = cfg;
  bad.backend = 7;
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_INVALID_ARGUMENT);
  bad.backend = -1;
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_INVALID_ARGUMENT);
  bad = cfg;
  bad.gpu_device = -1;
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_INVALID_ARGUMENT);
  bad = cfg;
  bad.cpu_threads = 1u << 30;
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_INVALID_ARGUMENT);
  bad = cfg;
  bad.gpu_flags = KS_GPU_WIDE_BASE_TABLE << 1;  // no such flag
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_INVALID_ARGUMENT);
  bad.struct_size = offsetof(ks_ctx_config, gpu_flags) - 1;
  EXPECT_EQ(ks_ctx_new(&bad, &ctx), KS_ERR_LENGTH);
  EXPECT_EQ(ctx, nullptr);
}

// A caller built before gpu_flags passes the 16 bytes it knows (the
// unknown flag past them is not read); a known flag is accepted on any
// backend (CPU contexts have no table to choose).
TEST(Context, AcceptsTheOlderConfigAndTheWideTableFlag) {
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_CPU;
  cfg.gpu_flags = 0x80000000u;
  cfg.struct_size = offsetof(ks_ctx_config, gpu_flags);
  ks_ctx* ctx = nullptr;
  ASSERT_EQ(ks_ctx_new(&cfg, &ctx), KS_OK);
  ks_ctx_free(ctx);
  cfg.struct_size = sizeof cfg;
  cfg.gpu_flags = KS_GPU_WIDE_BASE_TABLE;
  ctx = nullptr;
  ASSERT_EQ(ks_ctx_new(&cfg, &ctx), KS_OK);
  uint8_t seed[32] = {1}, pub[32], want[32];
  ASSERT_EQ(ks_ed25519_public_keys_batch(ctx, seed, 1, pub, 32, nullptr), KS_OK);
  ks_ctx_free(ctx);
  ks_ed25519_key* key = nullptr;
  ks_ed25519_pubkey* key_pub = nullptr;
  ASSERT_EQ(ks_ed25519_key_from_seed(seed, sizeof seed, &key), KS_OK);
  ASSERT_EQ(ks_ed25519_key_public(key, &key_pub), KS_OK);
  ASSERT_EQ(ks_ed25519_pubkey_to_bytes(key_pub, want), KS_OK);
  ks_ed25519_pubkey_free(key_pub);
  ks_ed25519_key_free(key);
  EXPECT_EQ(memcmp(pub, want, 32), 0);
}

TEST(Context, GpuContextFailsCleanlyWithoutThatDevice) {
  ks_ctx_config cfg;
  ks_ctx_config_init(&cfg);
  cfg.backend = KS_BACKEND_GPU;
  cfg.gpu_device = ks_gpu_device_count();  // one past the last device
  ks_ctx* ctx = nullptr;
  EXPECT_EQ(ks_ctx_new(&cfg, &ctx), KS_ERR_BACKEND_UNAVAILABLE);
  EXPECT_EQ(ctx, nullptr);
  cfg.backend = KS_BACKEND_AUTO;  // AUTO falls back to the CPU
  ASSERT_EQ(ks_ctx_new(&cfg, &ctx), KS_OK);
  EXPECT_EQ(ks_ctx_backend(ctx), KS_BACKEND_CPU);
  ks_ctx_free(ctx);
  EXPECT_EQ(ks_ctx_backend(nullptr), KS_ERR_NULL_POINTER);
}

// Batch buffers from ks_host_alloc: pinned with a device, ordinary without;
// usable either way, and freed by ks_host_free (NULL included).
TEST(Library, HostAllocGivesUsableMemoryWithOrWithoutDevice) {
  void* p = nullptr;
  ASSERT_EQ(ks_host_alloc(1 << 20, &p), KS_OK);
  ASSERT_NE(p, nullptr);
  memset(p, 0xA5, 1 << 20);
  EXPECT_EQ(static_cast<unsigned char*>(p)[(1 << 20) - 1], 0xA5);
  ks_host_free(p);
  ks_host_free(nullptr);
  EXPECT_EQ(ks_host_alloc(16, nullptr), KS_ERR_NULL_POINTER);
  void* zero = nullptr;
  ASSERT_EQ(ks_host_alloc(0, &zero), KS_OK);
  ks_host_free(zero);
}

TEST(Sm3Api, NullPointers) {
  uint8_t out[32];
  const uint8_t msg[4] = {1, 2, 3, 4};
  EXPECT_EQ(ks_sm3(nullptr, 5, out), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm3(msg, 4, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm3(nullptr, 0, out), KS_OK);  // the empty message
  ks_sm3_ctx c;
  EXPECT_EQ(ks_sm3_init(nullptr), KS_ERR_NULL_POINTER);
  ASSERT_EQ(ks_sm3_init(&c), KS_OK);
  EXPECT_EQ(ks_sm3_update(&c, nullptr, 1), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm3_update(nullptr, msg, 1), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm3_update(&c, nullptr, 0), KS_OK);
  EXPECT_EQ(ks_sm3_final(&c, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm3_final(nullptr, out), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_hmac_sm3(nullptr, 3, msg, 4, out), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_hmac_sm3(msg, 4, nullptr, 3, out), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_hmac_sm3(msg, 4, msg, 4, nullptr), KS_ERR_NULL_POINTER);
  ks_hmac_sm3_ctx h;
  EXPECT_EQ(ks_hmac_sm3_init(&h, nullptr, 1), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_hmac_sm3_init(nullptr, msg, 1), KS_ERR_NULL_POINTER);
  ASSERT_EQ(ks_hmac_sm3_init(&h, nullptr, 0), KS_OK);  // empty key is legal
  EXPECT_EQ(ks_hmac_sm3_update(&h, nullptr, 2), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_hmac_sm3_final(&h, nullptr), KS_ERR_NULL_POINTER);
  ks_hmac_sm3_cleanse(nullptr);
}

class Sm3BatchArgs : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(ks_ctx_new(nullptr, &ctx_), KS_OK); }
  void TearDown() override { ks_ctx_free(ctx_); }
  int call(const uint8_t* data, size_t data_len, const uint64_t* offsets, size_t count,
           uint8_t* out, size_t out_len, int* status = nullptr) {
    return ks_sm3_batch(ctx_, data, data_len, offsets, count, out, out_len, status);
  }
  ks_ctx* ctx_ = nullptr;
  uint8_t data_[10] = {0};
  uint8_t out_[3 * 32];
};

TEST_F(Sm3BatchArgs, NullPointers) {
  const uint64_t offs[3] = {0, 4, 10};
  EXPECT_EQ(ks_sm3_batch(nullptr, data_, 10, offs, 2, out_, 64, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(call(nullptr, 10, offs, 2, out_, 64), KS_ERR_NULL_POINTER);
  EXPECT_EQ(call(data_, 10, nullptr, 2, out_, 64), KS_ERR_NULL_POINTER);
  EXPECT_EQ(call(data_, 10, offs, 2, nullptr, 64), KS_ERR_NULL_POINTER);
}

TEST_F(Sm3BatchArgs, InconsistentOffsets) {
  const uint64_t decreasing[3] = {0, 6, 4};
  EXPECT_EQ(call(data_, 10, decreasing, 2, out_, 64), KS_ERR_OFFSETS);
  const uint64_t past_end[3] = {0, 4, 11};
  EXPECT_EQ(call(data_, 10, past_end, 2, out_, 64), KS_ERR_OFFSETS);
  const uint64_t huge[3] = {0, UINT64_MAX, UINT64_MAX};
  EXPECT_EQ(call(data_, 10, huge, 2, out_, 64), KS_ERR_OFFSETS);
  const uint64_t nonzero_empty[3] = {3, 3, 3};  // items may start anywhere
  EXPECT_EQ(call(data_, 10, nonzero_empty, 2, out_, 64), KS_OK);
}

// Batches past api/batch.h's kParallelScanMin scan their offsets on the
// context's threads: one descent anywhere, in any slice, still fails the
// call, and a valid batch fills every status.
TEST_F(Sm3BatchArgs, LargeBatchOffsetsScannedWhole) {
  constexpr size_t kCount = size_t(1) << 18;
  std::vector<uint64_t> offs(kCount + 1, 5);  // empty messages at byte 5
  std::vector<uint8_t> out(32 * kCount);
  std::vector<int> status(kCount, 7);
  ASSERT_EQ(call(data_, 10, offs.data(), kCount, out.data(), out.size(), status.data()), KS_OK);
  for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(status[i], KS_OK) << i;
  for (size_t at : {size_t(1), kCount / 3, kCount / 2 + 1, kCount - 1, kCount}) {
    offs[at] = 4;  // offs[at - 1] = 5 > 4
    EXPECT_EQ(call(data_, 10, offs.data(), kCount, out.data(), out.size()), KS_ERR_OFFSETS) << at;
    offs[at] = 5;
  }
  offs[kCount] = 11;  // past the data
  EXPECT_EQ(call(data_, 10, offs.data(), kCount, out.data(), out.size()), KS_ERR_OFFSETS);
}

TEST_F(Sm3BatchArgs, OutputTooSmallOrOverflowing) {
  const uint64_t offs[3] = {0, 4, 10};
  EXPECT_EQ(call(data_, 10, offs, 2, out_, 63), KS_ERR_LENGTH);
  // count * 32 overflows size_t: rejected before the offsets are read.
  EXPECT_EQ(call(data_, 10, offs, SIZE_MAX / 16, out_, sizeof(out_)), KS_ERR_OVERFLOW);
  EXPECT_EQ(call(data_, 10, offs, SIZE_MAX, out_, sizeof(out_)), KS_ERR_OVERFLOW);
}

TEST_F(Sm3BatchArgs, StatusArrayIsFilled) {
  const uint64_t offs[4] = {0, 0, 4, 10};
  int status[3] = {7, 7, 7};
  ASSERT_EQ(call(data_, 10, offs, 3, out_, sizeof(out_), status), KS_OK);
  for (int s : status) EXPECT_EQ(s, KS_OK);
}

}  // namespace
