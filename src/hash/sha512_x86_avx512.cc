// SHA-512 kernels for x86-64 CPUs with AVX-512 F/VL/BW (Skylake-SP, Ice Lake,
// Zen 4 and later): the single-stream compressor with its message schedule
// on vprorq/vpternlogq, and the 8-lane multi-buffer compressor. Shared logic
// is in sha512_x86_simd.h.
#include "hash/sha512_x86_kernels.h"

#if KS_SHA512_X86

// GCC 12 warns that _mm512_undefined_epi32() inside its own AVX-512 headers
// is "used uninitialized" once inlined (GCC bug 105593). Diagnostic pragmas
// go by source location, so silencing the header's lines is enough.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include "core/secure.h"  // outside the target region: see sha512_x86_simd.h

// Everything below, including the templates of sha512_compress.h, is
// compiled for AVX-512 + BMI2; see sha512_x86_simd.h.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2,avx512f,avx512vl,avx512bw"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2,avx512f,avx512vl,avx512bw")
#endif

#include "hash/sha512_x86_simd.h"

namespace ks {
namespace sha512 {
namespace {

// vpternlogq truth tables over (a, b, c) = (0xf0, 0xcc, 0xaa).
constexpr int kXor3 = 0x96;  // a ^ b ^ c
constexpr int kCh = 0xca;    // a ? b : c
constexpr int kMaj = 0xe8;   // majority

// One vpternlogq. MemorySanitizer checks its operands strictly, so the
// constant-time check build (KS_CT_MSAN, core/secure.h) spells the three
// functions with two-input operations, bit for bit the same (as
// sm3_x86_avx512.cc does).
template <int kTable, class V>
KS_X86_INLINE V ternary_logic(V a, V b, V c) {
  static_assert(kTable == kXor3 || kTable == kCh || kTable == kMaj, "table");
#if defined(KS_CT_MSAN)
  if constexpr (kTable == kXor3) {
    return a ^ b ^ c;
  } else if constexpr (kTable == kCh) {
    return ((b ^ c) & a) ^ c;
  } else {
    return ((a ^ b) & (b ^ c)) ^ b;
  }
#else
  if constexpr (sizeof(V) == 16) {
    return _mm_ternarylogic_epi64(a, b, c, kTable);
  } else {
    return _mm512_ternarylogic_epi64(a, b, c, kTable);
  }
#endif
}

// 128-bit words for the message schedule.
struct XmmOps {
  using Word = __m128i;
  template <int n>
  KS_X86_INLINE static Word rotr(Word x) { return _mm_ror_epi64(x, n); }
  template <int n>
  KS_X86_INLINE static Word shr(Word x) { return _mm_srli_epi64(x, n); }
  KS_X86_INLINE static Word add(Word a, Word b) { return _mm_add_epi64(a, b); }
  KS_X86_INLINE static Word xor3(Word a, Word b, Word c) {
    return ternary_logic<kXor3>(a, b, c);
  }
};

// Eight lanes of 64-bit words.
struct ZmmLanes {
  static constexpr int kLanes = 8;
  using Word = __m512i;
  template <int n>
  KS_X86_INLINE static Word rotr(Word x) { return _mm512_ror_epi64(x, n); }
  template <int n>
  KS_X86_INLINE static Word shr(Word x) { return _mm512_srli_epi64(x, n); }
  template <int t>
  KS_X86_INLINE static Word add_round_constant(Word x) {
    return _mm512_add_epi64(x, _mm512_set1_epi64(int64_t(round_constants_in_memory()[t])));
  }
  KS_X86_INLINE static Word add(Word a, Word b) { return _mm512_add_epi64(a, b); }
  KS_X86_INLINE static Word xor3(Word a, Word b, Word c) {
    return ternary_logic<kXor3>(a, b, c);
  }
  KS_X86_INLINE static Word ch(Word e, Word f, Word g) { return ternary_logic<kCh>(e, f, g); }
  KS_X86_INLINE static Word maj(Word a, Word b, Word c) { return ternary_logic<kMaj>(a, b, c); }
  KS_X86_INLINE static Word load(const uint64_t* p) { return _mm512_loadu_si512(p); }
  KS_X86_INLINE static void store(uint64_t* p, Word v) { _mm512_storeu_si512(p, v); }

  // w[i] = big-endian word i of every lane's block: two 8x8 transposes of
  // 64-bit elements (words 0-7 and 8-15): unpack 64, then two rounds of
  // 128-bit shuffles.
  KS_X86_INLINE static void load_message(Word w[16], const uint8_t* const blocks[8]) {
    const __m512i bswap = _mm512_broadcast_i32x4(
        _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
    KS_UNROLL
    for (int half = 0; half < 2; ++half) {
      Word t[8];
      KS_UNROLL
      for (int l = 0; l < 8; l += 2) {
        const Word r0 = _mm512_shuffle_epi8(_mm512_loadu_si512(blocks[l] + 64 * half), bswap);
        const Word r1 = _mm512_shuffle_epi8(_mm512_loadu_si512(blocks[l + 1] + 64 * half), bswap);
        t[l] = _mm512_unpacklo_epi64(r0, r1);      // 128-bit lane q: word 2q of lanes l, l+1
        t[l + 1] = _mm512_unpackhi_epi64(r0, r1);  // word 2q + 1
      }
      Word* out = w + 8 * half;
      KS_UNROLL
      for (int s = 0; s < 2; ++s) {
        // 128-bit lanes (q0, q2) of lanes 0-3 | 4-7, and (q1, q3).
        const Word even03 = _mm512_shuffle_i64x2(t[s], t[2 + s], 0x88);
        const Word even47 = _mm512_shuffle_i64x2(t[4 + s], t[6 + s], 0x88);
        const Word odd03 = _mm512_shuffle_i64x2(t[s], t[2 + s], 0xdd);
        const Word odd47 = _mm512_shuffle_i64x2(t[4 + s], t[6 + s], 0xdd);
        out[s] = _mm512_shuffle_i64x2(even03, even47, 0x88);      // q0: word s
        out[4 + s] = _mm512_shuffle_i64x2(even03, even47, 0xdd);  // q2: word 4 + s
        out[2 + s] = _mm512_shuffle_i64x2(odd03, odd47, 0x88);    // q1: word 2 + s
        out[6 + s] = _mm512_shuffle_i64x2(odd03, odd47, 0xdd);    // q3: word 6 + s
      }
    }
  }
};

}  // namespace

void compress_blocks_avx512(uint64_t state[8], const uint8_t* blocks, size_t nblocks) {
  compress_blocks_scalar<XmmOps>(state, blocks, nblocks);
}

void compress_x8_avx512(uint64_t state[8][8], const uint8_t* const blocks[8]) {
  compress_lanes<ZmmLanes>(state, blocks);
}

}  // namespace sha512
}  // namespace ks

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // KS_SHA512_X86
