// SM4 on the GPU (sm4/gpu/sm4_gpu.h) against the CPU (the oracle:
// ks::sm4 and ks::gcm), for both kernels (T-table and bitsliced): the
// GB/T 32907-2016 example, >= 1,000,000 fresh random blocks per kernel and
// mode (ECB both ways, CTR, GCM), every length of 1..33 blocks and the
// kernels' tile edges, CTR counters carrying across 2^32, 2^64 and 2^128,
// in-place operation, and GCM (RFC 8998's example, AAD empty or not, texts
// of any length, a wrong tag releasing nothing), and 1 GiB buffers through a
// GPU context in ECB, CTR and GCM. Keys and data come from a
// std::random_device seed printed on failure. Skipped where no GPU is present.
#include <gtest/gtest.h>
#include <string.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cipher/gcm.h"
#include "sm4/sm4.h"
#include "sm4/gpu/sm4_gpu.h"
#include "testing/sm4_gpu_testing.h"
#include "kuaisuo.h"
#include "sm4_gcm_vectors.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
namespace gpu = ks::sm4::gpu;

constexpr size_t kManyBlocks = (size_t(1) << 20) + 77;  // > 1,000,000, not a whole tile

class GpuSm4 : public ::testing::TestWithParam<gpu::Kernel> {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = std::random_device{}() * 0x100000000ull + std::random_device{}();
    rng_.seed(seed);
    trace_ = "seed " + std::to_string(seed);
  }
  void new_key() {
    const Bytes k = ks_test::random_bytes(rng_, 16);
    ks::sm4::set_key(&key_, k.data());
  }
  Bytes random(size_t n) { return ks_test::random_bytes(rng_, n); }
  gpu::Kernel kernel() const { return GetParam(); }

  std::mt19937_64 rng_;
  std::string trace_;
  ks::sm4::Key key_;
};

std::string name_of(const ::testing::TestParamInfo<gpu::Kernel>& info) {
  return gpu::kernel_name(info.param);
}

// GB/T 32907-2016 appendix A, example 1: key = plaintext.
TEST_P(GpuSm4, StandardExample) {
  const Bytes key = ks_test::from_hex("0123456789abcdeffedcba9876543210");
  ks::sm4::set_key(&key_, key.data());
  Bytes block(16);
  ASSERT_EQ(gpu::run_ecb(kernel(), key_.enc, key.data(), block.data(), 1), 0);
  EXPECT_EQ(block, ks_test::from_hex("681edf34d206965e86b3e94f536e4246"));
  ASSERT_EQ(gpu::run_ecb(kernel(), key_.dec, block.data(), block.data(), 1), 0);
  EXPECT_EQ(block, key);
}

// ECB both ways, then CTR, on > 2^20 random blocks under a fresh key.
TEST_P(GpuSm4, ManyBlocksMatchTheCpu) {
  SCOPED_TRACE(trace_);
  new_key();
  const Bytes in = random(16 * kManyBlocks);
  Bytes want(in.size()), got(in.size());
  ks::sm4::encrypt_blocks(key_, in.data(), want.data(), kManyBlocks);
  ASSERT_EQ(gpu::run_ecb(kernel(), key_.enc, in.data(), got.data(), kManyBlocks), 0);
  ASSERT_EQ(got, want) << "ECB encryption";
  ks::sm4::decrypt_blocks(key_, in.data(), want.data(), kManyBlocks);
  ASSERT_EQ(gpu::run_ecb(kernel(), key_.dec, in.data(), got.data(), kManyBlocks), 0);
  ASSERT_EQ(got, want) << "ECB decryption";
  Bytes cpu_ctr = random(16), gpu_ctr = cpu_ctr;
  ks::sm4::ctr_blocks(key_, cpu_ctr.data(), in.data(), want.data(), kManyBlocks);
  ASSERT_EQ(gpu::run_ctr(kernel(), key_.enc, gpu_ctr.data(), in.data(), got.data(), kManyBlocks),
            0);
  ASSERT_EQ(got, want) << "CTR";
  EXPECT_EQ(gpu_ctr, cpu_ctr) << "the counter advances by the block count";
}

