// GF(p), p = 2^255 - 19 (Curve25519 and Edwards25519, RFC 7748 / RFC 8032),
// on the CPU: four 64-bit limbs reduced with 2^256 = 38 (mod p). The
// arithmetic core (add, sub, mul, sqr) is a parameter: portable C over the
// SM2 field's 512-bit products (field/fp.h MulPortable), or MULX/ADX
// assembly with the reduction fused into the product (field/fe25519_adx.h);
// everything else is written once here.
//
// Elements are kept below 2^256 but not necessarily below p ("weakly
// reduced": every value congruent to the element is accepted): each
// operation folds its carry out of bit 256 back in as 38, which needs no
// comparison, and only canonical() (encodings, is_zero, eq) brings a value
// into [0, p). That is the representation of OpenSSL's x25519 fe64 code.
//
// Fe25519Field<Core> satisfies the field policy (field/policy.h), plus
// mul_small (the ladder's a24) and the conversions to and from the
// little-endian encodings of RFC 7748 and RFC 8032. Everything runs in
// constant time.
#ifndef KS_FIELD_FE25519_H_
#define KS_FIELD_FE25519_H_

#include <stdint.h>

#include "field/fe25519_chain.h"
#include "field/fp.h"
#include "field/policy.h"
#include "field/safegcd.h"
#include "field/u256.h"

namespace ks {
namespace field {
namespace fe25519_detail {

constexpr U256 kP = {{0xFFFFFFFFFFFFFFEDull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}};
// sqrt(-1) = 2^((p-1)/4) (mod p), for square roots (p = 5 mod 8)
constexpr U256 kSqrtM1 = {{0xC4EE1B274A0EA0B0ull, 0x2F431806AD2FE478ull, 0x2B4D00993DFBD7A7ull,
                           0x2B8324804FC1DF0Bull}};

// r = a + 38 c for a 64-bit c below 2^58, with the carry out of bit 256
// folded in once more: it can only happen when r is then below 38 * 2^58,
// so the second fold never carries.
KS_FIELD_INLINE U256 fold38(const U256& a, uint64_t c) {
  U256 r;
  uint64_t carry;
  r.w[0] = addc(a.w[0], c * 38, 0, &carry);
  r.w[1] = addc(a.w[1], 0, carry, &carry);
  r.w[2] = addc(a.w[2], 0, carry, &carry);
  r.w[3] = addc(a.w[3], 0, carry, &carry);
  r.w[0] += 38 & (0 - carry);
  return r;
}

// t = lo + 2^256 hi = lo + 38 hi (mod p), as four limbs plus a top word of
// at most 38, then folded.
KS_FIELD_INLINE U256 reduce_wide(const uint64_t t[8]) {
  U256 r;
  u128 acc = 0;
  KS_UNROLL for (int i = 0; i < 4; ++i) {
    acc += u128(t[4 + i]) * 38 + t[i];
    r.w[i] = uint64_t(acc);
    acc >>= 64;
  }
  return fold38(r, uint64_t(acc));
}

// The arithmetic core in portable C: the 512-bit products of field/fp.h
// (MulPortable) reduced as above; field/fe25519_adx.h has the assembly one.
struct PortableCore {
  // a + b: the carry out of 2^256 is worth 38.
  KS_FIELD_INLINE static U256 add(const U256& a, const U256& b) {
    U256 s;
    const uint64_t carry = add_carry(s, a, b);
    return fold38(s, carry);
  }
  // a - b: a borrow past 2^256 took 2^256 = 38 too many away. Subtracting
  // 38 once more can borrow again only if the value was then below 38,
  // which leaves it far below 2^256 - 38: the second correction never
  // borrows.
  KS_FIELD_INLINE static U256 sub(const U256& a, const U256& b) {
    U256 d;
    uint64_t borrow = sub_borrow(d, a, b);
    U256 r;
    r.w[0] = subb(d.w[0], 38 & (0 - borrow), 0, &borrow);
    r.w[1] = subb(d.w[1], 0, borrow, &borrow);
    r.w[2] = subb(d.w[2], 0, borrow, &borrow);
    r.w[3] = subb(d.w[3], 0, borrow, &borrow);
    r.w[0] -= 38 & (0 - borrow);
    return r;
  }
  KS_FIELD_INLINE static U256 mul(const U256& a, const U256& b) {
    uint64_t t[8];
    fp_detail::MulPortable::mul_wide(t, a, b);
    return reduce_wide(t);
  }
  KS_FIELD_INLINE static U256 sqr(const U256& a) {
    uint64_t t[8];
    fp_detail::MulPortable::sqr_wide(t, a);
    return reduce_wide(t);
  }
};

}  // namespace fe25519_detail

template <class Core>
struct Fe25519Field {
  using Elem = U256;
  static constexpr U256 kModulus = fe25519_detail::kP;

  static Elem zero() { return U256{{0, 0, 0, 0}}; }
  static Elem one() { return U256{{1, 0, 0, 0}}; }

