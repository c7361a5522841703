// The SM2 coordinate field GF(p), p = 2^256 - 2^224 - 2^96 + 2^64 - 1, on
// the GPU: eight little-endian 32-bit limbs, products and carries through
// PTX carry chains ([ZHU22 table 2]: add.cc/addc, sub.cc/subc, and
// mad.lo.cc/madc.hi.cc), every element kept canonical in [0, p).
//
// FpGpu is the field policy of curve/jacobian.h (the interface of
// field/fp.h: Elem; zero/one; add/sub/neg/dbl; mul/sqr; inv; is_zero/eq ->
// all-ones uint64_t mask; select; half), so the point formulas written there run
// unchanged on the device. Everything is branch-free in the data: masks and
// selects (LOP3/SEL), never a data-dependent jump or memory index.
//
// Reduction: the Solinas fast reduction of [ZHU22 table 1], gathered per
// column as in field/fp.h (solinas_reduce_portable, whose column formulas
// and redundant-p bias this mirrors), then table 3's one-step final
// reduction; T[n] = n (2^256 - p) is formed arithmetically instead of being
// read from a table (a table read indexed by the value would leak it).
#ifndef KS_FIELD_FP_GPU_CUH_
#define KS_FIELD_FP_GPU_CUH_

#include <stdint.h>

#include "field/fp_chain.h"

