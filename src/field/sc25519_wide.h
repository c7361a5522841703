// Ed25519 scalars mod L on the CPU and the GPU alike, over
// field/mont_cios.h: a 512-bit little-endian integer (a SHA-512 digest:
// RFC 8032 5.1.6 step 2 and 5.1.7 step 2) mod L, as field/sc25519.h's
// reduce_wide computes it (x = hi 2^256 + lo, x R = mont(hi, R^3) +
// mont(lo, R^2), one more product by 1 leaves Montgomery form), and the
// signing equation. Constant time.
#ifndef KS_FIELD_SC25519_WIDE_H_
#define KS_FIELD_SC25519_WIDE_H_

#include <stdint.h>

#include "field/mont_cios.h"
#include "field/sc25519.h"

namespace ks {
namespace field {

// L and its Montgomery constants as words. (Copied from constant
// expressions: device code may not read a host constexpr object at run
// time.)
struct Sc25519Words {
  static constexpr uint64_t kN0Inv = Sc25519::kN0Inv;
  uint64_t l[4], r2[4], r3[4];
  KS_HD Sc25519Words() {
    constexpr U256 kL = Sc25519::kModulus, kR2 = Sc25519::kR2, kR3 = Sc25519::kR3;
KS_UNROLL
    for (int i = 0; i < 4; ++i) l[i] = kL.w[i], r2[i] = kR2.w[i], r3[i] = kR3.w[i];
  }
};

KS_HD void sc25519_reduce_wide(uint64_t out[4], const uint8_t in[64]) {
  const Sc25519Words c;
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
  mont_mul_cios(hi, hi, c.r3, c.l, c.kN0Inv);
  mont_mul_cios(lo, lo, c.r2, c.l, c.kN0Inv);
  uint64_t s[4];
  mod_add_4(s, hi, lo, c.l);
  const uint64_t one[4] = {1, 0, 0, 0};
  mont_mul_cios(out, s, one, c.l, c.kN0Inv);
}

// s a R mod L for any a < 2^256 (a clamped Ed25519 scalar: Sc25519::to_mont).
KS_HD void sc25519_to_mont(uint64_t out[4], const uint64_t a[4]) {
  const Sc25519Words c;
  mont_mul_cios(out, a, c.r2, c.l, c.kN0Inv);
}

// RFC 8032 5.1.6 step 5: S = r + k s mod L for r, k < L and s in Montgomery
// form (curve25519/ed25519.cc's signing_equation). Constant time.
KS_HD void sc25519_signing_equation(uint64_t out[4], const uint64_t r[4], const uint64_t k[4],
                                    const uint64_t s_mont[4]) {
  const Sc25519Words c;
  uint64_t ks[4];
  mont_mul_cios(ks, k, s_mont, c.l, c.kN0Inv);
  mod_add_4(out, r, ks, c.l);
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_SC25519_WIDE_H_