  KS_FIELD_INLINE static Elem add(const Elem& a, const Elem& b) { return Core::add(a, b); }
  KS_FIELD_INLINE static Elem sub(const Elem& a, const Elem& b) { return Core::sub(a, b); }
  KS_FIELD_INLINE static Elem neg(const Elem& a) { return sub(zero(), a); }
  KS_FIELD_INLINE static Elem dbl(const Elem& a) { return add(a, a); }
  KS_FIELD_INLINE static Elem mul(const Elem& a, const Elem& b) { return Core::mul(a, b); }
  KS_FIELD_INLINE static Elem sqr(const Elem& a) { return Core::sqr(a); }
  static Elem sqr_n(Elem a, int n) {
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
  // a * k for k < 2^32 (121666, the ladder's (A + 2) / 4, RFC 7748 5).
  KS_FIELD_INLINE static Elem mul_small(const Elem& a, uint32_t k) {
    U256 r;
    u128 acc = 0;
    KS_UNROLL for (int i = 0; i < 4; ++i) {
      acc += u128(a.w[i]) * k;
      r.w[i] = uint64_t(acc);
      acc >>= 64;
    }
    return fe25519_detail::fold38(r, uint64_t(acc));
  }

  // The representative in [0, p): a < 2^256 = 2p + 38 takes at most two
  // subtractions of p; here bit 255 is folded in as 19 first (a mod 2^255
  // + 19 (a >> 255) < 2^255 + 19), then p is subtracted if a + 19 reaches
  // 2^255.
  static Elem canonical(const Elem& a) {
    U256 r = a;
    r.w[3] &= 0x7FFFFFFFFFFFFFFFull;
    U256 t;
    uint64_t carry;
    const uint64_t top = a.w[3] >> 63;
    r.w[0] = addc(r.w[0], 19 * top, 0, &carry);
    r.w[1] = addc(r.w[1], 0, carry, &carry);
    r.w[2] = addc(r.w[2], 0, carry, &carry);
    r.w[3] = addc(r.w[3], 0, carry, &carry);
    t.w[0] = addc(r.w[0], 19, 0, &carry);
    t.w[1] = addc(r.w[1], 0, carry, &carry);
    t.w[2] = addc(r.w[2], 0, carry, &carry);
    t.w[3] = addc(r.w[3], 0, carry, &carry);
    const uint64_t ge_p = 0 - (t.w[3] >> 63);  // r + 19 >= 2^255, i.e. r >= p
    t.w[3] &= 0x7FFFFFFFFFFFFFFFull;            // r + 19 - 2^255 = r - p
    return field::select(ge_p, t, r);
  }

  static uint64_t is_zero(const Elem& a) { return is_zero_mask(canonical(a)); }
  static uint64_t eq(const Elem& a, const Elem& b) { return is_zero(sub(a, b)); }
  // The low bit of the canonical value ("negative" in RFC 8032 5.1.2).
  static uint64_t is_negative(const Elem& a) { return 0 - (canonical(a).w[0] & 1); }
  static Elem select(uint64_t mask, const Elem& a, const Elem& b) {
    return field::select(mask, a, b);
  }

  // a^-1 (0 for 0) by Bernstein and Yang's divsteps (field/safegcd.h:
  // 1.3 us against the exponentiation chain's 2.4 on the MULX/ADX field,
  // measured), and a^((p-5)/8) by field/fe25519_chain.h.
  static Elem inv(const Elem& a) {
    static constexpr SafegcdModulus kModulusForInverse = safegcd_modulus(kModulus);
    return safegcd_invert(canonical(a), kModulusForInverse);
  }
  static Elem pow_p58(const Elem& a) { return fe25519_pow_p58<Fe25519Field>(a); }

  // 32 little-endian bytes; bit 255 is left out (it carries x's sign in an
  // Ed25519 point and is masked in an X25519 u, RFC 7748 5). Returns an
  // all-ones mask if the 255-bit value is canonical (below p).
  static uint64_t from_bytes(Elem& r, const uint8_t in[32]) {
    for (int i = 0; i < 4; ++i) {
      uint64_t w = 0;
      for (int j = 7; j >= 0; --j) w = (w << 8) | in[8 * i + j];
      r.w[i] = w;
    }
    r.w[3] &= 0x7FFFFFFFFFFFFFFFull;
    return lt_mask(r, kModulus);
  }
  // The canonical value, 32 little-endian bytes (bit 255 clear).
  static void to_bytes(uint8_t out[32], const Elem& a) {
    const U256 c = canonical(a);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) out[8 * i + j] = uint8_t(c.w[i] >> (8 * j));
  }
  // Four little-endian words, any value below 2^256 (weakly reduced), and
  // the canonical value as four words (the GPU fields' interface).
  static Elem from_words(const uint64_t w[4]) { return U256{{w[0], w[1], w[2], w[3]}}; }
  static void to_words(uint64_t w[4], const Elem& a) {
    const U256 c = canonical(a);
    for (int i = 0; i < 4; ++i) w[i] = c.w[i];
  }
  // A constant given as its canonical value (tables, curve parameters).
  static constexpr Elem from_canonical(const U256& a) { return a; }
};

using Fe25519 = Fe25519Field<fe25519_detail::PortableCore>;
KS_ASSERT_FIELD_POLICY(Fe25519);

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_H_
