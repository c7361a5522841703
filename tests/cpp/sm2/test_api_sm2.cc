// SM2 through the C API: the recommended-curve example, interop with
// OpenSSL libcrypto in both directions (keys as PKCS#8/SPKI DER and PEM,
// signatures as DER, the ID set through EVP), batches with per-item status,
// and rejection of bad input with the reason.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <string.h>

#include <algorithm>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

using ks_test::bytes_of;
using ks_test::from_hex;
using ks_test::random_bytes;
using ks_test::random_u32;
using ks_test::to_hex;
using Bytes = std::vector<uint8_t>;

namespace {

// ---- Owning wrappers --------------------------------------------------------
struct KeyFree {
  void operator()(ks_sm2_key* k) const { ks_sm2_key_free(k); }
};
struct PubFree {
  void operator()(ks_sm2_pubkey* k) const { ks_sm2_pubkey_free(k); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Key = std::unique_ptr<ks_sm2_key, KeyFree>;
using Pub = std::unique_ptr<ks_sm2_pubkey, PubFree>;
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

Key key_from(const Bytes& d) {
  ks_sm2_key* k = nullptr;
  EXPECT_EQ(ks_sm2_key_from_bytes(d.data(), d.size(), &k), KS_OK);
  return Key(k);
}

Key new_key() {
  ks_sm2_key* k = nullptr;
  EXPECT_EQ(ks_sm2_key_generate(&k), KS_OK);
  return Key(k);
}

Pub public_of(const ks_sm2_key* k) {
  ks_sm2_pubkey* p = nullptr;
  EXPECT_EQ(ks_sm2_key_public(k, &p), KS_OK);
  return Pub(p);
}

Bytes pub_bytes(const ks_sm2_pubkey* p, int compressed = 0) {
  Bytes out(65);
  size_t len = 0;
  EXPECT_EQ(ks_sm2_pubkey_to_bytes(p, compressed, out.data(), out.size(), &len), KS_OK);
  out.resize(len);
  return out;
}

// Runs one of our variable-length encoders into a vector.
template <class Encode>
Bytes encoded(Encode encode) {
  size_t len = 0;
  EXPECT_EQ(encode(nullptr, 0, &len), KS_ERR_LENGTH);  // size query
  Bytes out(len + 1);
  EXPECT_EQ(encode(out.data(), out.size(), &len), KS_OK);
  out.resize(len);
  return out;
}

Bytes key_pkcs8(const ks_sm2_key* k, int pem) {
  return encoded([&](uint8_t* o, size_t c, size_t* l) { return ks_sm2_key_encode(k, pem, o, c, l); });
}

Bytes pub_spki(const ks_sm2_pubkey* p, int pem) {
  return encoded([&](uint8_t* o, size_t c, size_t* l) { return ks_sm2_pubkey_encode(p, pem, o, c, l); });
}

Bytes sig_der(const Bytes& rs) {
  return encoded([&](uint8_t* o, size_t c, size_t* l) { return ks_sm2_signature_to_der(rs.data(), o, c, l); });
}

// ---- OpenSSL, the independent implementation --------------------------------
Pkey openssl_generate() { return Pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "SM2")); }

Pkey openssl_read_private(const Bytes& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), int(pem.size()));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return Pkey(k);
}

Pkey openssl_read_public_der(const Bytes& der) {
  const uint8_t* p = der.data();
  return Pkey(d2i_PUBKEY(nullptr, &p, long(der.size())));
}

Bytes openssl_private_pem(EVP_PKEY* k) {
  BIO* bio = BIO_new(BIO_s_mem());
  EXPECT_EQ(PEM_write_bio_PrivateKey(bio, k, nullptr, nullptr, 0, nullptr, nullptr), 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  Bytes out(data, data + n);
  BIO_free(bio);
  return out;
}

Bytes openssl_public_der(EVP_PKEY* k) {
  uint8_t* der = nullptr;
  const int n = i2d_PUBKEY(k, &der);
  Bytes out(der, der + n);
  OPENSSL_free(der);
  return out;
}

Bytes openssl_public_point(EVP_PKEY* k) {
  Bytes out(65);
  size_t len = 0;
  EXPECT_EQ(EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, out.data(), out.size(), &len), 1);
  out.resize(len);
  return out;
}

// DER signature over msg with the distinguishing ID set (OpenSSL's default
// would be the empty ID).
Bytes openssl_sign(EVP_PKEY* k, const Bytes& id, const Bytes& msg) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new(k, nullptr);
  EXPECT_GT(EVP_PKEY_CTX_set1_id(pctx, id.data(), int(id.size())), 0);
  EVP_MD_CTX_set_pkey_ctx(md, pctx);
  EXPECT_EQ(EVP_DigestSignInit(md, nullptr, EVP_sm3(), nullptr, k), 1);
  Bytes sig(80);
  size_t len = sig.size();
  EXPECT_EQ(EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size()), 1);
  sig.resize(len);
  EVP_MD_CTX_free(md);
  EVP_PKEY_CTX_free(pctx);
  return sig;
}

bool openssl_verify(EVP_PKEY* k, const Bytes& id, const Bytes& msg, const Bytes& der) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new(k, nullptr);
  EXPECT_GT(EVP_PKEY_CTX_set1_id(pctx, id.data(), int(id.size())), 0);
  EVP_MD_CTX_set_pkey_ctx(md, pctx);
  EXPECT_EQ(EVP_DigestVerifyInit(md, nullptr, EVP_sm3(), nullptr, k), 1);
  const int ok = EVP_DigestVerify(md, der.data(), der.size(), msg.data(), msg.size());
  EVP_MD_CTX_free(md);
  EVP_PKEY_CTX_free(pctx);
  return ok == 1;
}

Bytes random_id() {
  switch (random_u32() % 3) {
    case 0: return bytes_of(KS_SM2_DEFAULT_ID);
    case 1: return {};  // OpenSSL's default
    default: return random_bytes(1 + random_u32() % 40);
  }
}

Bytes random_message() {
  const uint32_t pick = random_u32() % 10;
  return random_bytes(pick == 0 ? 0 : pick == 1 ? (1 << 20) : random_u32() % 3000);
}

// ---- The recommended-curve example (reference file, OpenSSL sm2_internal_test) --
const char* kD = "3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8";
const char* kXA = "09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020";
const char* kYA = "CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13";
const char* kZA = "B2E14C5C79C6DF5B85F4FE7ED8DB7A262B9DA7E07CCB0EA9F4747B8CCDA8A4F3";
const char* kE = "F0B43E94BA45ACCAACE692ED534382EB17E6AB5A19CE7B31F4486FDFC0D28640";

