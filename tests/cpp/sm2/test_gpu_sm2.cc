// SM2 on the GPU against the CPU implementation (the oracle): field
// arithmetic on random and edge values, keygen, signatures with given
// nonces, and verification of valid and invalid inputs, >= 100,000 fresh
// items per operation; batches under one public key through the C API on a
// GPU context (the key's table path) against the CPU. Skipped where no GPU
// is present.
#include <gtest/gtest.h>
#include <string.h>

#include <algorithm>
#include <array>
#include <vector>

#include "sm2/sm2_curve.h"
#include "kuaisuo.h"
#include "sm2/sm2.h"
#include "sm2/gpu/sm2_gpu_batch.h"
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

// t = r + s = n - 6 makes the last 5-bit window of [t]P a doubling (n = 3
// mod 32): valid signatures of that shape, e chosen to fit, under keys
// that differ item to item, verify on the device as on the CPU; every
// third is made invalid.
TEST_F(GpuSm2, VerifyWithTInTheDoublingCase) {
  ks_test::Rng rng(ks_test::random_u32());
  constexpr size_t kCount = 4096;
  std::vector<uint8_t> pubs(65 * kCount), e(32 * kCount), sigs(64 * kCount);
  U256 t;
  ks::field::sub_borrow(t, Fn::kModulus, U256{{6, 0, 0, 0}});
  for (size_t i = 0; i < kCount; ++i) {
    ks::sm2::PrivateKey key;
    const std::vector<uint8_t> d = random_private_keys(rng, 1);
    ASSERT_EQ(ks::sm2::private_key_from_bytes(key, d.data()), Error::kOk);
    ks::sm2::public_key_to_bytes(&pubs[65 * i], key.pub);
    U256 s = rng.below(Fn::kModulus), r = Fn::sub(t, s);
    while (ks::field::is_zero_mask(s) || ks::field::is_zero_mask(r)) {
      s = rng.below(Fn::kModulus);
      r = Fn::sub(t, s);
    }
    ks::curve::Affine x;
    ASSERT_TRUE(ks::curve::to_affine_checked(
        x, ks::curve::mul_base_add_point_vartime(s, t, key.pub.point)));
    ks::field::to_be_bytes(&sigs[64 * i], r);
    ks::field::to_be_bytes(&sigs[64 * i + 32], s);
    ks::field::to_be_bytes(&e[32 * i], Fn::sub(r, Fn::reduce_once(x.x)));
    if (i % 3 == 2) e[32 * i + 31] ^= 1;
  }
  std::vector<int> status(kCount, -1);
  ASSERT_EQ(gpu::run_verify_digest(pubs.data(), e.data(), sigs.data(), status.data(), kCount), 0);
  size_t bad = 0;
  for (size_t i = 0; i < kCount; ++i) {
    const int want = i % 3 == 2 ? int(Error::kVerifyFailed) : int(Error::kOk);
    if (status[i] != want && bad++ < 5) ADD_FAILURE() << "item " << i << " gpu " << status[i];
  }
  EXPECT_EQ(bad, 0u);
}

// ---- One public key for the batch (the key's table on the device) ----------------
// ks_status of a verification's ks::sm2::Error (the C API's mapping).
int api_status(Error e) {
  switch (e) {
    case Error::kOk: return KS_OK;
    case Error::kBadPublicKey: return KS_ERR_BAD_PUBLIC_KEY;
    case Error::kSignatureOutOfRange: return KS_ERR_SIGNATURE_RANGE;
    case Error::kVerifyFailed: return KS_ERR_VERIFY_FAILED;
    default: return KS_ERR_INTERNAL;
  }
}

// A batch of (key, digest, signature) items, as the C API takes them.
struct VerifyItems {
  std::vector<uint8_t> pubs, e, sigs;
  size_t count() const { return e.size() / 32; }
};

U256 scalar_mod_n(const U256& a) { return ks::field::subtract_if_ge(a, 0, Fn::kModulus); }

// Items under P = G (d = 1) whose additions meet the cases honest data
// never does, for every key table width (8, 12, 16 bits): s = a and t = a
// + 2^16 X with a < 2^7, so that G's table gives [a]G and P's first window
// adds [a]G again (the doubling); t = 2^16 X - a (P's first entry is -[a]G:
// the sum is infinity mid-way); valid signatures for both (e chosen). And t
// = n - s: [s]G + [t]P is the point at infinity (fails).
void exceptional_item(int kind, ks_test::Rng& rng, uint8_t* e, uint8_t* sig) {
  const uint64_t a = 1 + rng.word() % 127;
  U256 s = {{a, 0, 0, 0}}, t;
  U256 x = rng.any();
  x.w[3] >>= 20;  // X < 2^236: t < 2^252, below n and not folded
  const U256 shifted = {{x.w[0] << 16, (x.w[1] << 16) | (x.w[0] >> 48),
                         (x.w[2] << 16) | (x.w[1] >> 48), (x.w[3] << 16) | (x.w[2] >> 48)}};
  if (kind == 0) {
    ks::field::add_carry(t, shifted, s);
  } else if (kind == 1) {
    ks::field::sub_borrow(t, shifted, s);
  } else {
    s = rng.below(Fn::kModulus);
    if (ks::field::is_zero_mask(s)) s = U256{{3, 0, 0, 0}};
    t = Fn::sub(U256{{0, 0, 0, 0}}, s);
  }
  const U256 r = Fn::sub(t, s);
  ks::field::to_be_bytes(sig, r);
  ks::field::to_be_bytes(sig + 32, s);
  if (kind == 2) return;  // e stays random
  const ks::curve::Affine q = ks::curve::affine_of(ks::curve::mul_base(Fn::add(s, t)));
  ks::field::to_be_bytes(e, Fn::sub(r, scalar_mod_n(q.x)));  // r = e + x1 mod n
}

