// Password-encrypted PKCS#8 and what it is built from: SHA-256, SHA-1,
// HMAC, PBKDF2 and AES against their standards' vectors (FIPS 180-4
// examples, RFC 4231, RFC 6070, RFC 7914 section 11, FIPS 197 appendix C)
// and against OpenSSL's libcrypto on fresh random inputs; then PBES2 both
// ways with OpenSSL (its PKCS#8 writer and reader, AES and SM4-CBC), our
// own SM3/SM4 scheme, and the errors: wrong passphrase, damaged or cut
// structure, unsupported schemes, hostile iteration counts.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cipher/aes.h"
#include "hash/hmac.h"
#include "hash/pbkdf2.h"
#include "hash/sha256.h"
#include "sm3/sm3.h"
#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks_test::from_hex;
using ks_test::random_bytes;

Bytes text(const char* s) { return Bytes(s, s + strlen(s)); }

template <class H>
Bytes digest(const Bytes& m) {
  Bytes out(H::kDigestBytes);
  H::digest(m.data(), m.size(), out.data());
  return out;
}

TEST(Sha256, Fips180Examples) {
  EXPECT_EQ(digest<ks::Sha256>(text("abc")),
            from_hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  EXPECT_EQ(digest<ks::Sha256>(Bytes()),
            from_hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  EXPECT_EQ(digest<ks::Sha256>(text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            from_hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  EXPECT_EQ(digest<ks::Sha1>(text("abc")), from_hex("a9993e364706816aba3e25717850c26c9cd0d89d"));
  EXPECT_EQ(digest<ks::Sha1>(Bytes()), from_hex("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
}

// Lengths 0..300 in one call and in random pieces, against EVP_Digest.
TEST(Sha256, MatchesOpenSslOnRandomInputs) {
  std::mt19937 rng(std::random_device{}());
  for (size_t len = 0; len <= 300; ++len) {
    const Bytes m = random_bytes(len);
    Bytes want(32);
    unsigned n = 0;
    ASSERT_EQ(EVP_Digest(m.data(), len, want.data(), &n, EVP_sha256(), nullptr), 1);
    ks::Sha256 h;
    for (size_t at = 0; at < len;) {
      const size_t take = std::min<size_t>(len - at, rng() % 70);
      h.update(m.data() + at, take);
      at += take;
    }
    Bytes got(32);
    h.finish(got.data());
    EXPECT_EQ(got, want) << "SHA-256 length " << len;
    want.resize(20);
    ASSERT_EQ(EVP_Digest(m.data(), len, want.data(), &n, EVP_sha1(), nullptr), 1);
    EXPECT_EQ(digest<ks::Sha1>(m), want) << "SHA-1 length " << len;
  }
}

TEST(Hmac, Rfc4231AndOpenSsl) {
  Bytes tag(32);
  ks::Hmac<ks::Sha256>::mac(reinterpret_cast<const uint8_t*>("Jefe"), 4,
                            reinterpret_cast<const uint8_t*>("what do ya want for nothing?"), 28,
                            tag.data());
  EXPECT_EQ(tag, from_hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
  for (size_t key_len : {0, 1, 63, 64, 65, 200}) {  // around the block size
    const Bytes key = random_bytes(key_len), m = random_bytes(key_len * 3 + 1);
    struct Case {
      const EVP_MD* md;
      void (*ours)(const uint8_t*, size_t, const uint8_t*, size_t, uint8_t*);
      size_t len;
    } cases[] = {{EVP_sha256(), ks::Hmac<ks::Sha256>::mac, 32},
                 {EVP_sha1(), ks::Hmac<ks::Sha1>::mac, 20},
                 {EVP_sm3(), ks::Hmac<ks::sm3::Sm3>::mac, 32}};
    for (const Case& c : cases) {
      Bytes want(c.len), got(c.len);
      unsigned n = 0;
      ASSERT_NE(HMAC(c.md, key.data(), int(key.size()), m.data(), m.size(), want.data(), &n),
                nullptr);
      c.ours(key.data(), key.size(), m.data(), m.size(), got.data());
      EXPECT_EQ(got, want) << EVP_MD_get0_name(c.md) << " key length " << key_len;
    }
  }
}

TEST(Pbkdf2, Rfc6070AndRfc7914) {
  const Bytes p = text("password"), s = text("salt");
  Bytes dk(20);
  for (auto [c, hex] : {std::pair<uint32_t, const char*>{1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"},
                        {2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"},
                        {4096, "4b007901b765489abead49d926f721d065a429c1"}}) {
    ks::pbkdf2<ks::Sha1>(p.data(), p.size(), s.data(), s.size(), c, dk.data(), dk.size());
    EXPECT_EQ(dk, from_hex(hex)) << "c = " << c;
  }
  const Bytes pw = text("passwd");
  Bytes dk64(64);
  ks::pbkdf2<ks::Sha256>(pw.data(), pw.size(), s.data(), s.size(), 1, dk64.data(), 64);
  EXPECT_EQ(dk64, from_hex("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                           "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"));
}

TEST(Pbkdf2, MatchesOpenSslForEveryPrf) {
  for (const EVP_MD* md : {EVP_sha1(), EVP_sha256(), EVP_sm3()}) {
    for (size_t out_len : {1, 16, 32, 33, 70}) {
      const Bytes pw = random_bytes(out_len % 23), salt = random_bytes(16);
      const uint32_t iterations = 1 + out_len * 7;
      Bytes want(out_len), got(out_len);
      ASSERT_EQ(PKCS5_PBKDF2_HMAC(reinterpret_cast<const char*>(pw.data()), int(pw.size()),
                                  salt.data(), int(salt.size()), int(iterations), md,
                                  int(out_len), want.data()), 1);
      const std::string name = EVP_MD_get0_name(md);
      if (md == EVP_sha1())
        ks::pbkdf2<ks::Sha1>(pw.data(), pw.size(), salt.data(), 16, iterations, got.data(), out_len);
      else if (md == EVP_sha256())
        ks::pbkdf2<ks::Sha256>(pw.data(), pw.size(), salt.data(), 16, iterations, got.data(), out_len);
      else
        ks::pbkdf2<ks::sm3::Sm3>(pw.data(), pw.size(), salt.data(), 16, iterations, got.data(), out_len);
      EXPECT_EQ(got, want) << name << " out " << out_len;
    }
  }
}

TEST(Aes, Fips197AppendixC) {
  const Bytes pt = from_hex("00112233445566778899aabbccddeeff");
  const std::pair<size_t, const char*> cases[] = {{16, "69c4e0d86a7b0430d8cdb78070b4c55a"},
                                                  {24, "dda97ca4864cdfe06eaf70a0ec0d7191"},
                                                  {32, "8ea2b7ca516745bfeafc49904b496089"}};
  for (auto [len, hex] : cases) {
    Bytes key(len);
    for (size_t i = 0; i < len; ++i) key[i] = uint8_t(i);
    ks::aes::Key k;
    ASSERT_TRUE(ks::aes::set_key(&k, key.data(), len));
    Bytes ct(16), back(16);
    ks::aes::encrypt_blocks(k, pt.data(), ct.data(), 1);
    EXPECT_EQ(ct, from_hex(hex)) << len * 8 << "-bit key";
    ks::aes::decrypt_blocks(k, ct.data(), back.data(), 1);
    EXPECT_EQ(back, pt);
  }
  ks::aes::Key k;
  EXPECT_FALSE(ks::aes::set_key(&k, pt.data(), 15));
  EXPECT_FALSE(ks::aes::set_key(&k, pt.data(), 0));
}

TEST(Aes, MatchesOpenSslOnRandomKeysAndBlocks) {
  const EVP_CIPHER* ciphers[] = {EVP_aes_128_ecb(), EVP_aes_192_ecb(), EVP_aes_256_ecb()};
  for (int i = 0; i < 3; ++i) {
    const size_t key_len = 16 + 8 * size_t(i);
    for (int trial = 0; trial < 20; ++trial) {
      const Bytes key = random_bytes(key_len), pt = random_bytes(16 * 5);
      Bytes want(pt.size() + 16), got(pt.size()), back(pt.size());
      EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
      int n = 0;
      ASSERT_EQ(EVP_EncryptInit_ex(ctx, ciphers[i], nullptr, key.data(), nullptr), 1);
      EVP_CIPHER_CTX_set_padding(ctx, 0);
      ASSERT_EQ(EVP_EncryptUpdate(ctx, want.data(), &n, pt.data(), int(pt.size())), 1);
      EVP_CIPHER_CTX_free(ctx);
      want.resize(pt.size());
      ks::aes::Key k;
      ASSERT_TRUE(ks::aes::set_key(&k, key.data(), key_len));
      ks::aes::encrypt_blocks(k, pt.data(), got.data(), 5);
      EXPECT_EQ(got, want) << key_len * 8 << "-bit key";
      ks::aes::decrypt_blocks(k, got.data(), back.data(), 5);
      EXPECT_EQ(back, pt);
    }
  }
}

// --- PBES2 -----------------------------------------------------------------

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

// The PrivateKeyInfo DER OpenSSL writes for k (what decryption must give).
Bytes openssl_pkcs8(EVP_PKEY* k) {
  PKCS8_PRIV_KEY_INFO* p8 = EVP_PKEY2PKCS8(k);
  unsigned char* der = nullptr;
  const int n = i2d_PKCS8_PRIV_KEY_INFO(p8, &der);
  Bytes out(der, der + (n > 0 ? n : 0));
  OPENSSL_free(der);
  PKCS8_PRIV_KEY_INFO_free(p8);
  return out;
}

// OpenSSL's EncryptedPrivateKeyInfo for k (PBES2, PBKDF2-HMAC-SHA256).
Bytes openssl_encrypt(EVP_PKEY* k, const EVP_CIPHER* cipher, const std::string& pass) {
  BIO* bio = BIO_new(BIO_s_mem());
  EXPECT_EQ(i2d_PKCS8PrivateKey_bio(bio, k, cipher, nullptr, 0, nullptr,
                                    const_cast<char*>(pass.c_str())), 1);
  char* p = nullptr;
  const long n = BIO_get_mem_data(bio, &p);
  Bytes out(p, p + n);
  BIO_free(bio);
  return out;
}

Pkey openssl_decrypt(const Bytes& der, const std::string& pass) {
  BIO* bio = BIO_new_mem_buf(der.data(), int(der.size()));
  EVP_PKEY* k = d2i_PKCS8PrivateKey_bio(bio, nullptr, nullptr, const_cast<char*>(pass.c_str()));
  BIO_free(bio);
  return Pkey(k);
}

int decrypt(const Bytes& in, const std::string& pass, Bytes* out) {
  out->assign(in.size() + 1, 0);
  size_t n = 0;
  const int rc = ks_pkcs8_decrypt(in.data(), in.size(), reinterpret_cast<const uint8_t*>(pass.data()),
                                  pass.size(), out->data(), out->size(), &n);
  out->resize(rc == KS_OK ? n : 0);
  return rc;
}

Bytes encrypt(const Bytes& der, const std::string& pass, int scheme, uint32_t iterations,
              int pem = 0) {
  Bytes out(2 * der.size() + 512);
  size_t n = 0;
  EXPECT_EQ(ks_pkcs8_encrypt(der.data(), der.size(), reinterpret_cast<const uint8_t*>(pass.data()),
                             pass.size(), scheme, iterations, pem, out.data(), out.size(), &n),
            KS_OK);
  out.resize(n);
  return out;
}

TEST(Pbes2, ReadsWhatOpenSslWrites) {
  const std::string pass = "correct horse " + std::to_string(ks_test::random_u32());
  for (const char* alg : {"SM2", "ED25519", "X25519"}) {
    Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, alg));
    ASSERT_TRUE(k);
    for (const EVP_CIPHER* c : {EVP_aes_256_cbc(), EVP_aes_128_cbc(), EVP_aes_192_cbc(),
                                EVP_sm4_cbc()}) {
      const Bytes enc = openssl_encrypt(k.get(), c, pass);
      Bytes plain;
      ASSERT_EQ(decrypt(enc, pass, &plain), KS_OK) << alg << " " << EVP_CIPHER_get0_name(c);
      EXPECT_EQ(plain, openssl_pkcs8(k.get())) << alg << " " << EVP_CIPHER_get0_name(c);
      EXPECT_EQ(decrypt(enc, pass + "x", &plain), KS_ERR_WRONG_PASSPHRASE);
      EXPECT_EQ(decrypt(enc, "", &plain), KS_ERR_WRONG_PASSPHRASE);
    }
  }
}

TEST(Pbes2, OpenSslReadsWhatWeWrite) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2"));
  const Bytes der = openssl_pkcs8(k.get());
  const std::string pass = "p\xc3\xa4ss " + std::to_string(ks_test::random_u32());
  for (int scheme : {KS_PBES2_AES256_SHA256, KS_PBES2_AES128_SHA256}) {
    const Bytes enc = encrypt(der, pass, scheme, 2048);
    Pkey back = openssl_decrypt(enc, pass);
    ASSERT_TRUE(back) << "scheme " << scheme;
    EXPECT_EQ(EVP_PKEY_eq(back.get(), k.get()), 1);
    EXPECT_FALSE(openssl_decrypt(enc, pass + "!")) << "OpenSSL took a wrong passphrase";
  }
}

// KS_PBES2_SM4_SHA256 (PBKDF2-HMAC-SHA256, SM4-CBC): what `openssl pkcs8
// -topk8 -v2 sm4-cbc -v2prf hmacWithSHA256` writes. OpenSSL reads ours, we
// read OpenSSL's with that PRF named explicitly.
TEST(Pbes2, Sm4WithSha256PrfBothWaysWithOpenSsl) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2"));
  const Bytes der = openssl_pkcs8(k.get());
  const std::string pass = "sm4 " + std::to_string(ks_test::random_u32());
  const Bytes prf_oid = from_hex("06082a864886f70d0209");  // hmacWithSHA256
  for (int pem : {0, 1}) {
    const Bytes enc = encrypt(der, pass, KS_PBES2_SM4_SHA256, 2048, pem);
    if (pem) {
      Bytes plain;
      ASSERT_EQ(decrypt(enc, pass, &plain), KS_OK);
      EXPECT_EQ(plain, der);
      continue;
    }
    // hmacWithSHA256 and sm4-cbc (GM/T 0006) named in the parameters.
    const Bytes sm4_oid = from_hex("06082a811ccf55016802");
    EXPECT_NE(std::search(enc.begin(), enc.end(), prf_oid.begin(), prf_oid.end()), enc.end());
    EXPECT_NE(std::search(enc.begin(), enc.end(), sm4_oid.begin(), sm4_oid.end()), enc.end());
    Pkey back = openssl_decrypt(enc, pass);
    ASSERT_TRUE(back) << "OpenSSL could not read KS_PBES2_SM4_SHA256";
    EXPECT_EQ(EVP_PKEY_eq(back.get(), k.get()), 1);
    EXPECT_FALSE(openssl_decrypt(enc, pass + "!")) << "OpenSSL took a wrong passphrase";
  }
  // OpenSSL's own (`-v2 sm4-cbc`, whose PRF is hmacWithSHA256 unless told
  // otherwise: the same bytes as `-v2prf hmacWithSHA256`).
  const Bytes theirs = openssl_encrypt(k.get(), EVP_sm4_cbc(), pass);
  ASSERT_NE(std::search(theirs.begin(), theirs.end(), prf_oid.begin(), prf_oid.end()),
            theirs.end());
  Bytes plain;
  ASSERT_EQ(decrypt(theirs, pass, &plain), KS_OK);
  EXPECT_EQ(plain, der);
  EXPECT_EQ(decrypt(theirs, pass + "x", &plain), KS_ERR_WRONG_PASSPHRASE);
}

// GmSSL's scheme (PBKDF2-HMAC-SM3, SM4-CBC), which OpenSSL 3.0 cannot read
// (no HMAC-SM3 PRF): round trips, with the PBKDF2 and SM4-CBC underneath
// checked against OpenSSL above and in test_sm4_modes.
TEST(Pbes2, Sm3Sm4RoundTripsAndPem) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2"));
  const Bytes der = openssl_pkcs8(k.get());
  for (int pem : {0, 1}) {
    const Bytes enc = encrypt(der, "12345678", KS_PBES2_SM4_SM3, 4096, pem);
    if (pem) {
      const std::string s(enc.begin(), enc.end());
      EXPECT_EQ(s.rfind("-----BEGIN ENCRYPTED PRIVATE KEY-----\n", 0), 0u);
    }
    Bytes plain;
    ASSERT_EQ(decrypt(enc, "12345678", &plain), KS_OK);
    EXPECT_EQ(plain, der);
    EXPECT_EQ(decrypt(enc, "12345679", &plain), KS_ERR_WRONG_PASSPHRASE);
    EXPECT_TRUE(plain.empty()) << "a wrong passphrase left bytes behind";
    ASSERT_EQ(decrypt(enc, "12345678", &plain), KS_OK);
    ks_sm2_key* key = nullptr;
    ASSERT_EQ(ks_sm2_key_decode(plain.data(), plain.size(), &key), KS_OK);
    ks_sm2_key_free(key);
  }
}

// Every cut of the structure and every single-byte change in the header
// (up to the IV) gives a clear error, never a crash. From the IV on, CBC
// is malleable and PBES2 has no MAC (RFC 8018 6.2): a change there either
// fails the padding or DER check or decrypts to other bytes, never to the
// key (the algorithm's own decoder then checks what it can).
TEST(Pbes2, DamagedFilesFailClearly) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  const Bytes der = openssl_pkcs8(k.get());
  const Bytes enc = encrypt(der, "pw", KS_PBES2_AES256_SHA256, 1);
  const Bytes oid_tlv = from_hex("060960864801650304012a");
  const size_t iv_at =
      size_t(std::search(enc.begin(), enc.end(), oid_tlv.begin(), oid_tlv.end()) - enc.begin()) +
      oid_tlv.size() + 2;
  ASSERT_LT(iv_at, enc.size());
  Bytes plain;
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    const Bytes part(enc.begin(), enc.begin() + long(cut));
    const int rc = decrypt(part, "pw", &plain);
    EXPECT_NE(rc, KS_OK) << "cut at " << cut;
    EXPECT_NE(rc, KS_ERR_WRONG_PASSPHRASE) << "cut at " << cut;
  }
  for (size_t at = 0; at < enc.size(); ++at) {
    Bytes bad = enc;
    bad[at] ^= 0x01;
    const int rc = decrypt(bad, "pw", &plain);
    EXPECT_STRNE(ks_strerror(rc), "unknown error code");
    if (at < iv_at)
      EXPECT_NE(rc, KS_OK) << "byte " << at;
    else
      EXPECT_TRUE(rc != KS_OK || plain != der) << "byte " << at;
  }
}

// A DER PBES2 header with the given PBKDF2 parameters and cipher OID
// around 16 bytes of ciphertext.
Bytes handmade(const Bytes& kdf_params, const Bytes& cipher_oid) {
  auto tlv = [](uint8_t tag, const Bytes& body) {
    Bytes out(2 + body.size());
    out[0] = tag;
    out[1] = uint8_t(body.size());  // short form: every part here is under 128 bytes
    std::copy(body.begin(), body.end(), out.begin() + 2);
    return out;
  };
  auto cat = [](std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  const Bytes kdf = tlv(0x30, cat({tlv(0x06, from_hex("2a864886f70d01050c")), tlv(0x30, kdf_params)}));
  const Bytes scheme = tlv(0x30, cat({tlv(0x06, cipher_oid), tlv(0x04, Bytes(16, 7))}));
  const Bytes alg = tlv(0x30, cat({tlv(0x06, from_hex("2a864886f70d01050d")),
                                   tlv(0x30, cat({kdf, scheme}))}));
  return tlv(0x30, cat({alg, tlv(0x04, Bytes(16, 9))}));
}

TEST(Pbes2, UnsupportedAndHostileParameters) {
  const Bytes salt = {0x04, 0x08, 1, 2, 3, 4, 5, 6, 7, 8};
  Bytes plain;
  auto params = [&](const Bytes& iterations, const Bytes& rest) {
    Bytes p = salt;
    p.insert(p.end(), iterations.begin(), iterations.end());
    p.insert(p.end(), rest.begin(), rest.end());
    return p;
  };
  const Bytes oid_aes128 = from_hex("608648016503040102");
  const Bytes two_k = from_hex("02020800");
  EXPECT_EQ(decrypt(handmade(params(two_k, {}), oid_aes128), "pw", &plain),
            KS_ERR_WRONG_PASSPHRASE);  // well formed: only the key is wrong
  EXPECT_EQ(decrypt(handmade(params(from_hex("020100"), {}), oid_aes128), "pw", &plain),
            KS_ERR_PBES2_UNSUPPORTED);  // zero iterations
  EXPECT_EQ(decrypt(handmade(params(from_hex("020400989681"), {}), oid_aes128), "pw", &plain),
            KS_ERR_PBES2_ITERATIONS);  // 10,000,001 iterations: refused before any work
  EXPECT_EQ(decrypt(handmade(params(from_hex("0205010000000000"), {}), oid_aes128), "pw", &plain),
            KS_ERR_DER_TOO_LARGE);
  EXPECT_EQ(decrypt(handmade(params(two_k, from_hex("020120")), oid_aes128), "pw", &plain),
            KS_ERR_PBES2_UNSUPPORTED);  // keyLength 32 for AES-128
  EXPECT_EQ(decrypt(handmade(params(two_k, from_hex("30080604000000000500")), oid_aes128), "pw",
                    &plain),
            KS_ERR_PBES2_UNSUPPORTED);  // an unknown PRF
  EXPECT_EQ(decrypt(handmade(params(two_k, {}), from_hex("2a864886f70d0307")), "pw", &plain),
            KS_ERR_PBES2_UNSUPPORTED);  // DES-EDE3-CBC
}

int decrypt_max(const Bytes& in, uint32_t max_iterations, Bytes* out) {
  out->assign(in.size() + 1, 0);
  size_t n = 0;
  const int rc = ks_pkcs8_decrypt_max(in.data(), in.size(), reinterpret_cast<const uint8_t*>("pw"),
                                      2, max_iterations, out->data(), out->size(), &n);
  out->resize(rc == KS_OK ? n : 0);
  return rc;
}

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Issue 42: a file at the old cap (10^7 iterations) cost 44 s of CPU, and
// no caller could lower it. The default maximum is 600,000 (what kuaisuo
// writes); a file above it is refused before any key derivation, with its
// own status; ks_pkcs8_decrypt_max takes the caller's maximum.
TEST(Pbes2, IterationMaximum) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  const Bytes der = openssl_pkcs8(k.get());
  const Bytes at_default = encrypt(der, "pw", KS_PBES2_AES128_SHA256,
                                   KS_PBES2_DEFAULT_MAX_ITERATIONS);
  Bytes plain;
  const double accept_s = seconds_of([&] { EXPECT_EQ(decrypt(at_default, "pw", &plain), KS_OK); });
  EXPECT_EQ(plain, der);
  EXPECT_EQ(decrypt_max(at_default, KS_PBES2_DEFAULT_MAX_ITERATIONS - 1, &plain),
            KS_ERR_PBES2_ITERATIONS);

  // 600,001 iterations (HMAC-SHA1, AES-128-CBC, a ciphertext no key opens).
  const Bytes salt = {0x04, 0x08, 1, 2, 3, 4, 5, 6, 7, 8}, count = from_hex("02030927c1");
  Bytes params = salt;
  params.insert(params.end(), count.begin(), count.end());
  const Bytes above = handmade(params, from_hex("608648016503040102"));
  const double refuse_s = seconds_of(
      [&] { EXPECT_EQ(decrypt(above, "pw", &plain), KS_ERR_PBES2_ITERATIONS); });
  EXPECT_LT(refuse_s * 10, accept_s) << "refused only after deriving the key";
  EXPECT_EQ(decrypt_max(above, 600001, &plain), KS_ERR_WRONG_PASSPHRASE);  // read, derived
  EXPECT_EQ(decrypt_max(above, KS_PBES2_ABSOLUTE_MAX_ITERATIONS + 1, &plain),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ks_strerror(KS_ERR_PBES2_ITERATIONS)).find("exceeds the maximum"),
            std::string::npos);
}

TEST(Pbes2, ArgumentsAndLabels) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2"));
  const Bytes der = openssl_pkcs8(k.get());
  size_t n = 0;
  uint8_t out[4096];
  const uint8_t pw[] = "pw";
  EXPECT_EQ(ks_pkcs8_encrypt(der.data(), der.size(), pw, 2, KS_PBES2_SM4_SHA256 + 1, 1, 0, out,
                             sizeof out, &n),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_pkcs8_encrypt(der.data(), der.size(), pw, 2, 0, 10000001, 0, out, sizeof out, &n),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_pkcs8_encrypt(der.data(), der.size(), nullptr, 2, 0, 1, 0, out, sizeof out, &n),
            KS_ERR_NULL_POINTER);
  const Bytes enc = encrypt(der, "pw", KS_PBES2_AES128_SHA256, 1);
  EXPECT_EQ(ks_pkcs8_decrypt(enc.data(), enc.size(), pw, 2, out, der.size() - 1, &n),
            KS_ERR_LENGTH);
  EXPECT_EQ(n, der.size());  // the size, for a second call
  EXPECT_EQ(ks_pkcs8_decrypt(enc.data(), enc.size(), pw, 2, out, sizeof out, nullptr),
            KS_ERR_NULL_POINTER);
  // A plain key where an encrypted one is expected, and the reverse.
  const std::string plain_pem = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  EXPECT_EQ(ks_pkcs8_decrypt(reinterpret_cast<const uint8_t*>(plain_pem.data()), plain_pem.size(),
                             pw, 2, out, sizeof out, &n),
            KS_ERR_PEM_NO_BLOCK);
  const Bytes pem = encrypt(der, "pw", KS_PBES2_AES128_SHA256, 1, 1);
  ks_sm2_key* key = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(pem.data(), pem.size(), &key), KS_ERR_PEM_ENCRYPTED);
  EXPECT_EQ(key, nullptr);
}

// Every private key decoder knows an EncryptedPrivateKeyInfo in DER as well
// as in PEM, and says it is encrypted (not a DER error), so that a caller
// needs no sniffing of its own to ask for a passphrase.
TEST(Pbes2, EveryKeyDecoderSaysDerIsEncrypted) {
  Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2"));
  const Bytes enc = encrypt(openssl_pkcs8(k.get()), "pw", KS_PBES2_AES128_SHA256, 1, 0);
  ASSERT_EQ(enc[0], 0x30);  // DER
  ks_sm2_key* sm2 = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(enc.data(), enc.size(), &sm2), KS_ERR_PEM_ENCRYPTED);
  ks_ed25519_key* ed = nullptr;
  EXPECT_EQ(ks_ed25519_key_decode(enc.data(), enc.size(), &ed), KS_ERR_PEM_ENCRYPTED);
  uint8_t raw[32];
  EXPECT_EQ(ks_x25519_private_key_decode(enc.data(), enc.size(), raw), KS_ERR_PEM_ENCRYPTED);
  EXPECT_EQ(ks_sm4_key_decode(enc.data(), enc.size(), raw), KS_ERR_PEM_ENCRYPTED);
  EXPECT_EQ(sm2, nullptr);
  EXPECT_EQ(ed, nullptr);
  // Its structure with another algorithm than PBES2 is not "encrypted".
  Bytes other = enc;
  const uint8_t pbes2_oid_tail[] = {0x01, 0x05, 0x0D};
  auto at = std::search(other.begin(), other.end(), pbes2_oid_tail, pbes2_oid_tail + 3);
  ASSERT_NE(at, other.end());
  at[2] = 0x0E;
  EXPECT_NE(ks_sm2_key_decode(other.data(), other.size(), &sm2), KS_ERR_PEM_ENCRYPTED);
}

}  // namespace
