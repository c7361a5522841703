// SM4 on data already in device memory (kuaisuo/common.h, "Device
// memory"): ks_sm4_crypt_buffer (ECB both ways, CTR) and
// ks_sm4_gcm_seal_buffer / _open_buffer with device pointers on a GPU
// context, byte for byte against a CPU context on fresh random inputs
// (1 byte to 1 GiB, both kernels, in place too), on the default stream and
// on a user stream with work queued before and after the call; managed
// memory; GCM's wrong tag writing nothing; mixed host and device
// arguments, misaligned device buffers and device AAD refused. Keys and
// data come from a std::random_device seed printed on failure. Skipped
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

class Sm4Device : public ks_test::GpuAgainstCpu {
 protected:
  Sm4Device() : GpuAgainstCpu(2, 4) {}
  void SetUp() override {
    GpuAgainstCpu::SetUp();
    gpu_ = gpu_ctx_.ctx;
    cpu_ = cpu_ctx_.ctx;
  }

  // ECB or CTR of `plain` on the device (in place or not) and on the CPU.
  void check_crypt(int mode, int encrypt, uint32_t flags, size_t len, bool in_place) {
    SCOPED_TRACE(trace_ + ", mode " + std::to_string(mode) + ", len " + std::to_string(len));
    const Bytes key = random(16), iv = random(16), in = random(len);
    Bytes want(len);
    const uint8_t* ivp = mode == KS_SM4_CTR ? iv.data() : nullptr;
    const size_t iv_len = mode == KS_SM4_CTR ? 16 : 0;
    ASSERT_EQ(ks_sm4_crypt_buffer(cpu_, mode, encrypt, 0, key.data(), ivp, iv_len, in.data(), len,
                                  want.data()),
              KS_OK);
    DeviceBytes d_in(len), d_out(len);
    ASSERT_TRUE(d_in.ok() && d_out.ok());
    ASSERT_TRUE(d_in.upload(in.data(), len));
    uint8_t* out = in_place ? d_in.get() : d_out.get();
    ASSERT_EQ(ks_sm4_crypt_buffer(gpu_, mode, encrypt, flags, key.data(), ivp, iv_len, d_in.get(),
                                  len, out),
              KS_OK);
    ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    ASSERT_EQ((in_place ? d_in : d_out).download(len), want);
  }

  ks_ctx* gpu_ = nullptr;
  ks_ctx* cpu_ = nullptr;
};

TEST_F(Sm4Device, CtrAndEcbMatchTheCpuFromOneByteToSixtyFourMiB) {
  for (uint32_t flags : {0u, uint32_t(KS_SM4_GPU_TABLES)})
    for (size_t len : {size_t(1), size_t(15), size_t(16), size_t(17), size_t(1000),
                       size_t(16 * 1024 + 5), size_t(1) << 20, (size_t(64) << 20) + 7}) {
      check_crypt(KS_SM4_CTR, KS_ENCRYPT, flags, len, false);
      check_crypt(KS_SM4_CTR, KS_DECRYPT, flags, len, len % 2 == 0);
      const size_t whole = len / 16 * 16;
      check_crypt(KS_SM4_ECB, KS_ENCRYPT, flags, whole, false);
      check_crypt(KS_SM4_ECB, KS_DECRYPT, flags, whole, true);
    }
}

TEST_F(Sm4Device, OneGiBInPlace) {
  check_crypt(KS_SM4_CTR, KS_ENCRYPT, 0, size_t(1) << 30, true);
}

TEST_F(Sm4Device, EmptyBufferIsAQueuedNothing) {
  DeviceBytes d(16);
  const Bytes key = random(16), iv = random(16);
  EXPECT_EQ(ks_sm4_crypt_buffer(gpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                d.get(), 0, d.get()),
            KS_OK);
}

// Work queued before the call (a kernel that writes the input late) and
// after it (a copy of the output) on the context's stream.
TEST_F(Sm4Device, RunsInOrderOnTheContextsStream) {
  void* stream = ks::testing::stream_create();
  ASSERT_NE(stream, nullptr);
  ASSERT_EQ(ks_ctx_set_stream(gpu_, stream), KS_OK);
  EXPECT_EQ(ks_ctx_stream(gpu_), stream);
  const size_t len = (size_t(4) << 20) + 9;
  const Bytes key = random(16), iv = random(16), in = random(len);
  Bytes want(len);
  ASSERT_EQ(ks_sm4_crypt_buffer(cpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                in.data(), len, want.data()),
            KS_OK);
  DeviceBytes staged(len), d_in(len), d_out(len), after(len);
  ASSERT_TRUE(staged.upload(in.data(), len));
  ASSERT_TRUE(d_in.upload(random(len).data(), len));  // overwritten before the call runs
  ASSERT_TRUE(ks::testing::spin_then_copy(stream, d_in.get(), staged.get(), len, 20000));
  ASSERT_EQ(ks_sm4_crypt_buffer(gpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                d_in.get(), len, d_out.get()),
            KS_OK);
  ASSERT_TRUE(ks::testing::copy_async(stream, after.get(), d_out.get(), len));
  ASSERT_TRUE(ks::testing::stream_sync(stream));
  EXPECT_EQ(after.download(len), want);
  ASSERT_EQ(ks_ctx_set_stream(gpu_, nullptr), KS_OK);
  ks::testing::stream_destroy(stream);
}

