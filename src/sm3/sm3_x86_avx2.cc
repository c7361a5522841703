// SM3 kernels for x86-64 CPUs with AVX2 and BMI2 (Haswell, Zen and later):
// the single-stream compressor with 128-bit message expansion, and the
// 8-lane multi-buffer compressor. Shared logic is in sm3_x86_simd.h.
#include "sm3/sm3_x86_kernels.h"

#if KS_SM3_X86

#include <immintrin.h>

// Everything below, including the templates of sm3_compress.h, is compiled
// for AVX2 + BMI2; see sm3_x86_simd.h.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
#endif

#include "sm3/sm3_x86_simd.h"

namespace ks {
namespace sm3 {
namespace {

// 128-bit words for the message expansion (no rotate instruction: shifts).
struct XmmOps {
  using Word = __m128i;
  template <int n>
  KS_X86_INLINE static __m128i rotl(__m128i x) {
    return _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - n));
  }
  KS_X86_INLINE static __m128i xor2(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }
  KS_X86_INLINE static __m128i xor3(__m128i a, __m128i b, __m128i c) {
    return _mm_xor_si128(_mm_xor_si128(a, b), c);
  }
};

// Eight lanes of 32-bit words.
struct YmmLanes {
  static constexpr int kLanes = 8;
  using Word = __m256i;
  template <int n>
  KS_X86_INLINE static Word rotl(Word x) {
    return _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - n));
  }
  template <uint32_t c>
  KS_X86_INLINE static Word add_constant(Word x) {
    return _mm256_add_epi32(x, _mm256_set1_epi32(constant_in_memory<c>()));
  }
  KS_X86_INLINE static Word add(Word a, Word b) { return _mm256_add_epi32(a, b); }
  KS_X86_INLINE static Word xor2(Word a, Word b) { return _mm256_xor_si256(a, b); }
  KS_X86_INLINE static Word xor3(Word a, Word b, Word c) { return xor2(xor2(a, b), c); }
  KS_X86_INLINE static Word maj(Word a, Word b, Word c) {  // (a & (b | c)) | (b & c)
    return _mm256_or_si256(_mm256_and_si256(a, _mm256_or_si256(b, c)), _mm256_and_si256(b, c));
  }
  KS_X86_INLINE static Word choose(Word e, Word f, Word g) {  // ((f ^ g) & e) ^ g
    return xor2(_mm256_and_si256(xor2(f, g), e), g);
  }
  KS_X86_INLINE static Word load(const uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  KS_X86_INLINE static void store(uint32_t* p, Word v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }

  // w[i] = big-endian word i of every lane's block: two 8x8 transposes
  // (words 0-7 and 8-15) of 32-bit elements.
  KS_X86_INLINE static void load_message(Word w[16], const uint8_t* const blocks[8]) {
    const __m256i bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
                                          12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    KS_UNROLL
    for (int half = 0; half < 2; ++half) {
      Word r[8], t[8], u[8];
      KS_UNROLL
      for (int i = 0; i < 8; ++i) {
        r[i] = _mm256_shuffle_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blocks[i] + 32 * half)), bswap);
      }
      KS_UNROLL
      for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
      }
      // u[4g + s], 128-bit half q: word 4q + s of rows 4g..4g+3.
      KS_UNROLL
      for (int g = 0; g < 8; g += 4) {
        u[g] = _mm256_unpacklo_epi64(t[g], t[g + 2]);
        u[g + 1] = _mm256_unpackhi_epi64(t[g], t[g + 2]);
        u[g + 2] = _mm256_unpacklo_epi64(t[g + 1], t[g + 3]);
        u[g + 3] = _mm256_unpackhi_epi64(t[g + 1], t[g + 3]);
      }
      KS_UNROLL
      for (int s = 0; s < 4; ++s) {
        w[8 * half + s] = _mm256_permute2x128_si256(u[s], u[4 + s], 0x20);
        w[8 * half + 4 + s] = _mm256_permute2x128_si256(u[s], u[4 + s], 0x31);
      }
    }
  }
};

}  // namespace

void compress_blocks_avx2(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  compress_blocks_scalar<XmmOps>(state, blocks, nblocks);
}

void compress_x8_avx2(uint32_t state[8][8], const uint8_t* const blocks[8]) {
  compress_lanes<YmmLanes>(state, blocks);
}

}  // namespace sm3
}  // namespace ks

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // KS_SM3_X86
