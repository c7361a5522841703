// The SM2 coordinate field GF(p), p = 2^256 - 2^224 - 2^96 + 2^64 - 1
// (GM/T 0003.5 sm2p256v1), on the CPU: four 64-bit limbs, 512-bit products
// through unsigned __int128 (or MULX/ADX, field/mul_adx.h), one Solinas
// reduction, every element kept canonical in [0, p). CPU only.
//
// Fp is the field policy the curve formulas in curve/jacobian.h are written
// against (the future CUDA type, 8x32-bit limbs with PTX carry chains, offers
// the same static functions):
//   Elem; zero(), one(); add, sub, neg, dbl, mul, sqr, sqr_n; inv;
//   is_zero(a), eq(a, b) -> all-ones mask; select(mask, a, b).
// All of them run in constant time: no branch or memory index depends on an
// element's value.
#ifndef KS_FIELD_FP_H_
#define KS_FIELD_FP_H_

// nvcc's front end (the host code of a .cu file including this) takes the
// outputs of the x86-64 asm blocks below for unused variables.
#if defined(__CUDACC__)
#pragma nv_diagnostic push
#pragma nv_diag_suppress 550
#endif

#include <stdint.h>

#include <type_traits>

#include "field/fp_chain.h"
#include "field/safegcd.h"
#include "field/u256.h"

namespace ks {
namespace field {

namespace fp_detail {

constexpr U256 kP = {
    {0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFF00000000ull, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFEFFFFFFFFull}};

// Portable 256x256 -> 512-bit products over unsigned __int128.
struct MulPortable {
  // t[0..7] = a * b, schoolbook over 64-bit limbs.
  static KS_FIELD_INLINE void mul_wide(uint64_t t[8], const U256& a, const U256& b) {
    KS_UNROLL for (int i = 0; i < 8; ++i) t[i] = 0;
    KS_UNROLL for (int i = 0; i < 4; ++i) {
      uint64_t carry = 0;
      KS_UNROLL for (int j = 0; j < 4; ++j) {
        const u128 acc = u128(a.w[i]) * b.w[j] + t[i + j] + carry;
        t[i + j] = uint64_t(acc);
        carry = uint64_t(acc >> 64);
      }
      t[i + 4] = carry;
    }
  }

