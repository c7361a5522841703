// The SM2 DPF field (field/fp_dpf.cuh) on the host, its round-toward-zero
// FMA emulated: the formulas the GPU runs, checked on every CI machine
// against the CPU field (field/fp.h) and OpenSSL BIGNUM, on edge and random
// values and on raw limbs at the invariant's maxima.
// The GPU formulas as ordinary inline functions here (core/hd.h): forced
// inlining made this file minutes of g++ for no difference in what it checks.
#define KS_HD_HOST_PLAIN_INLINE 1
#include <gtest/gtest.h>
#include <openssl/bn.h>

#include <vector>

#include "curve/jacobian.h"
#include "sm2/sm2_params.h"
#include "field/fp.h"
#include "field/fp_dpf.cuh"
#include "test_sm2_util.h"

namespace {

using ks::field::Fp;
using ks::field::FpDpf;
using ks::field::U256;
using namespace ks_test;

U256 plain(const FpDpf::Elem& a) {
  U256 w;
  FpDpf::to_words(w.w, a);
  return w;
}
FpDpf::Elem form(const U256& a) { return FpDpf::from_words(a.w); }

bool same(const U256& a, const U256& b) { return ks::field::eq_mask(a, b) != 0; }
// Any value below 2^256 (< 2p) reduced mod p.
U256 reduced(const U256& a) { return ks::field::subtract_if_ge(a, 0, Fp::kModulus); }

// Every result within the invariant (I): limbs 0..3 below 2^52, limb 4
// below 2^49.
void expect_invariant(const FpDpf::Elem& r, const char* what) {
  for (int i = 0; i < 4; ++i) ASSERT_LT(r.l[i], uint64_t(1) << 52) << what << " limb " << i;
  ASSERT_LT(r.l[4], uint64_t(1) << 49) << what;
}

// Edge values (0, 1, p - k, powers of two near the prime's terms, words of
// all ones) and random ones below p.
std::vector<U256> samples(int random_count) {
  std::vector<U256> v;
  for (uint64_t k : {0, 1, 2, 3}) {
    v.push_back(U256{{k, 0, 0, 0}});
    if (k != 0) v.push_back(Fp::sub(Fp::zero(), U256{{k, 0, 0, 0}}));
  }
  for (int bit : {51, 52, 63, 64, 95, 96, 103, 104, 155, 156, 207, 208, 223, 224, 255}) {
    U256 t{{0, 0, 0, 0}};
    t.w[bit / 64] = uint64_t(1) << (bit % 64);
    v.push_back(reduced(t));
    v.push_back(Fp::sub(Fp::zero(), reduced(t)));
  }
  v.push_back(U256{{~0ull, ~0ull, ~0ull, 0x7fffffffffffffff}});
  Rng rng(0xd0f5eed);
  for (int i = 0; i < random_count; ++i) v.push_back(rng.below(Fp::kModulus));
  return v;
}

TEST(FpDpf, ConversionsRoundTrip) {
  for (const U256& a : samples(2000)) {
    const FpDpf::Elem x = form(a);
    expect_invariant(x, "from_words");
    ASSERT_TRUE(same(plain(x), a));
  }
  // 2^256 - 1 and p itself are accepted (any value below 2^256) and reduced
  const U256 all_ones{{~0ull, ~0ull, ~0ull, ~0ull}};
  EXPECT_TRUE(same(plain(form(all_ones)), reduced(all_ones)));
  EXPECT_TRUE(same(plain(form(Fp::kModulus)), U256{{0, 0, 0, 0}}));
  EXPECT_TRUE(same(plain(FpDpf::one()), U256{{1, 0, 0, 0}}));
  // p and 2p as raw limbs are zero
  const FpDpf::Elem p = {{0xfffffffffffff, 0xff00000000fff, 0xfffffffffffff, 0xfffffffffffff,
                          0xfffffffeffff}};
  EXPECT_NE(FpDpf::is_zero(p), 0u);
  EXPECT_NE(FpDpf::is_zero(FpDpf::add(p, p)), 0u);
  EXPECT_EQ(FpDpf::is_zero(FpDpf::one()), 0u);
}

TEST(FpDpf, MatchesTheCpuField) {
  const std::vector<U256> v = samples(600);
  for (size_t i = 0; i < v.size(); ++i) {
    const U256& a = v[i];
    const U256& b = v[(i * 7 + 3) % v.size()];
    const FpDpf::Elem x = form(a), y = form(b);
    const struct {
      const char* what;
      FpDpf::Elem got;
      U256 want;
    } cases[] = {
        {"add", FpDpf::add(x, y), Fp::add(a, b)},
        {"sub", FpDpf::sub(x, y), Fp::sub(a, b)},
        {"neg", FpDpf::neg(x), Fp::neg(a)},
        {"half", FpDpf::half(x), Fp::half(a)},
        {"mul", FpDpf::mul(x, y), Fp::mul(a, b)},
        {"sqr", FpDpf::sqr(x), Fp::sqr(a)},
        {"sqr_n", FpDpf::sqr_n(x, 5), Fp::sqr_n(a, 5)},
        {"mul_small", FpDpf::mul_small(x, 121666), Fp::mul(a, U256{{121666, 0, 0, 0}})},
    };
    for (const auto& c : cases) {
      expect_invariant(c.got, c.what);
      ASSERT_TRUE(same(plain(c.got), c.want)) << c.what << " item " << i;
    }
    EXPECT_EQ(FpDpf::is_zero(x) != 0, same(a, U256{{0, 0, 0, 0}}));
    EXPECT_EQ(FpDpf::eq(x, y) != 0, same(a, b));
    EXPECT_NE(FpDpf::eq(x, x), 0u);  // x - x + 4p folds to p itself
    EXPECT_TRUE(same(plain(FpDpf::select(~0ull, x, y)), a));
    EXPECT_TRUE(same(plain(FpDpf::select(0, x, y)), b));
  }
  for (size_t i = 0; i < 24; ++i)
    ASSERT_TRUE(same(plain(FpDpf::inv(form(v[i]))), Fp::inv(v[i]))) << "inv item " << i;
}

// Raw limbs at (I)'s maxima, which no conversion produces: each limb at its
// bound minus a small or random amount. Their value V stands for V R^-1 mod
// p (R = 2^260), computed here with BIGNUM independently of the field.
struct RawCase {
  FpDpf::Elem x;
  U256 value;  // V R^-1 mod p
};

RawCase raw_at_bounds(Rng& rng, const BIGNUM* p, const BIGNUM* r_inverse, BN_CTX* ctx) {
  RawCase c;
  for (int i = 0; i < 5; ++i) {
    const uint64_t bound = uint64_t(1) << (i < 4 ? 52 : 49);
    const uint64_t below = rng.word() % 4 == 0 ? rng.word() % bound : rng.word() % 4;
    c.x.l[i] = bound - 1 - below;
  }
  Bn v(BN_new()), limb(BN_new());
  BN_zero(v.get());
  for (int i = 4; i >= 0; --i) {
    BN_lshift(v.get(), v.get(), 52);
    BN_set_word(limb.get(), c.x.l[i]);
    BN_add(v.get(), v.get(), limb.get());
  }
  BN_mod_mul(v.get(), v.get(), r_inverse, p, ctx);
  c.value = from_bn(v.get());
  return c;
}

TEST(FpDpf, BoundsAtTheLimbMaxima) {
  BN_CTX* ctx = BN_CTX_new();
  const Bn p = to_bn(Fp::kModulus);
  Bn r_inverse(BN_new());
  BN_set_bit(r_inverse.get(), 260);
  ASSERT_TRUE(BN_mod_inverse(r_inverse.get(), r_inverse.get(), p.get(), ctx));
  Rng rng(0xb0b0);
  for (int i = 0; i < 3000; ++i) {
    const RawCase a = raw_at_bounds(rng, p.get(), r_inverse.get(), ctx),
                  b = raw_at_bounds(rng, p.get(), r_inverse.get(), ctx);
    const struct {
      const char* what;
      FpDpf::Elem got;
      U256 want;
    } cases[] = {
        {"add", FpDpf::add(a.x, b.x), Fp::add(a.value, b.value)},
        {"sub", FpDpf::sub(a.x, b.x), Fp::sub(a.value, b.value)},
        {"half", FpDpf::half(a.x), Fp::half(a.value)},
        {"mul", FpDpf::mul(a.x, b.x), Fp::mul(a.value, b.value)},
        {"sqr", FpDpf::sqr(a.x), Fp::sqr(a.value)},
    };
    for (const auto& c : cases) {
      expect_invariant(c.got, c.what);
      ASSERT_TRUE(same(plain(c.got), c.want)) << c.what << " item " << i;
    }
    ASSERT_TRUE(same(plain(a.x), a.value)) << "to_words item " << i;
    ASSERT_EQ(FpDpf::is_zero(a.x) != 0, same(a.value, U256{{0, 0, 0, 0}})) << "item " << i;
  }
  BN_CTX_free(ctx);
}

// The point formulas of curve/jacobian.h over this field against the same
// formulas over the CPU field: every coordinate of every step equal.
TEST(FpDpf, PointFormulasMatchTheCpuField) {
  using ks::curve::JacobianPoint;
  using DpfPoint = JacobianPoint<FpDpf>;
  using CpuPoint = JacobianPoint<Fp>;
  const U256 gx = ks::curve::kG.x, gy = ks::curve::kG.y;
  const CpuPoint g = {gx, gy, Fp::one()};
  const DpfPoint gd = {form(gx), form(gy), FpDpf::one()};
  CpuPoint q = g;
  DpfPoint qd = gd;
  for (int step = 0; step < 64; ++step) {
    q = ks::curve::dbl<Fp, true>(q);
    qd = ks::curve::dbl<FpDpf, true>(qd);
    ASSERT_TRUE(same(plain(qd.x), q.x) && same(plain(qd.y), q.y) && same(plain(qd.z), q.z))
        << "doubling " << step;
    q = ks::curve::add(q, g);
    qd = ks::curve::add(qd, gd);
    ASSERT_TRUE(same(plain(qd.x), q.x) && same(plain(qd.y), q.y) && same(plain(qd.z), q.z))
        << "addition " << step;
  }
}

}  // namespace