TEST(Sm2Api, RecommendedCurveExample) {
  Key key = key_from(from_hex(kD));
  Pub pub = public_of(key.get());
  EXPECT_EQ(to_hex(pub_bytes(pub.get()).data(), 65), std::string("04") + kXA + kYA);
  const Bytes id = bytes_of(KS_SM2_DEFAULT_ID), msg = bytes_of("message digest");
  uint8_t za[32], e[32];
  ASSERT_EQ(ks_sm2_za(pub.get(), id.data(), id.size(), za), KS_OK);
  EXPECT_EQ(to_hex(za, 32), kZA);
  ASSERT_EQ(ks_sm2_digest(pub.get(), id.data(), id.size(), msg.data(), msg.size(), e), KS_OK);
  EXPECT_EQ(to_hex(e, 32), kE);
}

TEST(Sm2Api, OurSignaturesVerifyWithOpenSsl) {
  for (int round = 0; round < 12; ++round) {
    Key key = new_key();
    const Bytes id = random_id(), msg = random_message();
    Bytes rs(64);
    const int nonce = round % 2 ? KS_SM2_NONCE_DETERMINISTIC : KS_SM2_NONCE_RANDOM;
    ASSERT_EQ(ks_sm2_sign(key.get(), id.data(), id.size(), msg.data(), msg.size(), nonce, rs.data()), KS_OK);
    Pkey theirs = openssl_read_private(key_pkcs8(key.get(), 1));
    ASSERT_NE(theirs, nullptr);
    EXPECT_TRUE(openssl_verify(theirs.get(), id, msg, sig_der(rs))) << "round " << round;
    Bytes tampered = msg;
    tampered.push_back(1);
    EXPECT_FALSE(openssl_verify(theirs.get(), id, tampered, sig_der(rs)));
  }
}

TEST(Sm2Api, OpenSslSignaturesVerifyWithOurs) {
  for (int round = 0; round < 12; ++round) {
    Pkey theirs = openssl_generate();
    const Bytes id = random_id(), msg = random_message();
    const Bytes der = openssl_sign(theirs.get(), id, msg);
    const Bytes spki = openssl_public_der(theirs.get());
    ks_sm2_pubkey* raw = nullptr;
    ASSERT_EQ(ks_sm2_pubkey_decode(spki.data(), spki.size(), &raw), KS_OK);
    Pub pub(raw);
    Bytes rs(64);
    ASSERT_EQ(ks_sm2_signature_from_der(der.data(), der.size(), rs.data()), KS_OK);
    EXPECT_EQ(ks_sm2_verify(pub.get(), id.data(), id.size(), msg.data(), msg.size(), rs.data()), KS_OK);
    EXPECT_EQ(sig_der(rs), der);  // re-encoding is byte-identical
    Bytes other_id = id;
    other_id.push_back('x');
    EXPECT_EQ(ks_sm2_verify(pub.get(), other_id.data(), other_id.size(), msg.data(), msg.size(), rs.data()),
              KS_ERR_VERIFY_FAILED);
  }
}

// Verification under a key with its comb table gives the verdicts it
// gives without, for OpenSSL's signatures and damaged ones, also while
// other threads build the table and verify at the same time.
TEST(Sm2Api, PrecomputedKeyVerifiesAsWithout) {
  Pkey theirs = openssl_generate();
  const Bytes spki = openssl_public_der(theirs.get());
  ks_sm2_pubkey *raw = nullptr, *plain_raw = nullptr;
  ASSERT_EQ(ks_sm2_pubkey_decode(spki.data(), spki.size(), &raw), KS_OK);
  ASSERT_EQ(ks_sm2_pubkey_decode(spki.data(), spki.size(), &plain_raw), KS_OK);
  Pub pub(raw), plain(plain_raw);
  struct Item {
    Bytes id, msg, rs;
  };
  std::vector<Item> items;
  for (int i = 0; i < 24; ++i) {
    Item it{random_id(), random_message(), Bytes(64)};
    const Bytes der = openssl_sign(theirs.get(), it.id, it.msg);
    EXPECT_EQ(ks_sm2_signature_from_der(der.data(), der.size(), it.rs.data()), KS_OK);
    if (i % 3 == 1) it.rs[i % 64] ^= 0x10;  // damaged: r or s changes
    if (i % 3 == 2) it.msg.push_back('x');
    items.push_back(it);
  }
  auto verify_all = [&](const ks_sm2_pubkey* key, std::vector<int>* out) {
    for (const Item& it : items)
      out->push_back(ks_sm2_verify(key, it.id.data(), it.id.size(), it.msg.data(), it.msg.size(),
                                   it.rs.data()));
  };
  std::vector<int> want;
  verify_all(plain.get(), &want);
  std::vector<std::vector<int>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      if (t % 2 == 0) {
        EXPECT_EQ(ks_sm2_pubkey_precompute(pub.get()), KS_OK);
      }
      verify_all(pub.get(), &got[t]);
    });
  for (std::thread& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
  std::vector<int> after;
  verify_all(pub.get(), &after);  // the table is there now
  EXPECT_EQ(after, want);
  EXPECT_EQ(std::count(want.begin(), want.end(), KS_OK), 8);
  EXPECT_EQ(ks_sm2_pubkey_precompute(nullptr), KS_ERR_NULL_POINTER);
}

// A CPU batch under one key (large enough for the key's tables) gives
// every item the status one-at-a-time verification gives, for digests and
// for messages, with tampered and out-of-range signatures mixed in.
TEST(Sm2Api, OneKeyBatchesVerifyAsOneAtATime) {
  Key key = new_key();
  Pub pub = public_of(key.get());
  const Bytes pub65 = pub_bytes(pub.get());
  constexpr size_t kCount = 300;
  Bytes pubs, digests = random_bytes(32 * kCount), sigs(64 * kCount), msgs;
  std::vector<uint64_t> offsets{0};
  for (size_t i = 0; i < kCount; ++i) {
    pubs.insert(pubs.end(), pub65.begin(), pub65.end());
    const Bytes m = random_bytes(i % 50);
    msgs.insert(msgs.end(), m.begin(), m.end());
    offsets.push_back(msgs.size());
  }
  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = KS_BACKEND_CPU;
  config.cpu_threads = 2;
  ks_ctx* ctx = nullptr;
  ASSERT_EQ(ks_ctx_new(&config, &ctx), KS_OK);
  const uint8_t* id = reinterpret_cast<const uint8_t*>(KS_SM2_DEFAULT_ID);
  for (int messages = 0; messages <= 1; ++messages) {
    for (size_t i = 0; i < kCount; ++i) {
      uint8_t* sig = &sigs[64 * i];
      ASSERT_EQ(messages ? ks_sm2_sign(key.get(), id, 16, &msgs[offsets[i]],
                                       offsets[i + 1] - offsets[i], KS_SM2_NONCE_RANDOM, sig)
                         : ks_sm2_sign_digest(key.get(), &digests[32 * i], KS_SM2_NONCE_RANDOM,
                                              sig),
                KS_OK);
      if (i % 4 == 1) sig[i % 64] ^= 4;
      if (i % 9 == 2) memset(sig, 0xFF, 64);
    }
    std::vector<int> status(kCount, 99);
    if (messages) {
      ks_sm2_verify_batch(ctx, pubs.data(), id, 16, msgs.data(), msgs.size(), offsets.data(),
                          kCount, sigs.data(), status.data());
    } else {
      ks_sm2_verify_digest_batch(ctx, pubs.data(), digests.data(), kCount, sigs.data(),
                                 status.data());
    }
    for (size_t i = 0; i < kCount; ++i) {
      const int want = messages ? ks_sm2_verify(pub.get(), id, 16, &msgs[offsets[i]],
                                                offsets[i + 1] - offsets[i], &sigs[64 * i])
                                : ks_sm2_verify_digest(pub.get(), &digests[32 * i], &sigs[64 * i]);
      EXPECT_EQ(status[i], want) << "messages " << messages << " item " << i;
    }
    EXPECT_EQ(std::count(status.begin(), status.end(), KS_OK), 199);  // 101 damaged
  }
  ks_ctx_free(ctx);
}

