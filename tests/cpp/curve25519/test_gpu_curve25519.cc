// Curve25519 on the GPU against the CPU (the oracle), for both GPU fields
// (FP64 / DPF and integer): field operations on random values and on the
// bounds (every limb at its maximum, values near 0, p and 2^255), and
// X25519 on >= 100,000 fresh random items with small-order and
// non-canonical u mixed in, plus the RFC 7748 vectors; Ed25519 keys and
// signatures byte for byte and verification statuses against the CPU's,
// through the kernels and through the batch calls of a GPU context. Skipped where no GPU is
// present.
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <vector>

#include "field/fe25519.h"
#include "kuaisuo.h"
#include "testing/curve25519_gpu_testing.h"
#include "curve25519/ed25519.h"
#include "curve25519/x25519.h"
#include "ed25519_verify_cases.h"
#include "fe25519_test_values.h"
#include "test_util.h"

namespace {

using ks::field::Fe25519;
using ks::field::U256;
using ks_test::edge_or_random;
namespace gpu = ks::curve25519::gpu;

constexpr size_t kItems = 100000;
// Both fixed-base tables of keys and signatures (curve25519_gpu_host.h).
constexpr gpu::BaseTable kBaseTables[] = {gpu::BaseTable::kComb, gpu::BaseTable::kWide};

class GpuCurve25519 : public ::testing::TestWithParam<gpu::Field> {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(GpuCurve25519, FieldMatchesTheCpu) {
  std::mt19937_64 rng(std::random_device{}());
  const size_t count = 1 << 16;
  std::vector<U256> a(count), b(count), out(count);
  for (size_t i = 0; i < count; ++i) a[i] = edge_or_random(rng), b[i] = edge_or_random(rng);
  for (gpu::FieldOp op : {gpu::FieldOp::kAdd, gpu::FieldOp::kSub, gpu::FieldOp::kMul,
                          gpu::FieldOp::kSqr, gpu::FieldOp::kMulSmall, gpu::FieldOp::kInv,
                          gpu::FieldOp::kMulChain}) {
    memset(out.data(), 0xA5, sizeof(U256) * count);  // every output must be written
    const size_t n = op == gpu::FieldOp::kInv ? 4096 : count;
    ASSERT_EQ(gpu::run_field_op(GetParam(), op, &a[0].w[0], &b[0].w[0], &out[0].w[0], n, 7), 0);
    for (size_t i = 0; i < n; ++i) {
      const U256 want = Fe25519::canonical(ks::field::apply<Fe25519>(op, a[i], b[i], 7));
      ASSERT_TRUE(ks::field::eq_mask(out[i], want))
          << "op " << int(op) << " item " << i << ": a " << ks_test::to_hex((const uint8_t*)&a[i], 32);
    }
  }
}

// The DPF field on the GPU's own round-toward-zero FMA at its limb bounds
// (ks_test::dpf_limbs_at_bounds; test_fe25519_dpf.cc runs the same on the
// host's emulation).
TEST(GpuCurve25519Dpf, BoundsAtTheLimbMaxima) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(std::random_device{}());
  const size_t count = 1 << 15;
  const std::vector<uint64_t> a = ks_test::dpf_limbs_at_bounds(rng, count),
                              b = ks_test::dpf_limbs_at_bounds(rng, count);
  std::vector<U256> out(count);
  for (gpu::FieldOp op : {gpu::FieldOp::kAdd, gpu::FieldOp::kSub, gpu::FieldOp::kMul,
                          gpu::FieldOp::kSqr, gpu::FieldOp::kMulSmall, gpu::FieldOp::kMulChain}) {
    memset(out.data(), 0xA5, sizeof(U256) * count);
    ASSERT_EQ(gpu::run_dpf_limb_op(op, a.data(), b.data(), &out[0].w[0], count, 7), 0);
    for (size_t i = 0; i < count; ++i) {
      const U256 want = Fe25519::canonical(
          ks::field::apply<Fe25519>(op, ks_test::limbs_value(&a[5 * i]),
                                    ks_test::limbs_value(&b[5 * i]), 7));
      ASSERT_TRUE(ks::field::eq_mask(out[i], want)) << "op " << int(op) << " item " << i;
    }
  }
}

std::vector<uint8_t> gpu_x25519(gpu::Field field, const std::vector<uint8_t>& k, size_t stride,
                                const std::vector<uint8_t>& u, std::vector<int>* status,
                                int per_thread = 0) {
  const size_t count = u.size() / 32;
  std::vector<uint8_t> out(32 * count, 0xA5);
  status->assign(count, -7);
  EXPECT_EQ(gpu::run_x25519(field, k.data(), stride, u.data(), out.data(), status->data(), count,
                            per_thread),
            0);
  return out;
}

TEST_P(GpuCurve25519, X25519MatchesTheCpuOnFreshRandomItems) {
  std::vector<uint8_t> k = ks_test::random_bytes(32 * kItems), u = ks_test::random_bytes(32 * kItems);
  // Small-order and non-canonical u, and u with the top bit set, mixed in.
  const std::vector<uint8_t> special[] = {
      std::vector<uint8_t>(32, 0),
      ks_test::from_hex("0100000000000000000000000000000000000000000000000000000000000000"),
      ks_test::from_hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
      ks_test::from_hex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
      ks_test::from_hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
  };
  for (size_t i = 0; i < kItems; i += 997)
    memcpy(&u[32 * i], special[(i / 997) % 5].data(), 32);
  std::vector<uint8_t> want(32 * kItems);
  std::vector<int> want_zero(kItems);
  ks_test::parallel_for(kItems, [&](size_t i) {
    want_zero[i] = ks::x25519::shared_secret(&want[32 * i], &k[32 * i], &u[32 * i]) !=
                   ks::x25519::Error::kOk;
  });
  // Every count of items a thread (the small-order u land at every place
  // in a thread's group: their z of zero shares the group's inversion),
  // and the launcher's own choice; kItems is not a multiple of 3 (a last
  // thread with fewer items).
  std::vector<int> status;
  for (int per_thread : {1, 2, 3, 4, 0}) {
    const std::vector<uint8_t> out = gpu_x25519(GetParam(), k, 1, u, &status, per_thread);
    for (size_t i = 0; i < kItems; ++i) {
      ASSERT_EQ(memcmp(&out[32 * i], &want[32 * i], 32), 0) << "item " << i << " of " << per_thread;
      ASSERT_EQ(status[i], want_zero[i]) << "item " << i << " of " << per_thread;
    }
  }
  // One key for the whole batch.
  const std::vector<uint8_t> one_key(k.begin(), k.begin() + 32);
  const std::vector<uint8_t> shared = gpu_x25519(GetParam(), one_key, 0, u, &status);
  for (size_t i = 0; i < kItems; i += 101) {
    uint8_t w[32];
    ks::x25519::shared_secret(w, one_key.data(), &u[32 * i]);
    ASSERT_EQ(memcmp(&shared[32 * i], w, 32), 0) << "item " << i;
  }
}

// RFC 7748 5.2 and the public keys of 6.1.
TEST_P(GpuCurve25519, Rfc7748Vectors) {
  std::vector<uint8_t> k = ks_test::from_hex(
      "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"
      "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  std::vector<uint8_t> u = ks_test::from_hex(
      "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"
      "0900000000000000000000000000000000000000000000000000000000000000");
  std::vector<int> status;
  const std::vector<uint8_t> out = gpu_x25519(GetParam(), k, 1, u, &status);
  EXPECT_EQ(ks_test::to_hex(out.data(), 32),
            "C3DA55379DE9C6908E94EA4DF28D084F32ECCF03491C71F754B4075577A28552");
  EXPECT_EQ(ks_test::to_hex(out.data() + 32, 32),
            "8520F0098930A754748B7DDCB43EF75A0DBF3A0D26381AF4EBA4A98EAA9B4E6A");
}

// Ed25519 public keys and signatures (deterministic: byte for byte) in two
// code layouts against the CPU on fresh random seeds and messages of 0 to
// 300 bytes: one key for the batch, and a key per item from its seed. The
// count leaves a partial last warp (whose spare lanes join the comb's
// shuffles on a copy of the last item). The first seeds, used directly as
// X25519 private keys, put the wide table's edge digits (0, +-2^15,
// +-(2^15 - 1)) in every window.
TEST_P(GpuCurve25519, Ed25519KeysAndSignaturesMatchTheCpu) {
  std::mt19937_64 rng(std::random_device{}());
  const size_t n = 20000 + 13;
  std::vector<uint8_t> seeds = ks_test::random_bytes(32 * n);
  const uint16_t edge_windows[] = {0x0000, 0xFFFF, 0x8000, 0x7FFF, 0x4000, 0xC000, 0x0001};
  for (size_t e = 0; e < sizeof(edge_windows) / sizeof(edge_windows[0]); ++e)
    for (int w = 0; w < 16; ++w) {
      seeds[32 * e + 2 * w] = uint8_t(edge_windows[e]);
      seeds[32 * e + 2 * w + 1] = uint8_t(edge_windows[e] >> 8);
    }
  std::vector<uint8_t> data;
  std::vector<uint64_t> offsets{0};
  for (size_t i = 0; i < n; ++i) {
    const std::vector<uint8_t> m = ks_test::random_bytes(rng() % 301);
    data.insert(data.end(), m.begin(), m.end());
    offsets.push_back(data.size());
  }
  std::vector<ks::ed25519::PrivateKey> keys(n);
  std::vector<uint8_t> want_one(64 * n), want_each(64 * n);
  // Every key first: the one-key signatures below all read keys[0].
  ks_test::parallel_for(n, [&](size_t i) { ks::ed25519::key_from_seed(keys[i], &seeds[32 * i]); });
  ks_test::parallel_for(n, [&](size_t i) {
    const uint8_t* m = data.data() + offsets[i];
    const size_t len = size_t(offsets[i + 1] - offsets[i]);
    ks::ed25519::sign(&want_one[64 * i], keys[0], ks::ed25519::Domain(), m, len);
    ks::ed25519::sign(&want_each[64 * i], keys[i], ks::ed25519::Domain(), m, len);
  });
  uint8_t key96[ks::ed25519::kDeviceKeyBytes];
  ks::ed25519::device_key_bytes(key96, keys[0]);
  for (gpu::BaseTable base : kBaseTables)
  for (gpu::Layout layout : {gpu::Layout::kInline, gpu::Layout::kOutOfLineFourBlocks}) {
    SCOPED_TRACE(base == gpu::BaseTable::kWide ? "wide table" : "comb");
    std::vector<uint8_t> pubs(32 * n, 0xA5), sigs(64 * n, 0xA5);
    ASSERT_EQ(
        gpu::run_ed25519_public_keys(GetParam(), layout, seeds.data(), pubs.data(), n, base), 0);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(memcmp(&pubs[32 * i], keys[i].pub.bytes, 32), 0) << "item " << i;
    ASSERT_EQ(
        gpu::run_x25519_public_keys(GetParam(), layout, seeds.data(), pubs.data(), n, base), 0);
    for (size_t i = 0; i < n; ++i) {
      uint8_t want[32];
      ks::x25519::public_key(want, &seeds[32 * i]);
      ASSERT_EQ(memcmp(&pubs[32 * i], want, 32), 0) << "X25519 public key, item " << i;
    }
    ASSERT_EQ(gpu::run_ed25519_sign(GetParam(), layout, key96, nullptr, data.data(),
                                    offsets.data(), sigs.data(), n, base),
              0);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(memcmp(&sigs[64 * i], &want_one[64 * i], 64), 0) << "one key, item " << i;
    ASSERT_EQ(gpu::run_ed25519_sign(GetParam(), layout, nullptr, seeds.data(), data.data(),
                                    offsets.data(), sigs.data(), n, base),
              0);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(memcmp(&sigs[64 * i], &want_each[64 * i], 64), 0) << "per-item key, item " << i;
  }
}

// Public keys and signatures of batches large enough that each thread
// computes several (sharing inversions: 4 a thread from four resident
// waves' worth, 2 from one, on any GPU up to ~290 SMs), with a partial
// last group, against the CPU on fresh random seeds and messages of 0 to
// 199 bytes; signatures under one key and under each item's seed.
TEST_P(GpuCurve25519, KeysAndSignaturesOfLargeBatchesMatchTheCpu) {
  const size_t n = 300007;
  const std::vector<uint8_t> seeds = ks_test::random_bytes(32 * n);
  std::vector<uint64_t> offsets(n + 1, 0);
  for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + (i * 13) % 200;
  const std::vector<uint8_t> data = ks_test::random_bytes(offsets[n]);
  ks::ed25519::PrivateKey one_key;
  ks::ed25519::key_from_seed(one_key, &seeds[0]);
  std::vector<uint8_t> want(32 * n), want_u(32 * n), want_one(64 * n), want_each(64 * n);
  ks_test::parallel_for(n, [&](size_t i) {
    ks::ed25519::PrivateKey k;
    ks::ed25519::key_from_seed(k, &seeds[32 * i]);
    memcpy(&want[32 * i], k.pub.bytes, 32);
    ks::x25519::public_key(&want_u[32 * i], &seeds[32 * i]);
    const uint8_t* m = data.data() + offsets[i];
    const size_t len = size_t(offsets[i + 1] - offsets[i]);
    ks::ed25519::sign(&want_one[64 * i], one_key, ks::ed25519::Domain(), m, len);
    ks::ed25519::sign(&want_each[64 * i], k, ks::ed25519::Domain(), m, len);
  });
  uint8_t key96[ks::ed25519::kDeviceKeyBytes];
  ks::ed25519::device_key_bytes(key96, one_key);
  for (gpu::BaseTable base : kBaseTables)
  for (size_t count : {n, size_t(70001)}) {
    SCOPED_TRACE(base == gpu::BaseTable::kWide ? "wide table" : "comb");
    std::vector<uint8_t> pubs(32 * count, 0xA5), sigs(64 * count, 0xA5);
    ASSERT_EQ(gpu::run_ed25519_public_keys(GetParam(), gpu::Layout::kInline, seeds.data(),
                                           pubs.data(), count, base), 0);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(memcmp(&pubs[32 * i], &want[32 * i], 32), 0) << count << " item " << i;
    ASSERT_EQ(gpu::run_x25519_public_keys(GetParam(), gpu::Layout::kInline, seeds.data(),
                                          pubs.data(), count, base), 0);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(memcmp(&pubs[32 * i], &want_u[32 * i], 32), 0) << count << " X25519 item " << i;
    ASSERT_EQ(gpu::run_ed25519_sign(GetParam(), gpu::Layout::kInline, key96, nullptr, data.data(),
                                    offsets.data(), sigs.data(), count, base), 0);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(memcmp(&sigs[64 * i], &want_one[64 * i], 64), 0) << count << " one key, item " << i;
    ASSERT_EQ(gpu::run_ed25519_sign(GetParam(), gpu::Layout::kInline, nullptr, seeds.data(),
                                    data.data(), offsets.data(), sigs.data(), count, base), 0);
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(memcmp(&sigs[64 * i], &want_each[64 * i], 64), 0) << count << " seed, item " << i;
  }
}

// Ed25519 verification in every code layout against the CPU's statuses
// on >= 100,000 fresh items, valid and bad mixed
// (tests/cpp/curve25519/ed25519_verify_cases.h), messages of 0 to 300 bytes.
TEST_P(GpuCurve25519, Ed25519VerifyMatchesTheCpuOnFreshItems) {
  std::mt19937_64 rng(std::random_device{}());
  const ks_test::VerifyItems items = ks_test::make_verify_items(kItems, 256, rng);
  const std::vector<int> want = ks_test::cpu_verify_statuses(items);
  for (gpu::Layout layout :
       {gpu::Layout::kInline, gpu::Layout::kOutOfLine, gpu::Layout::kOutOfLineFourBlocks}) {
    std::vector<int> got(kItems, -1);
    ASSERT_EQ(gpu::run_ed25519_verify(GetParam(), layout, items.pubs.data(), items.sigs.data(),
                                      items.data.data(), items.offsets.data(), got.data(), kItems),
              0);
    for (size_t i = 0; i < kItems; ++i)
      ASSERT_EQ(got[i], want[i]) << "layout " << int(layout) << " item " << i << " pub "
                                 << ks_test::to_hex(&items.pubs[32 * i], 32) << " sig "
                                 << ks_test::to_hex(&items.sigs[64 * i], 64);
  }
  int none = -1;  // an empty batch launches nothing
  EXPECT_EQ(gpu::run_ed25519_verify(GetParam(), gpu::Layout::kInline, nullptr, nullptr, nullptr,
                                    items.offsets.data(), &none, 0),
            0);
}

// ---- Through the C API on a GPU context (the engine's pipeline), the CPU
// context's batch as the oracle ----------------------------------------------

// A pinned (ks_host_alloc) or ordinary buffer of n bytes.
struct HostBuffer {
  uint8_t* p = nullptr;
  std::vector<uint8_t> own;
  HostBuffer(size_t n, bool pinned) {
    if (pinned) {
      void* q = nullptr;
      EXPECT_EQ(ks_host_alloc(n, &q), KS_OK);
      p = static_cast<uint8_t*>(q);
    } else {
      own.resize(n);
      p = own.data();
    }
  }
  ~HostBuffer() {
    if (own.empty()) ks_host_free(p);
  }
};

// X25519 batches of an odd size (chunk edges), per-item keys and one key,
// small-order peers mixed in (per-item KS_ERR_ZERO_SHARED_SECRET, an
// all-zero output), from ordinary and from pinned caller buffers.
TEST(GpuCurve25519Api, X25519BatchMatchesTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), cpu_ctx(KS_BACKEND_CPU, 0);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(cpu_ctx.rc, KS_OK);
  const size_t n = kItems + 3;
  for (bool pinned : {false, true}) {
    HostBuffer keys(32 * n, pinned), peers(32 * n, pinned), shared(32 * n, pinned);
    const std::vector<uint8_t> k = ks_test::random_bytes(32 * n), u = ks_test::random_bytes(32 * n);
    memcpy(keys.p, k.data(), k.size());
    memcpy(peers.p, u.data(), u.size());
    for (size_t i = 5; i < n; i += 1009) memset(peers.p + 32 * i, 0, 32);  // u = 0: small order
    std::vector<uint8_t> want(32 * n);
    std::vector<int> got_status(n, 99), want_status(n, 98);
    for (int per_item : {1, 0}) {
      memset(shared.p, 0xA5, 32 * n);
      const auto derive = per_item ? ks_x25519_derive_batch_keys : ks_x25519_derive_batch;
      const int rc = derive(gpu_ctx.ctx, keys.p, peers.p, n, shared.p, 32 * n, got_status.data());
      const int want_rc = derive(cpu_ctx.ctx, keys.p, peers.p, n, want.data(), want.size(),
                                 want_status.data());
      ASSERT_EQ(want_rc, KS_ERR_BATCH_ITEMS);  // the small-order peers
      ASSERT_EQ(rc, want_rc) << "pinned " << pinned << " per_item " << per_item;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got_status[i], want_status[i]) << "item " << i;
        ASSERT_EQ(memcmp(shared.p + 32 * i, &want[32 * i], 32), 0)
            << "pinned " << pinned << " per_item " << per_item << " item " << i;
      }
    }
  }
  EXPECT_EQ(ks_x25519_derive_batch_keys(gpu_ctx.ctx, nullptr, nullptr, 0, nullptr, 0, nullptr),
            KS_OK);
}

