// GCM's field product (NIST SP 800-38D 6.3) on bit-reflected blocks held as
// (hi, lo) 64-bit words, from a 64x64 carry-less product: Karatsuba (three
// products), the reflection's shift by one, then the reduction by
// x^128 = 1 + x + x^2 + x^7. Written once for the portable CPU GHASH
// (cipher/ghash.cc) and the GPU's (sm4/gpu/sm4_gpu.cu), which differ only
// in how they multiply 64 bits without a carry-less instruction.
#ifndef KS_CIPHER_GF128_KARATSUBA_H_
#define KS_CIPHER_GF128_KARATSUBA_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace gf128 {

// y = y * h. Clmul64(x, y, &hi, &lo) is the 128-bit carry-less product.
template <class Clmul64>
KS_HD void mul(uint64_t* y1, uint64_t* y0, uint64_t h1, uint64_t h0, Clmul64 clmul64) {
  uint64_t a_hi, a_lo, b_hi, b_lo, m_hi, m_lo;
  clmul64(*y0, h0, &a_hi, &a_lo);
  clmul64(*y1, h1, &b_hi, &b_lo);
  clmul64(*y0 ^ *y1, h0 ^ h1, &m_hi, &m_lo);
  m_hi ^= a_hi ^ b_hi;
  m_lo ^= a_lo ^ b_lo;
  uint64_t v0 = a_lo, v1 = a_hi ^ m_lo, v2 = b_lo ^ m_hi, v3 = b_hi;
  // Shift left by one (the reflection's off-by-one).
  v3 = (v3 << 1) | (v2 >> 63);
  v2 = (v2 << 1) | (v1 >> 63);
  v1 = (v1 << 1) | (v0 >> 63);
  v0 <<= 1;
  // Fold v0 then v1 (coefficients x^128 and up) with x^128 = 1 + x + x^2 +
  // x^7; multiplying by x^k is a right shift here, its spill the left shift.
  v2 ^= v0 ^ (v0 >> 1) ^ (v0 >> 2) ^ (v0 >> 7);
  v1 ^= (v0 << 63) ^ (v0 << 62) ^ (v0 << 57);
  v3 ^= v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
  v2 ^= (v1 << 63) ^ (v1 << 62) ^ (v1 << 57);
  *y1 = v3;
  *y0 = v2;
}

}  // namespace gf128
}  // namespace ks

#endif  // KS_CIPHER_GF128_KARATSUBA_H_
