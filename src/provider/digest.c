/* digest.c: SM3 as an OpenSSL DIGEST, over kuaisuo's streaming SM3
 * (ks_sm3_init/update/final). The state is kuaisuo's own caller-allocated
 * ks_sm3_ctx, so duplicating a context (EVP_MD_CTX_copy) is a copy of it. */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "ks_prov.h"

typedef struct sm3_ctx {
  ks_prov_ctx* pc;
  ks_sm3_ctx state;
} sm3_ctx;

static void* sm3_newctx(void* provctx) {
  sm3_ctx* c = OPENSSL_zalloc(sizeof *c);
  if (c != NULL) c->pc = provctx;
  return c;
}

static void sm3_freectx(void* vctx) { OPENSSL_clear_free(vctx, sizeof(sm3_ctx)); }

static void* sm3_dupctx(void* vctx) {
  sm3_ctx* c = OPENSSL_malloc(sizeof *c);
  if (c != NULL) *c = *(const sm3_ctx*)vctx;
  return c;
}

static int sm3_init(void* vctx, const OSSL_PARAM params[]) {
  (void)params; /* SM3 has no settable parameters */
  sm3_ctx* c = vctx;
  int rc = ks_sm3_init(&c->state);
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, "SM3 init");
}

static int sm3_update(void* vctx, const unsigned char* in, size_t inl) {
  sm3_ctx* c = vctx;
  int rc = ks_sm3_update(&c->state, in, inl);
  return rc == KS_OK ? 1 : KS_PROV_RAISE(c->pc, rc, "SM3 update");
}

static int sm3_final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) {
  sm3_ctx* c = vctx;
  if (outsz < KS_SM3_DIGEST_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "SM3 output");
  int rc = ks_sm3_final(&c->state, out);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "SM3 final");
  *outl = KS_SM3_DIGEST_BYTES;
  ks_prov_count(KS_PROV_DIGEST, "SM3");
  return 1;
}

/* The constant parameters EVP_MD_fetch caches (size, block size, flags),
 * as the default provider's SM3 answers them. */
static int sm3_get_params(OSSL_PARAM params[]) {
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE)) != NULL &&
      !OSSL_PARAM_set_size_t(p, KS_SM3_BLOCK_BYTES))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE)) != NULL &&
      !OSSL_PARAM_set_size_t(p, KS_SM3_DIGEST_BYTES))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOF)) != NULL && !OSSL_PARAM_set_int(p, 0))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_ALGID_ABSENT)) != NULL &&
      !OSSL_PARAM_set_int(p, 0))
    return 0;
  return 1;
}

static const OSSL_PARAM* sm3_gettable_params(void* provctx) {
  (void)provctx;
  static const OSSL_PARAM params[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
                                      OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL),
                                      OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, NULL),
                                      OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, NULL),
                                      OSSL_PARAM_END};
  return params;
}

const OSSL_DISPATCH ks_prov_sm3_functions[] = {
    {OSSL_FUNC_DIGEST_NEWCTX, (void (*)(void))sm3_newctx},
    {OSSL_FUNC_DIGEST_INIT, (void (*)(void))sm3_init},
    {OSSL_FUNC_DIGEST_UPDATE, (void (*)(void))sm3_update},
    {OSSL_FUNC_DIGEST_FINAL, (void (*)(void))sm3_final},
    {OSSL_FUNC_DIGEST_FREECTX, (void (*)(void))sm3_freectx},
    {OSSL_FUNC_DIGEST_DUPCTX, (void (*)(void))sm3_dupctx},
    {OSSL_FUNC_DIGEST_GET_PARAMS, (void (*)(void))sm3_get_params},
    {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, (void (*)(void))sm3_gettable_params},
    {0, NULL}};
