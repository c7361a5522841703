// Batch calls whose outputs overlap the caller's offsets or whose offsets
// and status arrays are misaligned (issue 42). The offsets used to be
// checked and then read again during the work, so a signature or a
// ciphertext written over them sent later items out of bounds (SEGV in
// ks_sm4_batch, a wild message pointer in ks_ed25519_sign_batch); and the
// arrays were dereferenced as uint64_t and int (UBSan's alignment check
// in scripts/sanitize). Each test compares with the one-item calls.
#include <gtest/gtest.h>
#include <string.h>

#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

// One worker thread (ks_test::Context): items run in order, so an item
// written over the offsets is always followed by items that read them.
constexpr uint32_t kOneThread = 1;

// count + 1 offsets of items of item_len bytes, written at p byte-wise.
void put_offsets(uint8_t* p, size_t count, size_t item_len) {
  for (size_t i = 0; i <= count; ++i) {
    const uint64_t v = i * item_len;
    memcpy(p + 8 * i, &v, 8);
  }
}

Bytes pattern(size_t n, uint8_t seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(seed + 31 * i);
  return b;
}

TEST(BatchAliasing, Sm4OutputOverTheOffsets) {
  constexpr size_t kCount = 16, kItem = 64;
  const ks_test::Context context(KS_BACKEND_CPU, kOneThread);
  ASSERT_EQ(context.rc, KS_OK);
  ks_ctx* ctx = context.ctx;
  const Bytes keys = pattern(16 * kCount, 1), ivs = pattern(16 * kCount, 2);
  const Bytes data = pattern(kCount * kItem, 3);
  Bytes out(kCount * kItem);
  put_offsets(out.data(), kCount, kItem);  // out starts with the offsets
  const auto* offsets = reinterpret_cast<const uint64_t*>(out.data());
  std::vector<int> status(kCount, 1);
  ASSERT_EQ(ks_sm4_batch(ctx, KS_SM4_CTR, 1, 0, keys.data(), ivs.data(), 16, data.data(),
                         data.size(), offsets, kCount, out.data(), out.size(), nullptr, 0,
                         nullptr, nullptr, 0, status.data()),
            KS_OK);
  for (size_t i = 0; i < kCount; ++i) {
    uint8_t want[kItem];
    size_t n = 0;
    ASSERT_EQ(ks_sm4_crypt(KS_SM4_CTR, KS_ENCRYPT, 0, keys.data() + 16 * i, ivs.data() + 16 * i,
                           16, data.data() + kItem * i, kItem, want, kItem, &n),
              KS_OK);
    EXPECT_EQ(Bytes(out.begin() + kItem * i, out.begin() + kItem * (i + 1)),
              Bytes(want, want + kItem))
        << i;
    EXPECT_EQ(status[i], KS_OK);
  }
}

TEST(BatchAliasing, Ed25519SignaturesOverTheOffsets) {
  constexpr size_t kCount = 40, kItem = 33;
  const ks_test::Context context(KS_BACKEND_CPU, kOneThread);
  ASSERT_EQ(context.rc, KS_OK);
  ks_ctx* ctx = context.ctx;
  ks_ed25519_key* key = nullptr;
  const Bytes seed = pattern(32, 4), data = pattern(kCount * kItem, 5);
  ASSERT_EQ(ks_ed25519_key_from_seed(seed.data(), 32, &key), KS_OK);
  Bytes sigs(64 * kCount);
  put_offsets(sigs.data(), kCount, kItem);  // the signatures start with the offsets
  const auto* offsets = reinterpret_cast<const uint64_t*>(sigs.data());
  ASSERT_EQ(ks_ed25519_sign_batch(ctx, key, data.data(), data.size(), offsets, kCount,
                                  sigs.data(), sigs.size(), nullptr),
            KS_OK);
  for (size_t i = 0; i < kCount; ++i) {
    uint8_t want[64];
    ASSERT_EQ(ks_ed25519_sign(key, data.data() + kItem * i, kItem, want), KS_OK);
    EXPECT_EQ(Bytes(sigs.begin() + 64 * i, sigs.begin() + 64 * (i + 1)), Bytes(want, want + 64))
        << i;
  }
  ks_ed25519_key_free(key);
}

// Offsets at an odd address, statuses at an address that is not a
// multiple of 4: the batch reads and writes them byte-wise.
TEST(BatchAliasing, MisalignedOffsetsAndStatuses) {
  constexpr size_t kCount = 9, kItem = 20;
  const ks_test::Context context(KS_BACKEND_CPU, kOneThread);
  ASSERT_EQ(context.rc, KS_OK);
  ks_ctx* ctx = context.ctx;
  const Bytes data = pattern(kCount * kItem, 6);
  Bytes offsets_bytes(8 * (kCount + 1) + 1), status_bytes(4 * kCount + 3, 0xee);
  put_offsets(offsets_bytes.data() + 1, kCount, kItem);
  const auto* offsets = reinterpret_cast<const uint64_t*>(offsets_bytes.data() + 1);
  int* status = reinterpret_cast<int*>(status_bytes.data() + 3);
  Bytes digests(32 * kCount);
  ASSERT_EQ(ks_sm3_batch(ctx, data.data(), data.size(), offsets, kCount, digests.data(),
                         digests.size(), status),
            KS_OK);
  // ECB items that are not whole blocks fail: every status becomes
  // KS_ERR_LENGTH, written over the KS_OK of the SM3 call.
  const Bytes keys = pattern(16 * kCount, 7);
  Bytes out(data.size());
  ASSERT_EQ(ks_sm4_batch(ctx, KS_SM4_ECB, 1, 0, keys.data(), nullptr, 0, data.data(), data.size(),
                         offsets, kCount, out.data(), out.size(), nullptr, 0, nullptr, nullptr, 0,
                         status),
            KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < kCount; ++i) {
    uint8_t want[32];
    ASSERT_EQ(ks_sm3(data.data() + kItem * i, kItem, want), KS_OK);
    EXPECT_EQ(Bytes(digests.begin() + 32 * i, digests.begin() + 32 * (i + 1)), Bytes(want, want + 32));
    int st;
    memcpy(&st, status_bytes.data() + 3 + 4 * i, sizeof st);
    EXPECT_EQ(st, KS_ERR_LENGTH) << i;  // 20-byte items
  }
  EXPECT_EQ(status_bytes[0], 0xee);  // nothing before the array
}

}  // namespace