// Every short length, and lengths around the tiles (T-table: 512 blocks
// per CUDA block step; bitsliced: 1024 per warp).
TEST_P(GpuSm4, TailsMatchTheCpu) {
  SCOPED_TRACE(trace_);
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 33; ++n) lengths.push_back(n);
  for (size_t n : {511, 512, 513, 1023, 1024, 1025, 2047, 4097, 131073}) lengths.push_back(n);
  for (size_t n : lengths) {
    SCOPED_TRACE("blocks " + std::to_string(n));
    new_key();
    const Bytes in = random(16 * n);
    Bytes want(in.size()), got(in.size());
    ks::sm4::encrypt_blocks(key_, in.data(), want.data(), n);
    ASSERT_EQ(gpu::run_ecb(kernel(), key_.enc, in.data(), got.data(), n), 0);
    ASSERT_EQ(got, want);
    Bytes cpu_ctr = random(16), gpu_ctr = cpu_ctr;
    ks::sm4::ctr_blocks(key_, cpu_ctr.data(), in.data(), want.data(), n);
    ASSERT_EQ(gpu::run_ctr(kernel(), key_.enc, gpu_ctr.data(), in.data(), got.data(), n), 0);
    ASSERT_EQ(got, want);
    ASSERT_EQ(gpu_ctr, cpu_ctr);
  }
}

// Counters whose low 32, 64 or all 128 bits wrap inside the run (the
// 128-bit counter carries into the upper words; 2^128 wraps to 0).
TEST_P(GpuSm4, CounterCarries) {
  SCOPED_TRACE(trace_);
  new_key();
  const size_t n = 3000;
  const Bytes in = random(16 * n);
  for (int ones : {4, 8, 16}) {  // trailing 0xff bytes: wraps at 2^32, 2^64, 2^128
    for (unsigned back : {1u, 5u, 1500u}) {
      SCOPED_TRACE("ff bytes " + std::to_string(ones) + ", blocks before the wrap " +
                   std::to_string(back));
      // Low `ones` bytes = 2^(8 ones) - back: all-ones minus back - 1.
      Bytes counter = random(16);
      memset(counter.data() + 16 - ones, 0xff, ones);
      counter[15] = uint8_t(0xff - ((back - 1) & 0xff));
      counter[14] = uint8_t(0xff - ((back - 1) >> 8));
      Bytes cpu_ctr = counter, gpu_ctr = counter, want(in.size()), got(in.size());
      ks::sm4::ctr_blocks(key_, cpu_ctr.data(), in.data(), want.data(), n);
      ASSERT_EQ(gpu::run_ctr(kernel(), key_.enc, gpu_ctr.data(), in.data(), got.data(), n), 0);
      ASSERT_EQ(got, want);
      ASSERT_EQ(gpu_ctr, cpu_ctr);
    }
  }
}

// in == out: one device buffer, overwritten as it is read.
TEST_P(GpuSm4, InPlace) {
  SCOPED_TRACE(trace_);
  new_key();
  const size_t n = 40000;
  const Bytes in = random(16 * n);
  Bytes want(in.size()), buf = in;
  ks::sm4::encrypt_blocks(key_, in.data(), want.data(), n);
  ASSERT_EQ(gpu::run_ecb(kernel(), key_.enc, buf.data(), buf.data(), n), 0);
  ASSERT_EQ(buf, want);
  Bytes counter = random(16), gpu_ctr = counter;
  buf = in;
  ks::sm4::ctr_blocks(key_, counter.data(), in.data(), want.data(), n);
  ASSERT_EQ(gpu::run_ctr(kernel(), key_.enc, gpu_ctr.data(), buf.data(), buf.data(), n), 0);
  ASSERT_EQ(buf, want);
  const Bytes iv = random(12), aad = random(21);
  Bytes tag(16), cpu_tag(16);
  buf = in;
  ASSERT_TRUE(ks::gcm::seal(ks::sm4::block_cipher(), &key_, iv.data(), 12, aad.data(), aad.size(),
                            in.data(), in.size() - 3, want.data(), cpu_tag.data(), 16));
  ASSERT_EQ(gpu::gcm_seal_host(kernel(), key_.enc, iv.data(), aad.data(), aad.size(), buf.data(),
                               buf.size() - 3, buf.data(), tag.data()),
            0);
  ASSERT_TRUE(std::equal(want.begin(), want.end() - 3, buf.begin()));
  ASSERT_EQ(tag, cpu_tag);
  bool ok = false;
  ASSERT_EQ(gpu::gcm_open_host(kernel(), key_.enc, iv.data(), aad.data(), aad.size(), buf.data(),
                               buf.size() - 3, tag.data(), 16, buf.data(), &ok),
            0);
  ASSERT_TRUE(ok);
  ASSERT_TRUE(std::equal(in.begin(), in.end() - 3, buf.begin()));
}

