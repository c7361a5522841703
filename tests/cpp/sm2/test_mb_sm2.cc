// The 8-lane AVX-512 IFMA SM2 path against the scalar oracle: field
// operations lane by lane vs Fp, the variable-base multiplication lane by
// lane vs mul_point, signatures with fixed and deterministic nonces equal to
// the scalar signer's, random-nonce signatures accepted by the scalar
// verifier and by OpenSSL's EVP SM2, batch verification agreeing with
// verify_digest on valid and invalid inputs, keygen.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <vector>

#include "core/cpu_features.h"
#include "curve/recode.h"
#include "field/fn.h"
#include "field/fp.h"
#include "field/fp_ifma.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_curve_mb.h"
#include "sm2/sm2_mb.h"
#include "test_sm2_util.h"

namespace {

using namespace ks::sm2;
using namespace ks_test;
using ks::field::Fn;
using ks::field::Fp;
using ks::field::U256;
namespace ifma = ks::field::ifma;
constexpr size_t kLanes = mb::kLanes;

// The field test needs the vector unit; the scheme tests run everywhere
// (without IFMA, e.g. KS_CPU_FEATURES=portable, they check the scalar
// fallback of sm2/sm2_mb.cc against the same oracle).
#define REQUIRE_IFMA() \
  if (!ks::cpu_features().avx512ifma) GTEST_SKIP() << "no AVX-512 IFMA here"

std::string hex(const U256& a) {
  uint8_t be[32];
  ks::field::to_be_bytes(be, a);
  return to_hex(be, 32);
}

bool same(const U256& a, const U256& b) {
  return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2] && a.w[3] == b.w[3];
}

U256 p_minus(uint64_t k) {
  U256 r;
  ks::field::sub_borrow(r, Fp::kModulus, U256{{k, 0, 0, 0}});
  return r;
}

// Values below p that stress the limb boundaries: 0, 1, p-1, p-2, 2^52 - 1,
// 2^255, values with 52-bit limb edges, then random ones.
std::vector<U256> field_inputs(Rng& rng, size_t n) {
  std::vector<U256> v = {U256{{0, 0, 0, 0}},
                         U256{{1, 0, 0, 0}},
                         p_minus(1),
                         p_minus(2),
                         U256{{(1ull << 52) - 1, 0, 0, 0}},
                         U256{{0, 0, 0, 1ull << 63}},
                         U256{{~0ull, ~0ull, ~0ull, 0}},
                         U256{{0, 1ull << 40, 0, 1ull << 16}},
                         p_minus(1ull << 52),
                         U256{{2, 0, 0, 0}}};
  while (v.size() < n) v.push_back(rng.below(Fp::kModulus));
  return v;
}

TEST(MbField, LanesMatchScalarFp) {
  REQUIRE_IFMA();
  Rng rng(7);
  const std::vector<U256> in = field_inputs(rng, 800);
  for (size_t base = 0; base + kLanes <= in.size(); base += kLanes) {
    U256 a[kLanes], b[kLanes], out[kLanes];
    for (size_t i = 0; i < kLanes; ++i) {
      a[i] = in[base + i];
      b[i] = in[(base * 7 + i * 13 + 3) % in.size()];
    }
    // some lanes equal, to hit sub = 0
    if (base % 3 == 0) b[1] = a[1];
    const struct {
      ifma::Op op;
      U256 (*ref)(const U256&, const U256&);
      const char* name;
    } ops[] = {
        {ifma::Op::kAdd, [](const U256& x, const U256& y) { return Fp::add(x, y); }, "add"},
        {ifma::Op::kSub, [](const U256& x, const U256& y) { return Fp::sub(x, y); }, "sub"},
        {ifma::Op::kNeg, [](const U256& x, const U256&) { return Fp::neg(x); }, "neg"},
        {ifma::Op::kDbl, [](const U256& x, const U256&) { return Fp::dbl(x); }, "dbl"},
        {ifma::Op::kHalf, [](const U256& x, const U256&) { return Fp::half(x); }, "half"},
        {ifma::Op::kMul, [](const U256& x, const U256& y) { return Fp::mul(x, y); }, "mul"},
        {ifma::Op::kSqr, [](const U256& x, const U256&) { return Fp::sqr(x); }, "sqr"},
        {ifma::Op::kInv, [](const U256& x, const U256&) { return Fp::inv(x); }, "inv"},
        {ifma::Op::kChain, [](const U256& x, const U256& y) { return ifma::op_chain<Fp>(x, y); },
         "chain"},
    };
    for (const auto& op : ops) {
      if (op.op == ifma::Op::kInv && base > 80) continue;  // slow; edges are first
      ifma::apply_x8(op.op, out, a, b);
      for (size_t i = 0; i < kLanes; ++i)
        ASSERT_TRUE(same(out[i], op.ref(a[i], b[i])))
            << op.name << " lane " << i << " a=" << hex(a[i]) << " b=" << hex(b[i]);
    }
    const unsigned eq = ifma::eq_x8(a, b);
    for (size_t i = 0; i < kLanes; ++i) EXPECT_EQ(same(a[i], b[i]), bool(eq >> i & 1));
  }
}

