// x86 SM4 kernels written once over vector-lane and S-box policies.
// Included only by the sm4_x86_*.cc files, *inside* their `#pragma GCC
// target` region, so that these templates (and sm4_core.h's rounds) are
// compiled for the including file's instruction set. Everything is in an
// unnamed namespace for the reason sm3/sm3_x86_simd.h gives: no
// out-of-line copy built for AVX-512 may be picked by the linker for a
// caller on a CPU without it.
//
// Layout: a group is 4 vectors of 32-bit lanes, one block per lane,
// vector i holding word X_i of every block (blocks are read as big-endian
// words). Loading 4 vectors of consecutive blocks and transposing 4x4
// words inside each 128-bit lane gives that layout; in it the round
// function is plain lane-wise arithmetic, and the S-box is the policy S:
// GFNI's affine/inverse-affine pair or AES-NI's aesenclast between two
// nibble-table affine maps (sm4_sbox_affine.h).
//
// The including file picks its pieces before the #include:
// KS_SM4_LANES_YMM (AVX2, 8 blocks per vector) or KS_SM4_LANES_ZMM
// (AVX-512, 16), and KS_SM4_SBOX_GFNI or KS_SM4_SBOX_AESNI; it then takes
// tau_lanes, crypt_blocks_lanes and ctr_blocks_lanes for its Variant.
#ifndef KS_CIPHER_SM4_X86_LANES_H_
#define KS_CIPHER_SM4_X86_LANES_H_

#ifdef KS_CIPHER_SM4_CORE_H_
#error "sm4_core.h was included outside the target region; see above"
#endif

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sm4/sm4_blocks.h"
#include "sm4/sm4_core.h"
#include "sm4/sm4_sbox_affine.h"
#include "core/secure.h"

#define KS_SM4_INLINE inline __attribute__((always_inline))

namespace ks {
namespace sm4 {
namespace {

// A 16-byte pattern repeated in every 128-bit lane (vpshufb works per lane).
struct BytePattern {
  uint8_t b[16];
};

constexpr BytePattern kBswap32 = {{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12}};
// Rotation of each 32-bit word left by 8n bits: byte d of a word takes
// byte (d - n) mod 4.
constexpr BytePattern rotl_bytes(int n) {
  BytePattern p{};
  for (int i = 0; i < 16; ++i) p.b[i] = uint8_t((i & ~3) | ((i - n) & 3));
  return p;
}

// --- Vector lanes -------------------------------------------------------
// Each policy: V, kWords (32-bit lanes = blocks per group), loads and
// stores, broadcasts, XOR, rotations, the 4x4 transpose and per-lane byte
// shuffles.
// Ymm serves the AVX-512 kernels too (their many-message chains run two
// 256-bit groups, whose rounds have the shorter latency).
#if defined(KS_SM4_LANES_YMM) || defined(KS_SM4_LANES_ZMM)
struct Ymm {
  using V = __m256i;
  static constexpr int kWords = 8;
  KS_SM4_INLINE static V load(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  KS_SM4_INLINE static void store(uint8_t* p, V v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  KS_SM4_INLINE static V pattern(const BytePattern& p) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p.b)));
  }
  KS_SM4_INLINE static V set1(uint32_t x) { return _mm256_set1_epi32(int(x)); }
  KS_SM4_INLINE static V set1_64(uint64_t x) { return _mm256_set1_epi64x(int64_t(x)); }
  KS_SM4_INLINE static V xor2(V a, V b) { return _mm256_xor_si256(a, b); }
#if defined(KS_SM4_LANES_ZMM) && !defined(KS_CT_MSAN)  // AVX-512 VL: vpternlogd
  KS_SM4_INLINE static V xor3(V a, V b, V c) { return _mm256_ternarylogic_epi32(a, b, c, 0x96); }
  KS_SM4_INLINE static V xor5(V a, V b, V c, V d, V e) { return xor3(xor3(a, b, c), d, e); }
#else
  KS_SM4_INLINE static V xor3(V a, V b, V c) { return xor2(xor2(a, b), c); }
  KS_SM4_INLINE static V xor5(V a, V b, V c, V d, V e) {
    return xor2(xor2(xor2(a, b), xor2(c, d)), e);
  }
#endif
  KS_SM4_INLINE static V and2(V a, V b) { return _mm256_and_si256(a, b); }
  KS_SM4_INLINE static V add32(V a, V b) { return _mm256_add_epi32(a, b); }
  KS_SM4_INLINE static V shr16(V a, int n) { return _mm256_srli_epi16(a, n); }
  KS_SM4_INLINE static V shuffle(V table, V idx) { return _mm256_shuffle_epi8(table, idx); }
  template <int n>
  KS_SM4_INLINE static V rotl(V v) {
    if (n % 8 == 0) return shuffle(v, pattern(rotl_bytes(n / 8)));
    return _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - n));
  }
  KS_SM4_INLINE static V unpacklo32(V a, V b) { return _mm256_unpacklo_epi32(a, b); }
  KS_SM4_INLINE static V unpackhi32(V a, V b) { return _mm256_unpackhi_epi32(a, b); }
  KS_SM4_INLINE static V unpacklo64(V a, V b) { return _mm256_unpacklo_epi64(a, b); }
  KS_SM4_INLINE static V unpackhi64(V a, V b) { return _mm256_unpackhi_epi64(a, b); }
  KS_SM4_INLINE static V from_words(const uint32_t w[8]) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  }
  // Blocks p[0], p[1] as one vector, and back.
  KS_SM4_INLINE static V load_blocks(const uint8_t* const* p) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0]));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1]));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }
  KS_SM4_INLINE static void store_blocks(uint8_t* const* p, V v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[0]), _mm256_castsi256_si128(v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p[1]), _mm256_extracti128_si256(v, 1));
  }
