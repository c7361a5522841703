// X25519 key agreement (RFC 7748 5 and 6.1) on the CPU: 32-byte private
// keys (any 32 bytes; clamped when used), 32-byte u-coordinates.
#ifndef KS_SCHEME_X25519_H_
#define KS_SCHEME_X25519_H_

#include <stddef.h>
#include <stdint.h>

#include "field/u256.h"

namespace ks {
namespace x25519 {

constexpr size_t kKeyBytes = 32;

enum class Error {
  kOk = 0,
  kZeroSharedSecret,  // the peer's u has small order: the result is all zero (RFC 7748 6.1)
  kRngFailure,
};

// The clamped scalar of a private key (RFC 7748 5, decodeScalar25519): the
// three low bits and bit 255 cleared, bit 254 set.
field::U256 clamp(const uint8_t k[kKeyBytes]);
// A u-coordinate with its top bit masked (decodeUCoordinate); values of p
// and above are accepted and taken mod p, as RFC 7748 5 requires.
field::U256 decode_u(const uint8_t u[kKeyBytes]);

// X25519(k, 9): the public key of k. Constant time.
void public_key(uint8_t out[kKeyBytes], const uint8_t k[kKeyBytes]);
// X25519(k, u). Constant time in k; kZeroSharedSecret (out all zero) when
// the result is zero, checked without a branch on the secret.
Error shared_secret(uint8_t out[kKeyBytes], const uint8_t k[kKeyBytes], const uint8_t u[kKeyBytes]);
// A fresh private key (os_random) and its public key.
Error generate(uint8_t private_key[kKeyBytes], uint8_t public_key_out[kKeyBytes]);

}  // namespace x25519
}  // namespace ks

#endif  // KS_SCHEME_X25519_H_
