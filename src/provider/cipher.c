/* cipher.c: SM4 ECB, CBC, CFB-128, OFB and CTR as OpenSSL CIPHERs, over
 * kuaisuo's streaming SM4 (ks_sm4_init/update/final), which has EVP's
 * output rule already (ECB/CBC hold back the last block; padding added or
 * checked by final). kuaisuo's stream is started at the first update or
 * final, not at init: EVP callers set the padding (EVP_CIPHER_CTX_set_padding)
 * and may give key and IV in separate init calls after EVP_CipherInit. */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "cipher_common.h"
#include "ks_prov.h"

typedef struct sm4_ctx {
  ks_prov_ctx* pc;
  int mode; /* a ks_sm4_mode */
  int encrypt;
  int padding; /* ECB, CBC: PKCS#7 unless the caller turns it off */
  int have_key;
  int have_iv;
  int started;
  uint8_t key[KS_SM4_KEY_BYTES];
  uint8_t iv[KS_SM4_BLOCK_BYTES];
  ks_sm4_ctx state;
} sm4_ctx;

static const char* mode_name(int mode) {
  static const char* const names[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"};
  return names[mode];
}

static size_t iv_bytes(int mode) { return mode == KS_SM4_ECB ? 0 : KS_SM4_BLOCK_BYTES; }
static size_t block_bytes(int mode) {
  return mode == KS_SM4_ECB || mode == KS_SM4_CBC ? KS_SM4_BLOCK_BYTES : 1;
}

static void* sm4_newctx(void* provctx, int mode) {
  sm4_ctx* c = OPENSSL_zalloc(sizeof *c);
  if (c == NULL) return NULL;
  c->pc = provctx;
  c->mode = mode;
  c->padding = 1;
  return c;
}

/* The key and kuaisuo's state hold secrets: wiped before the memory goes. */
static void sm4_freectx(void* vctx) {
  sm4_ctx* c = vctx;
  if (c == NULL) return;
  if (c->started) ks_sm4_cleanse(&c->state);
  OPENSSL_clear_free(c, sizeof *c);
}

static void* sm4_dupctx(void* vctx) {
  sm4_ctx* c = OPENSSL_malloc(sizeof *c);
  if (c != NULL) *c = *(const sm4_ctx*)vctx;
  return c;
}

static int sm4_set_ctx_params(void* vctx, const OSSL_PARAM params[]);

static int sm4_init(sm4_ctx* c, int encrypt, const unsigned char* key, size_t keylen,
                    const unsigned char* iv, size_t ivlen, const OSSL_PARAM params[]) {
  if (c->started) ks_sm4_cleanse(&c->state);
  c->started = 0;
  c->encrypt = encrypt;
  if (key != NULL) {
    if (keylen != KS_SM4_KEY_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4 key length");
    memcpy(c->key, key, KS_SM4_KEY_BYTES);
    c->have_key = 1;
  }
  if (iv != NULL && c->mode != KS_SM4_ECB) {
    if (ivlen != KS_SM4_BLOCK_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4 IV length");
    memcpy(c->iv, iv, KS_SM4_BLOCK_BYTES);
    c->have_iv = 1;
  }
  return sm4_set_ctx_params(c, params);
}

static int sm4_einit(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                     size_t ivlen, const OSSL_PARAM params[]) {
  return sm4_init(vctx, KS_ENCRYPT, key, keylen, iv, ivlen, params);
}

static int sm4_dinit(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                     size_t ivlen, const OSSL_PARAM params[]) {
  return sm4_init(vctx, KS_DECRYPT, key, keylen, iv, ivlen, params);
}

/* Starts kuaisuo's stream once key, IV and padding are all known. */
static int sm4_start(sm4_ctx* c) {
  if (c->started) return 1;
  if (!c->have_key) return KS_PROV_MISUSE(c->pc, "SM4: no key set");
  if (c->mode != KS_SM4_ECB && !c->have_iv) return KS_PROV_MISUSE(c->pc, "SM4: no IV set");
  uint32_t flags = c->padding && block_bytes(c->mode) > 1 ? KS_SM4_PAD_PKCS7 : 0;
  int rc = ks_sm4_init(&c->state, c->mode, c->encrypt, flags, c->key,
                       c->mode == KS_SM4_ECB ? NULL : c->iv, iv_bytes(c->mode));
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, mode_name(c->mode));
  c->started = 1;
  return 1;
}

static int overlaps(const unsigned char* a, const unsigned char* b, size_t n) {
  return n != 0 && a < b + n && b < a + n;
}

static int sm4_update(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
  sm4_ctx* c = vctx;
  if (!sm4_start(c)) return 0;
  /* kuaisuo's ECB and CBC streams need out and in apart (their output lags
   * the input by a block); EVP callers may pass the same buffer. */
  unsigned char* copy = NULL;
  if (block_bytes(c->mode) > 1 && overlaps(out, in, inl)) {
    copy = OPENSSL_malloc(inl);
    if (copy == NULL) return KS_PROV_RAISE(c->pc, KS_ERR_NO_MEMORY, mode_name(c->mode));
    memcpy(copy, in, inl);
    in = copy;
  }
  int rc = ks_sm4_update(&c->state, in, inl, out, outsize, outl);
  OPENSSL_clear_free(copy, inl);
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, mode_name(c->mode));
}

static int sm4_final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) {
  sm4_ctx* c = vctx;
  if (!sm4_start(c)) return 0;
  int rc = ks_sm4_final(&c->state, out, outsize, outl);
  c->started = 0; /* final wiped kuaisuo's state */
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, mode_name(c->mode));
  ks_prov_count(KS_PROV_CIPHER, mode_name(c->mode));
  return 1;
}

