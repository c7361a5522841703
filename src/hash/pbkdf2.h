// PBKDF2 (RFC 8018 section 5.2) over Hmac<H>: the key derivation of
// password-encrypted PKCS#8 keys (PBES2, RFC 8018 section 6.2).
#ifndef KS_HASH_PBKDF2_H_
#define KS_HASH_PBKDF2_H_

#include <stddef.h>
#include <stdint.h>

#include "core/endian.h"
#include "core/secure.h"
#include "hash/hmac.h"

namespace ks {

// out[0..out_len) = T_1 || T_2 || ..., T_i = U_1 ^ ... ^ U_c with
// U_1 = PRF(P, S || INT(i)) and U_j = PRF(P, U_{j-1}). iterations >= 1.
template <class H>
void pbkdf2(const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
            uint32_t iterations, uint8_t* out, size_t out_len) {
  constexpr size_t kLen = H::kDigestBytes;
  Hmac<H> prf(password, password_len);
  uint8_t u[kLen], t[kLen], index[4];
  for (uint32_t block = 1; out_len > 0; ++block) {
    store_be32(index, block);
    prf.update(salt, salt_len);
    prf.update(index, 4);
    prf.finish(u);
    for (size_t k = 0; k < kLen; ++k) t[k] = u[k];
    for (uint32_t j = 1; j < iterations; ++j) {
      prf.update(u, kLen);
      prf.finish(u);
      for (size_t k = 0; k < kLen; ++k) t[k] ^= u[k];
    }
    const size_t take = out_len < kLen ? out_len : kLen;
    for (size_t k = 0; k < take; ++k) out[k] = t[k];
    out += take;
    out_len -= take;
  }
  secure_wipe(u, sizeof(u));
  secure_wipe(t, sizeof(t));
}

}  // namespace ks

#endif  // KS_HASH_PBKDF2_H_
