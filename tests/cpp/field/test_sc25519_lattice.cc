// Half-size scalars (field/sc25519_lattice.h): w = z k (mod L) with the
// promised bounds, and the very (z, w) of the plain extended Euclidean
// algorithm stopped at the first remainder below 2^127 (the oracle below:
// one full-precision step at a time in OpenSSL's BIGNUM), for random k,
// for the edges (0, 1, small k, L - 1, k near 2^127 and 2^126, powers of
// two), for k whose quotient sequences stress Lehmer's simulation (large
// quotients: k of every size, k = n / d for small n, d) and for k of 256
// bits.
#include <gtest/gtest.h>

#include <openssl/bn.h>

#include <memory>
#include <random>

#include "field/sc25519.h"
#include "field/sc25519_lattice.h"

namespace {

using ks::field::HalfScalars;
using ks::field::Sc25519;
using ks::field::u128;
using ks::field::U256;

U256 from_u128(u128 v) { return U256{{uint64_t(v), uint64_t(v >> 64), 0, 0}}; }

bool less(const U256& a, const U256& b) { return ks::field::lt_mask(a, b) != 0; }

// --- The oracle: Euclid one step at a time, in OpenSSL's BIGNUM -----------

using Bn = std::unique_ptr<BIGNUM, decltype(&BN_free)>;

Bn bn() { return Bn(BN_new(), BN_free); }

Bn bn_of(const U256& a) {
  uint8_t le[32];
  for (int i = 0; i < 32; ++i) le[i] = uint8_t(a.w[i / 8] >> (8 * (i % 8)));
  return Bn(BN_lebin2bn(le, 32, nullptr), BN_free);
}

u128 u128_of(const BIGNUM* a) {  // |a| < 2^128
  uint8_t le[16];
  EXPECT_EQ(BN_bn2lebinpad(a, le, 16), 16);
  u128 v = 0;
  for (int i = 15; i >= 0; --i) v = v << 8 | le[i];
  return v;
}

HalfScalars reference(const U256& k) {
  BN_CTX* ctx = BN_CTX_new();
  Bn r0 = bn_of(Sc25519::kModulus), r1 = bn_of(k), t0 = bn(), t1 = bn(), q = bn(),
     rem = bn(), qt = bn(), bound = bn();
  BN_zero(t0.get());
  BN_one(t1.get());
  BN_set_bit(bound.get(), 127);
  while (BN_cmp(r1.get(), bound.get()) >= 0) {
    BN_div(q.get(), rem.get(), r0.get(), r1.get(), ctx);  // r0 = q r1 + rem
    BN_mul(qt.get(), q.get(), t1.get(), ctx);
    BN_sub(t0.get(), t0.get(), qt.get());  // t0 - q t1
    std::swap(r0, r1);
    std::swap(r1, rem);
    std::swap(t0, t1);
  }
  BN_CTX_free(ctx);
  const bool negative = BN_is_negative(t1.get()) != 0;
  const u128 w = u128_of(r1.get());
  return HalfScalars{u128_of(t1.get()), w, negative && w != 0};
}

// --- Checks -----------------------------------------------------------------

U256 mod_l(U256 k) {
  while (!less(k, Sc25519::kModulus)) ks::field::sub_borrow(k, k, Sc25519::kModulus);
  return k;
}

// The contract (z k - w = 0 mod L, with w's sign applied) and the oracle's
// answer for k mod L.
void check(const U256& k) {
  const HalfScalars h = ks::field::half_scalars(k);
  ASSERT_GT(h.z, u128(0));
  ASSERT_LT(h.z, u128(1) << 126);
  ASSERT_LT(h.w, u128(1) << 127);
  ASSERT_FALSE(h.w_negative && h.w == 0);
  // Montgomery products: mont_mul(a, b) = a b / R, so compare z k / R with
  // w / R = mont_mul(w, 1).
  const U256 zk = Sc25519::mont_mul(from_u128(h.z), k);
  U256 w = Sc25519::mont_mul(from_u128(h.w), U256{{1, 0, 0, 0}});
  if (h.w_negative) w = Sc25519::sub(U256{{0, 0, 0, 0}}, w);
  ASSERT_TRUE(ks::field::eq_mask(zk, w))
      << std::hex << k.w[3] << " " << k.w[2] << " " << k.w[1] << " " << k.w[0];
  const HalfScalars want = reference(mod_l(k));
  ASSERT_TRUE(h.z == want.z && h.w == want.w && h.w_negative == want.w_negative)
      << std::hex << k.w[3] << " " << k.w[2] << " " << k.w[1] << " " << k.w[0];
}

TEST(HalfScalars, Edges) {
  const U256 l = Sc25519::kModulus;
  const U256 edges[] = {
      {{0, 0, 0, 0}},
      {{1, 0, 0, 0}},
      {{5, 0, 0, 0}},
      {{~0ull, 0x7FFFFFFFFFFFFFFFull, 0, 0}},  // 2^127 - 1
      {{0, 0x8000000000000000ull, 0, 0}},      // 2^127
      {{1, 0x8000000000000000ull, 0, 0}},      // 2^127 + 1
      {{0, 0x4000000000000000ull, 0, 0}},      // 2^126
      {{0, 0, 1, 0}},                          // 2^128
      {{~0ull, ~0ull, 0, 0}},                  // 2^128 - 1
      {{0, 0, 0, 1}},                          // 2^192
      {{0, 0, 0, 0x0800000000000000ull}},      // 2^251
      {{0, 0, 0, 0x1000000000000000ull}},      // 2^252
      {{l.w[0] - 1, l.w[1], l.w[2], l.w[3]}},  // L - 1
      {{l.w[0] - 2, l.w[1], l.w[2], l.w[3]}},  // L - 2
      // (L-1)/2
      {{l.w[0] >> 1 | l.w[1] << 63, l.w[1] >> 1, l.w[2] >> 1 | l.w[3] << 63, l.w[3] >> 1}},
  };
  for (const U256& k : edges) ASSERT_NO_FATAL_FAILURE(check(k));
  for (int i = 0; i < 253; ++i) {  // powers of two and their neighbours
    U256 p{{0, 0, 0, 0}};
    p.w[i / 64] = uint64_t(1) << (i % 64);
    U256 below, above;
    ks::field::sub_borrow(below, p, U256{{1, 0, 0, 0}});
    ks::field::add_carry(above, p, U256{{1, 0, 0, 0}});
    ASSERT_NO_FATAL_FAILURE(check(mod_l(p)));
    ASSERT_NO_FATAL_FAILURE(check(mod_l(below)));
    ASSERT_NO_FATAL_FAILURE(check(mod_l(above)));
  }
}

TEST(HalfScalars, RandomScalars) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 200000; ++i) {
    U256 k{{rng(), rng(), rng(), rng() & 0x1FFFFFFFFFFFFFFFull}};
    if (!less(k, Sc25519::kModulus)) continue;
    ASSERT_NO_FATAL_FAILURE(check(k));
  }
}

