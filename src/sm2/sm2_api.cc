// C entry points for SM2 keys, their encodings and single operations. The
// arithmetic lives in sm2/sm2.h, the formats in encoding/; batches are in
// sm2_batch_api.cc.
#include <string.h>

#include "api/guard.h"
#include "api/objects.h"
#include "sm2/sm2_handles.h"
#include "core/secure.h"
#include "core/wiping_allocator.h"
#include "sm2/sm2_formats.h"
#include "kuaisuo/sm2.h"
#include "sm2/sm2.h"

using ks::api::check_buffer;
using ks::api::check_id;
using ks::api::emit;
using ks::api::emit_der_or_pem;
using ks::api::finish_object;
using ks::api::new_object;
using ks::api::parse_nonce;
using ks::api::to_status;
using ks::api::unwrap_public_key;

// ---- Keys -------------------------------------------------------------------

int ks_sm2_key_generate(ks_sm2_key** out) try {
  ks_sm2_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  return finish_object(to_status(ks::sm2::generate_key(made->key)), made, out);
} KS_API_CATCH

int ks_sm2_key_from_bytes(const uint8_t* d, size_t d_len, ks_sm2_key** out) try {
  ks_sm2_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(d, d_len);
  if (rc == KS_OK && d_len != KS_SM2_PRIVATE_KEY_BYTES) rc = KS_ERR_BAD_PRIVATE_KEY;
  if (rc == KS_OK) rc = to_status(ks::sm2::private_key_from_bytes(made->key, d));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_key_decode(const uint8_t* in, size_t in_len, ks_sm2_key** out) try {
  ks_sm2_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  ks::Bytes der;
  // any of the labels: the DER itself says whether it is PKCS#8 or SEC1
  if (rc == KS_OK) rc = ks::api::unwrap_private_key(in, in_len, &der);
  uint8_t d[32];
  const ks::WipeOnExit wipe_d(d, sizeof d);
  const uint8_t* pub = nullptr;
  size_t pub_len = 0;
  if (rc == KS_OK) rc = ks::sm2_formats::private_key_decode(der.data(), der.size(), d, &pub, &pub_len);
  if (rc == KS_OK) rc = to_status(ks::sm2::private_key_from_bytes(made->key, d));
  if (rc == KS_OK && pub != nullptr) {
    ks::sm2::PublicKey embedded;
    rc = to_status(ks::sm2::public_key_from_bytes(embedded, pub, pub_len));
    uint8_t a[65], b[65];
    ks::sm2::public_key_to_bytes(a, embedded);
    ks::sm2::public_key_to_bytes(b, made->key.pub);
    if (rc == KS_OK && memcmp(a, b, sizeof a) != 0) rc = KS_ERR_KEY_MISMATCH;
  }
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_key_to_bytes(const ks_sm2_key* key, uint8_t d[KS_SM2_PRIVATE_KEY_BYTES]) try {
  if (key == nullptr || d == nullptr) return KS_ERR_NULL_POINTER;
  ks::sm2::private_key_to_bytes(d, key->key);
  return KS_OK;
} KS_API_CATCH

int ks_sm2_key_encode(const ks_sm2_key* key, int pem, uint8_t* out, size_t out_cap,
                      size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  uint8_t d[32], pub[65];
  const ks::WipeOnExit wipe_d(d, sizeof d);
  ks::sm2::private_key_to_bytes(d, key->key);
  ks::sm2::public_key_to_bytes(pub, key->key.pub);
  return emit_der_or_pem(ks::sm2_formats::pkcs8_encode(d, pub), pem, "PRIVATE KEY", out, out_cap,
                         out_len);
} KS_API_CATCH

int ks_sm2_key_public(const ks_sm2_key* key, ks_sm2_pubkey** out) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  ks_sm2_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  made->key = key->key.pub;
  return finish_object(KS_OK, made, out);
} KS_API_CATCH

void ks_sm2_key_free(ks_sm2_key* key) { delete key; }

int ks_sm2_pubkey_from_bytes(const uint8_t* in, size_t in_len, ks_sm2_pubkey** out) try {
  ks_sm2_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  if (rc == KS_OK) rc = to_status(ks::sm2::public_key_from_bytes(made->key, in, in_len));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_pubkey_decode(const uint8_t* in, size_t in_len, ks_sm2_pubkey** out) try {
  ks_sm2_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  ks::Bytes der;
  if (rc == KS_OK) rc = unwrap_public_key(in, in_len, &der);
  const uint8_t* point = nullptr;
  size_t point_len = 0;
  if (rc == KS_OK) rc = ks::sm2_formats::spki_decode(der.data(), der.size(), &point, &point_len);
  if (rc == KS_OK) rc = to_status(ks::sm2::public_key_from_bytes(made->key, point, point_len));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_pubkey_to_bytes(const ks_sm2_pubkey* key, int compressed, uint8_t* out,
                           size_t out_cap, size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  uint8_t buf[KS_SM2_PUBLIC_KEY_BYTES];
  if (compressed) {
    ks::sm2::public_key_to_compressed(buf, key->key);
    return emit(buf, KS_SM2_COMPRESSED_PUBLIC_KEY_BYTES, false, out, out_cap, out_len);
  }
  ks::sm2::public_key_to_bytes(buf, key->key);
  return emit(buf, KS_SM2_PUBLIC_KEY_BYTES, false, out, out_cap, out_len);
} KS_API_CATCH

int ks_sm2_pubkey_encode(const ks_sm2_pubkey* key, int pem, uint8_t* out, size_t out_cap,
                         size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  uint8_t point[KS_SM2_PUBLIC_KEY_BYTES];
  ks::sm2::public_key_to_bytes(point, key->key);
  return emit_der_or_pem(ks::sm2_formats::spki_encode(point, sizeof point), pem, "PUBLIC KEY", out,
                         out_cap, out_len);
} KS_API_CATCH

void ks_sm2_pubkey_free(ks_sm2_pubkey* key) { delete key; }

static_assert(KS_SM2_PUBKEY_TABLE_BYTES == ks::curve::kPointTableBytes, "the header's size");

const ks::curve::PointTable* ks_sm2_pubkey::precomputed_table() const {
  const ks::curve::PointTable* have = point_table();
  if (have != nullptr) return have;
  ks::curve::PointTablePtr made = ks::curve::make_point_table(key.point);
  if (made == nullptr) return nullptr;
  ks::curve::PointTable* expected = nullptr;
  if (!table.compare_exchange_strong(expected, made.get(), std::memory_order_acq_rel))
    return expected;  // another thread's table won; ours is freed
  return made.release();
}

int ks_sm2_pubkey_precompute(ks_sm2_pubkey* key) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  return key->precomputed_table() != nullptr ? KS_OK : KS_ERR_NO_MEMORY;
} KS_API_CATCH

// ---- Digests, signatures ------------------------------------------------------

int ks_sm2_za(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
              uint8_t za[KS_SM2_DIGEST_BYTES]) try {
  if (key == nullptr || za == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_id(id, id_len);
  return rc != KS_OK ? rc : to_status(ks::sm2::compute_za(za, key->key, id, id_len));
} KS_API_CATCH

int ks_sm2_digest(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                  const uint8_t* msg, size_t msg_len, uint8_t e[KS_SM2_DIGEST_BYTES]) try {
  if (key == nullptr || e == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::sm2::message_digest(e, key->key, id, id_len, msg, msg_len));
} KS_API_CATCH

int ks_sm2_sign(const ks_sm2_key* key, const uint8_t* id, size_t id_len, const uint8_t* msg,
                size_t msg_len, int nonce, uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  ks::sm2::Nonce mode;
  int rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::sm2::sign_message(sig, key->key, id, id_len, msg, msg_len, mode));
} KS_API_CATCH

int ks_sm2_sign_digest(const ks_sm2_key* key, const uint8_t e[KS_SM2_DIGEST_BYTES], int nonce,
                       uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || e == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  ks::sm2::Nonce mode;
  const int rc = parse_nonce(nonce, &mode);
  return rc != KS_OK ? rc : to_status(ks::sm2::sign_digest(sig, key->key, e, mode));
} KS_API_CATCH

int ks_sm2_verify(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                  const uint8_t* msg, size_t msg_len, const uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(
      ks::sm2::verify_message(key->key, id, id_len, msg, msg_len, sig, key->point_table()));
} KS_API_CATCH

int ks_sm2_verify_digest(const ks_sm2_pubkey* key, const uint8_t e[KS_SM2_DIGEST_BYTES],
                         const uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || e == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  return to_status(ks::sm2::verify_digest(key->key, e, sig, key->point_table()));
} KS_API_CATCH

int ks_sm2_signature_to_der(const uint8_t sig[KS_SM2_SIGNATURE_BYTES], uint8_t* out,
                            size_t out_cap, size_t* out_len) try {
  if (sig == nullptr) return KS_ERR_NULL_POINTER;
  const ks::Bytes der = ks::sm2_formats::signature_to_der(sig);
  return emit(der.data(), der.size(), false, out, out_cap, out_len);
} KS_API_CATCH

int ks_sm2_signature_from_der(const uint8_t* der, size_t der_len,
                              uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (sig == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(der, der_len);
  return rc != KS_OK ? rc : ks::sm2_formats::signature_from_der(sig, der, der_len);
} KS_API_CATCH
