// SKINNY-128-256 on data already in device memory (kuaisuo/common.h,
// "Device memory"): ks_skinny128_256_crypt_buffer (CTR and ECB, both
// ways) with device pointers on a GPU context, byte for byte
// against a CPU context on fresh random inputs from 1 byte to 64 MiB, in
// place too, and on a user stream with work queued before and after it;
// ks_skinny128_256_batch's messages under their own tweakeys against the
// CPU's batch, bad items failing alone, both directions; mixed arguments
// refused. Skipped where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
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

class SkinnyDevice : public ks_test::GpuAgainstCpu {
 protected:
  SkinnyDevice() : GpuAgainstCpu(2, 4) {}

  // The CPU context's bytes for the call.
  Bytes expected(int mode, int encrypt, const Bytes& tk, const Bytes& iv, const Bytes& in) {
    Bytes out(in.size());
    const bool ctr = mode == KS_SKINNY_CTR;
    EXPECT_EQ(ks_skinny128_256_crypt_buffer(cpu_ctx_.ctx, mode, encrypt, tk.data(),
                                            ctr ? iv.data() : nullptr, ctr ? 16 : 0, in.data(),
                                            in.size(), out.data()),
              KS_OK);
    return out;
  }

};

TEST_F(SkinnyDevice, CtrAndEcbMatchTheCpu) {
  for (size_t len : {size_t(1), size_t(16), size_t(33), size_t(5000), size_t(1) << 20,
                     (size_t(64) << 20) + 3}) {
    for (int mode : {KS_SKINNY_CTR, KS_SKINNY_ECB}) {
      for (int encrypt : {KS_ENCRYPT, KS_DECRYPT}) {
        const size_t n = mode == KS_SKINNY_ECB ? len / 16 * 16 : len;
        SCOPED_TRACE(trace_ + ", mode " + std::to_string(mode) + ", encrypt " +
                     std::to_string(encrypt) + ", len " + std::to_string(n));
        const Bytes tk = random(KS_SKINNY_TWEAKEY_BYTES), iv = random(16), in = random(n);
        const Bytes want = expected(mode, encrypt, tk, iv, in);
        DeviceBytes d_in(n), d_out(n);
        ASSERT_TRUE(d_in.upload(in.data(), n));
        const bool in_place = n % 2 == 1;
        uint8_t* out = in_place ? d_in.get() : d_out.get();
        const bool ctr = mode == KS_SKINNY_CTR;
        ASSERT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx_.ctx, mode, encrypt, tk.data(),
                                                ctr ? iv.data() : nullptr, ctr ? 16 : 0,
                                                d_in.get(), n, out),
                  KS_OK);
        ASSERT_TRUE(ks::testing::stream_sync(nullptr));
        ASSERT_EQ((in_place ? d_in : d_out).download(n), want);
      }
    }
  }
}

TEST_F(SkinnyDevice, RunsInOrderOnTheContextsStream) {
  void* stream = ks::testing::stream_create();
  ASSERT_NE(stream, nullptr);
  ASSERT_EQ(ks_ctx_set_stream(gpu_ctx_.ctx, stream), KS_OK);
  const size_t len = (size_t(2) << 20) + 1;
  const Bytes tk = random(KS_SKINNY_TWEAKEY_BYTES), iv = random(16), in = random(len);
  const Bytes want = expected(KS_SKINNY_CTR, KS_DECRYPT, tk, iv, in);
  DeviceBytes staged(len), d(len), after(len);
  ASSERT_TRUE(staged.upload(in.data(), len));
  ASSERT_TRUE(ks::testing::spin_then_copy(stream, d.get(), staged.get(), len, 20000));
  ASSERT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx_.ctx, KS_SKINNY_CTR, KS_DECRYPT, tk.data(),
                                          iv.data(), 16, d.get(), len, d.get()),
            KS_OK);
  ASSERT_TRUE(ks::testing::copy_async(stream, after.get(), d.get(), len));
  ASSERT_TRUE(ks::testing::stream_sync(stream));
  EXPECT_EQ(after.download(len), want);
  ASSERT_EQ(ks_ctx_set_stream(gpu_ctx_.ctx, nullptr), KS_OK);
  ks::testing::stream_destroy(stream);
}

