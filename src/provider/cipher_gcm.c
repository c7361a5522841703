/* cipher_gcm.c: SM4-GCM (RFC 8998's AEAD) as an OpenSSL CIPHER over
 * kuaisuo's streaming GCM (ks_sm4_gcm_init/aad/update/final/verify), with
 * the AEAD parameters EVP callers pass: IV length, tag, tag length; AAD is
 * an update with out == NULL. As for the other modes, kuaisuo's state is
 * started at the first update, once the IV length and IV are known.
 * Decrypted bytes are released by update before final checks the tag, as
 * every EVP GCM does; final fails on a mismatch. */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "cipher_common.h"
#include "ks_prov.h"

#define GCM_DEFAULT_IV_BYTES 12
#define GCM_MAX_IV_BYTES 128 /* longer IVs are hashed (SP 800-38D); none are that long */

typedef struct gcm_ctx {
  ks_prov_ctx* pc;
  int encrypt;
  int have_key;
  int have_iv;
  int started;
  int tag_ready; /* encrypting: final wrote the tag; decrypting: the caller set it */
  size_t iv_len;
  size_t tag_len;
  uint8_t key[KS_SM4_KEY_BYTES];
  uint8_t iv[GCM_MAX_IV_BYTES];
  uint8_t tag[KS_SM4_GCM_TAG_BYTES];
  ks_sm4_gcm_ctx state;
} gcm_ctx;

static void* gcm_newctx(void* provctx) {
  gcm_ctx* c = OPENSSL_zalloc(sizeof *c);
  if (c == NULL) return NULL;
  c->pc = provctx;
  c->iv_len = GCM_DEFAULT_IV_BYTES;
  c->tag_len = KS_SM4_GCM_TAG_BYTES;
  return c;
}

static void gcm_freectx(void* vctx) {
  gcm_ctx* c = vctx;
  if (c == NULL) return;
  if (c->started) ks_sm4_gcm_cleanse(&c->state);
  OPENSSL_clear_free(c, sizeof *c);
}

static void* gcm_dupctx(void* vctx) {
  gcm_ctx* c = OPENSSL_malloc(sizeof *c);
  if (c != NULL) *c = *(const gcm_ctx*)vctx;
  return c;
}

static int gcm_set_ctx_params(void* vctx, const OSSL_PARAM params[]);

static int gcm_init(gcm_ctx* c, int encrypt, const unsigned char* key, size_t keylen,
                    const unsigned char* iv, size_t ivlen, const OSSL_PARAM params[]) {
  if (c->started) ks_sm4_gcm_cleanse(&c->state);
  c->started = 0;
  c->tag_ready = 0;
  c->encrypt = encrypt;
  if (!gcm_set_ctx_params(c, params)) return 0; /* the IV length may come with them */
  if (key != NULL) {
    if (keylen != KS_SM4_KEY_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM key");
    memcpy(c->key, key, KS_SM4_KEY_BYTES);
    c->have_key = 1;
  }
  if (iv != NULL) {
    if (ivlen != c->iv_len) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM IV length");
    memcpy(c->iv, iv, ivlen);
    c->have_iv = 1;
  }
  return 1;
}

static int gcm_einit(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                     size_t ivlen, const OSSL_PARAM params[]) {
  return gcm_init(vctx, KS_ENCRYPT, key, keylen, iv, ivlen, params);
}

static int gcm_dinit(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                     size_t ivlen, const OSSL_PARAM params[]) {
  return gcm_init(vctx, KS_DECRYPT, key, keylen, iv, ivlen, params);
}

static int gcm_start(gcm_ctx* c) {
  if (c->started) return 1;
  if (!c->have_key || !c->have_iv) return KS_PROV_MISUSE(c->pc, "SM4-GCM: no key or IV set");
  int rc = ks_sm4_gcm_init(&c->state, c->encrypt, c->key, c->iv, c->iv_len);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM4-GCM init");
  c->started = 1;
  return 1;
}

static int gcm_update(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
  gcm_ctx* c = vctx;
  if (!gcm_start(c)) return 0;
  int rc;
  if (out == NULL) { /* EVP's way of passing AAD */
    rc = ks_sm4_gcm_aad(&c->state, in, inl);
  } else {
    if (outsize < inl) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM output");
    rc = ks_sm4_gcm_update(&c->state, in, inl, out);
  }
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM4-GCM update");
  *outl = inl;
  return 1;
}

static int gcm_final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) {
  (void)out, (void)outsize; /* GCM's final writes no text */
  gcm_ctx* c = vctx;
  if (!gcm_start(c)) return 0;
  int rc;
  if (c->encrypt) {
    rc = ks_sm4_gcm_final(&c->state, c->tag, KS_SM4_GCM_TAG_BYTES);
    c->tag_ready = rc == KS_OK;
  } else if (!c->tag_ready) {
    ks_sm4_gcm_cleanse(&c->state);
    rc = KS_ERR_TAG_MISMATCH; /* no tag to check against: nothing is authentic */
  } else {
    rc = ks_sm4_gcm_verify(&c->state, c->tag, c->tag_len);
  }
  c->started = 0; /* final, verify and cleanse wiped kuaisuo's state */
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM4-GCM final");
  *outl = 0;
  ks_prov_count(KS_PROV_CIPHER, "SM4-GCM");
  return 1;
}

