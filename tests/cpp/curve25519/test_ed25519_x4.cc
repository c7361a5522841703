// The 4-lane (ymm) AVX-512 IFMA path of single Curve25519 operations
// against the scalar code: the 4-lane field (field/fe25519_ifma_x4.h)
// operation by operation against Fe25519 with the limb bounds of its
// invariant checked on every result; X25519 (RFC 7748 vectors, the
// 1,000-iteration one included, small-order and non-canonical u, random
// scalars and points), [k]B and the cofactored verification equation of
// curve25519/ed25519_x4.h against the scalar paths (curve::ed25519::scalar) on
// random inputs, edge scalars, small-order points, torsion added to A or R,
// the identity and equations that do not hold; point decoding, encoding
// and the small-order test against the scalar ones on canonical,
// non-canonical and random encodings. Skipped without IFMA.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "curve25519/ed25519_curve.h"
#include "curve25519/ed25519_params.h"
#include "curve25519/ed25519_x4.h"
#include "field/fe25519.h"
#include "field/fe25519_ifma_x4.h"
#include "field/sc25519.h"
#include "curve25519/x25519.h"
#include "test_sm2_util.h"

namespace {

using ks::field::Fe25519;
using ks::field::Sc25519;
using ks::field::U256;
using ks_test::Rng;
namespace ed = ks::curve::ed25519;
namespace edw = ks::curve::ed;
namespace x4 = ks::curve::ed25519::x4;
namespace scalar = ks::curve::ed25519::scalar;
namespace lanes = ks::field::ifma::fe25519x4;
constexpr int kLanes = lanes::kLanes;
constexpr int kLimbs = lanes::kLimbs;
constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;
// Limb 4's maximum under the invariant of field/fe25519_ifma_simd.h.
constexpr uint64_t kLimb4Max = (uint64_t(1) << 47) + (uint64_t(1) << 12) - 1;

#define REQUIRE_X4() \
  if (!x4::available()) GTEST_SKIP() << "no AVX-512 IFMA (VL) here"

std::string hex(const U256& a) {
  uint8_t be[32];
  ks::field::to_be_bytes(be, a);
  return ks_test::to_hex(be, 32);
}

bool same(const U256& a, const U256& b) { return ks::field::eq_mask(a, b) != 0; }

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

// --- The field ----------------------------------------------------------------

struct Lane {
  uint64_t l[kLimbs];
};

U256 value_of(const uint64_t l[kLimbs]) {
  return U256{{l[0] | l[1] << 52, l[1] >> 12 | l[2] << 40, l[2] >> 24 | l[3] << 28,
               l[3] >> 36 | l[4] << 16}};
}

testing::AssertionResult within_bounds(const uint64_t l[kLimbs]) {
  for (int j = 0; j < 4; ++j)
    if (l[j] > kMask52) return testing::AssertionFailure() << "limb " << j << " = " << l[j];
  if (l[4] > kLimb4Max) return testing::AssertionFailure() << "limb 4 = " << l[4];
  return testing::AssertionSuccess();
}

// Elements: values at the residues' and the fold's edges through load_x4,
// then limbs at and next to the invariant's maxima, then random values.
std::vector<Lane> elements(Rng& rng, size_t n) {
  const U256 two_p = minus(U256{{0, 0, 0, 0}}, 38);
  std::vector<U256> values = {U256{{0, 0, 0, 0}},
                              U256{{1, 0, 0, 0}},
                              U256{{19, 0, 0, 0}},
                              minus(kP, 1),
                              kP,
                              plus(kP, 1),
                              plus(kP, 19),
                              minus(two_p, 1),
                              two_p,
                              minus(U256{{0, 0, 0, 0}}, 1),
                              U256{{1ull << 52, 0, 0, 0}},
                              U256{{0, 0, 0, 1ull << 63}}};
  while (values.size() % kLanes != 0) values.push_back(rng.edgy());
  std::vector<Lane> out;
  for (size_t base = 0; base < values.size(); base += kLanes) {
    lanes::Limbs limbs;
    lanes::load_x4(limbs, &values[base]);
    for (int i = 0; i < kLanes; ++i) {
      EXPECT_TRUE(within_bounds(limbs[i])) << hex(values[base + i]);
      EXPECT_TRUE(
          same(Fe25519::canonical(value_of(limbs[i])), Fe25519::canonical(values[base + i])));
      Lane e;
      for (int j = 0; j < kLimbs; ++j) e.l[j] = limbs[i][j];
      out.push_back(e);
    }
  }
  out.push_back(Lane{{kMask52, kMask52, kMask52, kMask52, kLimb4Max}});
  while (out.size() < n) {
    Lane e;
    if (rng.word() & 1) {
      for (int j = 0; j < kLimbs; ++j) {
        const uint64_t max = j < 4 ? kMask52 : kLimb4Max, pick = rng.word() % 6;
        e.l[j] = pick == 0   ? 0
                 : pick == 1 ? 1
                 : pick == 2 ? max - 1
                 : pick < 5  ? max
                             : rng.word() % max;
      }
    } else {
      U256 v[kLanes];
      for (auto& x : v) x = rng.word() & 1 ? rng.any() : rng.edgy();
      lanes::Limbs limbs;
      lanes::load_x4(limbs, v);
      for (int j = 0; j < kLimbs; ++j) e.l[j] = limbs[rng.word() % kLanes][j];
    }
    out.push_back(e);
  }
  return out;
}

using Ref = U256 (*)(const U256&, const U256&, uint32_t);
struct FieldCase {
  lanes::Op op;
  Ref ref;
  const char* name;
};

U256 ref_chain(const U256& x, const U256& y, uint32_t k) {
  return ks::field::ifma::fe25519::op_chain<Fe25519>(x, y, k);
}

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
    {lanes::Op::kChain, ref_chain, "chain"},
    {lanes::Op::kLoose,
     [](const U256& x, const U256& y, uint32_t) {
       return Fe25519::sub(Fe25519::mul(x, y), Fe25519::sqr(y));
     },
     "loose products"},
};