namespace ks {
namespace field {

// Eight 32-bit limbs, w[0] least significant: the same bytes as U256 on a
// little-endian host.
struct U32x8 {
  uint32_t w[8];
};

namespace gpu_detail {

#define KS_DEV __device__ __forceinline__

// --- PTX carry-chain primitives ([ZHU22 table 2]) ---------------------------
// Each is one volatile asm statement, so the compiler keeps their order and
// the carry flag flows from one to the next; a chain starts with a *_cc
// instruction without carry-in and ends with one without .cc.
#define KS_PTX_ADD(name, insn)                                            \
  KS_DEV uint32_t name(uint32_t a, uint32_t b) {                          \
    uint32_t r;                                                           \
    asm volatile(insn " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));         \
    return r;                                                             \
  }
KS_PTX_ADD(add_cc, "add.cc.u32")
KS_PTX_ADD(addc_cc, "addc.cc.u32")
KS_PTX_ADD(addc, "addc.u32")
KS_PTX_ADD(sub_cc, "sub.cc.u32")
KS_PTX_ADD(subc_cc, "subc.cc.u32")
KS_PTX_ADD(subc, "subc.u32")
#undef KS_PTX_ADD

// acc = lo/hi(a * b) + acc (+ carry in), carry out.
#define KS_PTX_MAD(name, insn)                                                     \
  KS_DEV void name(uint32_t& acc, uint32_t a, uint32_t b) {                        \
    asm volatile(insn " %0, %1, %2, %0;" : "+r"(acc) : "r"(a), "r"(b));            \
  }
KS_PTX_MAD(mad_lo_cc, "mad.lo.cc.u32")
KS_PTX_MAD(madc_lo_cc, "madc.lo.cc.u32")
KS_PTX_MAD(madc_hi_cc, "madc.hi.cc.u32")
#undef KS_PTX_MAD

// --- 256-bit chains -----------------------------------------------------------
// r = a + b over `n` limbs; returns the carry out.
template <int N>
KS_DEV uint32_t add_n(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  r[0] = add_cc(a[0], b[0]);
#pragma unroll
  for (int i = 1; i < N; ++i) r[i] = addc_cc(a[i], b[i]);
  return addc(0, 0);
}

// r = a - b over N limbs; returns 0 or 0xFFFFFFFF (a borrow out).
template <int N>
KS_DEV uint32_t sub_n(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  r[0] = sub_cc(a[0], b[0]);
#pragma unroll
  for (int i = 1; i < N; ++i) r[i] = subc_cc(a[i], b[i]);
  return subc(0, 0);
}

KS_DEV U32x8 select8(uint32_t mask, const U32x8& a, const U32x8& b) {
  U32x8 r;
#pragma unroll
  for (int i = 0; i < 8; ++i) r.w[i] = (a.w[i] & mask) | (b.w[i] & ~mask);
  return r;
}

// p, limbs low to high.
__device__ __constant__ const uint32_t kP[8] = {0xFFFFFFFF, 0xFFFFFFFF, 0x00000000, 0xFFFFFFFF,
                                                0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE};

// (carry, z) reduced once modulo m: z - m where (carry, z) >= m, z
// otherwise. Valid for (carry, z) < 2m, the bound every caller guarantees.
KS_DEV U32x8 reduce_once(uint32_t carry, const U32x8& z, const uint32_t* m) {
  U32x8 d;
  const uint32_t borrow = sub_n<8>(d.w, z.w, m);
  const uint32_t keep_z = carry - (borrow & 1);  // all ones when (carry, z) < m
  return select8(keep_z, z, d);
}

// (a + b) mod m and (a - b) mod m for a, b < m.
KS_DEV U32x8 mod_add(const U32x8& a, const U32x8& b, const uint32_t* m) {
  U32x8 s;
  const uint32_t carry = add_n<8>(s.w, a.w, b.w);
  return reduce_once(carry, s, m);
}
KS_DEV U32x8 mod_sub(const U32x8& a, const U32x8& b, const uint32_t* m) {
  U32x8 d, m_masked;
  const uint32_t borrow = sub_n<8>(d.w, a.w, b.w);
#pragma unroll
  for (int i = 0; i < 8; ++i) m_masked.w[i] = m[i] & borrow;
  add_n<8>(d.w, d.w, m_masked.w);
  return d;
}

// a / 2 mod m for odd m and a < m: a + m when a is odd (even, below 2m),
// then shifted right one bit with the carry entering at the top.
KS_DEV U32x8 mod_half(const U32x8& a, const uint32_t* m) {
  U32x8 s, m_masked;
  const uint32_t odd = 0u - (a.w[0] & 1);
#pragma unroll
  for (int i = 0; i < 8; ++i) m_masked.w[i] = m[i] & odd;
  const uint32_t carry = add_n<8>(s.w, a.w, m_masked.w);
#pragma unroll
  for (int i = 0; i < 7; ++i) s.w[i] = __funnelshift_r(s.w[i], s.w[i + 1], 1);
  s.w[7] = __funnelshift_r(s.w[7], carry, 1);
  return s;
}

// --- Products -----------------------------------------------------------------
// acc[0 .. 2N-1] += sum_k a[kStride k] * b * 2^(64 k), k < N: N products
// whose lo/hi halves tile 2N consecutive limbs, one mad chain, its carry
// added into acc[2N]. Callers only let acc[2N] hold earlier rows' carries
// (a few units), so that last addition never overflows.
template <int N, int kStride>
KS_DEV void mad_row(uint32_t* acc, const uint32_t* a, uint32_t b) {
  mad_lo_cc(acc[0], a[0], b);
  madc_hi_cc(acc[1], a[0], b);
#pragma unroll
  for (int k = 1; k < N; ++k) {
    madc_lo_cc(acc[2 * k], a[kStride * k], b);
    madc_hi_cc(acc[2 * k + 1], a[kStride * k], b);
  }
  acc[2 * N] = addc(acc[2 * N], 0);
}

// t[0..15] = a * b. Two accumulators ([ZHU22 section 3.1]'s carry chains
// need the lo/hi halves of one row to tile limbs without overlap): `even`
// takes a[0,2,4,6] * b[i] at limb i, `odd` takes a[1,3,5,7] * b[i] at limb
// i + 1; each row is one mad chain. 64 products = 128 IMADs.
KS_DEV void mul_wide(uint32_t t[16], const U32x8& a, const U32x8& b) {
  uint32_t odd[17];
#pragma unroll
  for (int i = 0; i < 16; ++i) t[i] = 0;
#pragma unroll
  for (int i = 0; i < 17; ++i) odd[i] = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    mad_row<4, 2>(t + i, a.w, b.w[i]);
    mad_row<4, 2>(odd + i + 1, a.w + 1, b.w[i]);
  }
  // odd[16] stays 0: odd <= a * b < 2^512.
  t[1] = add_cc(t[1], odd[1]);
#pragma unroll
  for (int i = 2; i < 15; ++i) t[i] = addc_cc(t[i], odd[i]);
  t[15] = addc(t[15], odd[15]);
}

// Cross products a[i] a[j], j > i, of row i: the ones with j - i odd go to
// accumulator x at limb 2i + 1, those with j - i even to y at limb 2i + 2.
// Each row's carry limb holds at most earlier rows' carries (the rows of one
// accumulator end at non-decreasing limbs), so nothing overflows.
template <int I>
KS_DEV void sqr_cross_row(uint32_t* x, uint32_t* y, const uint32_t* a) {
  constexpr int kOdd = (8 - I) / 2;   // j = I+1, I+3, ..
  constexpr int kEven = (7 - I) / 2;  // j = I+2, I+4, ..
  if constexpr (kOdd > 0) mad_row<kOdd, 2>(x + 2 * I + 1, a + I + 1, a[I]);
  if constexpr (kEven > 0) mad_row<kEven, 2>(y + 2 * I + 2, a + I + 2, a[I]);
}

// t[0..15] = a^2: the 28 cross products once, doubled, plus the 8 squares
// ([ZHU22 figure 4]): 72 IMADs instead of 128.
KS_DEV void sqr_wide(uint32_t t[16], const U32x8& a) {
  uint32_t x[16], y[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) x[i] = y[i] = 0;
  sqr_cross_row<0>(x, y, a.w);
  sqr_cross_row<1>(x, y, a.w);
  sqr_cross_row<2>(x, y, a.w);
  sqr_cross_row<3>(x, y, a.w);
  sqr_cross_row<4>(x, y, a.w);
  sqr_cross_row<5>(x, y, a.w);
  sqr_cross_row<6>(x, y, a.w);
  // x = x + y (limbs 1..15; the sum of cross products is below 2^511)
  x[1] = add_cc(x[1], y[1]);
#pragma unroll
  for (int i = 2; i < 15; ++i) x[i] = addc_cc(x[i], y[i]);
  x[15] = addc(x[15], y[15]);
  // t = 2x + diagonal: the doubling by funnel shifts ([ZHU22 figure 2])
  uint32_t x2[16];
  x2[0] = 0;
#pragma unroll
  for (int i = 15; i > 0; --i) x2[i] = __funnelshift_l(x[i - 1], x[i], 1);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = a.w[i] * a.w[i];
    t[2 * i + 1] = __umulhi(a.w[i], a.w[i]);
  }
  t[0] = add_cc(t[0], x2[0]);
#pragma unroll
  for (int i = 1; i < 15; ++i) t[i] = addc_cc(t[i], x2[i]);
  t[15] = addc(t[15], x2[15]);
}

// --- Reduction ([ZHU22 tables 1 and 3]) -------------------------------------
// t mod p for t < 2^512. The words c8..c15 of the high half, folded into
// the low half: column K (coefficient of 2^(32K)) gathers what table 1's
// s2..s14 put there (same formulas as field/fp.h, 64-bit sums the compiler
// forms with IADD3). The columns start from p written with a large digit 2
// (fp.h's kRedundantP) so that column 2, the only one with negative terms,
// stays non-negative.
KS_DEV U32x8 solinas_reduce(const uint32_t t[16]) {
  const uint64_t c8 = t[8], c9 = t[9], c10 = t[10], c11 = t[11];
  const uint64_t c12 = t[12], c13 = t[13], c14 = t[14], c15 = t[15];
  const uint64_t c14_15 = c14 + c15, c13_15 = c13 + c14_15;
  const uint64_t all = c8 + c9 + c10 + c11 + c12 + c13_15;
  uint64_t col[8];
  col[0] = 0xFFFFFFFFull + all + c13_15;
  col[1] = 0xFFFFFFFFull + all - c8 + c14_15;
  col[2] = (4ull << 32) - (c8 + c9 + c13 + c14);
  col[3] = (0xFFFFFFFFull - 4) + c8 + c11 + c12 + c13 + c13_15;
  col[4] = 0xFFFFFFFFull + c9 + c12 + c13_15 + c14;
  col[5] = 0xFFFFFFFFull + c10 + c13 + c14_15 + c15;
  col[6] = 0xFFFFFFFFull + c11 + c14_15;
  col[7] = 0xFFFFFFFEull + all + c12 + c13_15 + c15;

  // z = t_low + sum col[K] 2^(32K): low halves at limb K, high halves
  // (below 2^5) at limb K + 1; z8 collects what passes 2^256.
  U32x8 z;
  z.w[0] = add_cc(t[0], uint32_t(col[0]));
#pragma unroll
  for (int k = 1; k < 8; ++k) z.w[k] = addc_cc(t[k], uint32_t(col[k]));
  uint32_t top = addc(uint32_t(col[7] >> 32), 0);
  z.w[1] = add_cc(z.w[1], uint32_t(col[0] >> 32));
#pragma unroll
  for (int k = 2; k < 8; ++k) z.w[k] = addc_cc(z.w[k], uint32_t(col[k - 1] >> 32));
  top = addc(top, 0);

  // Table 3: z + top 2^256 = z + T[top] (mod p) with T[n] = n (2^224 + 2^96
  // - 2^64 + 1); n (2^96 - 2^64) = (n 2^32 - n) 2^64 spans limbs 2 and 3.
  const uint32_t lo2 = sub_cc(0, top);
  const uint32_t hi3 = subc(top, 0);
  const uint32_t tn[8] = {top, 0, lo2, hi3, 0, 0, 0, top};
  const uint32_t carry = add_n<8>(z.w, z.w, tn);
  return reduce_once(carry, z, kP);
}

#undef KS_DEV

}  // namespace gpu_detail

// The field policy (see the header comment).
struct FpGpu {
  using Elem = U32x8;

