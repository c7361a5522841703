// C entry points for password-encrypted PKCS#8 (pkcs8/pbes2.h): one
// layer for every algorithm's keys, which then go through that algorithm's
// own ks_*_key_decode / _encode.
#include <stdint.h>

#include "api/checks.h"
#include "api/guard.h"
#include "api/objects.h"
#include "pkcs8/pbes2.h"
#include "encoding/pkix.h"
#include "kuaisuo/pkcs8.h"

namespace {

using ks::api::check_buffer;
using ks::pbes2::Cipher;
using ks::pbes2::Params;
using ks::pbes2::Prf;

constexpr const char* kEncryptedLabel = "ENCRYPTED PRIVATE KEY";

// The schemes of ks_pbes2_scheme as PBES2 parameters.
bool scheme_params(int scheme, uint32_t iterations, Params* p) {
  p->iterations = iterations == 0 ? KS_PBES2_DEFAULT_ITERATIONS : iterations;
  switch (scheme) {
    case KS_PBES2_AES256_SHA256:
      p->prf = Prf::kHmacSha256, p->cipher = Cipher::kAes256Cbc;
      return true;
    case KS_PBES2_AES128_SHA256:
      p->prf = Prf::kHmacSha256, p->cipher = Cipher::kAes128Cbc;
      return true;
    case KS_PBES2_SM4_SM3:
      p->prf = Prf::kHmacSm3, p->cipher = Cipher::kSm4Cbc;
      return true;
    case KS_PBES2_SM4_SHA256:
      p->prf = Prf::kHmacSha256, p->cipher = Cipher::kSm4Cbc;
      return true;
    default:
      return false;
  }
}

}  // namespace

static_assert(KS_PBES2_DEFAULT_MAX_ITERATIONS <= KS_PBES2_ABSOLUTE_MAX_ITERATIONS,
              "the default maximum is within the absolute one");

int ks_pkcs8_decrypt(const uint8_t* in, size_t in_len, const uint8_t* passphrase,
                     size_t passphrase_len, uint8_t* out, size_t out_cap, size_t* out_len) {
  return ks_pkcs8_decrypt_max(in, in_len, passphrase, passphrase_len, 0, out, out_cap, out_len);
}

int ks_pkcs8_decrypt_max(const uint8_t* in, size_t in_len, const uint8_t* passphrase,
                         size_t passphrase_len, uint32_t max_iterations, uint8_t* out,
                         size_t out_cap, size_t* out_len) try {
  if (max_iterations > KS_PBES2_ABSOLUTE_MAX_ITERATIONS) return KS_ERR_INVALID_ARGUMENT;
  if (max_iterations == 0) max_iterations = KS_PBES2_DEFAULT_MAX_ITERATIONS;
  KS_RETURN_IF_ERROR(check_buffer(in, in_len));
  KS_RETURN_IF_ERROR(check_buffer(passphrase, passphrase_len));
  if (out_len == nullptr) return KS_ERR_NULL_POINTER;
  static const char* const kLabels[] = {kEncryptedLabel};
  ks::Bytes der, plain;
  KS_RETURN_IF_ERROR(ks::api::unwrap_pem(in, in_len, kLabels, 1, &der));
  KS_RETURN_IF_ERROR(ks::pbes2::decrypt(der.data(), der.size(), passphrase, passphrase_len,
                                        max_iterations, &plain));
  return ks::api::emit(plain.data(), plain.size(), false, out, out_cap, out_len);
} KS_API_CATCH

int ks_pkcs8_encrypt(const uint8_t* der, size_t der_len, const uint8_t* passphrase,
                     size_t passphrase_len, int scheme, uint32_t iterations, int pem,
                     uint8_t* out, size_t out_cap, size_t* out_len) try {
  KS_RETURN_IF_ERROR(check_buffer(der, der_len));
  KS_RETURN_IF_ERROR(check_buffer(passphrase, passphrase_len));
  if (out_len == nullptr) return KS_ERR_NULL_POINTER;
  Params params;
  if (!scheme_params(scheme, iterations, &params) ||
      iterations > KS_PBES2_ABSOLUTE_MAX_ITERATIONS)
    return KS_ERR_INVALID_ARGUMENT;
  ks::Bytes encrypted;
  KS_RETURN_IF_ERROR(
      ks::pbes2::encrypt(der, der_len, passphrase, passphrase_len, params, &encrypted));
  return ks::api::emit_der_or_pem(encrypted, pem, kEncryptedLabel, out, out_cap, out_len);
} KS_API_CATCH
