/* kuaisuo/pkcs8.h: Password-encrypted private keys (PKCS #8 EncryptedPrivateKeyInfo with PBES2).
 * Conventions, errors and the context: kuaisuo/common.h. */
#ifndef KUAISUO_PKCS8_H_
#define KUAISUO_PKCS8_H_

#include <kuaisuo/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Password-encrypted private keys (PKCS#8 with PBES2) ------------- */
/* EncryptedPrivateKeyInfo (RFC 5958 section 3) under PBES2 (RFC 8018):
 * PBKDF2 over HMAC-SHA256, HMAC-SM3 or (reading only) HMAC-SHA1, then
 * AES-128/192/256-CBC or SM4-CBC, in any combination: what `openssl pkcs8
 * -topk8 -v2 ...`, `openssl genpkey -aes256` and GmSSL's `sm2keygen -pass`
 * write. The ciphers are kuaisuo's own constant-time code (SM4; a
 * table-free AES for key files only), so no libcrypto is needed at run
 * time.
 *
 * Writing, a scheme names the PRF and the cipher. Who reads which:
 *   AES256_SHA256, AES128_SHA256: OpenSSL (1.1 and 3), Tongsuo, and most
 *     other PKCS#8 readers; not GmSSL 3 (SM4-CBC with HMAC-SM3 only).
 *   SM4_SHA256: OpenSSL 3 and Tongsuo (`openssl pkcs8 -topk8 -v2 sm4-cbc
 *     -v2prf hmacWithSHA256` writes the same); not GmSSL 3. The scheme
 *     for an SM4-encrypted key that OpenSSL must read.
 *   SM4_SM3: GmSSL (what `sm2keygen -pass` writes); OpenSSL 3.0 and
 *     Tongsuo refuse it ("unsupported prf": no HMAC-SM3 PRF there).
 * kuaisuo reads all four (and the other combinations listed above). */
typedef enum ks_pbes2_scheme {
  KS_PBES2_AES256_SHA256 = 0, /* PBKDF2-HMAC-SHA256, AES-256-CBC: OpenSSL 3's default */
  KS_PBES2_AES128_SHA256 = 1, /* PBKDF2-HMAC-SHA256, AES-128-CBC */
  KS_PBES2_SM4_SM3 = 2,       /* PBKDF2-HMAC-SM3, SM4-CBC: GmSSL's (GM/T tooling) */
  KS_PBES2_SM4_SHA256 = 3     /* PBKDF2-HMAC-SHA256, SM4-CBC: OpenSSL 3 and Tongsuo read it */
} ks_pbes2_scheme;
/* Iterations when 0 is passed: OWASP's 2023 figure for PBKDF2-HMAC-SHA256
 * (OpenSSL writes 2,048). */
#define KS_PBES2_DEFAULT_ITERATIONS 600000u
/* Reading: a file's iteration count is work an attacker who supplies the
 * file makes the reader do (PBKDF2's cost is linear in it, RFC 8018 5.2),
 * so readers cap it. ks_pkcs8_decrypt accepts up to the default maximum,
 * enough for every file kuaisuo, OpenSSL (2,048) or GmSSL writes by
 * default; ks_pkcs8_decrypt_max takes the caller's own, up to the absolute
 * maximum. At 600,000 iterations one decryption took 0.42 s (PBKDF2-
 * HMAC-SHA256), 0.38 s (HMAC-SM3) and 2.7 s (HMAC-SHA1) on the 2-core dev
 * machine (median of 5; 10,000,000 with HMAC-SHA1 took 44 s). */
#define KS_PBES2_DEFAULT_MAX_ITERATIONS 600000u
#define KS_PBES2_ABSOLUTE_MAX_ITERATIONS 10000000u

/* in: an EncryptedPrivateKeyInfo, DER or PEM ("ENCRYPTED PRIVATE KEY";
 * detected). out: the PrivateKeyInfo DER inside it (secret: wipe it after
 * use), for ks_sm2_key_decode, ks_ed25519_key_decode or
 * ks_x25519_private_key_decode; out_cap >= in_len always suffices. A
 * damaged structure gives its DER or PEM code, a scheme outside those above
 * KS_ERR_PBES2_UNSUPPORTED, a passphrase that does not decrypt it
 * KS_ERR_WRONG_PASSPHRASE, more than KS_PBES2_DEFAULT_MAX_ITERATIONS
 * iterations KS_ERR_PBES2_ITERATIONS (before any key derivation). */
KS_API int ks_pkcs8_decrypt(const uint8_t* in, size_t in_len, const uint8_t* passphrase,
                            size_t passphrase_len, uint8_t* out, size_t out_cap,
                            size_t* out_len);
/* ks_pkcs8_decrypt with the caller's iteration maximum: 0 for
 * KS_PBES2_DEFAULT_MAX_ITERATIONS, else 1 to
 * KS_PBES2_ABSOLUTE_MAX_ITERATIONS (above: KS_ERR_INVALID_ARGUMENT). A
 * file with more iterations gives KS_ERR_PBES2_ITERATIONS. */
KS_API int ks_pkcs8_decrypt_max(const uint8_t* in, size_t in_len, const uint8_t* passphrase,
                                size_t passphrase_len, uint32_t max_iterations, uint8_t* out,
                                size_t out_cap, size_t* out_len);
/* der: a PrivateKeyInfo (ks_*_key_encode with pem = 0). scheme: a
 * ks_pbes2_scheme; iterations 0 for KS_PBES2_DEFAULT_ITERATIONS; a fresh
 * salt and IV from the OS. pem != 0 for "-----BEGIN ENCRYPTED PRIVATE
 * KEY-----". out_cap >= 2 * der_len + 512 always suffices (a NULL out asks
 * for the size but runs the whole key derivation to learn it). */
KS_API int ks_pkcs8_encrypt(const uint8_t* der, size_t der_len, const uint8_t* passphrase,
                            size_t passphrase_len, int scheme, uint32_t iterations, int pem,
                            uint8_t* out, size_t out_cap, size_t* out_len);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_PKCS8_H_ */