// RFC 8998 appendix A.1 (SM4-GCM).
TEST_P(GpuSm4, GcmRfc8998Example) {
  const ks_test::GcmExample ex = ks_test::rfc8998_example();
  const Bytes &key = ex.key, &iv = ex.iv, &aad = ex.aad, &pt = ex.pt, &ct = ex.ct, &tag = ex.tag;
  ks::sm4::set_key(&key_, key.data());
  Bytes out(pt.size()), t(16);
  ASSERT_EQ(gpu::gcm_seal_host(kernel(), key_.enc, iv.data(), aad.data(), aad.size(), pt.data(),
                               pt.size(), out.data(), t.data()),
            0);
  EXPECT_EQ(out, ct);
  EXPECT_EQ(t, tag);
  Bytes back(pt.size());
  bool ok = false;
  ASSERT_EQ(gpu::gcm_open_host(kernel(), key_.enc, iv.data(), aad.data(), aad.size(), ct.data(),
                               ct.size(), tag.data(), 16, back.data(), &ok),
            0);
  EXPECT_TRUE(ok);
  EXPECT_EQ(back, pt);
}

// Random keys, IVs, AAD and text lengths (0, partial blocks, > 2^20
// blocks: the large-chunk GHASH path and several fold levels), seal against
// the CPU's GCM, open of the result, and a tag with one bit flipped (and a
// short tag) that must release nothing.
TEST_P(GpuSm4, GcmMatchesTheCpu) {
  SCOPED_TRACE(trace_);
  const size_t lengths[] = {0,    1,     15,    16,     17,         31,
                            255,  4103,  65536, 524289, 16 * kManyBlocks + 9};
  const size_t aad_lengths[] = {0, 13, 16, 100};
  for (size_t len : lengths) {
    for (size_t aad_len : aad_lengths) {
      if (len > 65536 && aad_len != 13) continue;  // the big ones once
      SCOPED_TRACE("text " + std::to_string(len) + " aad " + std::to_string(aad_len));
      new_key();
      const Bytes pt = random(len), iv = random(12), aad = random(aad_len);
      Bytes want(len), got(len), want_tag(16), tag(16);
      ASSERT_TRUE(ks::gcm::seal(ks::sm4::block_cipher(), &key_, iv.data(), 12, aad.data(),
                                aad_len, pt.data(), len, want.data(), want_tag.data(), 16));
      ASSERT_EQ(gpu::gcm_seal_host(kernel(), key_.enc, iv.data(), aad.data(), aad_len, pt.data(),
                                   len, got.data(), tag.data()),
                0);
      ASSERT_EQ(got, want) << "ciphertext";
      ASSERT_EQ(tag, want_tag) << "tag";
      Bytes back(len);
      bool ok = false;
      ASSERT_EQ(gpu::gcm_open_host(kernel(), key_.enc, iv.data(), aad.data(), aad_len, got.data(),
                                   len, tag.data(), 12, back.data(), &ok),
                0);
      ASSERT_TRUE(ok);
      ASSERT_EQ(back, pt);
      Bytes bad = tag;
      bad[rng_() % 16] ^= uint8_t(1u << (rng_() % 8));
      Bytes untouched(len, 0x5a);
      ASSERT_EQ(gpu::gcm_open_host(kernel(), key_.enc, iv.data(), aad.data(), aad_len, got.data(),
                                   len, bad.data(), 16, untouched.data(), &ok),
                0);
      EXPECT_FALSE(ok);
      EXPECT_EQ(untouched, Bytes(len, 0x5a)) << "plaintext released under a wrong tag";
    }
  }
}

