// SM3 kernels for x86-64 CPUs with AVX-512 F/VL/BW (Skylake-SP, Ice Lake,
// Zen 4 and later): the single-stream compressor with the message expansion
// on vprold/vpternlogd, and the 16-lane multi-buffer compressor. Shared
// logic is in sm3_x86_simd.h.
#include "sm3/sm3_x86_kernels.h"

#if KS_SM3_X86

// GCC 12 warns that _mm512_undefined_epi32() inside its own AVX-512 headers
// is "used uninitialized" once inlined (GCC bug 105593). Diagnostic pragmas
// go by source location, so silencing the header's lines is enough.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

// Everything below, including the templates of sm3_compress.h, is compiled
// for AVX-512 + BMI2; see sm3_x86_simd.h.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2,avx512f,avx512vl,avx512bw"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2,avx512f,avx512vl,avx512bw")
#endif

#include "sm3/sm3_x86_simd.h"

namespace ks {
namespace sm3 {
namespace {

// vpternlogd truth tables over (a, b, c) = (0xf0, 0xcc, 0xaa).
constexpr int kXor3 = 0x96;    // a ^ b ^ c
constexpr int kMaj = 0xe8;     // FF_j, j >= 16: majority
constexpr int kChoose = 0xca;  // GG_j, j >= 16: a ? b : c

// MemorySanitizer checks vpternlogd's operands strictly, so the
// constant-time check build (KS_CT_MSAN, core/secure.h) spells the three
// functions with two-input operations, bit for bit the same.
#if defined(KS_CT_MSAN)
template <int kTable, class V>
KS_X86_INLINE V ternary_logic(V a, V b, V c) {
  static_assert(kTable == kXor3 || kTable == kMaj || kTable == kChoose, "table");
  if (kTable == kXor3) return a ^ b ^ c;
  if (kTable == kMaj) return (a & b) | (a & c) | (b & c);
  return (a & b) | (~a & c);
}
#define KS_TERNLOG(width, a, b, c, table) ternary_logic<table>(a, b, c)
#else
#define KS_TERNLOG(width, a, b, c, table) width##_ternarylogic_epi32(a, b, c, table)
#endif

// 128-bit words for the message expansion.
struct XmmOps {
  using Word = __m128i;
  template <int n>
  KS_X86_INLINE static __m128i rotl(__m128i x) { return _mm_rol_epi32(x, n); }
  KS_X86_INLINE static __m128i xor2(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }
  KS_X86_INLINE static __m128i xor3(__m128i a, __m128i b, __m128i c) {
    return KS_TERNLOG(_mm, a, b, c, kXor3);
  }
};

// Sixteen lanes of 32-bit words.
struct ZmmLanes {
  static constexpr int kLanes = 16;
  using Word = __m512i;
  template <int n>
  KS_X86_INLINE static Word rotl(Word x) { return _mm512_rol_epi32(x, n); }
  template <uint32_t c>
  KS_X86_INLINE static Word add_constant(Word x) {
    return _mm512_add_epi32(x, _mm512_set1_epi32(constant_in_memory<c>()));
  }
  KS_X86_INLINE static Word add(Word a, Word b) { return _mm512_add_epi32(a, b); }
  KS_X86_INLINE static Word xor2(Word a, Word b) { return _mm512_xor_si512(a, b); }
  KS_X86_INLINE static Word xor3(Word a, Word b, Word c) {
    return KS_TERNLOG(_mm512, a, b, c, kXor3);
  }
  KS_X86_INLINE static Word maj(Word a, Word b, Word c) {
    return KS_TERNLOG(_mm512, a, b, c, kMaj);
  }
  KS_X86_INLINE static Word choose(Word e, Word f, Word g) {
    return KS_TERNLOG(_mm512, e, f, g, kChoose);
  }
  KS_X86_INLINE static Word load(const uint32_t* p) { return _mm512_loadu_si512(p); }
  KS_X86_INLINE static void store(uint32_t* p, Word v) { _mm512_storeu_si512(p, v); }

  // w[i] = big-endian word i of every lane's block: a 16x16 transpose of
  // 32-bit elements (unpack 32, unpack 64, then two 128-bit shuffles).
  KS_X86_INLINE static void load_message(Word w[16], const uint8_t* const blocks[16]) {
    const __m512i bswap = _mm512_broadcast_i32x4(
        _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3));
    Word r[16], t[16], u[16];
    KS_UNROLL
    for (int i = 0; i < 16; ++i) r[i] = _mm512_shuffle_epi8(_mm512_loadu_si512(blocks[i]), bswap);
    KS_UNROLL
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    // u[4g + s], 128-bit lane q: word 4q + s of rows 4g..4g+3.
    KS_UNROLL
    for (int g = 0; g < 16; g += 4) {
      u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
      u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
      u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
      u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    KS_UNROLL
    for (int s = 0; s < 4; ++s) {
      const Word lo01 = _mm512_shuffle_i32x4(u[s], u[4 + s], 0x44);      // q0 q1 | q0 q1
      const Word hi01 = _mm512_shuffle_i32x4(u[s], u[4 + s], 0xee);      // q2 q3 | q2 q3
      const Word lo23 = _mm512_shuffle_i32x4(u[8 + s], u[12 + s], 0x44);
      const Word hi23 = _mm512_shuffle_i32x4(u[8 + s], u[12 + s], 0xee);
      w[s] = _mm512_shuffle_i32x4(lo01, lo23, 0x88);       // q0 of rows 0-15
      w[4 + s] = _mm512_shuffle_i32x4(lo01, lo23, 0xdd);   // q1
      w[8 + s] = _mm512_shuffle_i32x4(hi01, hi23, 0x88);   // q2
      w[12 + s] = _mm512_shuffle_i32x4(hi01, hi23, 0xdd);  // q3
    }
  }
};

}  // namespace

void compress_blocks_avx512(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  compress_blocks_scalar<XmmOps>(state, blocks, nblocks);
}

void compress_x16_avx512(uint32_t state[8][16], const uint8_t* const blocks[16]) {
  compress_lanes<ZmmLanes>(state, blocks);
}

}  // namespace sm3
}  // namespace ks

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // KS_SM3_X86
