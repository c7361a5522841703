// SM2 on the GPU against the CPU implementation (the oracle): field
// arithmetic on random and edge values, keygen, signatures with given
// nonces, and verification of valid and invalid inputs, >= 100,000 fresh
// items per operation. Skipped where no GPU is present.
#include <gtest/gtest.h>
#include <string.h>

#include <algorithm>
#include <array>
#include <vector>

#include "sm2/sm2_curve.h"
#include "kuaisuo.h"
#include "sm2/sm2.h"
#include "sm2/gpu/sm2_gpu_host.h"
#include "testing/sm2_gpu_testing.h"
#include "test_sm2_util.h"

namespace {

using ks::field::Fn;
using ks::field::Fp;
using ks::field::U256;
using ks::sm2::Error;
namespace gpu = ks::sm2::gpu;

constexpr size_t kItems = 100000;

class GpuSm2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

// U256 <-> 8 little-endian words (the GPU element layout).
void put_words(uint32_t* out, const U256& a) {
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = uint32_t(a.w[i]);
    out[2 * i + 1] = uint32_t(a.w[i] >> 32);
  }
}
U256 get_words(const uint32_t* in) {
  U256 r;
  for (int i = 0; i < 4; ++i) r.w[i] = in[2 * i] | (uint64_t(in[2 * i + 1]) << 32);
  return r;
}

U256 minus(const U256& m, uint64_t k) {
  U256 r;
  ks::field::sub_borrow(r, m, U256{{k, 0, 0, 0}});
  return r;
}

// Inputs below m: the edge values first, then random and word-edgy ones.
std::vector<U256> field_inputs(ks_test::Rng& rng, const U256& m, size_t count) {
  std::vector<U256> v = {U256{{0, 0, 0, 0}}, U256{{1, 0, 0, 0}}, U256{{2, 0, 0, 0}},
                         minus(m, 1),        minus(m, 2),        U256{{0, 0, 0, 1ull << 63}},
                         U256{{~0ull, ~0ull, ~0ull, 0}}, U256{{0, 0, 0, 0xFFFFFFFE00000000ull}}};
  while (v.size() < count) v.push_back(rng.below(m));
  return v;
}

struct FieldCase {
  gpu::FieldOp op;
  U256 (*cpu)(const U256&, const U256&);
  bool fn;  // operands mod n (else mod p)
};

void check_field_op(const FieldCase& c, ks_test::Rng& rng) {
  const U256 m = c.fn ? Fn::kModulus : Fp::kModulus;
  const size_t count = 1 << 16;
  std::vector<U256> a = field_inputs(rng, m, count), b = field_inputs(rng, m, count);
  std::reverse(b.begin(), b.begin() + 8);  // edge values against each other too
  std::vector<uint32_t> wa(8 * count), wb(8 * count), wout(8 * count, 0xA5A5A5A5);
  for (size_t i = 0; i < count; ++i) {
    put_words(&wa[8 * i], a[i]);
    put_words(&wb[8 * i], b[i]);
  }
  ASSERT_EQ(gpu::run_field_op(c.op, wa.data(), wb.data(), wout.data(), count), 0);
  size_t bad = 0;
  for (size_t i = 0; i < count; ++i) {
    const U256 want = c.cpu(a[i], b[i]);
    const U256 got = get_words(&wout[8 * i]);
    if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 5)
      ADD_FAILURE() << "op " << int(c.op) << " item " << i;
  }
  EXPECT_EQ(bad, 0u);
}

