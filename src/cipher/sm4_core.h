// SM4 (GB/T 32907-2016) written once for the CPU and the GPU: constants, the
// 32 rounds and the key expansion over a small "word operations" interface
// (Ops, the pattern of hash/sm3_compress.h), and a bitsliced S-box circuit
// with no table at all, so that no variant indexes memory with a secret.
//
// An Ops type supplies:
//   using Word;                                  a 32-bit word, or many lanes of them
//   static Word key_xor(Word a, Word b, uint32_t rk)   a ^ b ^ rk
//   static Word tau(Word)                        the S-box on each byte (tau)
//   template <int n> static Word rotl(Word)      rotation of each 32-bit word
//   static Word xor2(Word, Word)
// ScalarOps (one uint32_t, S-box by the circuit) and BitslicedOps (64 blocks
// as 32 bit planes of uint64_t) are below; the x86 kernels supply vectors.
#ifndef KS_CIPHER_SM4_CORE_H_
#define KS_CIPHER_SM4_CORE_H_

#include <stdint.h>
#include <string.h>

#include "core/endian.h"
#include "core/hd.h"

namespace ks {
namespace sm4 {

constexpr int kBlockBytes = 16;
constexpr int kKeyBytes = 16;
constexpr int kRounds = 32;

using ks::load_be32;
using ks::store_be32;

KS_HD uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> ((32 - n) & 31)); }

// --- Constants of the key expansion ---------------------------------------
// System parameter FK (GB/T 32907-2016, key expansion). A function, not an
// array: device code cannot read a host constexpr array.
KS_HD uint32_t fk(int i) {
  return i == 0 ? 0xa3b1bac6u : i == 1 ? 0x56aa3350u : i == 2 ? 0x677d9197u : 0xb27022dcu;
}

// Fixed parameter CK_i: byte j of CK_i is (4i + j) * 7 mod 256.
KS_HD uint32_t ck(int i) {
  uint32_t w = 0;
  for (int j = 0; j < 4; ++j) w = (w << 8) | ((4 * i + j) * 7 & 0xff);
  return w;
}

// --- The S-box as arithmetic ----------------------------------------------
// The standard gives the S-box as a table. It is affine-equivalent to
// inversion in GF(2^8) (Liu, Ji, Hu et al.'s analyses of the SM4 S-box):
//   S(x) = A * inv(A * x + c) + c,
// inversion modulo x^8+x^7+x^6+x^5+x^4+x^2+1 (0x1f5), A the circulant
// matrix whose row i is 0xa7 rotated left by i (bit j of row i selects input
// bit j of output bit i), c = 0xd3. tests/cpp/test_sm4.cc checks this
// against the table on all 256 inputs; sm4_sbox_affine.h moves the same
// decomposition into AES's field for the AES-NI and GFNI kernels.
constexpr uint32_t kFieldPoly = 0x1f5;
constexpr uint8_t kAffineRow0 = 0xa7;
constexpr uint8_t kAffineConstant = 0xd3;

KS_HD constexpr uint8_t affine_row(int i) {
  return uint8_t((kAffineRow0 << i) | (kAffineRow0 >> ((8 - i) & 7)));
}

// Bitsliced GF(2^8) arithmetic over planes: bit l of plane i is bit i of
// lane l's byte. P is any unsigned integer type (uint64_t on the CPU,
// uint32_t on the GPU); every lane computes the same circuit, so there is
// no data-dependent branch or memory access.
template <class P>
KS_HD void gf_reduce(P t[15], P r[8]) {
  // x^8 = x^7 + x^6 + x^5 + x^4 + x^2 + 1: fold the high planes down.
  KS_UNROLL for (int k = 14; k >= 8; --k) {
    const P v = t[k];
    t[k - 1] ^= v;
    t[k - 2] ^= v;
    t[k - 3] ^= v;
    t[k - 4] ^= v;
    t[k - 6] ^= v;
    t[k - 8] ^= v;
  }
  KS_UNROLL for (int i = 0; i < 8; ++i) r[i] = t[i];
}

template <class P>
KS_HD void gf_mul(const P a[8], const P b[8], P r[8]) {
  P t[15];
  KS_UNROLL for (int k = 0; k < 15; ++k) t[k] = 0;
  KS_UNROLL for (int i = 0; i < 8; ++i) {
    KS_UNROLL for (int j = 0; j < 8; ++j) t[i + j] ^= a[i] & b[j];
  }
  gf_reduce(t, r);
}

