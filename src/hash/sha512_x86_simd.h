// x86 SHA-512 kernels written once over ISA-specific word-operation
// policies. Included only by sha512_x86_avx2.cc and sha512_x86_avx512.cc,
// *inside* their `#pragma GCC target` region (and before anything else
// includes sha512_compress.h), so that the shared templates are compiled for
// the ISA of the including file. Everything here is in an unnamed namespace
// on purpose: each including file gets its own copy built for its own
// instruction set, and no out-of-line copy built for AVX-512 can be picked
// by the linker for a caller on a CPU without it (as in sm3_x86_simd.h).
// For the same reason the including file includes core/secure.h before its
// target region: its inline functions must not be compiled for the ISA.
#ifndef KS_HASH_SHA512_X86_SIMD_H_
#define KS_HASH_SHA512_X86_SIMD_H_

#ifdef KS_HASH_SHA512_COMPRESS_H_
#error "sha512_compress.h was included outside the target region; see above"
#endif

#ifndef KS_CORE_SECURE_H_
#error "include core/secure.h before the target region; see above"
#endif

#include <immintrin.h>

#include "core/hd.h"
#include <stddef.h>
#include <stdint.h>

#include "hash/sha512_compress.h"

#define KS_X86_INLINE inline __attribute__((always_inline))


namespace ks {
namespace sha512 {
namespace {

// ---------------------------------------------------------------------------
// Single stream: scalar rounds, SIMD message schedule.
//
// A round is ~22 single-cycle integer operations (6 of them rorx) on a
// dependency chain of 4-5: with 4 integer ALUs the rounds are bound by
// throughput, so every operation taken out of them shows. The message
// schedule (section 6.4.2, step 1: ~13 operations a word) runs on the
// vector units instead, two words per 128-bit step interleaved with the
// rounds, and stores K_t + W_t, which the rounds read as a memory operand
// of an addition (free on the load ports).

// 64-bit words in 128-bit vectors with the 64-bit bswap of the block load.
KS_X86_INLINE __m128i load_be64x2(const uint8_t* p) {
  const __m128i bswap = _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), bswap);
}

// Schedule for compress_with(): K_t + W_t for t = 0..79 in memory. W_0..W_15
// are byte-swapped on load; then every second round t < 64 computes
// W_{t+16} and W_{t+17} in one 128-bit step, 16 rounds before they are
// needed, so the schedule's latency stays out of the way of the rounds.
// Two words at a time need no correction: W_{t+17} depends on W_{t+15},
// not on W_{t+16}. VOps: rotr<n>, shr<n>, add and xor3 on __m128i.
//
// The words K_t + W_t live in the caller's array: were they a member, the
// asm barrier below would take the address of the whole object, and the
// compiler would keep the ring x[] in memory too.
template <class VOps>
struct XmmAheadSchedule {
  uint64_t (&kw)[80];  // K_t + W_t, 16-byte aligned
  __m128i x[8];        // the last 16 words: W_{j, j+1} in x[(j / 2) % 8]

  KS_X86_INLINE void load(const uint8_t* block) {
    KS_UNROLL
    for (int i = 0; i < 8; ++i) {
      x[i] = load_be64x2(block + 16 * i);
      store_kw(2 * i, x[i]);
    }
    keep_in_memory();
  }

  template <int t>
  KS_X86_INLINE uint64_t next() {
    if constexpr (t % 2 == 0 && t + 16 < 80) step<t + 16>();
    return kw[t];
  }

 private:
  KS_X86_INLINE void store_kw(int t, __m128i w) {
    const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kK + t));
    _mm_store_si128(reinterpret_cast<__m128i*>(kw + t), _mm_add_epi64(w, k));
  }

  // The rounds should read K_t + W_t as memory operands of their additions.
  // Left alone, the compiler forwards the vectors just stored and extracts
  // each word with vpextrq, which costs more. An asm barrier must not take
  // secret data in the constant-time check build (see X86ScalarOps in
  // sm3_x86_simd.h); there it is left out: a scheduling hint only.
  KS_X86_INLINE void keep_in_memory() {
#if !defined(KS_CT_MSAN)
    __asm__("" : "+m"(kw));
#endif
  }

  static constexpr int slot(int j) { return (j / 2) & 7; }

  // W_k and W_{k+1} (k even) into the ring slot of W_{k-16}, W_{k-15}.
  template <int k>
  KS_X86_INLINE void step() {
    const __m128i w16 = x[slot(k - 16)];                                     // W_{k-16, k-15}
    const __m128i w15 = _mm_alignr_epi8(x[slot(k - 14)], x[slot(k - 16)], 8);  // W_{k-15, k-14}
    const __m128i w7 = _mm_alignr_epi8(x[slot(k - 6)], x[slot(k - 8)], 8);     // W_{k-7, k-6}
    const __m128i w2 = x[slot(k - 2)];                                       // W_{k-2, k-1}
    x[slot(k)] = schedule_word<VOps>(w16, w15, w7, w2);
    store_kw(k, x[slot(k)]);
    keep_in_memory();
  }
};

template <class VOps>
KS_X86_INLINE void compress_blocks_scalar(uint64_t state[8], const uint8_t* blocks,
                                          size_t nblocks) {
  alignas(16) uint64_t kw[80];
  XmmAheadSchedule<VOps> s{kw, {}};
  for (size_t i = 0; i < nblocks; ++i) {
    s.load(blocks + 128 * i);
    compress_with<ScalarOps>(state, s);
  }
  secure_wipe(kw, sizeof(kw));  // K_t + W_t: the message (a secret seed, say) in plain view
}

// ---------------------------------------------------------------------------
// Multi-buffer: one message per 64-bit lane, the whole compression function
// on vectors (V::kLanes lanes). V supplies the Ops interface of
// sha512_compress.h plus load/store of a word-major state row and
// load_message(): the 16 big-endian message words of each lane's block,
// transposed so that w[i] holds word i of every lane.

// kK, with its values hidden from the optimizer, for the vector policies:
// GCC would build each broadcast K_t with movabs + vpbroadcastq (integer
// work and a transfer to the vector unit) where a broadcasting load, or
// AVX-512's {1to8} operand, costs only a load.
KS_X86_INLINE const uint64_t* round_constants_in_memory() {
  const uint64_t* p = kK;
  __asm__("" : "+r"(p));
  return p;
}

template <class V>
KS_X86_INLINE void compress_lanes(uint64_t state[8][V::kLanes],
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
}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_X86_SIMD_H_