// --- Variable-base multiplication -------------------------------------------

namespace cv = ks::curve;

bool same(const cv::Affine& a, const cv::Affine& b) { return same(a.x, b.x) && same(a.y, b.y); }

std::string hex(const cv::Affine& a) { return hex(a.x) + "," + hex(a.y); }

U256 n_minus(uint64_t k) {
  U256 r;
  ks::field::sub_borrow(r, Fn::kModulus, U256{{k, 0, 0, 0}});
  return r;
}

// The scalar oracle: Sm2Mul::point and the affine conversion.
cv::Affine scalar_mul_point(const U256& k, const cv::Affine& p) {
  return cv::affine_of(cv::mul_point(k, p));
}

cv::Affine negated(const cv::Affine& p) { return {p.x, Fp::neg(p.y)}; }

cv::Affine random_point(Rng& rng) {
  U256 d = rng.below(Fn::kModulus);
  if (ks::field::is_zero_mask(d)) d = U256{{1, 0, 0, 0}};
  return cv::mul_base_affine(d);
}

// Bit b of the result is bit (b mod period) of pattern, over 256 bits,
// reduced below n.
U256 repeated_bits(uint64_t pattern, int period) {
  U256 r{{0, 0, 0, 0}};
  for (int b = 0; b < 256; ++b)
    if (pattern >> (b % period) & 1) r.w[b / 64] |= uint64_t(1) << (b % 64);
  return Fn::reduce_once(r);
}

// Scalars that stress the 5-bit Booth windows: edges of [0, n), single
// bits, CurveSm2's patterns, and bits repeating with period 5 or 10 that
// put the digits at their extremes (+-16, +-15, +-1) in every window.
// n - 6 is left to MulPointX8AddsADoublingInTheLastWindow (see there).
std::vector<U256> point_edge_scalars() {
  std::vector<U256> v;
  for (uint64_t k : {0, 1, 2, 3, 4, 5, 6, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65}) {
    v.push_back(U256{{k, 0, 0, 0}});
    if (k != 0 && k != 6) v.push_back(n_minus(k));
  }
  for (int bit = 0; bit < 256; bit += 13) {
    U256 b{{0, 0, 0, 0}};
    b.w[bit / 64] = uint64_t(1) << (bit % 64);
    v.push_back(Fn::reduce_once(b));
  }
  for (uint64_t pattern : {0x4040404040404040ull, 0x8102040810204081ull, 0x7F7F7F7F7F7F7F7Full,
                           0xAAAAAAAAAAAAAAAAull}) {
    v.push_back(Fn::reduce_once(U256{{pattern, pattern, pattern, pattern >> 1}}));
  }
  for (uint64_t pattern : {0x0Full, 0x10ull, 0x1Full, 0x01ull, 0x11ull, 0x0Eull})
    v.push_back(repeated_bits(pattern, 5));
  for (uint64_t pattern : {0x1FFull, 0x20Full, 0x210ull, 0x3E0ull, 0x1F0ull})
    v.push_back(repeated_bits(pattern, 10));
  return v;
}

// The digits of windows 1-51 span [-16, 16]; window 0 (no bit below it)
// spans [-16, 15].
TEST(MbCurve, MulPointX8EdgeScalarsReachBoothExtremes) {
  bool plus16 = false, minus16 = false, plus15_low = false, minus16_low = false;
  for (const U256& k : point_edge_scalars())
    for (int i = 0; i < 52; ++i) {
      const ks::curve::SignedDigit d = ks::curve::booth_digit(k, 5 * i, 5);
      if (d.magnitude == 16) (d.negative ? minus16 : plus16) = true;
      if (i == 0 && d.magnitude == 16 && d.negative) minus16_low = true;
      if (i == 0 && d.magnitude == 15 && !d.negative) plus15_low = true;
    }
  EXPECT_TRUE(plus16);
  EXPECT_TRUE(minus16);
  EXPECT_TRUE(plus15_low);
  EXPECT_TRUE(minus16_low);
}

