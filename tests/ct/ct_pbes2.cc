// Runs what password-encrypted keys are made of with the secrets marked
// undefined (see core/secure.h): AES (FIPS 197) key expansion, encryption
// and decryption under a secret key on secret blocks; SHA-256, SHA-1,
// HMAC and PBKDF2 (each PRF) on a secret password; and PBES2 encryption
// and decryption of a secret key under a secret passphrase, every scheme.
// Under valgrind (KS_CTGRIND) or MemorySanitizer (KS_CT_MSAN), any branch
// or address that depends on them is an error. Prints "N passed, 0 failed"
// when the operations themselves succeed.
//
// Public by design, and declassified where they are produced: the
// padding's verdict and the SEQUENCE header of the decrypted key (format,
// not key). Lengths, salts, IVs and iteration counts are public.
#include <stdio.h>
#include <string.h>

#include <initializer_list>

#include "cipher/aes.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "hash/pbkdf2.h"
#include "hash/sha256.h"
#include "sm3/sm3.h"
#include "kuaisuo.h"
#include "ct_tally.h"

namespace {

using ks_ct::expect;

void aes() {
  for (size_t key_len : {16, 24, 32}) {
    uint8_t key[32], pt[64], ct[64], back[64];
    ks_ct::secret_random(key, key_len);
    ks_ct::secret_random(pt, sizeof pt);
    ks::aes::Key k;
    expect(ks::aes::set_key(&k, key, key_len), "aes set_key");
    ks::aes::encrypt_blocks(k, pt, ct, 4);
    ks::aes::decrypt_blocks(k, ct, back, 4);
    ks::ct_declassify(back, sizeof back);
    ks::ct_declassify(pt, sizeof pt);
    expect(memcmp(back, pt, sizeof pt) == 0, "aes decrypt(encrypt(x)) = x");
    ks::aes::wipe_key(&k);
  }
}

void kdf() {
  uint8_t pw[40], salt[16] = {1, 2, 3}, out[48];
  ks_ct::secret_random(pw, sizeof pw);
  uint8_t d[32];
  ks::Sha256::digest(pw, sizeof pw, d);
  ks::Sha1::digest(pw, sizeof pw, d);
  ks::pbkdf2<ks::Sha256>(pw, sizeof pw, salt, sizeof salt, 3, out, sizeof out);
  ks::pbkdf2<ks::Sha1>(pw, sizeof pw, salt, sizeof salt, 3, out, sizeof out);
  ks::pbkdf2<ks::sm3::Sm3>(pw, sizeof pw, salt, sizeof salt, 3, out, sizeof out);
  uint8_t long_pw[100], again[32];  // longer than a block: hashed first (RFC 2104)
  ks_ct::secret_random(long_pw, sizeof long_pw);
  ks::pbkdf2<ks::Sha256>(long_pw, sizeof long_pw, salt, sizeof salt, 2, out, 32);
  ks::pbkdf2<ks::Sha256>(long_pw, sizeof long_pw, salt, sizeof salt, 2, again, 32);
  ks::ct_declassify(out, 32);
  ks::ct_declassify(again, 32);
  expect(memcmp(out, again, 32) == 0, "PBKDF2 is a function of its inputs");
}

void pbes2() {
  // A PrivateKeyInfo-shaped secret: a public SEQUENCE header, secret body.
  uint8_t key[2 + 48];
  key[0] = 0x30;
  key[1] = 48;
  ks_ct::secret_random(key + 2, 48);
  uint8_t pw[12];
  ks_ct::secret_random(pw, sizeof pw);
  for (int scheme : {KS_PBES2_AES256_SHA256, KS_PBES2_AES128_SHA256, KS_PBES2_SM4_SM3}) {
    uint8_t enc[1024], back[sizeof enc];
    size_t enc_len = 0, back_len = 0;
    expect(ks_pkcs8_encrypt(key, sizeof key, pw, sizeof pw, scheme, 2, 0, enc, sizeof enc,
                            &enc_len) == KS_OK, "pkcs8_encrypt");
    ks::ct_declassify(enc, enc_len);  // the file is public
    expect(ks_pkcs8_decrypt(enc, enc_len, pw, sizeof pw, back, sizeof back, &back_len) == KS_OK,
           "pkcs8_decrypt");
    ks::ct_declassify(back, back_len);
    ks::ct_declassify(key, sizeof key);
    expect(back_len == sizeof key && memcmp(back, key, sizeof key) == 0, "pbes2 round trip");
    ks::ct_poison(key + 2, 48);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--leak") == 0) return ks_ct::leak_on_purpose();
  aes();
  kdf();
  pbes2();
  const ks_ct::Tally& t = ks_ct::tally();
  printf("%d passed, %d failed (cpu: %s)\n", t.passes, t.failures, ks_cpu_features());
  return t.failures == 0 ? 0 : 1;
}
