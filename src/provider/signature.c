/* signature.c: SIGNATURE SM2 (GB/T 32918.2) and ED25519 (RFC 8032) over
 * kuaisuo's one-shot calls.
 * SM2, as OpenSSL's: sign/verify take a precomputed 32-byte digest e;
 * digest-sign/verify hash Z_A || M with SM3, where Z_A depends on the
 * distinguishing ID ("distid", OSSL_PKEY_PARAM_DIST_ID: empty unless set,
 * as in OpenSSL 3) and so is computed at the first update, after the caller
 * had its chance to set the ID. Signatures are DER SEQUENCE{r, s}.
 * Ed25519: one-shot digest-sign/verify only (the scheme hashes inside). */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "ks_prov.h"

/* AlgorithmIdentifiers for certificates and CMS (no parameters, RFC 8410
 * and GM/T 0006): sm2-with-SM3 1.2.156.10197.1.501 and id-Ed25519. */
static const uint8_t sm2_sm3_aid[] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x81,
                                      0x1c, 0xcf, 0x55, 0x01, 0x83, 0x75};
static const uint8_t ed25519_aid[] = {0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70};

typedef struct sig_ctx {
  ks_prov_ctx* pc;
  ks_prov_key* key; /* owned by the EVP_PKEY, which outlives the operation */
  uint8_t* id;
  size_t id_len;
  int digesting;  /* between digest_*_init and final */
  int z_pending;  /* Z_A not yet hashed */
  ks_sm3_ctx sm3;
} sig_ctx;

static void* sig_newctx(void* provctx, const char* propq) {
  (void)propq;
  sig_ctx* c = OPENSSL_zalloc(sizeof *c);
  if (c != NULL) c->pc = provctx;
  return c;
}

static void sig_freectx(void* vctx) {
  sig_ctx* c = vctx;
  if (c == NULL) return;
  OPENSSL_free(c->id);
  OPENSSL_free(c);
}

static void* sig_dupctx(void* vctx) {
  const sig_ctx* src = vctx;
  sig_ctx* c = OPENSSL_malloc(sizeof *c);
  if (c == NULL) return NULL;
  *c = *src;
  c->id = NULL;
  if (src->id != NULL && (c->id = OPENSSL_memdup(src->id, src->id_len)) == NULL) {
    OPENSSL_free(c);
    return NULL;
  }
  return c;
}

/* The key, checked for the operation: the right type and the half it needs. */
static int use_key(sig_ctx* c, void* keydata, ks_prov_key_type type, int need_private) {
  ks_prov_key* k = keydata;
  if (k == NULL) k = c->key; /* EVP may re-init with the key it gave before */
  if (k == NULL || k->type != type)
    return KS_PROV_RAISE(c->pc, KS_ERR_KEY_ALGORITHM, "signature key");
  if (need_private ? !k->has_private : !k->has_public)
    return KS_PROV_RAISE(c->pc, need_private ? KS_ERR_BAD_PRIVATE_KEY : KS_ERR_BAD_PUBLIC_KEY,
                         "signature key");
  c->key = k;
  c->digesting = 0;
  return 1;
}

/* ---- SM2 ------------------------------------------------------------------ */
static int sm2_set_ctx_params(void* vctx, const OSSL_PARAM params[]);

static int sm2_sign_init(void* vctx, void* key, const OSSL_PARAM params[]) {
  return use_key(vctx, key, KS_PROV_SM2, 1) && sm2_set_ctx_params(vctx, params);
}
static int sm2_verify_init(void* vctx, void* key, const OSSL_PARAM params[]) {
  return use_key(vctx, key, KS_PROV_SM2, 0) && sm2_set_ctx_params(vctx, params);
}

