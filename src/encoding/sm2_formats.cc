#include "encoding/sm2_formats.h"

#include <string.h>

#include "core/secure.h"
#include "encoding/der.h"
#include "kuaisuo.h"

namespace ks {
namespace sm2_formats {
namespace {

using der::Reader;

// OID bodies (X.690 8.19).
const uint8_t kOidEcPublicKey[] = {0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01};  // 1.2.840.10045.2.1
const uint8_t kOidSm2Curve[] = {0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D};  // 1.2.156.10197.1.301

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

#define KS_TRY(expr)                   \
  do {                                 \
    const int ks_try_rc_ = (expr);     \
    if (ks_try_rc_ != KS_OK) return ks_try_rc_; \
  } while (0)

int read(Reader* r, uint8_t tag, Reader* body) { return to_status(r->read(tag, body)); }

// An OBJECT IDENTIFIER that must equal `want`.
int expect_oid(Reader* r, const uint8_t* want, size_t want_len) {
  Reader oid;
  KS_TRY(read(r, der::kOid, &oid));
  const bool same = oid.remaining() == want_len && memcmp(oid.data(), want, want_len) == 0;
  return same ? KS_OK : KS_ERR_KEY_ALGORITHM;
}

// AlgorithmIdentifier { id-ecPublicKey, namedCurve sm2 } (RFC 5480 2.1.1).
int expect_sm2_algorithm(Reader* r) {
  Reader alg;
  KS_TRY(read(r, der::kSequence, &alg));
  KS_TRY(expect_oid(&alg, kOidEcPublicKey, sizeof(kOidEcPublicKey)));
  KS_TRY(expect_oid(&alg, kOidSm2Curve, sizeof(kOidSm2Curve)));
  return to_status(alg.finish());
}

void write_sm2_algorithm(Bytes* out) {
  Bytes alg;
  der::write(&alg, der::kOid, kOidEcPublicKey, sizeof(kOidEcPublicKey));
  der::write(&alg, der::kOid, kOidSm2Curve, sizeof(kOidSm2Curve));
  der::write(out, der::kSequence, alg);
}

// A small non-negative INTEGER (structure versions).
int read_version(Reader* r, uint8_t* version) {
  const int rc = to_status(r->read_unsigned(version, 1));
  return rc == KS_ERR_DER_TOO_LARGE ? KS_ERR_KEY_VERSION : rc;
}

// The octets of an ECPoint (SEC1 2.3.3) in a key structure: 04||x||y or
// 02/03||x, never the bare 64-byte x||y that ks_sm2_pubkey_from_bytes takes
// on its own (OpenSSL refuses that inside SPKI and ECPrivateKey too).
// Only the form is checked here; scheme/sm2 checks the point.
int check_ec_point(const Reader& bits) {
  return bits.remaining() == 64 ? KS_ERR_BAD_PUBLIC_KEY : KS_OK;
}

// ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING,
//   [0] parameters OPTIONAL, [1] publicKey BIT STRING OPTIONAL } (RFC 5915).
int ec_private_key_decode(Reader* r, uint8_t d[32], const uint8_t** pub, size_t* pub_len) {
  Reader seq, key;
  KS_TRY(read(r, der::kSequence, &seq));
  uint8_t version = 0;
  KS_TRY(read_version(&seq, &version));
  if (version != 1) return KS_ERR_KEY_VERSION;
  KS_TRY(read(&seq, der::kOctetString, &key));
  if (key.remaining() != 32) return KS_ERR_BAD_PRIVATE_KEY;
  if (seq.next_tag_is(der::kContext0)) {
    Reader params;
    KS_TRY(read(&seq, der::kContext0, &params));
    KS_TRY(expect_oid(&params, kOidSm2Curve, sizeof(kOidSm2Curve)));
    KS_TRY(to_status(params.finish()));
  }
  *pub = nullptr;
  *pub_len = 0;
  if (seq.next_tag_is(der::kContext1)) {
    Reader wrapper, bits;
    KS_TRY(read(&seq, der::kContext1, &wrapper));
    KS_TRY(to_status(wrapper.read_bit_string(&bits)));
    KS_TRY(to_status(wrapper.finish()));
    KS_TRY(check_ec_point(bits));
    *pub = bits.data();
    *pub_len = bits.remaining();
  }
  KS_TRY(to_status(seq.finish()));
  memcpy(d, key.data(), 32);
  return KS_OK;
}

}  // namespace

Bytes signature_to_der(const uint8_t rs[64]) {
  Bytes body, out;
  der::write_unsigned(&body, rs, 32);
  der::write_unsigned(&body, rs + 32, 32);
  der::write(&out, der::kSequence, body);
  return out;
}

int signature_from_der(uint8_t rs[64], const uint8_t* in, size_t len) {
  Reader top(in, len), seq;
  KS_TRY(read(&top, der::kSequence, &seq));
  KS_TRY(to_status(top.finish()));
  KS_TRY(to_status(seq.read_unsigned(rs, 32)));
  KS_TRY(to_status(seq.read_unsigned(rs + 32, 32)));
  return to_status(seq.finish());
}

Bytes spki_encode(const uint8_t* point, size_t point_len) {
  Bytes body, out;
  write_sm2_algorithm(&body);
  der::write_bit_string(&body, point, point_len);
  der::write(&out, der::kSequence, body);
  return out;
}

int spki_decode(const uint8_t* in, size_t len, const uint8_t** point, size_t* point_len) {
  Reader top(in, len), seq, bits;
  KS_TRY(read(&top, der::kSequence, &seq));
  KS_TRY(to_status(top.finish()));
  KS_TRY(expect_sm2_algorithm(&seq));
  KS_TRY(to_status(seq.read_bit_string(&bits)));
  KS_TRY(to_status(seq.finish()));
  KS_TRY(check_ec_point(bits));
  *point = bits.data();
  *point_len = bits.remaining();
  return KS_OK;
}

Bytes pkcs8_encode(const uint8_t d[32], const uint8_t pub[65]) {
  static const uint8_t kZero = 0, kOne = 1;
  Bytes ec, ec_seq, pub_bits, info, out;
  der::write_unsigned(&ec, &kOne, 1);
  der::write(&ec, der::kOctetString, d, 32);
  der::write_bit_string(&pub_bits, pub, 65);
  der::write(&ec, der::kContext1, pub_bits);
  der::write(&ec_seq, der::kSequence, ec);
  der::write_unsigned(&info, &kZero, 1);
  write_sm2_algorithm(&info);
  der::write(&info, der::kOctetString, ec_seq);
  der::write(&out, der::kSequence, info);
  return out;  // the intermediate buffers wipe themselves (Bytes)
}

// PrivateKeyInfo ::= SEQUENCE { version 0, AlgorithmIdentifier,
//   privateKey OCTET STRING (an ECPrivateKey), [0] attributes OPTIONAL }.
// A bare ECPrivateKey starts with INTEGER 1 instead of INTEGER 0.
int private_key_decode(const uint8_t* in, size_t len, uint8_t d[32], const uint8_t** pub,
                       size_t* pub_len) {
  Reader top(in, len), probe(in, len), seq;
  KS_TRY(read(&probe, der::kSequence, &seq));
  uint8_t version = 0;
  KS_TRY(read_version(&seq, &version));
  if (version == 1) {  // SEC1 "EC PRIVATE KEY"
    KS_TRY(ec_private_key_decode(&top, d, pub, pub_len));
    return to_status(top.finish());
  }
  if (version != 0) return KS_ERR_KEY_VERSION;
  Reader octets;
  KS_TRY(expect_sm2_algorithm(&seq));
  KS_TRY(read(&seq, der::kOctetString, &octets));
  if (seq.next_tag_is(der::kContext0)) {  // attributes: allowed, ignored
    Reader attributes;
    KS_TRY(read(&seq, der::kContext0, &attributes));
  }
  KS_TRY(to_status(seq.finish()));
  KS_TRY(to_status(probe.finish()));
  KS_TRY(ec_private_key_decode(&octets, d, pub, pub_len));
  return to_status(octets.finish());
}

}  // namespace sm2_formats
}  // namespace ks
