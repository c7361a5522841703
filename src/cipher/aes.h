// AES (FIPS 197) with 128-, 192- and 256-bit keys, portable and constant
// time: the S-box is computed (inversion in GF(2^8) as x^254, then the
// affine map), never looked up, so no memory index depends on the key or
// the data. It serves the AES-CBC of password-encrypted PKCS#8 keys that
// OpenSSL writes by default (`openssl pkcs8 -topk8 -v2 aes-256-cbc`):
// a few dozen blocks per key file, where ~20 us a block costs nothing,
// and a table-free portable code beats depending on libcrypto at run
// time. Not a bulk cipher: kuaisuo's bulk ciphers are SM4 and SKINNY.
#ifndef KS_CIPHER_AES_H_
#define KS_CIPHER_AES_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/modes.h"

namespace ks {
namespace aes {

// Round keys (FIPS 197 5.2) as 4(rounds + 1) words. Secret: wipe_key.
struct Key {
  uint8_t round_keys[16 * 15];
  int rounds;  // 10, 12 or 14
};

// key_len 16, 24 or 32; false for any other length.
bool set_key(Key* k, const uint8_t* key, size_t key_len);
void wipe_key(Key* k);

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks);
// out[i] = in[i] ^ E(counter + i), counter a 128-bit big-endian integer.
void ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                size_t nblocks);

// AES as the block-cipher policy of modes.h / gcm.h (key: a const Key*).
const BlockCipher& block_cipher();

}  // namespace aes
}  // namespace ks

#endif  // KS_CIPHER_AES_H_
