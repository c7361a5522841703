// The PKIX key envelopes every algorithm's key formats share, over the
// strict DER of der.h: AlgorithmIdentifier (RFC 5280 4.1.1.2),
// SubjectPublicKeyInfo (RFC 5280 4.1.2.7) and PKCS#8 PrivateKeyInfo /
// OneAsymmetricKey (RFC 5208 section 5, RFC 5958 section 2). The algorithm
// files (sm2_formats, curve25519_formats) add only their OIDs and what sits
// inside the key strings. Functions return KS_OK or the ks_status that
// names the problem: DER errors as the KS_ERR_DER_* codes, an algorithm
// not asked for as KS_ERR_KEY_ALGORITHM, a version as KS_ERR_KEY_VERSION.
#ifndef KS_ENCODING_PKIX_H_
#define KS_ENCODING_PKIX_H_

#include <stddef.h>
#include <stdint.h>

#include "core/wiping_allocator.h"
#include "encoding/der.h"
#include "kuaisuo.h"

// Evaluates expr (a ks_status) and returns it from the calling function
// unless it is KS_OK.
#define KS_RETURN_IF_ERROR(expr)                                      \
  do {                                                                \
    const int ks_return_if_error_rc_ = (expr);                        \
    if (ks_return_if_error_rc_ != KS_OK) return ks_return_if_error_rc_; \
  } while (0)

namespace ks {
namespace pkix {

// The ks_status for a DER reader error (KS_OK for der::Error::kOk).
int to_status(der::Error e);

// der::Reader::read as a ks_status.
int read(der::Reader* r, uint8_t tag, der::Reader* body);

// The content octets of an OBJECT IDENTIFIER (X.690 8.19).
struct Oid {
  const uint8_t* bytes;
  size_t len;
};

template <size_t N>
constexpr Oid oid(const uint8_t (&bytes)[N]) {
  return Oid{bytes, N};
}

// Whether the contents of an OBJECT IDENTIFIER read into oid are `want`.
bool same_oid(const der::Reader& oid, Oid want);

// Reads an OBJECT IDENTIFIER that must be `want` (else KS_ERR_KEY_ALGORITHM).
int expect_oid(der::Reader* r, Oid want);

// id-PBES2 (RFC 8018 appendix A.4, [RFC8018]): 1.2.840.113549.1.5.13.
constexpr uint8_t kOidPbes2[] = {0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0D};

// Whether der is an EncryptedPrivateKeyInfo under PBES2 (RFC 5958 section
// 3): its outer structure and algorithm identifier only (the parameters may
// still be ones src/pkcs8 refuses). What lets a private-key decoder say
// "encrypted: give a passphrase" instead of a DER error, without depending
// on the ciphers that decrypt it.
bool is_encrypted_private_key_info(const uint8_t* der, size_t len);

// Reads a structure's version, a small non-negative INTEGER; one that does
// not fit a byte is KS_ERR_KEY_VERSION. Callers check the value.
int read_version(der::Reader* r, uint8_t* version);

// The two shapes of AlgorithmIdentifier ::= SEQUENCE { algorithm OID,
// parameters ANY OPTIONAL } that keys use: parameters absent (RFC 8410
// section 3; parameters.len == 0) or a namedCurve OID (RFC 5480 2.1.1).
struct AlgorithmId {
  Oid algorithm;
  Oid parameters;
};

void write_algorithm(Bytes* out, const AlgorithmId& alg);

// Reads an AlgorithmIdentifier that must be one of known[0..n) (distinct
// algorithm OIDs) and sets *which to its index. Another algorithm, or the
// right one with another curve, is KS_ERR_KEY_ALGORITHM; parameters where
// the algorithm has none are bytes after its OID (KS_ERR_DER_TRAILING),
// none where it needs some KS_ERR_DER_TRUNCATED.
int read_algorithm(der::Reader* r, const AlgorithmId* known, size_t n, size_t* which);

// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier,
//   subjectPublicKey BIT STRING }, the BIT STRING holding key[0..len).
Bytes spki_encode(const AlgorithmId& alg, const uint8_t* key, size_t len);

// Reads exactly one SubjectPublicKeyInfo from der[0..len) whose algorithm
// is one of known[0..n) (*which, as in read_algorithm); *key covers the
// subjectPublicKey bits, which must have no unused bits.
int spki_decode(const uint8_t* der, size_t len, const AlgorithmId* known, size_t n,
                size_t* which, der::Reader* key);

// An X.509 certificate (RFC 5280 4.1) standing for its public key: when
// der[0..len) is a Certificate (SEQUENCE { tbsCertificate SEQUENCE {
// [0] version OPTIONAL, serialNumber, signature, issuer, validity,
// subject, subjectPublicKeyInfo, ... }, ... }), *spki covers the whole
// subjectPublicKeyInfo element and *is_certificate is true; otherwise
// (an SPKI, whose inner SEQUENCE opens with an OID) *is_certificate is
// false. Nothing is validated beyond the structure up to the SPKI: no
// signature, dates or chain (the caller wants the key, as `gmssl sm2verify
// -cert` does).
int certificate_spki(const uint8_t* der, size_t len, bool* is_certificate, der::Reader* spki);

// PKCS#8 PrivateKeyInfo, version 0, without attributes:
// SEQUENCE { INTEGER 0, AlgorithmIdentifier, privateKey OCTET STRING },
// the OCTET STRING holding private_key[0..len) (the algorithm's own
// encoding of the key, already DER for SM2 and RFC 8410).
Bytes pkcs8_encode(const AlgorithmId& alg, const uint8_t* private_key, size_t len);

// What pkcs8_decode found. The readers point into the decoded input.
struct PrivateKeyInfo {
  uint8_t version;          // 0 (PrivateKeyInfo) or 1 (OneAsymmetricKey v2)
  size_t algorithm;         // index into the `known` list
  der::Reader private_key;  // the privateKey OCTET STRING's contents
  bool has_public_key;      // version 1 only
  der::Reader public_key;   // the publicKey bits (no unused bits), if any
};

// Reads exactly one OneAsymmetricKey (RFC 5958 section 2) from der[0..len):
//   SEQUENCE { version INTEGER { v1(0), v2(1) }, AlgorithmIdentifier,
//     privateKey OCTET STRING, attributes [0] IMPLICIT Attributes OPTIONAL,
//     [[2: publicKey [1] IMPLICIT BIT STRING OPTIONAL ]] }
// with the algorithm one of known[0..n). Attributes are accepted and
// ignored (nothing here needs them); a publicKey only with version 1, as
// the [[2: ]] extension group says. Other versions are KS_ERR_KEY_VERSION.
int pkcs8_decode(const uint8_t* der, size_t len, const AlgorithmId* known, size_t n,
                 PrivateKeyInfo* info);

}  // namespace pkix
}  // namespace ks

#endif  // KS_ENCODING_PKIX_H_