TEST_F(GpuSm2, FieldArithmeticMatchesCpu) {
  ks_test::Rng rng(ks_test::random_u32());
  const FieldCase cases[] = {
      {gpu::FieldOp::kFpAdd, [](const U256& a, const U256& b) { return Fp::add(a, b); }, false},
      {gpu::FieldOp::kFpSub, [](const U256& a, const U256& b) { return Fp::sub(a, b); }, false},
      {gpu::FieldOp::kFpMul, [](const U256& a, const U256& b) { return Fp::mul(a, b); }, false},
      {gpu::FieldOp::kFpSqr, [](const U256& a, const U256&) { return Fp::sqr(a); }, false},
      {gpu::FieldOp::kFpNeg, [](const U256& a, const U256&) { return Fp::neg(a); }, false},
      {gpu::FieldOp::kFpHalf, [](const U256& a, const U256&) { return Fp::half(a); }, false},
      {gpu::FieldOp::kFpInv, [](const U256& a, const U256&) { return Fp::inv(a); }, false},
      {gpu::FieldOp::kFnAdd, [](const U256& a, const U256& b) { return Fn::add(a, b); }, true},
      {gpu::FieldOp::kFnSub, [](const U256& a, const U256& b) { return Fn::sub(a, b); }, true},
      {gpu::FieldOp::kFnMontMul, [](const U256& a, const U256& b) { return Fn::mont_mul(a, b); },
       true},
      {gpu::FieldOp::kFnToMont, [](const U256& a, const U256&) { return Fn::to_mont(a); }, true},
      {gpu::FieldOp::kFnInvMont, [](const U256& a, const U256&) { return Fn::inv_mont(a); }, true},
      // the DPF field (field/fp_dpf.cuh) on the GPU's own FMA
      {gpu::FieldOp::kDpfAdd, [](const U256& a, const U256& b) { return Fp::add(a, b); }, false},
      {gpu::FieldOp::kDpfSub, [](const U256& a, const U256& b) { return Fp::sub(a, b); }, false},
      {gpu::FieldOp::kDpfMul, [](const U256& a, const U256& b) { return Fp::mul(a, b); }, false},
      {gpu::FieldOp::kDpfSqr, [](const U256& a, const U256&) { return Fp::sqr(a); }, false},
      {gpu::FieldOp::kDpfNeg, [](const U256& a, const U256&) { return Fp::neg(a); }, false},
      {gpu::FieldOp::kDpfInv, [](const U256& a, const U256&) { return Fp::inv(a); }, false},
  };
  for (const FieldCase& c : cases) check_field_op(c, rng);
}

// Products of values near 2^256 (not canonical mod p, but within what the
// reduction accepts: any 512-bit product): squares of p-1 and all ones.
TEST_F(GpuSm2, ReductionOfExtremeProducts) {
  const U256 vals[] = {minus(Fp::kModulus, 1), U256{{~0ull, ~0ull, ~0ull, ~0ull}},
                       U256{{~0ull, 0, ~0ull, ~0ull}}};
  for (const U256& a : vals)
    for (const U256& b : vals) {
      uint32_t wa[8], wb[8], out[8];
      put_words(wa, a);
      put_words(wb, b);
      ASSERT_EQ(gpu::run_field_op(gpu::FieldOp::kFpMul, wa, wb, out, 1), 0);
      // reference: reduce a and b first (the product mod p is the same)
      const U256 ar = ks::field::subtract_if_ge(a, 0, Fp::kModulus);
      const U256 br = ks::field::subtract_if_ge(b, 0, Fp::kModulus);
      const U256 want = Fp::mul(ar, br), got = get_words(out);
      EXPECT_EQ(memcmp(&want, &got, sizeof want), 0);
    }
}

// Random d in [1, n-2] as 32 big-endian bytes, with edge values first.
std::vector<uint8_t> random_private_keys(ks_test::Rng& rng, size_t count) {
  std::vector<U256> d = {U256{{1, 0, 0, 0}}, U256{{2, 0, 0, 0}}, minus(Fn::kModulus, 2),
                         U256{{0, 0, 0, 1ull << 63}}, U256{{~0ull, ~0ull, ~0ull, ~0ull >> 1}},
                         U256{{0xFFFF, 0, 0, 0}}, U256{{0x18000, 0, 0, 0}}};
  while (d.size() < count) {
    const U256 v = rng.below(minus(Fn::kModulus, 1));
    if (!ks::field::is_zero_mask(v)) d.push_back(v);
  }
  std::vector<uint8_t> out(32 * count);
  for (size_t i = 0; i < count; ++i) ks::field::to_be_bytes(&out[32 * i], d[i]);
  return out;
}

// GPU public keys (poisoned output first) against the CPU's.
void check_keygen(size_t count) {
  ks_test::Rng rng(ks_test::random_u32());
  const std::vector<uint8_t> priv = random_private_keys(rng, count);
  std::vector<uint8_t> pub(65 * count, 0xA5);
  ASSERT_EQ(gpu::run_keygen(priv.data(), pub.data(), count), 0);
  std::vector<uint8_t> bad(count, 0);
  ks_test::parallel_for(count, [&](size_t i) {
    uint8_t want[65];
    const U256 d = ks::field::from_be_bytes(&priv[32 * i]);
    ks::curve::encode_point_uncompressed(want, ks::curve::affine_of(ks::curve::mul_base(d)));
    bad[i] = memcmp(want, &pub[65 * i], 65) != 0;
  });
  EXPECT_EQ(std::count(bad.begin(), bad.end(), 1), 0);
}

