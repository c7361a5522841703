// GF(p) and scalar (mod n) arithmetic of SM2 against OpenSSL BIGNUM.
#include <gtest/gtest.h>
#include <openssl/bn.h>

#include <vector>

#include "field/fn.h"
#include "field/fp.h"
#include "field/fp_mont.h"
#include "field/fp_mont_adx.h"
#include "field/mul_adx.h"
#include "test_sm2_util.h"

namespace {

using ks::field::Fn;
using ks::field::Fp;
using ks::field::U256;
using namespace ks_test;

const char* kPHex = "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF";
const char* kNHex = "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123";

struct Ctx {
  BN_CTX* ctx = BN_CTX_new();
  ~Ctx() { BN_CTX_free(ctx); }
};

bool same(const U256& a, const U256& b) { return ks::field::eq_mask(a, b) != 0; }

// Edge values and random ones below modulus m.
std::vector<U256> samples(const U256& m, int random_count) {
  Bn mb = to_bn(m);
  std::vector<U256> v;
  auto add_bn = [&](const BIGNUM* b) { v.push_back(from_bn(b)); };
  Bn t(BN_new());
  for (int k : {0, 1, 2, 3}) {
    BN_set_word(t.get(), k);
    add_bn(t.get());
    BN_sub(t.get(), mb.get(), t.get());
    if (k != 0) add_bn(t.get());
  }
  for (int bit : {63, 64, 95, 96, 127, 128, 191, 192, 223, 224, 254, 255}) {
    BN_zero(t.get());
    BN_set_bit(t.get(), bit);
    if (BN_cmp(t.get(), mb.get()) < 0) add_bn(t.get());
    BN_sub(t.get(), mb.get(), t.get());
    if (!BN_is_negative(t.get())) add_bn(t.get());
  }
  Rng rng(0x5eed0000 + random_count);
  for (int i = 0; i < random_count; ++i) v.push_back(rng.below(m));
  return v;
}

TEST(FieldFp, ModulusMatchesStandard) {
  EXPECT_TRUE(same(Fp::kModulus, u256_hex(kPHex)));
  EXPECT_TRUE(same(Fn::kModulus, u256_hex(kNHex)));
}

TEST(FieldFp, ArithmeticMatchesBignum) {
  Ctx c;
  Bn p = bn_hex(kPHex), r(BN_new());
  const auto v = samples(Fp::kModulus, 60);
  for (const U256& a : v) {
    Bn ab = to_bn(a);
    for (const U256& b : v) {
      Bn bb = to_bn(b);
      BN_mod_mul(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(Fp::mul(a, b), from_bn(r.get())));
      BN_mod_add(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(Fp::add(a, b), from_bn(r.get())));
      BN_mod_sub(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(Fp::sub(a, b), from_bn(r.get())));
    }
    BN_mod_sqr(r.get(), ab.get(), p.get(), c.ctx);
    ASSERT_TRUE(same(Fp::sqr(a), from_bn(r.get())));
    BN_mod_sub(r.get(), p.get(), ab.get(), p.get(), c.ctx);
    ASSERT_TRUE(same(Fp::neg(a), from_bn(r.get())));
    BN_mod_lshift1(r.get(), ab.get(), p.get(), c.ctx);
    ASSERT_TRUE(same(Fp::dbl(a), from_bn(r.get())));
    ASSERT_TRUE(same(Fp::dbl(Fp::half(a)), a));  // a/2: the one value whose double is a
    ASSERT_TRUE(same(Fp::half(Fp::dbl(a)), a));
  }
}

TEST(FieldFp, ManyRandomProducts) {
  Ctx c;
  Bn p = bn_hex(kPHex), r(BN_new());
  Rng rng(42);
  for (int i = 0; i < 200000; ++i) {
    const U256 a = rng.below(Fp::kModulus), b = rng.below(Fp::kModulus);
    Bn ab = to_bn(a), bb = to_bn(b);
    BN_mod_mul(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
    ASSERT_TRUE(same(Fp::mul(a, b), from_bn(r.get()))) << i;
  }
}

// On x86-64 the assembly reduction serves every product; the portable C
// one (the reference for other targets) must agree with it and BIGNUM.
TEST(FieldFp, PortableReductionMatches) {
  Ctx c;
  Bn p = bn_hex(kPHex), r(BN_new()), prod(BN_new());
  Rng rng(5);
  for (int i = 0; i < 100000; ++i) {
    const U256 a = rng.below(Fp::kModulus), b = rng.below(Fp::kModulus);
    uint64_t t[8];
    ks::field::fp_detail::MulPortable::mul_wide(t, a, b);
    const U256 z = ks::field::fp_detail::solinas_reduce_portable(t);
    ASSERT_TRUE(same(z, ks::field::fp_detail::solinas_reduce(t)));
    if (i % 16 == 0) {
      Bn ab = to_bn(a), bb = to_bn(b);
      BN_mod_mul(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(z, from_bn(r.get())));
    }
  }
}

// The Montgomery form (the scalar multiplications' field on the CPU): every
// operation, read back through to_plain, is BIGNUM's; the assembly and the
// portable reductions agree; conversions round-trip; one() is 1.
template <class F>
void check_montgomery_field() {
  Ctx c;
  Bn p = bn_hex(kPHex), r(BN_new());
  const auto v = samples(Fp::kModulus, 40);
  Rng rng(77);
  for (const U256& a : v) {
    const auto am = F::from_plain(a);
    ASSERT_TRUE(same(F::to_plain(am), a));
    Bn ab = to_bn(a);
    for (const U256& b : v) {
      const auto bm = F::from_plain(b);
      Bn bb = to_bn(b);
      BN_mod_mul(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(F::to_plain(F::mul(am, bm)), from_bn(r.get())));
      BN_mod_sub(r.get(), ab.get(), bb.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(F::to_plain(F::sub(am, bm)), from_bn(r.get())));
    }
    BN_mod_sqr(r.get(), ab.get(), p.get(), c.ctx);
    ASSERT_TRUE(same(F::to_plain(F::sqr(am)), from_bn(r.get())));
    ASSERT_TRUE(same(F::to_plain(F::dbl(F::half(am))), a));
    if (!Fp::is_zero(a)) {
      BN_mod_inverse(r.get(), ab.get(), p.get(), c.ctx);
      ASSERT_TRUE(same(F::to_plain(F::inv(am)), from_bn(r.get())));
    }
  }
  EXPECT_TRUE(same(F::to_plain(F::one()), Fp::one()));
  for (int i = 0; i < 100000; ++i) {  // products: assembly reduction = portable one
    const U256 a = rng.below(Fp::kModulus), b = rng.below(Fp::kModulus);
    uint64_t t[8];
    ks::field::fp_detail::MulPortable::mul_wide(t, a, b);
    ASSERT_TRUE(same(ks::field::fp_detail::mont_reduce(t),
                     ks::field::fp_detail::mont_reduce_portable(t)));
  }
}

TEST(FieldFp, MontgomeryFormMatchesBignum) {
  check_montgomery_field<ks::field::FpMontField<ks::field::fp_detail::MulPortable>>();
}

TEST(FieldFp, InverseAndSqrt) {
  Ctx c;
  Bn p = bn_hex(kPHex), r(BN_new());
  EXPECT_TRUE(same(Fp::inv(Fp::zero()), Fp::zero()));
  for (const U256& a : samples(Fp::kModulus, 200)) {
    if (Fp::is_zero(a)) continue;
    Bn ab = to_bn(a);
    ASSERT_NE(BN_mod_inverse(r.get(), ab.get(), p.get(), c.ctx), nullptr);
    ASSERT_TRUE(same(Fp::inv(a), from_bn(r.get())));
    U256 root;
    const U256 square = Fp::sqr(a);
    ASSERT_TRUE(Fp::sqrt(root, square));
    ASSERT_TRUE(same(Fp::sqr(root), square));
    // p = 3 mod 4 makes -1 a non-residue: exactly one of a^2, -a^2 is square
    ASSERT_FALSE(Fp::sqrt(root, Fp::neg(square)));
  }
}

TEST(FieldFp, DecodingRejectsNonCanonical) {
  uint8_t be[32];
  U256 x;
  Bn p = bn_hex(kPHex), t(BN_new());
  for (int delta : {0, 1, 2}) {  // p, p+1, p+2
    BN_add_word(BN_copy(t.get(), p.get()), delta);
    BN_bn2binpad(t.get(), be, 32);
    EXPECT_FALSE(Fp::from_bytes(x, be)) << delta;
  }
  memset(be, 0xFF, 32);  // 2^256 - 1
  EXPECT_FALSE(Fp::from_bytes(x, be));
  BN_sub_word(BN_copy(t.get(), p.get()), 1);
  BN_bn2binpad(t.get(), be, 32);
  ASSERT_TRUE(Fp::from_bytes(x, be));
  uint8_t back[32];
  Fp::to_bytes(back, x);
  EXPECT_EQ(0, memcmp(be, back, 32));
}

TEST(FieldFn, ArithmeticMatchesBignum) {
  Ctx c;
  Bn n = bn_hex(kNHex), r(BN_new());
  const auto v = samples(Fn::kModulus, 50);
  for (const U256& a : v) {
    Bn ab = to_bn(a);
    const U256 a_mont = Fn::to_mont(a);
    ASSERT_TRUE(same(Fn::from_mont(a_mont), a));
    for (const U256& b : v) {
      Bn bb = to_bn(b);
      BN_mod_mul(r.get(), ab.get(), bb.get(), n.get(), c.ctx);
      ASSERT_TRUE(same(Fn::mul_plain_mont(b, a_mont), from_bn(r.get())));
      ASSERT_TRUE(same(Fn::from_mont(Fn::mont_mul(a_mont, Fn::to_mont(b))), from_bn(r.get())));
      BN_mod_add(r.get(), ab.get(), bb.get(), n.get(), c.ctx);
      ASSERT_TRUE(same(Fn::add(a, b), from_bn(r.get())));
      BN_mod_sub(r.get(), ab.get(), bb.get(), n.get(), c.ctx);
      ASSERT_TRUE(same(Fn::sub(a, b), from_bn(r.get())));
    }
    if (Fn::in_range_nonzero(a)) {
      ASSERT_NE(BN_mod_inverse(r.get(), ab.get(), n.get(), c.ctx), nullptr);
      ASSERT_TRUE(same(Fn::from_mont(Fn::inv_mont(a_mont)), from_bn(r.get())));
    }
  }
}

TEST(FieldFn, RangeChecksAndReduction) {
  const U256 n = Fn::kModulus;
  U256 n_minus_1, n_plus_1;
  ks::field::sub_borrow(n_minus_1, n, U256{{1, 0, 0, 0}});
  ks::field::add_carry(n_plus_1, n, U256{{1, 0, 0, 0}});
  EXPECT_FALSE(Fn::in_range_nonzero(U256{{0, 0, 0, 0}}));
  EXPECT_TRUE(Fn::in_range_nonzero(U256{{1, 0, 0, 0}}));
  EXPECT_TRUE(Fn::in_range_nonzero(n_minus_1));
  EXPECT_FALSE(Fn::in_range_nonzero(n));
  EXPECT_FALSE(Fn::in_range_nonzero(n_plus_1));
  EXPECT_TRUE(same(Fn::reduce_once(n), U256{{0, 0, 0, 0}}));
  EXPECT_TRUE(same(Fn::reduce_once(n_plus_1), U256{{1, 0, 0, 0}}));
  EXPECT_TRUE(same(Fn::reduce_once(n_minus_1), n_minus_1));
  const U256 all_ones = {{~0ull, ~0ull, ~0ull, ~0ull}};
  U256 expect;
  ks::field::sub_borrow(expect, all_ones, n);
  EXPECT_TRUE(same(Fn::reduce_once(all_ones), expect));
}

}  // namespace

#if KS_HAVE_MUL_ADX
#include "core/cpu_features.h"

namespace {

// The MULX/ADX products must agree with the portable ones bit for bit.
TEST(FieldFp, AdxMatchesPortable) {
  if (!ks::cpu_features().bmi2 || !ks::cpu_features().adx) GTEST_SKIP() << "no BMI2/ADX";
  using ks::field::FpAdx;
  Rng rng(99);
  for (const U256& a : samples(Fp::kModulus, 2000)) {
    const U256 b = rng.below(Fp::kModulus);
    ASSERT_TRUE(same(FpAdx::mul(a, b), Fp::mul(a, b)));
    ASSERT_TRUE(same(FpAdx::sqr(a), Fp::sqr(a)));
  }
  const U256 x = rng.below(Fp::kModulus);
  EXPECT_TRUE(same(FpAdx::inv(x), Fp::inv(x)));
}

TEST(FieldFp, MontgomeryFormWithAdxMatchesBignum) {
  if (!ks::cpu_features().bmi2 || !ks::cpu_features().adx) GTEST_SKIP() << "no BMI2/ADX";
  check_montgomery_field<ks::field::FpMontField<ks::field::MulAdx>>();
}

// The fused product and square (field/fp_mont_adx.h: product, reduction
// and final subtraction in one assembly block, the SM2 default) against
// BIGNUM and bit for bit against the two-pass MULX/ADX field, on the edge
// values, operands whose limbs are all ones or all zeros in every pattern
// below p (carries through every limb of the product and the reduction),
// and random ones.
TEST(FieldFp, MontgomeryFusedMatchesTwoPass) {
#if !defined(KS_HAVE_MONT_ADX)
  GTEST_SKIP() << "no fused product (not x86-64)";
#else
  if (!ks::cpu_features().bmi2 || !ks::cpu_features().adx) GTEST_SKIP() << "no BMI2/ADX";
  using Fused = ks::field::FpMontField<ks::field::MontAdx>;
  using TwoPass = ks::field::FpMontField<ks::field::MulAdx>;
  check_montgomery_field<Fused>();
  std::vector<U256> v = samples(Fp::kModulus, 3000);
  const uint64_t kLimbs[4] = {0, ~0ull, 0xFFFFFFFFull, 0xFFFFFFFF00000000ull};
  for (int pattern = 0; pattern < 256; ++pattern) {
    U256 x;  // two bits a limb: 0, all ones, low half, high half
    for (int i = 0; i < 4; ++i) x.w[i] = kLimbs[(pattern >> (2 * i)) & 3];
    if (ks::field::lt_mask(x, Fp::kModulus)) v.push_back(x);
  }
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_TRUE(same(Fused::sqr(v[i]), TwoPass::sqr(v[i]))) << i;
    for (size_t j = 0; j < v.size(); j += 1 + (i % 37)) {
      ASSERT_TRUE(same(Fused::mul(v[i], v[j]), TwoPass::mul(v[i], v[j]))) << i << " " << j;
    }
  }
#endif
}

}  // namespace
#endif
