/* cipher_common.c: the parameters the SM4 CIPHERs share (cipher_common.h). */
#include "cipher_common.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "ks_prov.h"

int ks_prov_sm4_get_key_iv_params(OSSL_PARAM params[], size_t ivlen, const uint8_t* iv) {
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL &&
      !OSSL_PARAM_set_size_t(p, KS_SM4_KEY_BYTES))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL &&
      !OSSL_PARAM_set_size_t(p, ivlen))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) != NULL && iv != NULL &&
      !OSSL_PARAM_set_octet_string(p, iv, ivlen))
    return 0;
  return 1;
}

int ks_prov_sm4_get_params(OSSL_PARAM params[], unsigned int evp_mode, size_t ivlen,
                           size_t blocksize, int aead) {
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL &&
      !OSSL_PARAM_set_uint(p, evp_mode))
    return 0;
  if (!ks_prov_sm4_get_key_iv_params(params, ivlen, NULL)) return 0; /* the default IV length */
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL &&
      !OSSL_PARAM_set_size_t(p, blocksize))
    return 0;
  const char* const aead_flags[] = {OSSL_CIPHER_PARAM_AEAD, OSSL_CIPHER_PARAM_CUSTOM_IV};
  for (size_t i = 0; i < sizeof aead_flags / sizeof aead_flags[0]; ++i) {
    if ((p = OSSL_PARAM_locate(params, aead_flags[i])) != NULL && !OSSL_PARAM_set_int(p, aead))
      return 0;
  }
  const char* const zero_flags[] = {OSSL_CIPHER_PARAM_CTS, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK,
                                    OSSL_CIPHER_PARAM_HAS_RAND_KEY};
  for (size_t i = 0; i < sizeof zero_flags / sizeof zero_flags[0]; ++i) {
    if ((p = OSSL_PARAM_locate(params, zero_flags[i])) != NULL && !OSSL_PARAM_set_int(p, 0))
      return 0;
  }
  return 1;
}

const OSSL_PARAM* ks_prov_sm4_gettable_params(void* provctx) {
  (void)provctx;
  static const OSSL_PARAM params[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
                                      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
                                      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
                                      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
                                      OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
                                      OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
                                      OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
                                      OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
                                      OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
                                      OSSL_PARAM_END};
  return params;
}

int ks_prov_sm4_keylen_param_ok(const OSSL_PARAM params[]) {
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN);
  size_t keylen;
  return p == NULL || (OSSL_PARAM_get_size_t(p, &keylen) && keylen == KS_SM4_KEY_BYTES);
}