TEST_F(GpuSm2, KeygenMatchesCpu) { check_keygen(kItems); }

// A signing workload: keys, digests and nonces, and the CPU's signatures.
struct SignBatch {
  std::vector<ks::sm2::PrivateKey> keys;  // item i uses keys[i % keys.size()]
  std::vector<gpu::SignKey> gpu_keys;     // per item
  std::vector<uint8_t> digests, nonces, cpu_sigs;
  std::vector<int> cpu_status;
};

void make_sign_batch(SignBatch& b, ks_test::Rng& rng, size_t count, size_t key_count) {
  const std::vector<uint8_t> d = random_private_keys(rng, key_count);
  b.keys = std::vector<ks::sm2::PrivateKey>(key_count);
  for (size_t j = 0; j < key_count; ++j)
    ASSERT_EQ(ks::sm2::private_key_from_bytes(b.keys[j], &d[32 * j]), Error::kOk);
  b.gpu_keys.resize(count);
  for (size_t i = 0; i < count; ++i) b.gpu_keys[i] = gpu::sign_key_from(b.keys[i % key_count]);
  b.digests = ks_test::random_bytes(32 * count);
  b.nonces.resize(32 * count);
  for (size_t i = 0; i < count; ++i) {
    U256 k = rng.below(Fn::kModulus);
    if (i % 1000 == 7) k = U256{{0, 0, 0, 0}};  // invalid nonces: 0, n, n + 1
    if (i % 1000 == 8) k = Fn::kModulus;
    if (i % 1000 == 9) ks::field::add_carry(k, Fn::kModulus, U256{{1, 0, 0, 0}});
    ks::field::to_be_bytes(&b.nonces[32 * i], k);
  }
  b.cpu_sigs.assign(64 * count, 0);
  b.cpu_status.resize(count);
  ks_test::parallel_for(count, [&](size_t i) {
    b.cpu_status[i] = int(ks::sm2::sign_digest_with_fixed_nonce(
        &b.cpu_sigs[64 * i], b.keys[i % key_count], &b.digests[32 * i], &b.nonces[32 * i]));
  });
}

