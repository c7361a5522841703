// x86 SM3 kernels written once over ISA-specific word-operation policies.
// Included only by sm3_x86_avx2.cc and sm3_x86_avx512.cc, *inside* their
// `#pragma GCC target` region (and before anything else includes
// sm3_compress.h), so that the shared templates are compiled for the ISA of
// the including file. Everything here is in an unnamed namespace on purpose:
// each including file gets its own copy built for its own instruction set,
// and no out-of-line copy built for AVX-512 can be picked by the linker for
// a caller on a CPU without it.
#ifndef KS_HASH_SM3_X86_SIMD_H_
#define KS_HASH_SM3_X86_SIMD_H_

#ifdef KS_HASH_SM3_COMPRESS_H_
#error "sm3_compress.h was included outside the target region; see above"
#endif

#include <immintrin.h>

#include "core/hd.h"
#include <stddef.h>
#include <stdint.h>

#include "sm3/sm3_compress.h"

#define KS_X86_INLINE inline __attribute__((always_inline))

// KS_UNROLL (core/hd.h) on the short loops of the lane transposes: GCC
// leaves them rolled, with their arrays of vectors in memory (9% of the x16
// kernel).

namespace ks {
namespace sm3 {
namespace {

// The 32-bit constant c as a value loaded from memory, for the vector
// policies: GCC would build each broadcast round constant with mov +
// vpbroadcastd (integer and shuffle work) where a broadcasting load, or
// AVX-512's {1to16} operand, costs only a load (4% of the x16 kernel).
template <uint32_t c>
KS_X86_INLINE int constant_in_memory() {
  static const uint32_t k = c;
  const uint32_t* p = &k;
  __asm__("" : "+r"(p));  // hides the value from the optimizer
  return int(*p);
}

// ---------------------------------------------------------------------------
// Single stream: scalar rounds, SIMD message expansion.
//
// A block's 64 rounds are one dependency chain: in rounds 16-63 it runs
// E -> SS1 -> TT2 -> P0(TT2) = next E in 7 single-cycle steps (6 in rounds
// 0-15), and each round also needs ~25 other ALU operations, 6 of them
// rotations. With 4 integer ALUs the two limits nearly coincide, so every
// ALU operation taken out of the rounds shows: the message expansion
// (section 5.3.2) runs on the vector units, interleaved with the rounds,
// and the rounds read W_j and W'_j as memory operands of their additions.

// Scalar words for the x86 rounds (BMI2 turns the rotations into rorx).
struct X86ScalarOps : ScalarOps {
  // An addition kept in the order written. Without the barrier the compiler
  // folds (A<<<12 + T_j) + E into one three-operand LEA (2-cycle latency on
  // Zen) on the critical path and reassociates TT1/TT2 so that the late
  // SS1/SS2 no longer come last.
  KS_X86_INLINE static Word add(Word a, Word b) {
    Word r = a + b;
#if !defined(KS_CT_MSAN)  // a scheduling hint only, which MSan would check strictly
    __asm__("" : "+r"(r));
#endif
    return r;
  }
  template <uint32_t c>
  KS_X86_INLINE static Word add_constant(Word x) { return add(x, c); }
  // FF_j (j >= 16) as two disjoint halves joined by an addition the compiler
  // may merge into the TT1 sum: (B&C) is off the critical path.
  KS_X86_INLINE static Word maj(Word a, Word b, Word c) { return (a & (b ^ c)) + (b & c); }
};

// Schedule for compress_with(): W_0..W_15 byte-swapped on load, then every
// fourth round the next four words W_{j+16..j+19} and W'_{j+12..j+15} in one
// 128-bit step. Interleaving keeps the expansion's long dependency chain out
// of the way of the rounds (computed all up front it fills the reorder
// buffer). VOps: rotl<n>, xor2, xor3 on __m128i.
//
// Four words per step although W_{k} depends on W_{k-3}: lane 3 is computed
// with W_{k} (lane 0 of the same step) taken as zero, then corrected; P1 is
// linear over GF(2), so the missing term is P1(W_k <<< 15) =
// (W_k<<<15) ^ (W_k<<<30) ^ (W_k<<<6).
template <class VOps>
struct XmmAheadSchedule {
  alignas(16) uint32_t w[64];
  alignas(16) uint32_t wp[64];
  __m128i x0, x1, x2, x3;  // the last 16 words, W_{j..j+15}

