/* keyexch.c: KEYEXCH X25519 (RFC 7748) over ks_x25519. A peer value of
 * small order gives kuaisuo's KS_ERR_ZERO_SHARED_SECRET, an error, as the
 * default provider fails it too. */
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "ks_prov.h"

typedef struct kex_ctx {
  ks_prov_ctx* pc;
  ks_prov_key* key;  /* both referenced (ks_prov_key_up_ref): EVP may */
  ks_prov_key* peer; /* free the peer's EVP_PKEY before the derive */
} kex_ctx;

static void* kex_newctx(void* provctx) {
  kex_ctx* c = OPENSSL_zalloc(sizeof *c);
  if (c != NULL) c->pc = provctx;
  return c;
}

static void kex_freectx(void* vctx) {
  kex_ctx* c = vctx;
  if (c == NULL) return;
  ks_prov_key_free(c->key);
  ks_prov_key_free(c->peer);
  OPENSSL_free(c);
}

static void* kex_dupctx(void* vctx) {
  kex_ctx* c = OPENSSL_malloc(sizeof *c);
  if (c == NULL) return NULL;
  *c = *(const kex_ctx*)vctx;
  if (c->key != NULL) ks_prov_key_up_ref(c->key);
  if (c->peer != NULL) ks_prov_key_up_ref(c->peer);
  return c;
}

/* *slot = k, holding a reference to k and none to what it held. */
static void kex_hold(ks_prov_key** slot, ks_prov_key* k) {
  ks_prov_key_up_ref(k);
  ks_prov_key_free(*slot);
  *slot = k;
}

static int kex_init(void* vctx, void* keydata, const OSSL_PARAM params[]) {
  (void)params; /* X25519 has no parameters */
  kex_ctx* c = vctx;
  ks_prov_key* k = keydata;
  if (k == NULL || k->type != KS_PROV_X25519)
    return KS_PROV_RAISE(c->pc, KS_ERR_KEY_ALGORITHM, "X25519 key");
  if (!k->has_private) return KS_PROV_RAISE(c->pc, KS_ERR_BAD_PRIVATE_KEY, "X25519 key");
  kex_hold(&c->key, k);
  return 1;
}

static int kex_set_peer(void* vctx, void* peerdata) {
  kex_ctx* c = vctx;
  ks_prov_key* p = peerdata;
  if (p == NULL || p->type != KS_PROV_X25519)
    return KS_PROV_RAISE(c->pc, KS_ERR_KEY_ALGORITHM, "X25519 peer");
  if (!p->has_public) return KS_PROV_RAISE(c->pc, KS_ERR_BAD_PUBLIC_KEY, "X25519 peer");
  kex_hold(&c->peer, p);
  return 1;
}

static int kex_derive(void* vctx, unsigned char* secret, size_t* secretlen, size_t outlen) {
  kex_ctx* c = vctx;
  *secretlen = KS_X25519_KEY_BYTES;
  if (secret == NULL) return 1;
  if (c->key == NULL || c->peer == NULL) return KS_PROV_MISUSE(c->pc, "X25519: no key or peer");
  if (outlen < KS_X25519_KEY_BYTES) return KS_PROV_RAISE(c->pc, KS_ERR_LENGTH, "X25519 output");
  int rc = ks_x25519(c->key->x25519_private, c->peer->pub, secret);
  if (rc != KS_OK) return KS_PROV_RAISE(c->pc, rc, "X25519 derive");
  ks_prov_count(KS_PROV_DERIVE, "X25519");
  return 1;
}

static int kex_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  (void)vctx, (void)params;
  return 1;
}

static const OSSL_PARAM* kex_settable_ctx_params(void* vctx, void* provctx) {
  (void)vctx, (void)provctx;
  static const OSSL_PARAM params[] = {OSSL_PARAM_END};
  return params;
}

const OSSL_DISPATCH ks_prov_x25519_keyexch_functions[] = {
    {OSSL_FUNC_KEYEXCH_NEWCTX, (void (*)(void))kex_newctx},
    {OSSL_FUNC_KEYEXCH_INIT, (void (*)(void))kex_init},
    {OSSL_FUNC_KEYEXCH_SET_PEER, (void (*)(void))kex_set_peer},
    {OSSL_FUNC_KEYEXCH_DERIVE, (void (*)(void))kex_derive},
    {OSSL_FUNC_KEYEXCH_FREECTX, (void (*)(void))kex_freectx},
    {OSSL_FUNC_KEYEXCH_DUPCTX, (void (*)(void))kex_dupctx},
    {OSSL_FUNC_KEYEXCH_SET_CTX_PARAMS, (void (*)(void))kex_set_ctx_params},
    {OSSL_FUNC_KEYEXCH_SETTABLE_CTX_PARAMS, (void (*)(void))kex_settable_ctx_params},
    {0, NULL}};