// k of 256 bits (half_scalars takes k mod L): L, L + 1, 2^256 - 1, random.
TEST(HalfScalars, UnreducedScalars) {
  const U256 l = Sc25519::kModulus;
  ASSERT_NO_FATAL_FAILURE(check(l));
  ASSERT_NO_FATAL_FAILURE(check(U256{{l.w[0] + 1, l.w[1], l.w[2], l.w[3]}}));
  ASSERT_NO_FATAL_FAILURE(check(U256{{~0ull, ~0ull, ~0ull, ~0ull}}));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i)
    ASSERT_NO_FATAL_FAILURE(check(U256{{rng(), rng(), rng(), rng()}}));
}

// Scalars of every size (k below 2^n, n = 1 .. 252): the first quotient is
// then about 2^(252 - n), from one to far beyond a simulated step's 64 bits.
TEST(HalfScalars, ScalarsOfEverySize) {
  std::mt19937_64 rng(7);
  for (int n = 1; n <= 252; ++n)
    for (int i = 0; i < 200; ++i) {
      U256 k{{rng(), rng(), rng(), rng()}};
      for (int j = 0; j < 4; ++j) {
        const int keep = n - 64 * j;
        k.w[j] = keep <= 0 ? 0 : keep >= 64 ? k.w[j] : k.w[j] & ((uint64_t(1) << keep) - 1);
      }
      ASSERT_NO_FATAL_FAILURE(check(k));
    }
}

// k = a / b mod L for small a, b: the lattice holds the short vector
// (b, a) (k b = a), so Euclid's quotients turn large where the remainders
// pass a and b's size, and the answer is (w, z) = (+-a, b) up to a common
// factor once a, b < 2^126.
TEST(HalfScalars, ShortVectors) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const int bits = 1 + int(rng() % 126);
    const uint64_t mask_lo = bits >= 64 ? ~0ull : (uint64_t(1) << bits) - 1;
    const uint64_t mask_hi = bits <= 64 ? 0 : (uint64_t(1) << (bits - 64)) - 1;
    const U256 a{{rng() & mask_lo, rng() & mask_hi, 0, 0}};
    U256 b{{rng() & mask_lo, rng() & mask_hi, 0, 0}};
    if (ks::field::is_zero_mask(b)) b.w[0] = 1;
    // k = a b^-1: from_mont(mont(a) * mont(b)^-1).
    const U256 b_inv = Sc25519::inv_mont(Sc25519::to_mont(b));
    U256 k = Sc25519::from_mont(Sc25519::mont_mul(Sc25519::to_mont(a), b_inv));
    if (rng() & 1) k = Sc25519::neg(k);
    ASSERT_NO_FATAL_FAILURE(check(k));
  }
}

}  // namespace
