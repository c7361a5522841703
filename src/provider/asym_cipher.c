/* asym_cipher.c: ASYM_CIPHER SM2 (GB/T 32918.4) over ks_sm2_encrypt and
 * ks_sm2_decrypt, in the DER form (GM/T 0009's SM2Cipher) that OpenSSL's
 * SM2 encryption reads and writes. SM3 is the only digest, as in OpenSSL's
 * default (its "digest" parameter names it). */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "ks_prov.h"

typedef struct enc_ctx {
  ks_prov_ctx* pc;
  ks_prov_key* key; /* owned by the EVP_PKEY */
} enc_ctx;

static void* enc_newctx(void* provctx) {
  enc_ctx* c = OPENSSL_zalloc(sizeof *c);
  if (c != NULL) c->pc = provctx;
  return c;
}

static void enc_freectx(void* vctx) { OPENSSL_free(vctx); }

static void* enc_dupctx(void* vctx) {
  enc_ctx* c = OPENSSL_malloc(sizeof *c);
  if (c != NULL) *c = *(const enc_ctx*)vctx;
  return c;
}

static int enc_set_ctx_params(void* vctx, const OSSL_PARAM params[]);

static int enc_use_key(enc_ctx* c, ks_prov_key* k, int need_private, const OSSL_PARAM params[]) {
  if (k == NULL || k->type != KS_PROV_SM2)
    return KS_PROV_RAISE(c->pc, KS_ERR_KEY_ALGORITHM, "SM2 encryption key");
  if (need_private ? !k->has_private : !k->has_public)
    return KS_PROV_RAISE(c->pc, need_private ? KS_ERR_BAD_PRIVATE_KEY : KS_ERR_BAD_PUBLIC_KEY,
                         "SM2 encryption key");
  c->key = k;
  return enc_set_ctx_params(c, params);
}
static int enc_encrypt_init(void* vctx, void* key, const OSSL_PARAM params[]) {
  return enc_use_key(vctx, key, 0, params);
}
static int enc_decrypt_init(void* vctx, void* key, const OSSL_PARAM params[]) {
  return enc_use_key(vctx, key, 1, params);
}

static int enc_encrypt(void* vctx, unsigned char* out, size_t* outlen, size_t outsize,
                       const unsigned char* in, size_t inlen) {
  enc_ctx* c = vctx;
  if (out == NULL) { /* the size: kuaisuo's bound for this length */
    *outlen = ks_sm2_ciphertext_bound(inlen, KS_SM2_CIPHER_DER);
    return *outlen != 0 ? 1 : KS_PROV_RAISE(c->pc, KS_ERR_OVERFLOW, "SM2 encrypt");
  }
  int rc = ks_sm2_encrypt(c->key->sm2_pub, KS_SM2_CIPHER_DER, in, inlen, out, outsize, outlen);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM2 encrypt");
  ks_prov_count(KS_PROV_ENCRYPT, "SM2");
  return 1;
}

static int enc_decrypt(void* vctx, unsigned char* out, size_t* outlen, size_t outsize,
                       const unsigned char* in, size_t inlen) {
  enc_ctx* c = vctx;
  if (out == NULL) { /* the plaintext is shorter than its ciphertext */
    *outlen = inlen;
    return 1;
  }
  int rc = ks_sm2_decrypt(c->key->sm2, KS_SM2_CIPHER_DER, in, inlen, out, outsize, outlen);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM2 decrypt");
  ks_prov_count(KS_PROV_DECRYPT, "SM2");
  return 1;
}

static int enc_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  (void)vctx;
  OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_ASYM_CIPHER_PARAM_DIGEST);
  return p == NULL || OSSL_PARAM_set_utf8_string(p, "SM3");
}

static int enc_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  enc_ctx* c = vctx;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_DIGEST);
  const char* name = NULL;
  if (p == NULL) return 1;
  if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) ||
      (OPENSSL_strcasecmp(name, "SM3") != 0 && strcmp(name, "1.2.156.10197.1.401") != 0))
    return KS_PROV_MISUSE(c->pc, "SM2 encryption uses SM3 only");
  return 1;
}

static const OSSL_PARAM* enc_gettable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_DIGEST, NULL, 0), OSSL_PARAM_END};
  return params;
}

static const OSSL_PARAM* enc_settable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_DIGEST, NULL, 0), OSSL_PARAM_END};
  return params;
}

const OSSL_DISPATCH ks_prov_sm2_asym_cipher_functions[] = {
    {OSSL_FUNC_ASYM_CIPHER_NEWCTX, (void (*)(void))enc_newctx},
    {OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT, (void (*)(void))enc_encrypt_init},
    {OSSL_FUNC_ASYM_CIPHER_ENCRYPT, (void (*)(void))enc_encrypt},
    {OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT, (void (*)(void))enc_decrypt_init},
    {OSSL_FUNC_ASYM_CIPHER_DECRYPT, (void (*)(void))enc_decrypt},
    {OSSL_FUNC_ASYM_CIPHER_FREECTX, (void (*)(void))enc_freectx},
    {OSSL_FUNC_ASYM_CIPHER_DUPCTX, (void (*)(void))enc_dupctx},
    {OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS, (void (*)(void))enc_get_ctx_params},
    {OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))enc_gettable_ctx_params},
    {OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS, (void (*)(void))enc_set_ctx_params},
    {OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))enc_settable_ctx_params},
    {0, NULL}};
