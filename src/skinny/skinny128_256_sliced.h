// SKINNY-128-256's round on bit planes: many blocks at once, one plane per
// bit of the state (plane k of row r holds bit k of row word r, i.e. bit
// k % 8 of cell (r, k / 8), of every block), for the GPU's bitsliced kernel
// (skinny/gpu/skinny_gpu.cu: 32 blocks per thread) and its CPU test. The
// S-box is skinny128_256_core.h's NOR/XOR circuit on planes (two LOP3s a
// step, its bit permutations renaming only); ShiftRows is renaming too;
// the round tweakey is applied as all-ones / all-zero masks, so no branch
// or address depends on the key or the data.
#ifndef KS_CIPHER_SKINNY128_256_SLICED_H_
#define KS_CIPHER_SKINNY128_256_SLICED_H_

#include <stdint.h>

#include "skinny/skinny128_256_core.h"
#include "core/hd.h"

namespace ks {
namespace skinny {

// S8 on the eight planes x[0] (least significant bit) .. x[7] of a cell:
// the steps and permutations of sub_cells(), bit by bit.
template <class P>
KS_HD void sbox_step_planes(P x[8]) {
  x[4] ^= ~(x[7] | x[6]);
  x[0] ^= ~(x[3] | x[2]);
}

template <class P>
KS_HD void sub_cell_planes(P x[8]) {
  KS_UNROLL
  for (int i = 0; i < 3; ++i) {
    sbox_step_planes(x);
    // sbox_permute: (x7..x0) <- (x2, x1, x7, x6, x4, x0, x3, x5).
    const P y[8] = {x[5], x[3], x[0], x[4], x[6], x[7], x[1], x[2]};
    KS_UNROLL
    for (int b = 0; b < 8; ++b) x[b] = y[b];
  }
  sbox_step_planes(x);
  const P x1 = x[1];  // sbox_swap12
  x[1] = x[2];
  x[2] = x1;
}

// S8^-1 (inv_sub_cells): the swap, then each step (an involution) and the
// inverse permutation (x7..x0) <- (x5, x4, x0, x3, x1, x7, x6, x2), in
// reverse order.
template <class P>
KS_HD void inv_sub_cell_planes(P x[8]) {
  const P x1 = x[1];
  x[1] = x[2];
  x[2] = x1;
  sbox_step_planes(x);
  KS_UNROLL
  for (int i = 0; i < 3; ++i) {
    const P y[8] = {x[2], x[6], x[7], x[1], x[3], x[0], x[4], x[5]};
    KS_UNROLL
    for (int b = 0; b < 8; ++b) x[b] = y[b];
    sbox_step_planes(x);
  }
}

// Plane e of round i's tweakey masks: all ones where bit e % 32 of row
// e / 32 of the round tweakey (RoundTweakeys::rows[i]) is set.
KS_HD uint32_t tweakey_mask(const RoundTweakeys& rtk, int i, int e) {
  return 0u - ((rtk.rows[i][e / 32] >> (e % 32)) & 1u);
}

// AddRoundTweakey on the planes of rows 0 and 1: keys.masks4 as below.
template <class Word, class Keys>
KS_HD void add_round_tweakey_planes(Word s[4], const Keys& keys) {
  using P = typename Word::Plane;
  KS_UNROLL
  for (int k0 = 0; k0 < 32; k0 += 4) {
    P m0[4], m1[4];
    keys.masks4(0, k0, m0);
    keys.masks4(1, k0, m1);
    KS_UNROLL
    for (int j = 0; j < 4; ++j) {
      s[0].bit[k0 + j] ^= m0[j];
      s[1].bit[k0 + j] ^= m1[j];
    }
  }
}

// One round on rows s[0..3] (Word: a struct of bit[32] planes). keys
// supplies the round's tweakey masks four at a time:
// keys.masks4(row, k, m) sets m[0..3] = tweakey_mask(rtk, i, 32 * row + k
// .. + 3) (a vector load on the GPU).
template <class Word, class Keys>
KS_HD void sliced_round(Word s[4], const Keys& keys) {
  using P = typename Word::Plane;
  KS_UNROLL
  for (int r = 0; r < 4; ++r) {
    KS_UNROLL
    for (int c = 0; c < 4; ++c) sub_cell_planes(s[r].bit + 8 * c);
  }
  s[2].bit[1] = ~s[2].bit[1];  // c2 = 0x2 in cell 8
  // AddRoundTweakey on rows 0 and 1, ShiftRows (row r rotated left by 8r
  // bits: new bit k = old bit k - 8r) and MixColumns (r0^r2^r3, r0, r1^r2,
  // r0^r2), each plane computed once from the old ones.
  add_round_tweakey_planes(s, keys);
  Word r0, r1, r2, r3;
  KS_UNROLL
  for (int k = 0; k < 32; ++k) {
    const P a = s[0].bit[k], b = s[1].bit[(k + 24) & 31];
    const P c = s[2].bit[(k + 16) & 31], d = s[3].bit[(k + 8) & 31];
    r0.bit[k] = a ^ c ^ d;
    r1.bit[k] = a;
    r2.bit[k] = b ^ c;
    r3.bit[k] = a ^ c;
  }
  s[0] = r0;
  s[1] = r1;
  s[2] = r2;
  s[3] = r3;
}

// The inverse of sliced_round with the same masks (inv_round on planes):
// MixColumns^-1 (rows (r1, r2 ^ r3 ^ r1, r3 ^ r1, r0 ^ r3)) and
// ShiftRows^-1 (row r rotated back: new bit k = old bit k + 8r), each
// plane computed once from the old ones; then the round tweakey, c2 and
// SubCells^-1.
template <class Word, class Keys>
KS_HD void sliced_inv_round(Word s[4], const Keys& keys) {
  using P = typename Word::Plane;
  Word r0, r1, r2, r3;
  KS_UNROLL
  for (int k = 0; k < 32; ++k) {
    const P a = s[0].bit[k], b = s[1].bit[k], c = s[2].bit[k], d = s[3].bit[k];
    r0.bit[k] = b;
    r1.bit[(k + 24) & 31] = c ^ d ^ b;
    r2.bit[(k + 16) & 31] = d ^ b;
    r3.bit[(k + 8) & 31] = a ^ d;
  }
  s[0] = r0;
  s[1] = r1;
  s[2] = r2;
  s[3] = r3;
  add_round_tweakey_planes(s, keys);
  s[2].bit[1] = ~s[2].bit[1];
  KS_UNROLL
  for (int r = 0; r < 4; ++r) {
    KS_UNROLL
    for (int c = 0; c < 4; ++c) inv_sub_cell_planes(s[r].bit + 8 * c);
  }
}

}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY128_256_SLICED_H_
