// Helpers for the C API's key objects and variable-length outputs, shared
// by every scheme's API file: the out/out_cap/out_len rule, PEM unwrapping,
// and creating an object that is handed over only when complete.
#ifndef KS_API_OBJECTS_H_
#define KS_API_OBJECTS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <new>

#include "core/wiping_allocator.h"
#include "encoding/pem.h"
#include "encoding/pkix.h"
#include "kuaisuo.h"

namespace ks {
namespace api {

inline int to_status(pem::Error e) {
  switch (e) {
    case pem::Error::kOk: return KS_OK;
    case pem::Error::kNoBlock: return KS_ERR_PEM_NO_BLOCK;
    case pem::Error::kNoEnd: return KS_ERR_PEM_NO_END;
    case pem::Error::kEncrypted: return KS_ERR_PEM_ENCRYPTED;
    case pem::Error::kBadBase64: return KS_ERR_PEM_BASE64;
  }
  return KS_ERR_INTERNAL;
}

// Copies a variable-length result under the out/out_cap/out_len rule of
// include/kuaisuo.h (out NULL asks for the size; PEM is NUL-terminated).
inline int emit(const uint8_t* bytes, size_t len, bool nul_terminate, uint8_t* out,
                size_t out_cap, size_t* out_len) {
  if (out_len == nullptr) return KS_ERR_NULL_POINTER;
  *out_len = len;
  const size_t need = len + (nul_terminate ? 1 : 0);
  if (out == nullptr || out_cap < need) return KS_ERR_LENGTH;
  memcpy(out, bytes, len);
  if (nul_terminate) out[len] = 0;
  return KS_OK;
}

// DER, or its PEM armour under `label`, through the same rule.
template <class Der>
int emit_der_or_pem(const Der& der, int pem, const char* label, uint8_t* out, size_t out_cap,
                    size_t* out_len) {
  if (!pem) return emit(der.data(), der.size(), false, out, out_cap, out_len);
  const SecretString text = pem::encode(label, der.data(), der.size());
  return emit(reinterpret_cast<const uint8_t*>(text.data()), text.size(), true, out, out_cap,
              out_len);
}

// The DER inside `in`: `in` itself when it starts as DER does, else the
// body of its first PEM block with one of `labels` (pem::is_der says why
// the first byte decides).
inline int unwrap_pem(const uint8_t* in, size_t len, const char* const labels[], size_t nlabels,
                      Bytes* der, size_t* which = nullptr) {
  if (pem::is_der(in, len)) {
    der->assign(in, in + len);
    return KS_OK;
  }
  return to_status(pem::decode(in, len, labels, nlabels, der, which));
}

// The private key DER inside `in`. Every private key decoder reads the
// same block of a PEM text (the first complete one with any private key
// label), so that a key store trying them in turn gets one answer and the
// others say KS_ERR_KEY_ALGORITHM. *sec1 (if asked) tells an "EC PRIVATE
// KEY" or "SM2 PRIVATE KEY" block (SEC1 ECPrivateKey, an SM2 key whatever
// it holds) from a PKCS#8 "PRIVATE KEY" one or DER.
// An EncryptedPrivateKeyInfo, DER as PEM, is KS_ERR_PEM_ENCRYPTED (for
// ks_pkcs8_decrypt), whichever private key decoder is asked.
inline int unwrap_private_key(const uint8_t* in, size_t len, Bytes* der, bool* sec1 = nullptr) {
  static const char* const kLabels[] = {"PRIVATE KEY", "EC PRIVATE KEY", "SM2 PRIVATE KEY"};
  size_t which = 0;
  const int rc = unwrap_pem(in, len, kLabels, 3, der, &which);
  if (sec1 != nullptr) *sec1 = which != 0;
  if (rc == KS_OK && pkix::is_encrypted_private_key_info(der->data(), der->size()))
    return KS_ERR_PEM_ENCRYPTED;
  return rc;
}

// unwrap_private_key for a decoder of PKCS#8 keys other than SM2's.
inline int unwrap_pkcs8(const uint8_t* in, size_t len, Bytes* der) {
  bool sec1 = false;
  const int rc = unwrap_private_key(in, len, der, &sec1);
  if (rc == KS_OK && sec1) return KS_ERR_KEY_ALGORITHM;
  return rc;
}

// The SubjectPublicKeyInfo DER inside `in`: an SPKI or an X.509
// certificate, DER or PEM ("PUBLIC KEY" or "CERTIFICATE").
inline int unwrap_public_key(const uint8_t* in, size_t len, Bytes* der) {
  static const char* const kLabels[] = {"PUBLIC KEY", "CERTIFICATE"};
  const int rc = unwrap_pem(in, len, kLabels, 2, der);
  if (rc != KS_OK) return rc;
  bool is_certificate = false;
  der::Reader spki;
  const int cert_rc = pkix::certificate_spki(der->data(), der->size(), &is_certificate, &spki);
  if (!is_certificate) return KS_OK;  // an SPKI: its own decoder reports what is wrong
  if (cert_rc != KS_OK) return cert_rc;
  const Bytes inner(spki.data(), spki.data() + spki.remaining());
  *der = inner;
  return KS_OK;
}

template <class T>
int new_object(T** out, T** made) {
  if (out == nullptr) return KS_ERR_NULL_POINTER;
  *out = nullptr;
  *made = new (std::nothrow) T();
  return *made == nullptr ? KS_ERR_NO_MEMORY : KS_OK;
}

// Hands a finished object to the caller, or frees it on error.
template <class T>
int finish_object(int rc, T* made, T** out) {
  if (rc == KS_OK) {
    *out = made;
  } else {
    delete made;
  }
  return rc;
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_OBJECTS_H_