  __host__ __device__ __forceinline__ static Elem zero() { return Elem{{0, 0, 0, 0, 0, 0, 0, 0}}; }
  __host__ __device__ __forceinline__ static Elem one() { return Elem{{1, 0, 0, 0, 0, 0, 0, 0}}; }
  // The value as four little-endian 64-bit words, and back (what the other
  // GPU fields convert through: field/fp_dpf.cuh).
  __host__ __device__ __forceinline__ static Elem from_words(const uint64_t w[4]) {
    Elem r;
#pragma unroll
    for (int j = 0; j < 4; ++j) r.w[2 * j] = uint32_t(w[j]), r.w[2 * j + 1] = uint32_t(w[j] >> 32);
    return r;
  }
  __host__ __device__ __forceinline__ static void to_words(uint64_t w[4], const Elem& a) {
#pragma unroll
    for (int j = 0; j < 4; ++j) w[j] = a.w[2 * j] | uint64_t(a.w[2 * j + 1]) << 32;
  }

  __device__ __forceinline__ static Elem add(const Elem& a, const Elem& b) {
    return gpu_detail::mod_add(a, b, gpu_detail::kP);
  }
  __device__ __forceinline__ static Elem sub(const Elem& a, const Elem& b) {
    return gpu_detail::mod_sub(a, b, gpu_detail::kP);
  }
  __device__ __forceinline__ static Elem neg(const Elem& a) { return sub(zero(), a); }
  __device__ __forceinline__ static Elem dbl(const Elem& a) { return add(a, a); }
  __device__ __forceinline__ static Elem half(const Elem& a) {
    return gpu_detail::mod_half(a, gpu_detail::kP);
  }

