// One Ed25519 verification by one thread (RFC 8032 5.1.7, pure Ed25519),
// written once over a field policy F for the GPU kernels
// (curve25519/gpu/curve25519_gpu_verify.cu: the FP64 / DPF and the integer field) and
// compiled on the host too, where the tests run it over the CPU field and
// the host-emulated DPF field against curve25519/ed25519.cc.
//
// The rules are the CPU's (curve25519/ed25519.cc, docs/ARCHITECTURE.md): S < L;
// A and R canonical (y < p), on the curve and not of small order; the
// cofactored equation [8]([S]B - [k]A - R) = 0 with k = SHA-512(R || A ||
// M) mod L. Statuses are curve25519/ed25519.h's Error values.
//
// The equation is multiplied through by the z of field/sc25519_lattice.h,
// as the CPU does (curve25519/ed25519_curve.cc): [8]([z S mod L]B - [w]A -
// [z]R) = 0 with w = z k mod L and |w|, z < 2^127, so [w]A and [z]R share
// 129 doublings instead of [k]A's 252 (signed 3-bit windows, Booth digits,
// over the Cached multiples 1..4 of each point), and [z S mod L]B is added
// onto the same accumulator from the comb table of the CPU (kEd25519Comb:
// 52 windows of 5 bits, no doublings). Everything here reads public data
// only; the doublings and additions are the complete formulas of
// curve/edwards.h, so no input needs a special case.
#ifndef KS_SCHEME_ED25519_VERIFY_ONE_H_
#define KS_SCHEME_ED25519_VERIFY_ONE_H_

#include <stdint.h>

#include "core/hd.h"
#include "curve25519/ed25519_decode.h"
#include "curve25519/ed25519_params.h"
#include "curve25519/ed25519_tables_layout.h"
#include "curve/edwards.h"
#include "field/sc25519_lattice.h"
#include "field/sc25519_wide.h"
#include "hash/sha512_parts.h"

namespace ks {
namespace ed25519 {
namespace one_thread {

using field::U256;

// The comb table as words: kCombWindows x kCombEntries Niels points, each
// (y+x, y-x, 2dxy) as three 4-word canonical values (the layout of
// kEd25519Comb, whose entries are U256 triples).
constexpr int kCombEntryWords = 12;
constexpr size_t kCombTableWords =
    size_t(curve::ed25519::kCombWindows) * curve::ed25519::kCombEntries * kCombEntryWords;

// A constant of curve25519/ed25519_params.h in F's representation (copied into
// constant expressions first: device code may not read a host constexpr
// object at run time).
template <class F, const U256& C>
KS_HD typename F::Elem constant() {
  constexpr uint64_t w0 = C.w[0], w1 = C.w[1], w2 = C.w[2], w3 = C.w[3];
  const uint64_t w[4] = {w0, w1, w2, w3};
  return F::from_words(w);
}

KS_HD void load_le_words(uint64_t w[4], const uint8_t* p) {
KS_UNROLL
  for (int i = 0; i < 4; ++i) {
    uint64_t v = 0;
KS_UNROLL
    for (int j = 7; j >= 0; --j) v = (v << 8) | p[8 * i + j];
    w[i] = v;
  }
}

KS_HD void store_le_words(uint8_t* p, const uint64_t w[4]) {
KS_UNROLL
  for (int i = 0; i < 32; ++i) p[i] = uint8_t(w[i / 8] >> (8 * (i % 8)));
}

// Bits [pos, pos + width) of k (width < 32; bits past 255 read as 0).
KS_HD unsigned bits_at(const uint64_t k[4], int pos, int width) {
  if (pos < 0) return unsigned(k[0] << -pos) & ((1u << width) - 1);  // bit -1 reads as 0
  const int limb = pos >> 6, shift = pos & 63;
  uint64_t v = limb < 4 ? k[limb] >> shift : 0;
  if (shift + width > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - shift);
  return unsigned(v) & ((1u << width) - 1);
}

// Booth digit of window [pos, pos + w) (curve/recode.h's booth_digit).
KS_HD int booth_digit(const uint64_t k[4], int pos, int w) {
  const int v = int(bits_at(k, pos - 1, w + 1));
  return ((v + 1) >> 1) - ((v >> w) << w);
}

template <class F>
struct Verifier {
  using Elem = typename F::Elem;
  using E = curve::ed::Extended<F>;
  using P = curve::ed::Projective<F>;
  using C = curve::ed::Cached<F>;
  using N = curve::ed::Niels<F>;

  // Signed 3-bit windows: 43 of them cover the half-size scalars (below
  // 2^127, so the top window's Booth digit is non-negative), over the
  // multiples P .. 4P of each point. 4-bit windows need 22 fewer additions
  // but twice the tables, which live in local memory: on an H100 the DPF
  // kernel ran at 2.88e7 verifications/s with 4 bits and 3.14e7 with 3
  // (2^20 items, tools/curve25519_gpu_bench.cu).
  static constexpr int kWindowBits = 3;
  static constexpr int kEntries = 1 << (kWindowBits - 1);
  static constexpr int kWindows = 43;
  static_assert(kWindowBits * kWindows >= 128, "the windows cover bits 0 .. 127");

  // RFC 8032 5.1.3: y canonical (below p once bit 255, x's sign, is taken
  // off) and an x exists.
  static KS_HD bool decode(E& out, const uint8_t in[32]) {
    constexpr U256 kP = field::fe25519_detail::kP;
    const U256 p{{kP.w[0], kP.w[1], kP.w[2], kP.w[3]}};
    U256 w;
    load_le_words(w.w, in);
    const uint64_t sign = w.w[3] >> 63;
    w.w[3] &= ~(uint64_t(1) << 63);
    if (!field::less_vartime(w, p)) return false;
    const Elem y = F::from_words(w.w);
    Elem x;
    if (!curve::ed25519::recover_x<F>(x, y, sign, constant<F, curve::ed25519::kD>(),
                                      constant<F, field::fe25519_detail::kSqrtM1>()))
      return false;
    out = {x, y, F::one(), F::mul(x, y)};
    return true;
  }

