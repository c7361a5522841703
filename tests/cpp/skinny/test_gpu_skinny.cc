// SKINNY-128-256 on the GPU (skinny/gpu/skinny_gpu.h) against the CPU (the
// oracle: ks::skinny), for each kernel (bitsliced, circuit, T-tables in
// constant and in shared memory): the paper's vector, >= 1,000,000 fresh random blocks per
// kernel in ECB and CTR, lengths of 1..40 blocks, counters carrying across
// 2^64 and wrapping at 2^128, in place; then ks_skinny128_256_crypt_buffer
// on a GPU context against the one-shot CPU call. Skipped where no GPU is
// present.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "cipher/modes.h"
#include "skinny/skinny128_256.h"
#include "skinny/gpu/skinny_gpu.h"
#include "testing/skinny_gpu_testing.h"
#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
namespace gpu = ks::skinny::gpu;

constexpr size_t kManyBlocks = (size_t(1) << 20) + 77;

// The GPU's output for in (ECB, or CTR from counter), in place or not.
Bytes on_gpu(gpu::Kernel k, const ks::skinny::Key& key, const uint8_t* counter, const Bytes& in,
             bool in_place) {
  Bytes out = in_place ? in : Bytes(in.size());
  EXPECT_EQ(gpu::run_crypt(k, key.rtk, counter, in_place ? out.data() : in.data(), out.data(),
                           in.size() / 16),
            0);
  return out;
}

class GpuSkinny : public ::testing::TestWithParam<gpu::Kernel> {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = std::random_device{}() * 0x100000000ull + std::random_device{}();
    rng_.seed(seed);
    trace_ = std::string(gpu::kernel_name(GetParam())) + ", seed " + std::to_string(seed);
  }
  ks::skinny::Key random_key() {
    const Bytes tk = ks_test::random_bytes(rng_, 32);
    ks::skinny::Key k;
    ks::skinny::set_key(&k, tk.data());
    return k;
  }
  // ECB and CTR (from counter0) of n random blocks, GPU against CPU.
  void check(size_t n, const Bytes& counter0, bool in_place) {
    const ks::skinny::Key k = random_key();
    const Bytes data = ks_test::random_bytes(rng_, 16 * n);
    Bytes ecb(data.size()), ctr(data.size()), counter = counter0;
    ks::skinny::encrypt_blocks(k, data.data(), ecb.data(), n);
    ks::skinny::ctr_blocks(k, counter.data(), data.data(), ctr.data(), n);
    EXPECT_EQ(on_gpu(GetParam(), k, nullptr, data, in_place), ecb) << trace_ << ", ECB, " << n;
    EXPECT_EQ(on_gpu(GetParam(), k, counter0.data(), data, in_place), ctr)
        << trace_ << ", CTR, " << n;
  }
  std::mt19937_64 rng_;
  std::string trace_;
};

TEST_P(GpuSkinny, PaperVector) {
  const Bytes tk = ks_test::from_hex("009CEC81605D4AC1D2AE9E3085D7A1F31AC123EBFC00FDDCF01046CEEDDFCAB3");
  ks::skinny::Key k;
  ks::skinny::set_key(&k, tk.data());
  const Bytes ct = on_gpu(GetParam(), k, nullptr, ks_test::from_hex("3A0C47767A26A68DD382A695E7022E25"), false);
  EXPECT_EQ(ks_test::to_hex(ct.data(), 16), "B731D98A4BDE147A7ED4A6F16B9B587F");
}

TEST_P(GpuSkinny, MillionRandomBlocks) { check(kManyBlocks, ks_test::random_bytes(rng_, 16), false); }

TEST_P(GpuSkinny, EveryShortLengthInPlace) {
  for (size_t n = 1; n <= 40; ++n) check(n, ks_test::random_bytes(rng_, 16), true);
}