// out[i] == scalar_mul_point(k[i], p[i]) for every lane.
void expect_lanes_match_scalar(const U256 k[kLanes], const cv::Affine p[kLanes], const char* what) {
  cv::Affine out[kLanes];
  cv::mb::mul_point_x8(out, k, p);
  for (size_t i = 0; i < kLanes; ++i)
    EXPECT_TRUE(same(scalar_mul_point(k[i], p[i]), out[i]))
        << what << " lane " << i << " k=" << hex(k[i]) << " P=" << hex(p[i]) << " got "
        << hex(out[i]);
}

TEST(MbCurve, MulPointX8MatchesScalarOnRandomInputs) {
  REQUIRE_IFMA();
  Rng rng(21);
  for (int round = 0; round < 40; ++round) {
    U256 k[kLanes];
    cv::Affine p[kLanes];
    for (size_t i = 0; i < kLanes; ++i) {
      k[i] = rng.below(Fn::kModulus);
      p[i] = random_point(rng);
    }
    expect_lanes_match_scalar(k, p, "random");
  }
}

TEST(MbCurve, MulPointX8EdgeScalars) {
  REQUIRE_IFMA();
  Rng rng(22);
  const std::vector<U256> scalars = point_edge_scalars();
  const cv::Affine one_point = random_point(rng);
  for (int config = 0; config < 4; ++config) {
    const char* what[] = {"a point per lane", "one point in all lanes", "G", "-G"};
    // each configuration deals the scalars to other lanes
    for (size_t base = 0; base < scalars.size(); base += kLanes) {
      U256 k[kLanes];
      cv::Affine p[kLanes];
      for (size_t i = 0; i < kLanes; ++i) {
        const size_t at = base + (i + size_t(config) * 3) % kLanes;
        k[i] = at < scalars.size() ? scalars[at] : rng.below(Fn::kModulus);
        p[i] = config == 0   ? random_point(rng)
               : config == 1 ? one_point
               : config == 2 ? cv::kG
                             : negated(cv::kG);
      }
      expect_lanes_match_scalar(k, p, what[config]);
      if (config < 2) continue;
      // G's multiples once more from the comb: an independent oracle
      cv::Affine out[kLanes];
      cv::mb::mul_point_x8(out, k, p);
      for (size_t i = 0; i < kLanes; ++i) {
        const cv::Affine kg = cv::mul_base_affine(k[i]);
        const bool zero = ks::field::is_zero_mask(k[i]) != 0;
        EXPECT_TRUE(same(config == 2 || zero ? kg : negated(kg), out[i]))
            << what[config] << " lane " << i << " k=" << hex(k[i]);
      }
    }
  }
}

TEST(MbCurve, MulPointX8ZeroScalarGivesZeroPoint) {
  REQUIRE_IFMA();
  Rng rng(23);
  U256 k[kLanes];
  cv::Affine p[kLanes], out[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    k[i] = i % 2 ? rng.below(Fn::kModulus) : U256{{0, 0, 0, 0}};
    p[i] = random_point(rng);
  }
  cv::mb::mul_point_x8(out, k, p);
  for (size_t i = 0; i < kLanes; i += 2) EXPECT_TRUE(same(cv::Affine{}, out[i])) << i;
  for (size_t i = 1; i < kLanes; i += 2) EXPECT_TRUE(same(scalar_mul_point(k[i], p[i]), out[i]));
}