// Ed25519 verification batches of an odd size on a GPU context, valid and
// bad items mixed, from ordinary and pinned caller buffers: the same call
// status and per-item statuses as the CPU context.
TEST(GpuCurve25519Api, Ed25519VerifyBatchMatchesTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), cpu_ctx(KS_BACKEND_CPU, 0);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(cpu_ctx.rc, KS_OK);
  std::mt19937_64 rng(std::random_device{}());
  const size_t n = kItems + 3;
  const ks_test::VerifyItems items = ks_test::make_verify_items(n, 256, rng);
  std::vector<int> want(n, 98);
  const int want_rc =
      ks_ed25519_verify_batch(cpu_ctx.ctx, items.pubs.data(), items.data.data(), items.data.size(),
                              items.offsets.data(), n, items.sigs.data(), want.data());
  ASSERT_EQ(want_rc, KS_ERR_BATCH_ITEMS);
  for (bool pinned : {false, true}) {
    HostBuffer pubs(items.pubs.size(), pinned), sigs(items.sigs.size(), pinned),
        data(items.data.size(), pinned);
    memcpy(pubs.p, items.pubs.data(), items.pubs.size());
    memcpy(sigs.p, items.sigs.data(), items.sigs.size());
    memcpy(data.p, items.data.data(), items.data.size());
    std::vector<int> got(n, 99);
    EXPECT_EQ(ks_ed25519_verify_batch(gpu_ctx.ctx, pubs.p, data.p, items.data.size(),
                                      items.offsets.data(), n, sigs.p, got.data()),
              want_rc);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "pinned " << pinned << " item " << i;
    EXPECT_EQ(ks_ed25519_verify_batch(gpu_ctx.ctx, pubs.p, data.p, items.data.size(),
                                      items.offsets.data(), n, sigs.p, nullptr),
              want_rc);  // no status array: the call's status alone
  }
  const uint64_t zero = 0;
  EXPECT_EQ(ks_ed25519_verify_batch(gpu_ctx.ctx, nullptr, nullptr, 0, &zero, 0, nullptr, nullptr),
            KS_OK);
}