#if defined(KS_SM4_SBOX_GFNI)
  template <uint8_t c>
  KS_SM4_INLINE static V affine(V x, V m) { return _mm256_gf2p8affine_epi64_epi8(x, m, c); }
  template <uint8_t c>
  KS_SM4_INLINE static V affine_inv(V x, V m) { return _mm256_gf2p8affineinv_epi64_epi8(x, m, c); }
#endif
#if defined(KS_SM4_SBOX_AESNI)
  // AES-NI without VAES works on 128 bits: one aesenclast per half.
  KS_SM4_INLINE static V aesenclast_zero_key(V x) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i lo = _mm_aesenclast_si128(_mm256_castsi256_si128(x), zero);
    const __m128i hi = _mm_aesenclast_si128(_mm256_extracti128_si256(x, 1), zero);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }
#endif
};
#endif

#if defined(KS_SM4_LANES_ZMM)
struct Zmm {
  using V = __m512i;
  static constexpr int kWords = 16;
  KS_SM4_INLINE static V load(const uint8_t* p) { return _mm512_loadu_si512(p); }
  KS_SM4_INLINE static void store(uint8_t* p, V v) { _mm512_storeu_si512(p, v); }
  KS_SM4_INLINE static V pattern(const BytePattern& p) {
    return _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p.b)));
  }
  KS_SM4_INLINE static V set1(uint32_t x) { return _mm512_set1_epi32(int(x)); }
  KS_SM4_INLINE static V set1_64(uint64_t x) { return _mm512_set1_epi64(int64_t(x)); }
  KS_SM4_INLINE static V xor2(V a, V b) { return _mm512_xor_si512(a, b); }
  KS_SM4_INLINE static V xor3(V a, V b, V c) {
#if defined(KS_CT_MSAN)  // MSan checks vpternlogd's operands strictly
    return xor2(xor2(a, b), c);
#else
    return _mm512_ternarylogic_epi32(a, b, c, 0x96);
#endif
  }
  KS_SM4_INLINE static V xor5(V a, V b, V c, V d, V e) { return xor3(xor3(a, b, c), d, e); }
  KS_SM4_INLINE static V and2(V a, V b) { return _mm512_and_si512(a, b); }
  KS_SM4_INLINE static V add32(V a, V b) { return _mm512_add_epi32(a, b); }
  KS_SM4_INLINE static V shr16(V a, int n) { return _mm512_srli_epi16(a, unsigned(n)); }
  KS_SM4_INLINE static V shuffle(V table, V idx) { return _mm512_shuffle_epi8(table, idx); }
  // Whole-byte rotations as vpshufb, the others vprold. On Zen 4 vprold
  // shares its pipes with the two GFNI instructions of the S-box (a mix of
  // the two issues 1 per cycle, like either alone) while vpshufb issues
  // beside them (1.5 per cycle mixed): rotations by 8, 16 and 24 as
  // shuffles gave +4% ECB over 8 and 24 only, +8% before that over vprold
  // alone (tools/sm4_micro.cc).
  template <int n>
  KS_SM4_INLINE static V rotl(V v) {
    if (n % 8 == 0) return shuffle(v, pattern(rotl_bytes(n / 8)));
    return _mm512_rol_epi32(v, n);
  }
  KS_SM4_INLINE static V unpacklo32(V a, V b) { return _mm512_unpacklo_epi32(a, b); }
  KS_SM4_INLINE static V unpackhi32(V a, V b) { return _mm512_unpackhi_epi32(a, b); }
  KS_SM4_INLINE static V unpacklo64(V a, V b) { return _mm512_unpacklo_epi64(a, b); }
  KS_SM4_INLINE static V unpackhi64(V a, V b) { return _mm512_unpackhi_epi64(a, b); }
  KS_SM4_INLINE static V from_words(const uint32_t w[16]) { return _mm512_loadu_si512(w); }
  // Blocks p[0..3] as one vector, and back.
  KS_SM4_INLINE static V load_blocks(const uint8_t* const* p) {
    auto block = [&](int i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i])); };
    V v = _mm512_castsi128_si512(block(0));
    v = _mm512_inserti32x4(v, block(1), 1);
    v = _mm512_inserti32x4(v, block(2), 2);
    return _mm512_inserti32x4(v, block(3), 3);
  }
  KS_SM4_INLINE static void store_blocks(uint8_t* const* p, V v) {
    auto put = [&](int i, __m128i b) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p[i]), b); };
    put(0, _mm512_castsi512_si128(v));
    put(1, _mm512_extracti32x4_epi32(v, 1));
    put(2, _mm512_extracti32x4_epi32(v, 2));
    put(3, _mm512_extracti32x4_epi32(v, 3));
  }
