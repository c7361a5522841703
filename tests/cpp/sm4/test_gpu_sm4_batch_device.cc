// ks_sm4_batch with every array in device memory (kuaisuo/common.h,
// "Device memory") on a GPU context, against a CPU context's host batch
// on fresh random inputs: 100,000 messages of mixed lengths in every mode
// both ways (in place too, which CBC and CFB decryption must copy aside),
// GCM sealed and opened with damaged tags, items whose offsets descend or
// pass the buffer failing alone with KS_ERR_OFFSETS and their output left
// as it was; the call on a user stream with its input arriving late;
// host arrays mixed in refused. The seed is printed on failure. Skipped
// where no GPU is present.
#include <gtest/gtest.h>
#include <string.h>

#include <string>
#include <vector>

#include "kuaisuo.h"
#include "testing/gpu_memory_testing.h"
#include "gpu_fixture.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks::testing::DeviceBytes;

constexpr size_t kItems = 100000;
constexpr uint8_t kFill = 0xa5;  // the output buffers' bytes before a call

// One batch: messages, keys and IVs, and its offsets with some broken.
struct Batch {
  std::vector<uint64_t> offsets, bad_offsets;
  Bytes data, keys, ivs;
  std::vector<size_t> broken;  // items whose range bad_offsets breaks
};

class Sm4BatchDevice : public ks_test::GpuAgainstCpu {
 protected:
  Sm4BatchDevice() : GpuAgainstCpu(2, 8) {}

  // kItems messages, 0 .. ~2 KiB (whole blocks where `whole`, but one in
  // 101), each 97th boundary moved past the data (items k - 1 and k break).
  Batch batch(bool whole, size_t iv_len) {
    Batch b;
    b.offsets.assign(kItems + 1, 0);
    for (size_t i = 0; i < kItems; ++i) {
      size_t len = rng_() % 4 == 0 ? rng_() % 40 : rng_() % 2100;
      if (whole && i % 101 != 7) len -= len % 16;
      b.offsets[i + 1] = b.offsets[i] + len;
    }
    b.data = random(b.offsets[kItems]);
    b.keys = random(16 * kItems);
    b.ivs = random(iv_len * kItems);
    b.bad_offsets = b.offsets;
    for (size_t k = 5; k < kItems; k += 97) {
      b.bad_offsets[k] = b.data.size() + 1 + rng_() % 100;
      b.broken.push_back(k - 1);
      b.broken.push_back(k);
    }
    return b;
  }

  // What the device must leave: the CPU's output and statuses, with the
  // broken items' ranges as they were and KS_ERR_OFFSETS.
  static void break_items(const Batch& b, Bytes* want, std::vector<int>* status) {
    for (size_t i : b.broken) {
      memset(want->data() + b.offsets[i], kFill, b.offsets[i + 1] - b.offsets[i]);
      (*status)[i] = KS_ERR_OFFSETS;
    }
  }
};

TEST_F(Sm4BatchDevice, EveryModeMatchesTheCpu) {
  SCOPED_TRACE(trace_);
  for (int mode : {KS_SM4_ECB, KS_SM4_CBC, KS_SM4_CFB, KS_SM4_OFB, KS_SM4_CTR}) {
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
    const Batch b = batch(mode == KS_SM4_ECB || mode == KS_SM4_CBC, iv_len);
    const DeviceBytes keys(b.keys), ivs(b.ivs), offsets(b.bad_offsets);
    for (int encrypt : {KS_ENCRYPT, KS_DECRYPT}) {
      for (bool in_place : {false, true}) {
        SCOPED_TRACE("mode " + std::to_string(mode) + " encrypt " + std::to_string(encrypt) +
                     (in_place ? " in place" : ""));
        Bytes want(b.data.size(), kFill);
        std::vector<int> want_status(kItems);
        ks_sm4_batch(cpu_ctx_.ctx, mode, encrypt, 0, b.keys.data(), iv_len ? b.ivs.data() : nullptr,
                     iv_len, b.data.data(), b.data.size(), b.offsets.data(), kItems, want.data(),
                     want.size(), nullptr, 0, nullptr, nullptr, 0, want_status.data());
        break_items(b, &want, &want_status);
        DeviceBytes data(b.data), out(Bytes(b.data.size(), kFill)), status(sizeof(int) * kItems);
        if (in_place) {  // failed items keep their input
          for (size_t i = 0; i < kItems; ++i)
            if (want_status[i] != KS_OK)
              memcpy(want.data() + b.offsets[i], b.data.data() + b.offsets[i],
                     b.offsets[i + 1] - b.offsets[i]);
        }
        uint8_t* dst = in_place ? data.get() : out.get();
        ASSERT_EQ(ks_sm4_batch(gpu_ctx_.ctx, mode, encrypt, 0, keys.get(),
                               iv_len ? ivs.get() : nullptr, iv_len, data.get(), b.data.size(),
                               offsets.as<const uint64_t>(), kItems, dst, b.data.size(), nullptr,
                               0, nullptr, nullptr, 0, status.as<int>()),
                  KS_OK);
        ASSERT_TRUE(ks::testing::stream_sync(nullptr));
        EXPECT_EQ(status.download_as<int>(kItems), want_status);
        EXPECT_TRUE((in_place ? data : out).download(b.data.size()) == want)
            << "the device's output differs from the CPU's";
      }
    }
  }
}

