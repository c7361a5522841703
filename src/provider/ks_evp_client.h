/* ks_evp_client.h: for the programs that use the provider from outside,
 * through EVP (provider_speed, tests/provider/test_provider.c): nothing
 * here is part of the module. */
#ifndef KS_PROVIDER_KS_EVP_CLIENT_H_
#define KS_PROVIDER_KS_EVP_CLIENT_H_

#include <openssl/evp.h>

/* A new key of type ("SM2", "ED25519", "X25519") from the keymgmt that
 * propq picks in libctx; NULL on failure. */
static inline EVP_PKEY* ks_evp_keygen(OSSL_LIB_CTX* libctx, const char* type, const char* propq) {
  EVP_PKEY* pkey = NULL;
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx, type, propq);
  if (c == NULL || EVP_PKEY_keygen_init(c) <= 0 || EVP_PKEY_keygen(c, &pkey) <= 0) pkey = NULL;
  EVP_PKEY_CTX_free(c);
  return pkey;
}

#endif /* KS_PROVIDER_KS_EVP_CLIENT_H_ */
