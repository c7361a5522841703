// The divsteps inversion (field/safegcd.h) against OpenSSL's BN_mod_inverse
// for the library's moduli (SM2's p and n, 2^255 - 19) and odd moduli of
// every size up to 2^256 - 1, on edge values (0, 1, 2, M - 1, powers of
// two, limbs all ones) and random ones; and the CPU fields' inv(), which
// now runs on it, against their exponentiation chains.
#include <gtest/gtest.h>
#include <openssl/bn.h>

#include <vector>

#include "field/fe25519.h"
#include "field/fp.h"
#include "field/fp_mont.h"
#include "field/mul_adx.h"
#include "field/safegcd.h"
#include "test_sm2_util.h"

namespace {

using ks::field::U256;
using namespace ks_test;

bool same(const U256& a, const U256& b) { return ks::field::eq_mask(a, b) != 0; }

std::string hex(const U256& a) {
  char s[80];
  snprintf(s, sizeof s, "%016llx%016llx%016llx%016llx", (unsigned long long)a.w[3],
           (unsigned long long)a.w[2], (unsigned long long)a.w[1], (unsigned long long)a.w[0]);
  return s;
}

// A random value below m, any length of m: masked to m's length, then
// rejected until below m (Rng::below draws 256-bit values).
U256 random_below(Rng& rng, const U256& m) {
  int top = 3;
  while (m.w[top] == 0) --top;
  const int bits = 64 * top + 64 - __builtin_clzll(m.w[top]);
  for (;;) {
    U256 r = (rng.word() & 1) ? rng.any() : rng.edgy();
    for (int j = 0; j < 4; ++j) {
      const int keep = bits - 64 * j;
      if (keep <= 0) r.w[j] = 0;
      else if (keep < 64) r.w[j] &= (uint64_t(1) << keep) - 1;
    }
    if (ks::field::lt_mask(r, m)) return r;
  }
}

// Edge values below m and random ones.
std::vector<U256> samples(const U256& m, Rng& rng, int random_count) {
  std::vector<U256> v = {U256{{0, 0, 0, 0}}, U256{{1, 0, 0, 0}}, U256{{2, 0, 0, 0}}};
  U256 m1 = m, m2 = m;
  m1.w[0] -= 1;  // m is odd: no borrow
  m2.w[0] -= 2;
  v.push_back(m1);
  v.push_back(m2);
  for (int bit = 0; bit < 256; bit += 31) {
    U256 t{{0, 0, 0, 0}};
    t.w[bit / 64] = uint64_t(1) << (bit % 64);
    v.push_back(t);
    U256 ones{{~0ull, ~0ull, ~0ull, ~0ull}};
    for (int j = bit / 64 + 1; j < 4; ++j) ones.w[j] = 0;  // every limb below bit's all ones
    v.push_back(ones);
  }
  for (int i = 0; i < random_count; ++i) v.push_back(random_below(rng, m));
  std::vector<U256> below;
  for (const U256& x : v)
    if (ks::field::lt_mask(x, m)) below.push_back(x);
  return below;
}

// safegcd_invert(x) for every sample x, against BN_mod_inverse where x is
// invertible and 0 where x = 0.
void check_modulus(const U256& m, Rng& rng, int random_count) {
  const ks::field::SafegcdModulus mod = ks::field::safegcd_modulus(m);
  Bn mb = to_bn(m), r(BN_new());
  BN_CTX* ctx = BN_CTX_new();
  int checked = 0;
  for (const U256& x : samples(m, rng, random_count)) {
    const U256 got = ks::field::safegcd_invert(x, mod);
    Bn xb = to_bn(x);
    if (BN_is_zero(xb.get())) {
      EXPECT_TRUE(same(got, U256{{0, 0, 0, 0}})) << "0^-1 mod " << hex(m);
      continue;
    }
    if (BN_mod_inverse(r.get(), xb.get(), mb.get(), ctx) == nullptr) continue;  // gcd > 1
    ASSERT_TRUE(same(got, from_bn(r.get()))) << hex(x) << "^-1 mod " << hex(m);
    ++checked;
  }
  BN_CTX_free(ctx);
  EXPECT_GT(checked, random_count / 4) << hex(m);  // composite m: some x share a factor
}

TEST(Safegcd, LibraryModuliMatchBignum) {
  Rng rng(0x5afe6cd);
  check_modulus(ks::field::fp_detail::kP, rng, 20000);
  check_modulus(ks::field::fe25519_detail::kP, rng, 20000);
  check_modulus(from_bn(bn_hex("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123")
                            .get()),
                rng, 5000);  // SM2's n
}

// Odd moduli from 3 up to 2^256 - 1, random ones of every length in
// between: the bound of 590 divsteps holds for any odd modulus below 2^256.
TEST(Safegcd, OddModuliOfEverySizeMatchBignum) {
  Rng rng(0x0dd);
  check_modulus(U256{{3, 0, 0, 0}}, rng, 10);
  check_modulus(U256{{~0ull, ~0ull, ~0ull, ~0ull}}, rng, 2000);
  for (int bits = 2; bits <= 256; bits += 7) {
    U256 m = rng.any();
    for (int j = 0; j < 4; ++j) {
      const int keep = bits - 64 * j;
      if (keep <= 0) m.w[j] = 0;
      else if (keep < 64) m.w[j] &= (uint64_t(1) << keep) - 1;
    }
    m.w[(bits - 1) / 64] |= uint64_t(1) << ((bits - 1) % 64);  // exactly `bits` long
    m.w[0] |= 1;
    check_modulus(m, rng, 300);
  }
}

// The fields' inv() (divsteps, with the Montgomery form's conversion) and
// their exponentiation chains give the same elements.
TEST(Safegcd, FieldInversesMatchTheirChains) {
  using FpMont = ks::field::FpMontField<ks::field::fp_detail::MulPortable>;
  using ks::field::Fe25519;
  using ks::field::Fp;
  Rng rng(0xc4a1);
  for (const U256& x : samples(ks::field::fp_detail::kP, rng, 3000)) {
    ASSERT_TRUE(same(Fp::inv(x), ks::field::sm2_p_inverse<Fp>(x))) << hex(x);
    const U256 xm = FpMont::from_plain(x);
    ASSERT_TRUE(same(FpMont::inv(xm), ks::field::sm2_p_inverse<FpMont>(xm))) << hex(x);
  }
  for (const U256& x : samples(ks::field::fe25519_detail::kP, rng, 3000)) {
    ASSERT_TRUE(same(Fe25519::canonical(Fe25519::inv(x)),
                     Fe25519::canonical(ks::field::fe25519_invert<Fe25519>(x))))
        << hex(x);
  }
  // weakly reduced inputs (p to 2^256 - 1) of 2^255 - 19
  const U256 kTop[] = {ks::field::fe25519_detail::kP,
                       U256{{~0ull - 18, ~0ull, ~0ull, ~0ull}},
                       U256{{~0ull, ~0ull, ~0ull, ~0ull}}};
  for (const U256& x : kTop)
    ASSERT_TRUE(same(Fe25519::canonical(Fe25519::inv(x)),
                     Fe25519::canonical(ks::field::fe25519_invert<Fe25519>(x))))
        << hex(x);
}

}  // namespace