// count items under one key (d = 1 where key_is_g, else a random one):
// CPU signatures, one item in three left valid, the others tampered in
// every way that keeps the key (e, r, s, r or s = 0, = n, > n, r + s = n;
// and the unusable nonces of make_sign_batch give r = s = 0); with P = G,
// one item in five is one of exceptional_item's.
VerifyItems one_key_items(ks_test::Rng& rng, size_t count, bool key_is_g) {
  SignBatch b;
  make_sign_batch(b, rng, count, 1);  // keys[0] has d = 1 (random_private_keys' first)
  ks::sm2::PrivateKey key = b.keys[0];
  if (!key_is_g) {
    const std::vector<uint8_t> d = random_private_keys(rng, 8);
    EXPECT_EQ(ks::sm2::private_key_from_bytes(key, &d[32 * 7]), Error::kOk);
  }
  VerifyItems v;
  v.e = b.digests;
  v.sigs.assign(64 * count, 0);
  if (!key_is_g) {  // sign again under the random key
    ks_test::parallel_for(count, [&](size_t i) {
      ks::sm2::sign_digest_with_fixed_nonce(&v.sigs[64 * i], key, &v.e[32 * i], &b.nonces[32 * i]);
    });
  } else {
    v.sigs = b.cpu_sigs;
  }
  uint8_t pub[65];
  ks::sm2::public_key_to_bytes(pub, key.pub);
  v.pubs.resize(65 * count);
  static const int kKeptKey[] = {0, 1, 2, 3, 5, 6, 7, 8, 12};  // tamper kinds that keep the key
  for (size_t i = 0; i < count; ++i) {
    memcpy(&v.pubs[65 * i], pub, 65);
    if (key_is_g && i % 5 == 4) {
      exceptional_item(int(rng.word() % 3), rng, &v.e[32 * i], &v.sigs[64 * i]);
      continue;
    }
    const int kind = (i % 3 == 0) ? 0 : kKeptKey[rng.word() % 9];
    tamper(kind, &v.pubs[65 * i], &v.e[32 * i], &v.sigs[64 * i], pub, rng);
  }
  return v;
}

// The CPU's verdict on each item (ks::sm2::verify_digest), as ks_status.
std::vector<int> cpu_statuses(const VerifyItems& v) {
  std::vector<int> want(v.count());
  ks_test::parallel_for(v.count(), [&](size_t i) {
    ks::sm2::PublicKey key;
    const Error decoded = ks::sm2::public_key_from_bytes(key, &v.pubs[65 * i], 65);
    want[i] = api_status(decoded != Error::kOk
                             ? decoded
                             : ks::sm2::verify_digest(key, &v.e[32 * i], &v.sigs[64 * i]));
  });
  return want;
}