// k = n - 6 is the one scalar in [0, n) whose last window adds a point to
// itself ([n - 3]P + [-3]P: n = 3 mod 32, see point_x8 in
// sm2/sm2_curve_mb.cc). The oracle is -[6]P.
TEST(MbCurve, MulPointX8AddsADoublingInTheLastWindow) {
  REQUIRE_IFMA();
  const U256 k_bad = n_minus(6);
  const ks::curve::SignedDigit d0 = ks::curve::booth_digit(k_bad, 0, 5);
  ASSERT_TRUE(d0.magnitude == 3 && d0.negative);
  Rng rng(24);
  for (int round = 0; round < 4; ++round) {
    U256 k[kLanes];
    cv::Affine p[kLanes], out[kLanes];
    for (size_t i = 0; i < kLanes; ++i) {
      k[i] = (i + size_t(round)) % 2 ? rng.below(Fn::kModulus) : k_bad;
      p[i] = i == 0 ? cv::kG : i == 1 ? negated(cv::kG) : random_point(rng);
    }
    cv::mb::mul_point_x8(out, k, p);
    for (size_t i = 0; i < kLanes; ++i) {
      const bool bad = same(k[i], k_bad);
      const cv::Affine want =
          bad ? negated(scalar_mul_point(U256{{6, 0, 0, 0}}, p[i])) : scalar_mul_point(k[i], p[i]);
      EXPECT_TRUE(same(want, out[i])) << "round " << round << " lane " << i;
      if (bad && i == 0) {
        EXPECT_TRUE(same(cv::mul_base_affine(k_bad), out[i]));
      }
    }
  }
}

// --- Signatures -------------------------------------------------------------

struct Keys {
  PrivateKey keys[kLanes];
  const PrivateKey* ptrs[kLanes];
  explicit Keys(Rng& rng) {
    for (size_t i = 0; i < kLanes; ++i) {
      uint8_t d[32];
      const U256 v = rng.below(Fn::kModulus);
      ks::field::to_be_bytes(d, v);
      if (private_key_from_bytes(keys[i], d) != Error::kOk) {
        d[31] = 5;  // 0 or n-1: pick another
        d[0] = 1;
        EXPECT_EQ(Error::kOk, private_key_from_bytes(keys[i], d));
      }
      ptrs[i] = &keys[i];
    }
  }
};

void random_digests(Rng& rng, uint8_t e[][32], size_t n) {
  for (size_t i = 0; i < n; ++i) ks::field::to_be_bytes(e[i], rng.edgy());
}

TEST(MbSign, FixedNoncesMatchScalarSigner) {
  Rng rng(11);
  for (int round = 0; round < 30; ++round) {
    Keys keys(rng);
    uint8_t e[kLanes][32], k[kLanes][32], sig[kLanes][64];
    random_digests(rng, e, kLanes);
    for (size_t i = 0; i < kLanes; ++i) ks::field::to_be_bytes(k[i], rng.below(Fn::kModulus));
    if (round == 0) {  // out-of-range and edge nonces: 0, n, n-1, 1
      memset(k[0], 0, 32);
      ks::field::to_be_bytes(k[1], Fn::kModulus);
      U256 nm1;
      ks::field::sub_borrow(nm1, Fn::kModulus, U256{{1, 0, 0, 0}});
      ks::field::to_be_bytes(k[2], nm1);
      memset(k[3], 0, 32);
      k[3][31] = 1;
      // e making r = 0 (lane 4) and r + k = n (lane 5): x1 = x([k]G) is the
      // public key of d = k
      for (size_t i = 4; i <= 5; ++i) {
        PrivateKey as_key;
        ASSERT_EQ(Error::kOk, private_key_from_bytes(as_key, k[i]));
        const U256 x1 = Fn::reduce_once(as_key.pub.point.x);
        const U256 r_target = i == 4 ? U256{{0, 0, 0, 0}} : Fn::neg(ks::field::from_be_bytes(k[i]));
        ks::field::to_be_bytes(e[i], Fn::sub(r_target, x1));
      }
    }
    Error status[kLanes];
    mb::sign_digests_with_fixed_nonces_x8(sig, keys.ptrs, e, k, status);
    for (size_t i = 0; i < kLanes; ++i) {
      uint8_t ref[64];
      const Error ref_status = sign_digest_with_fixed_nonce(ref, keys.keys[i], e[i], k[i]);
      ASSERT_EQ(ref_status, status[i]) << "round " << round << " lane " << i;
      if (round == 0 && i < 6) {
        EXPECT_EQ(i == 2 || i == 3 ? Error::kOk : Error::kBadNonce, status[i]) << i;
      }
      if (ref_status == Error::kOk) {
        EXPECT_EQ(to_hex(ref, 64), to_hex(sig[i], 64)) << "round " << round << " lane " << i;
      }
    }
  }
}

