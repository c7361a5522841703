// Constant-time modular inversion by Bernstein and Yang's divsteps
// ("Fast constant-time gcd computation and modular inversion", TCHES 2019,
// with the half-delta divstep whose bound for 256-bit moduli is 590
// divsteps), for any odd modulus below 2^256: the inversion of the CPU
// fields (SM2's p, 2^255 - 19), which Fermat's chain (255 squarings and a
// dozen products, each a chain of dependent carries) made ~20% of a key
// generation or an X25519.
//
// Constant time: ten batches of 59 divsteps whatever the input, every
// divstep the same masked arithmetic; no branch and no memory index
// depends on the value.
#ifndef KS_FIELD_SAFEGCD_H_
#define KS_FIELD_SAFEGCD_H_

#include <stdint.h>

#include "field/u256.h"

namespace ks {
namespace field {

// A modulus M (odd, below 2^256) in the form the inversion takes: its five
// limbs of 62 bits and M^-1 mod 2^62.
struct SafegcdModulus {
  int64_t m[5];
  uint64_t m_inv62;
};

namespace safegcd_detail {
constexpr uint64_t kMask62 = (uint64_t(1) << 62) - 1;
// M^-1 mod 2^64 by Newton's iteration (x <- x (2 - M x) doubles the
// correct low bits; M itself is right to 3 bits).
constexpr uint64_t inverse_mod_2_64(uint64_t m) {
  uint64_t x = m;
  for (int i = 0; i < 5; ++i) x *= 2 - m * x;
  return x;
}
// a in five limbs of 62 bits (limb 4: bits 248..255).
constexpr void to_limbs62(int64_t out[5], const U256& a) {
  out[0] = int64_t(a.w[0] & kMask62);
  out[1] = int64_t(((a.w[0] >> 62) | (a.w[1] << 2)) & kMask62);
  out[2] = int64_t(((a.w[1] >> 60) | (a.w[2] << 4)) & kMask62);
  out[3] = int64_t(((a.w[2] >> 58) | (a.w[3] << 6)) & kMask62);
  out[4] = int64_t(a.w[3] >> 56);
}
}  // namespace safegcd_detail

constexpr SafegcdModulus safegcd_modulus(const U256& m) {
  SafegcdModulus r{};
  safegcd_detail::to_limbs62(r.m, m);
  r.m_inv62 = safegcd_detail::inverse_mod_2_64(m.w[0]) & safegcd_detail::kMask62;
  return r;
}

// x^-1 mod M for x < M (0 for 0), canonical.
U256 safegcd_invert(const U256& x, const SafegcdModulus& mod);

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_SAFEGCD_H_
