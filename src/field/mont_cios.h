// Montgomery multiplication modulo an odd n < 2^256, written once
// for the CPU and the GPU: CIOS (Koc, Acar and Kaliski, "Analyzing and
// comparing Montgomery multiplication algorithms", 1996) over four 64-bit
// limbs with unsigned __int128 products. For the few scalar operations per
// signature on the GPU (SM2's s and t, Ed25519's k = H(R || A || M) mod L)
// and for host tests of that code; the CPU's hot scalar paths have their
// own field/mont_n.h. Constant time: no branch or index depends on a value.
#ifndef KS_FIELD_MONT_CIOS_H_
#define KS_FIELD_MONT_CIOS_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace field {

// out = a b 2^-256 mod n, fully reduced, for a < 2^256 and b < n (then the
// CIOS result is below 2n: one conditional subtraction). n0inv = -n^-1 mod
// 2^64. out may alias a or b.
KS_HD void mont_mul_cios(uint64_t out[4], const uint64_t a[4], const uint64_t b[4],
                         const uint64_t n[4], uint64_t n0inv) {
  using u128 = unsigned __int128;
  uint64_t t[6] = {0, 0, 0, 0, 0, 0};
KS_UNROLL
  for (int i = 0; i < 4; ++i) {
    u128 acc = 0;
KS_UNROLL
    for (int j = 0; j < 4; ++j) {
      acc += u128(a[j]) * b[i] + t[j];
      t[j] = uint64_t(acc);
      acc >>= 64;
    }
    acc += t[4];
    t[4] = uint64_t(acc);
    t[5] = uint64_t(acc >> 64);
    // add m n so that limb 0 becomes zero, then shift down one limb
    const uint64_t m = t[0] * n0inv;
    acc = (u128(m) * n[0] + t[0]) >> 64;
KS_UNROLL
    for (int j = 1; j < 4; ++j) {
      acc += u128(m) * n[j] + t[j];
      t[j - 1] = uint64_t(acc);
      acc >>= 64;
    }
    acc += t[4];
    t[3] = uint64_t(acc);
    t[4] = t[5] + uint64_t(acc >> 64);
  }
  // t - n where t >= n (t[4] is the bit above the four limbs)
  uint64_t d[4], borrow = 0;
KS_UNROLL
  for (int j = 0; j < 4; ++j) {
    const u128 diff = u128(t[j]) - n[j] - borrow;
    d[j] = uint64_t(diff);
    borrow = uint64_t(diff >> 64) & 1;
  }
  const uint64_t keep_t = 0 - (borrow & (t[4] ^ 1));  // t < n
KS_UNROLL
  for (int j = 0; j < 4; ++j) out[j] = (t[j] & keep_t) | (d[j] & ~keep_t);
}

// out = a + b mod n for a, b < n (n < 2^255: the sum has no carry out).
KS_HD void mod_add_4(uint64_t out[4], const uint64_t a[4], const uint64_t b[4],
                     const uint64_t n[4]) {
  using u128 = unsigned __int128;
  uint64_t s[4], d[4], carry = 0, borrow = 0;
KS_UNROLL
  for (int j = 0; j < 4; ++j) {
    const u128 sum = u128(a[j]) + b[j] + carry;
    s[j] = uint64_t(sum);
    carry = uint64_t(sum >> 64);
    const u128 diff = u128(s[j]) - n[j] - borrow;
    d[j] = uint64_t(diff);
    borrow = uint64_t(diff >> 64) & 1;
  }
  const uint64_t keep_s = 0 - borrow;  // s < n
KS_UNROLL
  for (int j = 0; j < 4; ++j) out[j] = (s[j] & keep_s) | (d[j] & ~keep_s);
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_MONT_CIOS_H_
