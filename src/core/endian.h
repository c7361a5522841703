// Big-endian loads and stores of 32- and 64-bit words, for the CPU and the
// GPU: SM3 and SHA-512 read their blocks as big-endian words (GB/T 32905
// 5.3.2, FIPS 180-4 3.1), SM4 its blocks and keys (GB/T 32907 7.1). On
// little-endian hosts one bswap and one access: GCC does not always merge
// the byte-wise form (writing SM3 digests byte by byte made digest_many of
// 64-byte messages 1.5x slower).
#ifndef KS_CORE_ENDIAN_H_
#define KS_CORE_ENDIAN_H_

#include <stdint.h>
#include <string.h>

#include "core/hd.h"

namespace ks {

#if !KS_DEVICE_CODE && defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
KS_HD uint32_t load_be32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return __builtin_bswap32(v);
}
KS_HD void store_be32(uint8_t* p, uint32_t v) {
  v = __builtin_bswap32(v);
  memcpy(p, &v, 4);
}
KS_HD uint64_t load_be64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}
KS_HD void store_be64(uint8_t* p, uint64_t v) {
  v = __builtin_bswap64(v);
  memcpy(p, &v, 8);
}
#else
KS_HD uint32_t load_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) |
         uint32_t(p[3]);
}
KS_HD void store_be32(uint8_t* p, uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}
KS_HD uint64_t load_be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}
KS_HD void store_be64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}
#endif

// The bytes of a 32-bit word reversed: one PRMT on the GPU, one BSWAP on
// the CPU (a word of a big-endian block in a little-endian register).
KS_HD uint32_t byte_swap32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(v, 0, 0x0123);
#elif defined(__GNUC__)
  return __builtin_bswap32(v);
#else
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
#endif
}

}  // namespace ks

#endif  // KS_CORE_ENDIAN_H_
