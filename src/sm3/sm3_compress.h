// SM3 compression function (GB/T 32905-2016, section 5.3), written once for
// the CPU and the GPU. This is the portable reference every faster variant
// (src/sm3/sm3_x86*.cc, the GPU kernels) is tested against.
//
// The rounds are written against a small "word operations" interface (Ops)
// so that the same round and message-expansion code also drives the x86
// variants: ScalarOps below works on one uint32_t, the SIMD variants supply
// the same static functions over vectors of 32-bit lanes (one message per
// lane). Rounds are unrolled at compile time, so T_j <<< j folds to a
// constant and the register renaming of section 5.3.3 costs no moves.
#ifndef KS_HASH_SM3_COMPRESS_H_
#define KS_HASH_SM3_COMPRESS_H_

#include <stdint.h>
#include <string.h>

#include "core/endian.h"
#include "core/hd.h"

namespace ks {
namespace sm3 {

// Initial value IV (section 4.1).
constexpr uint32_t kIV[8] = {0x7380166f, 0x4914b2b9, 0x172442d7, 0xda8a0600,
                             0xa96f30bc, 0x163138aa, 0xe38dee4d, 0xb0fb0e4e};

// IV as a function: device code cannot read a host constexpr array.
KS_HD void load_iv(uint32_t state[8]) {
  state[0] = 0x7380166f; state[1] = 0x4914b2b9; state[2] = 0x172442d7; state[3] = 0xda8a0600;
  state[4] = 0xa96f30bc; state[5] = 0x163138aa; state[6] = 0xe38dee4d; state[7] = 0xb0fb0e4e;
}

KS_HD uint32_t rotl(uint32_t x, unsigned n) {
  n &= 31;
  return n == 0 ? x : (x << n) | (x >> (32 - n));
}

// Permutations P0 and P1 (section 4.4).
KS_HD uint32_t p0(uint32_t x) { return x ^ rotl(x, 9) ^ rotl(x, 17); }
KS_HD uint32_t p1(uint32_t x) { return x ^ rotl(x, 15) ^ rotl(x, 23); }

using ks::load_be32;
using ks::store_be32;

// The Ops interface, here on one 32-bit word: a Word type and rotl<n>,
// add_constant<c>, add, xor2, xor3, maj and choose. The boolean functions of
// section 4.3 are FF_j = GG_j = xor3 for j < 16, then FF_j = maj and
// GG_j = choose (E ? F : G bit by bit).
struct ScalarOps {
  using Word = uint32_t;
  template <int n>
  KS_HD static Word rotl(Word x) { return (x << n) | (x >> (32 - n)); }
  template <uint32_t c>  // x + c for a round constant c
  KS_HD static Word add_constant(Word x) { return x + c; }
  KS_HD static Word add(Word a, Word b) { return a + b; }
  KS_HD static Word xor2(Word a, Word b) { return a ^ b; }
  KS_HD static Word xor3(Word a, Word b, Word c) { return a ^ b ^ c; }
  KS_HD static Word maj(Word a, Word b, Word c) { return (a & b) | (c & (a | b)); }
  KS_HD static Word choose(Word e, Word f, Word g) { return ((f ^ g) & e) ^ g; }
};

template <class Ops>
KS_HD typename Ops::Word p0(typename Ops::Word x) {
  return Ops::xor3(x, Ops::template rotl<9>(x), Ops::template rotl<17>(x));
}

template <class Ops>
KS_HD typename Ops::Word p1(typename Ops::Word x) {
  return Ops::xor3(x, Ops::template rotl<15>(x), Ops::template rotl<23>(x));
}

// W_k from earlier words (section 5.3.2):
// W_k = P1(W_{k-16} ^ W_{k-9} ^ (W_{k-3} <<< 15)) ^ (W_{k-13} <<< 7) ^ W_{k-6}.
template <class Ops>
KS_HD typename Ops::Word expand(typename Ops::Word w16, typename Ops::Word w9,
                                typename Ops::Word w3, typename Ops::Word w13,
                                typename Ops::Word w6) {
  return Ops::xor3(p1<Ops>(Ops::xor3(w16, w9, Ops::template rotl<15>(w3))),
                   Ops::template rotl<7>(w13), w6);
}

// T_j <<< (j mod 32) (sections 4.2 and 5.3.3).
template <int j>
KS_HD constexpr uint32_t round_constant() {
  constexpr uint32_t t = j < 16 ? 0x79cc4519u : 0x7a879d8au;
  constexpr int n = j % 32;
  return n == 0 ? t : (t << n) | (t >> (32 - n));
}

// Round j of CF (section 5.3.3) with W_j and W'_j = W_j ^ W_{j+4}. Only B, D,
// F and H are written: the caller renames A..H for the next round (D holds
// the new A, H the new E, B and F their rotated selves), so no word moves.
// The additions are ordered so that the late values (SS1, SS2) come last.
template <class Ops, int j>
KS_HD void round(typename Ops::Word a, typename Ops::Word& b, typename Ops::Word c,
                 typename Ops::Word& d, typename Ops::Word e, typename Ops::Word& f,
                 typename Ops::Word g, typename Ops::Word& h, typename Ops::Word w,
                 typename Ops::Word w_prime) {
  using Word = typename Ops::Word;
  const Word a12 = Ops::template rotl<12>(a);
  const Word ss1 =
      Ops::template rotl<7>(Ops::add(Ops::template add_constant<round_constant<j>()>(a12), e));
  const Word ss2 = Ops::xor2(ss1, a12);
  const Word ff = j < 16 ? Ops::xor3(a, b, c) : Ops::maj(a, b, c);
  const Word gg = j < 16 ? Ops::xor3(e, f, g) : Ops::choose(e, f, g);
  d = Ops::add(Ops::add(ff, Ops::add(d, w_prime)), ss2);         // TT1
  h = p0<Ops>(Ops::add(Ops::add(gg, Ops::add(h, w)), ss1));      // P0(TT2)
  b = Ops::template rotl<9>(b);
  f = Ops::template rotl<19>(f);
}

// Rounds j..63, four at a time (after four renamings the names line up
// again). Schedule::next<j>(w, w_prime) yields W_j and W'_j in round order.
template <class Ops, int j, class Schedule>
KS_HD void rounds_from(Schedule& s, typename Ops::Word& a, typename Ops::Word& b,
                       typename Ops::Word& c, typename Ops::Word& d, typename Ops::Word& e,
                       typename Ops::Word& f, typename Ops::Word& g, typename Ops::Word& h) {
  typename Ops::Word w, wp;
  s.template next<j>(w, wp);
  round<Ops, j>(a, b, c, d, e, f, g, h, w, wp);
  s.template next<j + 1>(w, wp);
  round<Ops, j + 1>(d, a, b, c, h, e, f, g, w, wp);
  s.template next<j + 2>(w, wp);
  round<Ops, j + 2>(c, d, a, b, g, h, e, f, w, wp);
  s.template next<j + 3>(w, wp);
  round<Ops, j + 3>(b, c, d, a, f, g, h, e, w, wp);
  if constexpr (j + 4 < 64) rounds_from<Ops, j + 4>(s, a, b, c, d, e, f, g, h);
}

// V_{i+1} = ABCDEFGH ^ V_i (section 5.3.1) with the message words from s.
template <class Ops, class Schedule>
KS_HD void compress_with(typename Ops::Word state[8], Schedule& s) {
  typename Ops::Word a = state[0], b = state[1], c = state[2], d = state[3];
  typename Ops::Word e = state[4], f = state[5], g = state[6], h = state[7];
  rounds_from<Ops, 0>(s, a, b, c, d, e, f, g, h);
  state[0] = Ops::xor2(state[0], a);
  state[1] = Ops::xor2(state[1], b);
  state[2] = Ops::xor2(state[2], c);
  state[3] = Ops::xor2(state[3], d);
  state[4] = Ops::xor2(state[4], e);
  state[5] = Ops::xor2(state[5], f);
  state[6] = Ops::xor2(state[6], g);
  state[7] = Ops::xor2(state[7], h);
}

// Message expansion on the fly in a 16-word ring: round j needs W_{j+4}, so
// it is computed into the slot of W_{j-12}, which no later step reads. Keeps
// the schedule in registers (GPU, SIMD lanes).
template <class Ops>
struct RingSchedule {
  typename Ops::Word w[16];  // W_0..W_15 on entry

  template <int j>
  KS_HD void next(typename Ops::Word& wj, typename Ops::Word& wp) {
    constexpr int k = j + 4;
    if constexpr (k >= 16) {
      w[k & 15] = expand<Ops>(w[(k - 16) & 15], w[(k - 9) & 15], w[(k - 3) & 15],
                              w[(k - 13) & 15], w[(k - 6) & 15]);
    }
    wj = w[j & 15];
    wp = Ops::xor2(wj, w[k & 15]);
  }
};

// CF(V, B) for one 64-byte block.
KS_HD void compress_block(uint32_t state[8], const uint8_t block[64]) {
  RingSchedule<ScalarOps> s;
#if KS_DEVICE_CODE
#pragma unroll
#endif
  for (int i = 0; i < 16; ++i) s.w[i] = load_be32(block + 4 * i);
  compress_with<ScalarOps>(state, s);
}

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_COMPRESS_H_
