// The x86-64 GHASH kernels (ghash_x86_pclmul.cc, ghash_x86_vpclmul.cc).
// Internal to src/cipher: ghash.cc checks the CPU before using one. Both
// fill the same key: H^16 .. H^1, reflected (ghash_x86_clmul.h).
#ifndef KS_CIPHER_GHASH_X86_KERNELS_H_
#define KS_CIPHER_GHASH_X86_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/ghash.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KS_GHASH_X86 1
#else
#define KS_GHASH_X86 0
#endif

namespace ks {
namespace ghash {

#if KS_GHASH_X86
// PCLMULQDQ + AVX2 (the VEX forms): 8 blocks per reduction.
void init_pclmul(Key* key, const uint8_t h[16]);
void blocks_pclmul(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks);
// VPCLMULQDQ + AVX-512 F/BW/VL: 16 blocks per reduction, 4 per instruction.
void init_vpclmul(Key* key, const uint8_t h[16]);
void blocks_vpclmul(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks);
#endif

}  // namespace ghash
}  // namespace ks

#endif  // KS_CIPHER_GHASH_X86_KERNELS_H_
