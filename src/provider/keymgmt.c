/* keymgmt.c: KEYMGMT for SM2, ED25519 and X25519. Keys are kuaisuo's
 * objects (ks_prov_key, ks_prov.h); they go in and out as the OSSL_PARAMs
 * the default provider's keymgmts use (ec_kmgmt.c, ecx_kmgmt.c in
 * OpenSSL 3.0), so that its decoders and encoders read and write PEM/DER
 * for our keys and EVP moves keys between the two providers:
 *   SM2: "group" = "SM2", "pub" = 04||x||y (octet string), "priv" = d
 *        (unsigned integer);
 *   ED25519, X25519: "pub" and "priv", 32-byte octet strings.
 * Private key bytes only ever sit in buffers wiped before they go. */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "ks_prov.h"

#define KP_SELECT_KEYPAIR OSSL_KEYMGMT_SELECT_KEYPAIR
#define SM2_SIGNATURE_DER_MAX 72 /* what EVP_PKEY_get_size answers for SM2 (ECDSA_size) */

const char* ks_prov_key_name(ks_prov_key_type type) {
  static const char* const names[] = {"SM2", "ED25519", "X25519"};
  return names[type];
}

static ks_prov_key* key_new(ks_prov_ctx* pc, ks_prov_key_type type) {
  ks_prov_key* k = OPENSSL_zalloc(sizeof *k);
  if (k == NULL) return NULL;
  k->pc = pc;
  k->type = type;
  k->refs = 1;
  return k;
}

void ks_prov_key_up_ref(ks_prov_key* k) { __atomic_add_fetch(&k->refs, 1, __ATOMIC_RELAXED); }

