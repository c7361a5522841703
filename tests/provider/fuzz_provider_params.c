/* fuzz_provider_params: libFuzzer over the provider's parameter handling
 * and the untrusted inputs its operations take, through EVP as a program
 * would: the input's bytes become OSSL_PARAM arrays (names the provider
 * knows and others, every type, any size) given to key import, key
 * generation, the signature, key exchange and encryption contexts and the
 * SM4 ciphers, and signatures, ciphertexts and peer keys given to verify,
 * decrypt and derive. Any crash, out-of-bounds access or leak stops the run
 * (KS_FUZZ builds: AddressSanitizer, UBSan). An imported private key must
 * pass the pairwise check.
 * Build: -DKS_FUZZ=ON (clang), --target fuzz_provider_params;
 * run: BUILD/tests/fuzz/fuzz_provider_params -max_total_time=60 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define KS "provider=kuaisuo"

static OSSL_LIB_CTX* libctx;
static EVP_PKEY* keys[3];
static const char* const types[] = {"SM2", "ED25519", "X25519"};

static EVP_PKEY* keygen(const char* type) {
  EVP_PKEY* pkey = NULL;
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx, type, KS);
  if (c == NULL || EVP_PKEY_keygen_init(c) <= 0 || EVP_PKEY_keygen(c, &pkey) <= 0) abort();
  EVP_PKEY_CTX_free(c);
  return pkey;
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc, (void)argv;
  const char* dir = getenv("KS_PROVIDER_DIR");
  libctx = OSSL_LIB_CTX_new();
  OSSL_PROVIDER_set_default_search_path(libctx, dir != NULL ? dir : KS_PROVIDER_BUILD_DIR);
  if (OSSL_PROVIDER_load(libctx, "kuaisuo") == NULL || OSSL_PROVIDER_load(libctx, "default") == NULL)
    abort();
  for (int t = 0; t < 3; ++t) keys[t] = keygen(types[t]);
  return 0;
}

/* The input, read front to back; zeros once it runs out. */
typedef struct reader {
  const uint8_t* p;
  size_t n;
} reader;

static uint8_t byte(reader* r) {
  if (r->n == 0) return 0;
  --r->n;
  return *r->p++;
}

static const uint8_t* bytes(reader* r, size_t* len) {
  size_t want = byte(r);
  if (want > r->n) want = r->n;
  const uint8_t* out = r->p;
  r->p += want;
  r->n -= want;
  *len = want;
  return out;
}

static const char* const names[] = {
    OSSL_PKEY_PARAM_PUB_KEY, OSSL_PKEY_PARAM_PRIV_KEY, OSSL_PKEY_PARAM_GROUP_NAME,
    OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, OSSL_PKEY_PARAM_DIST_ID, OSSL_SIGNATURE_PARAM_DIGEST,
    OSSL_SIGNATURE_PARAM_DIGEST_SIZE, OSSL_CIPHER_PARAM_PADDING, OSSL_CIPHER_PARAM_KEYLEN,
    OSSL_CIPHER_PARAM_AEAD_IVLEN, OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_ASYM_CIPHER_PARAM_DIGEST,
    "unknown"};

/* Up to 4 parameters; each value lives in its own heap copy of exactly its
 * size, so that a read past it is caught. */
static size_t read_params(reader* r, OSSL_PARAM params[5], void* owned[4]) {
  size_t count = byte(r) % 5;
  for (size_t i = 0; i < count; ++i) {
    const char* name = names[byte(r) % (sizeof names / sizeof names[0])];
    uint8_t type = byte(r) % 5;
    size_t len;
    const uint8_t* data = bytes(r, &len);
    size_t size = type == 2 ? sizeof(size_t) : type == 3 ? sizeof(unsigned int) : len;
    owned[i] = calloc(1, size + (type == 4)); /* strings: room for the NUL OSSL_PARAM requires */
    memcpy(owned[i], data, len < size ? len : size);
    switch (type) {
      case 0: params[i] = OSSL_PARAM_construct_octet_string(name, owned[i], size); break;
      case 1: params[i] = OSSL_PARAM_construct_BN(name, owned[i], size); break;
      case 2: params[i] = OSSL_PARAM_construct_size_t(name, owned[i]); break;
      case 3: params[i] = OSSL_PARAM_construct_uint(name, owned[i]); break;
      default: {
        char* s = owned[i];
        s[size] = '\0';
        params[i] = OSSL_PARAM_construct_utf8_string(name, s, strlen(s));
      }
    }
  }
  params[count] = OSSL_PARAM_construct_end();
  return count;
}