  // t[0..7] = a^2: the six cross products once, doubled, plus the diagonal.
  static KS_FIELD_INLINE void sqr_wide(uint64_t t[8], const U256& a) {
    KS_UNROLL for (int i = 0; i < 8; ++i) t[i] = 0;
    KS_UNROLL for (int i = 0; i < 3; ++i) {
      uint64_t carry = 0;
      KS_UNROLL for (int j = i + 1; j < 4; ++j) {
        const u128 acc = u128(a.w[i]) * a.w[j] + t[i + j] + carry;
        t[i + j] = uint64_t(acc);
        carry = uint64_t(acc >> 64);
      }
      t[i + 4] = carry;
    }
    KS_UNROLL for (int i = 7; i > 0; --i) t[i] = (t[i] << 1) | (t[i - 1] >> 63);
    t[0] <<= 1;
    u128 acc = 0;
    KS_UNROLL for (int i = 0; i < 4; ++i) {
      const u128 sq = u128(a.w[i]) * a.w[i];
      acc += u128(t[2 * i]) + uint64_t(sq);
      t[2 * i] = uint64_t(acc);
      acc >>= 64;
      acc += u128(t[2 * i + 1]) + uint64_t(sq >> 64);
      t[2 * i + 1] = uint64_t(acc);
      acc >>= 64;
    }
  }
};

// p in 32-bit digits, made redundant so that digit 2 is large: p's digits
// (low to high) are FFFFFFFF FFFFFFFF 0 FFFFFFFF FFFFFFFF FFFFFFFF FFFFFFFF
// FFFFFFFE; moving 4 * 2^32 from digit 3 down into digit 2 gives the same
// value. Starting the column sums of solinas_reduce from these digits adds
// 0 mod p and keeps column 2 (the only one with negative terms, at least
// -4(2^32 - 1)) non-negative, so every later step is unsigned.
constexpr uint64_t kRedundantP[8] = {0xFFFFFFFF, 0xFFFFFFFF, 4ull << 32, 0xFFFFFFFF - 4,
                                     0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE};

// Solinas fast reduction of a 512-bit t mod p: the only reduction of this
// field. Seed 001 table 1 writes t in 32-bit words c15..c0 and
// t = s1 + s2 + 2s3 + 2s4 + 2s5 + s6 + s7 + s8 + s9 + 2s10 - s11 - s12 - s13
// - s14 (mod p), where s1 = c7..c0 is the low half. Below, colK is the
// coefficient of 2^(32K) contributed by s2..s14, gathered per column (checked
// word by word: sum_K colK(cj) 2^(32K) == 2^(32j) mod p for j = 8..15).
// The sums start from kRedundantP (adding p keeps column 2 non-negative),
// then carry into 64-bit limbs with unsigned arithmetic, leaving
// z + top * 2^256 with top < 16; table 3's final step folds top back in.
inline U256 solinas_reduce_portable(const uint64_t t[8]) {
  constexpr uint64_t kLow = 0xFFFFFFFF;
  const uint64_t c8 = t[4] & kLow, c9 = t[4] >> 32, c10 = t[5] & kLow, c11 = t[5] >> 32;
  const uint64_t c12 = t[6] & kLow, c13 = t[6] >> 32, c14 = t[7] & kLow, c15 = t[7] >> 32;

  const uint64_t* bias = kRedundantP;
  const uint64_t col1 = bias[1] + c9 + c10 + c11 + c12 + c13 + 2 * (c14 + c15);
  const uint64_t col0 = bias[0] + c8 + c9 + c10 + c11 + c12 + 2 * (c13 + c14 + c15);
  const uint64_t col2 = bias[2] - (c8 + c9 + c13 + c14);
  const uint64_t col3 = bias[3] + c8 + c11 + c12 + 2 * c13 + c14 + c15;
  const uint64_t col4 = bias[4] + c9 + c12 + c13 + 2 * c14 + c15;
  const uint64_t col5 = bias[5] + c10 + c13 + c14 + 2 * c15;
  const uint64_t col6 = bias[6] + c11 + c14 + c15;
  const uint64_t col7 = bias[7] + c8 + c9 + c10 + c11 + 2 * (c12 + c13 + c14) + 3 * c15;

  // z = t_low + sum_K colK 2^(32K) as two 256-bit adds: even columns sit at
  // the bottom of a limb, odd ones straddle two limbs.
  U256 z;
  const U256 low = {{t[0], t[1], t[2], t[3]}};
  const U256 even_and_odd_high = {
      {col0, col2 + (col1 >> 32), col4 + (col3 >> 32), col6 + (col5 >> 32)}};
  const U256 odd_low = {{col1 << 32, col3 << 32, col5 << 32, col7 << 32}};
  uint64_t top = col7 >> 32;
  top += add_carry(z, low, even_and_odd_high);
  top += add_carry(z, z, odd_low);

  // z + top * 2^256 == z + top * (2^224 + 2^96 - 2^64 + 1). If that carries
  // out, z is tiny and (carry, z) - p is the answer; otherwise z < 2^256 <
  // 2p: one conditional subtraction of p from (carry, z) covers both.
  const U256 top_times_t = {{top, top * kLow, 0, top << 32}};
  const uint64_t carry = add_carry(z, z, top_times_t);
  return subtract_if_ge(z, carry, kP);
}

#if defined(__x86_64__)
// The final step of both reductions' assembly (here and field/fp_mont.h):
// (carry, z0..z3) - p into scratch d0..d3, kept unless that borrows out
// (cmov, no branch). Needs operands [p1] and [p3], p's limbs 1 and 3 (limbs
// 0 and 2 are the immediate -1).
#define KS_ASM_SUBTRACT_P_IF_GE(z0, z1, z2, z3, d0, d1, d2, d3, carry) \
  "movq %[" #z0 "], %[" #d0 "]\n\t"                                     \
  "movq %[" #z1 "], %[" #d1 "]\n\t"                                     \
  "movq %[" #z2 "], %[" #d2 "]\n\t"                                     \
  "movq %[" #z3 "], %[" #d3 "]\n\t"                                     \
  "subq $-1, %[" #d0 "]\n\t"                                            \
  "sbbq %[p1], %[" #d1 "]\n\t"                                          \
  "sbbq $-1, %[" #d2 "]\n\t"                                            \
  "sbbq %[p3], %[" #d3 "]\n\t"                                          \
  "sbbq $0, %[" #carry "]\n\t"                                          \
  "cmovncq %[" #d0 "], %[" #z0 "]\n\t"                                  \
  "cmovncq %[" #d1 "], %[" #z1 "]\n\t"                                  \
  "cmovncq %[" #d2 "], %[" #z2 "]\n\t"                                  \
  "cmovncq %[" #d3 "], %[" #z3 "]\n\t"

// The same reduction, step for step, in x86-64 assembly: gcc spills the
// column sums and re-materializes carries, which made the C version twice
// the instructions (and the time) of this one. s0..s7 accumulate the
// columns col0..col7; each 32-bit word cj is added into the columns whose
// formula (above) names it, "2x" and "3x" through lea.
KS_FIELD_INLINE U256 solinas_reduce_x86(const uint64_t t[8]) {
  KS_CT_ASM_GUARD_WORDS(solinas_reduce_x86, t, 8);
  // The immediates below spell kRedundantP and p. Eleven registers only (t
  // through one pointer), so that the block also compiles at -O0 and with a
  // frame pointer.
  static_assert(kRedundantP[0] == 0xFFFFFFFF && kRedundantP[1] == 0xFFFFFFFF &&
                    kRedundantP[2] == 0x400000000 && kRedundantP[3] == 0xFFFFFFFB &&
                    kRedundantP[4] == 0xFFFFFFFF && kRedundantP[5] == 0xFFFFFFFF &&
                    kRedundantP[6] == 0xFFFFFFFF && kRedundantP[7] == 0xFFFFFFFE,
                "column start digits");
  static_assert(kP.w[0] == ~0ull && kP.w[2] == ~0ull, "p limbs 0 and 2 are -1 immediates");
  uint64_t s0, s1, s2, s3, s4, s5, s6, s7, c, d;
  __asm__(
      // columns start from the digits of kRedundantP
      "movl $0xFFFFFFFF, %k[s0]\n\t"
      "movl $0xFFFFFFFF, %k[s1]\n\t"
      "movabsq $0x400000000, %[s2]\n\t"
      "movl $0xFFFFFFFB, %k[s3]\n\t"
      "movl $0xFFFFFFFF, %k[s4]\n\t"
      "movl $0xFFFFFFFF, %k[s5]\n\t"
      "movl $0xFFFFFFFF, %k[s6]\n\t"
      "movl $0xFFFFFFFE, %k[s7]\n\t"
      // c8 (c): col0 -col2 col3 col7; c9 (d): col0 col1 -col2 col4 col7
      "movq 32(%[t]), %[d]\n\t"
      "movl %k[d], %k[c]\n\t"
      "shrq $32, %[d]\n\t"
      "addq %[c], %[s0]\n\t"
      "subq %[c], %[s2]\n\t"
      "addq %[c], %[s3]\n\t"
      "addq %[c], %[s7]\n\t"
      "addq %[d], %[s0]\n\t"
      "addq %[d], %[s1]\n\t"
      "subq %[d], %[s2]\n\t"
      "addq %[d], %[s4]\n\t"
      "addq %[d], %[s7]\n\t"
      // c10: col0 col1 col5 col7; c11: col0 col1 col3 col6 col7
      "movq 40(%[t]), %[d]\n\t"
      "movl %k[d], %k[c]\n\t"
      "shrq $32, %[d]\n\t"
      "addq %[c], %[s0]\n\t"
      "addq %[c], %[s1]\n\t"
      "addq %[c], %[s5]\n\t"
      "addq %[c], %[s7]\n\t"
      "addq %[d], %[s0]\n\t"
      "addq %[d], %[s1]\n\t"
      "addq %[d], %[s3]\n\t"
      "addq %[d], %[s6]\n\t"
      "addq %[d], %[s7]\n\t"
      // c12: col0 col1 col3 col4 2col7; c13: 2col0 col1 -col2 2col3 col4 col5 2col7
      "movq 48(%[t]), %[d]\n\t"
      "movl %k[d], %k[c]\n\t"
      "shrq $32, %[d]\n\t"
      "addq %[c], %[s0]\n\t"
      "addq %[c], %[s1]\n\t"
      "addq %[c], %[s3]\n\t"
      "addq %[c], %[s4]\n\t"
      "leaq (%[s7],%[c],2), %[s7]\n\t"
      "leaq (%[s0],%[d],2), %[s0]\n\t"
      "addq %[d], %[s1]\n\t"
      "subq %[d], %[s2]\n\t"
      "leaq (%[s3],%[d],2), %[s3]\n\t"
      "addq %[d], %[s4]\n\t"
      "addq %[d], %[s5]\n\t"
      "leaq (%[s7],%[d],2), %[s7]\n\t"
      // c14: 2col0 2col1 -col2 col3 2col4 col5 col6 2col7;
      // c15: 2col0 2col1 col3 col4 2col5 col6 3col7
      "movq 56(%[t]), %[d]\n\t"
      "movl %k[d], %k[c]\n\t"
      "shrq $32, %[d]\n\t"
      "leaq (%[s0],%[c],2), %[s0]\n\t"
      "leaq (%[s1],%[c],2), %[s1]\n\t"
      "subq %[c], %[s2]\n\t"
      "addq %[c], %[s3]\n\t"
      "leaq (%[s4],%[c],2), %[s4]\n\t"
      "addq %[c], %[s5]\n\t"
      "addq %[c], %[s6]\n\t"
      "leaq (%[s7],%[c],2), %[s7]\n\t"
      "leaq (%[s0],%[d],2), %[s0]\n\t"
      "leaq (%[s1],%[d],2), %[s1]\n\t"
      "addq %[d], %[s3]\n\t"
      "addq %[d], %[s4]\n\t"
      "leaq (%[s5],%[d],2), %[s5]\n\t"
      "addq %[d], %[s6]\n\t"
      "leaq (%[s7],%[d],2), %[s7]\n\t"
      "addq %[d], %[s7]\n\t"
      // odd columns straddle two limbs: low halves stay in s1 s3 s5 s7,
      // high halves join the even columns of the next limb; c = top
      "movq %[s1], %[c]\n\t"
      "shrq $32, %[c]\n\t"
      "shlq $32, %[s1]\n\t"
      "addq %[c], %[s2]\n\t"
      "movq %[s3], %[c]\n\t"
      "shrq $32, %[c]\n\t"
      "shlq $32, %[s3]\n\t"
      "addq %[c], %[s4]\n\t"
      "movq %[s5], %[c]\n\t"
      "shrq $32, %[c]\n\t"
      "shlq $32, %[s5]\n\t"
      "addq %[c], %[s6]\n\t"
      "movq %[s7], %[c]\n\t"
      "shrq $32, %[c]\n\t"
      "shlq $32, %[s7]\n\t"
      // z = t_low + even_and_odd_high + odd_low in (s0, s2, s4, s6)
      "addq 0(%[t]), %[s0]\n\t"
      "adcq 8(%[t]), %[s2]\n\t"
      "adcq 16(%[t]), %[s4]\n\t"
      "adcq 24(%[t]), %[s6]\n\t"
      "adcq $0, %[c]\n\t"
      "addq %[s1], %[s0]\n\t"
      "adcq %[s3], %[s2]\n\t"
      "adcq %[s5], %[s4]\n\t"
      "adcq %[s7], %[s6]\n\t"
      "adcq $0, %[c]\n\t"
      // z += top * (2^224 + 2^96 - 2^64 + 1), carry into d
      "movq %[c], %[s1]\n\t"
      "shlq $32, %[s1]\n\t"
      "movq %[s1], %[s3]\n\t"
      "subq %[c], %[s3]\n\t"
      "xorl %k[d], %k[d]\n\t"
      "addq %[c], %[s0]\n\t"
      "adcq %[s3], %[s2]\n\t"
      "adcq $0, %[s4]\n\t"
      "adcq %[s1], %[s6]\n\t"
      "adcq $0, %[d]\n\t"
      // (d, z) - p; keep z where that borrows out
      KS_ASM_SUBTRACT_P_IF_GE(s0, s2, s4, s6, s1, s3, s5, s7, d)
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4),
        [s5] "=&r"(s5), [s6] "=&r"(s6), [s7] "=&r"(s7), [c] "=&r"(c), [d] "=&r"(d)
      : [t] "r"(t), "m"(*(const uint64_t(*)[8])t), [p1] "m"(kP.w[1]), [p3] "m"(kP.w[3])
      : "cc");
  return U256{{s0, s2, s4, s6}};
}
#endif

KS_FIELD_INLINE U256 solinas_reduce(const uint64_t t[8]) {
#if defined(__x86_64__)
  return solinas_reduce_x86(t);
#else
  return solinas_reduce_portable(t);
#endif
}

// Elements held as their plain values, products reduced by Solinas: the
// default representation (field/fp_mont.h has the Montgomery one).
struct SolinasForm {
  static constexpr bool kPlain = true;
  static constexpr U256 kOne = {{1, 0, 0, 0}};
  KS_FIELD_INLINE static U256 reduce(const uint64_t t[8]) { return solinas_reduce(t); }
};

// Whether Wide forms a Montgomery product with its reduction in one piece
// (MontAdx, field/fp_mont_adx.h): FpField's mul and sqr in Montgomery form
// then call its mont_mul and mont_sqr.
template <class Wide, class = void>
struct FusedMontgomery : std::false_type {};
template <class Wide>
struct FusedMontgomery<Wide, std::void_t<decltype(&Wide::mont_mul)>> : std::true_type {};

}  // namespace fp_detail

// The field, generic over how the 512-bit products are formed (Wide:
// MulPortable, MulAdx from field/mul_adx.h, or MontAdx from
// field/fp_mont_adx.h, which also reduces) and over the representation
// of its elements with its reduction (Form: SolinasForm, or MontgomeryForm
// from field/fp_mont.h); everything else is shared.
template <class Wide, class Form = fp_detail::SolinasForm>
struct FpField {
  using Elem = U256;
  static constexpr U256 kModulus = fp_detail::kP;