static void key_free(void* keydata) {
  ks_prov_key* k = keydata;
  if (k == NULL || __atomic_sub_fetch(&k->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
  ks_sm2_key_free(k->sm2); /* kuaisuo's objects wipe their secrets */
  ks_sm2_pubkey_free(k->sm2_pub);
  ks_ed25519_key_free(k->ed);
  ks_ed25519_pubkey_free(k->ed_pub);
  OPENSSL_clear_free(k, sizeof *k); /* x25519_private */
}

void ks_prov_key_free(ks_prov_key* k) { key_free(k); }

static size_t public_bytes(ks_prov_key_type type) {
  return type == KS_PROV_SM2 ? KS_SM2_PUBLIC_KEY_BYTES : KS_X25519_KEY_BYTES;
}

/* The public key from its encoding (SM2: any of kuaisuo's three forms, kept
 * as 04||x||y; Ed25519: a canonical point of large order; X25519: any 32
 * bytes, RFC 7748). */
static int set_public(ks_prov_key* k, const uint8_t* in, size_t len) {
  int rc = KS_OK;
  size_t n = 0;
  switch (k->type) {
    case KS_PROV_SM2: {
      ks_sm2_pubkey* pub = NULL;
      rc = ks_sm2_pubkey_from_bytes(in, len, &pub);
      if (rc == KS_OK) rc = ks_sm2_pubkey_to_bytes(pub, 0, k->pub, sizeof k->pub, &n);
      if (rc != KS_OK) {
        ks_sm2_pubkey_free(pub);
        break;
      }
      ks_sm2_pubkey_free(k->sm2_pub);
      k->sm2_pub = pub;
      break;
    }
    case KS_PROV_ED25519: {
      ks_ed25519_pubkey* pub = NULL;
      rc = ks_ed25519_pubkey_from_bytes(in, len, &pub);
      if (rc != KS_OK) break;
      ks_ed25519_pubkey_free(k->ed_pub);
      k->ed_pub = pub;
      memcpy(k->pub, in, len);
      break;
    }
    case KS_PROV_X25519:
      if (len != KS_X25519_KEY_BYTES) {
        rc = KS_ERR_BAD_PUBLIC_KEY;
        break;
      }
      memcpy(k->pub, in, len);
      break;
  }
  if (rc != KS_OK) return KS_PROV_RAISE(k->pc, rc, "public key");
  k->pub_len = public_bytes(k->type);
  k->has_public = 1;
  return 1;
}

/* The public key a private key implies, into out (public_bytes(type)). */
static int derive_public(ks_prov_key* k, uint8_t* out) {
  size_t n = 0;
  switch (k->type) {
    case KS_PROV_SM2: {
      ks_sm2_pubkey* pub = NULL;
      int rc = ks_sm2_key_public(k->sm2, &pub);
      if (rc == KS_OK) rc = ks_sm2_pubkey_to_bytes(pub, 0, out, KS_SM2_PUBLIC_KEY_BYTES, &n);
      ks_sm2_pubkey_free(pub);
      return rc;
    }
    case KS_PROV_ED25519: {
      ks_ed25519_pubkey* pub = NULL;
      int rc = ks_ed25519_key_public(k->ed, &pub);
      if (rc == KS_OK) rc = ks_ed25519_pubkey_to_bytes(pub, out);
      ks_ed25519_pubkey_free(pub);
      return rc;
    }
    case KS_PROV_X25519: return ks_x25519_public_key(k->x25519_private, out);
  }
  return KS_ERR_INTERNAL;
}

/* The private key from its bytes (SM2: d, 32 big-endian bytes; Ed25519:
 * the seed; X25519: the scalar), and the public key it implies: one given
 * before must be that one. */
static int set_private(ks_prov_key* k, const uint8_t* in, size_t len) {
  int rc = KS_OK;
  switch (k->type) {
    case KS_PROV_SM2:
      ks_sm2_key_free(k->sm2);
      k->sm2 = NULL;
      rc = ks_sm2_key_from_bytes(in, len, &k->sm2);
      break;
    case KS_PROV_ED25519:
      ks_ed25519_key_free(k->ed);
      k->ed = NULL;
      rc = ks_ed25519_key_from_seed(in, len, &k->ed);
      break;
    case KS_PROV_X25519:
      if (len != KS_X25519_KEY_BYTES) {
        rc = KS_ERR_BAD_PRIVATE_KEY;
        break;
      }
      memcpy(k->x25519_private, in, len);
      break;
  }
  if (rc != KS_OK) return KS_PROV_RAISE(k->pc, rc, "private key");
  k->has_private = 1;
  uint8_t pub[KS_SM2_PUBLIC_KEY_BYTES];
  rc = derive_public(k, pub);
  if (rc == KS_OK && k->has_public && memcmp(pub, k->pub, k->pub_len) != 0)
    rc = KS_ERR_KEY_MISMATCH;
  if (rc != KS_OK) {
    k->has_private = 0;
    return KS_PROV_RAISE(k->pc, rc, "private key");
  }
  return k->has_public ? 1 : set_public(k, pub, public_bytes(k->type));
}

/* The private key's bytes into out (32), for export; the caller wipes out. */
static int private_bytes(const ks_prov_key* k, uint8_t out[32]) {
  switch (k->type) {
    case KS_PROV_SM2: return ks_sm2_key_to_bytes(k->sm2, out);
    case KS_PROV_ED25519: return ks_ed25519_key_to_seed(k->ed, out);
    case KS_PROV_X25519: memcpy(out, k->x25519_private, KS_X25519_KEY_BYTES); return KS_OK;
  }
  return KS_ERR_INTERNAL;
}

/* ---- new, generation ------------------------------------------------------ */
static void* sm2_new(void* provctx) { return key_new(provctx, KS_PROV_SM2); }
static void* ed25519_new(void* provctx) { return key_new(provctx, KS_PROV_ED25519); }
static void* x25519_new(void* provctx) { return key_new(provctx, KS_PROV_X25519); }

typedef struct gen_ctx {
  ks_prov_ctx* pc;
  ks_prov_key_type type;
  int selection;
} gen_ctx;

static int gen_set_params(void* genctx, const OSSL_PARAM params[]);

static void* gen_init(ks_prov_ctx* pc, ks_prov_key_type type, int selection,
                      const OSSL_PARAM params[]) {
  gen_ctx* g = OPENSSL_zalloc(sizeof *g);
  if (g == NULL) return NULL;
  g->pc = pc;
  g->type = type;
  g->selection = selection;
  if (!gen_set_params(g, params)) {
    OPENSSL_free(g);
    return NULL;
  }
  return g;
}
static void* sm2_gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  return gen_init(provctx, KS_PROV_SM2, selection, params);
}
static void* ed25519_gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  return gen_init(provctx, KS_PROV_ED25519, selection, params);
}
static void* x25519_gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  return gen_init(provctx, KS_PROV_X25519, selection, params);
}

/* The group's name, where a caller names it (libssl names X25519's
 * "x25519"): it must be the key type's own, as in the default provider. */
static int gen_set_params(void* genctx, const OSSL_PARAM params[]) {
  gen_ctx* g = genctx;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME);
  if (p == NULL) return 1;
  const char* name = NULL;
  if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) ||
      OPENSSL_strcasecmp(name, ks_prov_key_name(g->type)) != 0)
    return KS_PROV_RAISE(g->pc, KS_ERR_KEY_ALGORITHM, "key generation: group");
  return 1;
}