  __device__ __forceinline__ static Elem mul(const Elem& a, const Elem& b) {
    uint32_t t[16];
    gpu_detail::mul_wide(t, a, b);
    return gpu_detail::solinas_reduce(t);
  }
  __device__ __forceinline__ static Elem sqr(const Elem& a) {
    uint32_t t[16];
    gpu_detail::sqr_wide(t, a);
    return gpu_detail::solinas_reduce(t);
  }
  // a^(2^n); the loop stays rolled (code size; n is public).
  __device__ static Elem sqr_n(Elem a, int n) {
#pragma unroll 1
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }

  __device__ __forceinline__ static uint64_t is_zero(const Elem& a) {
    uint32_t any = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) any |= a.w[i];
    return uint64_t(0) - uint64_t(any == 0);
  }
  __device__ __forceinline__ static uint64_t eq(const Elem& a, const Elem& b) {
    uint32_t diff = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) diff |= a.w[i] ^ b.w[i];
    return uint64_t(0) - uint64_t(diff == 0);
  }
  __device__ __forceinline__ static Elem select(uint64_t mask, const Elem& a, const Elem& b) {
    return gpu_detail::select8(uint32_t(mask), a, b);
  }
  // All ones if a < p (a canonical encoding).
  __device__ __forceinline__ static uint32_t lt_p_mask(const Elem& a) {
    uint32_t d[8];
    return gpu_detail::sub_n<8>(d, a.w, gpu_detail::kP);
  }

  // a^(p-2) = a^-1 (0 for 0): [ZHU22 table 4], 255S + 14M, shared with
  // the CPU field (field/fp_chain.h).
  __device__ static Elem inv(const Elem& z) { return sm2_p_inverse<FpGpu>(z); }
};

// The same field with its products out of line: one copy of mul and sqr
// per kernel instead of one per call site. For verification, whose [t]P
// loop inlined is ~30k instructions and stalls on instruction fetch
// (Nsight Compute on an H100: 5.2 of 9.4 cycles between issues), so that
// the loop fits the instruction caches: +28% verifications/s there. Keygen
// and signing, whose loops are short, lose 15% this way and keep FpGpu.
struct FpGpuCompact : FpGpu {
  // By value: a reference parameter of an out-of-line function would need
  // its operand in addressable (local) memory at every call.
  __device__ __noinline__ static Elem mul(Elem a, Elem b) { return FpGpu::mul(a, b); }
  __device__ __noinline__ static Elem sqr(Elem a) { return FpGpu::sqr(a); }
  __device__ static Elem sqr_n(Elem a, int n) {
#pragma unroll 1
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
  __device__ static Elem inv(const Elem& z) { return sm2_p_inverse<FpGpuCompact>(z); }
};

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FP_GPU_CUH_