#if defined(KS_SM4_SBOX_GFNI)
  template <uint8_t c>
  KS_SM4_INLINE static V affine(V x, V m) { return _mm512_gf2p8affine_epi64_epi8(x, m, c); }
  template <uint8_t c>
  KS_SM4_INLINE static V affine_inv(V x, V m) { return _mm512_gf2p8affineinv_epi64_epi8(x, m, c); }
#endif
#if defined(KS_SM4_SBOX_AESNI)
  KS_SM4_INLINE static V aesenclast_zero_key(V x) {
    return _mm512_aesenclast_epi128(x, _mm512_setzero_si512());
  }
#endif
};
#endif

// --- S-box policies (sm4_sbox_affine.h) -----------------------------------
#if defined(KS_SM4_SBOX_GFNI)
// Two instructions: the affine map into AES's field, then inversion there
// with the affine map out folded into gf2p8affineinvqb.
template <class L>
struct GfniSbox {
  KS_SM4_INLINE static typename L::V apply(typename L::V x) {
    x = L::template affine<affine::kGfniInConstant>(x, L::set1_64(affine::kGfniIn));
    return L::template affine_inv<affine::kGfniOutConstant>(x, L::set1_64(affine::kGfniOut));
  }
};
#endif

#if defined(KS_SM4_SBOX_AESNI)
// aesenclast with a zero key computes SubBytes(ShiftRows(x)). InvShiftRows
// first leaves every byte in place: byte r + 4c takes byte r + 4(c - r).
constexpr BytePattern inv_shift_rows() {
  BytePattern p{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) p.b[r + 4 * c] = uint8_t(r + 4 * ((c - r) & 3));
  return p;
}

constexpr BytePattern table_pattern(const uint8_t (&t)[16]) {
  BytePattern p{};
  for (int i = 0; i < 16; ++i) p.b[i] = t[i];
  return p;
}

// f(x) = lo[x & 15] ^ hi[x >> 4] on every byte: vpshufb looks the nibbles
// up in registers, so the index is secret but the access is not to memory.
template <class L>
KS_SM4_INLINE typename L::V nibble_affine(typename L::V x, const affine::NibbleTables& t) {
  const auto mask = L::set1(0x0f0f0f0fu);
  const auto lo = L::shuffle(L::pattern(table_pattern(t.lo)), L::and2(x, mask));
  const auto hi = L::shuffle(L::pattern(table_pattern(t.hi)), L::and2(L::shr16(x, 4), mask));
  return L::xor2(lo, hi);
}

template <class L>
struct AesniSbox {
  KS_SM4_INLINE static typename L::V apply(typename L::V x) {
    x = nibble_affine<L>(x, affine::kAesIn);
    x = L::aesenclast_zero_key(L::shuffle(x, L::pattern(inv_shift_rows())));
    return nibble_affine<L>(x, affine::kAesOut);
  }
};
#endif