static const OSSL_PARAM* gen_settable_params(void* genctx, void* provctx) {
  (void)genctx, (void)provctx;
  static const OSSL_PARAM params[] = {OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
                                      OSSL_PARAM_END};
  return params;
}

static int generate(ks_prov_key* k) {
  int rc = KS_OK;
  uint8_t pub[KS_SM2_PUBLIC_KEY_BYTES];
  switch (k->type) {
    case KS_PROV_SM2: rc = ks_sm2_key_generate(&k->sm2); break;
    case KS_PROV_ED25519: rc = ks_ed25519_key_generate(&k->ed); break;
    case KS_PROV_X25519: rc = ks_x25519_keygen(k->x25519_private, pub); break;
  }
  if (rc != KS_OK) return KS_PROV_RAISE(k->pc, rc, "key generation");
  k->has_private = 1;
  rc = derive_public(k, pub);
  if (rc != KS_OK) return KS_PROV_RAISE(k->pc, rc, "key generation");
  return set_public(k, pub, public_bytes(k->type));
}

static void* gen(void* genctx, OSSL_CALLBACK* cb, void* cbarg) {
  (void)cb, (void)cbarg; /* kuaisuo's generation has no progress to report */
  gen_ctx* g = genctx;
  ks_prov_key* k = key_new(g->pc, g->type);
  if (k == NULL) return NULL;
  if ((g->selection & KP_SELECT_KEYPAIR) != 0) {
    if (!generate(k)) {
      key_free(k);
      return NULL;
    }
    ks_prov_count(KS_PROV_KEYGEN, ks_prov_key_name(k->type));
  }
  return k;
}

static void gen_cleanup(void* genctx) { OPENSSL_free(genctx); }

/* ---- has, match, validate ---------------------------------------------------- */
static int has(const void* keydata, int selection) {
  const ks_prov_key* k = keydata;
  if (k == NULL) return 0;
  int ok = 1; /* the domain parameters are the key type's own: always there */
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0) ok = ok && k->has_public;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0) ok = ok && k->has_private;
  return ok;
}

/* A private key always comes with its public key, so comparing the public
 * keys decides both halves (as the default provider does). */
static int match(const void* keydata1, const void* keydata2, int selection) {
  const ks_prov_key* a = keydata1;
  const ks_prov_key* b = keydata2;
  if (a->type != b->type) return 0;
  if ((selection & KP_SELECT_KEYPAIR) == 0) return 1;
  return a->has_public && b->has_public && a->pub_len == b->pub_len &&
         CRYPTO_memcmp(a->pub, b->pub, a->pub_len) == 0;
}

static int validate(const void* keydata, int selection, int checktype) {
  (void)checktype; /* kuaisuo's checks are full ones whatever was asked */
  const ks_prov_key* k = keydata;
  if (!has(k, selection)) return 0;
  if ((selection & KP_SELECT_KEYPAIR) != KP_SELECT_KEYPAIR) return 1;
  /* The pair: the private key's public key must be the one held. (Each
   * half was checked by kuaisuo's decoder when it came in.) */
  uint8_t pub[KS_SM2_PUBLIC_KEY_BYTES];
  int rc = derive_public((ks_prov_key*)k, pub);
  if (rc == KS_OK && CRYPTO_memcmp(pub, k->pub, k->pub_len) != 0) rc = KS_ERR_KEY_MISMATCH;
  return rc == KS_OK ? 1 : KS_PROV_RAISE(k->pc, rc, "key check");
}

/* ---- import, export ---------------------------------------------------------- */
static int import_private(ks_prov_key* k, const OSSL_PARAM* p) {
  uint8_t d[32];
  int ok;
  if (k->type == KS_PROV_SM2) {
    /* An unsigned integer, as EC keys carry d (native-endian in OSSL_PARAM). */
    BIGNUM* bn = NULL;
    ok = OSSL_PARAM_get_BN(p, &bn) && BN_bn2binpad(bn, d, sizeof d) == (int)sizeof d;
    BN_clear_free(bn);
    ok = ok ? set_private(k, d, sizeof d) : KS_PROV_RAISE(k->pc, KS_ERR_BAD_PRIVATE_KEY, "SM2 d");
  } else {
    ok = p->data_type == OSSL_PARAM_OCTET_STRING
             ? set_private(k, p->data, p->data_size)
             : KS_PROV_RAISE(k->pc, KS_ERR_BAD_PRIVATE_KEY, "private key type");
  }
  OPENSSL_cleanse(d, sizeof d);
  return ok;
}

