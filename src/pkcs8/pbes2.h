// Password-encrypted PKCS#8: EncryptedPrivateKeyInfo (RFC 5958 section 3)
// under PBES2 (RFC 8018 section 6.2, ASN.1 in appendix A.4 and C) with
// PBKDF2 (appendix A.2) and a CBC cipher with PKCS#7 padding. What it reads
// and writes is what the tools users have write:
//   - OpenSSL 3 (`openssl pkcs8 -topk8`, `genpkey -aes256`): PBKDF2 with
//     hmacWithSHA256 (or hmacWithSHA1 in older files, the RFC's default
//     PRF), AES-128/192/256-CBC or SM4-CBC;
//   - GmSSL (`gmssl sm2keygen -pass`): PBKDF2 with HMAC-SM3
//     (1.2.156.10197.1.401.2) and SM4-CBC (1.2.156.10197.1.104.2).
// Functions return KS_OK or the ks_status naming the problem: DER errors
// for a damaged structure, KS_ERR_PBES2_UNSUPPORTED for a scheme, PRF,
// cipher, key length or iteration count outside the above, and
// KS_ERR_WRONG_PASSPHRASE when the decrypted bytes do not unpad to one DER
// SEQUENCE (a wrong passphrase; damaged ciphertext looks the same).
#ifndef KS_ENCODING_PBES2_H_
#define KS_ENCODING_PBES2_H_

#include <stddef.h>
#include <stdint.h>

#include "core/wiping_allocator.h"

namespace ks {
namespace pbes2 {

enum class Prf { kHmacSha1, kHmacSha256, kHmacSm3 };
enum class Cipher { kAes128Cbc, kAes192Cbc, kAes256Cbc, kSm4Cbc };

struct Params {
  Prf prf;
  Cipher cipher;
  uint32_t iterations;
};

// The absolute bound on the PBKDF2 iteration count read from a file, so
// that a hostile one cannot hang the reader: 10^7 (OpenSSL writes 2,048 by
// default; OWASP's 2023 advice for PBKDF2-HMAC-SHA256 is 600,000). A
// reader's own maximum (decrypt's max_iterations) is at most this.
constexpr uint32_t kMaxIterations = 10000000;

// The PrivateKeyInfo DER inside an EncryptedPrivateKeyInfo DER. A file
// with more than max_iterations iterations (capped at kMaxIterations) is
// KS_ERR_PBES2_ITERATIONS, found before any key derivation.
int decrypt(const uint8_t* der, size_t len, const uint8_t* password, size_t password_len,
            uint32_t max_iterations, Bytes* plain);

// EncryptedPrivateKeyInfo DER for plain (a PrivateKeyInfo), with a fresh
// 16-byte salt and IV from the OS (KS_ERR_RANDOM if it fails).
int encrypt(const uint8_t* plain, size_t len, const uint8_t* password, size_t password_len,
            const Params& params, Bytes* der);

}  // namespace pbes2
}  // namespace ks

#endif  // KS_ENCODING_PBES2_H_