// ks_sm4_crypt_buffer on a GPU context (both kernels, several pipeline
// chunks, a partial CTR block, ordinary and pinned caller buffers, in
// place) against a CPU context.
TEST(GpuSm4Api, CryptBufferMatchesTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), cpu_ctx(KS_BACKEND_CPU, 4);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(cpu_ctx.rc, KS_OK);
  const Bytes key = ks_test::random_bytes(16);
  Bytes iv = ks_test::random_bytes(16);
  memset(iv.data() + 12, 0xff, 4);  // the low 32 bits carry inside the first chunk
  for (size_t len : {size_t(16), size_t(1) << 20, (size_t(33) << 20) + 5}) {
    const Bytes in = ks_test::random_bytes(len);
    for (int mode : {KS_SM4_ECB, KS_SM4_CTR}) {
      if (mode == KS_SM4_ECB && len % 16 != 0) continue;
      const uint8_t* ivp = mode == KS_SM4_ECB ? nullptr : iv.data();
      const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
      Bytes want(len);
      ASSERT_EQ(ks_sm4_crypt_buffer(cpu_ctx.ctx, mode, 1, 0, key.data(), ivp, iv_len, in.data(),
                                    len, want.data()), KS_OK);
      for (uint32_t flags : {0u, uint32_t(KS_SM4_GPU_TABLES)}) {
        for (bool pinned : {false, true}) {
          ks_test::CallerBuffer caller(len, pinned);
          ASSERT_EQ(caller.rc, KS_OK);
          uint8_t* buf = caller.data();
          memcpy(buf, in.data(), len);
          ASSERT_EQ(ks_sm4_crypt_buffer(gpu_ctx.ctx, mode, 1, flags, key.data(), ivp, iv_len, buf,
                                        len, buf), KS_OK);  // in place
          EXPECT_EQ(memcmp(buf, want.data(), len), 0)
              << "mode " << mode << " flags " << flags << " pinned " << pinned << " len " << len;
          ASSERT_EQ(ks_sm4_crypt_buffer(gpu_ctx.ctx, mode, 0, flags, key.data(), ivp, iv_len, buf,
                                        len, buf), KS_OK);
          EXPECT_EQ(memcmp(buf, in.data(), len), 0) << "decrypted, mode " << mode;
        }
      }
    }
  }
}

// GCM over one buffer on a GPU context (both kernels, pinned and ordinary
// memory): the CPU's ciphertext and tag; a wrong tag releases nothing.
TEST(GpuSm4Api, GcmBufferMatchesTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  const Bytes key = ks_test::random_bytes(16), iv = ks_test::random_bytes(12),
              aad = ks_test::random_bytes(33);
  for (size_t len : {size_t(0), size_t(1), size_t(4097), (size_t(5) << 20) + 3}) {
    const Bytes in = ks_test::random_bytes(len);
    Bytes want(len + 1);
    uint8_t want_tag[16];
    ASSERT_EQ(ks_sm4_gcm_seal(key.data(), iv.data(), 12, aad.data(), aad.size(), in.data(), len,
                              want.data(), want_tag, 16), KS_OK);
    for (uint32_t flags : {0u, uint32_t(KS_SM4_GPU_TABLES)}) {
      for (bool pinned : {false, true}) {
        ks_test::CallerBuffer caller(len + 1, pinned);
        ASSERT_EQ(caller.rc, KS_OK);
        uint8_t* buf = caller.data();
        uint8_t tag[16];
        ASSERT_EQ(ks_sm4_gcm_seal_buffer(gpu_ctx.ctx, flags, key.data(), iv.data(), 12, aad.data(),
                                         aad.size(), in.data(), len, buf, tag, 16), KS_OK);
        EXPECT_EQ(memcmp(buf, want.data(), len), 0) << "len " << len << " flags " << flags;
        EXPECT_EQ(memcmp(tag, want_tag, 16), 0) << "len " << len << " flags " << flags;
        Bytes back(len + 1, 0x5a);
        tag[0] ^= 0x80;
        EXPECT_EQ(ks_sm4_gcm_open_buffer(gpu_ctx.ctx, flags, key.data(), iv.data(), 12,
                                         aad.data(), aad.size(), buf, len, tag, 16, back.data()),
                  KS_ERR_TAG_MISMATCH);
        EXPECT_EQ(back, Bytes(len + 1, 0x5a)) << "plaintext released under a wrong tag";
        tag[0] ^= 0x80;
        ASSERT_EQ(ks_sm4_gcm_open_buffer(gpu_ctx.ctx, flags, key.data(), iv.data(), 12,
                                         aad.data(), aad.size(), buf, len, tag, 16, back.data()),
                  KS_OK);
        EXPECT_EQ(memcmp(back.data(), in.data(), len), 0);
      }
    }
  }
}

