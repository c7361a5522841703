// GF(p) for the SM2 prime in Montgomery form (a is held as a 2^256 mod p):
// the CPU's scalar-multiplication field. p = -1 mod 2^64 makes the
// Montgomery factor -p^-1 mod 2^64 equal to 1, so each of the four
// word-by-word reduction steps takes m = the lowest word and adds m p with
// shifts and carry chains, no multiplication. The assembly takes the steps
// two at a time (one addition and one subtraction chain of five words a
// pair): about 50 instructions against the 100 of the Solinas column sums
// (field/fp.h). On the Zen 4 EPYC, four independent product chains took ~52
// cycles per product against ~63 (squares ~45 against ~58), and SM2
// verification ran 25% faster; on the Zen 5 the pairs took
// the MULX/ADX product from 33.4 to 31.3 cycles and the square from 28.7
// to 27.0 (four chains). (A CIOS product with the reduction interleaved
// row by row measured no faster than these two passes.)
//
// FpField (field/fp.h) with MontgomeryForm: the same field policy
// (curve/jacobian.h) and conversions from_plain / to_plain; sm2/sm2_curve.cc
// converts at the boundaries of its scalar multiplications. Constant time
// like the plain form.
#ifndef KS_FIELD_FP_MONT_H_
#define KS_FIELD_FP_MONT_H_

#include <stdint.h>

#include "field/fp.h"
#include "field/u256.h"

