// SHA-512 kernels for x86-64 CPUs with AVX2 and BMI2 (Haswell, Zen and
// later): the single-stream compressor with its message schedule on 128-bit
// vectors, and the 4-lane multi-buffer compressor. Shared logic is in
// sha512_x86_simd.h.
#include "hash/sha512_x86_kernels.h"

#if KS_SHA512_X86

#include <immintrin.h>

#include "core/secure.h"  // outside the target region: see sha512_x86_simd.h

// Everything below, including the templates of sha512_compress.h, is
// compiled for AVX2 + BMI2; see sha512_x86_simd.h.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
#endif

#include "hash/sha512_x86_simd.h"

namespace ks {
namespace sha512 {
namespace {

// AVX2 has no 64-bit rotate: two shifts and an OR, or for sigma0's
// rotation by a whole byte one byte shuffle (4% more x4 digests/s).
template <int n, class V>
KS_X86_INLINE V rotr_avx2(V x) {
  const __m128i rotr8 = _mm_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1);
  if constexpr (n == 8 && sizeof(V) == 16) {
    return _mm_shuffle_epi8(x, rotr8);
  } else if constexpr (n == 8) {
    return _mm256_shuffle_epi8(x, _mm256_broadcastsi128_si256(rotr8));
  } else if constexpr (sizeof(V) == 16) {
    return _mm_or_si128(_mm_srli_epi64(x, n), _mm_slli_epi64(x, 64 - n));
  } else {
    return _mm256_or_si256(_mm256_srli_epi64(x, n), _mm256_slli_epi64(x, 64 - n));
  }
}

// 128-bit words for the message schedule.
struct XmmOps {
  using Word = __m128i;
  template <int n>
  KS_X86_INLINE static Word rotr(Word x) { return rotr_avx2<n>(x); }
  template <int n>
  KS_X86_INLINE static Word shr(Word x) { return _mm_srli_epi64(x, n); }
  KS_X86_INLINE static Word add(Word a, Word b) { return _mm_add_epi64(a, b); }
  KS_X86_INLINE static Word xor3(Word a, Word b, Word c) {
    return _mm_xor_si128(_mm_xor_si128(a, b), c);
  }
};

// Four lanes of 64-bit words.
struct YmmLanes {
  static constexpr int kLanes = 4;
  using Word = __m256i;
  template <int n>
  KS_X86_INLINE static Word rotr(Word x) { return rotr_avx2<n>(x); }
  template <int n>
  KS_X86_INLINE static Word shr(Word x) { return _mm256_srli_epi64(x, n); }
  template <int t>
  KS_X86_INLINE static Word add_round_constant(Word x) {
    return _mm256_add_epi64(x, _mm256_set1_epi64x(int64_t(round_constants_in_memory()[t])));
  }
  KS_X86_INLINE static Word add(Word a, Word b) { return _mm256_add_epi64(a, b); }
  KS_X86_INLINE static Word xor3(Word a, Word b, Word c) {
    return _mm256_xor_si256(_mm256_xor_si256(a, b), c);
  }
  KS_X86_INLINE static Word ch(Word e, Word f, Word g) {  // ((f ^ g) & e) ^ g
    return _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(f, g), e), g);
  }
  KS_X86_INLINE static Word maj(Word a, Word b, Word c) {  // ((a ^ b) & (b ^ c)) ^ b
    return _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(b, c)), b);
  }
  KS_X86_INLINE static Word load(const uint64_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  KS_X86_INLINE static void store(uint64_t* p, Word v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }

  // w[i] = big-endian word i of every lane's block: four 4x4 transposes of
  // 64-bit elements (words 4g..4g+3 of the four lanes).
  KS_X86_INLINE static void load_message(Word w[16], const uint8_t* const blocks[4]) {
    const __m256i bswap = _mm256_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
                                          8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    KS_UNROLL
    for (int g = 0; g < 4; ++g) {
      Word r[4];
      KS_UNROLL
      for (int l = 0; l < 4; ++l) {
        r[l] = _mm256_shuffle_epi8(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blocks[l] + 32 * g)), bswap);
      }
      // Half q of lo01: word 4g + 2q of lanes 0, 1; of hi01: word 4g + 2q + 1.
      const Word lo01 = _mm256_unpacklo_epi64(r[0], r[1]);
      const Word hi01 = _mm256_unpackhi_epi64(r[0], r[1]);
      const Word lo23 = _mm256_unpacklo_epi64(r[2], r[3]);
      const Word hi23 = _mm256_unpackhi_epi64(r[2], r[3]);
      w[4 * g] = _mm256_permute2x128_si256(lo01, lo23, 0x20);
      w[4 * g + 1] = _mm256_permute2x128_si256(hi01, hi23, 0x20);
      w[4 * g + 2] = _mm256_permute2x128_si256(lo01, lo23, 0x31);
      w[4 * g + 3] = _mm256_permute2x128_si256(hi01, hi23, 0x31);
    }
  }
};

}  // namespace

void compress_blocks_avx2(uint64_t state[8], const uint8_t* blocks, size_t nblocks) {
  compress_blocks_scalar<XmmOps>(state, blocks, nblocks);
}

void compress_x4_avx2(uint64_t state[8][4], const uint8_t* const blocks[4]) {
  compress_lanes<YmmLanes>(state, blocks);
}

}  // namespace sha512
}  // namespace ks

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // KS_SHA512_X86