// A GPU context's ks_sm4_batch with caller buffers in ordinary or in
// pinned memory (GetParam(): pinned; copied by the device directly), over
// batches of tens of MiB, which the pipeline cuts into several chunks.
class GpuSm4Batch : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(gpu_ctx.rc, KS_OK);
    ASSERT_EQ(cpu_ctx.rc, KS_OK);
  }
  // A caller buffer holding v.
  std::unique_ptr<ks_test::CallerBuffer> buffer(const Bytes& v) const {
    auto b = std::make_unique<ks_test::CallerBuffer>(v.size(), GetParam());
    EXPECT_EQ(b->rc, KS_OK);
    memcpy(b->data(), v.data(), v.size());
    return b;
  }
  static Bytes bytes(ks_test::CallerBuffer& b, size_t n) { return Bytes(b.data(), b.data() + n); }
  ks_test::Context gpu_ctx{KS_BACKEND_GPU}, cpu_ctx{KS_BACKEND_CPU, 4};
};

// ks_sm4_batch on a GPU context (one key and IV per message, the
// bitsliced many-message kernels): byte-identical to a CPU context over
// thousands of messages of mixed lengths (empty, partial blocks, up to 64
// KiB, unaligned starts), IVs whose counters carry across 2^32, 2^64 and
// 2^128, in place and not, in every mode but GCM (CBC, CFB and OFB
// encryption through the 32-messages-a-thread chains); an ECB or CBC
// message that is not whole blocks fails alone and is left untouched.
TEST_P(GpuSm4Batch, MatchesTheCpu) {
  std::mt19937_64 rng(std::random_device{}());
  const size_t count = 3001;
  for (int mode : {KS_SM4_ECB, KS_SM4_CBC, KS_SM4_CFB, KS_SM4_OFB, KS_SM4_CTR}) {
    const bool block = mode == KS_SM4_ECB || mode == KS_SM4_CBC;
    std::vector<uint64_t> offsets(count + 1, 0);
    offsets[0] = 3;  // the flat data starts at an unaligned offset
    for (size_t i = 0; i < count; ++i) {
      size_t len;
      switch (rng() % 4) {
        case 0: len = rng() % 40; break;
        case 1: len = 16 * (rng() % 70); break;
        case 2: len = rng() % 4096; break;
        default: len = rng() % (64 << 10); break;
      }
      if (block && i % 97 != 5) len -= len % 16;  // a few bad ECB and CBC items
      offsets[i + 1] = offsets[i] + len;
    }
    const Bytes keys = ks_test::random_bytes(16 * count);
    Bytes ivs = ks_test::random_bytes(16 * count);
    for (size_t i = 0; i < count; i += 7) {  // counters about to carry
      const int ones = i % 3 == 0 ? 4 : i % 3 == 1 ? 8 : 16;
      memset(ivs.data() + 16 * i + 16 - ones, 0xff, ones);
      ivs[16 * i + 15] = uint8_t(0xff - rng() % 40);
    }
    const uint8_t* ivp = mode == KS_SM4_ECB ? nullptr : ivs.data();
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
    const Bytes data = ks_test::random_bytes(offsets[count] + 5);
    const auto in = buffer(data);
    for (int encrypt : {1, 0}) {
      SCOPED_TRACE("mode " + std::to_string(mode) + " encrypt " + std::to_string(encrypt));
      Bytes want(data.size(), 0xa5);
      const auto got = buffer(Bytes(data.size(), 0xa5));
      std::vector<int> want_st(count), got_st(count);
      const int want_rc = ks_sm4_batch(cpu_ctx.ctx, mode, encrypt, 0, keys.data(), ivp, iv_len,
                                       data.data(), data.size(), offsets.data(), count,
                                       want.data(), want.size(), nullptr, 0, nullptr, nullptr,
                                       0, want_st.data());
      const int got_rc = ks_sm4_batch(gpu_ctx.ctx, mode, encrypt, 0, keys.data(), ivp, iv_len,
                                      in->data(), data.size(), offsets.data(), count,
                                      got->data(), data.size(), nullptr, 0, nullptr, nullptr, 0,
                                      got_st.data());
      EXPECT_EQ(got_rc, want_rc);
      EXPECT_EQ(got_st, want_st);
      EXPECT_EQ(bytes(*got, data.size()), want) << "the GPU's output differs from the CPU's";
      if (block) {
        EXPECT_EQ(want_rc, KS_ERR_BATCH_ITEMS);
      }
      const auto inplace = buffer(data);
      ASSERT_EQ(ks_sm4_batch(gpu_ctx.ctx, mode, encrypt, 0, keys.data(), ivp, iv_len,
                             inplace->data(), data.size(), offsets.data(), count,
                             inplace->data(), data.size(), nullptr, 0, nullptr, nullptr, 0,
                             got_st.data()), want_rc);
      for (size_t i = 0; i < count; ++i) {
        if (want_st[i] != KS_OK) {  // failed items stay as they were: the input, in place
          memcpy(want.data() + offsets[i], data.data() + offsets[i], offsets[i + 1] - offsets[i]);
        }
      }
      EXPECT_EQ(memcmp(inplace->data() + 3, want.data() + 3, offsets[count] - 3), 0);
    }
  }
}

