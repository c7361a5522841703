#include "sm2/sm2_formats.h"

#include <string.h>

#include "core/secure.h"
#include "encoding/der.h"
#include "encoding/pkix.h"
#include "kuaisuo/sm2.h"

namespace ks {
namespace sm2_formats {
namespace {

using der::Reader;
using pkix::to_status;

// OID bodies (X.690 8.19).
const uint8_t kOidEcPublicKey[] = {0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01};  // 1.2.840.10045.2.1
const uint8_t kOidSm2Curve[] = {0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D};  // 1.2.156.10197.1.301

// AlgorithmIdentifier { id-ecPublicKey, namedCurve sm2 } (RFC 5480 2.1.1).
constexpr pkix::AlgorithmId kSm2Algorithm = {pkix::oid(kOidEcPublicKey), pkix::oid(kOidSm2Curve)};

// The octets of an ECPoint (SEC1 2.3.3) in a key structure: 04||x||y or
// 02/03||x, never the bare 64-byte x||y that ks_sm2_pubkey_from_bytes takes
// on its own (OpenSSL refuses that inside SPKI and ECPrivateKey too).
// Only the form is checked here; sm2/sm2 checks the point.
int check_ec_point(const Reader& bits) {
  return bits.remaining() == 64 ? KS_ERR_BAD_PUBLIC_KEY : KS_OK;
}

// The SM2 curve (GB/T 32918.5-2017, section 3) for explicit parameters.
const uint8_t kP[32] = {0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00,
                        0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
const uint8_t kB[32] = {0x28, 0xE9, 0xFA, 0x9E, 0x9D, 0x9F, 0x5E, 0x34, 0x4D, 0x5A, 0x9E,
                        0x4B, 0xCF, 0x65, 0x09, 0xA7, 0xF3, 0x97, 0x89, 0xF5, 0x15, 0xAB,
                        0x8F, 0x92, 0xDD, 0xBC, 0xBD, 0x41, 0x4D, 0x94, 0x0E, 0x93};
const uint8_t kG[65] = {
    0x04, 0x32, 0xC4, 0xAE, 0x2C, 0x1F, 0x19, 0x81, 0x19, 0x5F, 0x99, 0x04, 0x46, 0x6A,
    0x39, 0xC9, 0x94, 0x8F, 0xE3, 0x0B, 0xBF, 0xF2, 0x66, 0x0B, 0xE1, 0x71, 0x5A, 0x45,
    0x89, 0x33, 0x4C, 0x74, 0xC7, 0xBC, 0x37, 0x36, 0xA2, 0xF4, 0xF6, 0x77, 0x9C, 0x59,
    0xBD, 0xCE, 0xE3, 0x6B, 0x69, 0x21, 0x53, 0xD0, 0xA9, 0x87, 0x7C, 0xC6, 0x2A, 0x47,
    0x40, 0x02, 0xDF, 0x32, 0xE5, 0x21, 0x39, 0xF0, 0xA0};
const uint8_t kN[32] = {0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6,
                        0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09, 0x39, 0xD5, 0x41, 0x23};
const uint8_t kOidPrimeField[] = {0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x01, 0x01};  // 1.2.840.10045.1.1

int expect_integer(Reader* r, const uint8_t want[32]) {
  uint8_t v[32];
  KS_RETURN_IF_ERROR(to_status(r->read_unsigned(v, 32)));
  return memcmp(v, want, 32) == 0 ? KS_OK : KS_ERR_KEY_ALGORITHM;
}

int expect_octets(Reader* r, const uint8_t* want, size_t len) {
  Reader v;
  KS_RETURN_IF_ERROR(pkix::read(r, der::kOctetString, &v));
  return v.remaining() == len && memcmp(v.data(), want, len) == 0 ? KS_OK : KS_ERR_KEY_ALGORITHM;
}

// SpecifiedECDomain (SEC1 C.2, as `openssl ec -param_enc explicit` writes
// it) that must be the SM2 curve: version 1 to 3; prime-field p; a = p - 3
// and b, with an optional seed; the base point uncompressed or compressed
// (y of G is even: 02); order n; cofactor 1 when present. Anything else is
// another curve (KS_ERR_KEY_ALGORITHM).
int expect_sm2_explicit(Reader* params) {
  Reader domain, field, curve, seed;
  KS_RETURN_IF_ERROR(pkix::read(params, der::kSequence, &domain));
  uint8_t version = 0;
  KS_RETURN_IF_ERROR(pkix::read_version(&domain, &version));
  if (version < 1 || version > 3) return KS_ERR_KEY_VERSION;
  KS_RETURN_IF_ERROR(pkix::read(&domain, der::kSequence, &field));
  KS_RETURN_IF_ERROR(pkix::expect_oid(&field, pkix::oid(kOidPrimeField)));
  KS_RETURN_IF_ERROR(expect_integer(&field, kP));
  KS_RETURN_IF_ERROR(to_status(field.finish()));
  uint8_t a[32];
  memcpy(a, kP, 32);
  a[31] -= 3;  // a = p - 3: no borrow, p ends in 0xFF
  KS_RETURN_IF_ERROR(pkix::read(&domain, der::kSequence, &curve));
  KS_RETURN_IF_ERROR(expect_octets(&curve, a, 32));
  KS_RETURN_IF_ERROR(expect_octets(&curve, kB, 32));
  if (curve.next_tag_is(der::kBitString)) KS_RETURN_IF_ERROR(to_status(curve.read_bit_string(&seed)));
  KS_RETURN_IF_ERROR(to_status(curve.finish()));
  uint8_t compressed[33];
  compressed[0] = uint8_t(0x02 | (kG[64] & 1));
  memcpy(compressed + 1, kG + 1, 32);
  const bool short_form = domain.next_tag_is(der::kOctetString) && domain.remaining() > 1 &&
                          domain.data()[1] == 33;
  KS_RETURN_IF_ERROR(short_form ? expect_octets(&domain, compressed, 33)
                                : expect_octets(&domain, kG, 65));
  KS_RETURN_IF_ERROR(expect_integer(&domain, kN));
  if (domain.next_tag_is(der::kInteger)) {
    uint8_t cofactor = 0;
    KS_RETURN_IF_ERROR(to_status(domain.read_unsigned(&cofactor, 1)));
    if (cofactor != 1) return KS_ERR_KEY_ALGORITHM;
  }
  return to_status(domain.finish());
}

// ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING,
//   [0] parameters OPTIONAL, [1] publicKey BIT STRING OPTIONAL } (RFC 5915).
int ec_private_key_decode(Reader* r, uint8_t d[32], const uint8_t** pub, size_t* pub_len) {
  Reader seq, key;
  KS_RETURN_IF_ERROR(pkix::read(r, der::kSequence, &seq));
  uint8_t version = 0;
  KS_RETURN_IF_ERROR(pkix::read_version(&seq, &version));
  if (version != 1) return KS_ERR_KEY_VERSION;
  KS_RETURN_IF_ERROR(pkix::read(&seq, der::kOctetString, &key));
  if (key.remaining() != 32) return KS_ERR_BAD_PRIVATE_KEY;
  if (seq.next_tag_is(der::kContext0)) {
    Reader params;
    KS_RETURN_IF_ERROR(pkix::read(&seq, der::kContext0, &params));
    KS_RETURN_IF_ERROR(params.next_tag_is(der::kSequence)
                           ? expect_sm2_explicit(&params)
                           : pkix::expect_oid(&params, kSm2Algorithm.parameters));
    KS_RETURN_IF_ERROR(to_status(params.finish()));
  }
  *pub = nullptr;
  *pub_len = 0;
  if (seq.next_tag_is(der::kContext1)) {
    Reader wrapper, bits;
    KS_RETURN_IF_ERROR(pkix::read(&seq, der::kContext1, &wrapper));
    KS_RETURN_IF_ERROR(to_status(wrapper.read_bit_string(&bits)));
    KS_RETURN_IF_ERROR(to_status(wrapper.finish()));
    KS_RETURN_IF_ERROR(check_ec_point(bits));
    *pub = bits.data();
    *pub_len = bits.remaining();
  }
  KS_RETURN_IF_ERROR(to_status(seq.finish()));
  memcpy(d, key.data(), 32);
  return KS_OK;
}

// Whether a private key is a bare SEC1 ECPrivateKey rather than PKCS#8:
// both start SEQUENCE { INTEGER version, but ECPrivateKey has version 1 and
// an OCTET STRING next, PrivateKeyInfo version 0 and an AlgorithmIdentifier
// SEQUENCE, and OneAsymmetricKey (RFC 5958) version 1 and that SEQUENCE.
// The last is how RFC 8410 10.3 and BouncyCastle write Ed25519 keys with
// their public key: they must come out as another algorithm
// (KS_ERR_KEY_ALGORITHM), not as broken SEC1 keys.
int is_sec1(const uint8_t* in, size_t len, bool* sec1) {
  Reader top(in, len), seq;
  uint8_t version = 0;
  KS_RETURN_IF_ERROR(pkix::read(&top, der::kSequence, &seq));
  KS_RETURN_IF_ERROR(pkix::read_version(&seq, &version));
  *sec1 = version == 1 && !seq.next_tag_is(der::kSequence);
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
  KS_RETURN_IF_ERROR(pkix::read(&top, der::kSequence, &seq));
  KS_RETURN_IF_ERROR(to_status(top.finish()));
  KS_RETURN_IF_ERROR(to_status(seq.read_unsigned(rs, 32)));
  KS_RETURN_IF_ERROR(to_status(seq.read_unsigned(rs + 32, 32)));
  return to_status(seq.finish());
}

Bytes spki_encode(const uint8_t* point, size_t point_len) {
  return pkix::spki_encode(kSm2Algorithm, point, point_len);
}

int spki_decode(const uint8_t* in, size_t len, const uint8_t** point, size_t* point_len) {
  size_t which = 0;
  Reader bits;
  KS_RETURN_IF_ERROR(pkix::spki_decode(in, len, &kSm2Algorithm, 1, &which, &bits));
  KS_RETURN_IF_ERROR(check_ec_point(bits));
  *point = bits.data();
  *point_len = bits.remaining();
  return KS_OK;
}

Bytes pkcs8_encode(const uint8_t d[32], const uint8_t pub[65]) {
  static const uint8_t kOne = 1;
  Bytes ec, ec_seq, pub_bits;
  der::write_unsigned(&ec, &kOne, 1);
  der::write(&ec, der::kOctetString, d, 32);
  der::write_bit_string(&pub_bits, pub, 65);
  der::write(&ec, der::kContext1, pub_bits);
  der::write(&ec_seq, der::kSequence, ec);
  // The intermediate buffers wipe themselves (Bytes).
  return pkix::pkcs8_encode(kSm2Algorithm, ec_seq.data(), ec_seq.size());
}

// PKCS#8 holds an ECPrivateKey in its privateKey OCTET STRING. Only
// version 0 is read for SM2: no SM2 implementation writes
// OneAsymmetricKey v2, and its outer publicKey would be a second copy of
// the ECPrivateKey's.
int private_key_decode(const uint8_t* in, size_t len, uint8_t d[32], const uint8_t** pub,
                       size_t* pub_len) {
  bool sec1 = false;
  KS_RETURN_IF_ERROR(is_sec1(in, len, &sec1));
  if (sec1) {  // "EC PRIVATE KEY"
    Reader top(in, len);
    KS_RETURN_IF_ERROR(ec_private_key_decode(&top, d, pub, pub_len));
    return to_status(top.finish());
  }
  pkix::PrivateKeyInfo info;
  KS_RETURN_IF_ERROR(pkix::pkcs8_decode(in, len, &kSm2Algorithm, 1, &info));
  if (info.version != 0) return KS_ERR_KEY_VERSION;
  KS_RETURN_IF_ERROR(ec_private_key_decode(&info.private_key, d, pub, pub_len));
  return to_status(info.private_key.finish());
}

}  // namespace sm2_formats
}  // namespace ks
