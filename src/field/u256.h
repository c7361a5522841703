// 256-bit unsigned integers as four little-endian 64-bit limbs: the carry
// chains, constant-time masks and byte encodings that both prime fields of
// SM2 (coordinates mod p, scalars mod n) are built on. Every function here is
// branch-free in its data; the only loops run a fixed four times.
#ifndef KS_FIELD_U256_H_
#define KS_FIELD_U256_H_

// nvcc's front end (the host code of a .cu file including this) takes the
// outputs of the x86-64 asm blocks below for unused variables.
#if defined(__CUDACC__)
#pragma nv_diagnostic push
#pragma nv_diag_suppress 550
#endif

#include <stdint.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "core/hd.h"
#include "core/secure.h"

// Forced inlining for the hot field primitives: the point formulas must see
// them as straight-line code. (gcc judges an asm block by its line count and
// had left add/sub and the reductions out of line, each call passing its
// 256-bit result through memory: forcing them made verification 15% faster.)
#define KS_FIELD_INLINE inline __attribute__((always_inline))

// KS_UNROLL (core/hd.h) completes the unrolling of the fixed four-limb
// loops (gcc leaves them rolled at -O2, which costs several times the
// arithmetic).

namespace ks {
namespace field {

using u128 = unsigned __int128;

struct U256 {
  uint64_t w[4];  // w[0] least significant
};

// One limb of a carry chain: returns a + b + carry_in, sets carry_out.
// _addcarry_u64/_subborrow_u64 make gcc and clang emit adc/sbb chains.
// (MemorySanitizer checks the carry intrinsics' operands strictly, as it
// does inline assembly: the constant-time check build takes the u128 form,
// which computes the same without a branch.)
inline uint64_t addc(uint64_t a, uint64_t b, uint64_t carry_in, uint64_t* carry_out) {
#if defined(__x86_64__) && !defined(KS_CT_MSAN)
  unsigned long long r;
  *carry_out = _addcarry_u64((unsigned char)carry_in, a, b, &r);
  return r;
#else
  const u128 s = u128(a) + b + carry_in;
  *carry_out = uint64_t(s >> 64);
  return uint64_t(s);
#endif
}

inline uint64_t subb(uint64_t a, uint64_t b, uint64_t borrow_in, uint64_t* borrow_out) {
#if defined(__x86_64__) && !defined(KS_CT_MSAN)
  unsigned long long r;
  *borrow_out = _subborrow_u64((unsigned char)borrow_in, a, b, &r);
  return r;
#else
  const u128 d = u128(a) - b - borrow_in;
  *borrow_out = uint64_t(d >> 64) & 1;
  return uint64_t(d);
#endif
}

// r = a + b; returns the carry out (0 or 1).
inline uint64_t add_carry(U256& r, const U256& a, const U256& b) {
  uint64_t carry = 0;
  KS_UNROLL for (int i = 0; i < 4; ++i) r.w[i] = addc(a.w[i], b.w[i], carry, &carry);
  return carry;
}

// 2^e mod m for a modulus m > 2^255, by doubling from 1: compile time only
// (the Montgomery constants of both SM2 fields are derived with it, so no
// constant is pasted).
constexpr U256 pow2_mod(int e, const U256& m) {
  U256 r{{1, 0, 0, 0}};
  for (int i = 0; i < e; ++i) {
    const uint64_t top = r.w[3] >> 63;
    for (int j = 3; j > 0; --j) r.w[j] = (r.w[j] << 1) | (r.w[j - 1] >> 63);
    r.w[0] <<= 1;
    U256 d{};
    u128 borrow = 0;
    for (int j = 0; j < 4; ++j) {
      const u128 diff = u128(r.w[j]) - m.w[j] - borrow;
      d.w[j] = uint64_t(diff);
      borrow = (diff >> 64) & 1;
    }
    if (top != 0 || borrow == 0) r = d;  // 2r >= m: subtract it
  }
  return r;
}

// r = a - b; returns the borrow out (0 or 1).
inline uint64_t sub_borrow(U256& r, const U256& a, const U256& b) {
  uint64_t borrow = 0;
  KS_UNROLL for (int i = 0; i < 4; ++i) r.w[i] = subb(a.w[i], b.w[i], borrow, &borrow);
  return borrow;
}

// mask ? a : b, mask all ones or zero.
inline U256 select(uint64_t mask, const U256& a, const U256& b) {
  U256 r;
  KS_UNROLL for (int i = 0; i < 4; ++i) r.w[i] = ct_select(mask, a.w[i], b.w[i]);
  return r;
}

// All ones if a == 0.
inline uint64_t is_zero_mask(const U256& a) {
  return ct_is_zero_mask(a.w[0] | a.w[1] | a.w[2] | a.w[3]);
}

inline uint64_t eq_mask(const U256& a, const U256& b) {
  return ct_is_zero_mask((a.w[0] ^ b.w[0]) | (a.w[1] ^ b.w[1]) | (a.w[2] ^ b.w[2]) |
                         (a.w[3] ^ b.w[3]));
}

// All ones if a < b (the borrow of a - b).
inline uint64_t lt_mask(const U256& a, const U256& b) {
  U256 unused;
  return uint64_t(0) - sub_borrow(unused, a, b);
}

// a < b with an early exit, for public values only (verification's range
// checks, the lattice reduction of field/sc25519_lattice.h); KS_HD, for
// the GPU verifier too.
KS_HD bool less_vartime(const U256& a, const U256& b) {
  for (int i = 3; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
  return false;
}

// r = a + carry * 2^256 reduced once by m, for a + carry*2^256 < 2m: the
// conditional subtraction every modular add/sub ends with.
inline U256 subtract_if_ge(const U256& a, uint64_t carry, const U256& m) {
  U256 d;
  const uint64_t borrow = sub_borrow(d, a, m);
  // keep a when a < m, i.e. the subtraction borrowed and there was no carry
  const uint64_t keep_a = uint64_t(0) - (borrow & (carry ^ 1));
  return select(keep_a, a, d);
}

#if defined(__x86_64__)
// Operands: a in registers (updated in place), b and the modulus through
// one pointer each, which keeps the register count low enough for any
// optimization level (-O0 included).
// Modular add/sub as straight-line x86-64: gcc turns the portable versions
// below into twice the instructions (it re-materializes every carry), and
// the point formulas do about as many of these as multiplications.

// (a + b) mod m for a, b < m: r = a + b, then r - m unless that borrows past
// the carry (cmov, no branch).
KS_FIELD_INLINE U256 mod_add(const U256& a, const U256& b, const U256& m) {
  KS_CT_ASM_GUARD(mod_add, a, b, m);
  uint64_t r0 = a.w[0], r1 = a.w[1], r2 = a.w[2], r3 = a.w[3], d0, d1, d2, d3, carry;
  __asm__(
      "xorl %k[c], %k[c]\n\t"
      "addq 0(%[b]), %[r0]\n\t"
      "adcq 8(%[b]), %[r1]\n\t"
      "adcq 16(%[b]), %[r2]\n\t"
      "adcq 24(%[b]), %[r3]\n\t"
      "adcq $0, %[c]\n\t"
      "movq %[r0], %[d0]\n\t"
      "movq %[r1], %[d1]\n\t"
      "movq %[r2], %[d2]\n\t"
      "movq %[r3], %[d3]\n\t"
      "subq 0(%[m]), %[d0]\n\t"
      "sbbq 8(%[m]), %[d1]\n\t"
      "sbbq 16(%[m]), %[d2]\n\t"
      "sbbq 24(%[m]), %[d3]\n\t"
      "sbbq $0, %[c]\n\t"
      "cmovncq %[d0], %[r0]\n\t"
      "cmovncq %[d1], %[r1]\n\t"
      "cmovncq %[d2], %[r2]\n\t"
      "cmovncq %[d3], %[r3]\n\t"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [d0] "=&r"(d0),
        [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3), [c] "=&r"(carry)
      : [b] "r"(b.w), [m] "r"(m.w), "m"(b), "m"(m)
      : "cc");
  return U256{{r0, r1, r2, r3}};
}

// r0..r3 += m masked by the all-ones-or-zero m3 (m0..m3 scratch); leaves
// the carry out in CF. Shared by mod_sub and mod_half.
#define KS_ADD_MASKED_MODULUS              \
  "movq %[m3], %[m0]\n\t"                  \
  "movq %[m3], %[m1]\n\t"                  \
  "movq %[m3], %[m2]\n\t"                  \
  "andq 0(%[m]), %[m0]\n\t"                \
  "andq 8(%[m]), %[m1]\n\t"                \
  "andq 16(%[m]), %[m2]\n\t"               \
  "andq 24(%[m]), %[m3]\n\t"               \
  "addq %[m0], %[r0]\n\t"                  \
  "adcq %[m1], %[r1]\n\t"                  \
  "adcq %[m2], %[r2]\n\t"                  \
  "adcq %[m3], %[r3]\n\t"

// (a - b) mod m for a, b < m: r = a - b, plus m masked by the borrow.
KS_FIELD_INLINE U256 mod_sub(const U256& a, const U256& b, const U256& m) {
  KS_CT_ASM_GUARD(mod_sub, a, b, m);
  uint64_t r0 = a.w[0], r1 = a.w[1], r2 = a.w[2], r3 = a.w[3], m0, m1, m2, m3;
  __asm__(
      "subq 0(%[b]), %[r0]\n\t"
      "sbbq 8(%[b]), %[r1]\n\t"
      "sbbq 16(%[b]), %[r2]\n\t"
      "sbbq 24(%[b]), %[r3]\n\t"
      "sbbq %[m3], %[m3]\n\t"
      KS_ADD_MASKED_MODULUS
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [m0] "=&r"(m0),
        [m1] "=&r"(m1), [m2] "=&r"(m2), [m3] "=&r"(m3)
      : [b] "r"(b.w), [m] "r"(m.w), "m"(b), "m"(m)
      : "cc");
  return U256{{r0, r1, r2, r3}};
}

// a / 2 mod m for odd m and a < m: a + m where a is odd (an even sum below
// 2m < 2^257; the mask is the low bit's), then rotated right one bit
// through the carry, which enters at the top.
KS_FIELD_INLINE U256 mod_half(const U256& a, const U256& m) {
  KS_CT_ASM_GUARD(mod_half, a, m);
  uint64_t r0 = a.w[0], r1 = a.w[1], r2 = a.w[2], r3 = a.w[3], m0, m1, m2, m3;
  __asm__(
      "movq %[r0], %[m3]\n\t"
      "andl $1, %k[m3]\n\t"
      "negq %[m3]\n\t"
      KS_ADD_MASKED_MODULUS
      "rcrq $1, %[r3]\n\t"
      "rcrq $1, %[r2]\n\t"
      "rcrq $1, %[r1]\n\t"
      "rcrq $1, %[r0]\n\t"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [m0] "=&r"(m0),
        [m1] "=&r"(m1), [m2] "=&r"(m2), [m3] "=&r"(m3)
      : [m] "r"(m.w), "m"(m)
      : "cc");
  return U256{{r0, r1, r2, r3}};
}
#undef KS_ADD_MASKED_MODULUS
#else
// (a + b) mod m for a, b < m.
inline U256 mod_add(const U256& a, const U256& b, const U256& m) {
  U256 s;
  const uint64_t carry = add_carry(s, a, b);
  return subtract_if_ge(s, carry, m);
}

// (a - b) mod m for a, b < m.
inline U256 mod_sub(const U256& a, const U256& b, const U256& m) {
  U256 d, m_if_borrow, r;
  const uint64_t borrow_mask = uint64_t(0) - sub_borrow(d, a, b);
  KS_UNROLL for (int i = 0; i < 4; ++i) m_if_borrow.w[i] = m.w[i] & borrow_mask;
  add_carry(r, d, m_if_borrow);
  return r;
}

// a / 2 mod m for odd m and a < m: a + m when a is odd (an even sum, below
// 2m < 2^257), then one bit to the right with the carry shifted into the top.
inline U256 mod_half(const U256& a, const U256& m) {
  const uint64_t odd_mask = uint64_t(0) - (a.w[0] & 1);
  U256 m_if_odd, s;
  KS_UNROLL for (int i = 0; i < 4; ++i) m_if_odd.w[i] = m.w[i] & odd_mask;
  const uint64_t carry = add_carry(s, a, m_if_odd);
  KS_UNROLL for (int i = 0; i < 3; ++i) s.w[i] = (s.w[i] >> 1) | (s.w[i + 1] << 63);
  s.w[3] = (s.w[3] >> 1) | (carry << 63);
  return s;
}
#endif

// 32 big-endian bytes (the encoding of GB/T 32918.1 clause 4.2) <-> limbs.
inline U256 from_be_bytes(const uint8_t in[32]) {
  U256 r;
  for (int i = 0; i < 4; ++i) {
    uint64_t limb = 0;
    for (int j = 0; j < 8; ++j) limb = (limb << 8) | in[(3 - i) * 8 + j];
    r.w[i] = limb;
  }
  return r;
}

inline void to_be_bytes(uint8_t out[32], const U256& a) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) out[(3 - i) * 8 + j] = uint8_t(a.w[i] >> (56 - 8 * j));
}

// Bits [pos, pos + width) of a, width <= 57; bits past 255 read as zero.
// pos is public (a loop counter), so indexing by it leaks nothing.
inline uint64_t bit_window(const U256& a, int pos, int width) {
  const int limb = pos >> 6, shift = pos & 63;
  if (limb >= 4) return 0;
  uint64_t bits = a.w[limb] >> shift;
  if (shift != 0 && limb + 1 < 4) bits |= a.w[limb + 1] << (64 - shift);
  return bits & ((uint64_t(1) << width) - 1);
}

}  // namespace field
}  // namespace ks

#if defined(__CUDACC__)
#pragma nv_diagnostic pop
#endif

#endif  // KS_FIELD_U256_H_