// GCM batches (12-byte IVs) on a GPU context: ciphertexts and tags of
// every length 4..16 equal to a CPU context's over mixed messages and AAD
// (empty ones included); opened back on the GPU, a flipped tag bit fails
// only its own item, which releases nothing.
TEST_P(GpuSm4Batch, GcmMatchesTheCpu) {
  std::mt19937_64 rng(std::random_device{}());
  const size_t count = 3001;
  std::vector<uint64_t> offsets(count + 1, 0), aad_offsets(count + 1, 0);
  offsets[0] = 1;
  aad_offsets[0] = 2;
  for (size_t i = 0; i < count; ++i) {
    const size_t len = rng() % 3 == 0 ? rng() % 40 : rng() % (20 << 10);
    offsets[i + 1] = offsets[i] + len;
    aad_offsets[i + 1] = aad_offsets[i] + (rng() % 4 == 0 ? 0 : rng() % 70);
  }
  const Bytes keys = ks_test::random_bytes(16 * count), ivs = ks_test::random_bytes(12 * count),
              data = ks_test::random_bytes(offsets[count] + 3),
              aad = ks_test::random_bytes(aad_offsets[count] + 1);
  const auto in = buffer(data);
  for (size_t tag_len : {size_t(16), size_t(12), size_t(4)}) {
    SCOPED_TRACE("tag length " + std::to_string(tag_len));
    Bytes want(data.size(), 0xa5);
    const auto got = buffer(Bytes(data.size(), 0xa5));
    Bytes want_tags(tag_len * count), got_tags(tag_len * count);
    std::vector<int> want_st(count), got_st(count);
    ASSERT_EQ(ks_sm4_batch(cpu_ctx.ctx, KS_SM4_GCM, 1, 0, keys.data(), ivs.data(), 12,
                           data.data(), data.size(), offsets.data(), count, want.data(),
                           want.size(), aad.data(), aad.size(), aad_offsets.data(),
                           want_tags.data(), tag_len, want_st.data()), KS_OK);
    ASSERT_EQ(ks_sm4_batch(gpu_ctx.ctx, KS_SM4_GCM, 1, 0, keys.data(), ivs.data(), 12,
                           in->data(), data.size(), offsets.data(), count, got->data(),
                           data.size(), aad.data(), aad.size(), aad_offsets.data(),
                           got_tags.data(), tag_len, got_st.data()), KS_OK);
    EXPECT_EQ(bytes(*got, data.size()), want) << "ciphertexts";
    EXPECT_EQ(got_tags, want_tags) << "tags";
    // Open on the GPU with every 5th tag damaged.
    Bytes bad_tags = got_tags;
    for (size_t i = 0; i < count; i += 5) bad_tags[tag_len * i + rng() % tag_len] ^= 0x10;
    const auto back = buffer(Bytes(data.size(), 0x3c));
    EXPECT_EQ(ks_sm4_batch(gpu_ctx.ctx, KS_SM4_GCM, 0, 0, keys.data(), ivs.data(), 12,
                           got->data(), data.size(), offsets.data(), count, back->data(),
                           data.size(), aad.data(), aad.size(), aad_offsets.data(),
                           bad_tags.data(), tag_len, got_st.data()), KS_ERR_BATCH_ITEMS);
    for (size_t i = 0; i < count; ++i) {
      const size_t at = offsets[i], len = offsets[i + 1] - offsets[i];
      if (i % 5 == 0) {
        EXPECT_EQ(Bytes(back->data() + at, back->data() + at + len), Bytes(len, 0x3c))
            << "item " << i << " released plaintext under a wrong tag";
        EXPECT_EQ(got_st[i], KS_ERR_TAG_MISMATCH) << "item " << i;
      } else {
        EXPECT_EQ(got_st[i], KS_OK) << "item " << i;
        EXPECT_EQ(memcmp(back->data() + at, data.data() + at, len), 0) << "item " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Memory, GpuSm4Batch, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "Pinned" : "Ordinary");
                         });

INSTANTIATE_TEST_SUITE_P(Kernels, GpuSm4,
                         ::testing::Values(gpu::Kernel::kTable, gpu::Kernel::kBitsliced),
                         name_of);

}  // namespace

