// SM2 curve arithmetic and point encodings against OpenSSL's EC_POINT on
// the SM2 curve (NID_sm2).
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include <vector>

#include "sm2/sm2_curve.h"
#include "test_sm2_util.h"

namespace {

using namespace ks::curve;
using namespace ks_test;

class CurveSm2 : public ::testing::Test {
 protected:
  void SetUp() override {
    group_ = EC_GROUP_new_by_curve_name(NID_sm2);
    ctx_ = BN_CTX_new();
    ASSERT_NE(group_, nullptr);
  }
  void TearDown() override {
    EC_GROUP_free(group_);
    BN_CTX_free(ctx_);
  }

  // OpenSSL's affine point, or false for infinity.
  bool ossl_affine(Affine& out, const EC_POINT* p) {
    if (EC_POINT_is_at_infinity(group_, p)) return false;
    Bn x(BN_new()), y(BN_new());
    EXPECT_TRUE(EC_POINT_get_affine_coordinates(group_, p, x.get(), y.get(), ctx_));
    out = {from_bn(x.get()), from_bn(y.get())};
    return true;
  }
  EC_POINT* ossl_point(const Affine& a) {
    EC_POINT* p = EC_POINT_new(group_);
    Bn x = to_bn(a.x), y = to_bn(a.y);
    EXPECT_TRUE(EC_POINT_set_affine_coordinates(group_, p, x.get(), y.get(), ctx_));
    return p;
  }
  // ours (Jacobian) == OpenSSL's [s]G + [t]P (s, t may be null).
  void expect_same(const Jacobian& ours, const U256* s, const U256* t, const Affine* p) {
    EC_POINT* r = EC_POINT_new(group_);
    EC_POINT* q = p ? ossl_point(*p) : nullptr;
    Bn sb = s ? to_bn(*s) : nullptr, tb = t ? to_bn(*t) : nullptr;
    ASSERT_TRUE(EC_POINT_mul(group_, r, sb.get(), q, tb.get(), ctx_));
    Affine want, got;
    const bool finite = ossl_affine(want, r);
    ASSERT_EQ(finite, to_affine_checked(got, ours));
    if (finite) {
      EXPECT_TRUE(Fp::eq(want.x, got.x) && Fp::eq(want.y, got.y));
    }
    EC_POINT_free(q);
    EC_POINT_free(r);
  }
  Affine random_point(Rng& rng) { return to_affine(mul_base(rng.below(Fn::kModulus))); }