TEST_P(GpuSkinny, CountersCarryAndWrap) {
  check(1000, ks_test::from_hex("0123456789ABCDEFFFFFFFFFFFFFFF00"), false);
  check(1000, ks_test::from_hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00"), false);
}

// ks_skinny128_256_crypt_buffer on a GPU context (several pipeline chunks,
// a partial CTR block, ordinary and pinned caller buffers, in place and
// not; decryption too, ECB's by the inverse rounds) against the one-shot
// CPU call; and on an AUTO context around the crossover.
TEST(GpuSkinnyApi, CryptBufferMatchesTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), auto_ctx(KS_BACKEND_AUTO);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(auto_ctx.rc, KS_OK);
  const Bytes tweakey = ks_test::random_bytes(32);
  Bytes iv = ks_test::random_bytes(16);
  memset(iv.data() + 8, 0xff, 8);  // the low 64 bits carry inside the first chunk
  for (size_t len : {size_t(0), size_t(15), size_t(16), (size_t(1) << 20) - 16,
                     (size_t(20) << 20) + 7}) {
    const Bytes in = ks_test::random_bytes(len);
    for (int mode : {KS_SKINNY_ECB, KS_SKINNY_CTR}) {
      if (mode == KS_SKINNY_ECB && len % 16 != 0) continue;
      const uint8_t* ivp = mode == KS_SKINNY_ECB ? nullptr : iv.data();
      const size_t iv_len = mode == KS_SKINNY_ECB ? 0 : 16;
      Bytes want(len + 1);
      ASSERT_EQ(ks_skinny128_256_crypt(mode, 1, tweakey.data(), ivp, iv_len, in.data(), len,
                                       want.data()), KS_OK);
      for (ks_ctx* ctx : {gpu_ctx.ctx, auto_ctx.ctx}) {
        for (bool pinned : {false, true}) {
          ks_test::CallerBuffer caller(len + 1, pinned), other(len + 1, pinned);
          ASSERT_EQ(caller.rc, KS_OK);
          uint8_t* buf = caller.data();
          memcpy(buf, in.data(), len);
          ASSERT_EQ(ks_skinny128_256_crypt_buffer(ctx, mode, 1, tweakey.data(), ivp, iv_len, buf,
                                                  len, other.data()), KS_OK);
          EXPECT_EQ(memcmp(other.data(), want.data(), len), 0)
              << "mode " << mode << " pinned " << pinned << " len " << len;
          ASSERT_EQ(ks_skinny128_256_crypt_buffer(ctx, mode, 0, tweakey.data(), ivp, iv_len,
                                                  other.data(), len, other.data()), KS_OK);
          EXPECT_EQ(memcmp(other.data(), in.data(), len), 0) << "decrypted in place, mode " << mode;
        }
      }
    }
  }
}

// A gibibyte and 9 bytes (CTR) and a gibibyte (ECB) on a GPU context,
// byte for byte the CPU context's answer on every host thread.
TEST(GpuSkinnyApi, GibibyteBufferMatchesTheCpuThreads) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), cpu_ctx(KS_BACKEND_CPU, 16);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(cpu_ctx.rc, KS_OK);
  const Bytes tweakey = ks_test::random_bytes(32), iv = ks_test::random_bytes(16);
  const size_t len = (size_t(1) << 30) + 9;
  const Bytes in = ks_test::random_bytes(len);
  Bytes on_gpu(len), on_cpu(len);
  for (int mode : {KS_SKINNY_CTR, KS_SKINNY_ECB}) {
    const size_t n = mode == KS_SKINNY_ECB ? len - 9 : len;
    const uint8_t* ivp = mode == KS_SKINNY_ECB ? nullptr : iv.data();
    const size_t iv_len = mode == KS_SKINNY_ECB ? 0 : 16;
    ASSERT_EQ(ks_skinny128_256_crypt_buffer(gpu_ctx.ctx, mode, 1, tweakey.data(), ivp, iv_len,
                                            in.data(), n, on_gpu.data()), KS_OK);
    ASSERT_EQ(ks_skinny128_256_crypt_buffer(cpu_ctx.ctx, mode, 1, tweakey.data(), ivp, iv_len,
                                            in.data(), n, on_cpu.data()), KS_OK);
    EXPECT_EQ(memcmp(on_gpu.data(), on_cpu.data(), n), 0) << "mode " << mode;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuSkinny,
                         ::testing::Values(gpu::Kernel::kBitsliced, gpu::Kernel::kCircuit, gpu::Kernel::kTablesConstant,
                                           gpu::Kernel::kTablesShared,
                                           gpu::Kernel::kTablesReplicated),
                         [](const ::testing::TestParamInfo<gpu::Kernel>& i) {
                           std::string n = gpu::kernel_name(i.param);
                           for (char& ch : n) ch = ch == '-' ? '_' : ch;
                           return n;
                         });

}  // namespace
