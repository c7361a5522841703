#include "curve25519/x25519.h"

#include "core/os_random.h"
#include "core/secure.h"
#include "curve25519/ed25519_curve.h"
#include "field/fe25519.h"
#include "field/sc25519.h"

namespace ks {
namespace x25519 {

using field::Fe25519;
using field::U256;

U256 clamp(const uint8_t k[kKeyBytes]) {
  U256 s = field::Sc25519::from_le_bytes(k);
  s.w[0] &= ~uint64_t(7);
  s.w[3] &= 0x7FFFFFFFFFFFFFFFull;
  s.w[3] |= 0x4000000000000000ull;
  return s;
}

U256 decode_u(const uint8_t u[kKeyBytes]) {
  U256 r;
  Fe25519::from_bytes(r, u);  // bit 255 masked; non-canonical values kept (weakly reduced)
  return r;
}

void public_key(uint8_t out[kKeyBytes], const uint8_t k[kKeyBytes]) {
  U256 s = clamp(k);
  Fe25519::to_bytes(out, curve::ed25519::x25519_base(s));
  ct_declassify(out, kKeyBytes);  // a public key is public
  secure_wipe(&s, sizeof s);
}

Error shared_secret(uint8_t out[kKeyBytes], const uint8_t k[kKeyBytes], const uint8_t u[kKeyBytes]) {
  U256 s = clamp(k);
  const U256 shared = curve::ed25519::x25519(s, decode_u(u));
  Fe25519::to_bytes(out, shared);
  secure_wipe(&s, sizeof s);
  // The verdict is public (RFC 7748 6.1: the caller must abort), the value
  // is not: is_zero_mask has no branch, only its answer is declassified.
  return ct_public(field::is_zero_mask(shared)) != 0 ? Error::kZeroSharedSecret : Error::kOk;
}

Error generate(uint8_t private_key[kKeyBytes], uint8_t public_key_out[kKeyBytes]) {
  if (!os_random(private_key, kKeyBytes)) return Error::kRngFailure;
  public_key(public_key_out, private_key);
  return Error::kOk;
}

}  // namespace x25519
}  // namespace ks
