// Integers modulo a group order n (of no special form) with Montgomery
// multiplication: CIOS over 64-bit limbs, R = 2^256, for any odd n below
// 2^256. One template for every curve's scalars (SM2's n, field/fn.h;
// Edwards25519's L, field/sc25519.h); the Montgomery constants are derived
// from n at compile time, no pasted numbers.
//
// Two representations meet here and the names say which: "plain" scalars
// are the integers themselves (what is encoded, signed and fed to point
// multiplication), "mont" ones are x*R mod n. mul_plain_mont(a, b_mont) is
// the bridge: it returns the plain product a*b. Everything is constant time.
#ifndef KS_FIELD_MONT_N_H_
#define KS_FIELD_MONT_N_H_

#include <stdint.h>

#include "field/mont_cios.h"
#include "field/u256.h"

namespace ks {
namespace field {

namespace mont_n_detail {

// -n^-1 mod 2^64 by Newton's iteration (each step doubles the correct bits).
constexpr uint64_t neg_inv64(uint64_t n0) {
  uint64_t x = 1;
  for (int i = 0; i < 6; ++i) x *= 2 - n0 * x;
  return 0 - x;
}

}  // namespace mont_n_detail

// Order: a type with `static constexpr U256 kModulus` (odd).
template <class Order>
struct MontScalar {
  using Elem = U256;
  static constexpr U256 kModulus = Order::kModulus;
  static constexpr uint64_t kN0Inv = mont_n_detail::neg_inv64(kModulus.w[0]);
  static constexpr U256 kR = pow2_mod(256, kModulus);   // 1 in Montgomery form
  static constexpr U256 kR2 = pow2_mod(512, kModulus);  // converts plain to Montgomery

  static U256 add(const U256& a, const U256& b) { return mod_add(a, b, kModulus); }
  static U256 sub(const U256& a, const U256& b) { return mod_sub(a, b, kModulus); }
  static U256 neg(const U256& a) { return mod_sub(U256{{0, 0, 0, 0}}, a, kModulus); }

  // a * b / R mod n (CIOS Montgomery multiplication); a b < R n gives a
  // result below n.
  static U256 mont_mul(const U256& a, const U256& b);
  static U256 to_mont(const U256& plain) { return mont_mul(plain, kR2); }
  static U256 from_mont(const U256& m) { return mont_mul(m, U256{{1, 0, 0, 0}}); }
  // plain a times Montgomery b gives the plain product.
  static U256 mul_plain_mont(const U256& a, const U256& b_mont) { return mont_mul(a, b_mont); }
  static U256 one_mont() { return kR; }

  // a^(n-2) = a^-1 for a in Montgomery form (0 maps to 0): Fermat, a fixed
  // 4-bit window over the public exponent, so timing depends on n only.
  static U256 inv_mont(const U256& a_mont);

  // Any value below 2n reduced once.
  static U256 reduce_once(const U256& a) { return subtract_if_ge(a, 0, kModulus); }
  // All ones if 1 <= a <= n-1.
  static uint64_t in_range_nonzero(const U256& a) {
    return lt_mask(a, kModulus) & ~is_zero_mask(a);
  }
};

// CIOS (field/mont_cios.h, shared with the GPU).
template <class Order>
inline U256 MontScalar<Order>::mont_mul(const U256& a, const U256& b) {
  U256 r;
  mont_mul_cios(r.w, a.w, b.w, kModulus.w, kN0Inv);
  return r;
}

template <class Order>
inline U256 MontScalar<Order>::inv_mont(const U256& a) {
  U256 powers[16];  // a^i in Montgomery form
  powers[0] = one_mont();
  for (int i = 1; i < 16; ++i) powers[i] = mont_mul(powers[i - 1], a);
  U256 exponent;
  sub_borrow(exponent, kModulus, U256{{2, 0, 0, 0}});
  U256 r = one_mont();
  for (int pos = 252; pos >= 0; pos -= 4) {
    for (int i = 0; i < 4; ++i) r = mont_mul(r, r);
    r = mont_mul(r, powers[bit_window(exponent, pos, 4)]);  // public index
  }
  return r;
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_MONT_N_H_