TEST_F(Sm4Device, ManagedMemoryRunsOnTheDevice) {
  const size_t len = 100000;
  const Bytes key = random(16), iv = random(16), in = random(len);
  Bytes want(len);
  ASSERT_EQ(ks_sm4_crypt_buffer(cpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                in.data(), len, want.data()),
            KS_OK);
  DeviceBytes m(len, true);
  ASSERT_TRUE(m.ok());
  memcpy(m.get(), in.data(), len);
  ASSERT_EQ(ks_sm4_crypt_buffer(gpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                m.get(), len, m.get()),
            KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  EXPECT_EQ(Bytes(m.get(), m.get() + len), want);
}

TEST_F(Sm4Device, MixedAndMisalignedBuffersAreRefusedAndNothingIsWritten) {
  const size_t len = 4096;
  const Bytes key = random(16), iv = random(16), in = random(len);
  DeviceBytes d(len + 16);
  ASSERT_TRUE(d.upload(in.data(), len));
  Bytes host(len, 0x5a);
  EXPECT_EQ(ks_sm4_crypt_buffer(gpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                d.get(), len, host.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host, Bytes(len, 0x5a));
  EXPECT_EQ(ks_sm4_crypt_buffer(gpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                in.data(), len, d.get()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm4_crypt_buffer(gpu_, KS_SM4_CTR, KS_ENCRYPT, 0, key.data(), iv.data(), 16,
                                d.get() + 1, len, d.get() + 1),
            KS_ERR_ALIGNMENT);
  EXPECT_EQ(d.download(len), in);
  EXPECT_NE(std::string(ks_strerror(KS_ERR_MEMORY_MIX)).find("mixed"), std::string::npos);
}

TEST_F(Sm4Device, GcmSealAndOpenMatchTheCpu) {
  for (uint32_t flags : {0u, uint32_t(KS_SM4_GPU_TABLES)})
    for (size_t len : {size_t(0), size_t(1), size_t(31), size_t(4096), (size_t(3) << 20) + 5})
      for (size_t tag_len : {size_t(16), size_t(12), size_t(4)}) {
        SCOPED_TRACE(trace_ + ", len " + std::to_string(len) + ", tag " +
                     std::to_string(tag_len));
        const Bytes key = random(16), iv = random(12), aad = random(len % 40), in = random(len);
        Bytes want(len), want_tag(tag_len);
        ASSERT_EQ(ks_sm4_gcm_seal(key.data(), iv.data(), 12, aad.data(), aad.size(), in.data(),
                                  len, want.data(), want_tag.data(), tag_len),
                  KS_OK);
        DeviceBytes d_in(len), d_out(len), d_tag(tag_len), d_back(len);
        ASSERT_TRUE(d_in.upload(in.data(), len));
        ASSERT_EQ(ks_sm4_gcm_seal_buffer(gpu_, flags, key.data(), iv.data(), 12, aad.data(),
                                         aad.size(), d_in.get(), len, d_out.get(), d_tag.get(),
                                         tag_len),
                  KS_OK);
        ASSERT_TRUE(ks::testing::stream_sync(nullptr));
        ASSERT_EQ(d_out.download(len), want);
        ASSERT_EQ(d_tag.download(tag_len), want_tag);
        ASSERT_EQ(ks_sm4_gcm_open_buffer(gpu_, flags, key.data(), iv.data(), 12, aad.data(),
                                         aad.size(), d_out.get(), len, d_tag.get(), tag_len,
                                         d_back.get()),
                  KS_OK);
        ASSERT_EQ(d_back.download(len), in);
        // A wrong tag: refused, and the output keeps what it held.
        Bytes bad = want_tag;
        bad[rng_() % tag_len] ^= uint8_t(1 + rng_() % 255);
        ASSERT_TRUE(d_tag.upload(bad.data(), tag_len));
        const Bytes before = random(len);
        ASSERT_TRUE(d_back.upload(before.data(), len));
        ASSERT_EQ(ks_sm4_gcm_open_buffer(gpu_, flags, key.data(), iv.data(), 12, aad.data(),
                                         aad.size(), d_out.get(), len, d_tag.get(), tag_len,
                                         d_back.get()),
                  KS_ERR_TAG_MISMATCH);
        ASSERT_EQ(d_back.download(len), before);
      }
}

TEST_F(Sm4Device, GcmRefusesDeviceAadMixedTagsAndLongIvs) {
  const size_t len = 256;
  const Bytes key = random(16), iv = random(16), in = random(len);
  DeviceBytes d_in(len), d_out(len), d_tag(16), d_aad(16);
  ASSERT_TRUE(d_in.upload(in.data(), len));
  uint8_t host_tag[16];
  EXPECT_EQ(ks_sm4_gcm_seal_buffer(gpu_, 0, key.data(), iv.data(), 12, d_aad.get(), 16,
                                   d_in.get(), len, d_out.get(), d_tag.get(), 16),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm4_gcm_seal_buffer(gpu_, 0, key.data(), iv.data(), 12, nullptr, 0, d_in.get(),
                                   len, d_out.get(), host_tag, 16),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm4_gcm_seal_buffer(gpu_, 0, key.data(), iv.data(), 16, nullptr, 0, d_in.get(),
                                   len, d_out.get(), d_tag.get(), 16),
            KS_ERR_UNSUPPORTED);
}

}  // namespace
