/* cipher_common.h: what the SM4 CIPHERs (cipher.c: ECB, CBC, CFB, OFB, CTR;
 * cipher_gcm.c: GCM) share: the constant parameters EVP_CIPHER_fetch caches
 * and the key and IV lengths every context reports and checks. */
#ifndef KS_PROVIDER_CIPHER_COMMON_H_
#define KS_PROVIDER_CIPHER_COMMON_H_

#include <openssl/core.h>
#include <stddef.h>
#include <stdint.h>

/* The cipher's constants, as the default provider's: mode (EVP_CIPH_*_MODE),
 * key length, default IV length, block size; AEAD and CUSTOM_IV are aead
 * (GCM: 1, the others: 0); CTS, TLS1_MULTIBLOCK and HAS_RAND_KEY are 0. */
int ks_prov_sm4_get_params(OSSL_PARAM params[], unsigned int evp_mode, size_t ivlen,
                           size_t blocksize, int aead);
const OSSL_PARAM* ks_prov_sm4_gettable_params(void* provctx);

/* A context's KEYLEN and IVLEN, and its IV where iv is not NULL. */
int ks_prov_sm4_get_key_iv_params(OSSL_PARAM params[], size_t ivlen, const uint8_t* iv);

/* 1 unless params set a KEYLEN other than SM4's (the caller reports it). */
int ks_prov_sm4_keylen_param_ok(const OSSL_PARAM params[]);

#endif /* KS_PROVIDER_CIPHER_COMMON_H_ */
