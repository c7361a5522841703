// SM4 key files (ks_sm4_key_encode / _decode): the exact DER, PEM, the
// errors of every malformed shape, other algorithms' decoders refusing the
// file, and OpenSSL's generic PKCS#8 code as the independent reader and
// writer (PKCS8_PRIV_KEY_INFO parses any algorithm, and PKCS8_encrypt /
// PKCS8_decrypt protect it at rest, so both directions of the encrypted
// form are checked against it).
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <string.h>

#include <string>
#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

const Bytes kKey = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,
                    0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10};  // GB/T 32907 A.1

// 30 21 | 02 01 00 | 30 09 06 07 <1.2.156.10197.1.104> | 04 10 <key>
Bytes expected_der(const Bytes& key) {
  static const uint8_t kHead[] = {0x30, 0x20, 0x02, 0x01, 0x00, 0x30, 0x09, 0x06, 0x07,
                                  0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x68, 0x04, 0x10};
  Bytes der(sizeof kHead + key.size());
  memcpy(der.data(), kHead, sizeof kHead);
  memcpy(der.data() + sizeof kHead, key.data(), key.size());
  return der;
}

Bytes encode(const Bytes& key, int pem) {
  size_t len = 0;
  EXPECT_EQ(ks_sm4_key_encode(key.data(), pem, nullptr, 0, &len), KS_ERR_LENGTH);
  Bytes out(len + (pem ? 1 : 0));
  EXPECT_EQ(ks_sm4_key_encode(key.data(), pem, out.data(), out.size(), &len), KS_OK);
  out.resize(len);
  return out;
}

int decode(const Bytes& in, Bytes* key) {
  key->assign(16, 0xEE);
  return ks_sm4_key_decode(in.data(), in.size(), key->data());
}

TEST(Sm4KeyFile, EncodesTheExactDerAndPem) {
  EXPECT_EQ(encode(kKey, 0), expected_der(kKey));
  const Bytes pem = encode(kKey, 1);
  const std::string text(pem.begin(), pem.end());
  EXPECT_EQ(text.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u) << text;
  Bytes key;
  ASSERT_EQ(decode(pem, &key), KS_OK);
  EXPECT_EQ(key, kKey);
  ASSERT_EQ(decode(expected_der(kKey), &key), KS_OK);
  EXPECT_EQ(key, kKey);
}

TEST(Sm4KeyFile, MalformedShapesGetTheirCodesAndLeaveTheKey) {
  const Bytes der = expected_der(kKey);
  struct Case {
    const char* what;
    Bytes input;
    int want;
  };
  Bytes short_key = der;  // a 15-byte key, lengths adjusted
  short_key.pop_back();
  short_key[1] = 0x1F;
  short_key[17] = 0x0F;
  Bytes other_oid = der;  // 1.2.156.10197.1.105
  other_oid[15] = 0x69;
  Bytes version_2 = der;
  version_2[4] = 0x02;
  Bytes trailing = der;
  trailing.push_back(0x00);
  Bytes truncated(der.begin(), der.end() - 1);
  Bytes with_null_params = {0x30, 0x22, 0x02, 0x01, 0x00, 0x30, 0x0B, 0x06, 0x07, 0x2A, 0x81,
                            0x1C, 0xCF, 0x55, 0x01, 0x68, 0x05, 0x00, 0x04, 0x10};
  with_null_params.insert(with_null_params.end(), kKey.begin(), kKey.end());
  const Case cases[] = {
      {"empty", {}, KS_ERR_DER_TRUNCATED},
      {"15-byte key", short_key, KS_ERR_BAD_PRIVATE_KEY},
      {"another OID", other_oid, KS_ERR_KEY_ALGORITHM},
      {"version 2", version_2, KS_ERR_KEY_VERSION},
      {"trailing byte", trailing, KS_ERR_DER_TRAILING},
      {"truncated", truncated, KS_ERR_DER_TRUNCATED},
      {"NULL parameters", with_null_params, KS_ERR_DER_TRAILING},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Bytes key;
    const int rc = decode(c.input, &key);
    if (c.input.empty()) {
      EXPECT_LT(rc, 0);
    } else {
      EXPECT_EQ(rc, c.want) << ks_strerror(rc);
    }
    EXPECT_EQ(key, Bytes(16, 0xEE));
  }
  uint8_t key[16];
  EXPECT_EQ(ks_sm4_key_decode(nullptr, 5, key), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_key_decode(der.data(), der.size(), nullptr), KS_ERR_NULL_POINTER);
  size_t len = 0;
  EXPECT_EQ(ks_sm4_key_encode(nullptr, 0, key, sizeof key, &len), KS_ERR_NULL_POINTER);
}