TEST(X4Fe25519, LanesMatchScalarField) {
  REQUIRE_X4();
  Rng rng(2551904);
  const std::vector<Lane> in = elements(rng, 6000);
  for (size_t base = 0; base < in.size(); base += kLanes) {
    lanes::Limbs a, b;
    U256 av[kLanes], bv[kLanes];
    for (int i = 0; i < kLanes; ++i) {
      const Lane& x = in[(base + i) % in.size()];
      const Lane& y = in[(base * 7 + i * 13 + 3) % in.size()];
      for (int j = 0; j < kLimbs; ++j) {
        a[i][j] = x.l[j];
        b[i][j] = i == 1 && base % 3 == 0 ? x.l[j] : y.l[j];
      }
      av[i] = value_of(a[i]);
      bv[i] = value_of(b[i]);
    }
    U256 stored[kLanes];
    lanes::store_x4(stored, a);
    for (int i = 0; i < kLanes; ++i) ASSERT_TRUE(same(stored[i], av[i]));
    const uint32_t k = base % 3 == 0 ? 121666u : uint32_t(rng.word());
    for (const FieldCase& c : kFieldCases) {
      if ((c.op == lanes::Op::kInv || c.op == lanes::Op::kChain) && base >= 400) continue;
      lanes::Limbs out;
      lanes::apply_x4(c.op, out, a, b, k);
      for (int i = 0; i < kLanes; ++i) {
        ASSERT_TRUE(within_bounds(out[i])) << c.name << " a=" << hex(av[i]) << " b=" << hex(bv[i]);
        const U256 got = value_of(out[i]), want = Fe25519::canonical(c.ref(av[i], bv[i], k));
        ASSERT_TRUE(same(Fe25519::canonical(got), want))
            << c.name << " a=" << hex(av[i]) << " b=" << hex(bv[i]);
        if (c.op == lanes::Op::kCanonical) {
          ASSERT_TRUE(same(got, want));
        }
      }
    }
    const unsigned zero = lanes::test_x4(lanes::Predicate::kIsZero, a, b);
    const unsigned eq = lanes::test_x4(lanes::Predicate::kEq, a, b);
    const unsigned negative = lanes::test_x4(lanes::Predicate::kIsNegative, a, b);
    for (int i = 0; i < kLanes; ++i) {
      EXPECT_EQ(Fe25519::is_zero(av[i]) != 0, bool(zero >> i & 1));
      EXPECT_EQ(Fe25519::eq(av[i], bv[i]) != 0, bool(eq >> i & 1));
      EXPECT_EQ(Fe25519::is_negative(av[i]) != 0, bool(negative >> i & 1));
    }
  }
}

// --- X25519 --------------------------------------------------------------------

