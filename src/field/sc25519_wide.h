// A 512-bit little-endian integer (a SHA-512 digest: RFC 8032 5.1.6 step 2
// and 5.1.7 step 2) mod L, written once for the CPU and the GPU over
// field/mont_cios.h, as field/sc25519.h's reduce_wide computes it: with
// x = hi 2^256 + lo, x R = mont(hi, R^3) + mont(lo, R^2), and one more
// product by 1 leaves Montgomery form. Constant time.
#ifndef KS_FIELD_SC25519_WIDE_H_
#define KS_FIELD_SC25519_WIDE_H_

#include <stdint.h>

#include "field/mont_cios.h"
#include "field/sc25519.h"

namespace ks {
namespace field {

KS_HD void sc25519_reduce_wide(uint64_t out[4], const uint8_t in[64]) {
  // Copies of the constants as constant expressions (device code may not
  // read a host constexpr object at run time).
  constexpr U256 kL = Sc25519::kModulus, kR2 = Sc25519::kR2, kR3 = Sc25519::kR3;
  constexpr uint64_t kN0Inv = Sc25519::kN0Inv;
  const uint64_t l[4] = {kL.w[0], kL.w[1], kL.w[2], kL.w[3]};
  const uint64_t r2[4] = {kR2.w[0], kR2.w[1], kR2.w[2], kR2.w[3]};
  const uint64_t r3[4] = {kR3.w[0], kR3.w[1], kR3.w[2], kR3.w[3]};
  uint64_t lo[4], hi[4];
KS_UNROLL
  for (int i = 0; i < 4; ++i) {
    uint64_t a = 0, b = 0;
KS_UNROLL
    for (int j = 7; j >= 0; --j) {
      a = (a << 8) | in[8 * i + j];
      b = (b << 8) | in[32 + 8 * i + j];
    }
    lo[i] = a, hi[i] = b;
  }
  mont_mul_cios(hi, hi, r3, l, kN0Inv);
  mont_mul_cios(lo, lo, r2, l, kN0Inv);
  // hi + lo < 2L < 2^254: no carry out; subtract L once where due
  uint64_t s[4], d[4], carry = 0, borrow = 0;
KS_UNROLL
  for (int j = 0; j < 4; ++j) {
    const unsigned __int128 sum = (unsigned __int128)hi[j] + lo[j] + carry;
    s[j] = uint64_t(sum);
    carry = uint64_t(sum >> 64);
    const unsigned __int128 diff = (unsigned __int128)s[j] - l[j] - borrow;
    d[j] = uint64_t(diff);
    borrow = uint64_t(diff >> 64) & 1;
  }
  const uint64_t keep_s = 0 - borrow;
KS_UNROLL
  for (int j = 0; j < 4; ++j) s[j] = (s[j] & keep_s) | (d[j] & ~keep_s);
  const uint64_t one[4] = {1, 0, 0, 0};
  mont_mul_cios(out, s, one, l, kN0Inv);
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_SC25519_WIDE_H_
