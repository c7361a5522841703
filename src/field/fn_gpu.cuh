// Scalars of SM2 on the GPU: integers mod the group order n, for the few
// scalar operations per signature (r = e + x1, s = (1 + d)^-1 (k - r d),
// t = r + s). Same representations as field/fn.h: "plain" integers and
// Montgomery forms x R mod n with R = 2^256, so a key prepared on the CPU
// (PrivateKey::d_mont, inv_one_plus_d_mont) is used here as is.
//
// Elements are U32x8 (the limbs of field/fp_gpu.cuh); add/sub use its PTX
// chains, the Montgomery product is field/mont_cios.h's CIOS over 64-bit
// limbs (two or three per signature: not worth hand-written PTX).
// Constant time: no branch or memory index depends on a value.
#ifndef KS_FIELD_FN_GPU_CUH_
#define KS_FIELD_FN_GPU_CUH_

#include <stdint.h>

#include "field/fp_gpu.cuh"
#include "field/mont_cios.h"

namespace ks {
namespace field {

namespace gpu_detail {

// n, limbs low to high.
__device__ __constant__ const uint32_t kN[8] = {0x39D54123, 0x53BBF409, 0x21C6052B, 0x7203DF6B,
                                                0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE};
__device__ __constant__ const uint64_t kN64[4] = {0x53BBF40939D54123ull, 0x7203DF6B21C6052Bull,
                                                 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFEFFFFFFFFull};
constexpr uint64_t kN0Inv64 = 0x327F9E8872350975ull;  // -n^-1 mod 2^64 (test checks it)
// R mod n and R^2 mod n, R = 2^256 (fn.h's kR and kR2; the tests compare).
__device__ __constant__ const uint64_t kRModN[4] = {0xAC440BF6C62ABEDDull, 0x8DFC2094DE39FAD4ull, 0,
                                                   0x0000000100000000ull};
__device__ __constant__ const uint64_t kR2ModN[4] = {0x901192AF7C114F20ull, 0x3464504ADE6FA2FAull,
                                                    0x620FC84C3AFFE0D4ull, 0x1EB5E412A22B3D3Bull};

__device__ __forceinline__ U32x8 from_u64(const uint64_t w[4]) {
  U32x8 r;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    r.w[2 * i] = uint32_t(w[i]);
    r.w[2 * i + 1] = uint32_t(w[i] >> 32);
  }
  return r;
}

}  // namespace gpu_detail

struct FnGpu {
  using Elem = U32x8;

  __device__ __forceinline__ static Elem add(const Elem& a, const Elem& b) {
    return gpu_detail::mod_add(a, b, gpu_detail::kN);
  }
  __device__ __forceinline__ static Elem sub(const Elem& a, const Elem& b) {
    return gpu_detail::mod_sub(a, b, gpu_detail::kN);
  }
  // a mod n for any a < 2^256 < 2n (digests e, coordinates x < p).
  __device__ __forceinline__ static Elem reduce_once(const Elem& a) {
    return gpu_detail::reduce_once(0, a, gpu_detail::kN);
  }
  // All ones if 1 <= a <= n - 1 (GB/T 32918.2 clause 7.1 B1/B2).
  __device__ __forceinline__ static uint32_t in_range_nonzero(const Elem& a) {
    uint32_t d[8];
    const uint32_t below_n = gpu_detail::sub_n<8>(d, a.w, gpu_detail::kN);
    return below_n & ~uint32_t(FpGpu::is_zero(a));
  }

  // a b / R mod n for b < n (field/mont_cios.h).
  __device__ static Elem mont_mul(const Elem& a32, const Elem& b32) {
    uint64_t a[4], b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      a[i] = a32.w[2 * i] | (uint64_t(a32.w[2 * i + 1]) << 32);
      b[i] = b32.w[2 * i] | (uint64_t(b32.w[2 * i + 1]) << 32);
    }
    mont_mul_cios(a, a, b, gpu_detail::kN64, gpu_detail::kN0Inv64);
    return gpu_detail::from_u64(a);
  }
  __device__ __forceinline__ static Elem to_mont(const Elem& a) {
    return mont_mul(a, gpu_detail::from_u64(gpu_detail::kR2ModN));
  }
  __device__ __forceinline__ static Elem one_mont() {
    return gpu_detail::from_u64(gpu_detail::kRModN);
  }

  // a^(n-2) = a^-1 in Montgomery form (0 maps to 0): Fermat with a fixed
  // 4-bit window over the public exponent; the window table is indexed by
  // exponent digits only.
  __device__ static Elem inv_mont(const Elem& a) {
    Elem powers[16];
    powers[0] = one_mont();
#pragma unroll 1
    for (int i = 1; i < 16; ++i) powers[i] = mont_mul(powers[i - 1], a);
    Elem r = one_mont();
#pragma unroll 1
    for (int pos = 252; pos >= 0; pos -= 4) {
#pragma unroll
      for (int i = 0; i < 4; ++i) r = mont_mul(r, r);
      const int limb = pos >> 6, shift = pos & 63;
      const uint64_t exponent_limb = gpu_detail::kN64[limb] - (limb == 0 ? 2 : 0);  // n - 2
      r = mont_mul(r, powers[(exponent_limb >> shift) & 15]);
    }
    return r;
  }
};

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FN_GPU_CUH_
