// One Ed25519 key expansion, public key or signature by one thread (RFC
// 8032 5.1.5 and 5.1.6, pure Ed25519), written once over a field policy F
// for the GPU kernels (scheme/curve25519_gpu.cu) and compiled on the host,
// where the tests check it byte for byte against scheme/ed25519.cc (the
// signatures are deterministic).
//
// Secrets (the seed, the scalar s, the prefix, the nonce r) meet no branch
// and no secret-dependent address: [k]B is the comb of the CPU's mul_base
// (52 windows of 5 bits, Booth digits) with every window's 16 entries read
// and one kept by masks; SHA-512, the reduction mod L and the signing
// equation are straight-line (field/sc25519_wide.h). Every thread of a
// warp reads the same table entries, in the same order.
#ifndef KS_SCHEME_ED25519_SIGN_ONE_H_
#define KS_SCHEME_ED25519_SIGN_ONE_H_

#include <stdint.h>

#include "scheme/ed25519_verify_one.h"

namespace ks {
namespace ed25519 {
namespace one_thread {

template <class F>
struct Signer {
  using Elem = typename F::Elem;
  using E = curve::ed::Extended<F>;
  using N = curve::ed::Niels<F>;

  // [k]B for a secret k < 2^255, in constant time.
  static KS_HD E mul_base(const uint64_t k[4], const uint64_t* comb) {
    E acc = E::identity();
    for (int w = 0; w < curve::ed25519::kCombWindows; ++w) {
      const int d = booth_digit(k, curve::ed25519::kCombBits * w, curve::ed25519::kCombBits);
      const int sign = d >> 31;  // all ones if negative
      const int magnitude = (d ^ sign) - sign;
      N entry = N::identity();
      const uint64_t* row = comb + size_t(w) * curve::ed25519::kCombEntries * kCombEntryWords;
      for (int j = 0; j < curve::ed25519::kCombEntries; ++j) {
        const uint64_t* e = row + j * kCombEntryWords;
        const uint64_t take = 0 - uint64_t(magnitude == j + 1);
        entry = curve::ed::select(take, N{F::from_words(e), F::from_words(e + 4),
                                          F::from_words(e + 8)},
                                  entry);
      }
      acc = curve::ed::add(acc, curve::ed::negate_if<F>(uint64_t(int64_t(sign)), entry))
                .extended();
    }
    return acc;
  }

  // RFC 8032 5.1.2: y with the sign of x in bit 255. One inversion.
  static KS_HD void encode(uint8_t out[32], const E& p) {
    const Elem zinv = F::inv(p.z);
    uint64_t y[4];
    F::to_words(y, F::mul(p.y, zinv));
    const uint64_t x_negative = F::is_negative(F::mul(p.x, zinv)) & 1;
    y[3] |= x_negative << 63;
    for (int i = 0; i < 32; ++i) out[i] = uint8_t(y[i / 8] >> (8 * (i % 8)));
  }

  // RFC 7748's u of a point: u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y)
  // (the birational map of RFC 7748 4.1). One inversion; p is never the
  // identity here (the multiples of B by clamped scalars).
  static KS_HD void encode_u(uint8_t out[32], const E& p) {
    uint64_t u[4];
    F::to_words(u, F::mul(F::add(p.z, p.y), F::inv(F::sub(p.z, p.y))));
    for (int i = 0; i < 32; ++i) out[i] = uint8_t(u[i / 8] >> (8 * (i % 8)));
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

  // The X25519 public key of a private key (RFC 7748 6.1: X25519(k, 9)),
  // by the comb of [k]B on the Edwards curve rather than the ladder.
  static KS_HD void x25519_public_key(uint8_t pub[32], const uint8_t k[32], const uint64_t* comb) {
    uint64_t s[4];
    clamp(s, k);
    encode_u(pub, mul_base(s, comb));
  }

  // 5.1.5 steps 3-4: the public key of the scalar s.
  static KS_HD void public_key(uint8_t pub[32], const uint64_t s[4], const uint64_t* comb) {
    encode(pub, mul_base(s, comb));
  }

  // 5.1.6: the signature of msg under (s in Montgomery form, prefix, the
  // encoded public key).
  static KS_HD void sign(uint8_t sig[64], const uint64_t s_mont[4], const uint8_t prefix[32],
                         const uint8_t pub[32], const uint8_t* msg, uint64_t msg_len,
                         const uint64_t* comb) {
    uint8_t h[64];
    sha512::digest_parts(h, sha512::Parts{{prefix, msg, nullptr}, {32, msg_len, 0}});
    uint64_t r[4];
    field::sc25519_reduce_wide(r, h);
    encode(sig, mul_base(r, comb));
    sha512::digest_parts(h, sha512::Parts{{sig, pub, msg}, {32, 32, msg_len}});
    uint64_t k[4], s[4];
    field::sc25519_reduce_wide(k, h);
    field::sc25519_signing_equation(s, r, k, s_mont);
    for (int i = 0; i < 32; ++i) sig[32 + i] = uint8_t(s[i / 8] >> (8 * (i % 8)));
  }
};

}  // namespace one_thread
}  // namespace ed25519
}  // namespace ks

#endif  // KS_SCHEME_ED25519_SIGN_ONE_H_