namespace ks {
namespace field {

namespace fp_detail {

// acc + m p = acc + m (2^256 - 2^224 - 2^96 + 2^64 - 1) for m = acc[0]:
// the low word cancels exactly and, divided by 2^64,
//   (acc + m p) / 2^64 = [acc1, acc2, acc3, m] - [m<<32, m>>32, m<<32, m>>32] + m
// in 64-bit limbs (m 2^192 - m 2^160 - m 2^32 + m). The subtraction cannot
// borrow out ([acc1, acc2, acc3, m] >= m 2^192 > m 2^160 + m 2^32) and the
// total stays below 2^256 (it is below 2^192 + m (2^192 - 2^160 - 2^32 + 1)).
// After four steps the value is t_low 2^-256 mod p, at most p; adding t's
// high half (< p when t < p^2) and one conditional subtraction of p give
// the canonical result.
inline U256 mont_reduce_portable(const uint64_t t[8]) {
  uint64_t a[4] = {t[0], t[1], t[2], t[3]};
  for (int step = 0; step < 4; ++step) {
    const uint64_t m = a[0], x = m << 32, y = m >> 32;
    const uint64_t sub[4] = {x, y, x, y};
    uint64_t r[4] = {a[1], a[2], a[3], m}, borrow = 0, carry = 0;
    for (int i = 0; i < 4; ++i) r[i] = subb(r[i], sub[i], borrow, &borrow);
    r[0] = addc(r[0], m, 0, &carry);
    for (int i = 1; i < 4; ++i) r[i] = addc(r[i], 0, carry, &carry);
    for (int i = 0; i < 4; ++i) a[i] = r[i];
  }
  U256 z;
  const uint64_t carry = add_carry(z, U256{{a[0], a[1], a[2], a[3]}}, U256{{t[4], t[5], t[6], t[7]}});
  return subtract_if_ge(z, carry, kP);
}

#if defined(__x86_64__)
// Two reduction steps at once, in assembly. With c = 2^192 - 2^160 - 2^32
// + 1, p = 2^64 c - 1, so one step maps acc to (acc >> 64) + m c for m =
// acc's low word, and two steps (m0 = a0, then m1 = the low word of
// (acc >> 64) + m0 c, i.e. a1 + m0 - (m0 << 32) mod 2^64) map it to
//   floor(((acc >> 64) + m0 c + 2^64 m1 c) / 2^64),
// where in 64-bit words m0 c + 2^64 m1 c = A - S with
//   A = [m0, m1, 0, m0, m1],
//   S = [m0 << 32, m0 >> 32 | m1 << 32, m0 << 32 | m1 >> 32,
//        m0 >> 32 | m1 << 32, m1 >> 32]
// (each word of S a disjoint OR of two halves: no carries). So a pair
// costs one 5-word addition chain and one 5-word subtraction chain, plus
// shifts, against two chains of 4 and two of 4 per single step (15
// instructions a step before). Both chains run modulo 2^320: the true
// window value is below 2^64 (2^128 + p) < 2^320, so carries and borrows
// out of the top word cancel. The window's low word (m1) is dropped; the
// result [w1, w2, w3, w4] rotates into a2, a3, a0, m1's registers, and
// a1's register (the dropped word) is free for the next pair's m1. x, y
// and z name three scratch operands. (Left defined: field/fp_mont_adx.h's
// fused product reduces with the same pairs.)
#define KS_MONT_PAIR(a0, a1, a2, a3, m1, x, y, z)                                     \
  "movq %[" #a0 "], %[" #x "]\n\t"  /* x = m0 << 32 */                                \
  "shlq $32, %[" #x "]\n\t"                                                           \
  "leaq (%[" #a1 "], %[" #a0 "]), %[" #m1 "]\n\t"                                     \
  "subq %[" #x "], %[" #m1 "]\n\t"  /* m1 = a1 + m0 - (m0 << 32) */                   \
  "movq %[" #a0 "], %[" #y "]\n\t"  /* y = m0 >> 32 | m1 << 32 */                     \
  "shrdq $32, %[" #m1 "], %[" #y "]\n\t"                                              \
  "movq %[" #m1 "], %[" #z "]\n\t"  /* z = m0 << 32 | m1 >> 32 */                     \
  "shrq $32, %[" #z "]\n\t"                                                           \
  "orq %[" #x "], %[" #z "]\n\t"                                                      \
  "addq %[" #a0 "], %[" #a1 "]\n\t" /* [a1, a2, a3, m0, m1] += A (m0, m1, 0, -, -) */ \
  "adcq %[" #m1 "], %[" #a2 "]\n\t"                                                   \
  "adcq $0, %[" #a3 "]\n\t"                                                           \
  "adcq $0, %[" #a0 "]\n\t"                                                           \
  "adcq $0, %[" #m1 "]\n\t"                                                           \
  "subq %[" #x "], %[" #a1 "]\n\t"      /* -= S; the top holds m1 - (m1 >> 32) */     \
  "sbbq %[" #y "], %[" #a2 "]\n\t"                                                    \
  "sbbq %[" #z "], %[" #a3 "]\n\t"                                                    \
  "sbbq %[" #y "], %[" #a0 "]\n\t"                                                    \
  "movl %k[" #z "], %k[" #x "]\n\t"          /* m1 >> 32 (mov keeps the flags) */     \
  "sbbq %[" #x "], %[" #m1 "]\n\t"

// The same reduction as mont_reduce_portable, two steps a pair: after the
// first pair the accumulator is in a2, a3, a0, m (a1 free), after the
// second in a0, m, a2, a1.
KS_FIELD_INLINE U256 mont_reduce_x86(const uint64_t t[8]) {
  KS_CT_ASM_GUARD_WORDS(mont_reduce_x86, t, 8);
  static_assert(kP.w[0] == ~0ull && kP.w[2] == ~0ull, "p limbs 0 and 2 are -1 immediates");
  uint64_t a0 = t[0], a1 = t[1], a2 = t[2], a3 = t[3], m, x, y, z, c;
  __asm__(
      KS_MONT_PAIR(a0, a1, a2, a3, m, x, y, z)
      KS_MONT_PAIR(a2, a3, a0, m, a1, x, y, z)
      // + t's high half, carry into c
      "xorl %k[c], %k[c]\n\t"
      "addq 32(%[t]), %[a0]\n\t"
      "adcq 40(%[t]), %[m]\n\t"
      "adcq 48(%[t]), %[a2]\n\t"
      "adcq 56(%[t]), %[a1]\n\t"
      "adcq $0, %[c]\n\t"
      // (c, a) - p; keep a where that borrows out
      KS_ASM_SUBTRACT_P_IF_GE(a0, m, a2, a1, x, y, z, a3, c)
      : [a0] "+&r"(a0), [a1] "+&r"(a1), [a2] "+&r"(a2), [a3] "+&r"(a3), [m] "=&r"(m),
        [x] "=&r"(x), [y] "=&r"(y), [z] "=&r"(z), [c] "=&r"(c)
      : [t] "r"(t), "m"(*(const uint64_t(*)[8])t), [p1] "m"(kP.w[1]), [p3] "m"(kP.w[3])
      : "cc");
  return U256{{a0, m, a2, a1}};
}
#endif

KS_FIELD_INLINE U256 mont_reduce(const uint64_t t[8]) {
#if defined(__x86_64__)
  return mont_reduce_x86(t);
#else
  return mont_reduce_portable(t);
#endif
}

// Elements in Montgomery form, a R mod p with R = 2^256.
struct MontgomeryForm {
  static constexpr bool kPlain = false;
  static constexpr U256 kOne = pow2_mod(256, kP);  // R mod p
  static constexpr U256 kR2 = pow2_mod(512, kP);   // R^2 mod p: converts into the form
  static constexpr U256 kR3 = pow2_mod(768, kP);   // R^3 mod p: a plain inverse into it
  KS_FIELD_INLINE static U256 reduce(const uint64_t t[8]) { return mont_reduce(t); }
};

}  // namespace fp_detail

// The Montgomery field over the product code Wide (FpField with the form).
template <class Wide>
using FpMontField = FpField<Wide, fp_detail::MontgomeryForm>;

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_MONT_H_