  static Elem zero() { return U256{{0, 0, 0, 0}}; }
  static Elem one() { return Form::kOne; }

  KS_FIELD_INLINE static Elem add(const Elem& a, const Elem& b) { return mod_add(a, b, kModulus); }
  KS_FIELD_INLINE static Elem sub(const Elem& a, const Elem& b) { return mod_sub(a, b, kModulus); }
  KS_FIELD_INLINE static Elem neg(const Elem& a) { return mod_sub(zero(), a, kModulus); }
  KS_FIELD_INLINE static Elem dbl(const Elem& a) { return mod_add(a, a, kModulus); }
  KS_FIELD_INLINE static Elem half(const Elem& a) { return mod_half(a, kModulus); }

  static constexpr bool kFused = !Form::kPlain && fp_detail::FusedMontgomery<Wide>::value;

  KS_FIELD_INLINE static Elem mul(const Elem& a, const Elem& b) {
    if constexpr (kFused) {
      return Wide::mont_mul(a, b);
    } else {
      uint64_t t[8];
      Wide::mul_wide(t, a, b);
      return Form::reduce(t);
    }
  }
  KS_FIELD_INLINE static Elem sqr(const Elem& a) {
    if constexpr (kFused) {
      return Wide::mont_sqr(a);
    } else {
      uint64_t t[8];
      Wide::sqr_wide(t, a);
      return Form::reduce(t);
    }
  }
  // a^(2^n): n squarings.
  static Elem sqr_n(Elem a, int n) {
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }

