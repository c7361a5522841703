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

// Row 0 of the product: r0..r4 = b[0] * a.
#define KS_MULX_ROW0(r0, r1, r2, r3, r4)         \
  "movq 0(%[b]), %%rdx\n\t"                     \
  "mulxq 0(%[a]), %[" #r0 "], %[" #r1 "]\n\t"    \
  "mulxq 8(%[a]), %[lo], %[" #r2 "]\n\t"         \
  "addq %[lo], %[" #r1 "]\n\t"                  \
  "mulxq 16(%[a]), %[lo], %[" #r3 "]\n\t"        \
  "adcq %[lo], %[" #r2 "]\n\t"                  \
  "mulxq 24(%[a]), %[lo], %[" #r4 "]\n\t"        \
  "adcq %[lo], %[" #r3 "]\n\t"                  \
  "adcq $0, %[" #r4 "]\n\t"

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

// a^2 into t0..t7 (operands [t0]..[t7], [lo], [hi], [a]; rdx clobbered):
// the six cross products a_i a_j (i < j), doubled by an add-to-self chain,
// plus the four squares a_i^2 on the diagonal (10 multiplications instead
// of 16).
#define KS_MULX_SQUARE \
  /* cross products: a0 * (a1, a2, a3) into t1..t4 */ \
  "movq 0(%[a]), %%rdx\n\t"                           \
  "mulxq 8(%[a]), %[t1], %[t2]\n\t"                   \
  "mulxq 16(%[a]), %[lo], %[t3]\n\t"                  \
  "addq %[lo], %[t2]\n\t"                             \
  "mulxq 24(%[a]), %[lo], %[t4]\n\t"                  \
  "adcq %[lo], %[t3]\n\t"                             \
  "adcq $0, %[t4]\n\t"                                \
  /* a1 * (a2, a3) into t3..t5 */                     \
  "movq 8(%[a]), %%rdx\n\t"                           \
  "xorl %k[t5], %k[t5]\n\t"                           \
  "mulxq 16(%[a]), %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[t3]\n\t"                            \
  "adoxq %[hi], %[t4]\n\t"                            \
  "mulxq 24(%[a]), %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[t4]\n\t"                            \
  "adoxq %[t5], %[hi]\n\t"                            \
  "adcxq %[hi], %[t5]\n\t"                            \
  /* a2 * a3 into t5..t6 */                           \
  "movq 16(%[a]), %%rdx\n\t"                          \
  "mulxq 24(%[a]), %[lo], %[t6]\n\t"                  \
  "addq %[lo], %[t5]\n\t"                             \
  "adcq $0, %[t6]\n\t"                                \
  /* double t1..t6 into t1..t7 */                     \
  "xorl %k[t7], %k[t7]\n\t"                           \
  "addq %[t1], %[t1]\n\t"                             \
  "adcq %[t2], %[t2]\n\t"                             \
  "adcq %[t3], %[t3]\n\t"                             \
  "adcq %[t4], %[t4]\n\t"                             \
  "adcq %[t5], %[t5]\n\t"                             \
  "adcq %[t6], %[t6]\n\t"                             \
  "adcq $0, %[t7]\n\t"                                \
  /* add the squares a_i^2 at limbs 2i, 2i+1 */       \
  "movq 0(%[a]), %%rdx\n\t"                           \
  "mulxq %%rdx, %[t0], %[hi]\n\t"                     \
  "addq %[hi], %[t1]\n\t"                             \
  "movq 8(%[a]), %%rdx\n\t"                           \
  "mulxq %%rdx, %[lo], %[hi]\n\t"                     \
  "adcq %[lo], %[t2]\n\t"                             \
  "adcq %[hi], %[t3]\n\t"                             \
  "movq 16(%[a]), %%rdx\n\t"                          \
  "mulxq %%rdx, %[lo], %[hi]\n\t"                     \
  "adcq %[lo], %[t4]\n\t"                             \
  "adcq %[hi], %[t5]\n\t"                             \
  "movq 24(%[a]), %%rdx\n\t"                          \
  "mulxq %%rdx, %[lo], %[hi]\n\t"                     \
  "adcq %[lo], %[t6]\n\t"                             \
  "adcq %[hi], %[t7]\n\t"

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
        KS_MULX_ROW0(x0, x1, x2, x3, x4)
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

  // t[0..7] = a^2 (KS_MULX_SQUARE).
  static KS_FIELD_INLINE void sqr_wide(uint64_t t[8], const U256& a) {
#if defined(KS_CT_MSAN)
    if (ct_is_secret(&a, sizeof a)) {
      sqr_wide(t, ct_public_copy(a));
      return ct_poison(t, 64);
    }
#endif
    uint64_t r0, r1, r2, r3, r4, r5, r6, r7, lo, hi;
    __asm__(
        KS_MULX_SQUARE
        : [t0] "=&r"(r0), [t1] "=&r"(r1), [t2] "=&r"(r2), [t3] "=&r"(r3), [t4] "=&r"(r4),
          [t5] "=&r"(r5), [t6] "=&r"(r6), [t7] "=&r"(r7), [lo] "=&r"(lo), [hi] "=&r"(hi)
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