TEST(MbSign, KnownAnswerVectorInEveryLane) {
  const auto d = from_hex("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
  const auto k = from_hex("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
  const auto e = from_hex("F0B43E94BA45ACCAACE692ED534382EB17E6AB5A19CE7B31F4486FDFC0D28640");
  PrivateKey key;
  ASSERT_EQ(Error::kOk, private_key_from_bytes(key, d.data()));
  const PrivateKey* keys[kLanes];
  uint8_t es[kLanes][32], ks_[kLanes][32], sig[kLanes][64];
  for (size_t i = 0; i < kLanes; ++i) {
    keys[i] = &key;
    memcpy(es[i], e.data(), 32);
    memcpy(ks_[i], k.data(), 32);
  }
  Error status[kLanes];
  mb::sign_digests_with_fixed_nonces_x8(sig, keys, es, ks_, status);
  for (size_t i = 0; i < kLanes; ++i) {
    ASSERT_EQ(Error::kOk, status[i]);
    EXPECT_EQ(
        "F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3"
        "B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA",
        to_hex(sig[i], 64));
  }
}

TEST(MbSign, DeterministicMatchesScalarSigner) {
  Rng rng(12);
  for (int round = 0; round < 10; ++round) {
    Keys keys(rng);
    uint8_t e[kLanes][32], sig[kLanes][64];
    random_digests(rng, e, kLanes);
    Error status[kLanes];
    const size_t count = round == 3 ? 5 : kLanes;  // a partial group
    mb::sign_digests_x8(sig, keys.ptrs, e, Nonce::kDeterministic, status, count);
    for (size_t i = 0; i < count; ++i) {
      uint8_t ref[64];
      ASSERT_EQ(Error::kOk, sign_digest(ref, keys.keys[i], e[i], Nonce::kDeterministic));
      ASSERT_EQ(Error::kOk, status[i]);
      EXPECT_EQ(to_hex(ref, 64), to_hex(sig[i], 64));
    }
  }
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

Pkey ossl_public_key(const PublicKey& pub) {
  uint8_t pub_bytes[kPublicKeyBytes];
  public_key_to_bytes(pub_bytes, pub);
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "SM2", 0);
  OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub_bytes, sizeof pub_bytes);
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "SM2", nullptr);
  EVP_PKEY* pkey = nullptr;
  EVP_PKEY_fromdata_init(ctx);
  EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  return Pkey(pkey);
}

// OpenSSL's verdict on a raw r||s over the digest e (EVP_PKEY_verify on a
// digest: no Z_A hashing, as in tools/sm2_micro.cc).
bool openssl_verifies(const PublicKey& pub, const uint8_t e[32], const uint8_t sig[64]) {
  Pkey key = ossl_public_key(pub);
  if (!key) return false;
  ECDSA_SIG* s = ECDSA_SIG_new();
  ECDSA_SIG_set0(s, BN_bin2bn(sig, 32, nullptr), BN_bin2bn(sig + 32, 32, nullptr));
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(s, &der);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(key.get(), nullptr);
  const bool ok = EVP_PKEY_verify_init(ctx) == 1 && EVP_PKEY_verify(ctx, der, len, e, 32) == 1;
  EVP_PKEY_CTX_free(ctx);
  OPENSSL_free(der);
  ECDSA_SIG_free(s);
  return ok;
}

TEST(MbSign, RandomNoncesVerifyWithScalarAndOpenSsl) {
  Rng rng(13);
  for (int round = 0; round < 8; ++round) {
    Keys keys(rng);
    uint8_t e[kLanes][32], sig[kLanes][64];
    random_digests(rng, e, kLanes);
    Error status[kLanes];
    if (round % 2)
      mb::sign_digests_x8(sig, keys.keys[0], e, Nonce::kRandom, status);
    else
      mb::sign_digests_x8(sig, keys.ptrs, e, Nonce::kRandom, status);
    for (size_t i = 0; i < kLanes; ++i) {
      const PrivateKey& key = round % 2 ? keys.keys[0] : keys.keys[i];
      ASSERT_EQ(Error::kOk, status[i]);
      EXPECT_EQ(Error::kOk, verify_digest(key.pub, e[i], sig[i]));
      EXPECT_TRUE(openssl_verifies(key.pub, e[i], sig[i])) << "round " << round << " lane " << i;
    }
  }
}

