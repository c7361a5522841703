// SM4 keys in a file: PKCS#8 PrivateKeyInfo (RFC 5208 section 5) with the
// algorithm sm4 (OID 1.2.156.10197.1.104 of GM/T 0006, parameters absent)
// and the privateKey OCTET STRING holding the 16 key bytes. No standard
// names a file format for a symmetric key; this one is kuaisuo's own, and
// PKCS#8's envelope is chosen so that ks_pkcs8_encrypt protects the key at
// rest exactly as it does a private key (PBES2, GmSSL's PBKDF2-HMAC-SM3 with
// SM4-CBC among the schemes), and so that every decoder of another
// algorithm refuses it with KS_ERR_KEY_ALGORITHM. DER in, DER out: PEM
// ("PRIVATE KEY") is pem.h's. Functions return KS_OK or the ks_status that
// names the problem.
#ifndef KS_ENCODING_SM4_FORMATS_H_
#define KS_ENCODING_SM4_FORMATS_H_

#include <stddef.h>
#include <stdint.h>

#include "core/wiping_allocator.h"

namespace ks {
namespace sm4_formats {

constexpr size_t kKeyBytes = 16;

// SEQUENCE { INTEGER 0, SEQUENCE { OID sm4 }, OCTET STRING (key) }.
Bytes pkcs8_encode(const uint8_t key[kKeyBytes]);

// Reads exactly one PKCS#8 SM4 key, version 0 or 1 (OneAsymmetricKey,
// RFC 5958), attributes ignored; key[] is written only on success. Another
// algorithm is KS_ERR_KEY_ALGORITHM, a key of another length or a
// publicKey field (a secret key has none) KS_ERR_BAD_PRIVATE_KEY.
int pkcs8_decode(const uint8_t* der, size_t len, uint8_t key[kKeyBytes]);

}  // namespace sm4_formats
}  // namespace ks

#endif  // KS_ENCODING_SM4_FORMATS_H_