TEST_F(SkinnyDevice, MixedArgumentsAreRefused) {
  const Bytes tk = random(KS_SKINNY_TWEAKEY_BYTES), iv = random(16), in = random(64);
  DeviceBytes d(64);
  ASSERT_TRUE(d.upload(in.data(), 64));
  Bytes host(64, 7);
  EXPECT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx_.ctx, KS_SKINNY_CTR, KS_ENCRYPT, tk.data(),
                                          iv.data(), 16, d.get(), 64, host.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host, Bytes(64, 7));
  EXPECT_EQ(d.download(64), in);
  // The batch: tweakeys on the host, statuses missing.
  const std::vector<uint64_t> offsets = {0, 32, 64};
  const DeviceBytes d_offsets(offsets);
  DeviceBytes out(64), status(2 * sizeof(int));
  const Bytes tks = random(2 * KS_SKINNY_TWEAKEY_BYTES);
  const DeviceBytes d_tks(tks);
  EXPECT_EQ(ks_skinny128_256_batch(gpu_ctx_.ctx, KS_SKINNY_ECB, KS_ENCRYPT, tks.data(), nullptr,
                                   d.get(), 64, d_offsets.as<const uint64_t>(), 2, out.get(), 64,
                                   status.as<int>()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_skinny128_256_batch(gpu_ctx_.ctx, KS_SKINNY_ECB, KS_ENCRYPT, d_tks.get(), nullptr,
                                   d.get(), 64, d_offsets.as<const uint64_t>(), 2, out.get(), 64,
                                   nullptr),
            KS_ERR_NULL_POINTER);
}

// A batch of messages in device memory, each under its own tweakey (and
// IV), against the CPU context's batch on the same messages: 100,003
// messages of 0 to 2,000 bytes (ECB: some not whole blocks, failed with
// KS_ERR_LENGTH and not written), in place and apart, on a user stream
// with work queued before and after; offsets damaged for some items fail
// those items only (KS_ERR_OFFSETS, not written).
TEST_F(SkinnyDevice, BatchesMatchTheCpuAndBadItemsFailAlone) {
  constexpr size_t kItems = 100003;
  for (int mode : {KS_SKINNY_CTR, KS_SKINNY_ECB}) {
    for (int encrypt : {KS_ENCRYPT, KS_DECRYPT}) {
      const bool ctr = mode == KS_SKINNY_CTR, in_place = encrypt == KS_DECRYPT;
      SCOPED_TRACE(trace_ + ", mode " + std::to_string(mode) + ", encrypt " +
                   std::to_string(encrypt));
      std::vector<uint64_t> offsets{0};
      for (size_t i = 0; i < kItems; ++i) {
        size_t len = rng_() % 2001;
        if (!ctr && i % 7 != 3) len &= ~size_t(15);  // 1 in 7 ECB items not whole blocks
        offsets.push_back(offsets.back() + len);
      }
      const size_t total = offsets.back();
      const Bytes tks = random(KS_SKINNY_TWEAKEY_BYTES * kItems), ivs = random(16 * kItems);
      const Bytes data = random(total);
      Bytes want(total, 0xA5);
      std::vector<int> want_status(kItems, 99);
      ks_skinny128_256_batch(cpu_ctx_.ctx, mode, encrypt, tks.data(), ctr ? ivs.data() : nullptr,
                             data.data(), total, offsets.data(), kItems, want.data(), total,
                             want_status.data());
      std::vector<uint64_t> damaged = offsets;
      std::vector<bool> bad(kItems, false);
      for (size_t k = 11; k < kItems; k += 997) {  // items k - 1 (ends past) and k (descends)
        damaged[k] = total + 1 + rng_() % 50;
        bad[k - 1] = bad[k] = true;
      }
      const DeviceBytes d_tks(tks), d_ivs(ivs), d_offsets(damaged), late(data);
      DeviceBytes d_data(total + 16), d_out(total + 16), after(total + 16),
          status(sizeof(int) * kItems);
      const Bytes fill(total, 0xA5);
      ASSERT_TRUE(d_out.upload(fill.data(), total));
      uint8_t* out = in_place ? d_data.get() : d_out.get();
      if (in_place) {
        ASSERT_TRUE(d_data.upload(fill.data(), total));  // until `late` arrives
      }
      const int rc = ks::testing::run_between(
          gpu_ctx_.ctx, d_data.get(), late.get(), total,
          [&] {
            return ks_skinny128_256_batch(gpu_ctx_.ctx, mode, encrypt, d_tks.get(),
                                          ctr ? d_ivs.get() : nullptr, d_data.get(), total,
                                          d_offsets.as<const uint64_t>(), kItems, out, total,
                                          status.as<int>());
          },
          after.get(), out, total);
      ASSERT_EQ(rc, KS_OK);
      const std::vector<int> got = status.download_as<int>(kItems);
      const Bytes result = after.download(total);
      for (size_t i = 0; i < kItems; ++i) {
        const int expect = bad[i] ? KS_ERR_OFFSETS : want_status[i];
        ASSERT_EQ(got[i], expect) << "item " << i;
        const size_t at = offsets[i], len = offsets[i + 1] - offsets[i];
        // A failed item is not written: the CPU's fill, or (in place) the input.
        const Bytes& unwritten = in_place ? data : fill;
        const Bytes& expected_bytes = expect == KS_OK ? want : unwritten;
        ASSERT_TRUE(std::equal(result.begin() + at, result.begin() + at + len,
                               expected_bytes.begin() + at))
            << "item " << i;
      }
    }
  }
}

}  // namespace