static int sm2_sign(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize,
                    const unsigned char* tbs, size_t tbslen) {
  sig_ctx* c = vctx;
  if (sig == NULL) {
    *siglen = KS_SM2_SIGNATURE_DER_MAX_BYTES;
    return 1;
  }
  if (tbslen != KS_SM2_DIGEST_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM2 digest");
  uint8_t rs[KS_SM2_SIGNATURE_BYTES];
  int rc = ks_sm2_sign_digest(c->key->sm2, tbs, KS_SM2_NONCE_RANDOM, rs);
  if (rc == KS_OK) rc = ks_sm2_signature_to_der(rs, sig, sigsize, siglen);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM2 sign");
  ks_prov_count(KS_PROV_SIGN, "SM2");
  return 1;
}

static int sm2_verify(void* vctx, const unsigned char* sig, size_t siglen,
                      const unsigned char* tbs, size_t tbslen) {
  sig_ctx* c = vctx;
  if (tbslen != KS_SM2_DIGEST_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM2 digest");
  uint8_t rs[KS_SM2_SIGNATURE_BYTES];
  int rc = ks_sm2_signature_from_der(sig, siglen, rs);
  if (rc == KS_OK) rc = ks_sm2_verify_digest(c->key->sm2_pub, tbs, rs);
  ks_prov_count(KS_PROV_VERIFY, "SM2");
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, "SM2 verify");
}

/* SM3 is SM2's only digest here (OpenSSL's SM2 signature takes only SM3). */
static int is_sm3(const char* mdname) {
  return mdname == NULL || mdname[0] == '\0' || OPENSSL_strcasecmp(mdname, "SM3") == 0 ||
         strcmp(mdname, "1.2.156.10197.1.401") == 0;
}

static int sm2_digest_init(sig_ctx* c, const char* mdname, int need_private, void* key,
                           const OSSL_PARAM params[]) {
  if (!use_key(c, key, KS_PROV_SM2, need_private)) return 0;
  if (!is_sm3(mdname)) return KS_PROV_MISUSE(c->pc, "SM2 signs with SM3 only");
  int rc = ks_sm3_init(&c->sm3);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM2 digest");
  c->digesting = 1;
  c->z_pending = 1;
  return sm2_set_ctx_params(c, params);
}
static int sm2_digest_sign_init(void* vctx, const char* mdname, void* key,
                                const OSSL_PARAM params[]) {
  return sm2_digest_init(vctx, mdname, 1, key, params);
}
static int sm2_digest_verify_init(void* vctx, const char* mdname, void* key,
                                  const OSSL_PARAM params[]) {
  return sm2_digest_init(vctx, mdname, 0, key, params);
}

/* Z_A under the ID known now, hashed ahead of the message: once. */
static int hash_z(sig_ctx* c) {
  if (!c->digesting) return KS_PROV_MISUSE(c->pc, "SM2: no digest-sign or -verify started");
  if (!c->z_pending) return 1;
  uint8_t za[KS_SM2_DIGEST_BYTES];
  int rc = ks_sm2_za(c->key->sm2_pub, c->id, c->id_len, za);
  if (rc == KS_OK) rc = ks_sm3_update(&c->sm3, za, sizeof za);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM2 Z_A");
  c->z_pending = 0;
  return 1;
}

static int sm2_digest_update(void* vctx, const unsigned char* data, size_t datalen) {
  sig_ctx* c = vctx;
  if (!hash_z(c)) return 0;
  int rc = ks_sm3_update(&c->sm3, data, datalen);
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, "SM2 digest");
}

static int digest_e(sig_ctx* c, uint8_t e[KS_SM2_DIGEST_BYTES]) {
  if (!hash_z(c)) return 0;
  int rc = ks_sm3_final(&c->sm3, e);
  c->digesting = 0;
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, "SM2 digest");
}

static int sm2_digest_sign_final(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize) {
  sig_ctx* c = vctx;
  uint8_t e[KS_SM2_DIGEST_BYTES];
  if (sig == NULL) return sm2_sign(c, NULL, siglen, sigsize, NULL, 0); /* the size only */
  return digest_e(c, e) && sm2_sign(c, sig, siglen, sigsize, e, sizeof e);
}

static int sm2_digest_verify_final(void* vctx, const unsigned char* sig, size_t siglen) {
  sig_ctx* c = vctx;
  uint8_t e[KS_SM2_DIGEST_BYTES];
  return digest_e(c, e) && sm2_verify(c, sig, siglen, e, sizeof e);
}

static int sm2_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  (void)vctx;
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID)) != NULL &&
      !OSSL_PARAM_set_octet_string(p, sm2_sm3_aid, sizeof sm2_sm3_aid))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_DIGEST_SIZE)) != NULL &&
      !OSSL_PARAM_set_size_t(p, KS_SM3_DIGEST_BYTES))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_DIGEST)) != NULL &&
      !OSSL_PARAM_set_utf8_string(p, "SM3"))
    return 0;
  return 1;
}

static int sm2_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  sig_ctx* c = vctx;
  const OSSL_PARAM* p;
  if (params == NULL) return 1;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_DIST_ID)) != NULL) {
    if (c->digesting && !c->z_pending)
      return KS_PROV_MISUSE(c->pc, "SM2: distid set after the message began");
    void* id = NULL;
    size_t id_len = 0;
    if (p->data_size != 0 && !OSSL_PARAM_get_octet_string(p, &id, 0, &id_len))
      return KS_PROV_MISUSE(c->pc, "SM2 distid type");
    if (id_len > KS_SM2_MAX_ID_BYTES) {
      OPENSSL_free(id);
      return KS_PROV_RAISE(c->pc, KS_ERR_ID_LENGTH, "SM2 distid");
    }
    OPENSSL_free(c->id);
    c->id = id;
    c->id_len = id_len;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST_SIZE)) != NULL) {
    size_t size;
    if (!OSSL_PARAM_get_size_t(p, &size) || size != KS_SM3_DIGEST_BYTES)
      return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM2 digest size");
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST)) != NULL) {
    const char* name = NULL;
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) || !is_sm3(name))
      return KS_PROV_MISUSE(c->pc, "SM2 signs with SM3 only");
  }
  return 1;
}

