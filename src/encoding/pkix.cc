#include "encoding/pkix.h"

#include <string.h>

namespace ks {
namespace pkix {
namespace {

using der::Reader;

// publicKey [1] IMPLICIT BIT STRING (RFC 5958 section 2): context tag 1,
// primitive like the BIT STRING it replaces (DER, X.690 10.2).
constexpr uint8_t kImplicitPublicKey = 0x81;

// [0] IMPLICIT Attributes: allowed, and skipped (RFC 5958 section 2 lists
// none that a key decoder has to act on).
int skip_attributes(Reader* r) {
  if (!r->next_tag_is(der::kContext0)) return KS_OK;
  Reader attributes;
  return read(r, der::kContext0, &attributes);
}

// The [1] IMPLICIT BIT STRING: its contents are a BIT STRING's (X.690
// 8.6.2), the first byte counting unused bits, of which there must be none
// (a key is whole octets), as der::Reader::read_bit_string requires.
int read_public_key(Reader* r, Reader* bits) {
  Reader body;
  KS_RETURN_IF_ERROR(read(r, kImplicitPublicKey, &body));
  if (body.remaining() < 1 || body.data()[0] != 0) return KS_ERR_DER_BIT_STRING;
  *bits = Reader(body.data() + 1, body.remaining() - 1);
  return KS_OK;
}

}  // namespace

bool same_oid(const Reader& oid, Oid want) {
  return oid.remaining() == want.len && memcmp(oid.data(), want.bytes, want.len) == 0;
}

int to_status(der::Error e) {
  switch (e) {
    case der::Error::kOk: return KS_OK;
    case der::Error::kTruncated: return KS_ERR_DER_TRUNCATED;
    case der::Error::kUnexpectedTag: return KS_ERR_DER_TAG;
    case der::Error::kBadLength: return KS_ERR_DER_LENGTH;
    case der::Error::kTrailingData: return KS_ERR_DER_TRAILING;
    case der::Error::kNonMinimalInteger: return KS_ERR_DER_NON_MINIMAL;
    case der::Error::kNegativeInteger: return KS_ERR_DER_NEGATIVE;
    case der::Error::kIntegerTooLarge: return KS_ERR_DER_TOO_LARGE;
    case der::Error::kEmptyInteger: return KS_ERR_DER_EMPTY;
    case der::Error::kBadBitString: return KS_ERR_DER_BIT_STRING;
  }
  return KS_ERR_INTERNAL;
}

int read(Reader* r, uint8_t tag, Reader* body) { return to_status(r->read(tag, body)); }

int expect_oid(Reader* r, Oid want) {
  Reader oid;
  KS_RETURN_IF_ERROR(read(r, der::kOid, &oid));
  return same_oid(oid, want) ? KS_OK : KS_ERR_KEY_ALGORITHM;
}

bool is_encrypted_private_key_info(const uint8_t* der, size_t len) {
  Reader top(der, len), seq, alg, ciphertext;
  return read(&top, der::kSequence, &seq) == KS_OK && top.finish() == der::Error::kOk &&
         read(&seq, der::kSequence, &alg) == KS_OK &&
         read(&seq, der::kOctetString, &ciphertext) == KS_OK &&
         seq.finish() == der::Error::kOk && expect_oid(&alg, oid(kOidPbes2)) == KS_OK;
}

int read_version(Reader* r, uint8_t* version) {
  const int rc = to_status(r->read_unsigned(version, 1));
  return rc == KS_ERR_DER_TOO_LARGE ? KS_ERR_KEY_VERSION : rc;
}

void write_algorithm(Bytes* out, const AlgorithmId& alg) {
  Bytes body;
  der::write(&body, der::kOid, alg.algorithm.bytes, alg.algorithm.len);
  if (alg.parameters.len != 0) {
    der::write(&body, der::kOid, alg.parameters.bytes, alg.parameters.len);
  }
  der::write(out, der::kSequence, body);
}

int read_algorithm(Reader* r, const AlgorithmId* known, size_t n, size_t* which) {
  Reader alg, oid;
  KS_RETURN_IF_ERROR(read(r, der::kSequence, &alg));
  KS_RETURN_IF_ERROR(read(&alg, der::kOid, &oid));
  size_t i = 0;
  while (i < n && !same_oid(oid, known[i].algorithm)) ++i;
  if (i == n) return KS_ERR_KEY_ALGORITHM;
  if (known[i].parameters.len != 0) KS_RETURN_IF_ERROR(expect_oid(&alg, known[i].parameters));
  KS_RETURN_IF_ERROR(to_status(alg.finish()));
  *which = i;
  return KS_OK;
}

Bytes spki_encode(const AlgorithmId& alg, const uint8_t* key, size_t len) {
  Bytes body, out;
  write_algorithm(&body, alg);
  der::write_bit_string(&body, key, len);
  der::write(&out, der::kSequence, body);
  return out;
}

// Bytes after the SEQUENCE are reported before anything inside it: the
// order SM2 public keys were always checked in, so that a given input keeps
// its status.
int spki_decode(const uint8_t* der, size_t len, const AlgorithmId* known, size_t n,
                size_t* which, Reader* key) {
  Reader top(der, len), seq;
  KS_RETURN_IF_ERROR(read(&top, der::kSequence, &seq));
  KS_RETURN_IF_ERROR(to_status(top.finish()));
  KS_RETURN_IF_ERROR(read_algorithm(&seq, known, n, which));
  KS_RETURN_IF_ERROR(to_status(seq.read_bit_string(key)));
  return to_status(seq.finish());
}

int certificate_spki(const uint8_t* der, size_t len, bool* is_certificate, Reader* spki) {
  Reader top(der, len), cert, tbs, skipped;
  *is_certificate = false;
  KS_RETURN_IF_ERROR(read(&top, der::kSequence, &cert));
  if (!cert.next_tag_is(der::kSequence)) return KS_OK;
  Reader peek = cert;
  KS_RETURN_IF_ERROR(read(&peek, der::kSequence, &tbs));
  if (tbs.next_tag_is(der::kOid)) return KS_OK;  // an AlgorithmIdentifier: SPKI
  *is_certificate = true;
  KS_RETURN_IF_ERROR(to_status(top.finish()));
  if (tbs.next_tag_is(der::kContext0)) KS_RETURN_IF_ERROR(read(&tbs, der::kContext0, &skipped));
  KS_RETURN_IF_ERROR(read(&tbs, der::kInteger, &skipped));  // serialNumber (any size)
  for (int i = 0; i < 4; ++i)  // signature, issuer, validity, subject
    KS_RETURN_IF_ERROR(read(&tbs, der::kSequence, &skipped));
  const uint8_t* start = tbs.data();
  KS_RETURN_IF_ERROR(read(&tbs, der::kSequence, &skipped));
  *spki = Reader(start, size_t(tbs.data() - start));
  return KS_OK;
}

Bytes pkcs8_encode(const AlgorithmId& alg, const uint8_t* private_key, size_t len) {
  static const uint8_t kVersion0 = 0;
  Bytes body, out;
  der::write_unsigned(&body, &kVersion0, 1);
  write_algorithm(&body, alg);
  der::write(&body, der::kOctetString, private_key, len);
  der::write(&out, der::kSequence, body);
  return out;  // body wipes itself (Bytes)
}

int pkcs8_decode(const uint8_t* der, size_t len, const AlgorithmId* known, size_t n,
                 PrivateKeyInfo* info) {
  Reader top(der, len), seq;
  KS_RETURN_IF_ERROR(read(&top, der::kSequence, &seq));
  KS_RETURN_IF_ERROR(read_version(&seq, &info->version));
  if (info->version > 1) return KS_ERR_KEY_VERSION;
  KS_RETURN_IF_ERROR(read_algorithm(&seq, known, n, &info->algorithm));
  KS_RETURN_IF_ERROR(read(&seq, der::kOctetString, &info->private_key));
  KS_RETURN_IF_ERROR(skip_attributes(&seq));
  info->has_public_key = info->version == 1 && seq.next_tag_is(kImplicitPublicKey);
  info->public_key = Reader();
  if (info->has_public_key) KS_RETURN_IF_ERROR(read_public_key(&seq, &info->public_key));
  KS_RETURN_IF_ERROR(to_status(seq.finish()));
  return to_status(top.finish());
}

}  // namespace pkix
}  // namespace ks