U256 below_2_255(Rng& rng) {
  U256 k = rng.word() & 1 ? rng.any() : rng.edgy();
  k.w[3] &= 0x7FFFFFFFFFFFFFFFull;
  return k;
}

std::vector<uint8_t> x4_x25519(const std::vector<uint8_t>& k, const std::vector<uint8_t>& u) {
  std::vector<uint8_t> out(32);
  Fe25519::to_bytes(out.data(),
                    x4::x25519(ks::x25519::clamp(k.data()), ks::x25519::decode_u(u.data())));
  return out;
}

TEST(X4X25519, Rfc7748Vectors) {
  REQUIRE_X4();
  using ks_test::from_hex;
  using ks_test::to_hex;
  EXPECT_EQ(
      to_hex(x4_x25519(from_hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
                       from_hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"))
                 .data(),
             32),
      "C3DA55379DE9C6908E94EA4DF28D084F32ECCF03491C71F754B4075577A28552");
  EXPECT_EQ(
      to_hex(x4_x25519(from_hex("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d"),
                       from_hex("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493"))
                 .data(),
             32),
      "95CBDE9476E8907D7AADE45CB4B873F88B595A68799FA152E6F8F7647AAC7957");
  // Iterated: k = u = 9, then (k, u) <- (X25519(k, u), k).
  std::vector<uint8_t> k(32, 0), u(32, 0);
  k[0] = u[0] = 9;
  for (int i = 1; i <= 1000; ++i) {
    std::vector<uint8_t> next = x4_x25519(k, u);
    u = k;
    k = next;
    if (i == 1) {
      EXPECT_EQ(to_hex(k.data(), 32),
                "422C8E7A6227D7BCA1350B3E2BB7279F7897B87BB6854B783C60E80311AE3079");
    }
  }
  EXPECT_EQ(to_hex(k.data(), 32),
            "684CF59BA83309552800EF566F2F4D3C1C3887C49360E3875F2EB94D99532C51");
}

// u: small order (0, 1, p - 1 and the two of order 8) and non-canonical
// forms below 2^255 (p, p + 1, p + 9, 2^255 - 1), then random values (about
// half of them on the twist).
std::vector<U256> edge_us(Rng& rng, size_t n) {
  const char* kSmallOrder[] = {
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
  };
  std::vector<U256> v = {U256{{0, 0, 0, 0}},
                         U256{{1, 0, 0, 0}},
                         minus(kP, 1),
                         kP,
                         plus(kP, 1),
                         plus(kP, 9),
                         U256{{~0ull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}},
                         U256{{9, 0, 0, 0}}};
  for (const char* h : kSmallOrder) {
    const U256 u = ks::x25519::decode_u(ks_test::from_hex(h).data());
    v.push_back(u);
    U256 u_plus_p;  // the same residue, non-canonical, where it fits below 2^255
    ks::field::add_carry(u_plus_p, u, kP);
    if (u_plus_p.w[3] >> 63 == 0) v.push_back(u_plus_p);
  }
  while (v.size() < n) v.push_back(below_2_255(rng));
  return v;
}

TEST(X4X25519, LadderMatchesScalar) {
  REQUIRE_X4();
  Rng rng(7748);
  const std::vector<U256> u = edge_us(rng, 300);
  for (size_t i = 0; i < u.size(); ++i) {
    U256 k = rng.any();  // the ladder reads bits 254..0 whatever the others are
    if (i % 2) k = ks::x25519::clamp(reinterpret_cast<const uint8_t*>(&k));
    if (i % 7 == 3) k = U256{{0, 0, 0, 0}};
    if (i % 7 == 5) k = U256{{~0ull, ~0ull, ~0ull, ~0ull}};
    ASSERT_TRUE(same(x4::x25519(k, u[i]), scalar::x25519(k, u[i])))
        << "k=" << hex(k) << " u=" << hex(u[i]);
  }
}

// The public function picks the lanes here, and the scheme gives the zero
// shared secret error for small order exactly as before.
TEST(X4X25519, DispatchedFunctionsAgree) {
  REQUIRE_X4();
  Rng rng(25);
  const std::vector<U256> u = edge_us(rng, 40);
  for (const U256& ui : u) {
    const U256 k = ks::x25519::clamp(reinterpret_cast<const uint8_t*>(&ui));
    EXPECT_TRUE(same(ed::x25519(k, ui), scalar::x25519(k, ui)));
    EXPECT_TRUE(same(ed::x25519_base(k), scalar::x25519_base(k)));
  }
}

// --- [k]B ----------------------------------------------------------------------

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

// The same point (X1 Z2 = X2 Z1, Y1 Z2 = Y2 Z1) and T consistent (XY = ZT).
testing::AssertionResult same_point(const ed::Point& p, const ed::Point& q) {
  if (!edw::equal(p, q)) return testing::AssertionFailure() << "different points";
  if (!Fe25519::eq(Fe25519::mul(p.x, p.y), Fe25519::mul(p.z, p.t)))
    return testing::AssertionFailure() << "XY != ZT";
  return testing::AssertionSuccess();
}

TEST(X4Ed25519, FixedBaseMatchesScalar) {
  REQUIRE_X4();
  Rng rng(8032);
  for (const U256& k : edge_scalars(rng, 400)) {
    const ed::Point got = x4::mul_base(k), want = scalar::mul_base(k);
    ASSERT_TRUE(same_point(got, want)) << hex(k);
    uint8_t a[32], b[32];
    ed::encode(a, got);
    ed::encode(b, want);
    ASSERT_EQ(ks_test::to_hex(a, 32), ks_test::to_hex(b, 32));
  }
}

// Encodings of [k]B (random and edge k), the eight small-order points, y
// values at and above p (non-canonical), x = 0 with and without the sign
// bit, and random strings (about half have no root).
std::vector<std::vector<uint8_t>> encodings(Rng& rng, size_t n) {
  std::vector<std::vector<uint8_t>> v;
  auto add_value = [&v](const U256& y, bool sign) {
    std::vector<uint8_t> e(32);
    for (int i = 0; i < 32; ++i) e[i] = uint8_t(y.w[i / 8] >> (8 * (i % 8)));
    if (sign) e[31] |= 0x80;
    v.push_back(e);
  };
  for (bool sign : {false, true}) {
    add_value(U256{{0, 0, 0, 0}}, sign);
    add_value(U256{{1, 0, 0, 0}}, sign);  // the identity (x = 0)
    add_value(minus(kP, 1), sign);        // x = 0, order 2
    add_value(kP, sign);                  // y = p: non-canonical 0
    add_value(plus(kP, 1), sign);         // non-canonical 1
    add_value(U256{{~0ull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}}, sign);
  }
  for (const char* h : {"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
                        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
                        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
                        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
                        "0000000000000000000000000000000000000000000000000000000000000080"})
    v.push_back(ks_test::from_hex(h));
  for (const U256& k : edge_scalars(rng, 40)) {
    std::vector<uint8_t> e(32);
    ed::encode(e.data(), scalar::mul_base(k));
    v.push_back(e);
  }
  while (v.size() < n) {
    U256 y = rng.word() & 1 ? rng.any() : rng.edgy();
    add_value(U256{{y.w[0], y.w[1], y.w[2], y.w[3] & 0x7FFFFFFFFFFFFFFFull}}, y.w[3] >> 63);
  }
  return v;
}

TEST(X4Ed25519, DecodeEncodeAndSmallOrderMatchScalar) {
  REQUIRE_X4();
  Rng rng(5103);
  int decoded_ok = 0, small = 0;
  for (const std::vector<uint8_t>& e : encodings(rng, 600)) {
    ed::Point want, got;
    const bool ok = scalar::decode(want, e.data());
    ASSERT_EQ(ok, x4::decode(got, e.data())) << ks_test::to_hex(e.data(), 32);
    ASSERT_EQ(ok, ed::decode(got, e.data()));
    if (!ok) continue;
    ++decoded_ok;
    ASSERT_TRUE(x4::decode(got, e.data()));
    ASSERT_TRUE(same_point(got, want)) << ks_test::to_hex(e.data(), 32);
    uint8_t a[32], b[32];
    ed::encode(a, got);  // the dispatched encoding of the lanes' point
    scalar::encode(b, want);
    ASSERT_EQ(ks_test::to_hex(a, 32), ks_test::to_hex(b, 32));
    ASSERT_EQ(ks_test::to_hex(a, 32), ks_test::to_hex(e.data(), 32));  // canonical encodings
    const bool small_order = scalar::has_small_order(want);
    ASSERT_EQ(small_order, x4::has_small_order(got));
    ASSERT_EQ(small_order, x4::has_small_order(want));
    ed::Point projective = want;  // the test reads X, Y, Z only
    projective.t = U256{{0, 0, 0, 0}};
    ASSERT_EQ(small_order, x4::has_small_order(projective));
    ASSERT_EQ(small_order, scalar::has_small_order(projective));
    small += small_order;
  }
  EXPECT_GT(decoded_ok, 100);
  EXPECT_GE(small, 8);
  // Encodings of points with Z != 1 (and of the identity, Z = 1).
  for (const U256& k : edge_scalars(rng, 60)) {
    const ed::Point p = scalar::mul_base(k);
    uint8_t a[32], b[32];
    ed::encode(a, x4::mul_base(k));
    scalar::encode(b, p);
    ASSERT_EQ(ks_test::to_hex(a, 32), ks_test::to_hex(b, 32)) << hex(k);
  }
}

// --- The verification equation ---------------------------------------------------

ed::Point add_points(const ed::Point& p, const ed::Point& q) {
  return edw::add(p, edw::cached(q, ed::kD2)).extended();
}

std::vector<ed::Point> torsion_points() {
  ed::Point t8;
  EXPECT_TRUE(ed::decode(
      t8, ks_test::from_hex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
              .data()));
  std::vector<ed::Point> v = {ed::Point::identity()};
  for (int i = 1; i < 8; ++i) v.push_back(add_points(v.back(), t8));
  return v;
}

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

// A valid equation, then tampered, torsion on A or R (only the cofactored
// check accepts some of them), small-order and identity A and R, unreduced
// and zero scalars, points with Z != 1, R = A.
Equation make_equation(Rng& rng, int kind, const std::vector<ed::Point>& torsion) {
  const U256 a = mod_l(below_2_255(rng)), r = mod_l(below_2_255(rng));
  Equation e;
  e.k = mod_l(below_2_255(rng));
  e.a = decoded(scalar::mul_base(a));
  e.r = decoded(scalar::mul_base(r));
  e.s = Sc25519::add(r, Sc25519::mul_plain_mont(e.k, Sc25519::to_mont(a)));
  const ed::Point& t = torsion[rng.word() % torsion.size()];
  switch (kind % 12) {
    case 0:
      break;
    case 1:
      e.s = plus(e.s, 1);
      break;
    case 2:
      e.k = Sc25519::add(e.k, U256{{1, 0, 0, 0}});
      break;
    case 3:
      e.r = add_points(e.r, t);
      break;
    case 4:
      e.a = add_points(e.a, t);
      break;
    case 5:
      e.a = t;
      e.r = rng.word() & 1 ? add_points(scalar::mul_base(e.s), torsion[rng.word() % 8]) : e.r;
      break;
    case 6:
      e.a = torsion[0];
      e.r = torsion[0];
      e.s = rng.word() & 1 ? U256{{0, 0, 0, 0}} : e.s;
      break;
    case 7: {
      U256 s_plus_l;
      ks::field::add_carry(s_plus_l, e.s, ed::kL);
      e.s = s_plus_l;
      if (rng.word() & 1) e.k = rng.any();
      break;
    }
    case 8:
      e.a = scalar::mul_base(a);  // Z != 1
      e.r = scalar::mul_base(r);
      break;
    case 9:
      e.r = e.a;
      break;
    case 10:
      e.s = U256{{0, 0, 0, 0}};  // [0]B - [k]A - R, k = 0 or not
      e.k = rng.word() & 1 ? U256{{0, 0, 0, 0}} : e.k;
      e.r = rng.word() & 1 ? torsion[rng.word() % 8] : e.r;
      break;
    default:
      e.s = rng.any();  // any 256-bit scalars
      e.k = rng.any();
      break;
  }
  return e;
}

TEST(X4Ed25519, VerifyEquationMatchesScalar) {
  REQUIRE_X4();
  Rng rng(5);
  const std::vector<ed::Point> torsion = torsion_points();
  int valid = 0, invalid = 0;
  for (int round = 0; round < 600; ++round) {
    const Equation e = make_equation(rng, round, torsion);
    const bool want = scalar::verify_equation(e.s, e.k, e.a, e.r);
    ASSERT_EQ(want, x4::verify_equation(e.s, e.k, e.a, e.r)) << "round " << round;
    ASSERT_EQ(want, ed::verify_equation(e.s, e.k, e.a, e.r)) << "round " << round;
    (want ? valid : invalid) += 1;
  }
  EXPECT_GT(valid, 200);
  EXPECT_GT(invalid, 100);
}

}  // namespace