static const OSSL_PARAM* sm2_gettable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0),
      OSSL_PARAM_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, NULL),
      OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0), OSSL_PARAM_END};
  return params;
}

static const OSSL_PARAM* sm2_settable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, NULL),
      OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0),
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_DIST_ID, NULL, 0), OSSL_PARAM_END};
  return params;
}

const OSSL_DISPATCH ks_prov_sm2_signature_functions[] = {
    {OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))sig_newctx},
    {OSSL_FUNC_SIGNATURE_SIGN_INIT, (void (*)(void))sm2_sign_init},
    {OSSL_FUNC_SIGNATURE_SIGN, (void (*)(void))sm2_sign},
    {OSSL_FUNC_SIGNATURE_VERIFY_INIT, (void (*)(void))sm2_verify_init},
    {OSSL_FUNC_SIGNATURE_VERIFY, (void (*)(void))sm2_verify},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (void (*)(void))sm2_digest_sign_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (void (*)(void))sm2_digest_update},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (void (*)(void))sm2_digest_sign_final},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, (void (*)(void))sm2_digest_verify_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, (void (*)(void))sm2_digest_update},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, (void (*)(void))sm2_digest_verify_final},
    {OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))sig_freectx},
    {OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))sig_dupctx},
    {OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (void (*)(void))sm2_get_ctx_params},
    {OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (void (*)(void))sm2_gettable_ctx_params},
    {OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (void (*)(void))sm2_set_ctx_params},
    {OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (void (*)(void))sm2_settable_ctx_params},
    {0, NULL}};

/* ---- Ed25519 ------------------------------------------------------------------ */
static int ed_init(sig_ctx* c, const char* mdname, void* key, int need_private) {
  if (mdname != NULL && mdname[0] != '\0')
    return KS_PROV_MISUSE(c->pc, "Ed25519 takes no digest");
  return use_key(c, key, KS_PROV_ED25519, need_private);
}
static int ed_digest_sign_init(void* vctx, const char* mdname, void* key,
                               const OSSL_PARAM params[]) {
  (void)params;
  return ed_init(vctx, mdname, key, 1);
}
static int ed_digest_verify_init(void* vctx, const char* mdname, void* key,
                                 const OSSL_PARAM params[]) {
  (void)params;
  return ed_init(vctx, mdname, key, 0);
}

static int ed_digest_sign(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize,
                          const unsigned char* tbs, size_t tbslen) {
  sig_ctx* c = vctx;
  *siglen = KS_ED25519_SIGNATURE_BYTES;
  if (sig == NULL) return 1;
  if (sigsize < KS_ED25519_SIGNATURE_BYTES)
    return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "Ed25519 signature buffer");
  int rc = ks_ed25519_sign(c->key->ed, tbs, tbslen, sig);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "Ed25519 sign");
  ks_prov_count(KS_PROV_SIGN, "ED25519");
  return 1;
}

static int ed_digest_verify(void* vctx, const unsigned char* sig, size_t siglen,
                            const unsigned char* tbs, size_t tbslen) {
  sig_ctx* c = vctx;
  int rc = siglen == KS_ED25519_SIGNATURE_BYTES ? ks_ed25519_verify(c->key->ed_pub, tbs, tbslen, sig)
                                                : KS_ERR_LENGTH;
  ks_prov_count(KS_PROV_VERIFY, "ED25519");
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, "Ed25519 verify");
}

static int ed_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  (void)vctx;
  OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID);
  return p == NULL || OSSL_PARAM_set_octet_string(p, ed25519_aid, sizeof ed25519_aid);
}

static const OSSL_PARAM* ed_gettable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0), OSSL_PARAM_END};
  return params;
}

const OSSL_DISPATCH ks_prov_ed25519_signature_functions[] = {
    {OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))sig_newctx},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (void (*)(void))ed_digest_sign_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN, (void (*)(void))ed_digest_sign},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, (void (*)(void))ed_digest_verify_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY, (void (*)(void))ed_digest_verify},
    {OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))sig_freectx},
    {OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))sig_dupctx},
    {OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (void (*)(void))ed_get_ctx_params},
    {OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (void (*)(void))ed_gettable_ctx_params},
    {0, NULL}};
