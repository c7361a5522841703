// SKINNY-128-256 on data already in device memory (kuaisuo/common.h,
// "Device memory"): ks_skinny128_256_crypt_buffer (CTR both ways, ECB
// encryption) with device pointers on a GPU context, byte for byte
// against a CPU context on fresh random inputs from 1 byte to 64 MiB, in
// place too, and on a user stream with work queued before and after it;
// ECB decryption (no GPU kernel) and mixed arguments refused. Skipped
// where no GPU is present.
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
      const size_t n = mode == KS_SKINNY_ECB ? len / 16 * 16 : len;
      SCOPED_TRACE(trace_ + ", mode " + std::to_string(mode) + ", len " + std::to_string(n));
      const Bytes tk = random(KS_SKINNY_TWEAKEY_BYTES), iv = random(16), in = random(n);
      const Bytes want = expected(mode, KS_ENCRYPT, tk, iv, in);
      DeviceBytes d_in(n), d_out(n);
      ASSERT_TRUE(d_in.upload(in.data(), n));
      const bool in_place = n % 2 == 1;
      uint8_t* out = in_place ? d_in.get() : d_out.get();
      const bool ctr = mode == KS_SKINNY_CTR;
      ASSERT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx_.ctx, mode, KS_ENCRYPT, tk.data(),
                                              ctr ? iv.data() : nullptr, ctr ? 16 : 0,
                                              d_in.get(), n, out),
                KS_OK);
      ASSERT_TRUE(ks::testing::stream_sync(nullptr));
      ASSERT_EQ((in_place ? d_in : d_out).download(n), want);
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

TEST_F(SkinnyDevice, EcbDecryptionAndMixedArgumentsAreRefused) {
  const Bytes tk = random(KS_SKINNY_TWEAKEY_BYTES), iv = random(16), in = random(64);
  DeviceBytes d(64);
  ASSERT_TRUE(d.upload(in.data(), 64));
  EXPECT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx_.ctx, KS_SKINNY_ECB, KS_DECRYPT, tk.data(),
                                          nullptr, 0, d.get(), 64, d.get()),
            KS_ERR_UNSUPPORTED);
  Bytes host(64, 7);
  EXPECT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx_.ctx, KS_SKINNY_CTR, KS_ENCRYPT, tk.data(),
                                          iv.data(), 16, d.get(), 64, host.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host, Bytes(64, 7));
  EXPECT_EQ(d.download(64), in);
  // The batch call has no device path yet: device memory is refused, not
  // read on the host.
  const std::vector<uint64_t> offsets = {0, 32, 64};
  const DeviceBytes d_offsets(offsets);
  DeviceBytes out(64), status(2 * sizeof(int));
  const Bytes tks = random(2 * KS_SKINNY_TWEAKEY_BYTES);
  EXPECT_EQ(ks_skinny128_256_batch(gpu_ctx_.ctx, KS_SKINNY_ECB, KS_ENCRYPT, tks.data(), nullptr,
                                   d.get(), 64, d_offsets.as<const uint64_t>(), 2, out.get(), 64,
                                   status.as<int>()),
            KS_ERR_UNSUPPORTED);
}

}  // namespace
