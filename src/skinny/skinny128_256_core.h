// SKINNY-128-256 (Beierle et al., CRYPTO 2016, eprint 2016/660) written
// once for the CPU and the GPU: the round function and the tweakey schedule
// on a state of four 32-bit rows, with the 8-bit S-box computed by its NOR /
// XOR circuit on all four bytes of a row at once, so that no memory index
// depends on the key, the tweak or the data.
//
// Conventions (the paper's section 2): the 16-byte block is loaded row
// major, cell i at row i / 4, column i % 4; row r is a 32-bit word whose
// byte c (little-endian) is column c. The 32-byte tweakey is TK1 || TK2,
// 48 rounds. A round is SubCells, AddConstants, AddRoundTweakey, ShiftRows,
// MixColumns.
#ifndef KS_CIPHER_SKINNY128_256_CORE_H_
#define KS_CIPHER_SKINNY128_256_CORE_H_

#include <stdint.h>

#include "core/hd.h"

namespace ks {
namespace skinny {

constexpr int kBlockBytes = 16;
constexpr int kTweakeyBytes = 32;
constexpr int kRounds = 48;

// The round tweakeys of one tweakey: rows 0 and 1 of TK1 ^ TK2 for each
// round, with the round constants c0 (cell 0) and c1 (cell 4) folded in;
// c2 = 0x2 (cell 8) is added by the round itself.
struct RoundTweakeys {
  uint32_t rows[kRounds][2];
};

// --- SubCells: S8 as a circuit (the paper's figure 3) -------------------------
// Every row function is a template over the row type W: uint32_t for one
// block, or a vector of 32-bit lanes holding the same row of many blocks
// (GCC/clang vector extensions: the operators below act lane by lane), so
// that the vector kernels run this very code.
//
// One step on every byte of w: x4 ^= NOR(x7, x6), x0 ^= NOR(x3, x2), with
// x0 the least significant bit. The step is an involution.
template <class W>
KS_HD W sbox_step(W w) {
  const W n = ~w;
  return w ^ ((n >> 3) & (n >> 2) & 0x11111111u);
}

// The bit permutation between steps: (x7..x0) <- (x2, x1, x7, x6, x4, x0, x3, x5).
template <class W>
KS_HD W sbox_permute(W w) {
  return ((w << 5) & 0xC0C0C0C0u) | ((w >> 2) & 0x30303030u) | ((w >> 1) & 0x08080808u) |
         ((w << 2) & 0x04040404u) | ((w >> 2) & 0x02020202u) | ((w >> 5) & 0x01010101u);
}

template <class W>
KS_HD W sbox_unpermute(W w) {
  return ((w >> 5) & 0x06060606u) | ((w << 2) & 0xC0C0C0C0u) | ((w << 1) & 0x10101010u) |
         ((w >> 2) & 0x01010101u) | ((w << 2) & 0x08080808u) | ((w << 5) & 0x20202020u);
}

// The last step's permutation: x1 and x2 swapped (an involution).
template <class W>
KS_HD W sbox_swap12(W w) {
  return (w & 0xF9F9F9F9u) | ((w << 1) & 0x04040404u) | ((w >> 1) & 0x02020202u);
}

// S8 on each byte of a row: four steps, the permutation after the first three.
template <class W>
KS_HD W sub_cells(W w) {
  KS_UNROLL
  for (int i = 0; i < 3; ++i) w = sbox_permute(sbox_step(w));
  return sbox_swap12(sbox_step(w));
}

template <class W>
KS_HD W inv_sub_cells(W w) {
  w = sbox_step(sbox_swap12(w));
  KS_UNROLL
  for (int i = 0; i < 3; ++i) w = sbox_step(sbox_unpermute(w));
  return w;
}

// --- The linear layer ---------------------------------------------------------
// ShiftRows rotates row r right by r cells: in the little-endian row word,
// a left rotation by 8r bits.
template <class W>
KS_HD W rotl32(W x, int n) { return (x << n) | (x >> ((32 - n) & 31)); }

// MixColumns: rows (r0, r1, r2, r3) <- (r0^r2^r3, r0, r1^r2, r0^r2).
template <class W>
KS_HD void mix_columns(W s[4]) {
  s[1] ^= s[2];
  s[2] ^= s[0];
  const W r3 = s[3] ^ s[2];
  s[3] = s[2];
  s[2] = s[1];
  s[1] = s[0];
  s[0] = r3;
}

template <class W>
KS_HD void inv_mix_columns(W s[4]) {
  const W r0 = s[1], r2 = s[3] ^ s[1];
  const W r1 = s[2] ^ r2, r3 = s[0] ^ s[3];
  s[0] = r0;
  s[1] = r1;
  s[2] = r2;
  s[3] = r3;
}

// --- Rounds -------------------------------------------------------------------
// SubCells by the circuit; a round takes another S-box policy for the
// table-based baseline (skinny128_256.cc) and the GPU's T-table kernels.
struct CircuitSbox {
  template <class W>
  KS_HD W operator()(W w) const { return sub_cells(w); }
};

// rtk: the round's tweakey rows 0 and 1, one for every block (uint32_t),
// or per block (K = W: a tweak per block in the vector kernels).
template <class W, class Sbox = CircuitSbox, class K = uint32_t>
KS_HD void round(W s[4], const K rtk[2], Sbox sbox = Sbox()) {
  for (int r = 0; r < 4; ++r) s[r] = sbox(s[r]);
  s[0] ^= rtk[0];   // AddConstants (c0) and AddRoundTweakey
  s[1] ^= rtk[1];   // (c1) and AddRoundTweakey
  s[2] ^= 0x02u;    // c2
  s[1] = rotl32(s[1], 8);
  s[2] = rotl32(s[2], 16);
  s[3] = rotl32(s[3], 24);
  mix_columns(s);
}

template <class W, class K = uint32_t>
KS_HD void inv_round(W s[4], const K rtk[2]) {
  inv_mix_columns(s);
  s[1] = rotl32(s[1], 24);
  s[2] = rotl32(s[2], 16);
  s[3] = rotl32(s[3], 8);
  s[0] ^= rtk[0];
  s[1] ^= rtk[1];
  s[2] ^= 0x02u;
  for (int r = 0; r < 4; ++r) s[r] = inv_sub_cells(s[r]);
}

KS_HD void load_state(uint32_t s[4], const uint8_t in[16]) {
  for (int r = 0; r < 4; ++r)
    s[r] = uint32_t(in[4 * r]) | uint32_t(in[4 * r + 1]) << 8 | uint32_t(in[4 * r + 2]) << 16 |
           uint32_t(in[4 * r + 3]) << 24;
}

KS_HD void store_state(uint8_t out[16], const uint32_t s[4]) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[4 * r + c] = uint8_t(s[r] >> (8 * c));
}

template <class Sbox = CircuitSbox>
KS_HD void encrypt_block(const RoundTweakeys& k, const uint8_t in[16], uint8_t out[16],
                         Sbox sbox = Sbox()) {
  uint32_t s[4];
  load_state(s, in);
  for (int i = 0; i < kRounds; ++i) round(s, k.rows[i], sbox);
  store_state(out, s);
}

KS_HD void decrypt_block(const RoundTweakeys& k, const uint8_t in[16], uint8_t out[16]) {
  uint32_t s[4];
  load_state(s, in);
  for (int i = kRounds - 1; i >= 0; --i) inv_round(s, k.rows[i]);
  store_state(out, s);
}

// --- The tweakey schedule -----------------------------------------------------
// PT on a 16-cell TK: new cell i = old cell PT[i], PT = [9, 15, 8, 13, 10,
// 14, 12, 11, 0, 1, 2, 3, 4, 5, 6, 7]: rows 2-3 become rows 0-1 and rows
// 0-1 (permuted) become rows 2-3. tk holds the four rows.
// W: uint32_t, or a vector of rows of many blocks' TK1 (a tweak per block).
// (A function template, not a lambda: a lambda's body would not take the
// vector kernels' target attributes.)
template <class W>
KS_HD W tweakey_cell(W row, int c) { return (row >> (8 * c)) & 0xFFu; }

template <class W>
KS_HD void permute_tweakey(W tk[4]) {
  const W r2 = tk[2], r3 = tk[3];
  tk[2] = tk[0];
  tk[3] = tk[1];
  tk[0] = tweakey_cell(r2, 1) | tweakey_cell(r3, 3) << 8 | tweakey_cell(r2, 0) << 16 |
          tweakey_cell(r3, 1) << 24;
  tk[1] = tweakey_cell(r2, 2) | tweakey_cell(r3, 2) << 8 | tweakey_cell(r3, 0) << 16 |
          tweakey_cell(r2, 3) << 24;
}

// TK2's LFSR on each cell of a row: (x7..x0) -> (x6..x0, x7 ^ x5).
KS_HD uint32_t lfsr_tk2(uint32_t w) {
  return ((w << 1) & 0xFEFEFEFEu) | (((w >> 7) ^ (w >> 5)) & 0x01010101u);
}

// The round constants' 6-bit LFSR (rc5..rc0) -> (rc4..rc0, rc5 ^ rc4 ^ 1),
// from 0, stepped before each round: c0 = rc & 0xF, c1 = rc >> 4.
KS_HD uint32_t next_round_constant(uint32_t rc) {
  return ((rc << 1) & 0x3Eu) | (((rc >> 5) ^ (rc >> 4) ^ 1u) & 1u);
}

KS_HD void expand_tweakey(RoundTweakeys& k, const uint8_t tweakey[32]) {
  uint32_t tk1[4], tk2[4];
  load_state(tk1, tweakey);
  load_state(tk2, tweakey + 16);
  uint32_t rc = 0;
  for (int i = 0; i < kRounds; ++i) {
    rc = next_round_constant(rc);
    k.rows[i][0] = tk1[0] ^ tk2[0] ^ (rc & 0xFu);
    k.rows[i][1] = tk1[1] ^ tk2[1] ^ (rc >> 4);
    permute_tweakey(tk1);
    permute_tweakey(tk2);
    tk2[0] = lfsr_tk2(tk2[0]);
    tk2[1] = lfsr_tk2(tk2[1]);
  }
  for (int r = 0; r < 4; ++r) tk1[r] = tk2[r] = 0;
}

// The round tweakeys of TK1 || TK2 from those of 0^128 || TK2 (k2) and
// TK1's rows: TK1 enters each round only through its own permutations
// (no LFSR), XORed in, so a tweak per block costs 48 permutations, not a
// whole schedule. W as permute_tweakey; tk1 is consumed.
template <class W>
KS_HD void add_tk1(W rows[kRounds][2], const RoundTweakeys& k2, W tk1[4]) {
  for (int i = 0; i < kRounds; ++i) {
    rows[i][0] = tk1[0] ^ k2.rows[i][0];
    rows[i][1] = tk1[1] ^ k2.rows[i][1];
    permute_tweakey(tk1);
  }
}

}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY128_256_CORE_H_
