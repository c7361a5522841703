// The x86-64 SM3 kernels (sm3_x86_avx2.cc, sm3_x86_avx512.cc). Internal to
// src/hash: callers must check cpu_features() for the extensions named
// before calling; sm3_blocks.cc does the dispatch.
#ifndef KS_HASH_SM3_X86_KERNELS_H_
#define KS_HASH_SM3_X86_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KS_SM3_X86 1
#else
#define KS_SM3_X86 0
#endif

namespace ks {
namespace sm3 {

#if KS_SM3_X86
// Single stream, scalar rounds with SIMD message expansion.
// AVX2 + BMI2:
void compress_blocks_avx2(uint32_t state[8], const uint8_t* blocks, size_t nblocks);
// AVX-512 F/VL/BW + AVX2 + BMI2:
void compress_blocks_avx512(uint32_t state[8], const uint8_t* blocks, size_t nblocks);

// One block per lane, word-major state (state[i][l] is word i of lane l).
// AVX2:
void compress_x8_avx2(uint32_t state[8][8], const uint8_t* const blocks[8]);
// AVX-512 F/BW:
void compress_x16_avx512(uint32_t state[8][16], const uint8_t* const blocks[16]);
#endif

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_X86_KERNELS_H_