// --- The SM4 word operations over U independent groups ------------------
// U groups interleaved give the out-of-order core independent work: one
// round of one group is a chain of ~8 dependent operations.
template <class L, class S, int U>
struct LaneOps {
  using V = typename L::V;
  struct Word {
    V v[U];
  };
  static constexpr bool kUnrollRounds = true;
  KS_SM4_INLINE static Word key_xor(const Word& a, const Word& b, uint32_t rk) {
    const V k = L::set1(rk);
    Word r;
    for (int g = 0; g < U; ++g) r.v[g] = L::xor3(a.v[g], b.v[g], k);
    return r;
  }
  KS_SM4_INLINE static Word tau(const Word& w) {
    Word r;
    for (int g = 0; g < U; ++g) r.v[g] = S::apply(w.v[g]);
    return r;
  }
  template <int n>
  KS_SM4_INLINE static Word rotl(const Word& w) {
    Word r;
    for (int g = 0; g < U; ++g) r.v[g] = L::template rotl<n>(w.v[g]);
    return r;
  }
  KS_SM4_INLINE static Word xor2(const Word& a, const Word& b) {
    Word r;
    for (int g = 0; g < U; ++g) r.v[g] = L::xor2(a.v[g], b.v[g]);
    return r;
  }
};

// 4x4 transpose of 32-bit words inside each 128-bit lane (an involution).
template <class L>
KS_SM4_INLINE void transpose4(typename L::V v[4]) {
  const auto t0 = L::unpacklo32(v[0], v[1]), t1 = L::unpacklo32(v[2], v[3]);
  const auto t2 = L::unpackhi32(v[0], v[1]), t3 = L::unpackhi32(v[2], v[3]);
  v[0] = L::unpacklo64(t0, t1);
  v[1] = L::unpackhi64(t0, t1);
  v[2] = L::unpacklo64(t2, t3);
  v[3] = L::unpackhi64(t2, t3);
}

// Bytes of one group: 4 vectors of kWords / 4 blocks each.
template <class L>
constexpr size_t kGroupBytes = 16 * L::kWords;

template <class L>
KS_SM4_INLINE void load_group(const uint8_t* p, typename L::V x[4]) {
  const auto bswap = L::pattern(kBswap32);
  for (int j = 0; j < 4; ++j) x[j] = L::shuffle(L::load(p + j * 4 * L::kWords), bswap);
  transpose4<L>(x);
}

// Stores a group's output words (x[0..3] after crypt_words), XORed with
// the bytes at `with` when it is not null (CTR).
template <class L>
KS_SM4_INLINE void store_group(uint8_t* p, typename L::V x[4], const uint8_t* with) {
  const auto bswap = L::pattern(kBswap32);
  transpose4<L>(x);
  for (int j = 0; j < 4; ++j) {
    auto v = L::shuffle(x[j], bswap);
    if (with != nullptr) v = L::xor2(v, L::load(with + j * 4 * L::kWords));
    L::store(p + j * 4 * L::kWords, v);
  }
}

// The block held by each lane of a transposed group: lane j of 128-bit
// lane l came from vector j, block (kWords / 4) * j + l.
template <class L>
KS_SM4_INLINE typename L::V block_of_lane() {
  uint32_t w[L::kWords];
  for (int e = 0; e < L::kWords; ++e) w[e] = uint32_t((L::kWords / 4) * (e % 4) + e / 4);
  return L::from_words(w);
}

template <class L, class S, int U>
KS_SM4_INLINE void crypt_groups(const uint32_t rk[32], const uint8_t* in, uint8_t* out) {
  using Ops = LaneOps<L, S, U>;
  typename Ops::Word x[4];
  for (int g = 0; g < U; ++g) {
    typename L::V v[4];
    load_group<L>(in + g * kGroupBytes<L>, v);
    for (int i = 0; i < 4; ++i) x[i].v[g] = v[i];
  }
  crypt_words<Ops>(x, rk);
  for (int g = 0; g < U; ++g) {
    typename L::V v[4] = {x[0].v[g], x[1].v[g], x[2].v[g], x[3].v[g]};
    store_group<L>(out + g * kGroupBytes<L>, v, nullptr);
  }
}

// Fewer blocks than this go one (or two) at a time through the folded
// rounds of sm4_x86_serial.h (defined there; every kernel includes it):
// a zero-padded group of lanes costs 32 rounds of its longer latency.
void crypt_blocks_serial(const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t n);
constexpr size_t kSerialBelowBlocks = 4;

