// The arithmetic core of GF(2^255 - 19) in x86-64 assembly with MULX/ADCX/
// ADOX (BMI2 + ADX; only used after cpu_features() reported them): the
// 512-bit product in eight registers with two carry chains per row (the rows
// of field/mul_adx.h), and the reduction 2^256 = 38 (mod p) fused into the
// same block, so no product passes through memory. add and sub fold their
// carry or borrow as 38 with a mask instead of a branch. Elements are the
// weakly reduced values of field/fe25519.h (below 2^256).
#ifndef KS_FIELD_FE25519_ADX_H_
#define KS_FIELD_FE25519_ADX_H_

#include <stdint.h>

#include "field/fe25519.h"
#include "field/mul_adx.h"

#if defined(KS_HAVE_MUL_ADX)

namespace ks {
namespace field {
namespace fe25519_detail {

// t0..t3 += 38 t4..t7, the top word going to t4 (at most 38), then
// t0..t3 += 38 t4, and a last carry out of 2^256 folded as 38 into t0 (it
// cannot carry further: the value is then below 38 * 39). Flags are cleared
// by the xor; hi is zeroed with a mov, which leaves them alone.
#define KS_FE25519_FOLD38                          \
  "movl $38, %%edx\n\t"                            \
  "xorl %k[lo], %k[lo]\n\t"                        \
  "mulxq %[t4], %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[t0]\n\t"                         \
  "adoxq %[hi], %[t1]\n\t"                         \
  "mulxq %[t5], %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[t1]\n\t"                         \
  "adoxq %[hi], %[t2]\n\t"                         \
  "mulxq %[t6], %[lo], %[hi]\n\t"                  \
  "adcxq %[lo], %[t2]\n\t"                         \
  "adoxq %[hi], %[t3]\n\t"                         \
  "mulxq %[t7], %[lo], %[t4]\n\t"                  \
  "adcxq %[lo], %[t3]\n\t"                         \
  "movl $0, %k[hi]\n\t"                            \
  "adoxq %[hi], %[t4]\n\t"                         \
  "adcxq %[hi], %[t4]\n\t"                         \
  "imulq $38, %[t4], %[t4]\n\t"                    \
  "addq %[t4], %[t0]\n\t"                          \
  "adcq $0, %[t1]\n\t"                             \
  "adcq $0, %[t2]\n\t"                             \
  "adcq $0, %[t3]\n\t"                             \
  "sbbq %[lo], %[lo]\n\t"                          \
  "andq $38, %[lo]\n\t"                            \
  "addq %[lo], %[t0]\n\t"

// mul and sqr read their operands through pointers with a "memory"
// clobber and no memory operands, so they are volatile: gcc -O3 otherwise
// treats two such statements with the same pointer inputs as the same
// value (it merged and hoisted the squarings of inversion chains and
// ladders, whose temporaries sit at the same stack addresses).
struct AdxCore {
  static KS_FIELD_INLINE U256 mul(const U256& a, const U256& b) {
    KS_CT_ASM_GUARD(mul, a, b);
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi;
    __asm__ __volatile__(
        // row 0: t0..t4 = b[0] * a
        "movq 0(%[b]), %%rdx\n\t"
        "mulxq 0(%[a]), %[t0], %[t1]\n\t"
        "mulxq 8(%[a]), %[lo], %[t2]\n\t"
        "addq %[lo], %[t1]\n\t"
        "mulxq 16(%[a]), %[lo], %[t3]\n\t"
        "adcq %[lo], %[t2]\n\t"
        "mulxq 24(%[a]), %[lo], %[t4]\n\t"
        "adcq %[lo], %[t3]\n\t"
        "adcq $0, %[t4]\n\t"
        KS_MULX_ROW(8, t1, t2, t3, t4, t5)
        KS_MULX_ROW(16, t2, t3, t4, t5, t6)
        KS_MULX_ROW(24, t3, t4, t5, t6, t7)
        KS_FE25519_FOLD38
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : [a] "r"(a.w), [b] "r"(b.w)
        : "rdx", "cc", "memory");
    return U256{{t0, t1, t2, t3}};
  }

