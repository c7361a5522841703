// The DPF field (field/fe25519_dpf.cuh) on the host, its round-toward-zero
// FMA emulated: the same formulas the GPU runs, checked against the CPU
// field on every CI machine, GPU or not. Field operations on values at the
// bounds and random, raw limbs at the invariant's maxima, and X25519 with
// the ladder over this field against the CPU X25519 (RFC 7748 vectors and
// random). test_gpu_curve25519.cc repeats the field checks on the GPU's
// own FMA.
// The GPU formulas as ordinary inline functions here (core/hd.h): forced
// inlining made this file minutes of g++ for no difference in what it checks.
#define KS_HD_HOST_PLAIN_INLINE 1
#include <gtest/gtest.h>
#include <string.h>

#include <random>
#include <vector>

#include "curve/montgomery_ladder.h"
#include "fe25519_test_values.h"
#include "field/fe25519.h"
#include "field/fe25519_dpf.cuh"
#include "field/field_op.h"
#include "curve25519/x25519.h"
#include "test_util.h"

namespace {

using ks::field::Fe25519;
using ks::field::Fe25519Dpf;
using ks::field::FieldOp;
using ks::field::U256;

constexpr FieldOp kOps[] = {FieldOp::kAdd, FieldOp::kSub,      FieldOp::kMul,
                            FieldOp::kSqr, FieldOp::kMulSmall, FieldOp::kMulChain};

U256 dpf_result(const Fe25519Dpf::Elem& r) {
  U256 w;
  Fe25519Dpf::to_words(w.w, r);
  return w;
}

// The emulation must round toward zero, not to nearest: 1 - 2^-60 is just
// below 1, which nearest rounding returns and toward-zero does not.
TEST(Fe25519Dpf, HostFmaRoundsTowardZero) {
  EXPECT_EQ(ks::field::dpf_detail::fma_rz(1.0, 1.0, -0x1p-60), 1.0 - 0x1p-53);
  EXPECT_EQ(ks::field::dpf_detail::fma_rz(3.0, 0x1p52 + 1, 0.0), 0x1p53 * 1.5 + 2);
}

TEST(Fe25519Dpf, MatchesTheCpuField) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 4000; ++i) {
    const U256 a = ks_test::edge_or_random(rng), b = ks_test::edge_or_random(rng);
    const Fe25519Dpf::Elem x = Fe25519Dpf::from_words(a.w), y = Fe25519Dpf::from_words(b.w);
    for (FieldOp op : kOps) {
      const U256 want = Fe25519::canonical(ks::field::apply<Fe25519>(op, a, b, 3));
      ASSERT_TRUE(ks::field::eq_mask(dpf_result(ks::field::apply<Fe25519Dpf>(op, x, y, 3)), want))
          << "op " << int(op) << " a " << ks_test::to_hex((const uint8_t*)a.w, 32) << " b "
          << ks_test::to_hex((const uint8_t*)b.w, 32);
    }
    const bool a_zero = ks::field::eq_mask(Fe25519::canonical(a), U256{{0, 0, 0, 0}});
    EXPECT_EQ(Fe25519Dpf::is_zero(x) != 0, a_zero);
    EXPECT_EQ(Fe25519Dpf::eq(x, y) != 0, bool(ks::field::eq_mask(Fe25519::canonical(a),
                                                                 Fe25519::canonical(b))));
    EXPECT_EQ(Fe25519Dpf::is_negative(x), 0 - (Fe25519::canonical(a).w[0] & 1));
  }
  for (int i = 0; i < 20; ++i) {
    const U256 a = ks_test::edge_or_random(rng);
    ASSERT_TRUE(ks::field::eq_mask(dpf_result(Fe25519Dpf::inv(Fe25519Dpf::from_words(a.w))),
                                   Fe25519::canonical(Fe25519::inv(a))));
  }
}

TEST(Fe25519Dpf, BoundsAtTheLimbMaxima) {
  std::mt19937_64 rng(std::random_device{}());
  const size_t count = 4000;
  const std::vector<uint64_t> a = ks_test::dpf_limbs_at_bounds(rng, count),
                              b = ks_test::dpf_limbs_at_bounds(rng, count);
  for (size_t i = 0; i < count; ++i) {
    Fe25519Dpf::Elem x, y;
    memcpy(x.l, &a[5 * i], 40);
    memcpy(y.l, &b[5 * i], 40);
    const U256 va = ks_test::limbs_value(&a[5 * i]), vb = ks_test::limbs_value(&b[5 * i]);
    for (FieldOp op : kOps) {
      const Fe25519Dpf::Elem r = ks::field::apply<Fe25519Dpf>(op, x, y, 3);
      ASSERT_TRUE(ks::field::eq_mask(dpf_result(r),
                                     Fe25519::canonical(ks::field::apply<Fe25519>(op, va, vb, 3))))
          << "op " << int(op) << " item " << i;
      // Every result is back within the invariant (I).
      ASSERT_LT(r.l[0], (uint64_t(1) << 51) + (1 << 13)) << "op " << int(op) << " item " << i;
      for (int j = 1; j < 5; ++j) ASSERT_LT(r.l[j], uint64_t(1) << 51) << "op " << int(op);
    }
  }
}

// X25519 (RFC 7748 5) with the ladder over the DPF field.
void dpf_x25519(uint8_t out[32], const uint8_t k[32], const uint8_t u[32]) {
  const U256 scalar = ks::x25519::clamp(k), uw = ks::x25519::decode_u(u);
  const auto bit = [&](int i) { return 0 - ((scalar.w[i >> 6] >> (i & 63)) & 1); };
  const ks::curve::LadderState<Fe25519Dpf> s =
      ks::curve::ladder<Fe25519Dpf>(Fe25519Dpf::from_words(uw.w), bit);
  U256 r;
  Fe25519Dpf::to_words(r.w, Fe25519Dpf::mul(s.x2, Fe25519Dpf::inv(s.z2)));
  memcpy(out, r.w, 32);
}

TEST(Fe25519Dpf, X25519MatchesTheCpu) {
  const std::vector<uint8_t> k = ks_test::from_hex(
      "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
  const std::vector<uint8_t> u = ks_test::from_hex(
      "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
  uint8_t out[32];
  dpf_x25519(out, k.data(), u.data());
  EXPECT_EQ(ks_test::to_hex(out, 32),
            "C3DA55379DE9C6908E94EA4DF28D084F32ECCF03491C71F754B4075577A28552");
  for (int i = 0; i < 8; ++i) {
    const std::vector<uint8_t> ki = ks_test::random_bytes(32), ui = ks_test::random_bytes(32);
    uint8_t want[32];
    ks::x25519::shared_secret(want, ki.data(), ui.data());
    dpf_x25519(out, ki.data(), ui.data());
    ASSERT_EQ(memcmp(out, want, 32), 0) << "k " << ks_test::to_hex(ki.data(), 32);
  }
}

}  // namespace