static int import_group(ks_prov_key* k, const OSSL_PARAM params[]) {
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME);
  const char* name = NULL;
  if (k->type != KS_PROV_SM2 || p == NULL) return 1;
  if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) || OPENSSL_strcasecmp(name, "SM2") != 0)
    return KS_PROV_RAISE(k->pc, KS_ERR_KEY_ALGORITHM, "SM2 group");
  return 1;
}

static int import(void* keydata, int selection, const OSSL_PARAM params[]) {
  ks_prov_key* k = keydata;
  if (k == NULL || !import_group(k, params)) return 0;
  if ((selection & KP_SELECT_KEYPAIR) == 0) return 1; /* domain parameters only */
  const OSSL_PARAM* pub = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY);
  const OSSL_PARAM* priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0
                               ? OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)
                               : NULL;
  if (pub == NULL && priv == NULL) return KS_PROV_MISUSE(k->pc, "import: no key in the parameters");
  if (pub != NULL) {
    if (pub->data_type != OSSL_PARAM_OCTET_STRING)
      return KS_PROV_RAISE(k->pc, KS_ERR_BAD_PUBLIC_KEY, "public key type");
    if (!set_public(k, pub->data, pub->data_size)) return 0;
  }
  return priv == NULL || import_private(k, priv);
}

static int export(void* keydata, int selection, OSSL_CALLBACK* cb, void* cbarg) {
  ks_prov_key* k = keydata;
  OSSL_PARAM params[4];
  size_t n = 0;
  uint8_t d[32], native[32];
  if (k->type == KS_PROV_SM2 && (selection & OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS) != 0)
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, "SM2", 0);
  if ((selection & KP_SELECT_KEYPAIR) != 0 && k->has_public)
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, k->pub, k->pub_len);
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && k->has_private) {
    int rc = private_bytes(k, d);
    if (rc != KS_OK) return KS_PROV_RAISE(k->pc, rc, "export");
    if (k->type == KS_PROV_SM2) {
      /* OSSL_PARAM's unsigned integers are native-endian: d reversed. */
      for (size_t i = 0; i < sizeof d; ++i) native[i] = d[sizeof d - 1 - i];
      params[n++] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, native, sizeof native);
    } else {
      params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, d, sizeof d);
    }
  }
  params[n] = OSSL_PARAM_construct_end();
  int ok = cb(params, cbarg);
  OPENSSL_cleanse(d, sizeof d);
  OPENSSL_cleanse(native, sizeof native);
  return ok;
}

static const OSSL_PARAM* sm2_types(int selection) {
  static const OSSL_PARAM all[] = {OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
                                   OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
                                   OSSL_PARAM_BN(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
                                   OSSL_PARAM_END};
  static const OSSL_PARAM group[] = {OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
                                     OSSL_PARAM_END};
  return (selection & KP_SELECT_KEYPAIR) != 0 ? all : group;
}

static const OSSL_PARAM* ecx_types(int selection) {
  static const OSSL_PARAM keys[] = {OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
                                    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
                                    OSSL_PARAM_END};
  static const OSSL_PARAM none[] = {OSSL_PARAM_END};
  return (selection & KP_SELECT_KEYPAIR) != 0 ? keys : none;
}

/* ---- get_params, set_params ---------------------------------------------------- */
typedef struct key_sizes {
  int bits, security_bits, max_size;
} key_sizes;

/* As the default provider answers them: SM2 256 bits and DER signatures of
 * up to 72 bytes; Ed25519 256 bits (ED25519_BITS), 64-byte signatures;
 * X25519 253 bits and 32-byte secrets. */
static key_sizes sizes_of(ks_prov_key_type type) {
  static const key_sizes sizes[] = {
      {256, 128, SM2_SIGNATURE_DER_MAX}, {256, 128, 64}, {253, 128, 32}};
  return sizes[type];
}

static int get_params(void* keydata, OSSL_PARAM params[]) {
  ks_prov_key* k = keydata;
  key_sizes s = sizes_of(k->type);
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != NULL && !OSSL_PARAM_set_int(p, s.bits))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != NULL &&
      !OSSL_PARAM_set_int(p, s.security_bits))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != NULL &&
      !OSSL_PARAM_set_int(p, s.max_size))
    return 0;
  /* A key without its halves yet (EVP_PKEY_copy_parameters' target) has
   * no public key to give: the parameter is left unanswered. */
  const char* pub_names[] = {OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, OSSL_PKEY_PARAM_PUB_KEY};
  for (size_t i = 0; i < 2 && k->has_public; ++i) {
    if ((p = OSSL_PARAM_locate(params, pub_names[i])) != NULL &&
        !OSSL_PARAM_set_octet_string(p, k->pub, k->pub_len))
      return 0;
  }
  if (k->type == KS_PROV_SM2) {
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_GROUP_NAME)) != NULL &&
        !OSSL_PARAM_set_utf8_string(p, "SM2"))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_DEFAULT_DIGEST)) != NULL &&
        !OSSL_PARAM_set_utf8_string(p, "SM3"))
      return 0;
  }
  /* Ed25519 hashes inside the scheme: EVP callers must pass no digest. */
  if (k->type == KS_PROV_ED25519 &&
      (p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != NULL &&
      !OSSL_PARAM_set_utf8_string(p, ""))
    return 0;
  return 1;
}

