// One Ed25519 key expansion, public key or signature by one thread (RFC
// 8032 5.1.5 and 5.1.6, pure Ed25519), written once over a field policy F
// for the GPU kernels (curve25519/gpu/curve25519_gpu_{keys,sign}.cu) and compiled on the host,
// where the tests check it byte for byte against curve25519/ed25519.cc (the
// signatures are deterministic).
//
// Secrets (the seed, the scalar s, the prefix, the nonce r) meet no branch
// and no secret-dependent address: [k]B is a comb of signed windows
// (Booth digits, no doublings) whose entries a row reader fetches without
// a secret address (ScanRow here, over the CPU's table of 52 windows of 5
// bits: every entry of a window read and one kept by masks; the GPU
// kernels' WarpRow in curve25519/gpu/curve25519_gpu_fixed_base.cuh, 43 windows of 6 bits:
// one entry a lane and a register shuffle; only where a context asks for
// it, WideRow there reads 16-bit windows at the digit's own address, not
// constant time); SHA-512, the reduction mod L
// and the signing equation are straight-line (field/sc25519_wide.h).
#ifndef KS_SCHEME_ED25519_SIGN_ONE_H_
#define KS_SCHEME_ED25519_SIGN_ONE_H_

#include <stdint.h>

#include "field/batch_invert.h"
#include "curve25519/ed25519_verify_one.h"

namespace ks {
namespace ed25519 {
namespace one_thread {

// A Niels point from its 12 table words (y+x, y-x, 2dxy).
template <class F>
KS_HD curve::ed::Niels<F> niels_from_words(const uint64_t e[kCombEntryWords]) {
  return {F::from_words(e), F::from_words(e + 4), F::from_words(e + 8)};
}

// The comb row reader of one thread alone, over the CPU's table
// (curve::ed25519::comb_table(): kCombBits-bit windows): entry `magnitude`
// (1 .. kCombEntries; 0 gives the identity) of window w, found by reading
// the window's every entry and keeping one by masks ([TONGSUO23]'s
// select_point).
struct ScanRow {
  static constexpr int kBits = curve::ed25519::kCombBits;

  template <class F>
  static KS_HD curve::ed::Niels<F> entry(const uint64_t* comb, int w, int magnitude) {
    using N = curve::ed::Niels<F>;
    const uint64_t* row = comb + size_t(w) * curve::ed25519::kCombEntries * kCombEntryWords;
    N entry = N::identity();
    for (int j = 0; j < curve::ed25519::kCombEntries; ++j) {
      const uint64_t take = 0 - uint64_t(magnitude == j + 1);
      entry = curve::ed::select(take, niels_from_words<F>(row + j * kCombEntryWords), entry);
    }
    return entry;
  }
};

template <class F, class Row = ScanRow>
struct Signer {
  using Elem = typename F::Elem;
  using E = curve::ed::Extended<F>;
  using N = curve::ed::Niels<F>;

  // [k]B for a secret k < 2^255, in constant time: Booth digits of
  // Row::kBits bits, one table addend a window, no doublings (Row reads
  // the table without a secret address). The top window's digit is never
  // negative (k < 2^255).
  static KS_HD E mul_base(const uint64_t k[4], const uint64_t* comb) {
    constexpr int kWindows = (256 + Row::kBits - 1) / Row::kBits;
    E acc = E::identity();
    for (int w = 0; w < kWindows; ++w) {
      const int d = booth_digit(k, Row::kBits * w, Row::kBits);
      const int sign = d >> 31;  // all ones if negative
      const int magnitude = (d ^ sign) - sign;
      const N entry = Row::template entry<F>(comb, w, magnitude);
      acc = curve::ed::add(acc, curve::ed::negate_if<F>(uint64_t(int64_t(sign)), entry))
                .extended();
    }
    return acc;
  }

  // RFC 8032 5.1.2: y with the sign of x in bit 255, given zinv = 1 / z.
  static KS_HD void encode(uint8_t out[32], const E& p, const Elem& zinv) {
    uint64_t y[4];
    F::to_words(y, F::mul(p.y, zinv));
    const uint64_t x_negative = F::is_negative(F::mul(p.x, zinv)) & 1;
    y[3] |= x_negative << 63;
    store_le_words(out, y);
  }

  // RFC 7748's u of a point: u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y)
  // (the birational map of RFC 7748 4.1), given inv = 1 / (Z - Y); p is
  // never the identity here (the multiples of B by clamped scalars), so Z
  // - Y is not 0.
  static KS_HD void encode_u(uint8_t out[32], const E& p, const Elem& inv) {
    uint64_t u[4];
    F::to_words(u, F::mul(F::add(p.z, p.y), inv));
    store_le_words(out, u);
  }

  // The encodings of n <= KMax points, Ed25519's (1 / Z) or X25519's u (1
  // / (Z - Y)), with one inversion for the n (field/batch_invert.h): the
  // inversion costs as much as a third of a comb, and a thread with n keys
  // pays it once.
  template <int KMax, bool kU>
  static KS_HD void encode_all(uint8_t (*out)[32], const E* p, int n) {
    Elem d[KMax], prefix[KMax];
    for (int j = 0; j < n; ++j) d[j] = kU ? F::sub(p[j].z, p[j].y) : p[j].z;
    field::batch_invert<F>(d, prefix, n);
    for (int j = 0; j < n; ++j) kU ? encode_u(out[j], p[j], d[j]) : encode(out[j], p[j], d[j]);
  }

