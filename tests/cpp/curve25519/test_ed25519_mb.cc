// The 8-lane AVX-512 IFMA Curve25519 path against the scalar code: the lane
// field (field/fe25519_ifma.h) operation by operation against Fe25519 on
// edge and random values, with the limb bounds of its invariant checked on
// every result, the limb maxima included; the 8-lane [k]B encodings,
// X25519 (variable and base point) and verification equation
// (curve25519/ed25519_mb.h) against curve25519/ed25519_curve.h on random inputs,
// small-order points, the identity and equations that do not hold (the
// equation also against a plain double-and-add oracle, with the scalars
// that verification's half-size reduction treats apart).
#include <gtest/gtest.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "curve25519/ed25519_curve.h"
#include "curve25519/ed25519_mb.h"
#include "curve25519/ed25519_params.h"
#include "curve25519/ed25519_x4.h"
#include "field/fe25519.h"
#include "field/fe25519_ifma.h"
#include "field/sc25519.h"
#include "curve25519/ed25519_batch.h"
#include "curve25519/x25519.h"
#include "test_sm2_util.h"

namespace {

using ks::field::Fe25519;
using ks::field::Sc25519;
using ks::field::U256;
using ks_test::Rng;
namespace ed = ks::curve::ed25519;
namespace edw = ks::curve::ed;
namespace mb = ks::curve::ed25519::mb;
namespace lanes = ks::field::ifma::fe25519;
constexpr int kLanes = mb::kLanes;
constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;

#define REQUIRE_IFMA() \
  if (!mb::available()) GTEST_SKIP() << "no AVX-512 IFMA here"

std::string hex(const U256& a) {
  uint8_t be[32];
  ks::field::to_be_bytes(be, a);
  return ks_test::to_hex(be, 32);
}

bool same(const U256& a, const U256& b) { return ks::field::eq_mask(a, b) != 0; }

// Limb 4's maximum under the element invariant of
// field/fe25519_ifma_simd.h (limbs 0-3: 2^52 - 1).
constexpr uint64_t kLimb4Max = (uint64_t(1) << 47) + (uint64_t(1) << 12) - 1;

struct Lane {
  uint64_t l[lanes::kLimbs];
};

// The value of a lane's limbs (below 2^256 within the invariant).
U256 value_of(const uint64_t l[lanes::kLimbs]) {
  return U256{{l[0] | l[1] << 52, l[1] >> 12 | l[2] << 40, l[2] >> 24 | l[3] << 28,
               l[3] >> 36 | l[4] << 16}};
}

const U256 kP = Fe25519::kModulus;

U256 plus(const U256& a, uint64_t k) {
  U256 r;
  ks::field::add_carry(r, a, U256{{k, 0, 0, 0}});
  return r;
}
U256 minus(const U256& a, uint64_t k) {
  U256 r;
  ks::field::sub_borrow(r, a, U256{{k, 0, 0, 0}});
  return r;
}

// Values at the edges of the residues and of the load's fold at 2^255: 0,
// 1, p - 1, p, p + 1, 2^255 - 1, 2^255, 2p, 2^256 - 1, limb boundaries.
std::vector<U256> edge_values() {
  const U256 two_p = minus(U256{{0, 0, 0, 0}}, 38);  // 2^256 - 38
  return {U256{{0, 0, 0, 0}}, U256{{1, 0, 0, 0}}, U256{{2, 0, 0, 0}}, U256{{19, 0, 0, 0}},
          U256{{38, 0, 0, 0}}, minus(kP, 1), kP, plus(kP, 1), plus(kP, 18), plus(kP, 19),
          minus(two_p, 1), two_p, plus(two_p, 1), minus(U256{{0, 0, 0, 0}}, 1),
          U256{{(1ull << 52) - 1, 0, 0, 0}}, U256{{1ull << 52, 0, 0, 0}},
          U256{{0, 1ull << 40, 0, 0}}, U256{{0, 0, 0, 1ull << 16}}};
}

// The invariant: limbs 0-3 below 2^52, limb 4 at most kLimb4Max.
testing::AssertionResult within_bounds(const uint64_t l[lanes::kLimbs]) {
  for (int j = 0; j < 4; ++j)
    if (l[j] > kMask52) return testing::AssertionFailure() << "limb " << j << " = " << l[j];
  if (l[4] > kLimb4Max) return testing::AssertionFailure() << "limb 4 = " << l[4];
  return testing::AssertionSuccess();
}

// Elements through load_x8: the edge values, then random 256-bit ones.
std::vector<Lane> loaded_elements(Rng& rng, size_t n) {
  std::vector<U256> values = edge_values();
  while (values.size() % kLanes != 0 || values.size() < n)
    values.push_back(rng.word() & 1 ? rng.any() : rng.edgy());
  std::vector<Lane> out(values.size());
  for (size_t base = 0; base < values.size(); base += kLanes) {
    lanes::Limbs limbs;
    lanes::load_x8(limbs, &values[base]);
    for (int i = 0; i < kLanes; ++i) {
      EXPECT_TRUE(within_bounds(limbs[i])) << hex(values[base + i]);
      const U256 v = value_of(limbs[i]);
      EXPECT_TRUE(same(Fe25519::canonical(v), Fe25519::canonical(values[base + i])));
      if (values[base + i].w[3] >> 63 == 0) {
        EXPECT_TRUE(same(v, values[base + i]));
      }
      for (int j = 0; j < lanes::kLimbs; ++j) out[base + i].l[j] = limbs[i][j];
    }
  }
  return out;
}

// Elements at and next to the limb maxima of the invariant: every limb from
// {0, 1, max - 1, max, random}, all-maximum first.
std::vector<Lane> limb_edge_elements(Rng& rng, size_t n) {
  std::vector<Lane> out;
  out.push_back(Lane{{kMask52, kMask52, kMask52, kMask52, kLimb4Max}});
  while (out.size() < n) {
    Lane e;
    for (int j = 0; j < lanes::kLimbs; ++j) {
      const uint64_t max = j < 4 ? kMask52 : kLimb4Max;
      const uint64_t pick = rng.word() % 6;
      e.l[j] = pick == 0 ? 0 : pick == 1 ? 1 : pick == 2 ? max - 1 : pick < 5 ? max
                                                                               : rng.word() % max;
    }
    out.push_back(e);
  }
  return out;
}

struct FieldCase {
  lanes::Op op;
  U256 (*ref)(const U256&, const U256&, uint32_t);
  const char* name;
};

const FieldCase kFieldCases[] = {
    {lanes::Op::kAdd, [](const U256& x, const U256& y, uint32_t) { return Fe25519::add(x, y); },
     "add"},
    {lanes::Op::kSub, [](const U256& x, const U256& y, uint32_t) { return Fe25519::sub(x, y); },
     "sub"},
    {lanes::Op::kNeg, [](const U256& x, const U256&, uint32_t) { return Fe25519::neg(x); }, "neg"},
    {lanes::Op::kDbl, [](const U256& x, const U256&, uint32_t) { return Fe25519::dbl(x); }, "dbl"},
    {lanes::Op::kMul, [](const U256& x, const U256& y, uint32_t) { return Fe25519::mul(x, y); },
     "mul"},
    {lanes::Op::kSqr, [](const U256& x, const U256&, uint32_t) { return Fe25519::sqr(x); }, "sqr"},
    {lanes::Op::kMulSmall,
     [](const U256& x, const U256&, uint32_t k) { return Fe25519::mul_small(x, k); }, "mul_small"},
    {lanes::Op::kInv, [](const U256& x, const U256&, uint32_t) { return Fe25519::inv(x); }, "inv"},
    {lanes::Op::kCanonical, [](const U256& x, const U256&, uint32_t) { return x; }, "canonical"},
    {lanes::Op::kChain,
     [](const U256& x, const U256& y, uint32_t k) { return lanes::op_chain<Fe25519>(x, y, k); },
     "chain"},
    {lanes::Op::kLoose,
     [](const U256& x, const U256& y, uint32_t) {
       return Fe25519::sub(Fe25519::mul(x, y), Fe25519::sqr(y));
     },
     "loose products"},
};

// Every operation on group `base` of the elements: results within the limb
// bounds and equal to the scalar field's mod p (canonical() exactly), and
// the predicates.
void check_group(const std::vector<Lane>& in, size_t base, uint32_t k, bool slow_ops) {
  lanes::Limbs a, b;
  U256 av[kLanes], bv[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    const Lane& x = in[(base + i) % in.size()];
    const Lane& y = in[(base * 7 + i * 13 + 3) % in.size()];
    for (int j = 0; j < lanes::kLimbs; ++j) {
      a[i][j] = x.l[j];
      b[i][j] = i == 1 && base % 3 == 0 ? x.l[j] : y.l[j];  // sub = 0 now and then
    }
    av[i] = value_of(a[i]);
    bv[i] = value_of(b[i]);
  }
  U256 stored[kLanes];
  lanes::store_x8(stored, a);
  for (int i = 0; i < kLanes; ++i) ASSERT_TRUE(same(stored[i], av[i])) << "store " << hex(av[i]);
  for (const FieldCase& c : kFieldCases) {
    if ((c.op == lanes::Op::kInv || c.op == lanes::Op::kChain) && !slow_ops) continue;
    lanes::Limbs out;
    lanes::apply_x8(c.op, out, a, b, k);
    for (int i = 0; i < kLanes; ++i) {
      ASSERT_TRUE(within_bounds(out[i])) << c.name << " lane " << i << " a=" << hex(av[i]);
      const U256 got = value_of(out[i]);
      const U256 want = Fe25519::canonical(c.ref(av[i], bv[i], k));
      ASSERT_TRUE(same(Fe25519::canonical(got), want))
          << c.name << " lane " << i << " a=" << hex(av[i]) << " b=" << hex(bv[i]);
      if (c.op == lanes::Op::kCanonical) {
        ASSERT_TRUE(same(got, want)) << hex(av[i]);
      }
    }
  }
  const unsigned zero = lanes::test_x8(lanes::Predicate::kIsZero, a, b);
  const unsigned eq = lanes::test_x8(lanes::Predicate::kEq, a, b);
  const unsigned negative = lanes::test_x8(lanes::Predicate::kIsNegative, a, b);
  for (int i = 0; i < kLanes; ++i) {
    EXPECT_EQ(Fe25519::is_zero(av[i]) != 0, bool(zero >> i & 1)) << hex(av[i]);
    EXPECT_EQ(Fe25519::eq(av[i], bv[i]) != 0, bool(eq >> i & 1)) << hex(av[i]) << " " << hex(bv[i]);
    EXPECT_EQ(Fe25519::is_negative(av[i]) != 0, bool(negative >> i & 1)) << hex(av[i]);
  }
}

// The ladder's a24, then small and large 32-bit factors.
uint32_t small_factor(Rng& rng, size_t base) {
  if (base % 3 == 0) return 121666;
  return base % 3 == 1 ? uint32_t(rng.word() % 1000) : uint32_t(rng.word());
}

TEST(MbFe25519, LanesMatchScalarField) {
  REQUIRE_IFMA();
  Rng rng(25519);
  const std::vector<Lane> in = loaded_elements(rng, 8000);
  for (size_t base = 0; base < in.size(); base += kLanes) {
    check_group(in, base, small_factor(rng, base), base < 800);
    if (HasFatalFailure()) return;
  }
}

// Every limb at or next to its maximum under the invariant (and at 0 and
// 1): every operation's results stay within the bounds.
TEST(MbFe25519, LimbBoundsHoldAtTheMaxima) {
  REQUIRE_IFMA();
  Rng rng(52);
  const std::vector<Lane> in = limb_edge_elements(rng, 4000);
  const std::vector<Lane> all_max(kLanes, in[0]);
  for (uint32_t k : {121666u, 0xFFFFFFFFu}) check_group(all_max, 0, k, true);
  for (size_t base = 0; base < in.size(); base += kLanes) {
    check_group(in, base, small_factor(rng, base), base < 800);
    if (HasFatalFailure()) return;
  }
}

// --- The ladder's forms (field/fe25519_ifma.h LadderOp) ----------------------

// Any limbs (each below 2^64) as the value they stand for, mod p.
U256 limbs_mod_p(const uint64_t l[lanes::kLimbs]) {
  U256 v{{0, 0, 0, 0}};
  for (int j = lanes::kLimbs - 1; j >= 0; --j)
    v = Fe25519::add(Fe25519::mul(v, U256{{1ull << 52, 0, 0, 0}}), U256{{l[j], 0, 0, 0}});
  return v;
}

testing::AssertionResult loose_bounds(const uint64_t l[lanes::kLimbs]) {
  for (int j = 0; j < lanes::kLimbs; ++j)
    if (l[j] > lanes::kLooseLimbMax)
      return testing::AssertionFailure() << "limb " << j << " = " << l[j];
  return testing::AssertionSuccess();
}

// Loose elements (L) at and next to their limb maxima: every limb from
// {0, 1, max - 1, max, random below 2^56}, all-maximum first.
std::vector<Lane> loose_edge_elements(Rng& rng, size_t n) {
  const uint64_t max = lanes::kLooseLimbMax;
  std::vector<Lane> out;
  out.push_back(Lane{{max, max, max, max, max}});
  while (out.size() < n) {
    Lane e;
    for (uint64_t& limb : e.l) {
      const uint64_t pick = rng.word() % 5;
      const uint64_t picks[4] = {0, 1, max - 1, max};
      limb = pick < 4 ? picks[pick] : rng.word() & max;
    }
    out.push_back(e);
  }
  return out;
}

struct LadderCase {
  lanes::LadderOp op;
  bool loose_in, loose_out;
  U256 (*ref)(const U256&, const U256&, uint32_t);
  const char* name;
};

const LadderCase kLadderCases[] = {
    {lanes::LadderOp::kMulLoose, false, true,
     [](const U256& x, const U256& y, uint32_t) { return Fe25519::mul(x, y); }, "mul_loose"},
    {lanes::LadderOp::kSqrLoose, false, true,
     [](const U256& x, const U256&, uint32_t) { return Fe25519::sqr(x); }, "sqr_loose"},
    {lanes::LadderOp::kAddLoose, true, false,
     [](const U256& x, const U256& y, uint32_t) { return Fe25519::add(x, y); }, "add (loose)"},
    {lanes::LadderOp::kSubLoose, true, false,
     [](const U256& x, const U256& y, uint32_t) { return Fe25519::sub(x, y); }, "sub_loose"},
    {lanes::LadderOp::kProductsSum, false, false,
     [](const U256& x, const U256& y, uint32_t) {
       return Fe25519::add(Fe25519::mul(x, y), Fe25519::sqr(x));
     },
     "products sum"},
    {lanes::LadderOp::kProductsDifference, false, false,
     [](const U256& x, const U256& y, uint32_t) {
       return Fe25519::sub(Fe25519::mul(x, y), Fe25519::sqr(x));
     },
     "products difference"},
    {lanes::LadderOp::kMulSmallAdd, false, false,
     [](const U256& x, const U256& y, uint32_t k) {
       return Fe25519::add(y, Fe25519::mul_small(x, k));
     },
     "mul_small_add"},
};

// The ladder's operations taking `loose` inputs on group `base` of `in`:
// results equal to the scalar field's mod p, within the loose bounds or the
// invariant.
void check_ladder_group(const std::vector<Lane>& in, size_t base, uint32_t k, bool loose) {
  lanes::Limbs a, b;
  U256 av[kLanes], bv[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    const Lane& x = in[(base + i) % in.size()];
    const Lane& y = in[(base * 5 + i * 11 + 1) % in.size()];
    for (int j = 0; j < lanes::kLimbs; ++j) {
      a[i][j] = x.l[j];
      b[i][j] = i == 2 && base % 3 == 0 ? x.l[j] : y.l[j];  // a - b = 0 now and then
    }
    av[i] = limbs_mod_p(a[i]);
    bv[i] = limbs_mod_p(b[i]);
  }
  for (const LadderCase& c : kLadderCases) {
    if (c.loose_in != loose) continue;
    lanes::Limbs out;
    lanes::apply_ladder_x8(c.op, out, a, b, k);
    for (int i = 0; i < kLanes; ++i) {
      ASSERT_TRUE(c.loose_out ? loose_bounds(out[i]) : within_bounds(out[i]))
          << c.name << " lane " << i << " a=" << hex(av[i]) << " b=" << hex(bv[i]);
      ASSERT_TRUE(same(Fe25519::canonical(limbs_mod_p(out[i])),
                       Fe25519::canonical(c.ref(av[i], bv[i], k))))
          << c.name << " lane " << i << " a=" << hex(av[i]) << " b=" << hex(bv[i]);
    }
  }
}

TEST(MbFe25519, LadderFormsMatchScalarFieldAtTheLimbMaxima) {
  REQUIRE_IFMA();
  Rng rng(7748);
  const std::vector<Lane> loaded = loaded_elements(rng, 2000);
  const std::vector<Lane> edges = limb_edge_elements(rng, 2000);
  const std::vector<Lane> loose = loose_edge_elements(rng, 2000);
  for (const auto* in : {&loaded, &edges}) {
    check_ladder_group(std::vector<Lane>(kLanes, (*in)[0]), 0, 121666, false);
    for (size_t base = 0; base < in->size(); base += kLanes) {
      check_ladder_group(*in, base, small_factor(rng, base), false);
      if (HasFatalFailure()) return;
    }
  }
  check_ladder_group(std::vector<Lane>(kLanes, loose[0]), 0, 121666, true);
  for (size_t base = 0; base < loose.size(); base += kLanes) {
    check_ladder_group(loose, base, 121666, true);
    if (HasFatalFailure()) return;
  }
}

TEST(MbFe25519, Constants) {
  REQUIRE_IFMA();
  for (const U256& c : {ed::kD, ed::kD2, ks::field::fe25519_detail::kSqrtM1, minus(kP, 1)}) {
    lanes::Limbs out;
    lanes::broadcast_x8(out, c);
    for (int i = 0; i < kLanes; ++i) EXPECT_TRUE(same(value_of(out[i]), c)) << hex(c);
  }
}

// --- Curve operations ---------------------------------------------------------

U256 below_2_255(Rng& rng) {
  U256 k = rng.word() & 1 ? rng.any() : rng.edgy();
  k.w[3] &= 0x7FFFFFFFFFFFFFFFull;
  return k;
}

// Scalars that stress the comb's windows: 0, 1, L - 1, L, L + 1, 2^255 - 1,
// 2^252, multiples of 16 and 32 (Booth digits at their bounds), then random.
std::vector<U256> edge_scalars(Rng& rng, size_t n) {
  std::vector<U256> v = {U256{{0, 0, 0, 0}},
                         U256{{1, 0, 0, 0}},
                         minus(ed::kL, 1),
                         ed::kL,
                         plus(ed::kL, 1),
                         U256{{~0ull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}},
                         U256{{0, 0, 0, 1ull << 60}},
                         U256{{16, 0, 0, 0}},
                         U256{{0x8421084210842108ull, 0x4210842108421084ull, 0x2108421084210842ull,
                               0x1084210842108421ull}},
                         U256{{0x1084210842108421ull, 0x0842108421084210ull, 0x8421084210842108ull,
                               0x4210842108421084ull}}};
  while (v.size() < n) v.push_back(below_2_255(rng));
  return v;
}

// [k]B encoded (with the affine points) and as an X25519 u-coordinate,
// both through the comb, one group of lanes or several inverted together:
// the edge scalars (0 and L among them: the identity, u = 0) shuffled
// among random ones.
TEST(MbEd25519, FixedBaseMatchesScalar) {
  REQUIRE_IFMA();
  Rng rng(1);
  std::vector<U256> k = edge_scalars(rng, 240);
  std::shuffle(k.begin(), k.end(), std::mt19937(3));
  constexpr int kMost = kLanes * mb::kMaxGroups;
  for (int groups : {1, 2, mb::kMaxGroups}) {
    const int items = kLanes * groups;
    for (size_t base = 0; base + items <= k.size(); base += items) {
      uint8_t encoded[kMost][32];
      U256 u[kMost];
      ed::Point points[kMost];
      mb::mul_base_encode_x8(encoded, &k[base], points, groups);
      mb::x25519_base_x8(u, &k[base], groups);
      for (int i = 0; i < items; ++i) {
        uint8_t want[32];
        const ed::Point p = ed::mul_base(k[base + i]);
        ed::encode(want, p);
        ASSERT_EQ(ks_test::to_hex(want, 32), ks_test::to_hex(encoded[i], 32)) << hex(k[base + i]);
        const U256 zinv = Fe25519::inv(p.z);
        const U256 x = Fe25519::canonical(Fe25519::mul(p.x, zinv));
        const U256 y = Fe25519::canonical(Fe25519::mul(p.y, zinv));
        ASSERT_TRUE(same(points[i].x, x) && same(points[i].y, y) &&
                    same(points[i].z, Fe25519::one()) &&
                    same(points[i].t, Fe25519::canonical(Fe25519::mul(x, y))))
            << hex(k[base + i]);
        ASSERT_TRUE(same(u[i], ed::x25519_base(k[base + i]))) << hex(k[base + i]);
      }
    }
  }
}

// u-coordinates: small order (0, 1, the two of order 8, p - 1) and their
// non-canonical forms below 2^255 (p, p + 1), 2^255 - 1, then random ones,
// some of them points of the twist.
std::vector<U256> edge_us(Rng& rng, size_t n) {
  const char* kSmallOrder[] = {
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
  };
  std::vector<U256> v = {U256{{0, 0, 0, 0}}, U256{{1, 0, 0, 0}}, minus(kP, 1), kP, plus(kP, 1),
                         U256{{~0ull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}}, U256{{9, 0, 0, 0}}};
  for (const char* h : kSmallOrder) v.push_back(ks::x25519::decode_u(ks_test::from_hex(h).data()));
  while (v.size() < n) v.push_back(below_2_255(rng));
  return v;
}

TEST(MbX25519, LadderMatchesScalar) {
  REQUIRE_IFMA();
  Rng rng(3);
  std::vector<U256> u = edge_us(rng, 96);
  u.resize(kLanes * mb::kMaxGroups, u.back());
  std::shuffle(u.begin(), u.end(), std::mt19937(5));  // small orders in several groups
  for (int groups : {1, 3, mb::kMaxGroups}) {  // groups whose z are inverted together
    const int items = kLanes * groups;
    for (size_t base = 0; base + items <= u.size(); base += items) {
      U256 k[kLanes * mb::kMaxGroups], out[kLanes * mb::kMaxGroups];
      for (int i = 0; i < items; ++i) {
        k[i] = rng.any();  // the ladder reads bits 254..0 whatever the others are
        if (i % 2) k[i] = ks::x25519::clamp(reinterpret_cast<const uint8_t*>(&k[i]));
      }
      mb::x25519_x8(out, k, &u[base], groups);
      for (int i = 0; i < items; ++i)
        ASSERT_TRUE(same(out[i], ed::x25519(k[i], u[base + i])))
            << "k=" << hex(k[i]) << " u=" << hex(u[base + i]) << " groups " << groups;
    }
  }
}

// RFC 7748 5.2's first vector in every lane.
TEST(MbX25519, Rfc7748VectorInEveryLane) {
  REQUIRE_IFMA();
  const auto k =
      ks_test::from_hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
  const auto u =
      ks_test::from_hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
  U256 ks_[kLanes], us[kLanes], out[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    ks_[i] = ks::x25519::clamp(k.data());
    us[i] = ks::x25519::decode_u(u.data());
  }
  mb::x25519_x8(out, ks_, us);
  for (int i = 0; i < kLanes; ++i) {
    uint8_t bytes[32];
    Fe25519::to_bytes(bytes, out[i]);
    EXPECT_EQ("C3DA55379DE9C6908E94EA4DF28D084F32ECCF03491C71F754B4075577A28552",
              ks_test::to_hex(bytes, 32));
  }
}

// RFC 7748 5.2: the second vector in odd lanes beside the first, then the
// iterated one (k = u = 9; (k, u) <- (X25519(k, u), k)) in every lane,
// after 1 and 1000 iterations.
TEST(MbX25519, Rfc7748VectorsAndIterations) {
  REQUIRE_IFMA();
  const std::vector<uint8_t> vk[2] = {
      ks_test::from_hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
      ks_test::from_hex("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d")};
  const std::vector<uint8_t> vu[2] = {
      ks_test::from_hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
      ks_test::from_hex("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493")};
  const char* kWant[2] = {"C3DA55379DE9C6908E94EA4DF28D084F32ECCF03491C71F754B4075577A28552",
                          "95CBDE9476E8907D7AADE45CB4B873F88B595A68799FA152E6F8F7647AAC7957"};
  U256 k[kLanes], u[kLanes], out[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    k[i] = ks::x25519::clamp(vk[i % 2].data());
    u[i] = ks::x25519::decode_u(vu[i % 2].data());
  }
  mb::x25519_x8(out, k, u);
  uint8_t bytes[kLanes][32];
  for (int i = 0; i < kLanes; ++i) {
    Fe25519::to_bytes(bytes[i], out[i]);
    EXPECT_EQ(kWant[i % 2], ks_test::to_hex(bytes[i], 32)) << "lane " << i;
  }
  uint8_t kb[kLanes][32] = {}, ub[kLanes][32] = {};
  for (int i = 0; i < kLanes; ++i) kb[i][0] = ub[i][0] = 9;
  for (int n = 1; n <= 1000; ++n) {
    for (int i = 0; i < kLanes; ++i) {
      k[i] = ks::x25519::clamp(kb[i]);
      u[i] = ks::x25519::decode_u(ub[i]);
    }
    mb::x25519_x8(out, k, u);
    for (int i = 0; i < kLanes; ++i) {
      memcpy(ub[i], kb[i], 32);
      Fe25519::to_bytes(kb[i], out[i]);
    }
    if (n == 1) {
      for (int i = 0; i < kLanes; ++i)
        EXPECT_EQ("422C8E7A6227D7BCA1350B3E2BB7279F7897B87BB6854B783C60E80311AE3079",
                  ks_test::to_hex(kb[i], 32));
    }
  }
  for (int i = 0; i < kLanes; ++i)
    EXPECT_EQ("684CF59BA83309552800EF566F2F4D3C1C3887C49360E3875F2EB94D99532C51",
              ks_test::to_hex(kb[i], 32));
}

// The batch path of the C API (curve25519/ed25519_batch.h shared_secrets, which
// runs x25519_x8 on up to eight groups of eight with one inversion) against
// shared_secret() item by item:
// random u, the small-order ones (0, 1, the two of order 8, p - 1) with
// their non-canonical forms (p, p + 1, and all of them with bit 255 set,
// which decoding clears), non-canonical u up to 2^255 - 1, shuffled among
// random u in batches of 1 to 64 items (a zero z among the ones inverted
// together must not spoil the others).
TEST(MbX25519, BatchSharedSecretsMatchSingleItems) {
  REQUIRE_IFMA();
  const char* kSmallOrder[] = {
      "0000000000000000000000000000000000000000000000000000000000000000",
      "0100000000000000000000000000000000000000000000000000000000000000",
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"};
  std::vector<std::vector<uint8_t>> us;
  for (const char* h : kSmallOrder) {
    us.push_back(ks_test::from_hex(h));
    us.push_back(us.back());
    us.back()[31] ^= 0x80;
  }
  for (uint64_t above_p : {2, 3, 9, 17, 18}) {  // p + 18 = 2^255 - 1
    const U256 v = plus(kP, above_p);
    std::vector<uint8_t> u(32);
    for (int j = 0; j < 32; ++j) u[j] = uint8_t(v.w[j / 8] >> (8 * (j % 8)));
    us.push_back(u);
  }
  while (us.size() < 400) us.push_back(ks_test::random_bytes(32));
  std::shuffle(us.begin(), us.end(), std::mt19937(7));  // small orders inside every batch size
  const std::vector<uint8_t> keys = ks_test::random_bytes(32 * us.size());
  size_t zeros = 0;
  constexpr size_t kMost = ks::x25519::batch::kBatchItems;
  const size_t sizes[] = {1, 5, 8, 9, 16, 23, kMost - 1, kMost};
  for (size_t base = 0, b = 0; base < us.size(); base += sizes[b++ % 8]) {
    const size_t count = std::min(sizes[b % 8], us.size() - base);
    const uint8_t* k[kMost];
    uint8_t u[kMost][32], out[kMost][32];
    ks::x25519::Error status[kMost];
    for (size_t i = 0; i < count; ++i) {
      k[i] = &keys[32 * (base + i)];
      memcpy(u[i], us[base + i].data(), 32);
    }
    ks::x25519::batch::shared_secrets(status, out, k, u, count);
    for (size_t i = 0; i < count; ++i) {
      uint8_t want[32];
      const ks::x25519::Error want_status = ks::x25519::shared_secret(want, k[i], u[i]);
      const std::string u_hex = ks_test::to_hex(u[i], 32);
      EXPECT_EQ(int(want_status), int(status[i])) << u_hex;
      EXPECT_EQ(ks_test::to_hex(want, 32), ks_test::to_hex(out[i], 32)) << u_hex;
      zeros += want_status == ks::x25519::Error::kZeroSharedSecret;
    }
  }
  EXPECT_EQ(zeros, 2 * (sizeof kSmallOrder / sizeof kSmallOrder[0]));
}

// --- Verification equation -------------------------------------------------------

ed::Point add_points(const ed::Point& p, const ed::Point& q) {
  return edw::add(p, edw::cached(q, ed::kD2)).extended();
}

// The eight points of small order: the multiples of one of order 8.
std::vector<ed::Point> torsion_points() {
  ed::Point t8;
  EXPECT_TRUE(ed::decode(
      t8, ks_test::from_hex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
              .data()));
  std::vector<ed::Point> v = {ed::Point::identity()};
  for (int i = 1; i < 8; ++i) {
    v.push_back(add_points(v.back(), t8));
    EXPECT_TRUE(ed::has_small_order(v.back()));
  }
  return v;
}

// The point through its encoding (Z = 1, as verification's decoded points).
ed::Point decoded(const ed::Point& p) {
  uint8_t enc[32];
  ed::encode(enc, p);
  ed::Point q;
  EXPECT_TRUE(ed::decode(q, enc));
  return q;
}

U256 mod_l(const U256& x) { return Sc25519::reduce_once(Sc25519::reduce_once(x)); }

struct Equation {
  U256 s, k;
  ed::Point a, r;
};

// s = r + k a (mod L): the equation [s]B = R + [k]A for A = [a]B, R = [r]B.
U256 signing_s(const U256& r, const U256& k, const U256& a) {
  return Sc25519::add(mod_l(r), Sc25519::mul_plain_mont(mod_l(k), Sc25519::to_mont(mod_l(a))));
}

// r = s - k a (mod L): the R that makes a chosen s valid.
U256 matching_r(const U256& s, const U256& k, const U256& a) {
  const U256 s_mod_l = Sc25519::from_mont(Sc25519::to_mont(s));  // any s < 2^256
  return Sc25519::sub(s_mod_l, Sc25519::mul_plain_mont(mod_l(k), Sc25519::to_mont(mod_l(a))));
}

// n / d mod L for small n, d (d != 0): k d = n, a short vector of the
// lattice that verification's half-size scalars reduce (field/
// sc25519_lattice.h), so that their Euclid steps meet large quotients.
U256 ratio_mod_l(Rng& rng) {
  const int bits = 1 + int(rng.word() % 126);
  const auto small = [&] {
    U256 v{{rng.word(), rng.word(), 0, 0}};
    v.w[1] = bits <= 64 ? 0 : v.w[1] & ((uint64_t(1) << (bits - 64)) - 1);
    v.w[0] = bits >= 64 ? v.w[0] : v.w[0] & ((uint64_t(1) << bits) - 1);
    return v;
  };
  const U256 n = small();
  U256 d = small();
  if (ks::field::is_zero_mask(d)) d.w[0] = 1;
  const U256 k = Sc25519::from_mont(
      Sc25519::mont_mul(Sc25519::to_mont(n), Sc25519::inv_mont(Sc25519::to_mont(d))));
  return rng.word() & 1 ? Sc25519::neg(k) : k;
}

const U256 kZero{{0, 0, 0, 0}};

// Lane kinds: a valid equation, tampered ones, small-order A and R,
// torsion added to R or to both (valid only cofactored), the identity,
// unreduced scalars, A with Z != 1; the scalars the half-size reduction
// treats apart: k = 0, small k and -k, k = n / d (short lattice vectors),
// s = 0, s next to L and next to 2^256.
Equation make_equation(Rng& rng, int kind, const std::vector<ed::Point>& torsion) {
  const U256 a = mod_l(below_2_255(rng)), r = mod_l(below_2_255(rng));
  Equation e;
  e.k = mod_l(below_2_255(rng));
  e.a = decoded(ed::mul_base(a));
  e.r = decoded(ed::mul_base(r));
  e.s = signing_s(r, e.k, a);
  const ed::Point& t = torsion[rng.word() % torsion.size()];
  const auto with_s = [&](const U256& s) {  // a valid equation for this s
    e.s = s;
    e.r = decoded(ed::mul_base(matching_r(s, e.k, a)));
  };
  const auto with_k = [&](const U256& k) {  // a valid equation for this k
    e.k = k;
    e.s = signing_s(r, k, a);
  };
  switch (kind % 16) {
    case 0:
      break;  // valid
    case 1:
      e.s = plus(e.s, 1);  // does not hold
      break;
    case 2:
      e.k = Sc25519::add(e.k, U256{{1, 0, 0, 0}});
      break;
    case 3:
      e.r = add_points(e.r, t);  // holds cofactored whatever t is
      break;
    case 4:
      e.a = add_points(e.a, t);  // [k]T may or may not vanish under [8]: holds
      break;
    case 5:
      e.a = t;  // small-order A: [8]([s]B - R) decides
      e.r = rng.word() & 1 ? add_points(ed::mul_base(e.s), torsion[rng.word() % 8]) : e.r;
      break;
    case 6:
      e.a = torsion[0];  // the identity for A and R, s = 0 or not
      e.r = torsion[0];
      e.s = rng.word() & 1 ? kZero : e.s;
      break;
    case 7: {  // unreduced scalars: s + L and k + 2^255 (k A's order is L)
      U256 s_plus_l;
      ks::field::add_carry(s_plus_l, e.s, ed::kL);
      e.s = s_plus_l;
      if (rng.word() & 1) e.k = rng.any();
      break;
    }
    case 8:
      e.a = ed::mul_base(a);  // Z != 1
      e.r = ed::mul_base(r);
      break;
    case 9:
      e.r = e.a;  // R = A
      break;
    case 10:  // k = 0: [8]([s]B - R)
      with_k(kZero);
      if (rng.word() & 1) e.s = plus(e.s, 1 + rng.word() % 8);
      break;
    case 11:  // small k or -k: z = 1 or small
      with_k(U256{{1 + rng.word() % (uint64_t(1) << (rng.word() % 64)), 0, 0, 0}});
      if (rng.word() & 1) with_k(Sc25519::neg(e.k));
      break;
    case 12:  // k = n / d, and that equation tampered half the time
      with_k(ratio_mod_l(rng));
      if (rng.word() & 1)
        e.r = add_points(e.r, rng.word() & 1 ? t : ed::mul_base(U256{{1, 0, 0, 0}}));
      break;
    case 13: {  // s = L - 1 - j, L + j, 2^256 - 1 - j (unreduced), 0
      const uint64_t j = rng.word() % 4;
      const U256 choices[4] = {minus(ed::kL, 1 + j), plus(ed::kL, j), minus(kZero, 1 + j), kZero};
      with_s(choices[rng.word() % 4]);
      if (rng.word() & 1) e.s = plus(e.s, 1);
      break;
    }
    case 14:  // torsion on A and on R
      e.a = add_points(e.a, t);
      e.r = add_points(e.r, torsion[rng.word() % 8]);
      break;
    default:  // k = L - 1, L - 2, A of small order or not
      with_k(minus(ed::kL, 1 + rng.word() % 2));
      if (rng.word() & 1) e.a = add_points(e.a, t);
      break;
  }
  return e;
}

// [k]P by double-and-add over the scalar field's formulas (curve/edwards.h):
// an oracle that shares nothing with the paths under test but the formulas.
ed::Point oracle_mul(const U256& k, const ed::Point& p) {
  ed::Point acc = ed::Point::identity();
  for (int i = 255; i >= 0; --i) {
    acc = add_points(acc, acc);
    if ((k.w[i / 64] >> (i % 64)) & 1) acc = add_points(acc, p);
  }
  return acc;
}

bool oracle_equation(const Equation& e) {
  const ed::Point b = ed::mul_base(U256{{1, 0, 0, 0}});
  const ed::Point ka = oracle_mul(e.k, e.a);
  ed::Point diff = edw::sub(oracle_mul(e.s, b), edw::cached(ka, ed::kD2)).extended();
  diff = edw::sub(diff, edw::cached(e.r, ed::kD2)).extended();
  for (int i = 0; i < 3; ++i) diff = add_points(diff, diff);
  return Fe25519::is_zero(diff.x) && Fe25519::eq(diff.y, diff.z);
}

// Eight lanes of equations of every kind against the scalar path (and
// every 8th round, and every round's first lane, against the oracle above).
TEST(MbEd25519, VerifyEquationMatchesScalar) {
  REQUIRE_IFMA();
  Rng rng(4);
  const std::vector<ed::Point> torsion = torsion_points();
  int valid = 0, invalid = 0;
  for (size_t round = 0; round < ks_test::scaled(400); ++round) {
    U256 s[kLanes], k[kLanes];
    ed::Point a[kLanes], r[kLanes];
    for (int i = 0; i < kLanes; ++i) {
      const Equation e = make_equation(rng, round + 3 * i, torsion);
      s[i] = e.s, k[i] = e.k, a[i] = e.a, r[i] = e.r;
    }
    const unsigned in_use = round % 4 == 3 ? 0x5Bu : 0xFFu;
    const unsigned got = mb::verify_equation_x8(s, k, a, r, in_use);
    for (int i = 0; i < kLanes; ++i) {
      const bool holds = ed::scalar::verify_equation(s[i], k[i], a[i], r[i]);
      if (round % 8 == 0 || i == 0) {
        ASSERT_EQ(holds, oracle_equation({s[i], k[i], a[i], r[i]})) << "round " << round;
      }
      const bool want = holds && (in_use >> i & 1);
      ASSERT_EQ(want, bool(got >> i & 1)) << "round " << round << " lane " << i;
      (want ? valid : invalid) += 1;
    }
  }
  // Both verdicts, in the proportions of a full run (fewer items under a
  // sanitizer).
  EXPECT_GT(valid, int(ks_test::scaled(1000)));
  EXPECT_GT(invalid, int(ks_test::scaled(500)));
}

}  // namespace