TEST(Sm2Api, KeysRoundTripThroughOpenSsl) {
  Pkey theirs = openssl_generate();
  // OpenSSL's PKCS#8 PEM -> ours -> PKCS#8 DER/PEM -> OpenSSL: same key.
  const Bytes pem = openssl_private_pem(theirs.get());
  ks_sm2_key* raw = nullptr;
  ASSERT_EQ(ks_sm2_key_decode(pem.data(), pem.size(), &raw), KS_OK);
  Key key(raw);
  Pub pub = public_of(key.get());
  EXPECT_EQ(pub_bytes(pub.get()), openssl_public_point(theirs.get()));
  Pkey back = openssl_read_private(key_pkcs8(key.get(), 1));
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(EVP_PKEY_eq(back.get(), theirs.get()), 1);
  EXPECT_EQ(key_pkcs8(key.get(), 1), pem);  // byte-identical to OpenSSL's output
  // Our SPKI DER is OpenSSL's, byte for byte, and reads back.
  EXPECT_EQ(pub_spki(pub.get(), 0), openssl_public_der(theirs.get()));
  Pkey pub_back = openssl_read_public_der(pub_spki(pub.get(), 0));
  ASSERT_NE(pub_back, nullptr);
  EXPECT_EQ(EVP_PKEY_eq(pub_back.get(), theirs.get()), 1);
  // DER PKCS#8 and the compressed form read back too.
  const Bytes der = key_pkcs8(key.get(), 0);
  ASSERT_EQ(ks_sm2_key_decode(der.data(), der.size(), &raw), KS_OK);
  ks_sm2_key_free(raw);
  const Bytes compressed = pub_bytes(pub.get(), 1);
  ks_sm2_pubkey* p2 = nullptr;
  ASSERT_EQ(ks_sm2_pubkey_from_bytes(compressed.data(), compressed.size(), &p2), KS_OK);
  EXPECT_EQ(pub_bytes(p2), pub_bytes(pub.get()));
  ks_sm2_pubkey_free(p2);
}

// ---- Strict decoding ---------------------------------------------------------
Bytes valid_sig_der() {
  Key key = new_key();
  Bytes rs(64);
  uint8_t e[32] = {1};
  EXPECT_EQ(ks_sm2_sign_digest(key.get(), e, KS_SM2_NONCE_RANDOM, rs.data()), KS_OK);
  return sig_der(rs);
}

int parse_sig(const Bytes& der) {
  uint8_t rs[64];
  return ks_sm2_signature_from_der(der.data(), der.size(), rs);
}

