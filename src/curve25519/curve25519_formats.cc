#include "curve25519/curve25519_formats.h"

#include <string.h>

#include "encoding/der.h"
#include "encoding/pkix.h"
#include "kuaisuo/curve25519.h"

namespace ks {
namespace curve25519_formats {
namespace {

using der::Reader;

// OID bodies (X.690 8.19), RFC 8410 section 3.
const uint8_t kOidX25519[] = {0x2B, 0x65, 0x6E};   // 1.3.101.110
const uint8_t kOidEd25519[] = {0x2B, 0x65, 0x70};  // 1.3.101.112

// Indexed by Curve25519Alg. "The parameters MUST be absent" (section 3).
constexpr pkix::AlgorithmId kAlgorithms[] = {
    {pkix::oid(kOidEd25519), {nullptr, 0}},
    {pkix::oid(kOidX25519), {nullptr, 0}},
};
constexpr size_t kAlgorithmCount = sizeof kAlgorithms / sizeof kAlgorithms[0];

// CurvePrivateKey ::= OCTET STRING (section 7), inside PKCS#8's privateKey
// OCTET STRING: exactly the inner string, of exactly 32 bytes.
int read_curve_private_key(Reader outer, Reader* key) {
  KS_RETURN_IF_ERROR(pkix::read(&outer, der::kOctetString, key));
  KS_RETURN_IF_ERROR(pkix::to_status(outer.finish()));
  return key->remaining() == kKeyBytes ? KS_OK : KS_ERR_BAD_PRIVATE_KEY;
}

}  // namespace

Bytes spki_encode(Curve25519Alg alg, const uint8_t key[kKeyBytes]) {
  return pkix::spki_encode(kAlgorithms[alg], key, kKeyBytes);
}

int spki_decode(const uint8_t* der, size_t len, Curve25519Alg* alg, uint8_t key[kKeyBytes]) {
  size_t which = 0;
  Reader bits;
  KS_RETURN_IF_ERROR(pkix::spki_decode(der, len, kAlgorithms, kAlgorithmCount, &which, &bits));
  if (bits.remaining() != kKeyBytes) return KS_ERR_BAD_PUBLIC_KEY;
  *alg = Curve25519Alg(which);
  memcpy(key, bits.data(), kKeyBytes);
  return KS_OK;
}

Bytes pkcs8_encode(Curve25519Alg alg, const uint8_t key[kKeyBytes]) {
  Bytes curve_private_key;  // wipes itself
  der::write(&curve_private_key, der::kOctetString, key, kKeyBytes);
  return pkix::pkcs8_encode(kAlgorithms[alg], curve_private_key.data(),
                            curve_private_key.size());
}

int pkcs8_decode(const uint8_t* der, size_t len, PrivateKey* out) {
  pkix::PrivateKeyInfo info;
  Reader key;
  KS_RETURN_IF_ERROR(pkix::pkcs8_decode(der, len, kAlgorithms, kAlgorithmCount, &info));
  KS_RETURN_IF_ERROR(read_curve_private_key(info.private_key, &key));
  if (info.has_public_key && info.public_key.remaining() != kKeyBytes) {
    return KS_ERR_BAD_PUBLIC_KEY;
  }
  out->alg = Curve25519Alg(info.algorithm);
  memcpy(out->key, key.data(), kKeyBytes);
  out->has_public_key = info.has_public_key;
  if (info.has_public_key) {
    memcpy(out->public_key, info.public_key.data(), kKeyBytes);
  } else {
    memset(out->public_key, 0, kKeyBytes);
  }
  return KS_OK;
}

}  // namespace curve25519_formats
}  // namespace ks
