#include "pkcs8/pbes2.h"

#include <string.h>

#include "cipher/aes.h"
#include "cipher/modes.h"
#include "sm4/sm4.h"
#include "core/endian.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "encoding/pkix.h"
#include "hash/pbkdf2.h"
#include "hash/sha256.h"
#include "sm3/sm3.h"

namespace ks {
namespace pbes2 {
namespace {

using der::Reader;

using pkix::kOidPbes2;
constexpr uint8_t kOidPbkdf2[] = {0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0C};
constexpr uint8_t kNull = 0x05;  // the NULL parameters of a PRF's AlgorithmIdentifier

struct PrfInfo {
  Prf prf;
  pkix::Oid oid;
};
constexpr uint8_t kOidHmacSha1[] = {0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x07};
constexpr uint8_t kOidHmacSha256[] = {0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x02, 0x09};
constexpr uint8_t kOidHmacSm3[] = {0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x83, 0x11, 0x02};
constexpr PrfInfo kPrfs[] = {{Prf::kHmacSha1, pkix::oid(kOidHmacSha1)},
                             {Prf::kHmacSha256, pkix::oid(kOidHmacSha256)},
                             {Prf::kHmacSm3, pkix::oid(kOidHmacSm3)}};

struct CipherInfo {
  Cipher cipher;
  pkix::Oid oid;
  size_t key_len;
};
constexpr uint8_t kOidAes128Cbc[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x02};
constexpr uint8_t kOidAes192Cbc[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x16};
constexpr uint8_t kOidAes256Cbc[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2A};
constexpr uint8_t kOidSm4Cbc[] = {0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x68, 0x02};
constexpr CipherInfo kCiphers[] = {{Cipher::kAes128Cbc, pkix::oid(kOidAes128Cbc), 16},
                                   {Cipher::kAes192Cbc, pkix::oid(kOidAes192Cbc), 24},
                                   {Cipher::kAes256Cbc, pkix::oid(kOidAes256Cbc), 32},
                                   {Cipher::kSm4Cbc, pkix::oid(kOidSm4Cbc), 16}};

constexpr size_t kSaltBytes = 16;
constexpr size_t kMaxKeyBytes = 32;
constexpr size_t kBlock = 16;

template <class T, size_t N>
const T* find_by_oid(const T (&table)[N], const Reader& oid) {
  for (const T& entry : table)
    if (pkix::same_oid(oid, entry.oid)) return &entry;
  return nullptr;
}

template <class T, size_t N, class K>
const T* find(const T (&table)[N], K key, K T::*field) {
  for (const T& entry : table)
    if (entry.*field == key) return &entry;
  return nullptr;
}

// What the parameters say, pointing into the input.
struct Parsed {
  Reader salt;
  uint32_t iterations;
  const PrfInfo* prf;
  const CipherInfo* cipher;
  Reader iv;
  Reader ciphertext;
};

// prf AlgorithmIdentifier DEFAULT algid-hmacWithSHA1 (RFC 8018 A.2), its
// parameters NULL or (as some writers do) absent.
int read_prf(Reader* r, const PrfInfo** prf) {
  *prf = &kPrfs[0];
  if (!r->next_tag_is(der::kSequence)) return KS_OK;
  Reader alg, oid, null;
  KS_RETURN_IF_ERROR(pkix::read(r, der::kSequence, &alg));
  KS_RETURN_IF_ERROR(pkix::read(&alg, der::kOid, &oid));
  *prf = find_by_oid(kPrfs, oid);
  if (*prf == nullptr) return KS_ERR_PBES2_UNSUPPORTED;
  if (alg.next_tag_is(kNull)) KS_RETURN_IF_ERROR(pkix::read(&alg, kNull, &null));
  return pkix::to_status(alg.finish());
}

// PBKDF2-params ::= SEQUENCE { salt OCTET STRING, iterationCount INTEGER,
//   keyLength INTEGER OPTIONAL, prf AlgorithmIdentifier DEFAULT ... }
int read_pbkdf2(Reader* r, Parsed* p, uint32_t* key_len) {
  Reader alg, params;
  KS_RETURN_IF_ERROR(pkix::read(r, der::kSequence, &alg));
  if (pkix::expect_oid(&alg, pkix::oid(kOidPbkdf2)) != KS_OK) return KS_ERR_PBES2_UNSUPPORTED;
  KS_RETURN_IF_ERROR(pkix::read(&alg, der::kSequence, &params));
  KS_RETURN_IF_ERROR(pkix::to_status(alg.finish()));
  KS_RETURN_IF_ERROR(pkix::read(&params, der::kOctetString, &p->salt));
  uint8_t be[4];
  KS_RETURN_IF_ERROR(pkix::to_status(params.read_unsigned(be, 4)));
  p->iterations = load_be32(be);
  *key_len = 0;
  if (params.next_tag_is(der::kInteger)) {
    KS_RETURN_IF_ERROR(pkix::to_status(params.read_unsigned(be, 4)));
    *key_len = load_be32(be);
  }
  KS_RETURN_IF_ERROR(read_prf(&params, &p->prf));
  return pkix::to_status(params.finish());
}

// encryptionScheme: a CBC cipher whose parameters are the 16-byte IV.
int read_cipher(Reader* r, Parsed* p) {
  Reader alg, oid;
  KS_RETURN_IF_ERROR(pkix::read(r, der::kSequence, &alg));
  KS_RETURN_IF_ERROR(pkix::read(&alg, der::kOid, &oid));
  p->cipher = find_by_oid(kCiphers, oid);
  if (p->cipher == nullptr) return KS_ERR_PBES2_UNSUPPORTED;
  KS_RETURN_IF_ERROR(pkix::read(&alg, der::kOctetString, &p->iv));
  if (p->iv.remaining() != kBlock) return KS_ERR_PBES2_UNSUPPORTED;
  return pkix::to_status(alg.finish());
}

// EncryptedPrivateKeyInfo ::= SEQUENCE { encryptionAlgorithm
//   AlgorithmIdentifier {PBES2, PBES2-params}, encryptedData OCTET STRING }
// PBES2-params ::= SEQUENCE { keyDerivationFunc, encryptionScheme }
int parse(const uint8_t* der, size_t len, uint32_t max_iterations, Parsed* p) {
  Reader top(der, len), seq, alg, params;
  KS_RETURN_IF_ERROR(pkix::read(&top, der::kSequence, &seq));
  KS_RETURN_IF_ERROR(pkix::to_status(top.finish()));
  KS_RETURN_IF_ERROR(pkix::read(&seq, der::kSequence, &alg));
  KS_RETURN_IF_ERROR(pkix::read(&seq, der::kOctetString, &p->ciphertext));
  KS_RETURN_IF_ERROR(pkix::to_status(seq.finish()));
  if (pkix::expect_oid(&alg, pkix::oid(kOidPbes2)) != KS_OK) return KS_ERR_PBES2_UNSUPPORTED;
  KS_RETURN_IF_ERROR(pkix::read(&alg, der::kSequence, &params));
  KS_RETURN_IF_ERROR(pkix::to_status(alg.finish()));
  uint32_t key_len;
  KS_RETURN_IF_ERROR(read_pbkdf2(&params, p, &key_len));
  KS_RETURN_IF_ERROR(read_cipher(&params, p));
  KS_RETURN_IF_ERROR(pkix::to_status(params.finish()));
  if (p->iterations == 0) return KS_ERR_PBES2_UNSUPPORTED;  // RFC 8018 A.2: 1..MAX
  // PBKDF2's cost is linear in the count (RFC 8018 5.2), which the file's
  // author chose: the reader's maximum bounds the work it lets them ask.
  if (p->iterations > (max_iterations < kMaxIterations ? max_iterations : kMaxIterations))
    return KS_ERR_PBES2_ITERATIONS;
  if (key_len != 0 && key_len != p->cipher->key_len) return KS_ERR_PBES2_UNSUPPORTED;
  if (p->ciphertext.remaining() == 0 || p->ciphertext.remaining() % kBlock != 0)
    return KS_ERR_LENGTH;
  return KS_OK;
}

void derive_key(Prf prf, const uint8_t* password, size_t password_len, const uint8_t* salt,
                size_t salt_len, uint32_t iterations, uint8_t* key, size_t key_len) {
  switch (prf) {
    case Prf::kHmacSha1:
      return pbkdf2<Sha1>(password, password_len, salt, salt_len, iterations, key, key_len);
    case Prf::kHmacSha256:
      return pbkdf2<Sha256>(password, password_len, salt, salt_len, iterations, key, key_len);
    case Prf::kHmacSm3:
      return pbkdf2<sm3::Sm3>(password, password_len, salt, salt_len, iterations, key, key_len);
  }
}

// CBC over the cipher's BlockCipher under a derived key; the expanded key
// is wiped before returning.
void cbc(Cipher cipher, bool encrypt, const uint8_t* key, size_t key_len, const uint8_t iv[16],
         const uint8_t* in, uint8_t* out, size_t len) {
  uint8_t chain[kBlock];
  memcpy(chain, iv, kBlock);
  if (cipher == Cipher::kSm4Cbc) {
    sm4::Key k;
    sm4::set_key(&k, key);
    (encrypt ? modes::cbc_encrypt : modes::cbc_decrypt)(sm4::block_cipher(), &k, chain, in, out,
                                                        len);
    sm4::wipe_key(&k);
  } else {
    aes::Key k;
    aes::set_key(&k, key, key_len);
    (encrypt ? modes::cbc_encrypt : modes::cbc_decrypt)(aes::block_cipher(), &k, chain, in, out,
                                                        len);
    aes::wipe_key(&k);
  }
}

// A wrong key almost never leaves valid PKCS#7 padding followed by exactly
// one DER SEQUENCE; the few that pass the padding fail here.
bool is_one_sequence(const Bytes& plain) {
  Reader r(plain.data(), plain.size()), body;
  return r.read(der::kSequence, &body) == der::Error::kOk && r.finish() == der::Error::kOk;
}

}  // namespace

int decrypt(const uint8_t* der, size_t len, const uint8_t* password, size_t password_len,
            uint32_t max_iterations, Bytes* plain) {
  Parsed p;
  KS_RETURN_IF_ERROR(parse(der, len, max_iterations, &p));
  uint8_t key[kMaxKeyBytes];
  derive_key(p.prf->prf, password, password_len, p.salt.data(), p.salt.remaining(), p.iterations,
             key, p.cipher->key_len);
  const size_t n = p.ciphertext.remaining();
  plain->assign(n, 0);
  cbc(p.cipher->cipher, false, key, p.cipher->key_len, p.iv.data(), p.ciphertext.data(),
      plain->data(), n);
  secure_wipe(key, sizeof key);
  size_t pad = modes::pkcs7_padding_length(plain->data() + n - kBlock);
  ct_declassify(&pad, sizeof pad);  // the verdict is public (its timing was not)
  plain->resize(n - (pad == 0 ? 0 : pad));  // Bytes wipes what it drops
  // The SEQUENCE's tag and length octets are format, not key: public, like
  // the padding's verdict (the key's own decoder reads them next anyway).
  ct_declassify(plain->data(), plain->size() < 4 ? plain->size() : 4);
  if (pad == 0 || !is_one_sequence(*plain)) {
    plain->clear();
    return KS_ERR_WRONG_PASSPHRASE;
  }
  return KS_OK;
}

int encrypt(const uint8_t* plain, size_t len, const uint8_t* password, size_t password_len,
            const Params& params, Bytes* der) {
  const PrfInfo* prf = find(kPrfs, params.prf, &PrfInfo::prf);
  const CipherInfo* cipher = find(kCiphers, params.cipher, &CipherInfo::cipher);
  if (prf == nullptr || cipher == nullptr || params.iterations == 0 ||
      params.iterations > kMaxIterations)
    return KS_ERR_INVALID_ARGUMENT;
  uint8_t salt[kSaltBytes], iv[kBlock], key[kMaxKeyBytes];
  if (!os_random(salt, sizeof salt) || !os_random(iv, sizeof iv)) return KS_ERR_RANDOM;
  derive_key(params.prf, password, password_len, salt, sizeof salt, params.iterations, key,
             cipher->key_len);
  // PKCS#7 (RFC 8018 6.2.1 step 4): 1 to 16 bytes of padding.
  const size_t whole = len - len % kBlock;
  Bytes padded(plain, plain + whole);
  uint8_t last[kBlock];
  modes::pkcs7_last_block(plain + whole, len % kBlock, last);
  padded.insert(padded.end(), last, last + kBlock);
  secure_wipe(last, sizeof last);
  Bytes ciphertext(padded.size());
  cbc(params.cipher, true, key, cipher->key_len, iv, padded.data(), ciphertext.data(),
      padded.size());
  secure_wipe(key, sizeof key);

  Bytes kdf_params, prf_alg, kdf, scheme, pbes2_params, alg, body;
  der::write(&kdf_params, der::kOctetString, salt, sizeof salt);
  uint8_t be[4];
  store_be32(be, params.iterations);
  der::write_unsigned(&kdf_params, be, 4);
  if (params.prf != Prf::kHmacSha1) {  // the DEFAULT is left out (X.690 11.5)
    der::write(&prf_alg, der::kOid, prf->oid.bytes, prf->oid.len);
    der::write(&prf_alg, kNull, nullptr, 0);
    der::write(&kdf_params, der::kSequence, prf_alg);
  }
  der::write(&kdf, der::kOid, kOidPbkdf2, sizeof kOidPbkdf2);
  der::write(&kdf, der::kSequence, kdf_params);
  der::write(&scheme, der::kOid, cipher->oid.bytes, cipher->oid.len);
  der::write(&scheme, der::kOctetString, iv, sizeof iv);
  der::write(&pbes2_params, der::kSequence, kdf);
  der::write(&pbes2_params, der::kSequence, scheme);
  der::write(&alg, der::kOid, kOidPbes2, sizeof kOidPbes2);
  der::write(&alg, der::kSequence, pbes2_params);
  der::write(&body, der::kSequence, alg);
  der::write(&body, der::kOctetString, ciphertext);
  der->clear();
  der::write(der, der::kSequence, body);
  return KS_OK;
}

}  // namespace pbes2
}  // namespace ks