  KS_X86_INLINE void load(const uint8_t* block) {
    const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    const __m128i* p = reinterpret_cast<const __m128i*>(block);
    x0 = _mm_shuffle_epi8(_mm_loadu_si128(p), bswap);
    x1 = _mm_shuffle_epi8(_mm_loadu_si128(p + 1), bswap);
    x2 = _mm_shuffle_epi8(_mm_loadu_si128(p + 2), bswap);
    x3 = _mm_shuffle_epi8(_mm_loadu_si128(p + 3), bswap);
    store(w, x0);
    store(w + 4, x1);
    store(w + 8, x2);
    store(w + 12, x3);
    store(wp, _mm_xor_si128(x0, x1));
    store(wp + 4, _mm_xor_si128(x1, x2));
    store(wp + 8, _mm_xor_si128(x2, x3));
    keep_in_memory();
  }

  template <int j>
  KS_X86_INLINE void next(uint32_t& wj, uint32_t& wpj) {
    if constexpr (j % 4 == 0 && j + 16 < 68) step<j + 16>();
    wj = w[j];
    wpj = wp[j];
  }

 private:
  KS_X86_INLINE static void store(uint32_t* p, __m128i v) {
    _mm_store_si128(reinterpret_cast<__m128i*>(p), v);
  }

  // The rounds should read W_j and W'_j as memory operands of their
  // additions (free on the load ports). Left alone, the compiler forwards
  // the vectors just stored and extracts each word with vpextrd, which
  // costs more and is measurably slower.
  KS_X86_INLINE void keep_in_memory() { __asm__("" : "+m"(w), "+m"(wp)); }

  // W_{k..k+3} and W'_{k-4..k-1}.
  template <int k>
  KS_X86_INLINE void step() {
    const __m128i w16 = x0;                            // W_{k-16..k-13}
    const __m128i w13 = _mm_alignr_epi8(x1, x0, 12);   // W_{k-13..k-10}
    const __m128i w9 = _mm_alignr_epi8(x2, x1, 12);    // W_{k-9..k-6}
    const __m128i w6 = _mm_alignr_epi8(x3, x2, 8);     // W_{k-6..k-3}
    const __m128i w3 = _mm_srli_si128(x3, 4);          // W_{k-3..k-1}, 0
    __m128i n = expand<VOps>(w16, w9, w3, w13, w6);
    const __m128i wk = _mm_slli_si128(n, 12);          // 0, 0, 0, W_k
    n = VOps::xor3(n, VOps::template rotl<15>(wk),
                   VOps::xor2(VOps::template rotl<30>(wk), VOps::template rotl<6>(wk)));
    if constexpr (k < 64) store(w + k, n);
    store(wp + k - 4, _mm_xor_si128(x3, n));
    x0 = x1;
    x1 = x2;
    x2 = x3;
    x3 = n;
    keep_in_memory();
  }
};

template <class VOps>
KS_X86_INLINE void compress_blocks_scalar(uint32_t state[8], const uint8_t* blocks,
                                          size_t nblocks) {
  XmmAheadSchedule<VOps> s;
  for (size_t i = 0; i < nblocks; ++i) {
    s.load(blocks + 64 * i);
    compress_with<X86ScalarOps>(state, s);
  }
}

// ---------------------------------------------------------------------------
// Multi-buffer: one message per 32-bit lane, the whole compression function
// on vectors (V::kLanes lanes). V supplies the Ops interface of
// sm3_compress.h plus load/store of a word-major state row and
// load_message(): the 16 big-endian message words of each lane's block,
// transposed so that w[i] holds word i of every lane.
template <class V>
KS_X86_INLINE void compress_lanes(uint32_t state[8][V::kLanes],
                                  const uint8_t* const blocks[V::kLanes]) {
  RingSchedule<V> s;
  V::load_message(s.w, blocks);
  typename V::Word v[8];
  KS_UNROLL
  for (int i = 0; i < 8; ++i) v[i] = V::load(state[i]);
  compress_with<V>(v, s);
  KS_UNROLL
  for (int i = 0; i < 8; ++i) V::store(state[i], v[i]);
}

}  // namespace
}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_X86_SIMD_H_