static void import(int t, int selection, OSSL_PARAM* params) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx, types[t], KS);
  EVP_PKEY* k = NULL;
  if (c != NULL && EVP_PKEY_fromdata_init(c) == 1 &&
      EVP_PKEY_fromdata(c, &k, selection, params) == 1 && selection == EVP_PKEY_KEYPAIR &&
      OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY) != NULL) {
    EVP_PKEY_CTX* kc = EVP_PKEY_CTX_new_from_pkey(libctx, k, KS);
    if (kc == NULL || EVP_PKEY_pairwise_check(kc) != 1) abort(); /* an inconsistent pair */
    EVP_PKEY_CTX_free(kc);
  }
  EVP_PKEY_free(k);
  EVP_PKEY_CTX_free(c);
}

/* An operation on one of the keys, its context given the parameters and
 * the rest of the input as its untrusted data. */
static void operate(int t, int which, const OSSL_PARAM* params, reader* r) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(libctx, keys[t], KS);
  uint8_t out[512];
  size_t out_len = sizeof out, len;
  const uint8_t* data = bytes(r, &len);
  uint8_t* copy = malloc(len + 1);
  memcpy(copy, data, len);
  if (c == NULL) goto done;
  if (t == 2) { /* X25519: the data as a peer's public key */
    EVP_PKEY* peer = EVP_PKEY_new_raw_public_key_ex(libctx, "X25519", KS, copy, len);
    if (EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_CTX_set_params(c, params) >= 0 && peer != NULL &&
        EVP_PKEY_derive_set_peer(c, peer) == 1)
      EVP_PKEY_derive(c, out, &out_len);
    EVP_PKEY_free(peer);
  } else if (t == 0 && which % 3 == 1) { /* SM2 decryption of the data */
    if (EVP_PKEY_decrypt_init(c) == 1 && EVP_PKEY_CTX_set_params(c, params) >= 0)
      EVP_PKEY_decrypt(c, out, &out_len, copy, len);
  } else if (t == 0) { /* SM2: the data as a DER signature of a digest */
    static const uint8_t e[32] = {1};
    if (EVP_PKEY_verify_init(c) == 1 && EVP_PKEY_CTX_set_params(c, params) >= 0)
      EVP_PKEY_verify(c, copy, len, e, sizeof e);
  } else { /* Ed25519: the data as a signature of itself */
    EVP_MD_CTX* m = EVP_MD_CTX_new();
    if (EVP_DigestVerifyInit_ex(m, NULL, NULL, libctx, KS, keys[t], params) == 1)
      EVP_DigestVerify(m, copy, len, copy, len);
    EVP_MD_CTX_free(m);
  }
done:
  EVP_PKEY_CTX_free(c);
  free(copy);
}

static void cipher(int which, const OSSL_PARAM* params, reader* r) {
  static const char* const ciphers[] = {"SM4-GCM", "SM4-CBC", "SM4-ECB", "SM4-CTR"};
  static const uint8_t key[16] = {1}, iv[16] = {2};
  EVP_CIPHER* ci = EVP_CIPHER_fetch(libctx, ciphers[which % 4], KS);
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  size_t len;
  const uint8_t* data = bytes(r, &len);
  uint8_t out[256 + 32];
  int n;
  if (ci != NULL && c != NULL && EVP_CipherInit_ex2(c, ci, key, iv, which & 4, NULL) &&
      EVP_CIPHER_CTX_set_params(c, params) && EVP_CipherUpdate(c, out, &n, data, (int)len))
    EVP_CipherFinal_ex(c, out + n, &n);
  EVP_CIPHER_CTX_free(c);
  EVP_CIPHER_free(ci);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  reader r = {data, size};
  OSSL_PARAM params[5];
  void* owned[4] = {NULL, NULL, NULL, NULL};
  uint8_t op = byte(&r);
  int t = op % 3, which = op / 3;
  read_params(&r, params, owned);
  static const int selections[] = {EVP_PKEY_KEYPAIR, EVP_PKEY_PUBLIC_KEY, EVP_PKEY_KEY_PARAMETERS};
  switch (which % 4) {
    case 0: import(t, selections[(which / 4) % 3], params); break;
    case 1: {
      EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx, types[t], KS);
      EVP_PKEY* k = NULL;
      if (c != NULL && EVP_PKEY_keygen_init(c) == 1 && EVP_PKEY_CTX_set_params(c, params) == 1)
        EVP_PKEY_keygen(c, &k);
      EVP_PKEY_free(k);
      EVP_PKEY_CTX_free(c);
      break;
    }
    case 2: operate(t, which / 4, params, &r); break;
    default: cipher(which / 4, params, &r); break;
  }
  for (int i = 0; i < 4; ++i) free(owned[i]);
  ERR_clear_error();
  return 0;
}