// Squaring is linear: coefficient i moves to 2i, then the reduction.
template <class P>
KS_HD void gf_square(const P a[8], P r[8]) {
  P t[15];
  KS_UNROLL for (int k = 0; k < 15; ++k) t[k] = (k & 1) ? P(0) : a[k / 2];
  gf_reduce(t, r);
}

// x^254 = x^-1 (and 0 -> 0): 4 multiplications and 7 squarings,
// x^2, x^3, x^6, x^12, x^14, x^15, x^30, x^60, x^120, x^240, x^254.
template <class P>
KS_HD void gf_inverse(const P x[8], P r[8]) {
  P x2[8], x3[8], x12[8], x14[8], x15[8], t[8];
  gf_square(x, x2);
  gf_mul(x2, x, x3);
  gf_square(x3, t);
  gf_square(t, x12);
  gf_mul(x12, x2, x14);
  gf_mul(x12, x3, x15);
  gf_square(x15, t);
  KS_UNROLL for (int i = 0; i < 3; ++i) gf_square(t, t);  // x^240
  gf_mul(t, x14, r);
}

template <class P>
KS_HD void sbox_affine(const P x[8], P y[8]) {
  KS_UNROLL for (int i = 0; i < 8; ++i) {
    P acc = ((kAffineConstant >> i) & 1) ? ~P(0) : P(0);
    KS_UNROLL for (int j = 0; j < 8; ++j) {
      if ((affine_row(i) >> j) & 1) acc ^= x[j];
    }
    y[i] = acc;
  }
}

// The S-box on every lane of the planes x[0..7], in place.
template <class P>
KS_HD void sbox_planes(P x[8]) {
  P t[8], u[8];
  sbox_affine(x, t);
  gf_inverse(t, u);
  sbox_affine(u, x);
}

// --- The round function, once for every word type -------------------------
// L (GB/T 32907-2016, linear transform L of T):
//   L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24),
// returned as x ^ L(t), written so that a kernel with few rotations pays 4:
//   (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) = (B ^ (B <<< 8) ^ (B <<< 16)) <<< 2.
template <class Ops>
KS_HD typename Ops::Word xor_l(typename Ops::Word x, typename Ops::Word t) {
  using O = Ops;
  const auto u = O::xor2(O::xor2(t, O::template rotl<8>(t)), O::template rotl<16>(t));
  return O::xor2(O::xor2(x, t), O::xor2(O::template rotl<24>(t), O::template rotl<2>(u)));
}

// The 32 rounds X_{i+4} = X_i ^ T(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i) on
// x[0..3] = X_0..X_3, and the reverse transform R: afterwards x[0..3] is
// (X_35, X_34, X_33, X_32), the output words in order. Decryption is the
// same with the round keys reversed (GB/T 32907-2016, decryption).
template <class Ops>
KS_HD void crypt_words(typename Ops::Word x[4], const uint32_t rk[kRounds]) {
  // Four rounds per step with the words renamed, not indexed: an index
  // (i & 3) would keep vector state in memory. Rounds i and i+1 share
  // X_{i+2} ^ X_{i+3}: round i adds X_{i+1}, round i+1 adds X_{i+4}
  // (3 XORs per two rounds instead of 4).
  using O = Ops;
  auto a = x[0], b = x[1], c = x[2], d = x[3];
  for (int i = 0; i < kRounds; i += 4) {
    auto p = O::xor2(c, d);
    a = xor_l<O>(a, O::tau(O::key_xor(b, p, rk[i])));
    b = xor_l<O>(b, O::tau(O::key_xor(p, a, rk[i + 1])));
    p = O::xor2(a, b);
    c = xor_l<O>(c, O::tau(O::key_xor(d, p, rk[i + 2])));
    d = xor_l<O>(d, O::tau(O::key_xor(p, c, rk[i + 3])));
  }
  x[0] = d;
  x[1] = c;
  x[2] = b;
  x[3] = a;
}

