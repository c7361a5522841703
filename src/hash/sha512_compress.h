// SHA-512 compression function (FIPS 180-4, section 6.4.2), written once
// for the CPU and the GPU. This is the portable reference every faster
// variant (src/hash/sha512_x86*.cc, later a GPU kernel) is tested against.
//
// As in sm3_compress.h, the rounds and the message schedule are written
// against a small "word operations" interface (Ops): ScalarOps below works
// on one uint64_t, the SIMD variants supply the same static functions over
// vectors of 64-bit lanes (one message per lane). Rounds are unrolled at
// compile time, so K_t folds to a constant and the renaming of the working
// variables (step 3 of section 6.4.2) costs no moves.
#ifndef KS_HASH_SHA512_COMPRESS_H_
#define KS_HASH_SHA512_COMPRESS_H_

#include <stdint.h>
#include <string.h>

#include "core/endian.h"
#include "core/hd.h"

namespace ks {
namespace sha512 {

// K_0..K_79 (section 4.2.3). Device code may read a host constexpr array
// only in constant expressions, which is how the rounds read it (K_t is a
// template constant); a kernel that wants the table in memory instead
// copies it to a __constant__ array with cudaMemcpyToSymbol. Aligned for
// the vector loads of the x86 message schedule.
alignas(64) constexpr uint64_t kK[80] = {
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
    0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
    0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
    0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
    0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
    0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
    0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
    0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
    0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
    0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
    0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

// Initial hash value H(0) (section 5.3.5).
constexpr uint64_t kIV[8] = {
    0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
    0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
};

// state = H(0), word by word as constant expressions (see kK): usable in
// device code.
template <int i = 0>
KS_HD void load_iv(uint64_t state[8]) {
  constexpr uint64_t word = kIV[i];
  state[i] = word;
  if constexpr (i + 1 < 8) load_iv<i + 1>(state);
}

using ks::load_be64;
using ks::store_be64;

// K_t as a constant expression (see kK).
template <int t>
KS_HD constexpr uint64_t round_constant() {
  return kK[t];
}

// The Ops interface, here on one 64-bit word: a Word type and rotr<n>,
// shr<n>, add_round_constant<t> (x + K_t), add, xor3, ch and maj (section
// 4.1.3).
struct ScalarOps {
  using Word = uint64_t;
  template <int n>
  KS_HD static Word rotr(Word x) { return (x >> n) | (x << (64 - n)); }
  template <int n>
  KS_HD static Word shr(Word x) { return x >> n; }
  template <int t>
  KS_HD static Word add_round_constant(Word x) { return x + round_constant<t>(); }
  KS_HD static Word add(Word a, Word b) { return a + b; }
  KS_HD static Word xor3(Word a, Word b, Word c) { return a ^ b ^ c; }
  // Ch(e, f, g): f where e is 1, g where it is 0.
  KS_HD static Word ch(Word e, Word f, Word g) { return ((f ^ g) & e) ^ g; }
  // Maj(a, b, c) as ((a ^ b) & (b ^ c)) ^ b: the next round's b ^ c is this
  // round's a ^ b, which the compiler then computes once (3 operations a
  // round instead of 4).
  KS_HD static Word maj(Word a, Word b, Word c) { return ((a ^ b) & (b ^ c)) ^ b; }
};

// The four functions of section 4.1.3 (equations 4.10 to 4.13).
template <class Ops>
KS_HD typename Ops::Word big_sigma0(typename Ops::Word x) {
  return Ops::xor3(Ops::template rotr<28>(x), Ops::template rotr<34>(x),
                   Ops::template rotr<39>(x));
}

template <class Ops>
KS_HD typename Ops::Word big_sigma1(typename Ops::Word x) {
  return Ops::xor3(Ops::template rotr<14>(x), Ops::template rotr<18>(x),
                   Ops::template rotr<41>(x));
}

template <class Ops>
KS_HD typename Ops::Word small_sigma0(typename Ops::Word x) {
  return Ops::xor3(Ops::template rotr<1>(x), Ops::template rotr<8>(x), Ops::template shr<7>(x));
}

template <class Ops>
KS_HD typename Ops::Word small_sigma1(typename Ops::Word x) {
  return Ops::xor3(Ops::template rotr<19>(x), Ops::template rotr<61>(x),
                   Ops::template shr<6>(x));
}

// W_t from earlier words (section 6.4.2, step 1):
// W_t = sigma1(W_{t-2}) + W_{t-7} + sigma0(W_{t-15}) + W_{t-16}.
template <class Ops>
KS_HD typename Ops::Word schedule_word(typename Ops::Word w16, typename Ops::Word w15,
                                       typename Ops::Word w7, typename Ops::Word w2) {
  return Ops::add(Ops::add(small_sigma1<Ops>(w2), w7), Ops::add(small_sigma0<Ops>(w15), w16));
}

// Round t (section 6.4.2, step 3) with kw = K_t + W_t. Only d and h are
// written: the caller renames a..h for the next round (h holds the new a,
// d the new e), so no word moves. The additions are ordered so that the
// late value Sigma1(e) comes last.
template <class Ops>
KS_HD void round(typename Ops::Word a, typename Ops::Word b, typename Ops::Word c,
                 typename Ops::Word& d, typename Ops::Word e, typename Ops::Word f,
                 typename Ops::Word g, typename Ops::Word& h, typename Ops::Word kw) {
  using Word = typename Ops::Word;
  const Word t1 = Ops::add(Ops::add(Ops::add(h, kw), Ops::ch(e, f, g)), big_sigma1<Ops>(e));
  const Word t2 = Ops::add(big_sigma0<Ops>(a), Ops::maj(a, b, c));
  d = Ops::add(d, t1);
  h = Ops::add(t1, t2);
}

// Rounds t..79, eight at a time (after eight renamings the names line up
// again). Schedule::next<t>() yields K_t + W_t in round order.
template <class Ops, int t, class Schedule>
KS_HD void rounds_from(Schedule& s, typename Ops::Word& a, typename Ops::Word& b,
                       typename Ops::Word& c, typename Ops::Word& d, typename Ops::Word& e,
                       typename Ops::Word& f, typename Ops::Word& g, typename Ops::Word& h) {
  round<Ops>(a, b, c, d, e, f, g, h, s.template next<t>());
  round<Ops>(h, a, b, c, d, e, f, g, s.template next<t + 1>());
  round<Ops>(g, h, a, b, c, d, e, f, s.template next<t + 2>());
  round<Ops>(f, g, h, a, b, c, d, e, s.template next<t + 3>());
  round<Ops>(e, f, g, h, a, b, c, d, s.template next<t + 4>());
  round<Ops>(d, e, f, g, h, a, b, c, s.template next<t + 5>());
  round<Ops>(c, d, e, f, g, h, a, b, s.template next<t + 6>());
  round<Ops>(b, c, d, e, f, g, h, a, s.template next<t + 7>());
  if constexpr (t + 8 < 80) rounds_from<Ops, t + 8>(s, a, b, c, d, e, f, g, h);
}

// H(i) = H(i-1) + the working variables after 80 rounds (section 6.4.2,
// step 4), with the message words from s.
template <class Ops, class Schedule>
KS_HD void compress_with(typename Ops::Word state[8], Schedule& s) {
  typename Ops::Word a = state[0], b = state[1], c = state[2], d = state[3];
  typename Ops::Word e = state[4], f = state[5], g = state[6], h = state[7];
  rounds_from<Ops, 0>(s, a, b, c, d, e, f, g, h);
  state[0] = Ops::add(state[0], a);
  state[1] = Ops::add(state[1], b);
  state[2] = Ops::add(state[2], c);
  state[3] = Ops::add(state[3], d);
  state[4] = Ops::add(state[4], e);
  state[5] = Ops::add(state[5], f);
  state[6] = Ops::add(state[6], g);
  state[7] = Ops::add(state[7], h);
}

// The message schedule on the fly in a 16-word ring: W_t replaces
// W_{t-16}, which no later step reads. Keeps the schedule in registers
// (GPU, SIMD lanes).
template <class Ops>
struct RingSchedule {
  typename Ops::Word w[16];  // W_0..W_15 on entry

  template <int t>
  KS_HD typename Ops::Word next() {
    if constexpr (t >= 16) {
      w[t & 15] = schedule_word<Ops>(w[t & 15], w[(t - 15) & 15], w[(t - 7) & 15],
                                     w[(t - 2) & 15]);
    }
    return Ops::template add_round_constant<t>(w[t & 15]);
  }
};

// One 128-byte block into state.
KS_HD void compress_block(uint64_t state[8], const uint8_t block[128]) {
  RingSchedule<ScalarOps> s;
#if KS_DEVICE_CODE
#pragma unroll
#endif
  for (int i = 0; i < 16; ++i) s.w[i] = load_be64(block + 8 * i);
  compress_with<ScalarOps>(state, s);
}

}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_COMPRESS_H_
