// GF(2^255 - 19), the scalars mod L, the Edwards25519 and Montgomery-ladder
// formulas and X25519, against OpenSSL's BIGNUMs and EVP X25519 (the
// independent oracle) and the RFC 7748 known answers.
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/evp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "curve25519/ed25519_curve.h"
#include "curve25519/ed25519_params.h"
#include "curve25519/ed25519_tables_layout.h"
#include "field/fe25519.h"
#include "field/fe25519_adx.h"
#include "field/sc25519.h"
#include "curve25519/x25519.h"
#include "fe25519_test_values.h"
#include "test_sm2_util.h"

namespace {

using ks::field::Fe25519;
using ks::field::Sc25519;
using ks::field::U256;
using ks_test::Bn;
using ks_test::from_bn;
using ks_test::Rng;
using ks_test::to_bn;
namespace ed = ks::curve::ed25519;

Bn bn_dec(const char* dec) {
  BIGNUM* b = nullptr;
  BN_dec2bn(&b, dec);
  return Bn(b);
}

const Bn& p25519() {
  static const Bn p = [] {
    Bn p(BN_new());
    BN_set_bit(p.get(), 255);
    BN_sub_word(p.get(), 19);
    return p;
  }();
  return p;
}

U256 mod_p(const BIGNUM* x) {
  Bn r(BN_new());
  BN_CTX* ctx = BN_CTX_new();
  BN_nnmod(r.get(), x, p25519().get(), ctx);
  BN_CTX_free(ctx);
  return from_bn(r.get());
}

// a op b mod p through BIGNUMs.
template <class Op>
U256 bn_mod(const U256& a, const U256& b, Op op, const BIGNUM* m) {
  Bn x = to_bn(a), y = to_bn(b), r(BN_new());
  BN_CTX* ctx = BN_CTX_new();
  op(r.get(), x.get(), y.get(), m, ctx);
  BN_CTX_free(ctx);
  return from_bn(r.get());
}

bool same(const U256& a, const U256& b) { return ks::field::eq_mask(a, b) != 0; }

// Edge values of every representation (fe25519_test_values.h) or random.
U256 edge_value(Rng& rng) {
  const size_t pick = rng.word() % (ks_test::kFe25519EdgeCount + 4);
  return pick < ks_test::kFe25519EdgeCount ? ks_test::kFe25519Edges[pick]
                                           : (rng.word() & 1 ? rng.any() : rng.edgy());
}

template <class F>
void field_matches_bignum() {
  Rng rng(25519);
  for (int i = 0; i < 20000; ++i) {
    const U256 a = edge_value(rng), b = edge_value(rng);
    const BIGNUM* p = p25519().get();
    ASSERT_TRUE(same(F::canonical(F::add(a, b)), bn_mod(a, b, BN_mod_add, p)));
    ASSERT_TRUE(same(F::canonical(F::sub(a, b)), bn_mod(a, b, BN_mod_sub, p)));
    ASSERT_TRUE(same(F::canonical(F::mul(a, b)), bn_mod(a, b, BN_mod_mul, p)));
    ASSERT_TRUE(same(F::canonical(F::sqr(a)), bn_mod(a, a, BN_mod_mul, p)));
    const uint32_t k = uint32_t(rng.word());
    ASSERT_TRUE(same(F::canonical(F::mul_small(a, k)), bn_mod(a, U256{{k, 0, 0, 0}}, BN_mod_mul, p)));
    ASSERT_TRUE(same(F::canonical(a), mod_p(to_bn(a).get())));
    ASSERT_EQ(F::is_zero(a) != 0, BN_is_zero(to_bn(F::canonical(a)).get()) != 0);
  }
}

TEST(Fe25519, PortableMatchesBignum) { field_matches_bignum<Fe25519>(); }

TEST(Fe25519, AdxMatchesBignum) {
#if defined(KS_HAVE_MUL_ADX)
  if (!ks::cpu_features().bmi2 || !ks::cpu_features().adx) GTEST_SKIP() << "no BMI2/ADX";
  field_matches_bignum<ks::field::Fe25519Adx>();
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

TEST(Fe25519, InverseAndPowers) {
  Rng rng(7);
  BN_CTX* ctx = BN_CTX_new();
  Bn e(BN_new());
  for (int i = 0; i < 200; ++i) {
    const U256 a = edge_value(rng);
    const U256 inv = Fe25519::canonical(Fe25519::inv(a));
    Bn r(BN_new());
    if (Fe25519::is_zero(a)) {
      EXPECT_TRUE(same(inv, U256{{0, 0, 0, 0}}));
      continue;
    }
    BN_mod_inverse(r.get(), to_bn(Fe25519::canonical(a)).get(), p25519().get(), ctx);
    ASSERT_TRUE(same(inv, from_bn(r.get())));
    // (p - 5) / 8
    BN_copy(e.get(), p25519().get());
    BN_sub_word(e.get(), 5);
    BN_rshift(e.get(), e.get(), 3);
    BN_mod_exp(r.get(), to_bn(a).get(), e.get(), p25519().get(), ctx);
    ASSERT_TRUE(same(Fe25519::canonical(Fe25519::pow_p58(a)), from_bn(r.get())));
  }
  BN_CTX_free(ctx);
}

TEST(Fe25519, EncodingIsLittleEndianAndRejectsNonCanonical) {
  uint8_t bytes[32] = {0};
  bytes[0] = 0xED;
  for (int i = 1; i < 31; ++i) bytes[i] = 0xFF;
  bytes[31] = 0x7F;  // p
  U256 v;
  EXPECT_EQ(Fe25519::from_bytes(v, bytes), 0u);
  bytes[0] = 0xEC;  // p - 1
  EXPECT_NE(Fe25519::from_bytes(v, bytes), 0u);
  uint8_t back[32];
  Fe25519::to_bytes(back, v);
  EXPECT_EQ(memcmp(back, bytes, 32), 0);
  bytes[31] = 0xFF;  // bit 255 is not part of the value
  EXPECT_NE(Fe25519::from_bytes(v, bytes), 0u);
  EXPECT_EQ(v.w[3] >> 63, 0u);
}

TEST(Sc25519, MatchesBignum) {
  Rng rng(11);
  const Bn l = to_bn(Sc25519::kModulus);
  EXPECT_EQ(BN_cmp(l.get(), bn_dec("7237005577332262213973186563042994240857116359379907606001950938285454250989").get()), 0);
  BN_CTX* ctx = BN_CTX_new();
  for (int i = 0; i < 2000; ++i) {
    const U256 a = rng.below(Sc25519::kModulus), b = rng.below(Sc25519::kModulus);
    const U256 b_mont = Sc25519::to_mont(b);
    ASSERT_TRUE(same(Sc25519::mul_plain_mont(a, b_mont), bn_mod(a, b, BN_mod_mul, l.get())));
    ASSERT_TRUE(same(Sc25519::add(a, b), bn_mod(a, b, BN_mod_add, l.get())));
    // a 512-bit little-endian value reduced mod L
    uint8_t wide[64];
    for (auto& x : wide) x = uint8_t(rng.word());
    uint8_t be[64];
    for (int j = 0; j < 64; ++j) be[j] = wide[63 - j];
    Bn x(BN_bin2bn(be, 64, nullptr)), r(BN_new());
    BN_nnmod(r.get(), x.get(), l.get(), ctx);
    ASSERT_TRUE(same(Sc25519::reduce_wide(wide), from_bn(r.get())));
  }
  BN_CTX_free(ctx);
  uint8_t s[32];
  Sc25519::to_le_bytes(s, Sc25519::kModulus);
  EXPECT_EQ(Sc25519::is_canonical(s), 0u);  // L itself
  s[0] -= 1;
  EXPECT_NE(Sc25519::is_canonical(s), 0u);  // L - 1
}

// d = -121665/121666, sqrt(-1)^2 = -1, B on the curve with y = 4/5 and x
// even, [L]B = identity: the pasted constants are what RFC 8032 defines.
TEST(Ed25519Params, ConstantsAreWhatTheRfcsDefine) {
  const BIGNUM* p = p25519().get();
  EXPECT_TRUE(same(Fe25519::canonical(Fe25519::add(Fe25519::mul_small(ed::kD, 121666),
                                                   U256{{121665, 0, 0, 0}})),
                   U256{{0, 0, 0, 0}}));
  EXPECT_TRUE(same(ed::kD2, Fe25519::canonical(Fe25519::dbl(ed::kD))));
  const U256 i = ks::field::fe25519_detail::kSqrtM1;
  EXPECT_TRUE(same(Fe25519::canonical(Fe25519::sqr(i)), Fe25519::canonical(Fe25519::neg(Fe25519::one()))));
  EXPECT_TRUE(same(Fe25519::canonical(Fe25519::mul_small(ed::kBy, 5)), U256{{4, 0, 0, 0}}));
  EXPECT_EQ(ed::kBx.w[0] & 1, 0u);
  const U256 xx = Fe25519::sqr(ed::kBx), yy = Fe25519::sqr(ed::kBy);
  // -x^2 + y^2 = 1 + d x^2 y^2
  EXPECT_TRUE(same(Fe25519::canonical(Fe25519::sub(yy, xx)),
                   Fe25519::canonical(Fe25519::add(Fe25519::one(),
                                                   Fe25519::mul(ed::kD, Fe25519::mul(xx, yy))))));
  (void)p;
  U256 l_minus_1;
  ks::field::sub_borrow(l_minus_1, ed::kL, U256{{1, 0, 0, 0}});
  // [L-1]B = -B, so [L]B is the identity
  U256 x, y;
  ed::to_affine(&x, &y, ed::mul_base(l_minus_1));
  EXPECT_TRUE(same(y, ed::kBy));
  EXPECT_TRUE(same(x, Fe25519::canonical(Fe25519::neg(ed::kBx))));
}

// [k]B from the comb against a double-and-add over the same formulas
// (which the comb does not use: no doublings there).
ed::Point double_and_add(const U256& k) {
  namespace edw = ks::curve::ed;
  const ed::Point b = ed::from_affine(ed::kBx, ed::kBy);
  ed::Point acc = ed::Point::identity();
  for (int i = 255; i >= 0; --i) {
    acc = edw::dbl(acc.projective()).extended();
    if ((k.w[i / 64] >> (i % 64)) & 1) acc = edw::add(acc, edw::cached(b, ed::kD2)).extended();
  }
  return acc;
}

TEST(Ed25519Curve, CombMatchesDoubleAndAdd) {
  Rng rng(3);
  for (int i = 0; i < 64; ++i) {
    U256 k = rng.any();
    k.w[3] &= i < 32 ? 0x7FFFFFFFFFFFFFFFull : 0x0FFFFFFFFFFFFFFFull;
    if (i == 0) k = U256{{0, 0, 0, 0}};
    if (i == 1) k = U256{{1, 0, 0, 0}};
    uint8_t a[32], b[32];
    ed::encode(a, ed::mul_base(k));
    ed::encode(b, double_and_add(k));
    ASSERT_EQ(memcmp(a, b, 32), 0) << i;
  }
}

// comb_words, the run-time tables: the mul_base shape equals the
// build-time table word for word, and the GPU's 6-bit shape holds (j + 1)
// 2^(6 w) B by double-and-add.
TEST(Ed25519Curve, RunTimeCombRowsHoldTheirMultiples) {
  const std::vector<uint64_t> five = ed::comb_words(ed::kCombBits);
  const uint64_t* built = reinterpret_cast<const uint64_t*>(ed::comb_table());
  ASSERT_EQ(five.size(), size_t(ed::kCombWindows) * ed::kCombEntries * 12);
  EXPECT_TRUE(std::equal(five.begin(), five.end(), built));
  const std::vector<uint64_t> six = ed::comb_words(6);
  ASSERT_EQ(six.size(), size_t(43) * 32 * 12);
  for (int w : {0, 1, 20, 41}) {
    for (int j = 0; j < 32; ++j) {
      U256 k{{0, 0, 0, 0}};
      const int bit = 6 * w;
      k.w[bit / 64] = uint64_t(j + 1) << (bit % 64);
      if (bit % 64 > 58) k.w[bit / 64 + 1] = uint64_t(j + 1) >> (64 - bit % 64);
      const auto p = double_and_add(k);
      const U256 zinv = Fe25519::inv(p.z);
      const U256 x = Fe25519::mul(p.x, zinv), y = Fe25519::mul(p.y, zinv);
      const U256 want[3] = {Fe25519::add(y, x), Fe25519::sub(y, x),
                            Fe25519::mul(Fe25519::mul(x, y), ed::kD2)};
      for (int e = 0; e < 3; ++e)
        for (int i = 0; i < 4; ++i)
          ASSERT_EQ(six[(size_t(w) * 32 + j) * 12 + 4 * e + i], Fe25519::canonical(want[e]).w[i])
              << "row " << w << " entry " << j;
    }
  }
}

TEST(Ed25519Curve, DecodeRoundTripsAndRejectsNonCanonical) {
  Rng rng(5);
  for (int i = 0; i < 100; ++i) {
    U256 k = rng.any();
    k.w[3] &= 0x0FFFFFFFFFFFFFFFull;
    uint8_t enc[32], again[32];
    ed::encode(enc, ed::mul_base(k));
    ed::Point p;
    ASSERT_TRUE(ed::decode(p, enc));
    ed::encode(again, p);
    ASSERT_EQ(memcmp(enc, again, 32), 0);
  }
  // y = p + 1 (non-canonical 1): rejected; the canonical y = 1 is the identity
  uint8_t y[32];
  memset(y, 0xFF, 32);
  y[0] = 0xEE;
  y[31] = 0x7F;
  ed::Point p;
  EXPECT_FALSE(ed::decode(p, y));
  uint8_t one[32] = {1};
  ASSERT_TRUE(ed::decode(p, one));
  EXPECT_TRUE(ed::has_small_order(p));
  // x = 0 with the sign bit set is the other encoding of the identity
  one[31] = 0x80;
  EXPECT_FALSE(ed::decode(p, one));
  // y = 2: x^2 = 3 / (4d + 1) is not a square
  uint8_t two[32] = {2};
  EXPECT_FALSE(ed::decode(p, two));
}

// The eight points of small order (the torsion subgroup) in their
// canonical encodings: all decode, all have small order; B does not. (The
// order-4 points (+-sqrt(-1), 0) encode as y = 0 with either sign bit.)
TEST(Ed25519Curve, SmallOrderPoints) {
  const char* kTorsion[] = {
      "0100000000000000000000000000000000000000000000000000000000000000",
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "0000000000000000000000000000000000000000000000000000000000000000",
      "0000000000000000000000000000000000000000000000000000000000000080",
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
  };
  for (const char* hex : kTorsion) {
    const std::vector<uint8_t> enc = ks_test::from_hex(hex);
    ed::Point p;
    ASSERT_TRUE(ed::decode(p, enc.data())) << hex;
    EXPECT_TRUE(ed::has_small_order(p)) << hex;
  }
  ed::Point b = ed::from_affine(ed::kBx, ed::kBy);
  EXPECT_FALSE(ed::has_small_order(b));
}

std::vector<uint8_t> x25519_of(const std::vector<uint8_t>& k, const std::vector<uint8_t>& u) {
  std::vector<uint8_t> out(32);
  ks::x25519::shared_secret(out.data(), k.data(), u.data());
  return out;
}

// RFC 7748 5.2.
TEST(X25519, Rfc7748Vectors) {
  EXPECT_EQ(ks_test::to_hex(x25519_of(ks_test::from_hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
                                      ks_test::from_hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c")).data(), 32),
            "C3DA55379DE9C6908E94EA4DF28D084F32ECCF03491C71F754B4075577A28552");
  EXPECT_EQ(ks_test::to_hex(x25519_of(ks_test::from_hex("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d"),
                                      ks_test::from_hex("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493")).data(), 32),
            "95CBDE9476E8907D7AADE45CB4B873F88B595A68799FA152E6F8F7647AAC7957");
  // Iterated: k = u = 9, then (k, u) <- (X25519(k, u), k).
  std::vector<uint8_t> k(32, 0), u(32, 0);
  k[0] = u[0] = 9;
  for (int i = 1; i <= 1000; ++i) {
    std::vector<uint8_t> next = x25519_of(k, u);
    u = k;
    k = next;
    if (i == 1) {
      EXPECT_EQ(ks_test::to_hex(k.data(), 32), "422C8E7A6227D7BCA1350B3E2BB7279F7897B87BB6854B783C60E80311AE3079");
    }
  }
  EXPECT_EQ(ks_test::to_hex(k.data(), 32), "684CF59BA83309552800EF566F2F4D3C1C3887C49360E3875F2EB94D99532C51");
}

// RFC 7748 6.1: Alice and Bob.
TEST(X25519, Rfc7748DiffieHellman) {
  const std::vector<uint8_t> a = ks_test::from_hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  const std::vector<uint8_t> b = ks_test::from_hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
  uint8_t pa[32], pb[32];
  ks::x25519::public_key(pa, a.data());
  ks::x25519::public_key(pb, b.data());
  EXPECT_EQ(ks_test::to_hex(pa, 32), "8520F0098930A754748B7DDCB43EF75A0DBF3A0D26381AF4EBA4A98EAA9B4E6A");
  EXPECT_EQ(ks_test::to_hex(pb, 32), "DE9EDB7D7B7DC1B4D35B61C2ECE435373F8343C85B78674DADFC7E146F882B4F");
  uint8_t s1[32], s2[32];
  ASSERT_EQ(ks::x25519::shared_secret(s1, a.data(), pb), ks::x25519::Error::kOk);
  ASSERT_EQ(ks::x25519::shared_secret(s2, b.data(), pa), ks::x25519::Error::kOk);
  EXPECT_EQ(ks_test::to_hex(s1, 32), "4A5D9D5BA4CE2DE1728E3BF480350F25E07E21C947D19E3376F09B3C1E161742");
  EXPECT_EQ(memcmp(s1, s2, 32), 0);
}

// Small-order u (and their non-canonical forms, and u with the high bit
// set) give the all-zero secret, reported as an error.
TEST(X25519, SmallOrderPointsGiveTheZeroSecretError) {
  const char* kSmallOrder[] = {
      "0000000000000000000000000000000000000000000000000000000000000000",  // 0
      "0100000000000000000000000000000000000000000000000000000000000000",  // 1
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",  // order 8
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",  // order 8
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p - 1
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p (= 0)
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // p + 1 (= 1)
      "0000000000000000000000000000000000000000000000000000000000000080",  // 0, high bit set
  };
  const std::vector<uint8_t> k = ks_test::random_bytes(32);
  for (const char* hex : kSmallOrder) {
    const std::vector<uint8_t> u = ks_test::from_hex(hex);
    uint8_t out[32];
    EXPECT_EQ(ks::x25519::shared_secret(out, k.data(), u.data()),
              ks::x25519::Error::kZeroSharedSecret)
        << hex;
    for (uint8_t byte : out) EXPECT_EQ(byte, 0);
  }
}

// Random keys both ways against OpenSSL's X25519 (EVP), u with the high bit
// set included (RFC 7748 5: masked).
TEST(X25519, MatchesOpenSsl) {
  for (int i = 0; i < 50; ++i) {
    const std::vector<uint8_t> k = ks_test::random_bytes(32);
    std::vector<uint8_t> peer_priv = ks_test::random_bytes(32);
    uint8_t peer_pub[32];
    ks::x25519::public_key(peer_pub, peer_priv.data());
    EVP_PKEY* theirs = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, peer_priv.data(), 32);
    uint8_t their_pub[32];
    size_t len = 32;
    EVP_PKEY_get_raw_public_key(theirs, their_pub, &len);
    ASSERT_EQ(memcmp(their_pub, peer_pub, 32), 0) << "public key differs from OpenSSL's";
    uint8_t our_pub[32];
    ks::x25519::public_key(our_pub, k.data());
    EVP_PKEY* ours = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, our_pub, 32);
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(theirs, nullptr);
    EVP_PKEY_derive_init(ctx);
    EVP_PKEY_derive_set_peer(ctx, ours);
    uint8_t their_secret[32];
    len = 32;
    ASSERT_EQ(EVP_PKEY_derive(ctx, their_secret, &len), 1);
    uint8_t our_secret[32];
    if (i % 2) peer_pub[31] |= 0x80;  // the high bit is masked
    ASSERT_EQ(ks::x25519::shared_secret(our_secret, k.data(), peer_pub), ks::x25519::Error::kOk);
    EXPECT_EQ(memcmp(our_secret, their_secret, 32), 0);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(ours);
    EVP_PKEY_free(theirs);
  }
}

}  // namespace
