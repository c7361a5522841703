// GCM's field product on the GPU, table-free and branch-free (constant
// time in H and the data): shared by the one-buffer GHASH of
// sm4/gpu/sm4_gpu.cu and the per-message GHASH of sm4/gpu/sm4_gpu_messages.cu.
//
// The portable multiplication of cipher/ghash.cc, with its 64x64 carry-less
// products built from 32x32 ones: the GPU has no carry-less multiply, but
// a 32x32 -> 64 integer multiply (IMAD.WIDE) of operands masked to every
// fourth bit adds at most 8 terms per column, which never carries into the
// next kept bit. No table, no secret branch.
#ifndef KS_CIPHER_GF128_GPU_CUH_
#define KS_CIPHER_GF128_GPU_CUH_

#include <stdint.h>

#include "cipher/gf128_karatsuba.h"
#include "core/hd.h"

namespace ks {
namespace gf128_gpu {

struct Gf128 {
  uint64_t hi, lo;  // the block as a big-endian 128-bit integer (bit 127 = x^0)
};

KS_HD uint64_t clmul32(uint32_t x, uint32_t y) {
  constexpr uint32_t m = 0x11111111u;
  const uint64_t x0 = x & m, x1 = x & (m << 1), x2 = x & (m << 2), x3 = x & (m << 3);
  const uint32_t y0 = y & m, y1 = y & (m << 1), y2 = y & (m << 2), y3 = y & (m << 3);
  const uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
  const uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
  const uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
  const uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
  constexpr uint64_t k = 0x1111111111111111ull;
  return (z0 & k) | (z1 & (k << 1)) | (z2 & (k << 2)) | (z3 & (k << 3));
}

// Karatsuba: three 32x32 products.
KS_HD void clmul64(uint64_t x, uint64_t y, uint64_t* hi, uint64_t* lo) {
  const uint32_t x0 = uint32_t(x), x1 = uint32_t(x >> 32), y0 = uint32_t(y), y1 = uint32_t(y >> 32);
  const uint64_t a = clmul32(x0, y0), b = clmul32(x1, y1);
  const uint64_t m = clmul32(x0 ^ x1, y0 ^ y1) ^ a ^ b;
  *lo = a ^ (m << 32);
  *hi = b ^ (m >> 32);
}

// x * y in GCM's field (cipher/gf128_karatsuba.h).
struct Clmul64 {  // a functor, so that the product inlines on the device
  KS_HD void operator()(uint64_t x, uint64_t y, uint64_t* hi, uint64_t* lo) const {
    clmul64(x, y, hi, lo);
  }
};

KS_HD Gf128 gf_mul(Gf128 x, Gf128 y) {
  gf128::mul(&x.hi, &x.lo, y.hi, y.lo, Clmul64{});
  return x;
}

KS_HD Gf128 gf_xor(Gf128 a, Gf128 b) { return {a.hi ^ b.hi, a.lo ^ b.lo}; }
KS_HD Gf128 gf_one() { return {uint64_t(1) << 63, 0}; }

// x^e by squaring and multiplying (e public: a length).
KS_HD Gf128 gf_pow(Gf128 x, uint64_t e) {
  Gf128 r = gf_one();
  for (; e != 0; e >>= 1, x = gf_mul(x, x))
    if (e & 1) r = gf_mul(r, x);
  return r;
}

}  // namespace gf128_gpu
}  // namespace ks

#endif  // KS_CIPHER_GF128_GPU_CUH_