TEST(MbVerify, AgreesWithScalarVerifier) {
  Rng rng(14);
  for (int round = 0; round < 40; ++round) {
    Keys keys(rng);
    uint8_t e[kLanes][32], sig[kLanes][64];
    random_digests(rng, e, kLanes);
    for (size_t i = 0; i < kLanes; ++i)
      ASSERT_EQ(Error::kOk, sign_digest(sig[i], keys.keys[i], e[i], Nonce::kDeterministic));
    const PublicKey* pubs[kLanes];
    for (size_t i = 0; i < kLanes; ++i) pubs[i] = &keys.keys[i].pub;
    // Tamper with some lanes in various ways (round 0 keeps all valid).
    for (size_t i = 0; i < kLanes && round > 0; ++i) {
      switch ((round + i) % 10) {
        case 0:
          e[i][rng.word() % 32] ^= uint8_t(1 + rng.word() % 255);
          break;
        case 1:
          sig[i][rng.word() % 64] ^= 0x01;
          break;
        case 2:
          memset(sig[i], 0, 32);
          break;  // r = 0
        case 3:
          ks::field::to_be_bytes(sig[i] + 32, Fn::kModulus);
          break;   // s = n
        case 4: {  // s = n - r: t = 0
          const U256 r = ks::field::from_be_bytes(sig[i]);
          ks::field::to_be_bytes(sig[i] + 32, Fn::neg(r));
          break;
        }
        case 5:
          pubs[i] = &keys.keys[(i + 1) % kLanes].pub;
          break;  // wrong key
        case 6:
          memset(sig[i], 0xFF, 64);
          break;  // r, s > n
        default:
          break;  // valid
      }
    }
    Error status[kLanes];
    const size_t count = round == 7 ? 3 : kLanes;
    mb::verify_digests_x8(pubs, e, sig, status, count);
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(verify_digest(*pubs[i], e[i], sig[i]), status[i])
          << "round " << round << " lane " << i;
  }
}

TEST(MbVerify, DegenerateFinalAdditionFallsBack) {
  // Key d = 2 (P = 2G), r = 1, s = n - 2: t = r + s = n - 1, so [s]G = -2G
  // and [t]P = -2G coincide and the lanes' final addition is a doubling;
  // e = (r - x(-4G)) mod n makes the signature valid. Lanes alternate this
  // forged-but-valid case with ordinary signatures.
  auto key_of = [](uint64_t v, PrivateKey& key) {
    uint8_t d[32] = {};
    d[31] = uint8_t(v);
    return private_key_from_bytes(key, d);
  };
  PrivateKey two, four;
  ASSERT_EQ(Error::kOk, key_of(2, two));
  ASSERT_EQ(Error::kOk, key_of(4, four));
  uint8_t e[kLanes][32], sig[kLanes][64];
  const PublicKey* pubs[kLanes];
  Rng rng(15);
  for (size_t i = 0; i < kLanes; ++i) {
    pubs[i] = &two.pub;
    if (i % 2 == 0) {
      const U256 r = U256{{1, 0, 0, 0}};
      const U256 s = Fn::neg(U256{{2, 0, 0, 0}});
      ks::field::to_be_bytes(sig[i], r);
      ks::field::to_be_bytes(sig[i] + 32, s);
      ks::field::to_be_bytes(e[i], Fn::sub(r, Fn::reduce_once(four.pub.point.x)));
      if (i == 2) e[i][31] ^= 1;  // and an invalid one of the same shape
    } else {
      random_digests(rng, &e[i], 1);
      ASSERT_EQ(Error::kOk, sign_digest(sig[i], two, e[i], Nonce::kDeterministic));
    }
  }
  Error status[kLanes];
  mb::verify_digests_x8(pubs, e, sig, status);
  for (size_t i = 0; i < kLanes; ++i) {
    EXPECT_EQ(verify_digest(*pubs[i], e[i], sig[i]), status[i]) << "lane " << i;
    EXPECT_EQ(i == 2 ? Error::kVerifyFailed : Error::kOk, status[i]) << "lane " << i;
  }
}