TEST(Sm4KeyFile, OtherAlgorithmsRefuseItAndItRefusesThem) {
  const Bytes der = expected_der(kKey);
  ks_sm2_key* sm2 = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(der.data(), der.size(), &sm2), KS_ERR_KEY_ALGORITHM);
  ks_ed25519_key* ed = nullptr;
  EXPECT_EQ(ks_ed25519_key_decode(der.data(), der.size(), &ed), KS_ERR_KEY_ALGORITHM);

  ASSERT_EQ(ks_ed25519_key_generate(&ed), KS_OK);
  size_t len = 0;
  Bytes ed_der(128);
  ASSERT_EQ(ks_ed25519_key_encode(ed, 0, ed_der.data(), ed_der.size(), &len), KS_OK);
  ed_der.resize(len);
  ks_ed25519_key_free(ed);
  Bytes key;
  EXPECT_EQ(decode(ed_der, &key), KS_ERR_KEY_ALGORITHM);
}

// Texts of several PEM blocks (fuzz_sm4_key found the first): every
// private key decoder reads the same block, the first complete one with a
// private key label, so exactly one of them accepts and the others say
// KS_ERR_KEY_ALGORITHM, as a key store trying them in turn needs.
TEST(Sm4KeyFile, EveryDecoderReadsTheSameBlockOfAPemText) {
  const Bytes pem = encode(kKey, 1);
  const std::string ours(pem.begin(), pem.end());
  const std::string dangling = "-----BEGIN SM2 PRIVATE KEY-----\nMIGH\n";
  const std::string enclosed = "-----BEGIN SM2 PRIVATE KEY-----\n" + ours +
                               "-----END SM2 PRIVATE KEY-----\n";
  for (const std::string& text : {dangling + ours, enclosed, "junk\n" + dangling + ours}) {
    const Bytes in(text.begin(), text.end());
    Bytes key;
    EXPECT_EQ(decode(in, &key), KS_OK) << text;
    EXPECT_EQ(key, kKey);
    ks_sm2_key* sm2 = nullptr;
    EXPECT_EQ(ks_sm2_key_decode(in.data(), in.size(), &sm2), KS_ERR_KEY_ALGORITHM) << text;
    ks_ed25519_key* ed = nullptr;
    EXPECT_EQ(ks_ed25519_key_decode(in.data(), in.size(), &ed), KS_ERR_KEY_ALGORITHM) << text;
  }
  const Bytes alone(dangling.begin(), dangling.end());
  Bytes key;
  EXPECT_EQ(decode(alone, &key), KS_ERR_PEM_NO_END);

  // A complete SM2 block first: the SM2 key is the file's key.
  ks_sm2_key* sm2 = nullptr;
  ASSERT_EQ(ks_sm2_key_generate(&sm2), KS_OK);
  size_t len = 0;
  Bytes sm2_pem(512);
  ASSERT_EQ(ks_sm2_key_encode(sm2, 1, sm2_pem.data(), sm2_pem.size(), &len), KS_OK);
  ks_sm2_key_free(sm2);
  const std::string sm2_text(sm2_pem.begin(), sm2_pem.begin() + len);
  const std::string both = sm2_text + ours;
  const Bytes in(both.begin(), both.end());
  EXPECT_EQ(ks_sm2_key_decode(in.data(), in.size(), &sm2), KS_OK);
  ks_sm2_key_free(sm2);
  EXPECT_EQ(decode(in, &key), KS_ERR_KEY_ALGORITHM);
  const std::string ec_text =
      "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n" + ours;
  const Bytes ec_first(ec_text.begin(), ec_text.end());
  EXPECT_EQ(decode(ec_first, &key), KS_ERR_KEY_ALGORITHM);
}