// The Variant::crypt_blocks of a kernel: U groups at a time, what is left
// with U/2, U/4, ... groups (one group is latency-bound), then a few
// blocks one at a time or a zero-padded last group.
template <class L, class S, int U>
void crypt_blocks_lanes(const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t n) {
  if (n < kSerialBelowBlocks) return crypt_blocks_serial(rk, in, out, n);  // short messages
  constexpr size_t kBig = size_t(U) * L::kWords;
  for (; n >= kBig; n -= kBig, in += 16 * kBig, out += 16 * kBig)
    crypt_groups<L, S, U>(rk, in, out);
  if (n == 0) return;
  if constexpr (U > 1) {
    crypt_blocks_lanes<L, S, U / 2>(rk, in, out, n);
  } else {
    uint8_t buf[kGroupBytes<L>] = {};
    memcpy(buf, in, 16 * n);
    crypt_groups<L, S, 1>(rk, buf, buf);
    memcpy(out, buf, 16 * n);
    secure_wipe(buf, sizeof buf);
  }
}

// The Variant::ctr_blocks of a kernel. The counters of U groups are made
// in registers, already transposed: words 0-2 are the same in every block
// while the low word does not wrap inside the run, word 3 is the low word
// plus the block's index. Runs where it wraps (at most one in 2^32 blocks)
// and the last partial run go through ctr_by_blocks.
template <class L, class S, int U>
void ctr_blocks_lanes(const uint32_t rk[32], uint8_t counter[16], const uint8_t* in,
                      uint8_t* out, size_t n) {
  using Ops = LaneOps<L, S, U>;
  constexpr size_t kBig = size_t(U) * L::kWords;
  const auto lanes = block_of_lane<L>();
  for (; n >= kBig; n -= kBig, in += 16 * kBig, out += 16 * kBig) {
    const uint32_t low = load_be32(counter + 12);
    if (low > 0xffffffffu - (kBig - 1)) {
      ctr_by_blocks(crypt_blocks_lanes<L, S, U>, rk, counter, in, out, kBig);
      continue;
    }
    typename Ops::Word x[4];
    for (int g = 0; g < U; ++g) {
      for (int i = 0; i < 3; ++i) x[i].v[g] = L::set1(load_be32(counter + 4 * i));
      x[3].v[g] = L::add32(L::set1(low + uint32_t(g * L::kWords)), lanes);
    }
    crypt_words<Ops>(x, rk);
    for (int g = 0; g < U; ++g) {
      typename L::V v[4] = {x[0].v[g], x[1].v[g], x[2].v[g], x[3].v[g]};
      store_group<L>(out + g * kGroupBytes<L>, v, in + g * kGroupBytes<L>);
    }
    ctr128_add(counter, kBig);
  }
  if (n == 0) return;
  if constexpr (U > 1) {
    ctr_blocks_lanes<L, S, U / 2>(rk, counter, in, out, n);
  } else {
    ctr_by_blocks(crypt_blocks_lanes<L, S, 1>, rk, counter, in, out, n);
  }
}

// Many messages' blocks as one group: lane e of the transposed layout is
// message block_of_lane(e)'s block; p[m] the block of message m.
template <class L>
KS_SM4_INLINE void load_blocks_of(const uint8_t* const p[L::kWords], typename L::V x[4]) {
  const auto bswap = L::pattern(kBswap32);
  for (int j = 0; j < 4; ++j) x[j] = L::shuffle(L::load_blocks(p + j * L::kWords / 4), bswap);
  transpose4<L>(x);
}

template <class L>
KS_SM4_INLINE void store_blocks_of(uint8_t* const p[L::kWords], const typename L::V words[4]) {
  const auto bswap = L::pattern(kBswap32);
  typename L::V x[4] = {words[0], words[1], words[2], words[3]};
  transpose4<L>(x);
  for (int j = 0; j < 4; ++j) L::store_blocks(p + j * L::kWords / 4, L::shuffle(x[j], bswap));
}

// tau of one word through a kernel's S-box, for the key expansion.
template <class L, class S>
uint32_t tau_lanes(uint32_t w) {
  uint32_t words[L::kWords] = {w};
  const auto v = S::apply(L::from_words(words));
  memcpy(words, &v, sizeof words);
  const uint32_t r = words[0];
  secure_wipe(words, sizeof words);
  return r;
}

}  // namespace
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_X86_LANES_H_
