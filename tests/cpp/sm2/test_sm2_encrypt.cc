// SM2 encryption (GB/T 32918.4-2016) and the SM3 KDF: the known answer of
// OpenSSL's test suite (d, k and the ciphertext fixed), OpenSSL libcrypto
// as the independent implementation both ways (EVP_PKEY_encrypt/decrypt,
// which read and write the DER form; its X9.63 KDF over SM3 with no shared
// info is the same KDF), all three forms, empty and megabyte messages, and
// every kind of bad ciphertext refused with nothing released.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>

#include <string.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "sm2/sm2_encrypt.h"
#include "test_util.h"

using Bytes = std::vector<uint8_t>;
using ks_test::from_hex;

namespace {

const int kForms[] = {KS_SM2_C1C3C2, KS_SM2_C1C2C3, KS_SM2_CIPHER_DER};

struct Keys {
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  EVP_PKEY* evp = nullptr;  // the same key in OpenSSL
  explicit Keys(const Bytes& d = {}) {
    EXPECT_EQ(d.empty() ? ks_sm2_key_generate(&key) : ks_sm2_key_from_bytes(d.data(), d.size(), &key),
              KS_OK);
    EXPECT_EQ(ks_sm2_key_public(key, &pub), KS_OK);
    Bytes pem(512);
    size_t n = 0;
    EXPECT_EQ(ks_sm2_key_encode(key, 1, pem.data(), pem.size(), &n), KS_OK);
    BIO* bio = BIO_new_mem_buf(pem.data(), int(n));
    evp = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    EXPECT_NE(evp, nullptr);
  }
  ~Keys() {
    ks_sm2_key_free(key);
    ks_sm2_pubkey_free(pub);
    EVP_PKEY_free(evp);
  }
};

Bytes encrypt(const Keys& k, int form, const Bytes& msg) {
  Bytes out(ks_sm2_ciphertext_bound(msg.size(), form));
  size_t n = 0;
  EXPECT_EQ(ks_sm2_encrypt(k.pub, form, msg.data(), msg.size(), out.data(), out.size(), &n),
            KS_OK);
  out.resize(n);
  return out;
}

int decrypt(const Keys& k, int form, const Bytes& ct, Bytes* msg) {
  msg->assign(ct.size() + 1, 0x5a);
  size_t n = 0;
  const int rc = ks_sm2_decrypt(k.key, form, ct.data(), ct.size(), msg->data(), msg->size(), &n);
  msg->resize(rc == KS_OK ? n : msg->size());
  return rc;
}

// OpenSSL's EVP_PKEY_encrypt / decrypt (SM3, the DER form).
Bytes openssl_crypt(EVP_PKEY* k, bool enc, const Bytes& in, bool* ok) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new(k, nullptr);
  size_t n = 0;
  *ok = c != nullptr && (enc ? EVP_PKEY_encrypt_init(c) : EVP_PKEY_decrypt_init(c)) == 1 &&
        (enc ? EVP_PKEY_encrypt(c, nullptr, &n, in.data(), in.size())
             : EVP_PKEY_decrypt(c, nullptr, &n, in.data(), in.size())) == 1;
  Bytes out(n);
  *ok = *ok && (enc ? EVP_PKEY_encrypt(c, out.data(), &n, in.data(), in.size())
                    : EVP_PKEY_decrypt(c, out.data(), &n, in.data(), in.size())) == 1;
  EVP_PKEY_CTX_free(c);
  out.resize(*ok ? n : 0);
  return out;
}

TEST(Sm3Kdf, IsX963KdfOverSm3WithoutSharedInfo) {
  std::mt19937 rng(71);
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "X963KDF", nullptr);
  ASSERT_NE(kdf, nullptr);
  for (size_t z_len : {0, 1, 64, 100}) {
    for (size_t klen : {1, 16, 31, 32, 33, 64, 1000}) {
      const Bytes z = ks_test::random_bytes(rng, z_len);
      Bytes ours(klen), theirs(klen);
      ASSERT_EQ(ks_sm3_kdf(z.data(), z.size(), ours.data(), klen), KS_OK);
      EVP_KDF_CTX* c = EVP_KDF_CTX_new(kdf);
      char digest[] = "SM3";
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
          OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(z.data()),
                                            z.size()),
          OSSL_PARAM_construct_end()};
      const int derived = EVP_KDF_derive(c, theirs.data(), klen, params);
      EVP_KDF_CTX_free(c);
      if (z_len == 0 && derived != 1) continue;  // OpenSSL refuses an empty secret
      ASSERT_EQ(derived, 1);
      ASSERT_EQ(ours, theirs) << "z_len " << z_len << " klen " << klen;
    }
  }
  EVP_KDF_free(kdf);
  uint8_t out[4];
  EXPECT_EQ(ks_sm3_kdf(nullptr, 1, out, 4), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm3_kdf(out, 4, out + 2, 2), KS_ERR_INVALID_ARGUMENT);  // overlap
  EXPECT_EQ(ks_sm3_kdf(out, 0, nullptr, 0), KS_OK);
}

