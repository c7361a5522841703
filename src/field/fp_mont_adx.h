// The SM2 field's Montgomery product and square as one block of MULX/ADX
// assembly each (issue 13): the 512-bit product stays in eight registers
// and the two reduction pairs of field/fp_mont.h, the addition of its high
// half and the conditional subtraction of p follow in the same block, so
// nothing goes through memory between the product and the reduced result
// (MulAdx's mul_wide stores t[0..7] and mont_reduce_x86 loads it back:
// eight stores, eight loads and a store-forwarding delay on the dependent
// chain of every product).
//
// Measured on the Zen 4 EPYC (tools/sm2_field_micro.cc and
// bench/peers/): four independent chains, product 37.7-39.2 cycles over six
// runs against the two passes' 40.0, square 34.0-35.6 against 35.8-36.0; one
// dependent chain ~54 against ~52 (the reduction's carry chains wait for the whole
// product either way). OpenSSL's P-256 assembly (ecp_nistz256, MULX/ADX) on
// the same core: 44.2-44.8 and 37.5 (four chains), 48.8-50.6 and 43.9-44.3
// (one). SM2 keygen +1-2%, verification +3-5% (sm2_micro, alternated).
//
// Thirteen registers a block (t0..t7, lo, hi, the two operand pointers and
// rdx); the pointers become the reduction's scratch once the product is
// formed. That leaves one of the fourteen a frame pointer leaves, so the
// operands' reads are declared by a "memory" clobber rather than by "m"
// operands, for which clang would want base registers of its own (it
// refused the block with a frame pointer at -O2 that way); like this it
// compiles in every build here, clang's -O0 ASan one included.
#ifndef KS_FIELD_FP_MONT_ADX_H_
#define KS_FIELD_FP_MONT_ADX_H_

#include <stdint.h>

#include "core/secure.h"
#include "field/fp_mont.h"
#include "field/mul_adx.h"

#if defined(KS_HAVE_MUL_ADX)
#define KS_HAVE_MONT_ADX 1

namespace ks {
namespace field {

// After the product sits in t0..t7: the low half's four Montgomery steps
// (two pairs; the pointers a and b are dead and serve as scratch z and m),
// plus the high half, then (carry, sum) - p kept where it does not borrow.
// The result is in t4..t7.
#define KS_MONT_ADX_REDUCE                      \
  KS_MONT_PAIR(t0, t1, t2, t3, b, lo, hi, a)   \
  KS_MONT_PAIR(t2, t3, t0, b, t1, lo, hi, a)   \
  "xorl %k[t3], %k[t3]\n\t"                     \
  "addq %[t0], %[t4]\n\t"                       \
  "adcq %[b], %[t5]\n\t"                        \
  "adcq %[t2], %[t6]\n\t"                       \
  "adcq %[t1], %[t7]\n\t"                       \
  "adcq $0, %[t3]\n\t"                          \
  KS_ASM_SUBTRACT_P_IF_GE(t4, t5, t6, t7, t0, b, t2, t1, t3)

struct MontAdx : MulAdx {
  // a b R^-1 mod p for a, b < p (R = 2^256), canonical.
  static KS_FIELD_INLINE U256 mont_mul(const U256& a, const U256& b) {
    KS_CT_ASM_GUARD(mont_mul, a, b);
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi;
    const uint64_t* ap = a.w;
    const uint64_t* bp = b.w;
    __asm__(
        KS_MULX_ROW0(t0, t1, t2, t3, t4)
        KS_MULX_ROW(8, t1, t2, t3, t4, t5)
        KS_MULX_ROW(16, t2, t3, t4, t5, t6)
        KS_MULX_ROW(24, t3, t4, t5, t6, t7)
        KS_MONT_ADX_REDUCE
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi),
          [a] "+&r"(ap), [b] "+&r"(bp)
        : [p1] "m"(fp_detail::kP.w[1]), [p3] "m"(fp_detail::kP.w[3])
        : "rdx", "cc", "memory");
    return U256{{t4, t5, t6, t7}};
  }

  // a^2 R^-1 mod p (KS_MULX_SQUARE, then the same reduction; b is scratch).
  static KS_FIELD_INLINE U256 mont_sqr(const U256& a) {
    KS_CT_ASM_GUARD(mont_sqr, a);
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, scratch;
    const uint64_t* ap = a.w;
    __asm__(
        KS_MULX_SQUARE
        KS_MONT_ADX_REDUCE
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi),
          [a] "+&r"(ap), [b] "=&r"(scratch)
        : [p1] "m"(fp_detail::kP.w[1]), [p3] "m"(fp_detail::kP.w[3])
        : "rdx", "cc", "memory");
    return U256{{t4, t5, t6, t7}};
  }
};

#undef KS_MONT_ADX_REDUCE

}  // namespace field
}  // namespace ks

#endif  // KS_HAVE_MUL_ADX
#endif  // KS_FIELD_FP_MONT_ADX_H_
