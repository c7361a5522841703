// Scalars of Ed25519: integers mod the order L of the base point (RFC 8032
// 5.1: L = 2^252 + 27742317777372353535851937790883648493), Montgomery
// products over field/mont_n.h, and the little-endian encodings RFC 8032
// uses for scalars (S in a signature, hash values as integers).
#ifndef KS_FIELD_SC25519_H_
#define KS_FIELD_SC25519_H_

#include <stdint.h>

#include "field/mont_n.h"

namespace ks {
namespace field {

namespace sc25519_detail {
struct Ed25519Order {
  static constexpr U256 kModulus = {
      {0x5812631A5CF5D3EDull, 0x14DEF9DEA2F79CD6ull, 0, 0x1000000000000000ull}};
};
}  // namespace sc25519_detail

struct Sc25519 : MontScalar<sc25519_detail::Ed25519Order> {
  static constexpr U256 kR3 = pow2_mod(768, kModulus);

  static U256 from_le_bytes(const uint8_t in[32]) {
    U256 r;
    for (int i = 0; i < 4; ++i) {
      uint64_t w = 0;
      for (int j = 7; j >= 0; --j) w = (w << 8) | in[8 * i + j];
      r.w[i] = w;
    }
    return r;
  }
  static void to_le_bytes(uint8_t out[32], const U256& a) {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) out[8 * i + j] = uint8_t(a.w[i] >> (8 * j));
  }
  // A 512-bit little-endian integer (a SHA-512 digest, RFC 8032 5.1.6 and
  // 5.1.7) mod L: with x = hi 2^256 + lo, x R = hi R^2 + lo R, which is
  // mont_mul(hi, R^3) + mont_mul(lo, R^2); one more mont_mul by 1 takes it
  // out of Montgomery form. Constant time (the nonce r comes through here).
  static U256 reduce_wide(const uint8_t in[64]) {
    const U256 lo = from_le_bytes(in), hi = from_le_bytes(in + 32);
    return from_mont(add(mont_mul(hi, kR3), mont_mul(lo, kR2)));
  }
  // All ones if the 32-byte S of a signature is below L (RFC 8032 5.1.7
  // step 1 rejects S >= L: signatures are not malleable).
  static uint64_t is_canonical(const uint8_t in[32]) { return lt_mask(from_le_bytes(in), kModulus); }
};

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_SC25519_H_