/* ---- Parameters ------------------------------------------------------------ */
static int sm4_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  sm4_ctx* c = vctx;
  OSSL_PARAM* p;
  if (!ks_prov_sm4_get_key_iv_params(params, iv_bytes(c->mode),
                                     c->mode != KS_SM4_ECB ? c->iv : NULL))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) != NULL &&
      !OSSL_PARAM_set_uint(p, (unsigned)c->padding))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_NUM)) != NULL && !OSSL_PARAM_set_uint(p, 0))
    return 0;
  return 1;
}

static int sm4_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  sm4_ctx* c = vctx;
  const OSSL_PARAM* p;
  if (params == NULL) return 1;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING)) != NULL) {
    unsigned int pad;
    if (!OSSL_PARAM_get_uint(p, &pad)) return KS_PROV_MISUSE(c->pc, "SM4 padding parameter");
    if (c->started && (pad != 0) != (c->padding != 0))
      return KS_PROV_MISUSE(c->pc, "SM4 padding changed after the first update");
    c->padding = pad != 0;
  }
  if (!ks_prov_sm4_keylen_param_ok(params))
    return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM4 key length");
  return 1;
}

static const OSSL_PARAM* sm4_gettable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
                                      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
                                      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
                                      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
                                      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
                                      OSSL_PARAM_END};
  return params;
}

static const OSSL_PARAM* sm4_settable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
                                      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
                                      OSSL_PARAM_END};
  return params;
}

/* One dispatch table per mode: only newctx and get_params differ. */
#define KS_SM4_MODE(name, ks_mode, evp_mode)                                                     \
  static void* name##_newctx(void* provctx) { return sm4_newctx(provctx, ks_mode); }            \
  static int name##_get_params(OSSL_PARAM params[]) {                                            \
    return ks_prov_sm4_get_params(params, evp_mode, iv_bytes(ks_mode), block_bytes(ks_mode), 0); \
  }                                                                                              \
  const OSSL_DISPATCH ks_prov_##name##_functions[] = {                                           \
      {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))name##_newctx},                                  \
      {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))sm4_einit},                                \
      {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))sm4_dinit},                                \
      {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))sm4_update},                                     \
      {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))sm4_final},                                       \
      {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))sm4_freectx},                                   \
      {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))sm4_dupctx},                                     \
      {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))name##_get_params},                          \
      {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))ks_prov_sm4_gettable_params},           \
      {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))sm4_get_ctx_params},                     \
      {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))sm4_set_ctx_params},                     \
      {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))sm4_gettable_ctx_params},           \
      {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))sm4_settable_ctx_params},           \
      {0, NULL}};

KS_SM4_MODE(sm4_ecb, KS_SM4_ECB, EVP_CIPH_ECB_MODE)
KS_SM4_MODE(sm4_cbc, KS_SM4_CBC, EVP_CIPH_CBC_MODE)
KS_SM4_MODE(sm4_cfb, KS_SM4_CFB, EVP_CIPH_CFB_MODE)
KS_SM4_MODE(sm4_ofb, KS_SM4_OFB, EVP_CIPH_OFB_MODE)
KS_SM4_MODE(sm4_ctr, KS_SM4_CTR, EVP_CIPH_CTR_MODE)
