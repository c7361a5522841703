#include "encoding/sm2_formats.h"

#include <string.h>

#include "core/secure.h"
#include "encoding/der.h"
#include "encoding/pkix.h"
#include "kuaisuo.h"

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
// Only the form is checked here; scheme/sm2 checks the point.
int check_ec_point(const Reader& bits) {
  return bits.remaining() == 64 ? KS_ERR_BAD_PUBLIC_KEY : KS_OK;
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
    KS_RETURN_IF_ERROR(pkix::expect_oid(&params, kSm2Algorithm.parameters));
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