TEST(Sm2Der, RejectsMalformedSignaturesWithTheReason) {
  const Bytes good = valid_sig_der();
  ASSERT_EQ(parse_sig(good), KS_OK);
  Bytes trailing = good;
  trailing.push_back(0);
  EXPECT_EQ(parse_sig(trailing), KS_ERR_DER_TRAILING);
  for (size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_LT(parse_sig(Bytes(good.begin(), good.begin() + cut)), 0) << cut;
  EXPECT_EQ(parse_sig({0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}), KS_ERR_DER_TAG);
  EXPECT_EQ(parse_sig({0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01}), KS_ERR_DER_NEGATIVE);
  EXPECT_EQ(parse_sig({0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01}), KS_ERR_DER_NON_MINIMAL);
  EXPECT_EQ(parse_sig({0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01}), KS_ERR_DER_EMPTY);
  EXPECT_EQ(parse_sig({0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}), KS_ERR_DER_LENGTH);
  EXPECT_EQ(parse_sig({0x30, 0x80, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00}), KS_ERR_DER_LENGTH);
  EXPECT_EQ(parse_sig({0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}), KS_ERR_DER_TRUNCATED);
  Bytes big = {0x30, 0x26, 0x02, 0x21, 0x01};  // 33-byte value
  big.resize(2 + 2 + 33, 0x11);
  big.insert(big.end(), {0x02, 0x01, 0x01});
  EXPECT_EQ(parse_sig(big), KS_ERR_DER_TOO_LARGE);
  EXPECT_EQ(parse_sig({}), KS_ERR_DER_TRUNCATED);
  uint8_t rs[64];
  EXPECT_EQ(ks_sm2_signature_from_der(nullptr, 3, rs), KS_ERR_NULL_POINTER);
}

TEST(Sm2Der, ZeroAndOverRangeIntegersParseButFailVerification) {
  Key key = new_key();
  Pub pub = public_of(key.get());
  uint8_t e[32] = {7};
  // r = 0 encodes as 02 01 00; it parses, then verify reports the range.
  Bytes der = {0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01};
  uint8_t rs[64];
  ASSERT_EQ(ks_sm2_signature_from_der(der.data(), der.size(), rs), KS_OK);
  EXPECT_EQ(ks_sm2_verify_digest(pub.get(), e, rs), KS_ERR_SIGNATURE_RANGE);
  memset(rs, 0xFF, 32);  // r = 2^256 - 1 > n
  EXPECT_EQ(ks_sm2_verify_digest(pub.get(), e, rs), KS_ERR_SIGNATURE_RANGE);
}

TEST(Sm2Der, RejectsForeignAndBrokenKeys) {
  // A P-256 key: right structure, wrong curve.
  Pkey p256(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  const Bytes spki = openssl_public_der(p256.get());
  ks_sm2_pubkey* pub = nullptr;
  EXPECT_EQ(ks_sm2_pubkey_decode(spki.data(), spki.size(), &pub), KS_ERR_KEY_ALGORITHM);
  EXPECT_EQ(pub, nullptr);
  const Bytes p256_pem = openssl_private_pem(p256.get());
  ks_sm2_key* key = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(p256_pem.data(), p256_pem.size(), &key), KS_ERR_KEY_ALGORITHM);

  // An SM2 SPKI whose point is moved off the curve.
  Key ours = new_key();
  Bytes off = pub_spki(public_of(ours.get()).get(), 0);
  off.back() ^= 1;
  EXPECT_EQ(ks_sm2_pubkey_decode(off.data(), off.size(), &pub), KS_ERR_BAD_PUBLIC_KEY);

  // PKCS#8 whose embedded public key belongs to another private key.
  Bytes pkcs8 = key_pkcs8(ours.get(), 0);
  const Bytes other = pub_bytes(public_of(new_key().get()).get());
  memcpy(pkcs8.data() + pkcs8.size() - 65, other.data(), 65);
  EXPECT_EQ(ks_sm2_key_decode(pkcs8.data(), pkcs8.size(), &key), KS_ERR_KEY_MISMATCH);

  // PEM problems.
  const std::string enc = "-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: x\n\nAAAA\n-----END PRIVATE KEY-----\n";
  EXPECT_EQ(ks_sm2_key_decode(reinterpret_cast<const uint8_t*>(enc.data()), enc.size(), &key), KS_ERR_PEM_ENCRYPTED);
  const std::string bad64 = "-----BEGIN PUBLIC KEY-----\nMF!k\n-----END PUBLIC KEY-----\n";
  EXPECT_EQ(ks_sm2_pubkey_decode(reinterpret_cast<const uint8_t*>(bad64.data()), bad64.size(), &pub), KS_ERR_PEM_BASE64);
  const std::string noend = "-----BEGIN PUBLIC KEY-----\nMFkw\n";
  EXPECT_EQ(ks_sm2_pubkey_decode(reinterpret_cast<const uint8_t*>(noend.data()), noend.size(), &pub), KS_ERR_PEM_NO_END);
  const Bytes pub_pem = pub_spki(public_of(ours.get()).get(), 1);
  EXPECT_EQ(ks_sm2_key_decode(pub_pem.data(), pub_pem.size(), &key), KS_ERR_PEM_NO_BLOCK);
  EXPECT_EQ(key, nullptr);
  // Truncations of a valid PKCS#8 never crash and never succeed.
  const Bytes full = key_pkcs8(ours.get(), 0);
  for (size_t cut = 0; cut < full.size(); ++cut) {
    EXPECT_LT(ks_sm2_key_decode(full.data(), cut, &key), 0) << cut;
    EXPECT_EQ(key, nullptr);
  }
}

TEST(Sm2Api, RejectsBadKeysAndArguments) {
  ks_sm2_key* key = nullptr;
  const Bytes zero(32, 0);
  EXPECT_EQ(ks_sm2_key_from_bytes(zero.data(), 32, &key), KS_ERR_BAD_PRIVATE_KEY);
  // n - 1 has no (1 + d)^-1: the standard requires d <= n - 2.
  const Bytes n_minus_1 = from_hex("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
  EXPECT_EQ(ks_sm2_key_from_bytes(n_minus_1.data(), 32, &key), KS_ERR_BAD_PRIVATE_KEY);
  EXPECT_EQ(ks_sm2_key_from_bytes(zero.data(), 31, &key), KS_ERR_BAD_PRIVATE_KEY);
  EXPECT_EQ(ks_sm2_key_from_bytes(nullptr, 32, &key), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_key_from_bytes(zero.data(), 32, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_key_generate(nullptr), KS_ERR_NULL_POINTER);

  ks_sm2_pubkey* pub = nullptr;
  Bytes inf(65, 0);
  inf[0] = 0x04;
  EXPECT_EQ(ks_sm2_pubkey_from_bytes(inf.data(), 65, &pub), KS_ERR_BAD_PUBLIC_KEY);
  const Bytes one_byte_infinity = {0x00};
  EXPECT_EQ(ks_sm2_pubkey_from_bytes(one_byte_infinity.data(), 1, &pub), KS_ERR_BAD_PUBLIC_KEY);
  EXPECT_EQ(ks_sm2_pubkey_from_bytes(inf.data(), 64 + 2, &pub), KS_ERR_BAD_PUBLIC_KEY);

  Key good = new_key();
  Pub good_pub = public_of(good.get());
  uint8_t sig[64], e[32] = {0};
  EXPECT_EQ(ks_sm2_sign_digest(good.get(), e, 5, sig), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm2_sign_digest(nullptr, e, 0, sig), KS_ERR_NULL_POINTER);
  const Bytes long_id(KS_SM2_MAX_ID_BYTES + 1, 'a');
  EXPECT_EQ(ks_sm2_sign(good.get(), long_id.data(), long_id.size(), e, 1, 0, sig), KS_ERR_ID_LENGTH);
  EXPECT_EQ(ks_sm2_sign(good.get(), nullptr, 3, e, 1, 0, sig), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_verify(good_pub.get(), nullptr, 0, nullptr, 9, sig), KS_ERR_NULL_POINTER);
  size_t len = 0;
  uint8_t small[10];
  EXPECT_EQ(ks_sm2_pubkey_to_bytes(good_pub.get(), 0, small, sizeof small, &len), KS_ERR_LENGTH);
  EXPECT_EQ(len, 65u);
  EXPECT_EQ(ks_sm2_pubkey_to_bytes(good_pub.get(), 0, small, sizeof small, nullptr), KS_ERR_NULL_POINTER);
}

TEST(Sm2Api, DeterministicNoncesRepeatPerDigestOnly) {
  Key key = new_key();
  uint8_t e1[32] = {1}, e2[32] = {2}, a[64], b[64], c[64], d[64];
  ASSERT_EQ(ks_sm2_sign_digest(key.get(), e1, KS_SM2_NONCE_DETERMINISTIC, a), KS_OK);
  ASSERT_EQ(ks_sm2_sign_digest(key.get(), e1, KS_SM2_NONCE_DETERMINISTIC, b), KS_OK);
  ASSERT_EQ(ks_sm2_sign_digest(key.get(), e2, KS_SM2_NONCE_DETERMINISTIC, c), KS_OK);
  EXPECT_EQ(memcmp(a, b, 64), 0);
  EXPECT_NE(memcmp(a, c, 32), 0);
  ASSERT_EQ(ks_sm2_sign_digest(key.get(), e1, KS_SM2_NONCE_RANDOM, d), KS_OK);
  EXPECT_NE(memcmp(a, d, 32), 0);  // a fresh k gives a fresh r
}

// ---- Batches -------------------------------------------------------------------
struct Ctx : ks_test::Context {
  explicit Ctx(int backend = KS_BACKEND_CPU, unsigned threads = 2) : Context(backend, threads) {
    EXPECT_EQ(rc, KS_OK);
  }
};

TEST(Sm2Batch, KeygenSignVerifyWithPerItemStatus) {
  Ctx c;
  const size_t n = 200;
  Bytes priv(32 * n), pubs(65 * n);
  std::vector<int> status(n, 99);
  ASSERT_EQ(ks_sm2_keygen_batch(c.ctx, n, priv.data(), priv.size(), pubs.data(), pubs.size(), status.data()), KS_OK);
  for (size_t i = 0; i < n; ++i) {  // each public key is d*G
    Key k = key_from(Bytes(priv.begin() + 32 * i, priv.begin() + 32 * i + 32));
    EXPECT_EQ(pub_bytes(public_of(k.get()).get()), Bytes(pubs.begin() + 65 * i, pubs.begin() + 65 * i + 65));
  }
  // Digests under per-item keys, then verification of the triples.
  const Bytes digests = random_bytes(32 * n);
  Bytes sigs(64 * n);
  ASSERT_EQ(ks_sm2_sign_digest_batch_keys(c.ctx, priv.data(), digests.data(), n, KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), status.data()), KS_OK);
  ASSERT_EQ(ks_sm2_verify_digest_batch(c.ctx, pubs.data(), digests.data(), n, sigs.data(), status.data()), KS_OK);
  // Many digests under one key.
  Key one = key_from(Bytes(priv.begin(), priv.begin() + 32));
  Bytes one_sigs(64 * n), same_pub;
  ASSERT_EQ(ks_sm2_sign_digest_batch(c.ctx, one.get(), digests.data(), n, KS_SM2_NONCE_DETERMINISTIC, one_sigs.data(), one_sigs.size(), status.data()), KS_OK);
  for (size_t i = 0; i < n; ++i) same_pub.insert(same_pub.end(), pubs.begin(), pubs.begin() + 65);
  ASSERT_EQ(ks_sm2_verify_digest_batch(c.ctx, same_pub.data(), digests.data(), n, one_sigs.data(), status.data()), KS_OK);
  // Break some items in different ways; the others still pass.
  sigs[64 * 3] ^= 1;                                  // tampered r
  memset(sigs.data() + 64 * 5, 0, 32);                // r = 0
  pubs[65 * 7 + 64] ^= 1;                             // off-curve key
  Bytes bad_digests = digests;
  bad_digests[32 * 9] ^= 0x80;                        // tampered e
  ASSERT_EQ(ks_sm2_verify_digest_batch(c.ctx, pubs.data(), bad_digests.data(), n, sigs.data(), status.data()), KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < n; ++i) {
    const int want = i == 3 || i == 9 ? KS_ERR_VERIFY_FAILED
                     : i == 5         ? KS_ERR_SIGNATURE_RANGE
                     : i == 7         ? KS_ERR_BAD_PUBLIC_KEY
                                      : KS_OK;
    EXPECT_EQ(status[i], want) << i;
  }
}

TEST(Sm2Batch, MessagesUnderOneKeyVerifyWithOpenSsl) {
  Ctx c;
  Key key = new_key();
  Pub pub = public_of(key.get());
  const Bytes id = random_id();
  const size_t n = 64;
  Bytes data;
  std::vector<uint64_t> offsets{0};
  std::vector<Bytes> msgs;
  for (size_t i = 0; i < n; ++i) {
    msgs.push_back(random_bytes(i % 9 == 0 ? 0 : random_u32() % 500));
    data.insert(data.end(), msgs.back().begin(), msgs.back().end());
    offsets.push_back(data.size());
  }
  Bytes sigs(64 * n);
  ASSERT_EQ(ks_sm2_sign_batch(c.ctx, key.get(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n,
                              KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), nullptr), KS_OK);
  Pkey theirs = openssl_read_private(key_pkcs8(key.get(), 1));
  Bytes pubs;
  const Bytes p = pub_bytes(pub.get());
  for (size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(openssl_verify(theirs.get(), id, msgs[i], sig_der(Bytes(sigs.begin() + 64 * i, sigs.begin() + 64 * i + 64))));
    pubs.insert(pubs.end(), p.begin(), p.end());
  }
  std::vector<int> status(n);
  EXPECT_EQ(ks_sm2_verify_batch(c.ctx, pubs.data(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n,
                                sigs.data(), status.data()), KS_OK);
  // Distinct random nonces: no two r values repeat.
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) EXPECT_NE(memcmp(&sigs[64 * i], &sigs[64 * j], 32), 0);
}

// Runs of items under the same key bytes share one parse and one Z_A in
// ks_sm2_verify_batch: runs of good keys, of a key off the curve, and
// changes of key inside a run must give each item what a lone
// ks_sm2_verify gives it.
TEST(Sm2Batch, MessageVerifyWithRunsOfKeysMatchesSingleCalls) {
  Ctx c;
  const Bytes id = random_id();
  Key keys[3] = {new_key(), new_key(), new_key()};
  const size_t n = 200;
  Bytes data, pubs, sigs(64 * n);
  std::vector<uint64_t> offsets{0};
  for (size_t i = 0; i < n; ++i) {
    const Bytes msg = random_bytes(random_u32() % 130);
    data.insert(data.end(), msg.begin(), msg.end());
    offsets.push_back(data.size());
    const size_t k = (i / 7) % 3;  // runs of seven under one key
    Bytes p = pub_bytes(public_of(keys[k].get()).get());
    if ((i / 7) % 5 == 4) p[64] ^= 1;  // some runs off the curve
    pubs.insert(pubs.end(), p.begin(), p.end());
    ASSERT_EQ(ks_sm2_sign(keys[k].get(), id.data(), id.size(), msg.data(), msg.size(), KS_SM2_NONCE_RANDOM, &sigs[64 * i]), KS_OK);
    if (i % 11 == 3) sigs[64 * i + 10] ^= 1;  // and some damaged signatures
  }
  std::vector<int> status(n);
  ks_sm2_verify_batch(c.ctx, pubs.data(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n, sigs.data(), status.data());
  size_t ok = 0;
  for (size_t i = 0; i < n; ++i) {
    ks_sm2_pubkey* p = nullptr;
    int expected = ks_sm2_pubkey_from_bytes(&pubs[65 * i], 65, &p);
    if (expected == KS_OK)
      expected = ks_sm2_verify(p, id.data(), id.size(), data.data() + offsets[i], offsets[i + 1] - offsets[i], &sigs[64 * i]);
    ks_sm2_pubkey_free(p);
    ASSERT_EQ(status[i], expected) << i;
    ok += expected == KS_OK;
  }
  EXPECT_GT(ok, n / 2);
  EXPECT_LT(ok, n);
}

// ks_sm2_digest_batch: per-item keys and IDs (runs of equal ones share a
// Z_A), each digest what ks_sm2_digest gives; a key off the curve or an ID
// over 8191 bytes fails its item; the digests verify with OpenSSL's
// signatures made under each item's ID.
TEST(Sm2Batch, DigestsWithPerItemIdsMatchSingleCallsAndOpenSsl) {
  Ctx c;
  Key keys[2] = {new_key(), new_key()};
  const size_t n = 150;
  Bytes data, ids, pubs;
  std::vector<uint64_t> offsets{0}, id_offsets{0};
  std::vector<Bytes> msgs, item_ids;
  Bytes run_id;
  for (size_t i = 0; i < n; ++i) {
    if (i % 5 == 0) run_id = random_id();
    msgs.push_back(random_bytes(random_u32() % 200));
    data.insert(data.end(), msgs.back().begin(), msgs.back().end());
    offsets.push_back(data.size());
    // runs of five items with one ID; i == 17 has an ID over the limit
    item_ids.push_back(i == 17 ? Bytes(KS_SM2_MAX_ID_BYTES + 1, 'x') : run_id);
    ids.insert(ids.end(), item_ids.back().begin(), item_ids.back().end());
    id_offsets.push_back(ids.size());
    Bytes p = pub_bytes(public_of(keys[(i / 3) % 2].get()).get());
    if (i % 23 == 5) p[64] ^= 1;
    pubs.insert(pubs.end(), p.begin(), p.end());
  }
  Bytes digests(32 * n);
  std::vector<int> status(n);
  ASSERT_EQ(ks_sm2_digest_batch(c.ctx, pubs.data(), ids.data(), ids.size(), id_offsets.data(),
                                data.data(), data.size(), offsets.data(), n, digests.data(),
                                digests.size(), status.data()),
            KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < n; ++i) {
    ks_sm2_pubkey* p = nullptr;
    int expected = ks_sm2_pubkey_from_bytes(&pubs[65 * i], 65, &p);
    uint8_t e[32] = {};
    if (expected == KS_OK)
      expected = ks_sm2_digest(p, item_ids[i].data(), item_ids[i].size(), msgs[i].data(),
                               msgs[i].size(), e);
    ks_sm2_pubkey_free(p);
    ASSERT_EQ(status[i], expected) << i;
    EXPECT_EQ(Bytes(&digests[32 * i], &digests[32 * i] + 32), expected == KS_OK ? Bytes(e, e + 32) : Bytes(32)) << i;
  }
  EXPECT_EQ(status[17], KS_ERR_ID_LENGTH);
  EXPECT_EQ(status[5], KS_ERR_BAD_PUBLIC_KEY);
  // OpenSSL signs item i under its own ID; the digests verify those.
  Bytes sigs(64 * n), one_pub;
  std::vector<size_t> checked;
  for (size_t i = 0; i < n && checked.size() < 12; ++i) {
    if (status[i] != KS_OK) continue;
    Pkey theirs = openssl_read_private(key_pkcs8(keys[(i / 3) % 2].get(), 1));
    const Bytes der = openssl_sign(theirs.get(), item_ids[i], msgs[i]);
    ASSERT_EQ(ks_sm2_signature_from_der(der.data(), der.size(), &sigs[64 * checked.size()]), KS_OK);
    one_pub.insert(one_pub.end(), &pubs[65 * i], &pubs[65 * i] + 65);
    checked.push_back(i);
  }
  Bytes picked;
  for (size_t i : checked) picked.insert(picked.end(), &digests[32 * i], &digests[32 * i] + 32);
  std::vector<int> verified(checked.size());
  EXPECT_EQ(ks_sm2_verify_digest_batch(c.ctx, one_pub.data(), picked.data(), checked.size(),
                                       sigs.data(), verified.data()),
            KS_OK);
  // Call-level errors: offsets out of order or past the data, a short output.
  std::vector<uint64_t> bad = id_offsets;
  bad[3] = bad[4] + 1;
  EXPECT_EQ(ks_sm2_digest_batch(c.ctx, pubs.data(), ids.data(), ids.size(), bad.data(), data.data(),
                                data.size(), offsets.data(), n, digests.data(), digests.size(), nullptr),
            KS_ERR_OFFSETS);
  EXPECT_EQ(ks_sm2_digest_batch(c.ctx, pubs.data(), ids.data(), ids.size() - 1, id_offsets.data(),
                                data.data(), data.size(), offsets.data(), n, digests.data(), digests.size(),
                                nullptr),
            KS_ERR_OFFSETS);
  EXPECT_EQ(ks_sm2_digest_batch(c.ctx, pubs.data(), ids.data(), ids.size(), id_offsets.data(), data.data(),
                                data.size(), offsets.data(), n, digests.data(), digests.size() - 1, nullptr),
            KS_ERR_LENGTH);
  const uint64_t zero = 0;
  EXPECT_EQ(ks_sm2_digest_batch(c.ctx, nullptr, nullptr, 0, &zero, nullptr, 0, &zero, 0, nullptr, 0, nullptr),
            KS_OK);
}

TEST(Sm2Batch, CallLevelErrors) {
  Ctx c;
  Bytes priv(32), pubs(65);
  EXPECT_EQ(ks_sm2_keygen_batch(nullptr, 1, priv.data(), 32, pubs.data(), 65, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_keygen_batch(c.ctx, 2, priv.data(), 32, pubs.data(), 130, nullptr), KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm2_keygen_batch(c.ctx, SIZE_MAX / 8, priv.data(), 32, pubs.data(), 65, nullptr), KS_ERR_OVERFLOW);
  EXPECT_EQ(ks_sm2_verify_digest_batch(c.ctx, nullptr, priv.data(), 1, priv.data(), nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm2_sign_digest_batch_keys(c.ctx, priv.data(), priv.data(), 1, 9, pubs.data(), 64, nullptr), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm2_keygen_batch(c.ctx, 0, nullptr, 0, nullptr, 0, nullptr), KS_OK);
}

// ---- The GPU backend through the same API, the CPU as the oracle ----------------
class Sm2GpuBatch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ks_gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    gpu_holder_ = std::make_unique<Ctx>(KS_BACKEND_GPU);
    cpu_holder_ = std::make_unique<Ctx>(KS_BACKEND_CPU, 0);
  }
  static constexpr size_t kItems = 100000;
  std::unique_ptr<Ctx> gpu_holder_, cpu_holder_;
};

TEST_F(Sm2GpuBatch, KeygenGivesKeysWhosePublicHalfTheCpuAgreesWith) {
  Bytes priv(32 * kItems), pubs(65 * kItems);
  std::vector<int> status(kItems);
  ASSERT_EQ(ks_sm2_keygen_batch(gpu_holder_->ctx, kItems, priv.data(), priv.size(), pubs.data(), pubs.size(), status.data()), KS_OK);
  // Every d is a valid key; a spread-out sample of public keys is recomputed on the CPU.
  for (size_t i = 0; i < kItems; i += 37) {
    Key k = key_from(Bytes(priv.begin() + 32 * i, priv.begin() + 32 * i + 32));
    ASSERT_EQ(pub_bytes(public_of(k.get()).get()), Bytes(pubs.begin() + 65 * i, pubs.begin() + 65 * i + 65)) << i;
  }
  // All keys distinct (the device DRBG never repeats).
  std::vector<Bytes> ds;
  for (size_t i = 0; i < kItems; ++i) ds.emplace_back(priv.begin() + 32 * i, priv.begin() + 32 * i + 32);
  std::sort(ds.begin(), ds.end());
  EXPECT_EQ(std::adjacent_find(ds.begin(), ds.end()), ds.end());
}

TEST_F(Sm2GpuBatch, SignaturesVerifyOnTheCpuWithDistinctNonces) {
  Key key = new_key();
  const Bytes digests = random_bytes(32 * kItems);
  Bytes sigs(64 * kItems);
  std::vector<int> status(kItems);
  ASSERT_EQ(ks_sm2_sign_digest_batch(gpu_holder_->ctx, key.get(), digests.data(), kItems, KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), status.data()), KS_OK);
  const Bytes p = pub_bytes(public_of(key.get()).get());
  Bytes pubs;
  for (size_t i = 0; i < kItems; ++i) pubs.insert(pubs.end(), p.begin(), p.end());
  ASSERT_EQ(ks_sm2_verify_digest_batch(cpu_holder_->ctx, pubs.data(), digests.data(), kItems, sigs.data(), status.data()), KS_OK);
  std::vector<Bytes> rs;
  for (size_t i = 0; i < kItems; ++i) rs.emplace_back(sigs.begin() + 64 * i, sigs.begin() + 64 * i + 32);
  std::sort(rs.begin(), rs.end());
  EXPECT_EQ(std::adjacent_find(rs.begin(), rs.end()), rs.end()) << "a nonce repeated";
  // A sample also verifies with OpenSSL.
  Pkey theirs = openssl_read_private(key_pkcs8(key.get(), 1));
  for (size_t i = 0; i < kItems; i += 997) {
    EVP_PKEY_CTX* v = EVP_PKEY_CTX_new(theirs.get(), nullptr);
    ASSERT_EQ(EVP_PKEY_verify_init(v), 1);
    const Bytes der = sig_der(Bytes(sigs.begin() + 64 * i, sigs.begin() + 64 * i + 64));
    EXPECT_EQ(EVP_PKEY_verify(v, der.data(), der.size(), &digests[32 * i], 32), 1) << i;
    EVP_PKEY_CTX_free(v);
  }
}

TEST_F(Sm2GpuBatch, PerItemKeysIncludingInvalidOnes) {
  const size_t n = 20000;
  Bytes priv(32 * n), pubs(65 * n);
  ASSERT_EQ(ks_sm2_keygen_batch(cpu_holder_->ctx, n, priv.data(), priv.size(), pubs.data(), pubs.size(), nullptr), KS_OK);
  memset(&priv[32 * 11], 0, 32);  // d = 0
  memset(&priv[32 * 12], 0xFF, 32);  // d > n
  const Bytes digests = random_bytes(32 * n);
  Bytes sigs(64 * n);
  std::vector<int> status(n);
  ASSERT_EQ(ks_sm2_sign_digest_batch_keys(gpu_holder_->ctx, priv.data(), digests.data(), n, KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), status.data()), KS_ERR_BATCH_ITEMS);
  EXPECT_EQ(status[11], KS_ERR_BAD_PRIVATE_KEY);
  EXPECT_EQ(status[12], KS_ERR_BAD_PRIVATE_KEY);
  std::vector<int> verdict(n);
  ks_sm2_verify_digest_batch(cpu_holder_->ctx, pubs.data(), digests.data(), n, sigs.data(), verdict.data());
  for (size_t i = 0; i < n; ++i) {
    if (i != 11 && i != 12) {
      ASSERT_EQ(verdict[i], KS_OK) << i;
    }
  }
}

TEST_F(Sm2GpuBatch, VerifyAgreesWithTheCpuOnValidAndInvalidInput) {
  Bytes priv(32 * kItems), pubs(65 * kItems);
  ASSERT_EQ(ks_sm2_keygen_batch(gpu_holder_->ctx, kItems, priv.data(), priv.size(), pubs.data(), pubs.size(), nullptr), KS_OK);
  Bytes digests = random_bytes(32 * kItems), sigs(64 * kItems);
  ASSERT_EQ(ks_sm2_sign_digest_batch_keys(gpu_holder_->ctx, priv.data(), digests.data(), kItems, KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), nullptr), KS_OK);
  const Bytes n_bytes = from_hex("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
  for (size_t i = 0; i < kItems; i += 7) {  // damage one item in seven, six ways
    switch ((i / 7) % 6) {
      case 0: digests[32 * i + 5] ^= 1; break;                            // tampered e
      case 1: sigs[64 * i + 31] ^= 1; break;                              // tampered r
      case 2: memset(&sigs[64 * i + 32], 0, 32); break;                   // s = 0
      case 3: memcpy(&sigs[64 * i], n_bytes.data(), 32); break;           // r = n
      case 4: pubs[65 * i + 64] ^= 1; break;                              // off-curve key
      case 5: memcpy(&pubs[65 * i], &pubs[65 * ((i + 1) % kItems)], 65); break;  // wrong key
    }
  }
  std::vector<int> on_gpu(kItems), on_cpu(kItems);
  ks_sm2_verify_digest_batch(gpu_holder_->ctx, pubs.data(), digests.data(), kItems, sigs.data(), on_gpu.data());
  ks_sm2_verify_digest_batch(cpu_holder_->ctx, pubs.data(), digests.data(), kItems, sigs.data(), on_cpu.data());
  size_t valid = 0;
  for (size_t i = 0; i < kItems; ++i) {
    ASSERT_EQ(on_gpu[i], on_cpu[i]) << i;
    valid += on_cpu[i] == KS_OK;
  }
  EXPECT_GT(valid, kItems * 8 / 10);
  EXPECT_LT(valid, kItems);
}

TEST_F(Sm2GpuBatch, MessagesSignedOnTheGpuVerifyOnTheCpu) {
  Key key = new_key();
  const Bytes id = random_id();
  const size_t n = 5000;
  Bytes data = random_bytes(64 * n), sigs(64 * n);
  std::vector<uint64_t> offsets(n + 1);
  for (size_t i = 0; i <= n; ++i) offsets[i] = 64 * i;
  ASSERT_EQ(ks_sm2_sign_batch(gpu_holder_->ctx, key.get(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n, KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), nullptr), KS_OK);
  const Bytes p = pub_bytes(public_of(key.get()).get());
  Bytes pubs;
  for (size_t i = 0; i < n; ++i) pubs.insert(pubs.end(), p.begin(), p.end());
  std::vector<int> status(n);
  EXPECT_EQ(ks_sm2_verify_batch(cpu_holder_->ctx, pubs.data(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n, sigs.data(), status.data()), KS_OK);
  EXPECT_EQ(ks_sm2_verify_batch(gpu_holder_->ctx, pubs.data(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n, sigs.data(), status.data()), KS_OK);
}

// The same operations with every caller buffer pinned (ks_host_alloc): the
// engine copies them directly instead of staging (keygen's d, public keys,
// digests, per-item keys, signatures, statuses); results as above.
TEST_F(Sm2GpuBatch, PinnedBuffersAreCopiedDirectly) {
  struct HostFree {
    void operator()(void* p) const { ks_host_free(p); }
  };
  auto pinned = [](size_t bytes) {
    void* p = nullptr;
    EXPECT_EQ(ks_host_alloc(bytes, &p), KS_OK);
    return std::unique_ptr<uint8_t, HostFree>(static_cast<uint8_t*>(p));
  };
  const size_t n = kItems;
  auto priv = pinned(32 * n), pubs = pinned(65 * n), digests = pinned(32 * n), sigs = pinned(64 * n);
  auto status = pinned(sizeof(int) * n);
  int* st = reinterpret_cast<int*>(status.get());
  ASSERT_EQ(ks_sm2_keygen_batch(gpu_holder_->ctx, n, priv.get(), 32 * n, pubs.get(), 65 * n, st), KS_OK);
  for (size_t i = 0; i < n; i += 101) {
    Key k = key_from(Bytes(priv.get() + 32 * i, priv.get() + 32 * i + 32));
    ASSERT_EQ(pub_bytes(public_of(k.get()).get()), Bytes(pubs.get() + 65 * i, pubs.get() + 65 * i + 65)) << i;
  }
  const Bytes e = random_bytes(32 * n);
  memcpy(digests.get(), e.data(), e.size());
  memset(priv.get() + 32 * 7, 0xFF, 32);  // one bad key: its own status, a zero signature
  ASSERT_EQ(ks_sm2_sign_digest_batch_keys(gpu_holder_->ctx, priv.get(), digests.get(), n, KS_SM2_NONCE_RANDOM, sigs.get(), 64 * n, st), KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(st[i], i == 7 ? KS_ERR_BAD_PRIVATE_KEY : KS_OK) << i;
  sigs.get()[64 * 9 + 40] ^= 1;  // and one damaged signature
  std::vector<int> on_cpu(n);
  ks_sm2_verify_digest_batch(cpu_holder_->ctx, pubs.get(), digests.get(), n, sigs.get(), on_cpu.data());
  ASSERT_EQ(ks_sm2_verify_digest_batch(gpu_holder_->ctx, pubs.get(), digests.get(), n, sigs.get(), st), KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(st[i], on_cpu[i]) << i;
    ASSERT_EQ(st[i], i == 7 ? KS_ERR_SIGNATURE_RANGE : i == 9 ? KS_ERR_VERIFY_FAILED : KS_OK) << i;
  }
  // Mixed: pinned digests and keys, ordinary signatures and no status array.
  Bytes plain_sigs(64 * n);
  memset(priv.get() + 32 * 7, 0x11, 32);  // a valid key again
  ASSERT_EQ(ks_sm2_sign_digest_batch_keys(gpu_holder_->ctx, priv.get(), digests.get(), n, KS_SM2_NONCE_RANDOM, plain_sigs.data(), plain_sigs.size(), nullptr), KS_OK);
  Bytes pub7(65);
  {
    Key k7 = key_from(Bytes(priv.get() + 32 * 7, priv.get() + 32 * 7 + 32));
    pub7 = pub_bytes(public_of(k7.get()).get());
  }
  memcpy(pubs.get() + 65 * 7, pub7.data(), 65);
  ASSERT_EQ(ks_sm2_verify_digest_batch(cpu_holder_->ctx, pubs.get(), digests.get(), n, plain_sigs.data(), on_cpu.data()), KS_OK);
}

// Messages of 0..300 bytes (across SM3 block boundaries) under per-item
// keys, Z_A and e hashed on the device, against the CPU on valid and
// damaged items; for the empty ID, the default one and one whose Z_A input
// spans several blocks.
TEST_F(Sm2GpuBatch, MessageVerifyAgreesWithTheCpuOnValidAndInvalidInput) {
  const Bytes ids[3] = {Bytes(), Bytes(KS_SM2_DEFAULT_ID, KS_SM2_DEFAULT_ID + 16), random_bytes(200)};
  for (const Bytes& id : ids) {
    const size_t n = id.size() == 16 ? kItems : 5000;
    Bytes priv(32 * n), pubs(65 * n), sigs(64 * n);
    ASSERT_EQ(ks_sm2_keygen_batch(gpu_holder_->ctx, n, priv.data(), priv.size(), pubs.data(), pubs.size(), nullptr), KS_OK);
    std::vector<uint64_t> offsets(n + 1, 0);
    for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + (i * 7919) % 301;
    Bytes data = random_bytes(offsets[n]);
    Bytes e(32 * n);  // e_i = SM3(Z_A_i || M_i) here, signed under the per-item keys
    for (size_t i = 0; i < n; ++i) {
      ks_sm2_pubkey* p = nullptr;
      ASSERT_EQ(ks_sm2_pubkey_from_bytes(&pubs[65 * i], 65, &p), KS_OK);
      const Pub pub(p);
      ASSERT_EQ(ks_sm2_digest(p, id.data(), id.size(), data.data() + offsets[i], offsets[i + 1] - offsets[i], &e[32 * i]), KS_OK);
    }
    ASSERT_EQ(ks_sm2_sign_digest_batch_keys(cpu_holder_->ctx, priv.data(), e.data(), n, KS_SM2_NONCE_RANDOM, sigs.data(), sigs.size(), nullptr), KS_OK);
    for (size_t i = 0; i < n; i += 5) {  // damage one item in five, five ways
      switch ((i / 5) % 5) {
        case 0: if (offsets[i + 1] > offsets[i]) data[offsets[i]] ^= 1; else sigs[64 * i] ^= 1; break;
        case 1: sigs[64 * i + 63] ^= 1; break;                              // tampered s
        case 2: pubs[65 * i + 64] ^= 1; break;                              // off-curve key
        case 3: pubs[65 * i] = 0x05; break;                                 // not 04||x||y
        case 4: memcpy(&pubs[65 * i], &pubs[65 * ((i + 1) % n)], 65); break;  // wrong key
      }
    }
    std::vector<int> on_gpu(n), on_cpu(n);
    ks_sm2_verify_batch(gpu_holder_->ctx, pubs.data(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n, sigs.data(), on_gpu.data());
    ks_sm2_verify_batch(cpu_holder_->ctx, pubs.data(), id.data(), id.size(), data.data(), data.size(), offsets.data(), n, sigs.data(), on_cpu.data());
    size_t valid = 0;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(on_gpu[i], on_cpu[i]) << "item " << i << ", ID of " << id.size() << " bytes";
      valid += on_cpu[i] == KS_OK;
    }
    EXPECT_EQ(valid, n - (n + 4) / 5);
  }
}

}  // namespace