// Ed25519 public keys and signatures (one key and per-item seeds) on a
// GPU context, messages of every length 0..300 in the flat layout, from
// ordinary and pinned caller buffers: byte-identical to the CPU context;
// keygen's fresh seeds give the public keys the CPU derives from them.
// With the default comb and with KS_GPU_WIDE_BASE_TABLE.
class GpuCurve25519Api : public ::testing::TestWithParam<uint32_t> {};

TEST_P(GpuCurve25519Api, KeysAndSignBatchesMatchTheCpu) {
  if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ks_test::Context gpu_ctx(KS_BACKEND_GPU, 0, GetParam()), cpu_ctx(KS_BACKEND_CPU, 0);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  ASSERT_EQ(cpu_ctx.rc, KS_OK);
  const size_t n = kItems + 3;
  std::vector<uint64_t> offsets(n + 1, 0);
  for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + (i * 37) % 301;
  const std::vector<uint8_t> seeds_v = ks_test::random_bytes(32 * n);
  const std::vector<uint8_t> data_v = ks_test::random_bytes(offsets[n]);
  ks_ed25519_key* key = nullptr;
  ASSERT_EQ(ks_ed25519_key_generate(&key), KS_OK);
  std::vector<uint8_t> want_pubs(32 * n), want_one(64 * n), want_per(64 * n);
  ASSERT_EQ(ks_ed25519_public_keys_batch(cpu_ctx.ctx, seeds_v.data(), n, want_pubs.data(),
                                         want_pubs.size(), nullptr), KS_OK);
  ASSERT_EQ(ks_ed25519_sign_batch(cpu_ctx.ctx, key, data_v.data(), data_v.size(), offsets.data(),
                                  n, want_one.data(), want_one.size(), nullptr), KS_OK);
  ASSERT_EQ(ks_ed25519_sign_batch_keys(cpu_ctx.ctx, seeds_v.data(), data_v.data(), data_v.size(),
                                       offsets.data(), n, want_per.data(), want_per.size(),
                                       nullptr), KS_OK);
  for (bool pinned : {false, true}) {
    HostBuffer seeds(seeds_v.size(), pinned), data(data_v.size() + 1, pinned),
        pubs(32 * n, pinned), sigs(64 * n, pinned);
    memcpy(seeds.p, seeds_v.data(), seeds_v.size());
    memcpy(data.p, data_v.data(), data_v.size());
    std::vector<int> status(n, 99);
    ASSERT_EQ(ks_ed25519_public_keys_batch(gpu_ctx.ctx, seeds.p, n, pubs.p, 32 * n,
                                           status.data()), KS_OK);
    EXPECT_EQ(memcmp(pubs.p, want_pubs.data(), 32 * n), 0) << "pinned " << pinned;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(status[i], KS_OK) << "item " << i;
    ASSERT_EQ(ks_ed25519_sign_batch(gpu_ctx.ctx, key, data.p, data_v.size(), offsets.data(), n,
                                    sigs.p, 64 * n, nullptr), KS_OK);
    EXPECT_EQ(memcmp(sigs.p, want_one.data(), 64 * n), 0) << "one key, pinned " << pinned;
    ASSERT_EQ(ks_ed25519_sign_batch_keys(gpu_ctx.ctx, seeds.p, data.p, data_v.size(),
                                         offsets.data(), n, sigs.p, 64 * n, status.data()),
              KS_OK);
    EXPECT_EQ(memcmp(sigs.p, want_per.data(), 64 * n), 0) << "per-item seeds, pinned " << pinned;
    ASSERT_EQ(ks_ed25519_keygen_batch(gpu_ctx.ctx, n, seeds.p, 32 * n, pubs.p, 32 * n, nullptr),
              KS_OK);
    std::vector<uint8_t> derived(32 * n);
    ASSERT_EQ(ks_ed25519_public_keys_batch(cpu_ctx.ctx, seeds.p, n, derived.data(),
                                           derived.size(), nullptr), KS_OK);
    EXPECT_EQ(memcmp(pubs.p, derived.data(), 32 * n), 0) << "keygen, pinned " << pinned;
    EXPECT_NE(memcmp(seeds.p, seeds_v.data(), 32 * n), 0);  // fresh seeds were drawn
    // X25519 keys: the GPU's comb against the CPU context.
    ASSERT_EQ(ks_x25519_keygen_batch(gpu_ctx.ctx, n, seeds.p, 32 * n, pubs.p, 32 * n,
                                     status.data()), KS_OK);
    ASSERT_EQ(ks_x25519_public_keys_batch(cpu_ctx.ctx, seeds.p, n, derived.data(), derived.size(),
                                          nullptr), KS_OK);
    EXPECT_EQ(memcmp(pubs.p, derived.data(), 32 * n), 0) << "X25519 keygen, pinned " << pinned;
  }
  ks_ed25519_key_free(key);
}

INSTANTIATE_TEST_SUITE_P(BaseTables, GpuCurve25519Api,
                         ::testing::Values(0u, KS_GPU_WIDE_BASE_TABLE),
                         [](const ::testing::TestParamInfo<uint32_t>& info) {
                           return std::string(info.param != 0 ? "WideTable" : "Comb");
                         });

INSTANTIATE_TEST_SUITE_P(Fields, GpuCurve25519,
                         ::testing::Values(gpu::Field::kDpf, gpu::Field::kInteger),
                         [](const ::testing::TestParamInfo<gpu::Field>& info) {
                           return std::string(info.param == gpu::Field::kDpf ? "Dpf" : "Integer");
                         });

}  // namespace