TEST(MbVerify, ValidSignatureWithTInTheDoublingCase) {
  // t = r + s = n - 6 makes the last window of [t]P add a point to itself
  // (MulPointX8AddsADoublingInTheLastWindow); e is chosen to make (r, s)
  // valid: r = e + x([s]G + [t]P) mod n. Odd lanes are ordinary signatures.
  Rng rng(25);
  Keys keys(rng);
  uint8_t e[kLanes][32], sig[kLanes][64];
  const PublicKey* pubs[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    pubs[i] = &keys.keys[i].pub;
    if (i % 2 == 0) {
      const U256 t = n_minus(6);
      U256 s = rng.below(Fn::kModulus), r;
      for (;;) {
        r = Fn::sub(t, s);
        if (!ks::field::is_zero_mask(s) && !ks::field::is_zero_mask(r)) break;
        s = rng.below(Fn::kModulus);
      }
      cv::Affine x;
      ASSERT_TRUE(cv::to_affine_checked(x, cv::mul_base_add_point_vartime(s, t, pubs[i]->point)));
      ks::field::to_be_bytes(sig[i], r);
      ks::field::to_be_bytes(sig[i] + 32, s);
      ks::field::to_be_bytes(e[i], Fn::sub(r, Fn::reduce_once(x.x)));
      if (i == 4) e[i][31] ^= 1;  // and an invalid one
    } else {
      random_digests(rng, &e[i], 1);
      ASSERT_EQ(Error::kOk, sign_digest(sig[i], keys.keys[i], e[i], Nonce::kDeterministic));
    }
  }
  Error status[kLanes];
  mb::verify_digests_x8(pubs, e, sig, status);
  for (size_t i = 0; i < kLanes; ++i) {
    EXPECT_EQ(verify_digest(*pubs[i], e[i], sig[i]), status[i]) << "lane " << i;
    EXPECT_EQ(i == 4 ? Error::kVerifyFailed : Error::kOk, status[i]) << "lane " << i;
  }
}

// One key for every lane, from its comb tables: the statuses of the
// scalar verifier, for valid, tampered and out-of-range signatures, and
// for the forged shape where a partial sum meets an entry (d = 2, r = 1,
// s = n - 2: [s]G = -2G and [t]P = -2G, which the walk over both combs
// may add to each other), reported to the scalar fallback.
TEST(MbVerify, OneKeyFromItsTablesAgreesWithScalar) {
  Rng rng(31);
  for (uint64_t small : {0, 2}) {  // a random key, then d = 2
    PrivateKey key;
    if (small == 0) {
      ASSERT_EQ(Error::kOk, generate_key(key));
    } else {
      uint8_t d[32] = {};
      d[31] = uint8_t(small);
      ASSERT_EQ(Error::kOk, private_key_from_bytes(key, d));
    }
    const cv::PointTablePtr table = cv::make_point_table(key.pub.point);
    ASSERT_NE(table, nullptr);
    cv::mb::LaneTablePtr lanes;
    mb::OneKey with_lanes = {&key.pub, table.get(), nullptr};
    if (ks::cpu_features().avx512ifma) {
      lanes = cv::mb::make_lane_table(*table);
      with_lanes.lanes = lanes.get();
    }
    for (int round = 0; round < 30; ++round) {
      uint8_t e[kLanes][32], sig[kLanes][64];
      random_digests(rng, e, kLanes);
      for (size_t i = 0; i < kLanes; ++i) {
        ASSERT_EQ(Error::kOk, sign_digest(sig[i], key, e[i], Nonce::kDeterministic));
        switch ((round + i) % 6) {
          case 0: e[i][rng.word() % 32] ^= 1; break;
          case 1: sig[i][rng.word() % 64] ^= 0x01; break;
          case 2: memset(sig[i], 0xFF, 64); break;
          case 3:
            if (small == 2) {  // the forged shape of DegenerateFinalAdditionFallsBack
              PrivateKey four;
              uint8_t d4[32] = {};
              d4[31] = 4;
              ASSERT_EQ(Error::kOk, private_key_from_bytes(four, d4));
              const U256 r = U256{{1, 0, 0, 0}};
              ks::field::to_be_bytes(sig[i], r);
              ks::field::to_be_bytes(sig[i] + 32, Fn::neg(U256{{2, 0, 0, 0}}));
              ks::field::to_be_bytes(e[i], Fn::sub(r, Fn::reduce_once(four.pub.point.x)));
            }
            break;
          default: break;
        }
      }
      Error status[kLanes];
      const size_t count = round == 5 ? 3 : kLanes;
      mb::verify_digests_one_key_x8(with_lanes, e, sig, status, count);
      for (size_t i = 0; i < count; ++i)
        EXPECT_EQ(verify_digest(key.pub, e[i], sig[i]), status[i])
            << "key " << small << " round " << round << " lane " << i;
    }
  }
}