// ks_sm2_verify_digest_batch on a GPU context against the CPU, item by
// item; whether the batch ran over a key table must be `one_key_path`.
void expect_gpu_matches_cpu(const VerifyItems& v, bool one_key_path) {
  ks_test::Context gpu_ctx(KS_BACKEND_GPU);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  const size_t n = v.count();
  std::vector<int> status(n, -1);
  const uint64_t before = gpu::one_key_batches();
  const int rc =
      ks_sm2_verify_digest_batch(gpu_ctx.ctx, v.pubs.data(), v.e.data(), n, v.sigs.data(),
                                 status.data());
  EXPECT_EQ(gpu::one_key_batches() - before, one_key_path ? 1u : 0u);
  const std::vector<int> want = cpu_statuses(v);
  size_t bad = 0, valid = 0;
  for (size_t i = 0; i < n; ++i) {
    valid += want[i] == KS_OK;
    if (status[i] != want[i] && bad++ < 5)
      ADD_FAILURE() << "item " << i << " gpu " << status[i] << " cpu " << want[i];
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(rc, valid == n ? KS_OK : KS_ERR_BATCH_ITEMS);
}

// 100,000 items: below 2^18, a 12-bit table (or the cached one).
TEST_F(GpuSm2, OneKeyBatchAgreesWithCpu) {
  ks_test::Rng rng(ks_test::random_u32());
  const VerifyItems v = one_key_items(rng, kItems, false);
  expect_gpu_matches_cpu(v, true);
  expect_gpu_matches_cpu(v, true);  // again: the table kept from the first call
}

// P = G, so that the exceptional additions are reached, with both the
// 12-bit table (a batch below 2^18) and the 16-bit one (2^18 and more).
TEST_F(GpuSm2, OneKeyExceptionalAdditionsAgreeWithCpu) {
  ks_test::Rng rng(ks_test::random_u32());
  expect_gpu_matches_cpu(one_key_items(rng, 20000, true), true);
  expect_gpu_matches_cpu(one_key_items(rng, (size_t(1) << 18) + 1000, true), true);
}

// One item's key differs: the per-item path, same statuses.
TEST_F(GpuSm2, KeysDifferingInOneItemTakeThePerItemPath) {
  ks_test::Rng rng(ks_test::random_u32());
  VerifyItems v = one_key_items(rng, kItems, false);
  const size_t odd = rng.word() % kItems;
  const std::vector<uint8_t> d = random_private_keys(rng, 8);
  ks::sm2::PrivateKey other;
  ASSERT_EQ(ks::sm2::private_key_from_bytes(other, &d[32 * 7]), Error::kOk);
  ks::sm2::public_key_to_bytes(&v.pubs[65 * odd], other.pub);
  ASSERT_EQ(ks::sm2::sign_digest(&v.sigs[64 * odd], other, &v.e[32 * odd],
                                 ks::sm2::Nonce::kRandom),
            Error::kOk);
  expect_gpu_matches_cpu(v, false);
  v.pubs[65 * odd + 64] ^= 1;  // off the curve: that item alone fails with a bad key
  expect_gpu_matches_cpu(v, false);
}

// One key that does not decode: every item kBadPublicKey, without the table.
TEST_F(GpuSm2, OneBadKeyFailsEveryItem) {
  ks_test::Rng rng(ks_test::random_u32());
  VerifyItems v = one_key_items(rng, 8192, false);
  for (size_t i = 0; i < v.count(); ++i) v.pubs[65 * i + 64] ^= 1;
  expect_gpu_matches_cpu(v, false);
}

// A small batch under a key not kept takes the per-item path.
TEST_F(GpuSm2, SmallOneKeyBatchUnderANewKey) {
  ks_test::Rng rng(ks_test::random_u32());
  expect_gpu_matches_cpu(one_key_items(rng, 1000, false), false);
}

// Messages under one key (ks_sm2_verify_batch): Z_A once on the CPU, e on
// the device, then the key's table; against a CPU context item by item.
TEST_F(GpuSm2, OneKeyMessagesAgreeWithCpu) {
  ks_test::Rng rng(ks_test::random_u32());
  const size_t n = 20000;
  const std::vector<uint8_t> d = random_private_keys(rng, 8);
  ks::sm2::PrivateKey key;
  ASSERT_EQ(ks::sm2::private_key_from_bytes(key, &d[32 * 7]), Error::kOk);
  static const uint8_t kId[] = "ALICE123@YAHOO.COM";
  const size_t id_len = 18;
  std::vector<uint64_t> offsets(n + 1, 0);
  for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + rng.word() % 200;
  std::vector<uint8_t> data = ks_test::random_bytes(offsets[n]), sigs(64 * n), pubs(65 * n);
  uint8_t pub[65];
  ks::sm2::public_key_to_bytes(pub, key.pub);
  ks_test::parallel_for(n, [&](size_t i) {
    memcpy(&pubs[65 * i], pub, 65);
    ks::sm2::sign_message(&sigs[64 * i], key, kId, id_len, data.data() + offsets[i],
                          size_t(offsets[i + 1] - offsets[i]), ks::sm2::Nonce::kRandom);
  });
  for (size_t i = 1; i < n; i += 3) {  // tampered messages (non-empty) and signatures
    const size_t len = size_t(offsets[i + 1] - offsets[i]);
    if (i % 2 == 1 && len > 0) data[offsets[i] + rng.word() % len] ^= 1;
    else sigs[64 * i + rng.word() % 64] ^= uint8_t(1 << (rng.word() % 8));
  }
  ks_test::Context gpu_ctx(KS_BACKEND_GPU), cpu_ctx(KS_BACKEND_CPU, 0);
  ASSERT_EQ(gpu_ctx.rc, KS_OK);
  std::vector<int> got(n, -1), want(n, -2);
  const uint64_t before = gpu::one_key_batches();
  ks_sm2_verify_batch(gpu_ctx.ctx, pubs.data(), kId, id_len, data.data(), data.size(),
                      offsets.data(), n, sigs.data(), got.data());
  EXPECT_EQ(gpu::one_key_batches() - before, 1u);
  ks_sm2_verify_batch(cpu_ctx.ctx, pubs.data(), kId, id_len, data.data(), data.size(),
                      offsets.data(), n, sigs.data(), want.data());
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ < 5)
      ADD_FAILURE() << "item " << i << " gpu " << got[i] << " cpu " << want[i];
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(std::count(want.begin(), want.end(), KS_OK), ptrdiff_t(n / 2));
  EXPECT_GT(std::count(want.begin(), want.end(), KS_ERR_VERIFY_FAILED), ptrdiff_t(n / 4));
}

}  // namespace