// OpenSSL test/sm2_internal_test.c, sm2_crypt_test: the recommended curve,
// d and k fixed, M = "encryption standard".
TEST(Sm2Encrypt, OpenSslKnownAnswer) {
  const Bytes d = from_hex("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
  const Bytes k = from_hex("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
  const std::string m = "encryption standard";
  const Bytes msg(m.begin(), m.end());
  const Bytes c1 = from_hex(
      "04"
      "04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
      "E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0");
  const Bytes c3 = from_hex("59983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766");
  const Bytes c2 = from_hex("21886CA989CA9C7D58087307CA93092D651EFA");
  Keys keys(d);
  ks::sm2::PublicKey pub;
  Bytes point(65);
  size_t n = 0;
  ASSERT_EQ(ks_sm2_pubkey_to_bytes(keys.pub, 0, point.data(), point.size(), &n), KS_OK);
  ASSERT_EQ(ks::sm2::public_key_from_bytes(pub, point.data(), n), ks::sm2::Error::kOk);
  Bytes want = c1;
  want.insert(want.end(), c3.begin(), c3.end());
  want.insert(want.end(), c2.begin(), c2.end());
  Bytes out(want.size());
  ASSERT_EQ(ks::sm2::encrypt(pub, msg.data(), msg.size(), ks::sm2::CipherForm::kC1C3C2,
                             out.data(), out.size(), &n, k.data()),
            ks::sm2::Error::kOk);
  ASSERT_EQ(n, want.size());
  EXPECT_EQ(out, want);
  Bytes back;
  ASSERT_EQ(decrypt(keys, KS_SM2_C1C3C2, want, &back), KS_OK);
  EXPECT_EQ(back, msg);
  // The 2012 order is the same parts: C1 || C2 || C3.
  Bytes old = c1;
  old.insert(old.end(), c2.begin(), c2.end());
  old.insert(old.end(), c3.begin(), c3.end());
  ASSERT_EQ(decrypt(keys, KS_SM2_C1C2C3, old, &back), KS_OK);
  EXPECT_EQ(back, msg);
  // And OpenSSL opens its own DER form of it.
  bool ok = false;
  const Bytes der = [&] {
    Bytes o(ks_sm2_ciphertext_bound(msg.size(), KS_SM2_CIPHER_DER));
    EXPECT_EQ(ks::sm2::encrypt(pub, msg.data(), msg.size(), ks::sm2::CipherForm::kDer, o.data(),
                               o.size(), &n, k.data()),
              ks::sm2::Error::kOk);
    o.resize(n);
    return o;
  }();
  EXPECT_EQ(openssl_crypt(keys.evp, false, der, &ok), msg);
  EXPECT_TRUE(ok);
}

// Random keys and messages of many lengths (empty to 1 MiB), each way.
TEST(Sm2Encrypt, OpenSslBothWays) {
  std::mt19937 rng(73);
  std::vector<size_t> lengths = {0, 1, 31, 32, 33, 64, 100, 4095, 4096, 4097, 10000};
  if (!ks_test::kSanitized) lengths.push_back(size_t(1) << 20);
  for (size_t len : lengths) {
    SCOPED_TRACE("len " + std::to_string(len));
    Keys keys;
    const Bytes msg = ks_test::random_bytes(rng, len);
    bool ok = false;
    Bytes back;
    if (len > 0) {  // OpenSSL 3.0 refuses to encrypt an empty message
      const Bytes theirs = openssl_crypt(keys.evp, true, msg, &ok);
      ASSERT_TRUE(ok);
      ASSERT_EQ(decrypt(keys, KS_SM2_CIPHER_DER, theirs, &back), KS_OK);
      ASSERT_EQ(back, msg);
    }
    for (int form : kForms) {
      const Bytes ct = encrypt(keys, form, msg);
      ASSERT_LE(ct.size(), ks_sm2_ciphertext_bound(len, form));
      if (form != KS_SM2_CIPHER_DER) {
        ASSERT_EQ(ct.size(), len + KS_SM2_CIPHERTEXT_OVERHEAD);
      }
      ASSERT_EQ(decrypt(keys, form, ct, &back), KS_OK);
      ASSERT_EQ(back, msg);
      if (form == KS_SM2_CIPHER_DER && len > 0) {
        ASSERT_EQ(openssl_crypt(keys.evp, false, ct, &ok), msg);
        ASSERT_TRUE(ok);
      }
    }
    // Fresh k every time: the same message encrypts differently.
    EXPECT_NE(encrypt(keys, KS_SM2_C1C3C2, msg), encrypt(keys, KS_SM2_C1C3C2, msg));
  }
}

// A compressed C1 is read too (the raw forms).
// Encryption to a key with its comb table (ks_sm2_pubkey_precompute):
// OpenSSL decrypts what it makes, every form, as without the table.
TEST(Sm2Encrypt, ToAPrecomputedKeyOpenSslDecrypts) {
  Keys keys;
  ASSERT_EQ(ks_sm2_pubkey_precompute(keys.pub), KS_OK);
  ASSERT_EQ(ks_sm2_pubkey_precompute(keys.pub), KS_OK);  // idempotent
  std::mt19937 rng(5);
  for (size_t len : {0, 1, 64, 1000}) {
    Bytes msg(len);
    for (auto& b : msg) b = uint8_t(rng());
    for (int form : kForms) {
      const Bytes ct = encrypt(keys, form, msg);
      Bytes back;
      ASSERT_EQ(decrypt(keys, form, ct, &back), KS_OK);
      EXPECT_EQ(back, msg);
    }
    bool ok = false;
    const Bytes theirs = openssl_crypt(keys.evp, false, encrypt(keys, KS_SM2_CIPHER_DER, msg), &ok);
    if (len > 0) {  // OpenSSL refuses empty messages
      ASSERT_TRUE(ok) << len;
      EXPECT_EQ(theirs, msg);
    }
  }
}

TEST(Sm2Encrypt, CompressedC1IsAccepted) {
  Keys keys;
  const Bytes msg = {1, 2, 3, 4, 5};
  Bytes ct = encrypt(keys, KS_SM2_C1C3C2, msg);
  ks_sm2_pubkey* c1 = nullptr;
  ASSERT_EQ(ks_sm2_pubkey_from_bytes(ct.data(), 65, &c1), KS_OK);
  Bytes compressed(33);
  size_t n = 0;
  ASSERT_EQ(ks_sm2_pubkey_to_bytes(c1, 1, compressed.data(), compressed.size(), &n), KS_OK);
  ks_sm2_pubkey_free(c1);
  Bytes short_ct = compressed;
  short_ct.insert(short_ct.end(), ct.begin() + 65, ct.end());
  Bytes back;
  ASSERT_EQ(decrypt(keys, KS_SM2_C1C3C2, short_ct, &back), KS_OK);
  EXPECT_EQ(back, msg);
}

// Every kind of bad ciphertext: a clear error, and nothing of the
// plaintext left in the output.
TEST(Sm2Encrypt, BadCiphertextsReleaseNothing) {
  Keys keys, other;
  const Bytes msg(40, 0x61);
  Bytes back;
  auto expect_fail = [&](int form, const Bytes& ct, int want, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(decrypt(keys, form, ct, &back), want);
    for (size_t i = 0; i + 1 < back.size() && i < msg.size(); ++i)
      ASSERT_NE(back[i], 0x61) << "plaintext released";
  };
  for (int form : kForms) {
    SCOPED_TRACE("form " + std::to_string(form));
    const Bytes ct = encrypt(keys, form, msg);
    Bytes bad = ct;
    bad[bad.size() - 1] ^= 1;  // the last byte: C2 or C3
    expect_fail(form, bad, KS_ERR_CIPHERTEXT_MISMATCH, "a flipped bit");
    expect_fail(form, encrypt(other, form, msg), KS_ERR_CIPHERTEXT_MISMATCH, "another key");
    expect_fail(form, Bytes(ct.begin(), ct.end() - 1),
                form == KS_SM2_CIPHER_DER ? KS_ERR_BAD_CIPHERTEXT : KS_ERR_CIPHERTEXT_MISMATCH,
                "one byte short");
    Bytes longer = ct;
    longer.push_back(0);
    expect_fail(form, longer,
                form == KS_SM2_CIPHER_DER ? KS_ERR_BAD_CIPHERTEXT : KS_ERR_CIPHERTEXT_MISMATCH,
                "one byte more");
    expect_fail(form, Bytes(), KS_ERR_BAD_CIPHERTEXT, "empty");
    expect_fail(form, Bytes(ct.begin(), ct.begin() + 96), KS_ERR_BAD_CIPHERTEXT, "96 bytes");
  }
  // C1 off the curve, or the encoding of infinity, or a bad prefix.
  Bytes ct = encrypt(keys, KS_SM2_C1C3C2, msg);
  Bytes off = ct;
  off[64] ^= 1;  // y's last byte
  expect_fail(KS_SM2_C1C3C2, off, KS_ERR_BAD_CIPHERTEXT, "C1 off the curve");
  Bytes zero = ct;
  std::fill(zero.begin(), zero.begin() + 65, 0);
  expect_fail(KS_SM2_C1C3C2, zero, KS_ERR_BAD_CIPHERTEXT, "C1 all zero");
  Bytes prefix = ct;
  prefix[0] = 0x05;
  expect_fail(KS_SM2_C1C3C2, prefix, KS_ERR_BAD_CIPHERTEXT, "C1 prefix 05");
  // DER: another tag, trailing bytes inside, a short hash, a negative INTEGER.
  const Bytes der = encrypt(keys, KS_SM2_CIPHER_DER, msg);
  Bytes tag = der;
  tag[0] = 0x31;
  expect_fail(KS_SM2_CIPHER_DER, tag, KS_ERR_BAD_CIPHERTEXT, "SET for SEQUENCE");
  Bytes x_neg = der;
  const size_t x_at = der[1] & 0x80 ? 2 + (der[1] & 0x7f) : 2;  // INTEGER x
  ASSERT_EQ(x_neg[x_at], 0x02);
  if (x_neg[x_at + 1] == 33) {  // 00 sign byte: drop it, making x negative
    x_neg.erase(x_neg.begin() + long(x_at) + 2);
    x_neg[x_at + 1] = 32;
    x_neg[1] = uint8_t(x_neg[1] - 1);
    expect_fail(KS_SM2_CIPHER_DER, x_neg, KS_ERR_BAD_CIPHERTEXT, "negative x");
  }
  // Arguments.
  size_t n = 0;
  uint8_t out[256];
  EXPECT_EQ(ks_sm2_encrypt(keys.pub, 3, msg.data(), msg.size(), out, sizeof out, &n),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm2_encrypt(keys.pub, KS_SM2_C1C3C2, msg.data(), msg.size(), out, 100, &n),
            KS_ERR_LENGTH);
  EXPECT_EQ(n, msg.size() + 97);
  EXPECT_EQ(ks_sm2_encrypt(nullptr, KS_SM2_C1C3C2, msg.data(), msg.size(), out, sizeof out, &n),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_decrypt(keys.key, KS_SM2_C1C3C2, ct.data(), ct.size(), out, 10, &n),
            KS_ERR_LENGTH);
  EXPECT_EQ(n, msg.size());
  Bytes inplace = ct;
  EXPECT_EQ(ks_sm2_decrypt(keys.key, KS_SM2_C1C3C2, inplace.data(), inplace.size(),
                           inplace.data() + 1, 60, &n),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm2_ciphertext_bound(SIZE_MAX - 10, KS_SM2_C1C3C2), 0u);
}

// ---- Batches ------------------------------------------------------------------

struct Ctx {
  ks_ctx* ctx = nullptr;
  explicit Ctx(int threads) {
    ks_ctx_config config;
    ks_ctx_config_init(&config);
    config.backend = KS_BACKEND_CPU;
    config.cpu_threads = threads;
    EXPECT_EQ(ks_ctx_new(&config, &ctx), KS_OK);
  }
  ~Ctx() { ks_ctx_free(ctx); }
};

// Messages of every length class, flat.
using Flat = ks_test::FlatMessages;

Flat random_messages(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  Flat f;
  for (size_t i = 0; i < count; ++i) {
    Bytes m(i % 7 == 0 ? 0 : rng() % 300);
    for (auto& b : m) b = uint8_t(rng());
    f.add(m);
  }
  return f;
}

// The ciphertexts of an encryption batch, one per item.
std::vector<Bytes> slots(const Bytes& out, const Flat& f, const std::vector<uint64_t>& lengths,
                         int form) {
  const size_t extra = ks_sm2_ciphertext_bound(0, form);
  std::vector<Bytes> cts;
  for (size_t i = 0; i < f.count(); ++i) {
    const size_t at = f.offsets[i] + i * extra;
    cts.emplace_back(out.begin() + at, out.begin() + at + lengths[i]);
  }
  return cts;
}

// One recipient, below and above the size that builds the key's table:
// every ciphertext decrypts one at a time, and OpenSSL opens the DER ones.
TEST(Sm2EncryptBatch, OneRecipientDecryptsOneAtATime) {
  Keys keys;
  Ctx ctx(2);
  for (size_t count : {1, 9, 200}) {
    const Flat f = random_messages(count, uint32_t(count));
    for (int form : kForms) {
      SCOPED_TRACE("count " + std::to_string(count) + " form " + std::to_string(form));
      Bytes out(f.data.size() + count * ks_sm2_ciphertext_bound(0, form));
      std::vector<uint64_t> lengths(count);
      std::vector<int> status(count, 99);
      ASSERT_EQ(ks_sm2_encrypt_batch(ctx.ctx, keys.pub, form, f.data.data(), f.data.size(),
                                     f.offsets.data(), count, out.data(), out.size(),
                                     lengths.data(), status.data()),
                KS_OK);
      const std::vector<Bytes> cts = slots(out, f, lengths, form);
      for (size_t i = 0; i < count; ++i) {
        EXPECT_EQ(status[i], KS_OK);
        Bytes back;
        ASSERT_EQ(decrypt(keys, form, cts[i], &back), KS_OK) << i;
        EXPECT_EQ(back, f.items[i]);
        if (form == KS_SM2_CIPHER_DER && !f.items[i].empty() && i % 17 == 1) {
          bool ok = false;
          EXPECT_EQ(openssl_crypt(keys.evp, false, cts[i], &ok), f.items[i]);
          EXPECT_TRUE(ok);
        }
      }
    }
  }
}

TEST(Sm2EncryptBatch, PerItemKeysWithABadOne) {
  Keys a, b;
  Ctx ctx(2);
  const Flat f = random_messages(19, 3);
  Bytes pubs;
  for (size_t i = 0; i < f.count(); ++i) {
    Bytes p(65);
    size_t n = 0;
    EXPECT_EQ(ks_sm2_pubkey_to_bytes(i % 2 ? a.pub : b.pub, 0, p.data(), 65, &n), KS_OK);
    if (i == 5) p[64] ^= 1;  // off the curve
    pubs.insert(pubs.end(), p.begin(), p.end());
  }
  const int form = KS_SM2_C1C2C3;
  Bytes out(f.data.size() + f.count() * 97, 0xEE);
  std::vector<uint64_t> lengths(f.count());
  std::vector<int> status(f.count());
  ASSERT_EQ(ks_sm2_encrypt_batch_keys(ctx.ctx, pubs.data(), form, f.data.data(), f.data.size(),
                                      f.offsets.data(), f.count(), out.data(), out.size(),
                                      lengths.data(), status.data()),
            KS_ERR_BATCH_ITEMS);
  const std::vector<Bytes> cts = slots(out, f, lengths, form);
  for (size_t i = 0; i < f.count(); ++i) {
    if (i == 5) {
      EXPECT_EQ(status[i], KS_ERR_BAD_PUBLIC_KEY);
      EXPECT_EQ(lengths[i], 0u);
      const size_t at = f.offsets[i] + i * 97, len = f.items[i].size() + 97;
      EXPECT_EQ(Bytes(out.begin() + at, out.begin() + at + len), Bytes(len, 0));
      continue;
    }
    ASSERT_EQ(status[i], KS_OK);
    Bytes back;
    ASSERT_EQ(decrypt(i % 2 ? a : b, form, cts[i], &back), KS_OK);
    EXPECT_EQ(back, f.items[i]);
  }
}

// Decryption batches give what one-at-a-time decryption gives, item by
// item: plaintexts, and the errors of damaged or foreign ciphertexts.
TEST(Sm2EncryptBatch, DecryptMatchesOneAtATime) {
  Keys keys, other;
  Ctx ctx(2);
  for (int form : kForms) {
    const Flat msgs = random_messages(43, uint32_t(form) + 10);
    Flat cts;
    std::vector<int> want;
    for (size_t i = 0; i < msgs.count(); ++i) {
      Bytes ct = encrypt(i % 5 == 3 ? other : keys, form, msgs.items[i]);
      if (i % 5 == 1) ct.back() ^= 1;
      if (i % 5 == 2) ct.resize(i % 3);  // malformed
      if (i % 5 == 4 && form != KS_SM2_CIPHER_DER) ct[64] ^= 1;  // C1 off the curve
      Bytes back;
      want.push_back(decrypt(keys, form, ct, &back));
      cts.add(ct);
    }
    Bytes out(cts.data.size() + 1, 0xEE);
    std::vector<uint64_t> lengths(cts.count());
    std::vector<int> status(cts.count());
    const int rc = ks_sm2_decrypt_batch(ctx.ctx, keys.key, form, cts.data.data(), cts.data.size(),
                                        cts.offsets.data(), cts.count(), out.data(), out.size(),
                                        lengths.data(), status.data());
    EXPECT_EQ(rc, KS_ERR_BATCH_ITEMS);
    EXPECT_EQ(status, want);
    for (size_t i = 0; i < cts.count(); ++i) {
      const auto at = out.begin() + cts.offsets[i];
      if (status[i] == KS_OK) {
        EXPECT_EQ(Bytes(at, at + lengths[i]), msgs.items[i]);
      } else {
        EXPECT_EQ(lengths[i], 0u);
        EXPECT_EQ(Bytes(at, at + cts.items[i].size()), Bytes(cts.items[i].size(), 0));
      }
    }
  }
}

TEST(Sm2EncryptBatch, BadArgumentsWriteNothing) {
  Keys keys;
  Ctx ctx(1);
  const Flat f = random_messages(4, 1);
  std::vector<uint64_t> lengths(4, 7);
  std::vector<int> status(4, 7);
  Bytes out(f.data.size() + 4 * 97 - 1, 0xEE);  // one byte short
  EXPECT_EQ(ks_sm2_encrypt_batch(ctx.ctx, keys.pub, KS_SM2_C1C3C2, f.data.data(), f.data.size(),
                                 f.offsets.data(), 4, out.data(), out.size(), lengths.data(),
                                 status.data()),
            KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm2_encrypt_batch(ctx.ctx, keys.pub, 3, f.data.data(), f.data.size(),
                                 f.offsets.data(), 4, out.data(), out.size() + 1, lengths.data(),
                                 status.data()),
            KS_ERR_INVALID_ARGUMENT);
  std::vector<uint64_t> bad = f.offsets;
  bad[2] = bad[3] + 1;
  EXPECT_EQ(ks_sm2_decrypt_batch(ctx.ctx, keys.key, KS_SM2_C1C3C2, f.data.data(), f.data.size(),
                                 bad.data(), 4, out.data(), out.size(), lengths.data(),
                                 status.data()),
            KS_ERR_OFFSETS);
  Bytes in_place = f.data;
  EXPECT_EQ(ks_sm2_decrypt_batch(ctx.ctx, keys.key, KS_SM2_C1C3C2, in_place.data(),
                                 in_place.size(), f.offsets.data(), 4, in_place.data(),
                                 in_place.size(), lengths.data(), status.data()),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, Bytes(out.size(), 0xEE));
  EXPECT_EQ(lengths, std::vector<uint64_t>(4, 7));
  EXPECT_EQ(status, std::vector<int>(4, 7));
  EXPECT_EQ(ks_sm2_encrypt_batch(ctx.ctx, nullptr, 0, nullptr, 0, f.offsets.data(), 0, nullptr,
                                 0, nullptr, nullptr),
            KS_ERR_NULL_POINTER);
  const uint64_t zero = 0;
  EXPECT_EQ(ks_sm2_decrypt_batch(ctx.ctx, keys.key, 0, nullptr, 0, &zero, 0, nullptr, 0,
                                 nullptr, nullptr),
            KS_OK);  // an empty batch
}

}  // namespace