  static uint64_t is_zero(const Elem& a) { return is_zero_mask(a); }
  static uint64_t eq(const Elem& a, const Elem& b) { return eq_mask(a, b); }
  static Elem select(uint64_t mask, const Elem& a, const Elem& b) {
    return field::select(mask, a, b);
  }

  // a^-1 (0 for a = 0) by Bernstein and Yang's divsteps (field/safegcd.h:
  // 1.3 us on this core against 2.5 us for the 255S + 14M chain of [ZHU22
  // table 4], field/fp_chain.h, which the GPU fields keep).
  static Elem inv(const Elem& a);
  // A square root of a when one exists (p = 3 mod 4: a^((p+1)/4)); returns an
  // all-ones mask if a is a square, zero otherwise.
  static uint64_t sqrt(Elem& root, const Elem& a);

  // Plain canonical values <-> the representation (a R mod p and a R^-1
  // mod p in Montgomery form, R = 2^256).
  static constexpr bool kPlain = Form::kPlain;
  static Elem from_plain(const U256& a) {
    if constexpr (kPlain) {
      return a;
    } else {
      return mul(a, Form::kR2);
    }
  }
  static U256 to_plain(const Elem& a) {
    if constexpr (kPlain) {
      return a;
    } else {
      const uint64_t t[8] = {a.w[0], a.w[1], a.w[2], a.w[3], 0, 0, 0, 0};
      return Form::reduce(t);
    }
  }

