// Ed25519 and X25519 keys in the formats of RFC 8410, as OpenSSL, Go,
// BoringSSL and the cryptography package exchange them: public keys as
// SubjectPublicKeyInfo with the algorithm's OID and no parameters (sections
// 3 and 4), private keys as PKCS#8 around CurvePrivateKey ::= OCTET STRING
// (section 7). Keys are 32 bytes either way: an Ed25519 private key is the
// seed of RFC 8032 5.1.5, an X25519 one the scalar of RFC 7748 before
// clamping. Purely syntactic: no curve arithmetic; whether an embedded
// public key belongs to the private key is the caller's check. DER in, DER
// out: PEM ("PRIVATE KEY", "PUBLIC KEY") is pem.h's, as for SM2.
// Functions return KS_OK or the ks_status that names the problem.
#ifndef KS_ENCODING_CURVE25519_FORMATS_H_
#define KS_ENCODING_CURVE25519_FORMATS_H_

#include <stddef.h>
#include <stdint.h>

#include "core/secure.h"
#include "core/wiping_allocator.h"

namespace ks {
namespace curve25519_formats {

// The RFC 8410 algorithms this library has (not X448 and Ed448).
enum Curve25519Alg {
  kEd25519,  // id-Ed25519, 1.3.101.112
  kX25519,   // id-X25519, 1.3.101.110
};

// Public and private keys alike.
constexpr size_t kKeyBytes = 32;

// SubjectPublicKeyInfo ::= SEQUENCE { SEQUENCE { OID }, BIT STRING (key) }.
Bytes spki_encode(Curve25519Alg alg, const uint8_t key[kKeyBytes]);

// Reads exactly one SubjectPublicKeyInfo of either algorithm: *alg, and the
// key into key[]. Another algorithm is KS_ERR_KEY_ALGORITHM, parameters
// KS_ERR_DER_TRAILING (they must be absent), unused bits
// KS_ERR_DER_BIT_STRING, a key of another length KS_ERR_BAD_PUBLIC_KEY.
int spki_decode(const uint8_t* der, size_t len, Curve25519Alg* alg, uint8_t key[kKeyBytes]);

// PKCS#8 as OpenSSL writes it, byte for byte: SEQUENCE { INTEGER 0,
// SEQUENCE { OID }, OCTET STRING { OCTET STRING (key) } }.
Bytes pkcs8_encode(Curve25519Alg alg, const uint8_t key[kKeyBytes]);

// A decoded private key. It holds the secret, so it cannot be copied and
// wipes key[] when it goes.
struct PrivateKey {
  Curve25519Alg alg = kEd25519;
  uint8_t key[kKeyBytes] = {};
  // The version 1 publicKey field, where the input had one (RFC 8410
  // section 7): the caller checks that it is key[]'s public key.
  bool has_public_key = false;
  uint8_t public_key[kKeyBytes] = {};

 private:
  WipeOnExit wipe_{key, sizeof key};
};

// Reads exactly one PKCS#8 key of either algorithm: version 0
// (PrivateKeyInfo, RFC 5208) or 1 (OneAsymmetricKey, RFC 5958) with an
// optional [1] public key; [0] attributes are ignored. *out is written only
// on success. Another algorithm is KS_ERR_KEY_ALGORITHM, another version
// KS_ERR_KEY_VERSION, a private key of another length
// KS_ERR_BAD_PRIVATE_KEY, a public key of another length
// KS_ERR_BAD_PUBLIC_KEY.
int pkcs8_decode(const uint8_t* der, size_t len, PrivateKey* out);

}  // namespace curve25519_formats
}  // namespace ks

#endif  // KS_ENCODING_CURVE25519_FORMATS_H_