static const OSSL_PARAM* gettable_params(void* provctx) {
  (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
      OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
      OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0),
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
      OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
      OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0),
      OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, NULL, 0),
      OSSL_PARAM_END};
  return params;
}

/* The encoded public key of a peer (libssl's EVP_PKEY_set1_encoded_public_key
 * on a key with no halves yet), for SM2 and X25519 as in the default. */
static int set_params(void* keydata, const OSSL_PARAM params[]) {
  ks_prov_key* k = keydata;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY);
  if (p == NULL) return 1;
  if (k->type == KS_PROV_ED25519 || k->has_private)
    return KS_PROV_MISUSE(k->pc, "an encoded public key set on a key that cannot take one");
  if (p->data_type != OSSL_PARAM_OCTET_STRING)
    return KS_PROV_RAISE(k->pc, KS_ERR_BAD_PUBLIC_KEY, "encoded public key type");
  return set_public(k, p->data, p->data_size);
}

static const OSSL_PARAM* settable_params(void* provctx) {
  (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0), OSSL_PARAM_END};
  return params;
}

/* ---- dup ------------------------------------------------------------------------ */
static void* dup_key(const void* keydata, int selection) {
  const ks_prov_key* k = keydata;
  ks_prov_key* c = key_new(k->pc, k->type);
  if (c == NULL) return NULL;
  uint8_t d[32];
  int ok = 1;
  if ((selection & KP_SELECT_KEYPAIR) != 0 && k->has_public)
    ok = set_public(c, k->pub, k->pub_len);
  if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && k->has_private) {
    int rc = private_bytes(k, d);
    ok = rc == KS_OK ? set_private(c, d, sizeof d) : KS_PROV_RAISE(k->pc, rc, "dup");
    OPENSSL_cleanse(d, sizeof d);
  }
  if (!ok) {
    key_free(c);
    return NULL;
  }
  return c;
}

/* ---- Dispatch ---------------------------------------------------------------------- */
#define KS_KEYMGMT(name, types)                                                           \
  static const OSSL_PARAM* name##_import_types(int selection) { return types(selection); } \
  const OSSL_DISPATCH ks_prov_##name##_keymgmt_functions[] = {                            \
      {OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))name##_new},                                \
      {OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))key_free},                                 \
      {OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))name##_gen_init},                      \
      {OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (void (*)(void))gen_set_params},                 \
      {OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (void (*)(void))gen_settable_params},       \
      {OSSL_FUNC_KEYMGMT_GEN, (void (*)(void))gen},                                       \
      {OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (void (*)(void))gen_cleanup},                       \
      {OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))has},                                       \
      {OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))match},                                   \
      {OSSL_FUNC_KEYMGMT_VALIDATE, (void (*)(void))validate},                             \
      {OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))import},                                 \
      {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))name##_import_types},              \
      {OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))export},                                 \
      {OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))name##_import_types},              \
      {OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))get_params},                         \
      {OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))gettable_params},               \
      {OSSL_FUNC_KEYMGMT_SET_PARAMS, (void (*)(void))set_params},                         \
      {OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS, (void (*)(void))settable_params},               \
      {OSSL_FUNC_KEYMGMT_DUP, (void (*)(void))dup_key},                                   \
      {0, NULL}};

KS_KEYMGMT(sm2, sm2_types)
KS_KEYMGMT(ed25519, ecx_types)
KS_KEYMGMT(x25519, ecx_types)