TEST(MbKeygen, PublicKeysMatchScalar) {
  for (int round = 0; round < 4; ++round) {
    uint8_t d[kLanes][32];
    PublicKey pub[kLanes];
    Error status[kLanes];
    mb::keygen_x8(d, pub, status);
    for (size_t i = 0; i < kLanes; ++i) {
      ASSERT_EQ(Error::kOk, status[i]);
      PrivateKey key;
      ASSERT_EQ(Error::kOk, private_key_from_bytes(key, d[i]));
      uint8_t a[65], b[65];
      public_key_to_bytes(a, key.pub);
      public_key_to_bytes(b, pub[i]);
      EXPECT_EQ(to_hex(a, 65), to_hex(b, 65));
    }
  }
}

// --- Messages ---------------------------------------------------------------

std::vector<uint8_t> random_message(Rng& rng, size_t len) {
  std::vector<uint8_t> m(len);
  for (auto& b : m) b = uint8_t(rng.word());
  return m;
}

TEST(MbMessages, DigestsMatchScalarMessageDigest) {
  Rng rng(16);
  Keys keys(rng);
  for (int round = 0; round < 6; ++round) {
    const size_t n = 1 + rng.word() % 40;
    std::vector<std::vector<uint8_t>> msgs(n);
    std::vector<const uint8_t*> ptrs(n);
    std::vector<size_t> lens(n);
    std::vector<const PublicKey*> pubs(n);
    for (size_t i = 0; i < n; ++i) {
      const size_t len = i == 0 ? 0 : (i == 1 && round == 0 ? 100000 : rng.word() % 300);
      msgs[i] = random_message(rng, len);
      ptrs[i] = msgs[i].data();
      lens[i] = len;
      pubs[i] = &keys.keys[(i / 3) % kLanes].pub;  // runs of one key
    }
    const std::vector<uint8_t> id = random_message(rng, round == 1 ? 0 : rng.word() % 40);
    std::vector<uint8_t> e(32 * n);
    ASSERT_EQ(Error::kOk,
              mb::message_digests(reinterpret_cast<uint8_t(*)[32]>(e.data()), pubs.data(),
                                  id.data(), id.size(), ptrs.data(), lens.data(), n));
    for (size_t i = 0; i < n; ++i) {
      uint8_t ref[32];
      ASSERT_EQ(Error::kOk, message_digest(ref, *pubs[i], id.data(), id.size(), ptrs[i], lens[i]));
      EXPECT_EQ(to_hex(ref, 32), to_hex(&e[32 * i], 32)) << "round " << round << " item " << i;
    }
  }
  std::vector<uint8_t> long_id(kMaxIdBytes + 1);
  uint8_t e[1][32];
  const PublicKey* pub = &keys.keys[0].pub;
  const uint8_t* msg = long_id.data();
  const size_t len = 1;
  EXPECT_EQ(Error::kBadIdLength,
            mb::message_digests(e, &pub, long_id.data(), long_id.size(), &msg, &len, 1));
}

TEST(MbMessages, SignAndVerifyMatchScalar) {
  Rng rng(17);
  Keys keys(rng);
  std::vector<std::vector<uint8_t>> msgs(kLanes);
  const uint8_t* ptrs[kLanes];
  size_t lens[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    msgs[i] = random_message(rng, rng.word() % 200);
    ptrs[i] = msgs[i].data();
    lens[i] = msgs[i].size();
  }
  const uint8_t* id = reinterpret_cast<const uint8_t*>(kDefaultId);
  uint8_t sig[kLanes][64];
  Error status[kLanes];
  mb::sign_messages_x8(sig, keys.ptrs, id, kDefaultIdBytes, ptrs, lens, Nonce::kDeterministic,
                       status);
  const PublicKey* pubs[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    pubs[i] = &keys.keys[i].pub;
    uint8_t ref[64];
    ASSERT_EQ(Error::kOk, sign_message(ref, keys.keys[i], id, kDefaultIdBytes, ptrs[i], lens[i],
                                       Nonce::kDeterministic));
    ASSERT_EQ(Error::kOk, status[i]);
    EXPECT_EQ(to_hex(ref, 64), to_hex(sig[i], 64));
  }
  sig[3][10] ^= 1;                   // tampered signature
  if (lens[5] > 0) msgs[5][0] ^= 1;  // tampered message
  mb::verify_messages_x8(pubs, id, kDefaultIdBytes, ptrs, lens, sig, status);
  for (size_t i = 0; i < kLanes; ++i)
    EXPECT_EQ(verify_message(*pubs[i], id, kDefaultIdBytes, ptrs[i], lens[i], sig[i]), status[i])
        << i;
  EXPECT_EQ(Error::kVerifyFailed, status[3]);
}

}  // namespace
