// The x86-64 SHA-512 kernels (sha512_x86_avx2.cc, sha512_x86_avx512.cc).
// Internal to src/hash: callers must check cpu_features() for the
// extensions named before calling; sha512_blocks.cc does the dispatch.
#ifndef KS_HASH_SHA512_X86_KERNELS_H_
#define KS_HASH_SHA512_X86_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KS_SHA512_X86 1
#else
#define KS_SHA512_X86 0
#endif

namespace ks {
namespace sha512 {

#if KS_SHA512_X86
// Single stream, scalar rounds with SIMD message schedule.
// AVX2 + BMI2:
void compress_blocks_avx2(uint64_t state[8], const uint8_t* blocks, size_t nblocks);
// AVX-512 F/VL/BW + AVX2 + BMI2:
void compress_blocks_avx512(uint64_t state[8], const uint8_t* blocks, size_t nblocks);

// One block per lane, word-major state (state[i][l] is word i of lane l).
// AVX2:
void compress_x4_avx2(uint64_t state[8][4], const uint8_t* const blocks[4]);
// AVX-512 F/BW:
void compress_x8_avx512(uint64_t state[8][8], const uint8_t* const blocks[8]);
#endif

}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_X86_KERNELS_H_