  // Clamping, shared by Ed25519 (RFC 8032 5.1.5 step 2) and X25519 (RFC
  // 7748 5): bits 0-2 and 255 cleared, bit 254 set.
  static KS_HD void clamp(uint64_t s[4], const uint8_t bytes[32]) {
    load_le_words(s, bytes);
    s[0] &= ~uint64_t(7);
    s[3] = (s[3] & 0x7FFFFFFFFFFFFFFFull) | 0x4000000000000000ull;
  }

  // 5.1.5 steps 1-2: SHA-512(seed) = h; s = h[0..32) clamped, prefix =
  // h[32..64).
  static KS_HD void expand(uint64_t s[4], uint8_t prefix[32], const uint8_t seed[32]) {
    uint8_t h[64];
    sha512::digest_parts(h, sha512::Parts{{seed, nullptr, nullptr}, {32, 0, 0}});
    clamp(s, h);
    for (int i = 0; i < 32; ++i) prefix[i] = h[32 + i];
  }

  // The X25519 public keys of n <= KMax private keys (RFC 7748 6.1:
  // X25519(k, 9)), by the comb of [k]B on the Edwards curve rather than the
  // ladder.
  template <int KMax>
  static KS_HD void x25519_public_keys(uint8_t (*pub)[32], const uint8_t* const* k, int n,
                                       const uint64_t* comb) {
    E p[KMax];
    for (int j = 0; j < n; ++j) {
      uint64_t s[4];
      clamp(s, k[j]);
      p[j] = mul_base(s, comb);
    }
    encode_all<KMax, true>(pub, p, n);
  }
  static KS_HD void x25519_public_key(uint8_t pub[32], const uint8_t k[32], const uint64_t* comb) {
    x25519_public_keys<1>(reinterpret_cast<uint8_t(*)[32]>(pub), &k, 1, comb);
  }

  // 5.1.5 steps 3-4: the public keys of n <= KMax scalars s.
  template <int KMax>
  static KS_HD void public_keys(uint8_t (*pub)[32], const uint64_t (*s)[4], int n,
                                const uint64_t* comb) {
    E p[KMax];
    for (int j = 0; j < n; ++j) p[j] = mul_base(s[j], comb);
    encode_all<KMax, false>(pub, p, n);
  }
  static KS_HD void public_key(uint8_t pub[32], const uint64_t s[4], const uint64_t* comb) {
    public_keys<1>(reinterpret_cast<uint8_t(*)[32]>(pub), reinterpret_cast<const uint64_t(*)[4]>(s),
                   1, comb);
  }

  // A signing key as 5.1.6 uses it: s in Montgomery form mod L, the
  // prefix, the encoded public key.
  struct Key {
    const uint64_t* s_mont;
    const uint8_t* prefix;
    const uint8_t* pub;
  };

  // 5.1.6: the signatures of n <= KMax messages, message j (msg[j],
  // len[j] bytes) under key[j], whose R encodings share one inversion
  // (encode_all).
  template <int KMax>
  static KS_HD void sign_many(uint8_t (*sig)[64], const Key* key, const uint8_t* const* msg,
                              const uint64_t* len, int n, const uint64_t* comb) {
    uint64_t r[KMax][4];
    E p[KMax];
    uint8_t h[64];
    for (int j = 0; j < n; ++j) {
      sha512::digest_parts(h, sha512::Parts{{key[j].prefix, msg[j], nullptr}, {32, len[j], 0}});
      field::sc25519_reduce_wide(r[j], h);
      p[j] = mul_base(r[j], comb);
    }
    uint8_t big_r[KMax][32];
    encode_all<KMax, false>(big_r, p, n);
    for (int j = 0; j < n; ++j) {
      sha512::digest_parts(h, sha512::Parts{{big_r[j], key[j].pub, msg[j]}, {32, 32, len[j]}});
      uint64_t k[4], s[4];
      field::sc25519_reduce_wide(k, h);
      field::sc25519_signing_equation(s, r[j], k, key[j].s_mont);
      for (int i = 0; i < 32; ++i) sig[j][i] = big_r[j][i];
      store_le_words(sig[j] + 32, s);
    }
  }

  // One signature (sign_many of one).
  static KS_HD void sign(uint8_t sig[64], const uint64_t s_mont[4], const uint8_t prefix[32],
                         const uint8_t pub[32], const uint8_t* msg, uint64_t msg_len,
                         const uint64_t* comb) {
    const Key key{s_mont, prefix, pub};
    sign_many<1>(reinterpret_cast<uint8_t(*)[64]>(sig), &key, &msg, &msg_len, 1, comb);
  }
};

}  // namespace one_thread
}  // namespace ed25519
}  // namespace ks

#endif  // KS_SCHEME_ED25519_SIGN_ONE_H_