TEST_F(Sm4BatchDevice, GcmSealsAndOpensAsTheCpu) {
  SCOPED_TRACE(trace_);
  const Batch b = batch(false, 12);
  std::vector<uint64_t> aad_offsets(kItems + 1, 0);
  for (size_t i = 0; i < kItems; ++i) aad_offsets[i + 1] = aad_offsets[i] + rng_() % 50;
  const Bytes aad = random(aad_offsets[kItems]);
  const DeviceBytes keys(b.keys), ivs(b.ivs), offsets(b.bad_offsets), d_aad(aad),
      d_aad_offsets(aad_offsets), data(b.data);
  for (size_t tag_len : {size_t(16), size_t(12)}) {
    SCOPED_TRACE("tag length " + std::to_string(tag_len));
    Bytes want(b.data.size(), kFill), want_tags(tag_len * kItems);
    std::vector<int> want_status(kItems);
    ASSERT_EQ(ks_sm4_batch(cpu_ctx_.ctx, KS_SM4_GCM, KS_ENCRYPT, 0, b.keys.data(), b.ivs.data(),
                           12, b.data.data(), b.data.size(), b.offsets.data(), kItems,
                           want.data(), want.size(), aad.data(), aad.size(), aad_offsets.data(),
                           want_tags.data(), tag_len, want_status.data()),
              KS_OK);
    const Bytes sealed = want;  // every item's ciphertext, for the open below
    break_items(b, &want, &want_status);
    DeviceBytes out(Bytes(b.data.size(), kFill)), tags(tag_len * kItems),
        status(sizeof(int) * kItems);
    ASSERT_EQ(ks_sm4_batch(gpu_ctx_.ctx, KS_SM4_GCM, KS_ENCRYPT, 0, keys.get(), ivs.get(), 12,
                           data.get(), b.data.size(), offsets.as<const uint64_t>(), kItems,
                           out.get(), b.data.size(), d_aad.get(), aad.size(),
                           d_aad_offsets.as<const uint64_t>(), tags.get(), tag_len,
                           status.as<int>()),
              KS_OK);
    ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    EXPECT_EQ(status.download_as<int>(kItems), want_status);
    EXPECT_TRUE(out.download(b.data.size()) == want) << "ciphertexts";
    const Bytes got_tags = tags.download(tag_len * kItems);
    for (size_t i = 0; i < kItems; ++i) {
      if (want_status[i] != KS_OK) continue;
      ASSERT_EQ(memcmp(got_tags.data() + tag_len * i, want_tags.data() + tag_len * i, tag_len), 0)
          << "tag " << i;
    }
    // Open the CPU's ciphertexts with every 7th tag damaged.
    Bytes bad_tags = want_tags;
    std::vector<int> open_status = want_status;
    Bytes plain = b.data;
    break_items(b, &plain, &open_status);
    for (size_t i = 3; i < kItems; i += 7) {
      bad_tags[tag_len * i + rng_() % tag_len] ^= 0x40;
      if (open_status[i] != KS_OK) continue;
      open_status[i] = KS_ERR_TAG_MISMATCH;
      memset(plain.data() + b.offsets[i], kFill, b.offsets[i + 1] - b.offsets[i]);
    }
    const DeviceBytes ct(sealed), d_tags(bad_tags);
    DeviceBytes back(Bytes(b.data.size(), kFill));
    ASSERT_EQ(ks_sm4_batch(gpu_ctx_.ctx, KS_SM4_GCM, KS_DECRYPT, 0, keys.get(), ivs.get(), 12,
                           ct.get(), b.data.size(), offsets.as<const uint64_t>(), kItems,
                           back.get(), b.data.size(), d_aad.get(), aad.size(),
                           d_aad_offsets.as<const uint64_t>(), d_tags.get(), tag_len,
                           status.as<int>()),
              KS_OK);
    ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    EXPECT_EQ(status.download_as<int>(kItems), open_status);
    EXPECT_TRUE(back.download(b.data.size()) == plain)
        << "plaintexts (nothing released under a wrong tag)";
  }
}

