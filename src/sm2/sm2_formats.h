// SM2 keys and signatures in the formats OpenSSL, GmSSL and BouncyCastle
// exchange (see ../shared/reference conventions): signatures as DER
// SEQUENCE { INTEGER r, INTEGER s }; public keys as SubjectPublicKeyInfo
// (RFC 5480 with id-ecPublicKey and the SM2 curve OID 1.2.156.10197.1.301);
// private keys as PKCS#8 PrivateKeyInfo (RFC 5208) around a SEC1
// ECPrivateKey (RFC 5915), and bare SEC1 "EC PRIVATE KEY" on input.
// Purely syntactic: points and scalars are checked by sm2/sm2.
// Functions return KS_OK or the ks_status that names the problem.
#ifndef KS_ENCODING_SM2_FORMATS_H_
#define KS_ENCODING_SM2_FORMATS_H_

#include <stddef.h>
#include <stdint.h>

#include "core/wiping_allocator.h"

namespace ks {
namespace sm2_formats {

// r||s (64 bytes) <-> DER. Decoding is strict: minimal non-negative
// INTEGERs of at most 32 bytes of value, nothing after the SEQUENCE.
Bytes signature_to_der(const uint8_t rs[64]);
int signature_from_der(uint8_t rs[64], const uint8_t* der, size_t len);

// SubjectPublicKeyInfo around point octets (04||x||y or 02/03||x).
Bytes spki_encode(const uint8_t* point, size_t point_len);
// *point and *point_len cover the BIT STRING inside der: an ECPoint (SEC1
// 2.3.3), which starts with its 02/03/04 form byte; a bare 64-byte x||y is
// refused there (KS_ERR_BAD_PUBLIC_KEY), as OpenSSL does.
int spki_decode(const uint8_t* der, size_t len, const uint8_t** point, size_t* point_len);

// PKCS#8 with version 0, and ECPrivateKey version 1 holding d (32 bytes) and
// the public key, as OpenSSL writes it.
Bytes pkcs8_encode(const uint8_t d[32], const uint8_t pub[65]);

// PKCS#8 or SEC1 ECPrivateKey DER. Writes d; *pub/*pub_len cover the
// embedded public key octets (an ECPoint, as in SPKI), or are null/0 if the
// key has none.
int private_key_decode(const uint8_t* der, size_t len, uint8_t d[32], const uint8_t** pub,
                       size_t* pub_len);

}  // namespace sm2_formats
}  // namespace ks

#endif  // KS_ENCODING_SM2_FORMATS_H_
