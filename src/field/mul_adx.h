// 256x256 -> 512-bit product with MULX/ADCX/ADOX (BMI2 + ADX): two
// independent carry chains per row, which the portable __int128 code cannot
// express. Only called after cpu_features() reported bmi2 and adx (the
// assembler accepts the instructions without -madx, so no special flags).
#ifndef KS_FIELD_MUL_ADX_H_
#define KS_FIELD_MUL_ADX_H_

#include <stdint.h>

#include "field/fp.h"
#include "field/u256.h"

#if defined(__x86_64__)
#define KS_HAVE_MUL_ADX 1

namespace ks {
namespace field {

// Row i >= 1 of the product: rI..rI3 += b[i] * a (low halves through the
// CF chain, high halves through OF), rI4 = the row's top limb plus both
// carries. The xor clears CF and OF.
#define KS_MULX_ROW(b_offset, rI, rI1, rI2, rI3, rI4) \
  "movq " #b_offset "(%[b]), %%rdx\n\t"              \
  "xorl %k[" #rI4 "], %k[" #rI4 "]\n\t"              \
  "mulxq 0(%[a]), %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[" #rI "]\n\t"                      \
  "adoxq %[hi], %[" #rI1 "]\n\t"                     \
  "mulxq 8(%[a]), %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[" #rI1 "]\n\t"                     \
  "adoxq %[hi], %[" #rI2 "]\n\t"                     \
  "mulxq 16(%[a]), %[lo], %[hi]\n\t"                 \
  "adcxq %[lo], %[" #rI2 "]\n\t"                     \
  "adoxq %[hi], %[" #rI3 "]\n\t"                     \
  "mulxq 24(%[a]), %[lo], %[hi]\n\t"                 \
  "adcxq %[lo], %[" #rI3 "]\n\t"                     \
  "adoxq %[" #rI4 "], %[hi]\n\t"                     \
  "adcxq %[hi], %[" #rI4 "]\n\t"

struct MulAdx {
  // t[0..7] = a * b, operand scanning: row i adds b[i] * a into limbs
  // i..i+4. Five accumulator registers rotate: a row's lowest limb is final,
  // goes to t[i], and its register becomes the next row's top limb (eleven
  // registers in all, so the block compiles at -O0 and with a frame pointer).
  static KS_FIELD_INLINE void mul_wide(uint64_t t[8], const U256& a, const U256& b) {
#if defined(KS_CT_MSAN)
    if (ct_any_secret(a, b)) {  // see KS_CT_ASM_GUARD (core/secure.h)
      mul_wide(t, ct_public_copy(a), ct_public_copy(b));
      return ct_poison(t, 64);
    }
#endif
    uint64_t x0, x1, x2, x3, x4, lo, hi;
    __asm__(
        // row 0: x0..x4 = b[0] * a
        "movq 0(%[b]), %%rdx\n\t"
        "mulxq 0(%[a]), %[x0], %[x1]\n\t"
        "mulxq 8(%[a]), %[lo], %[x2]\n\t"
        "addq %[lo], %[x1]\n\t"
        "mulxq 16(%[a]), %[lo], %[x3]\n\t"
        "adcq %[lo], %[x2]\n\t"
        "mulxq 24(%[a]), %[lo], %[x4]\n\t"
        "adcq %[lo], %[x3]\n\t"
        "adcq $0, %[x4]\n\t"
        "movq %[x0], 0(%[t])\n\t"
        KS_MULX_ROW(8, x1, x2, x3, x4, x0)
        "movq %[x1], 8(%[t])\n\t"
        KS_MULX_ROW(16, x2, x3, x4, x0, x1)
        "movq %[x2], 16(%[t])\n\t"
        KS_MULX_ROW(24, x3, x4, x0, x1, x2)
        "movq %[x3], 24(%[t])\n\t"
        "movq %[x4], 32(%[t])\n\t"
        "movq %[x0], 40(%[t])\n\t"
        "movq %[x1], 48(%[t])\n\t"
        "movq %[x2], 56(%[t])\n\t"
        : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4),
          [lo] "=&r"(lo), [hi] "=&r"(hi), "=m"(*(uint64_t(*)[8])t)
        : [a] "r"(a.w), [b] "r"(b.w), [t] "r"(t), "m"(a), "m"(b)
        : "rdx", "cc");
#if defined(KS_CT_MSAN)
    ct_declassify(t, 64);  // MSan does not see the assembly's stores to t
#endif
  }