  // The square with the six cross products once (doubled by an add-to-self
  // chain) and the four squares on the diagonal, as MulAdx::sqr_wide, then
  // the same fold.
  static KS_FIELD_INLINE U256 sqr(const U256& a) {
    KS_CT_ASM_GUARD(sqr, a);
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi;
    __asm__ __volatile__(
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq 8(%[a]), %[t1], %[t2]\n\t"
        "mulxq 16(%[a]), %[lo], %[t3]\n\t"
        "addq %[lo], %[t2]\n\t"
        "mulxq 24(%[a]), %[lo], %[t4]\n\t"
        "adcq %[lo], %[t3]\n\t"
        "adcq $0, %[t4]\n\t"
        "movq 8(%[a]), %%rdx\n\t"
        "xorl %k[t5], %k[t5]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[t5], %[hi]\n\t"
        "adcxq %[hi], %[t5]\n\t"
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq 24(%[a]), %[lo], %[t6]\n\t"
        "addq %[lo], %[t5]\n\t"
        "adcq $0, %[t6]\n\t"
        "xorl %k[t7], %k[t7]\n\t"
        "addq %[t1], %[t1]\n\t"
        "adcq %[t2], %[t2]\n\t"
        "adcq %[t3], %[t3]\n\t"
        "adcq %[t4], %[t4]\n\t"
        "adcq %[t5], %[t5]\n\t"
        "adcq %[t6], %[t6]\n\t"
        "adcq $0, %[t7]\n\t"
        "movq 0(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[t0], %[hi]\n\t"
        "addq %[hi], %[t1]\n\t"
        "movq 8(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adcq %[lo], %[t2]\n\t"
        "adcq %[hi], %[t3]\n\t"
        "movq 16(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adcq %[lo], %[t4]\n\t"
        "adcq %[hi], %[t5]\n\t"
        "movq 24(%[a]), %%rdx\n\t"
        "mulxq %%rdx, %[lo], %[hi]\n\t"
        "adcq %[lo], %[t6]\n\t"
        "adcq %[hi], %[t7]\n\t"
        KS_FE25519_FOLD38
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : [a] "r"(a.w)
        : "rdx", "cc", "memory");
    return U256{{t0, t1, t2, t3}};
  }

  // a + b, the carry out of 2^256 folded in twice as 38 (the second fold
  // cannot carry).
  static KS_FIELD_INLINE U256 add(const U256& a, const U256& b) {
    KS_CT_ASM_GUARD(add, a, b);
    uint64_t r0 = a.w[0], r1 = a.w[1], r2 = a.w[2], r3 = a.w[3], m;
    __asm__(
        "addq 0(%[b]), %[r0]\n\t"
        "adcq 8(%[b]), %[r1]\n\t"
        "adcq 16(%[b]), %[r2]\n\t"
        "adcq 24(%[b]), %[r3]\n\t"
        "sbbq %[m], %[m]\n\t"
        "andq $38, %[m]\n\t"
        "addq %[m], %[r0]\n\t"
        "adcq $0, %[r1]\n\t"
        "adcq $0, %[r2]\n\t"
        "adcq $0, %[r3]\n\t"
        "sbbq %[m], %[m]\n\t"
        "andq $38, %[m]\n\t"
        "addq %[m], %[r0]\n\t"
        : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [m] "=&r"(m)
        : [b] "r"(b.w), "m"(b)
        : "cc");
    return U256{{r0, r1, r2, r3}};
  }

  // a - b, the borrow past 2^256 taken back as 38 twice (the second cannot
  // borrow).
  static KS_FIELD_INLINE U256 sub(const U256& a, const U256& b) {
    KS_CT_ASM_GUARD(sub, a, b);
    uint64_t r0 = a.w[0], r1 = a.w[1], r2 = a.w[2], r3 = a.w[3], m;
    __asm__(
        "subq 0(%[b]), %[r0]\n\t"
        "sbbq 8(%[b]), %[r1]\n\t"
        "sbbq 16(%[b]), %[r2]\n\t"
        "sbbq 24(%[b]), %[r3]\n\t"
        "sbbq %[m], %[m]\n\t"
        "andq $38, %[m]\n\t"
        "subq %[m], %[r0]\n\t"
        "sbbq $0, %[r1]\n\t"
        "sbbq $0, %[r2]\n\t"
        "sbbq $0, %[r3]\n\t"
        "sbbq %[m], %[m]\n\t"
        "andq $38, %[m]\n\t"
        "subq %[m], %[r0]\n\t"
        : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [m] "=&r"(m)
        : [b] "r"(b.w), "m"(b)
        : "cc");
    return U256{{r0, r1, r2, r3}};
  }
};

#undef KS_FE25519_FOLD38

}  // namespace fe25519_detail

using Fe25519Adx = Fe25519Field<fe25519_detail::AdxCore>;

}  // namespace field
}  // namespace ks

#endif  // KS_HAVE_MUL_ADX
#endif  // KS_FIELD_FE25519_ADX_H_