// OpenSSL reads our DER as a PrivateKeyInfo of OID 1.2.156.10197.1.104
// holding the key, and the DER it writes for the same content is ours.
TEST(Sm4KeyFile, OpenSslReadsAndWritesTheSameDer) {
  const Bytes der = encode(kKey, 0);
  const unsigned char* p = der.data();
  PKCS8_PRIV_KEY_INFO* info = d2i_PKCS8_PRIV_KEY_INFO(nullptr, &p, long(der.size()));
  ASSERT_NE(info, nullptr);
  const ASN1_OBJECT* oid = nullptr;
  const unsigned char* octets = nullptr;
  int octets_len = 0;
  ASSERT_EQ(PKCS8_pkey_get0(&oid, &octets, &octets_len, nullptr, info), 1);
  char text[64];
  OBJ_obj2txt(text, sizeof text, oid, 1);
  EXPECT_STREQ(text, "1.2.156.10197.1.104");
  EXPECT_EQ(Bytes(octets, octets + octets_len), kKey);
  unsigned char* reencoded = nullptr;
  const int n = i2d_PKCS8_PRIV_KEY_INFO(info, &reencoded);
  ASSERT_GT(n, 0);
  EXPECT_EQ(Bytes(reencoded, reencoded + n), der);
  OPENSSL_free(reencoded);
  PKCS8_PRIV_KEY_INFO_free(info);
}

// At rest: ours encrypted (PBKDF2-HMAC-SHA256 + AES-256-CBC; OpenSSL has no
// HMAC-SM3 PRF for PBES2, test_pbes2 round-trips that scheme) is what
// OpenSSL's PKCS8_decrypt opens, and OpenSSL's encryption with SM4-CBC is
// what ks_pkcs8_decrypt opens.
TEST(Sm4KeyFile, EncryptedAtRestBothWaysWithOpenSsl) {
  const Bytes der = encode(kKey, 0);
  const char pass[] = "correct horse";
  size_t len = 0;
  Bytes locked(2 * der.size() + 512);
  ASSERT_EQ(ks_pkcs8_encrypt(der.data(), der.size(), reinterpret_cast<const uint8_t*>(pass),
                             strlen(pass), KS_PBES2_AES256_SHA256, 1000, 0, locked.data(),
                             locked.size(), &len),
            KS_OK);
  locked.resize(len);
  const unsigned char* p = locked.data();
  X509_SIG* sig = d2i_X509_SIG(nullptr, &p, long(locked.size()));
  ASSERT_NE(sig, nullptr);
  PKCS8_PRIV_KEY_INFO* info = PKCS8_decrypt(sig, pass, int(strlen(pass)));
  ASSERT_NE(info, nullptr);
  unsigned char* plain = nullptr;
  const int n = i2d_PKCS8_PRIV_KEY_INFO(info, &plain);
  EXPECT_EQ(Bytes(plain, plain + n), der);
  OPENSSL_free(plain);

  X509_SIG* theirs = PKCS8_encrypt(-1, EVP_sm4_cbc(), pass, int(strlen(pass)), nullptr, 0,
                                   1000, info);
  ASSERT_NE(theirs, nullptr);
  unsigned char* theirs_der = nullptr;
  const int m = i2d_X509_SIG(theirs, &theirs_der);
  Bytes opened(static_cast<size_t>(m));
  ASSERT_EQ(ks_pkcs8_decrypt(theirs_der, size_t(m), reinterpret_cast<const uint8_t*>(pass),
                             strlen(pass), opened.data(), opened.size(), &len),
            KS_OK);
  opened.resize(len);
  Bytes key;
  ASSERT_EQ(decode(opened, &key), KS_OK);
  EXPECT_EQ(key, kKey);
  OPENSSL_free(theirs_der);
  X509_SIG_free(theirs);
  X509_SIG_free(sig);
  PKCS8_PRIV_KEY_INFO_free(info);
}

TEST(Sm4KeyFile, RandomKeysRoundTrip) {
  for (int i = 0; i < 200; ++i) {
    const Bytes k = ks_test::random_bytes(16);
    Bytes key;
    ASSERT_EQ(decode(encode(k, i & 1), &key), KS_OK);
    ASSERT_EQ(key, k);
  }
}

}  // namespace