  static KS_HD bool has_small_order(const E& p) {
    return (curve::ed::is_identity(curve::ed::mul_by_cofactor(p)) & 1) != 0;
  }

  // table[j - 1] = jP for j = 1 .. kEntries.
  static KS_HD void multiples(C table[kEntries], const E& p, const Elem& d2) {
    table[0] = curve::ed::cached(p, d2);
    const E p2 = curve::ed::dbl(p.projective()).extended();
    table[1] = curve::ed::cached(p2, d2);
    for (int j = 2; j < kEntries; ++j)
      table[j] = curve::ed::cached(curve::ed::add(p2, table[j - 2]).extended(), d2);
  }

  // [d]P for a Booth digit |d| <= kEntries (the identity for 0, by
  // selection: no branch on digits, so a warp's threads stay together).
  static KS_HD C digit_multiple(const C table[kEntries], int d) {
    const C identity = {F::one(), F::one(), F::one(), F::zero()};
    const int magnitude = d < 0 ? -d : d;
    const C entry = table[magnitude > 0 ? magnitude - 1 : 0];
    const uint64_t zero = 0 - uint64_t(magnitude == 0);
    return curve::ed::negate_if<F>(0 - uint64_t(d < 0), curve::ed::select(zero, identity, entry));
  }

  // [sign_a a]P + [sign_b b]Q for a, b < 2^127 (two words each) and signs
  // +-1, windows from the top.
  static KS_HD E double_scalar(const uint64_t a[4], int sign_a, const E& p, const uint64_t b[4],
                               int sign_b, const E& q, const Elem& d2) {
    C p_table[kEntries], q_table[kEntries];
    multiples(p_table, p, d2);
    multiples(q_table, q, d2);
    P acc = E::identity().projective();
    E last = E::identity();
    for (int i = kWindows - 1; i >= 0; --i) {
      for (int j = 0; j < kWindowBits - 1; ++j) acc = curve::ed::dbl(acc).projective();
      last = curve::ed::dbl(acc).extended();
      const int pos = kWindowBits * i;
      const int digit_a = sign_a * booth_digit(a, pos, kWindowBits);
      const int digit_b = sign_b * booth_digit(b, pos, kWindowBits);
      last = curve::ed::add(last, digit_multiple(p_table, digit_a)).extended();
      last = curve::ed::add(last, digit_multiple(q_table, digit_b)).extended();
      acc = last.projective();
    }
    return last;
  }

  // acc + [s]B for s < 2^255, from the comb table (table[w][j] = (j + 1)
  // 2^(5w) B).
  static KS_HD E add_s_b(E acc, const uint64_t s[4], const uint64_t* table) {
    for (int w = 0; w < curve::ed25519::kCombWindows; ++w) {
      const int d = booth_digit(s, curve::ed25519::kCombBits * w, curve::ed25519::kCombBits);
      if (d == 0) continue;
      const uint64_t* e =
          table + (size_t(w) * curve::ed25519::kCombEntries + (d < 0 ? -d : d) - 1) *
                      kCombEntryWords;
      const N entry = {F::from_words(e), F::from_words(e + 4), F::from_words(e + 8)};
      acc = curve::ed::add(acc, curve::ed::negate_if<F>(0 - uint64_t(d < 0), entry)).extended();
    }
    return acc;
  }

  // The status of (public key, message, signature) as curve25519/ed25519.h's
  // Error: kOk, kBadPublicKey, kBadSignature or kVerifyFailed.
  static KS_HD int verify(const uint8_t pub[32], const uint8_t* msg, uint64_t msg_len,
                          const uint8_t sig[64], const uint64_t* comb) {
    constexpr int kOk = 0, kBadPublicKey = 1, kBadSignature = 2, kVerifyFailed = 3;
    E a, r;
    if (!decode(a, pub) || has_small_order(a)) return kBadPublicKey;
    constexpr U256 kL = field::Sc25519::kModulus;
    const U256 l{{kL.w[0], kL.w[1], kL.w[2], kL.w[3]}};
    U256 s;
    load_le_words(s.w, sig + 32);
    if (!field::less_vartime(s, l)) return kBadSignature;  // 5.1.7 step 1: S < L
    if (!decode(r, sig) || has_small_order(r)) return kBadSignature;
    uint8_t h[64];
    sha512::digest_parts(h, sha512::Parts{{sig, pub, msg}, {32, 32, msg_len}});
    U256 k;
    field::sc25519_reduce_wide(k.w, h);
    const field::HalfSizeEquation eq = field::half_size_equation(s, k);
    // -[w]A - [z]R, w = +-|w|
    const Elem d2 = constant<F, curve::ed25519::kD2>();
    const uint64_t w[4] = {uint64_t(eq.h.w), uint64_t(eq.h.w >> 64), 0, 0};
    const uint64_t z[4] = {uint64_t(eq.h.z), uint64_t(eq.h.z >> 64), 0, 0};
    E acc = double_scalar(w, eq.h.w_negative ? 1 : -1, a, z, -1, r, d2);
    acc = add_s_b(acc, eq.s.w, comb);
    return (curve::ed::is_identity(curve::ed::mul_by_cofactor(acc)) & 1) ? kOk : kVerifyFailed;
  }
};

}  // namespace one_thread
}  // namespace ed25519
}  // namespace ks

#endif  // KS_SCHEME_ED25519_VERIFY_ONE_H_
