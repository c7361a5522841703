// GF(2^255 - 19) on the GPU's integer pipe: eight 32-bit limbs, the
// 512-bit products of the SM2 GPU field (field/fp_gpu.cuh: PTX mad chains,
// [ZHU22 section 3.1]; the product rows know nothing of the prime), then
// 2^256 = 38 (mod p) folded with one more mad chain. The CPU field's
// representation (field/fe25519.h): values below 2^256, not necessarily
// below p, each operation folding its carry out of bit 256 back in as 38;
// canonical() gives [0, p). The side-by-side partner of the FP64 field
// (field/fe25519_dpf.cuh): same policy, same formulas, same results.
#ifndef KS_FIELD_FE25519_GPU_CUH_
#define KS_FIELD_FE25519_GPU_CUH_

#include <stdint.h>

#include "field/fe25519_chain.h"
#include "field/fp_gpu.cuh"

namespace ks {
namespace field {
namespace gpu25519_detail {

#define KS_DEV __device__ __forceinline__
using namespace gpu_detail;

// r + 38 c for c below 2^26; a carry out of 2^256 again worth 38, which can
// then not carry further.
KS_DEV U32x8 fold38(const U32x8& r, uint32_t c) {
  U32x8 s;
  s.w[0] = add_cc(r.w[0], c * 38);
#pragma unroll
  for (int i = 1; i < 8; ++i) s.w[i] = addc_cc(r.w[i], 0);
  const uint32_t carry = addc(0, 0);
  s.w[0] += 38 & (0 - carry);
  return s;
}

// t = lo + 38 hi, one mad chain over the high half into the low one.
KS_DEV U32x8 reduce_wide(const uint32_t t[16]) {
  uint32_t acc[10];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = t[i];
  acc[8] = 0;
  acc[9] = 0;
  // even limbs of hi at acc[0..], odd limbs (as lo/hi pairs) one limb up
  uint32_t odd[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  mad_row<4, 2>(acc, t + 8, 38);
  mad_row<4, 2>(odd + 1, t + 9, 38);
  U32x8 r;
  r.w[0] = add_cc(acc[0], odd[0]);
#pragma unroll
  for (int i = 1; i < 8; ++i) r.w[i] = addc_cc(acc[i], odd[i]);
  const uint32_t top = addc(acc[8], odd[8]);
  return fold38(r, top);
}

#undef KS_DEV

}  // namespace gpu25519_detail

struct Fe25519Gpu {
  using Elem = U32x8;
  using Mask = uint64_t;

  __host__ __device__ __forceinline__ static Elem zero() { return Elem{{0, 0, 0, 0, 0, 0, 0, 0}}; }
  __host__ __device__ __forceinline__ static Elem one() { return Elem{{1, 0, 0, 0, 0, 0, 0, 0}}; }

  __device__ __forceinline__ static Elem add(const Elem& a, const Elem& b) {
    Elem s;
    const uint32_t carry = gpu_detail::add_n<8>(s.w, a.w, b.w);
    return gpu25519_detail::fold38(s, carry);
  }
  // a - b; a borrow past 2^256 is taken back as 38, twice at most.
  __device__ __forceinline__ static Elem sub(const Elem& a, const Elem& b) {
    Elem d, r;
    const uint32_t borrow = gpu_detail::sub_n<8>(d.w, a.w, b.w);
    r.w[0] = gpu_detail::sub_cc(d.w[0], 38 & borrow);
#pragma unroll
    for (int i = 1; i < 8; ++i) r.w[i] = gpu_detail::subc_cc(d.w[i], 0);
    const uint32_t again = gpu_detail::subc(0, 0);
    r.w[0] -= 38 & again;
    return r;
  }
  __device__ __forceinline__ static Elem neg(const Elem& a) { return sub(zero(), a); }
  __device__ __forceinline__ static Elem dbl(const Elem& a) { return add(a, a); }
  __device__ __forceinline__ static Elem mul(const Elem& a, const Elem& b) {
    uint32_t t[16];
    gpu_detail::mul_wide(t, a, b);
    return gpu25519_detail::reduce_wide(t);
  }
  __device__ __forceinline__ static Elem sqr(const Elem& a) {
    uint32_t t[16];
    gpu_detail::sqr_wide(t, a);
    return gpu25519_detail::reduce_wide(t);
  }
  __device__ static Elem sqr_n(Elem a, int n) {
#pragma unroll 1
    for (int i = 0; i < n; ++i) a = sqr(a);
    return a;
  }
  __device__ __forceinline__ static Elem mul_small(const Elem& a, uint32_t k) {
    uint32_t acc[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, odd[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    gpu_detail::mad_row<4, 2>(acc, a.w, k);
    gpu_detail::mad_row<4, 2>(odd + 1, a.w + 1, k);
    Elem r;
    r.w[0] = gpu_detail::add_cc(acc[0], odd[0]);
#pragma unroll
    for (int i = 1; i < 8; ++i) r.w[i] = gpu_detail::addc_cc(acc[i], odd[i]);
    const uint32_t top = gpu_detail::addc(acc[8], odd[8]);
    return gpu25519_detail::fold38(r, top);
  }

  // [0, p): fold bit 255 in as 19, then subtract p where the value + 19
  // reaches 2^255 (as Fe25519::canonical on the CPU).
  __device__ __forceinline__ static Elem canonical(const Elem& a) {
    Elem r = a, t;
    r.w[7] &= 0x7FFFFFFF;
    r.w[0] = gpu_detail::add_cc(r.w[0], 19 * (a.w[7] >> 31));
#pragma unroll
    for (int i = 1; i < 8; ++i) r.w[i] = gpu_detail::addc_cc(r.w[i], 0);
    t.w[0] = gpu_detail::add_cc(r.w[0], 19);
#pragma unroll
    for (int i = 1; i < 8; ++i) t.w[i] = gpu_detail::addc_cc(r.w[i], 0);
    const uint32_t ge_p = 0 - (t.w[7] >> 31);
    t.w[7] &= 0x7FFFFFFF;
    return gpu_detail::select8(ge_p, t, r);
  }
  __device__ __forceinline__ static Mask is_zero(const Elem& a) {
    const Elem c = canonical(a);
    uint32_t any = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) any |= c.w[i];
    return uint64_t(0) - uint64_t(any == 0);
  }
  __device__ __forceinline__ static Mask eq(const Elem& a, const Elem& b) {
    return is_zero(sub(a, b));
  }
  __device__ __forceinline__ static Mask is_negative(const Elem& a) {
    return uint64_t(0) - uint64_t(canonical(a).w[0] & 1);
  }
  __device__ __forceinline__ static Elem select(Mask mask, const Elem& a, const Elem& b) {
    return gpu_detail::select8(uint32_t(mask), a, b);
  }
  __device__ static Elem inv(const Elem& a) { return fe25519_invert<Fe25519Gpu>(a); }
  __device__ static Elem pow_p58(const Elem& a) { return fe25519_pow_p58<Fe25519Gpu>(a); }

  // Four 64-bit little-endian words (any value below 2^256): the same bits.
  __device__ __forceinline__ static Elem from_words(const uint64_t w[4]) {
    Elem r;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      r.w[2 * i] = uint32_t(w[i]);
      r.w[2 * i + 1] = uint32_t(w[i] >> 32);
    }
    return r;
  }
  __device__ __forceinline__ static void to_words(uint64_t w[4], const Elem& a) {
    const Elem c = canonical(a);
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = uint64_t(c.w[2 * i]) | (uint64_t(c.w[2 * i + 1]) << 32);
  }
};

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FE25519_GPU_CUH_