// --- One word: the key expansion and the few-blocks path -------------------
// tau on one word through the circuit: the four bytes are four lanes.
KS_HD uint32_t tau_word(uint32_t w) {
  uint32_t p[8];
  KS_UNROLL for (int i = 0; i < 8; ++i) {
    uint32_t plane = 0;
    KS_UNROLL for (int b = 0; b < 4; ++b) plane |= ((w >> (8 * b + i)) & 1) << b;
    p[i] = plane;
  }
  sbox_planes(p);
  uint32_t out = 0;
  KS_UNROLL for (int i = 0; i < 8; ++i) {
    KS_UNROLL for (int b = 0; b < 4; ++b) out |= ((p[i] >> b) & 1) << (8 * b + i);
  }
  return out;
}

struct ScalarOps {
  using Word = uint32_t;
  KS_HD static Word key_xor(Word a, Word b, uint32_t rk) { return a ^ b ^ rk; }
  KS_HD static Word tau(Word w) { return tau_word(w); }
  template <int n>
  KS_HD static Word rotl(Word w) { return rotl32(w, n); }
  KS_HD static Word xor2(Word a, Word b) { return a ^ b; }
};

// Key expansion (GB/T 32907-2016): K_i = MK_i ^ FK_i, then
//   rk_i = K_{i+4} = K_i ^ T'(K_{i+1} ^ K_{i+2} ^ K_{i+3} ^ CK_i),
// T' = L'(tau(.)), L'(B) = B ^ (B <<< 13) ^ (B <<< 23). TauFn maps one word
// through the S-box (tau_word here; a vector S-box in the x86 kernels).
template <class TauFn>
KS_HD void expand_key_with(const uint8_t key[kKeyBytes], uint32_t rk[kRounds], TauFn tau) {
  uint32_t k[4];
  for (int i = 0; i < 4; ++i) k[i] = load_be32(key + 4 * i) ^ fk(i);
  for (int i = 0; i < kRounds; ++i) {
    const uint32_t b = tau(k[(i + 1) & 3] ^ k[(i + 2) & 3] ^ k[(i + 3) & 3] ^ ck(i));
    k[i & 3] ^= b ^ rotl32(b, 13) ^ rotl32(b, 23);
    rk[i] = k[i & 3];
  }
  for (int i = 0; i < 4; ++i) k[i] = 0;  // the key schedule state is secret
}

KS_HD void expand_key(const uint8_t key[kKeyBytes], uint32_t rk[kRounds]) {
  expand_key_with(key, rk, tau_word);
}

// One block with the word-at-a-time circuit (no tables).
KS_HD void crypt_block(const uint32_t rk[kRounds], const uint8_t in[16], uint8_t out[16]) {
  uint32_t x[4];
  for (int i = 0; i < 4; ++i) x[i] = load_be32(in + 4 * i);
  crypt_words<ScalarOps>(x, rk);
  for (int i = 0; i < 4; ++i) store_be32(out + 4 * i, x[i]);
}

// --- Bitsliced words: 64 blocks at once ---------------------------------
// bit[k] holds bit k of the word in all 64 blocks (block l in bit l), so a
// rotation is a renaming of planes and the S-box is sbox_planes on each byte.
struct BitslicedWord {
  uint64_t bit[32];
};

struct BitslicedOps {
  using Word = BitslicedWord;
  KS_HD static Word key_xor(const Word& a, const Word& b, uint32_t rk) {
    Word r;
    // The round key is secret: its bits become masks, not branches.
    KS_UNROLL for (int k = 0; k < 32; ++k)
      r.bit[k] = a.bit[k] ^ b.bit[k] ^ (uint64_t(0) - ((rk >> k) & 1));
    return r;
  }
  // Out of line (cipher/sm4.cc): the S-box circuit inlined into the 32
  // rounds made a function that clang's sanitizer builds took minutes to
  // compile; one call per round costs nothing next to the circuit.
  static Word tau(Word w);
  template <int n>
  KS_HD static Word rotl(const Word& w) {
    Word r;
    KS_UNROLL for (int k = 0; k < 32; ++k) r.bit[(k + n) & 31] = w.bit[k];
    return r;
  }
  KS_HD static Word xor2(const Word& a, const Word& b) {
    Word r;
    KS_UNROLL for (int k = 0; k < 32; ++k) r.bit[k] = a.bit[k] ^ b.bit[k];
    return r;
  }
};

}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_CORE_H_