void expect_same_signatures(const SignBatch& b, const std::vector<uint8_t>& sigs,
                            const std::vector<int>& status) {
  size_t bad = 0, ok = 0;
  for (size_t i = 0; i < status.size(); ++i) {
    const bool same = status[i] == b.cpu_status[i] &&
                      (status[i] != 0 || memcmp(&sigs[64 * i], &b.cpu_sigs[64 * i], 64) == 0);
    ok += status[i] == 0;
    if (!same && bad++ < 5) ADD_FAILURE() << "item " << i << " status " << status[i];
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(ok, status.size() * 99 / 100);
}

// GPU signatures (poisoned output first) against the CPU's; one key means
// key_stride 0, otherwise per-item keys.
void check_signatures(size_t count, size_t key_count) {
  ks_test::Rng rng(ks_test::random_u32());
  SignBatch b;
  make_sign_batch(b, rng, count, key_count);
  std::vector<uint8_t> sigs(64 * count, 0xA5);
  std::vector<int> status(count, -1);
  ASSERT_EQ(gpu::run_sign_digest(b.digests.data(), b.gpu_keys.data(), key_count == 1 ? 0 : 1,
                                 b.nonces.data(), sigs.data(), status.data(), count),
            0);
  expect_same_signatures(b, sigs, status);
}

TEST_F(GpuSm2, SignaturesMatchCpuPerItemKeys) {
  check_signatures(kItems, 997);
}

TEST_F(GpuSm2, SignaturesMatchCpuOneKey) {
  check_signatures(20000, 1);
}

// Every items-per-thread variant of keygen and sign (the default picks one
// by batch size), on a batch that leaves the last block partly empty.
TEST_F(GpuSm2, EveryItemsPerThreadMatchesCpu) {
  for (int m : {1, 2, 4, 8}) {
    SCOPED_TRACE(m);
    gpu::set_items_per_thread(m);
    check_keygen(20011);
    check_signatures(20011, 13);
  }
  gpu::set_items_per_thread(0);
}

TEST_F(GpuSm2, PreparedSignKeysMatchCpu) {
  ks_test::Rng rng(ks_test::random_u32());
  const size_t count = 4096;
  const std::vector<uint8_t> d = random_private_keys(rng, count);
  std::vector<gpu::SignKey> keys(count);
  ASSERT_EQ(gpu::run_prepare_sign_keys(d.data(), keys.data(), count), 0);
  for (size_t i = 0; i < count; ++i) {
    ks::sm2::PrivateKey k;
    ASSERT_EQ(ks::sm2::private_key_from_bytes(k, &d[32 * i]), Error::kOk);
    const gpu::SignKey want = gpu::sign_key_from(k);
    ASSERT_EQ(memcmp(&want, &keys[i], sizeof want), 0) << "item " << i;
  }
}

// Invalid variants of a valid (pub, e, sig), chosen by kind.
void tamper(int kind, uint8_t* pub, uint8_t* e, uint8_t* sig, const uint8_t* other_pub,
            ks_test::Rng& rng) {
  const size_t bit = rng.word() % 256;
  U256 n = Fn::kModulus;
  switch (kind) {
    case 0: break;                                          // valid
    case 1: e[bit / 8] ^= uint8_t(1 << (bit % 8)); break;    // tampered e
    case 2: sig[bit / 8] ^= uint8_t(1 << (bit % 8)); break;  // tampered r
    case 3: sig[32 + bit / 8] ^= uint8_t(1 << (bit % 8)); break;  // tampered s
    case 4: memcpy(pub, other_pub, 65); break;              // wrong key
    case 5: memset(sig, 0, 32); break;                      // r = 0
    case 6: memset(sig + 32, 0, 32); break;                 // s = 0
    case 7: ks::field::to_be_bytes(sig + 32 * (bit & 1), n); break;          // r or s = n
    case 8: memset(sig + 32 * (bit & 1), 0xFF, 32); break;                    // r or s > n
    case 9: pub[33 + bit / 8] ^= uint8_t(1 << (bit % 8)); break;              // off the curve
    case 10: pub[0] = 0x02; break;                                            // bad prefix
    case 11: ks::field::to_be_bytes(pub + 1, Fp::kModulus); break;            // x = p
    case 12: {  // r + s = n
      const U256 r = ks::field::from_be_bytes(sig);
      ks::field::to_be_bytes(sig + 32, Fn::sub(U256{{0, 0, 0, 0}}, r));
      break;
    }
  }
}

TEST_F(GpuSm2, VerifyAgreesWithCpu) {
  ks_test::Rng rng(ks_test::random_u32());
  SignBatch b;
  make_sign_batch(b, rng, kItems, 997);
  std::vector<uint8_t> pubs(65 * kItems), sigs = b.cpu_sigs, e = b.digests;
  std::vector<std::array<uint8_t, 65>> key_pubs(b.keys.size());
  for (size_t j = 0; j < b.keys.size(); ++j)
    ks::sm2::public_key_to_bytes(key_pubs[j].data(), b.keys[j].pub);
  for (size_t i = 0; i < kItems; ++i) {
    memcpy(&pubs[65 * i], key_pubs[i % b.keys.size()].data(), 65);
    const int kind = (i % 3 == 0) ? 0 : int(rng.word() % 13);
    tamper(kind, &pubs[65 * i], &e[32 * i], &sigs[64 * i],
           key_pubs[(i + 1) % b.keys.size()].data(), rng);
  }
  std::vector<int> status(kItems, -1), want(kItems);
  ASSERT_EQ(gpu::run_verify_digest(pubs.data(), e.data(), sigs.data(), status.data(), kItems), 0);
  ks_test::parallel_for(kItems, [&](size_t i) {
    ks::sm2::PublicKey key;
    const Error decoded = ks::sm2::public_key_from_bytes(key, &pubs[65 * i], 65);
    want[i] = decoded != Error::kOk ? int(Error::kBadPublicKey)
                                    : int(ks::sm2::verify_digest(key, &e[32 * i], &sigs[64 * i]));
  });
  size_t bad = 0, valid = 0;
  for (size_t i = 0; i < kItems; ++i) {
    valid += want[i] == 0;
    if (status[i] != want[i] && bad++ < 5)
      ADD_FAILURE() << "item " << i << " gpu " << status[i] << " cpu " << want[i];
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(valid, kItems / 4);
}

}  // namespace