  // t[0..7] = a^2: the six cross products a_i a_j (i < j), doubled by an
  // add-to-self chain, plus the four squares a_i^2 on the diagonal
  // (10 multiplications instead of 16).
  static KS_FIELD_INLINE void sqr_wide(uint64_t t[8], const U256& a) {
#if defined(KS_CT_MSAN)
    if (ct_is_secret(&a, sizeof a)) {
      sqr_wide(t, ct_public_copy(a));
      return ct_poison(t, 64);
    }
#endif
    uint64_t r0, r1, r2, r3, r4, r5, r6, r7, lo, hi;
    __asm__(
        // cross products: a0 * (a1, a2, a3) into r1..r4
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq 8(%[a]), %[r1], %[r2]\n\t"
        "mulxq 16(%[a]), %[lo], %[r3]\n\t"
        "addq %[lo], %[r2]\n\t"
        "mulxq 24(%[a]), %[lo], %[r4]\n\t"
        "adcq %[lo], %[r3]\n\t"
        "adcq $0, %[r4]\n\t"
        // a1 * (a2, a3) into r3..r5
        "movq 8(%[a]), %%rdx\n\t"
        "xorl %k[r5], %k[r5]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adcxq %[lo], %[r3]\n\t"
        "adoxq %[hi], %[r4]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adcxq %[lo], %[r4]\n\t"
        "adoxq %[r5], %[hi]\n\t"
        "adcxq %[hi], %[r5]\n\t"
        // a2 * a3 into r5..r6
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq 24(%[a]), %[lo], %[r6]\n\t"
        "addq %[lo], %[r5]\n\t"
        "adcq $0, %[r6]\n\t"
        // double r1..r6 into r1..r7
        "xorl %k[r7], %k[r7]\n\t"
        "addq %[r1], %[r1]\n\t"
        "adcq %[r2], %[r2]\n\t"
        "adcq %[r3], %[r3]\n\t"
        "adcq %[r4], %[r4]\n\t"
        "adcq %[r5], %[r5]\n\t"
        "adcq %[r6], %[r6]\n\t"
        "adcq $0, %[r7]\n\t"
        // add the squares a_i^2 at limbs 2i, 2i+1
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[r0], %[hi]\n\t"
        "addq %[hi], %[r1]\n\t"
        "movq 8(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adcq %[lo], %[r2]\n\t"
        "adcq %[hi], %[r3]\n\t"
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adcq %[lo], %[r4]\n\t"
        "adcq %[hi], %[r5]\n\t"
        "movq 24(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adcq %[lo], %[r6]\n\t"
        "adcq %[hi], %[r7]\n\t"
        : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
          [r5] "=&r"(r5), [r6] "=&r"(r6), [r7] "=&r"(r7), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : [a] "r"(a.w), "m"(a)
        : "rdx", "cc");
    t[0] = r0, t[1] = r1, t[2] = r2, t[3] = r3, t[4] = r4, t[5] = r5, t[6] = r6, t[7] = r7;
  }
};

// (KS_MULX_ROW stays defined: field/fe25519_adx.h uses the same rows.)

// GF(p) with the MULX/ADX products; same elements as Fp.
using FpAdx = FpField<MulAdx>;

}  // namespace field
}  // namespace ks

#endif  // __x86_64__
#endif  // KS_FIELD_MUL_ADX_H_