  // Scalars that stress the window recodings: edges of [0, n) and values
  // whose 7- and 5-bit windows sit at the Booth digit extremes.
  std::vector<U256> scalars(int random_count) {
    std::vector<U256> v;
    U256 n_minus = Fn::kModulus;
    // n - 6: the last 5-bit window of mul_point doubles (n = 3 mod 32)
    for (uint64_t k : {1, 2, 3, 4, 6, 63, 64, 65, 127, 128, 129}) {
      v.push_back(U256{{k, 0, 0, 0}});
      ks::field::sub_borrow(n_minus, Fn::kModulus, U256{{k, 0, 0, 0}});
      v.push_back(n_minus);
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
    Rng rng(7);
    for (int i = 0; i < random_count; ++i) v.push_back(rng.below(Fn::kModulus));
    return v;
  }

  EC_GROUP* group_ = nullptr;
  BN_CTX* ctx_ = nullptr;
};

TEST_F(CurveSm2, ParametersMatchOpenSsl) {
  Bn p(BN_new()), a(BN_new()), b(BN_new());
  ASSERT_TRUE(EC_GROUP_get_curve(group_, p.get(), a.get(), b.get(), ctx_));
  EXPECT_TRUE(Fp::eq(from_bn(p.get()), Fp::kModulus));
  EXPECT_TRUE(Fp::eq(from_bn(b.get()), kB));
  EXPECT_TRUE(Fp::eq(from_bn(EC_GROUP_get0_order(group_)), Fn::kModulus));
  Affine g;
  ASSERT_TRUE(ossl_affine(g, EC_GROUP_get0_generator(group_)));
  EXPECT_TRUE(Fp::eq(g.x, kG.x) && Fp::eq(g.y, kG.y));
  EXPECT_TRUE(is_on_curve(kG));
}

TEST_F(CurveSm2, MulBaseMatches) {
  for (const U256& k : scalars(300)) expect_same(mul_base(k), &k, nullptr, nullptr);
  const U256 zero{{0, 0, 0, 0}};
  EXPECT_TRUE(mul_base(zero).is_infinity());
}

TEST_F(CurveSm2, MulPointMatches) {
  Rng rng(11);
  for (const U256& k : scalars(60)) {
    const Affine p = random_point(rng);
    expect_same(mul_point(k, p), nullptr, &k, &p);
  }
  const U256 five{{5, 0, 0, 0}};
  expect_same(mul_point(five, kG), &five, nullptr, nullptr);
}

TEST_F(CurveSm2, DoubleScalarMatches) {
  Rng rng(13);
  const auto ks = scalars(40);
  for (size_t i = 0; i < ks.size(); ++i) {
    const U256& s = ks[i];
    const U256& t = ks[(i * 7 + 3) % ks.size()];
    const Affine p = random_point(rng);
    expect_same(mul_base_add_point_vartime(s, t, p), &s, &t, &p);
  }
  // P = G and P = -G: the final addition becomes a doubling or cancels.
  const U256 s{{12345, 0, 0, 0}};
  expect_same(mul_base_add_point_vartime(s, s, kG), &s, &s, &kG);
  const Affine minus_g{kG.x, Fp::neg(kG.y)};
  EXPECT_TRUE(mul_base_add_point_vartime(s, s, minus_g).is_infinity());
  const U256 zero{{0, 0, 0, 0}};
  expect_same(mul_base_add_point_vartime(zero, s, kG), &zero, &s, &kG);
  expect_same(mul_base_add_point_vartime(s, zero, kG), &s, &zero, &kG);
}

// A public point's comb table: [k]P and [s]G + [t]P from it equal
// OpenSSL's, for P random, G and -G (the sums that double or cancel).
TEST_F(CurveSm2, PointTableMatches) {
  Rng rng(17);
  const auto ks = scalars(30);
  for (int round = 0; round < 4; ++round) {
    const Affine p = round == 0 ? kG : round == 1 ? Affine{kG.x, Fp::neg(kG.y)} : random_point(rng);
    const PointTablePtr table = make_point_table(p);
    ASSERT_NE(table, nullptr);
    for (size_t i = 0; i < ks.size(); ++i) {
      const U256& s = ks[i];
      const U256& t = ks[(i * 5 + 1) % ks.size()];
      expect_same(Jacobian::from_affine(mul_table_affine(*table, t)), nullptr, &t, &p);
      expect_same(mul_base_add_table_vartime(s, t, *table), &s, &t, &p);
    }
  }
  const U256 zero{{0, 0, 0, 0}}, s{{99, 0, 0, 0}};
  const PointTablePtr g_table = make_point_table(kG);
  const Affine minus_g{kG.x, Fp::neg(kG.y)};
  const PointTablePtr minus_table = make_point_table(minus_g);
  EXPECT_TRUE(mul_base_add_table_vartime(s, s, *minus_table).is_infinity());
  expect_same(mul_base_add_table_vartime(s, s, *g_table), &s, &s, &kG);
  expect_same(mul_base_add_table_vartime(zero, s, *g_table), &zero, &s, &kG);
  expect_same(mul_base_add_table_vartime(s, zero, *g_table), &s, &zero, &kG);
  const Affine none = mul_table_affine(*g_table, zero);  // infinity: (0, 0)
  EXPECT_TRUE(Fp::is_zero(none.x) && Fp::is_zero(none.y));
}

TEST_F(CurveSm2, EncodingsRoundTripAndMatchOpenSsl) {
  Rng rng(17);
  for (int i = 0; i < 50; ++i) {
    const Affine p = random_point(rng);
    uint8_t unc[65], comp[33], ossl_comp[33];
    encode_point_uncompressed(unc, p);
    encode_point_compressed(comp, p);
    EC_POINT* q = ossl_point(p);
    ASSERT_EQ(33u, EC_POINT_point2oct(group_, q, POINT_CONVERSION_COMPRESSED, ossl_comp, 33, ctx_));
    EC_POINT_free(q);
    EXPECT_EQ(0, memcmp(comp, ossl_comp, 33));
    for (const auto& enc :
         {std::make_pair(unc, 65), std::make_pair(unc + 1, 64), std::make_pair(comp, 33)}) {
      Affine back;
      ASSERT_TRUE(decode_point(back, enc.first, size_t(enc.second)));
      EXPECT_TRUE(Fp::eq(back.x, p.x) && Fp::eq(back.y, p.y));
    }
  }
}

TEST_F(CurveSm2, DecodingRejectsBadPoints) {
  uint8_t unc[65], comp[33];
  encode_point_uncompressed(unc, kG);
  encode_point_compressed(comp, kG);
  Affine out;
  uint8_t bad[65];
  memcpy(bad, unc, 65);
  bad[64] ^= 1;  // off the curve
  EXPECT_FALSE(decode_point(out, bad, 65));
  memcpy(bad, unc, 65);
  bad[0] = 0x05;  // unknown prefix
  EXPECT_FALSE(decode_point(out, bad, 65));
  EXPECT_FALSE(decode_point(out, unc, 63));
  EXPECT_FALSE(decode_point(out, unc, 0 + 1));
  // x = p (non-canonical) with any y
  memcpy(bad, unc, 65);
  Fp::to_bytes(bad + 1, Fp::kModulus);
  EXPECT_FALSE(decode_point(out, bad, 65));
  // (0, 0): the common encoding of infinity is not a point here
  memset(bad + 1, 0, 64);
  EXPECT_FALSE(decode_point(out, bad, 65));
  // a compressed x with no point on the curve
  uint8_t cbad[33];
  memcpy(cbad, comp, 33);
  int rejected = 0;
  for (int i = 0; i < 8; ++i) {
    cbad[32] = uint8_t(comp[32] + i + 1);
    rejected += !decode_point(out, cbad, 33);
  }
  EXPECT_GT(rejected, 0);
  Affine a;
  EXPECT_FALSE(to_affine_checked(a, Jacobian::infinity()));
}

}  // namespace