TEST_F(Sm4BatchDevice, RunsInOrderOnTheContextsStream) {
  SCOPED_TRACE(trace_);
  const Batch b = batch(false, 16);
  Bytes want(b.data.size());
  std::vector<int> st(kItems);
  ASSERT_EQ(ks_sm4_batch(cpu_ctx_.ctx, KS_SM4_CTR, KS_ENCRYPT, 0, b.keys.data(), b.ivs.data(), 16,
                         b.data.data(), b.data.size(), b.offsets.data(), kItems, want.data(),
                         want.size(), nullptr, 0, nullptr, nullptr, 0, st.data()),
            KS_OK);
  const DeviceBytes keys(b.keys), ivs(b.ivs), offsets(b.offsets), staged(b.data);
  DeviceBytes data(b.data.size()), out(b.data.size()), after(b.data.size()),
      status(sizeof(int) * kItems);
  const auto call = [&] {
    return ks_sm4_batch(gpu_ctx_.ctx, KS_SM4_CTR, KS_ENCRYPT, 0, keys.get(), ivs.get(), 16,
                        data.get(), b.data.size(), offsets.as<const uint64_t>(), kItems, out.get(),
                        b.data.size(), nullptr, 0, nullptr, nullptr, 0, status.as<int>());
  };
  ASSERT_EQ(ks::testing::run_between(gpu_ctx_.ctx, data.get(), staged.get(), b.data.size(), call,
                                     after.get(), out.get(), b.data.size()),
            KS_OK);
  EXPECT_TRUE(after.download(b.data.size()) == want);
  EXPECT_EQ(status.download_as<int>(kItems), std::vector<int>(kItems, KS_OK));
}

TEST_F(Sm4BatchDevice, HostArraysMixedInAreRefused) {
  const Bytes keys = random(16 * 4), ivs = random(16 * 4), data = random(64);
  const std::vector<uint64_t> offsets = {0, 16, 32, 48, 64};
  const DeviceBytes d_keys(keys), d_ivs(ivs), d_data(data), d_offsets(offsets);
  DeviceBytes d_out(64), d_status(4 * sizeof(int));
  std::vector<int> status(4, 1);
  EXPECT_EQ(ks_sm4_batch(gpu_ctx_.ctx, KS_SM4_CTR, KS_ENCRYPT, 0, keys.data(), d_ivs.get(), 16,
                         d_data.get(), 64, d_offsets.as<const uint64_t>(), 4, d_out.get(), 64,
                         nullptr, 0, nullptr, nullptr, 0, d_status.as<int>()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_sm4_batch(gpu_ctx_.ctx, KS_SM4_CTR, KS_ENCRYPT, 0, d_keys.get(), d_ivs.get(), 16,
                         d_data.get(), 64, d_offsets.as<const uint64_t>(), 4, d_out.get(), 64,
                         nullptr, 0, nullptr, nullptr, 0, status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(status, std::vector<int>(4, 1));
  EXPECT_EQ(ks_sm4_batch(gpu_ctx_.ctx, KS_SM4_GCM, KS_ENCRYPT, 0, d_keys.get(), d_ivs.get(), 16,
                         d_data.get(), 64, d_offsets.as<const uint64_t>(), 4, d_out.get(), 64,
                         nullptr, 0, nullptr, d_out.get(), 16, d_status.as<int>()),
            KS_ERR_UNSUPPORTED)
      << "GCM on the device takes 96-bit IVs";
}

}  // namespace