  // Big-endian bytes of the plain value; false if it is not below p (GB/T
  // 32918.1 4.2.9 asks for canonical field elements).
  static bool from_bytes(Elem& r, const uint8_t in[32]) {
    const U256 plain = from_be_bytes(in);
    r = from_plain(plain);
    return lt_mask(plain, kModulus) != 0;
  }
  static void to_bytes(uint8_t out[32], const Elem& a) { to_be_bytes(out, to_plain(a)); }
};

template <class Wide, class Form>
inline U256 FpField<Wide, Form>::inv(const Elem& a) {
  static constexpr SafegcdModulus kModulusForInverse = safegcd_modulus(kModulus);
  // a + 0 reduced: the divsteps take values below p (elements are, but
  // the bound of 590 divsteps is not to rest on that)
  const U256 inverse = safegcd_invert(mod_add(a, zero(), kModulus), kModulusForInverse);
  if constexpr (kPlain) {
    return inverse;
  } else {  // (a R)^-1 = a^-1 R^-1; one product with R^3 gives a^-1 R
    return mul(inverse, Form::kR3);
  }
}

template <class Wide, class Form>
inline uint64_t FpField<Wide, Form>::sqrt(Elem& root, const Elem& a) {
  root = sm2_p_sqrt_candidate<FpField>(a);
  return eq(sqr(root), a);
}

// The portable field; FpAdx (field/mul_adx.h users) is the BMI2/ADX one.
using Fp = FpField<fp_detail::MulPortable>;

}  // namespace field
}  // namespace ks

#if defined(__CUDACC__)
#pragma nv_diagnostic pop
#endif

#endif  // KS_FIELD_FP_H_
