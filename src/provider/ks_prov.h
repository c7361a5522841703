/* ks_prov.h: what the files of kuaisuo's OpenSSL 3 provider share: the
 * provider context, error reporting through the core, the operation
 * counters, the key object the KEYMGMT makes and the other operations
 * read, and each file's dispatch tables. docs/PROVIDER.md describes the
 * provider; every operation calls kuaisuo's public C API, nothing here
 * computes cryptography of its own. */
#ifndef KS_PROVIDER_KS_PROV_H_
#define KS_PROVIDER_KS_PROV_H_

#include <kuaisuo.h>
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <stddef.h>
#include <stdint.h>

/* One per load of the provider (a library context may load it once). */
typedef struct ks_prov_ctx {
  const OSSL_CORE_HANDLE* handle;
} ks_prov_ctx;

/* Reports a kuaisuo status (a negative ks_status) through the core's
 * error functions, with ks_strerror's sentence and what was being done;
 * returns 0 so that callers can `return ks_prov_raise(...)`. */
int ks_prov_error(const ks_prov_ctx* pc, int status, const char* what, const char* file,
                  int line, const char* func);
#define KS_PROV_RAISE(pc, status, what) \
  ks_prov_error((pc), (status), (what), __FILE__, __LINE__, __func__)
/* Errors that are not a kuaisuo status (an EVP caller's misuse): reported
 * as KS_ERR_INVALID_ARGUMENT with the sentence given. */
#define KS_PROV_MISUSE(pc, what) KS_PROV_RAISE((pc), KS_ERR_INVALID_ARGUMENT, (what))

/* Operations run in kuaisuo, counted so that a test (or an operator) can
 * tell that the work ran here and not in another provider: readable as
 * the provider's gettable parameters "kuaisuo-<name>" (OSSL_PROVIDER_get_params)
 * and, with KUAISUO_PROVIDER_TRACE=<file> in the environment, as one line
 * per operation appended to that file (for programs such as nginx, whose
 * provider the test cannot query). */
typedef enum ks_prov_counter {
  KS_PROV_DIGEST = 0,   /* SM3 digests finished */
  KS_PROV_CIPHER,       /* SM4 messages finished (final) */
  KS_PROV_KEYGEN,       /* keys generated */
  KS_PROV_SIGN,         /* signatures made */
  KS_PROV_VERIFY,       /* signatures checked */
  KS_PROV_DERIVE,       /* X25519 shared secrets */
  KS_PROV_ENCRYPT,      /* SM2 encryptions */
  KS_PROV_DECRYPT,      /* SM2 decryptions */
  KS_PROV_COUNTERS
} ks_prov_counter;
void ks_prov_count(ks_prov_counter which, const char* algorithm);
uint64_t ks_prov_counter_value(ks_prov_counter which);
const char* ks_prov_counter_name(ks_prov_counter which);

/* ---- Keys (keymgmt.c) ---------------------------------------------------- */
typedef enum ks_prov_key_type { KS_PROV_SM2 = 0, KS_PROV_ED25519, KS_PROV_X25519 } ks_prov_key_type;

/* A key as the KEYMGMT holds it: kuaisuo's objects for the halves that are
 * present, and the encoded public key every operation and parameter reads
 * (SM2: 04||x||y; Ed25519, X25519: 32 bytes). The X25519 private key has
 * no kuaisuo object (its API takes raw bytes), so it sits here, wiped when
 * the key is freed. */
typedef struct ks_prov_key {
  ks_prov_ctx* pc;
  ks_prov_key_type type;
  int refs; /* the keymgmt's reference and each operation's (atomic) */
  int has_public;
  int has_private;
  uint8_t pub[KS_SM2_PUBLIC_KEY_BYTES];
  size_t pub_len;
  ks_sm2_key* sm2;
  ks_sm2_pubkey* sm2_pub;
  ks_ed25519_key* ed;
  ks_ed25519_pubkey* ed_pub;
  uint8_t x25519_private[KS_X25519_KEY_BYTES];
} ks_prov_key;

/* The algorithm's name as OpenSSL spells it ("SM2", "ED25519", "X25519"). */
const char* ks_prov_key_name(ks_prov_key_type type);

/* An operation that keeps a key past the call that gave it (a key
 * exchange's key and peer) takes a reference, as the default provider's
 * do: EVP may free the EVP_PKEY, and with it the keymgmt's reference,
 * before the operation ends (OpenSSL 3.0.13's pkeyutl frees the peer key
 * right after EVP_PKEY_derive_set_peer, and that version's EVP_PKEY_CTX
 * holds no reference to the peer; 3.0.19's keeps it alive).
 * ks_prov_key_free drops one reference (NULL is fine). */
void ks_prov_key_up_ref(ks_prov_key* k);
void ks_prov_key_free(ks_prov_key* k);

/* ---- Dispatch tables, one family per file --------------------------------- */
extern const OSSL_DISPATCH ks_prov_sm3_functions[];
extern const OSSL_DISPATCH ks_prov_sm4_ecb_functions[];
extern const OSSL_DISPATCH ks_prov_sm4_cbc_functions[];
extern const OSSL_DISPATCH ks_prov_sm4_cfb_functions[];
extern const OSSL_DISPATCH ks_prov_sm4_ofb_functions[];
extern const OSSL_DISPATCH ks_prov_sm4_ctr_functions[];
extern const OSSL_DISPATCH ks_prov_sm4_gcm_functions[];
extern const OSSL_DISPATCH ks_prov_sm2_keymgmt_functions[];
extern const OSSL_DISPATCH ks_prov_ed25519_keymgmt_functions[];
extern const OSSL_DISPATCH ks_prov_x25519_keymgmt_functions[];
extern const OSSL_DISPATCH ks_prov_sm2_signature_functions[];
extern const OSSL_DISPATCH ks_prov_ed25519_signature_functions[];
extern const OSSL_DISPATCH ks_prov_x25519_keyexch_functions[];
extern const OSSL_DISPATCH ks_prov_sm2_asym_cipher_functions[];

#endif /* KS_PROVIDER_KS_PROV_H_ */
