// Curve25519 batches already in device memory (kuaisuo/common.h, "Device
// memory"): X25519 key agreement (one key and a key per item, small-order
// peers mixed in) against a CPU context byte for byte, Ed25519 signing
// (one key and per-item seeds, bad offsets failing alone), and Ed25519
// verification: ks_ed25519_verify_batch with
// device pointers on a GPU context against a CPU context on fresh random
// items (valid ones and every kind of bad one of ed25519_verify_cases.h),
// on the default stream and on a user stream with work queued before and
// after the call; offsets outside the data reported per item; mixed host
// and device arguments and misaligned buffers refused. Skipped where no
// GPU is present.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <string>
#include <vector>

#include "ed25519_verify_cases.h"
#include "kuaisuo.h"
#include "testing/gpu_memory_testing.h"
#include "gpu_fixture.h"
#include "test_util.h"

namespace {

using ks::testing::DeviceBytes;

constexpr size_t kItems = 100003;

// A batch's inputs in device memory, and room for its statuses.
struct DeviceBatch {
  explicit DeviceBatch(const ks_test::VerifyItems& items)
      : pubs(items.pubs),
        sigs(items.sigs),
        data(items.data),
        offsets(items.offsets),
        status(sizeof(int) * items.count()) {
    ok = pubs.ok() && sigs.ok() && data.ok() && offsets.ok() && status.ok();
  }
  int verify(ks_ctx* ctx, size_t data_len, size_t count) const {
    return ks_ed25519_verify_batch(ctx, pubs.get(), data.get(), data_len,
                                   offsets.as<const uint64_t>(), count, sigs.get(),
                                   status.as<int>());
  }
  DeviceBytes pubs, sigs, data, offsets, status;
  bool ok = false;
};

class Ed25519VerifyDevice : public ks_test::GpuAgainstCpu {
 protected:
  Ed25519VerifyDevice() : GpuAgainstCpu(2, 0) {}
  // The CPU context's statuses of items (KS_ERR_BATCH_ITEMS: some are bad).
  std::vector<int> cpu_statuses(const ks_test::VerifyItems& items) {
    std::vector<int> want(items.count(), 98);
    EXPECT_EQ(ks_ed25519_verify_batch(cpu_ctx_.ctx, items.pubs.data(), items.data.data(),
                                      items.data.size(), items.offsets.data(), items.count(),
                                      items.sigs.data(), want.data()),
              KS_ERR_BATCH_ITEMS);
    return want;
  }

};

TEST_F(Ed25519VerifyDevice, MatchesTheCpuOnTheDefaultStream) {
  SCOPED_TRACE(trace_);
  const ks_test::VerifyItems items = ks_test::make_verify_items(kItems, 512, rng_);
  const std::vector<int> want = cpu_statuses(items);
  const DeviceBatch d(items);
  ASSERT_TRUE(d.ok);
  ASSERT_EQ(d.verify(gpu_ctx_.ctx, items.data.size(), kItems), KS_OK);  // queued
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  const std::vector<int> got = d.status.download_as<int>(kItems);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(got[i], want[i]) << "item " << i;
}

// The offsets arrive by a copy queued behind a spinning kernel on the
// user's stream, and the statuses leave by a copy queued after the call:
// the call runs between them, on that stream.
TEST_F(Ed25519VerifyDevice, RunsInOrderOnTheContextsStream) {
  SCOPED_TRACE(trace_);
  const ks_test::VerifyItems items = ks_test::make_verify_items(kItems, 64, rng_);
  const std::vector<int> want = cpu_statuses(items);
  DeviceBatch d(items);
  ASSERT_TRUE(d.ok);
  const DeviceBytes staged_offsets(items.offsets);
  DeviceBytes after(d.status.size());
  const std::vector<uint8_t> ones(d.offsets.size(), 0xFF);
  ASSERT_TRUE(d.offsets.upload(ones.data(), ones.size()));  // every range bad until the copy
  ASSERT_EQ(ks::testing::run_between(
                gpu_ctx_.ctx, d.offsets.get(), staged_offsets.get(), d.offsets.size(),
                [&] { return d.verify(gpu_ctx_.ctx, items.data.size(), kItems); }, after.get(),
                d.status.get(), d.status.size()),
            KS_OK);
  const std::vector<int> got = after.download_as<int>(kItems);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(got[i], want[i]) << "item " << i;
}

// Ranges that descend or end past data_len fail alone with
// KS_ERR_OFFSETS; every other item keeps the CPU's status.
TEST_F(Ed25519VerifyDevice, OffsetsOutsideTheDataFailPerItem) {
  SCOPED_TRACE(trace_);
  ks_test::VerifyItems items = ks_test::make_verify_items(4099, 16, rng_);
  std::vector<int> want = cpu_statuses(items);
  const size_t n = items.count();
  std::vector<uint64_t> bad = items.offsets;
  for (size_t k = 7; k < n; k += 331) {  // items k - 1 (ends past) and k (descends)
    bad[k] = items.data.size() + 1 + rng_() % 1000;
    want[k - 1] = want[k] = KS_ERR_OFFSETS;
  }
  bad[n] = UINT64_MAX;  // the last item ends past the data
  want[n - 1] = KS_ERR_OFFSETS;
  DeviceBatch d(items);
  ASSERT_TRUE(d.ok);
  ASSERT_TRUE(d.offsets.upload(reinterpret_cast<const uint8_t*>(bad.data()), d.offsets.size()));
  ASSERT_EQ(d.verify(gpu_ctx_.ctx, items.data.size(), n), KS_OK);
  ASSERT_TRUE(ks::testing::stream_sync(nullptr));
  const std::vector<int> got = d.status.download_as<int>(n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "item " << i;
}

TEST_F(Ed25519VerifyDevice, MixedMisalignedAndMissingBuffersAreRefused) {
  const ks_test::VerifyItems items = ks_test::make_verify_items(64, 4, rng_);
  const DeviceBatch d(items);
  ASSERT_TRUE(d.ok);
  const auto* offsets = d.offsets.as<const uint64_t>();
  int* status = d.status.as<int>();
  std::vector<int> host_status(64, 7);
  ks_ctx* ctx = gpu_ctx_.ctx;
  const size_t len = items.data.size();
  EXPECT_EQ(ks_ed25519_verify_batch(ctx, d.pubs.get(), d.data.get(), len, offsets, 64,
                                    d.sigs.get(), host_status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(host_status, std::vector<int>(64, 7));  // not written
  EXPECT_EQ(ks_ed25519_verify_batch(ctx, items.pubs.data(), d.data.get(), len, offsets, 64,
                                    d.sigs.get(), status),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_ed25519_verify_batch(ctx, d.pubs.get(), d.data.get(), len,
                                    items.offsets.data(), 64, d.sigs.get(), status),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_ed25519_verify_batch(ctx, d.pubs.get(), d.data.get() + 1, len - 1, offsets, 64,
                                    d.sigs.get(), status),
            KS_ERR_ALIGNMENT);
  EXPECT_EQ(ks_ed25519_verify_batch(ctx, d.pubs.get(), d.data.get(), len, offsets, 64,
                                    d.sigs.get(), nullptr),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_ed25519_verify_batch(ctx, d.pubs.get(), d.data.get(), len, offsets, 0,
                                    d.sigs.get(), status),
            KS_OK);  // nothing to queue
}

class X25519Device : public ks_test::GpuAgainstCpu {
 protected:
  X25519Device() : GpuAgainstCpu(2, 0) {}
};

TEST_F(X25519Device, DeriveMatchesTheCpuWithOneKeyAndPerItemKeys) {
  SCOPED_TRACE(trace_);
  const size_t n = kItems;
  const std::vector<uint8_t> keys = random(32 * n);
  std::vector<uint8_t> peers = random(32 * n);
  for (size_t i = 5; i < n; i += 1009) memset(&peers[32 * i], 0, 32);  // u = 0: small order
  const DeviceBytes d_keys(keys), d_peers(peers);
  DeviceBytes d_shared(32 * n), d_status(sizeof(int) * n);
  for (int per_item : {1, 0}) {
    const auto derive = per_item ? ks_x25519_derive_batch_keys : ks_x25519_derive_batch;
    std::vector<uint8_t> want(32 * n);
    std::vector<int> want_status(n, 98);
    ASSERT_EQ(derive(cpu_ctx_.ctx, keys.data(), peers.data(), n, want.data(), want.size(),
                     want_status.data()),
              KS_ERR_BATCH_ITEMS);  // the small-order peers
    ASSERT_EQ(derive(gpu_ctx_.ctx, d_keys.get(), d_peers.get(), n, d_shared.get(), 32 * n,
                     d_status.as<int>()),
              KS_OK);  // queued
    ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    EXPECT_EQ(d_status.download_as<int>(n), want_status) << "per_item " << per_item;
    EXPECT_EQ(d_shared.download(32 * n), want) << "per_item " << per_item;
  }
  std::vector<int> host_status(n, 7);
  EXPECT_EQ(ks_x25519_derive_batch_keys(gpu_ctx_.ctx, d_keys.get(), d_peers.get(), n,
                                        d_shared.get(), 32 * n, host_status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_x25519_derive_batch(gpu_ctx_.ctx, keys.data(), d_peers.get(), n, d_shared.get(),
                                   32 * n, d_status.as<int>()),
            KS_ERR_MEMORY_MIX);  // a host key beside device peers
}

// Ed25519 signing with data, offsets, signatures and statuses (and, per
// item, the seeds) in device memory: byte for byte the CPU context's
// signatures over 100,003 fresh messages (Ed25519 signatures are
// deterministic), one key and a key per item; items whose offsets descend
// or pass the data get KS_ERR_OFFSETS and no signature; the call on a user
// stream between other work; host arrays mixed in refused.
class Ed25519SignDevice : public ks_test::GpuAgainstCpu {
 protected:
  Ed25519SignDevice() : GpuAgainstCpu(2, 0) {}
};

TEST_F(Ed25519SignDevice, MatchesTheCpuWithOneKeyAndPerItemKeys) {
  SCOPED_TRACE(trace_);
  const size_t n = kItems;
  std::vector<uint64_t> offsets(n + 1, 0);
  for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + rng_() % 300;
  const std::vector<uint8_t> data = random(offsets[n]), seeds = random(32 * n),
                             seed = random(32);
  ks_ed25519_key* key = nullptr;
  ASSERT_EQ(ks_ed25519_key_from_seed(seed.data(), 32, &key), KS_OK);
  std::vector<uint64_t> bad = offsets;
  std::vector<size_t> broken;
  for (size_t k = 9; k < n; k += 1013) {  // items k - 1 (ends past) and k (descends)
    bad[k] = data.size() + 1 + rng_() % 50;
    broken.push_back(k - 1);
    broken.push_back(k);
  }
  const DeviceBytes d_data(data), d_offsets(bad), d_seeds(seeds);
  DeviceBytes d_sigs(64 * n), d_status(sizeof(int) * n);
  for (int per_item : {0, 1}) {
    SCOPED_TRACE(per_item ? "a key per item" : "one key");
    std::vector<uint8_t> want(64 * n);
    std::vector<int> want_status(n, 98);
    ASSERT_EQ(per_item ? ks_ed25519_sign_batch_keys(cpu_ctx_.ctx, seeds.data(), data.data(),
                                                    data.size(), offsets.data(), n, want.data(),
                                                    want.size(), want_status.data())
                       : ks_ed25519_sign_batch(cpu_ctx_.ctx, key, data.data(), data.size(),
                                               offsets.data(), n, want.data(), want.size(),
                                               want_status.data()),
              KS_OK);
    for (size_t i : broken) {
      memset(&want[64 * i], 0x5c, 64);  // the output's bytes before the call
      want_status[i] = KS_ERR_OFFSETS;
    }
    ASSERT_TRUE(d_sigs.upload(std::vector<uint8_t>(64 * n, 0x5c).data(), 64 * n));
    const auto call = [&] {
      return per_item ? ks_ed25519_sign_batch_keys(gpu_ctx_.ctx, d_seeds.get(), d_data.get(),
                                                   data.size(), d_offsets.as<const uint64_t>(),
                                                   n, d_sigs.get(), 64 * n, d_status.as<int>())
                      : ks_ed25519_sign_batch(gpu_ctx_.ctx, key, d_data.get(), data.size(),
                                              d_offsets.as<const uint64_t>(), n, d_sigs.get(),
                                              64 * n, d_status.as<int>());
    };
    if (per_item) {  // on a user stream, the statuses copied out after the call
      DeviceBytes after(sizeof(int) * n);
      ASSERT_EQ(ks::testing::run_between(gpu_ctx_.ctx, after.get(), d_status.get(), 0, call,
                                         after.get(), d_status.get(), sizeof(int) * n),
                KS_OK);
      EXPECT_EQ(after.download_as<int>(n), want_status);
    } else {
      ASSERT_EQ(call(), KS_OK);  // queued
      ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    }
    EXPECT_EQ(d_status.download_as<int>(n), want_status);
    EXPECT_TRUE(d_sigs.download(64 * n) == want) << "signatures differ from the CPU's";
  }
  std::vector<int> host_status(n, 7);
  EXPECT_EQ(ks_ed25519_sign_batch(gpu_ctx_.ctx, key, d_data.get(), data.size(),
                                  d_offsets.as<const uint64_t>(), n, d_sigs.get(), 64 * n,
                                  host_status.data()),
            KS_ERR_MEMORY_MIX);
  EXPECT_EQ(ks_ed25519_sign_batch_keys(gpu_ctx_.ctx, seeds.data(), d_data.get(), data.size(),
                                       d_offsets.as<const uint64_t>(), n, d_sigs.get(), 64 * n,
                                       d_status.as<int>()),
            KS_ERR_MEMORY_MIX);  // host seeds beside device data
  EXPECT_EQ(host_status, std::vector<int>(n, 7));
  ks_ed25519_key_free(key);
}

// Key pairs and public keys of Ed25519 and X25519 with every array in
// device memory: keygen's secrets are drawn on the device, so the CPU
// context computes their public keys and must find the device's; public
// keys of given secrets byte for byte the CPU's; mixed memory refused.
class KeysDevice : public ks_test::GpuAgainstCpu {
 protected:
  KeysDevice() : GpuAgainstCpu(2, 0) {}
};

TEST_F(KeysDevice, KeygenAndPublicKeysMatchTheCpu) {
  SCOPED_TRACE(trace_);
  const size_t n = kItems;
  using Keygen = int (*)(ks_ctx*, size_t, uint8_t*, size_t, uint8_t*, size_t, int*);
  using Publics = int (*)(ks_ctx*, const uint8_t*, size_t, uint8_t*, size_t, int*);
  const struct {
    const char* name;
    Keygen keygen;
    Publics publics;
  } algs[] = {{"ed25519", ks_ed25519_keygen_batch, ks_ed25519_public_keys_batch},
              {"x25519", ks_x25519_keygen_batch, ks_x25519_public_keys_batch}};
  DeviceBytes secrets(32 * n), pubs(32 * n), status(sizeof(int) * n);
  for (const auto& alg : algs) {
    SCOPED_TRACE(alg.name);
    const std::vector<int> ok(n, KS_OK);
    std::vector<int> want_status(n, 98);
    ASSERT_EQ(alg.keygen(gpu_ctx_.ctx, n, secrets.get(), 32 * n, pubs.get(), 32 * n,
                         status.as<int>()),
              KS_OK);
    ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    EXPECT_EQ(status.download_as<int>(n), ok);
    const std::vector<uint8_t> drawn = secrets.download(32 * n);
    std::vector<uint8_t> want(32 * n);
    ASSERT_EQ(alg.publics(cpu_ctx_.ctx, drawn.data(), n, want.data(), want.size(),
                          want_status.data()),
              KS_OK);
    EXPECT_EQ(pubs.download(32 * n), want);
    EXPECT_NE(memcmp(&drawn[0], &drawn[32], 32), 0);
    const std::vector<uint8_t> given = random(32 * n);
    ASSERT_TRUE(secrets.upload(given.data(), given.size()));
    ASSERT_EQ(alg.publics(gpu_ctx_.ctx, secrets.get(), n, pubs.get(), 32 * n, status.as<int>()),
              KS_OK);
    ASSERT_TRUE(ks::testing::stream_sync(nullptr));
    ASSERT_EQ(alg.publics(cpu_ctx_.ctx, given.data(), n, want.data(), want.size(),
                          want_status.data()),
              KS_OK);
    EXPECT_EQ(pubs.download(32 * n), want);
    EXPECT_EQ(status.download_as<int>(n), ok);
    std::vector<uint8_t> host_pubs(32 * n);
    EXPECT_EQ(alg.publics(gpu_ctx_.ctx, secrets.get(), n, host_pubs.data(), host_pubs.size(),
                          status.as<int>()),
              KS_ERR_MEMORY_MIX);
    EXPECT_EQ(alg.keygen(gpu_ctx_.ctx, n, secrets.get(), 32 * n, pubs.get(), 32 * n, nullptr),
              KS_ERR_NULL_POINTER);
  }
}

}  // namespace