/* ---- Parameters ------------------------------------------------------------ */
static int gcm_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  gcm_ctx* c = vctx;
  OSSL_PARAM* p;
  if (!ks_prov_sm4_get_key_iv_params(params, c->iv_len, c->have_iv ? c->iv : NULL)) return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) != NULL &&
      !OSSL_PARAM_set_size_t(p, c->tag_len))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != NULL) {
    /* The caller asks for as many bytes as it wants (a prefix of the tag). */
    if (!c->encrypt || !c->tag_ready) return KS_PROV_MISUSE(c->pc, "SM4-GCM: no tag yet");
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size == 0 ||
        p->data_size > KS_SM4_GCM_TAG_BYTES)
      return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM tag length");
    memcpy(p->data, c->tag, p->data_size);
    p->return_size = p->data_size;
  }
  return 1;
}

static int set_tag(gcm_ctx* c, const OSSL_PARAM* p) {
  if (p->data_type != OSSL_PARAM_OCTET_STRING) return KS_PROV_MISUSE(c->pc, "SM4-GCM tag type");
  if (p->data_size < KS_SM4_GCM_MIN_TAG_BYTES || p->data_size > KS_SM4_GCM_TAG_BYTES)
    return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM tag length");
  c->tag_len = p->data_size;
  if (p->data != NULL) { /* decrypting: the tag to check; encrypting: only its length */
    if (c->encrypt) return KS_PROV_MISUSE(c->pc, "SM4-GCM: a tag set while encrypting");
    memcpy(c->tag, p->data, p->data_size);
    c->tag_ready = 1;
  }
  return 1;
}

static int gcm_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  gcm_ctx* c = vctx;
  const OSSL_PARAM* p;
  if (params == NULL) return 1;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_IVLEN)) != NULL) {
    size_t ivlen;
    if (!OSSL_PARAM_get_size_t(p, &ivlen) || ivlen == 0 || ivlen > GCM_MAX_IV_BYTES)
      return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM IV length");
    if (c->started) return KS_PROV_MISUSE(c->pc, "SM4-GCM IV length set after the first update");
    if (ivlen != c->iv_len) c->have_iv = 0; /* the IV given before no longer fits */
    c->iv_len = ivlen;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != NULL &&
      !set_tag(c, p))
    return 0;
  if (!ks_prov_sm4_keylen_param_ok(params))
    return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4-GCM key length");
  return 1;
}

static const OSSL_PARAM* gcm_gettable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
      OSSL_PARAM_END};
  return params;
}

static const OSSL_PARAM* gcm_settable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
      OSSL_PARAM_END};
  return params;
}

/* The constants EVP_CIPHER_fetch caches: an AEAD with a custom IV. */
static int gcm_get_params(OSSL_PARAM params[]) {
  return ks_prov_sm4_get_params(params, EVP_CIPH_GCM_MODE, GCM_DEFAULT_IV_BYTES, 1, 1);
}

const OSSL_DISPATCH ks_prov_sm4_gcm_functions[] = {
    {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))gcm_newctx},
    {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))gcm_einit},
    {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))gcm_dinit},
    {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))gcm_update},
    {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))gcm_final},
    {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))gcm_freectx},
    {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))gcm_dupctx},
    {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))gcm_get_params},
    {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))ks_prov_sm4_gettable_params},
    {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))gcm_get_ctx_params},
    {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))gcm_set_ctx_params},
    {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))gcm_gettable_ctx_params},
    {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))gcm_settable_ctx_params},
    {0, NULL}};
