// C entry points for SM2 encryption (sm2/sm2_encrypt.h).
#include "api/batch.h"
#include "api/checks.h"
#include "api/guard.h"
#include "kuaisuo/sm2.h"
#include "sm2/sm2_encrypt.h"
#include "sm2/sm2_handles.h"

namespace {

using ks::sm2::CipherForm;

bool form_of(int form, CipherForm* out) {
  if (form < KS_SM2_C1C3C2 || form > KS_SM2_CIPHER_DER) return false;
  *out = static_cast<CipherForm>(form);
  return true;
}

// The arguments both calls share; *f the form.
int check_args(const void* key, int form, const uint8_t* in, size_t in_len, const uint8_t* out,
               size_t out_cap, const size_t* out_len, CipherForm* f) {
  if (key == nullptr || out_len == nullptr) return KS_ERR_NULL_POINTER;
  if (!form_of(form, f)) return KS_ERR_INVALID_ARGUMENT;
  int rc = ks::api::check_buffer(in, in_len);
  if (rc == KS_OK) rc = ks::api::check_buffer(out, out_cap);
  if (rc != KS_OK) return rc;
  return ks::api::overlap(in, in_len, out, out_cap) ? KS_ERR_INVALID_ARGUMENT : KS_OK;
}

}  // namespace

size_t ks_sm2_ciphertext_bound(size_t len, int form) {
  CipherForm f;
  return form_of(form, &f) ? ks::sm2::ciphertext_bound(len, f) : 0;
}

int ks_sm2_encrypt(const ks_sm2_pubkey* key, int form, const uint8_t* msg, size_t len,
                   uint8_t* out, size_t out_cap, size_t* out_len) try {
  CipherForm f;
  const int rc = check_args(key, form, msg, len, out, out_cap, out_len, &f);
  if (rc != KS_OK) return rc;
  const size_t bound = ks::sm2::ciphertext_bound(len, f);
  if (bound == 0) return KS_ERR_OVERFLOW;
  *out_len = bound;
  if (out_cap < bound) return KS_ERR_LENGTH;
  return ks::api::to_status(
      ks::sm2::encrypt(key->key, msg, len, f, out, out_cap, out_len, nullptr, key->point_table()));
} KS_API_CATCH

int ks_sm2_decrypt(const ks_sm2_key* key, int form, const uint8_t* ct, size_t ct_len,
                   uint8_t* out, size_t out_cap, size_t* out_len) try {
  CipherForm f;
  int rc = check_args(key, form, ct, ct_len, out, out_cap, out_len, &f);
  if (rc != KS_OK) return rc;
  size_t len = 0;
  rc = ks::api::to_status(ks::sm2::plaintext_length(ct, ct_len, f, &len));
  if (rc != KS_OK) return rc;
  *out_len = len;
  if (out_cap < len) return KS_ERR_LENGTH;
  return ks::api::to_status(ks::sm2::decrypt(key->key, ct, ct_len, f, out, out_cap, out_len));
} KS_API_CATCH