// The largest size the issue names: one 1 GiB (+ 5 bytes for CTR and GCM)
// buffer of fresh random bytes per mode through a GPU context, both
// kernels, against a 16-thread CPU context (ECB, CTR) and the CPU's
// one-shot GCM; ordinary caller memory, so the pipeline's staging is in
// play over more than a thousand chunks.
TEST(GpuSm4Api, GibibyteBuffersMatchTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), cpu_ctx(KS_BACKEND_CPU, 16);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(cpu_ctx.rc, KS_OK);
  const size_t gib = size_t(1) << 30;
  const Bytes key = ks_test::random_bytes(16), iv = ks_test::random_bytes(16),
              aad = ks_test::random_bytes(20);
  const Bytes in = ks_test::random_bytes(gib + 5);
  Bytes want(in.size()), got(in.size());
  for (int mode : {KS_SM4_ECB, KS_SM4_CTR}) {
    const size_t len = mode == KS_SM4_ECB ? gib : in.size();
    const uint8_t* ivp = mode == KS_SM4_ECB ? nullptr : iv.data();
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
    ASSERT_EQ(ks_sm4_crypt_buffer(cpu_ctx.ctx, mode, 1, 0, key.data(), ivp, iv_len, in.data(), len,
                                  want.data()), KS_OK);
    for (uint32_t flags : {0u, uint32_t(KS_SM4_GPU_TABLES)}) {
      ASSERT_EQ(ks_sm4_crypt_buffer(gpu_ctx.ctx, mode, 1, flags, key.data(), ivp, iv_len,
                                    in.data(), len, got.data()), KS_OK);
      EXPECT_EQ(memcmp(got.data(), want.data(), len), 0) << "mode " << mode << " flags " << flags;
    }
  }
  uint8_t want_tag[16], tag[16];
  ASSERT_EQ(ks_sm4_gcm_seal(key.data(), iv.data(), 12, aad.data(), aad.size(), in.data(),
                            in.size(), want.data(), want_tag, 16), KS_OK);
  for (uint32_t flags : {0u, uint32_t(KS_SM4_GPU_TABLES)}) {
    ASSERT_EQ(ks_sm4_gcm_seal_buffer(gpu_ctx.ctx, flags, key.data(), iv.data(), 12, aad.data(),
                                     aad.size(), in.data(), in.size(), got.data(), tag, 16), KS_OK);
    EXPECT_EQ(memcmp(got.data(), want.data(), in.size()), 0) << "GCM flags " << flags;
    EXPECT_EQ(memcmp(tag, want_tag, 16), 0) << "GCM flags " << flags;
  }
  ASSERT_EQ(ks_sm4_gcm_open_buffer(gpu_ctx.ctx, 0, key.data(), iv.data(), 12, aad.data(),
                                   aad.size(), want.data(), in.size(), want_tag, 16, got.data()),
            KS_OK);
  EXPECT_EQ(memcmp(got.data(), in.data(), in.size()), 0) << "GCM open";
}
