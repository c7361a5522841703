// The C API of Ed25519 and X25519: key objects and files next to OpenSSL's
// (byte for byte), argument checks, and batches against single operations
// on every input of the edge-case set, invalid items mixed in.
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <string>
#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

namespace {

using ks_test::from_hex;
using ks_test::random_bytes;

// A CPU context.
struct Ctx : ks_test::Context {
  explicit Ctx(uint32_t threads = 2) : Context(KS_BACKEND_CPU, threads) { EXPECT_EQ(rc, KS_OK); }
};

template <class Encode>
std::vector<uint8_t> encoded(Encode encode) {
  size_t len = 0;
  encode(nullptr, 0, &len);
  std::vector<uint8_t> out(len + 1);
  EXPECT_EQ(encode(out.data(), out.size(), &len), KS_OK);
  out.resize(len);
  return out;
}

std::string openssl_pem(EVP_PKEY* key, bool private_key) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (private_key) {
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  } else {
    PEM_write_bio_PUBKEY(bio, key);
  }
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  std::string text(data, size_t(len));
  BIO_free(bio);
  return text;
}

TEST(Ed25519Api, KeyFilesAreOpenSslsByteForByte) {
  const std::vector<uint8_t> seed = random_bytes(32);
  ks_ed25519_key* key = nullptr;
  ASSERT_EQ(ks_ed25519_key_from_seed(seed.data(), 32, &key), KS_OK);
  EVP_PKEY* theirs = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), 32);
  const std::vector<uint8_t> pem = encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_ed25519_key_encode(key, 1, o, c, l);
  });
  EXPECT_EQ(std::string(pem.begin(), pem.end()), openssl_pem(theirs, true));
  ks_ed25519_pubkey* pub = nullptr;
  ASSERT_EQ(ks_ed25519_key_public(key, &pub), KS_OK);
  const std::vector<uint8_t> pub_pem = encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_ed25519_pubkey_encode(pub, 1, o, c, l);
  });
  EXPECT_EQ(std::string(pub_pem.begin(), pub_pem.end()), openssl_pem(theirs, false));
  // and back, from DER and PEM
  const std::vector<uint8_t> der = encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_ed25519_key_encode(key, 0, o, c, l);
  });
  for (const std::vector<uint8_t>* in : {&der, &pem}) {
    ks_ed25519_key* back = nullptr;
    ASSERT_EQ(ks_ed25519_key_decode(in->data(), in->size(), &back), KS_OK);
    uint8_t seed_back[32];
    ks_ed25519_key_to_seed(back, seed_back);
    EXPECT_EQ(memcmp(seed_back, seed.data(), 32), 0);
    ks_ed25519_key_free(back);
  }
  ks_ed25519_pubkey* pub_back = nullptr;
  ASSERT_EQ(ks_ed25519_pubkey_decode(pub_pem.data(), pub_pem.size(), &pub_back), KS_OK);
  // An X25519 key is not an Ed25519 key, and an SM2 key neither.
  uint8_t x_priv[32], x_pub[32];
  ks_x25519_keygen(x_priv, x_pub);
  const std::vector<uint8_t> x_der = encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_x25519_private_key_encode(x_priv, 0, o, c, l);
  });
  ks_ed25519_key* wrong = nullptr;
  EXPECT_EQ(ks_ed25519_key_decode(x_der.data(), x_der.size(), &wrong), KS_ERR_KEY_ALGORITHM);
  ks_sm2_key* sm2 = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(der.data(), der.size(), &sm2), KS_ERR_KEY_ALGORITHM);
  EVP_PKEY_free(theirs);
  ks_ed25519_pubkey_free(pub_back);
  ks_ed25519_pubkey_free(pub);
  ks_ed25519_key_free(key);
}

// Issue 42: a 31-byte seed was KS_ERR_BAD_PRIVATE_KEY, whose message spoke
// of SM2's scalar range. Every 32 bytes are a seed: only the length can be
// wrong, and the code and its message say so.
TEST(Ed25519Api, WrongSeedLengthIsALengthError) {
  const uint8_t seed[33] = {0};
  for (size_t len : {size_t(0), size_t(31), size_t(33)}) {
    ks_ed25519_key* key = nullptr;
    const int rc = ks_ed25519_key_from_seed(seed, len, &key);
    EXPECT_EQ(rc, KS_ERR_LENGTH) << len;
    EXPECT_EQ(key, nullptr);
    EXPECT_EQ(std::string(ks_strerror(rc)).find("SM2"), std::string::npos);
  }
}

TEST(Ed25519Api, ArgumentChecks) {
  ks_ed25519_key* key = nullptr;
  EXPECT_EQ(ks_ed25519_key_from_seed(nullptr, 32, &key), KS_ERR_NULL_POINTER);
  uint8_t seed[31] = {0};
  EXPECT_EQ(key, nullptr);
  ks_ed25519_pubkey* pub = nullptr;
  EXPECT_EQ(ks_ed25519_pubkey_from_bytes(nullptr, 0, &pub), KS_ERR_BAD_PUBLIC_KEY);
  EXPECT_EQ(ks_ed25519_pubkey_from_bytes(seed, 31, &pub), KS_ERR_BAD_PUBLIC_KEY);
  ASSERT_EQ(ks_ed25519_key_generate(&key), KS_OK);
  uint8_t sig[64];
  EXPECT_EQ(ks_ed25519_sign_ex(key, 7, nullptr, 0, nullptr, 0, sig), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_ed25519_sign_ex(key, KS_ED25519_CTX, nullptr, 0, nullptr, 0, sig),
            KS_ERR_CONTEXT_LENGTH);
  EXPECT_EQ(ks_ed25519_sign_ex(key, KS_ED25519_CTX, nullptr, 3, nullptr, 0, sig),
            KS_ERR_NULL_POINTER);
  const std::vector<uint8_t> ctx256(256, 1);
  EXPECT_EQ(ks_ed25519_sign_ex(key, KS_ED25519_PH, ctx256.data(), 256, nullptr, 0, sig),
            KS_ERR_CONTEXT_LENGTH);
  EXPECT_EQ(ks_ed25519_sign(key, nullptr, 0, sig), KS_OK);  // the empty message
  ASSERT_EQ(ks_ed25519_key_public(key, &pub), KS_OK);
  EXPECT_EQ(ks_ed25519_verify(pub, nullptr, 0, sig), KS_OK);
  ks_ed25519_pubkey_free(pub);
  ks_ed25519_key_free(key);
}

// The inputs where implementations disagree, with the status the rules of
// include/kuaisuo.h give each one.
struct Case {
  std::vector<uint8_t> pub, msg, sig;
  int want;
};

std::vector<Case> edge_cases() {
  std::vector<Case> cases;
  ks_ed25519_key* key = nullptr;
  ks_ed25519_key_generate(&key);
  ks_ed25519_pubkey* pub = nullptr;
  ks_ed25519_key_public(key, &pub);
  std::vector<uint8_t> a(32);
  ks_ed25519_pubkey_to_bytes(pub, a.data());
  for (size_t len : {0, 1, 64, 200, 5000}) {
    Case c{a, random_bytes(len), std::vector<uint8_t>(64), KS_OK};
    ks_ed25519_sign(key, c.msg.data(), c.msg.size(), c.sig.data());
    cases.push_back(c);
    Case wrong_msg = c;
    wrong_msg.msg.push_back(1);
    wrong_msg.want = KS_ERR_VERIFY_FAILED;
    cases.push_back(wrong_msg);
    Case s_high = c;  // S with its top bit set: >= L
    s_high.sig[63] |= 0x80;
    s_high.want = KS_ERR_SIGNATURE_RANGE;
    cases.push_back(s_high);
  }
  Case identity_r = cases[0];
  std::fill(identity_r.sig.begin(), identity_r.sig.end(), 0);
  identity_r.sig[0] = 1;  // R = identity (small order), S = 0
  identity_r.want = KS_ERR_SIGNATURE_RANGE;
  cases.push_back(identity_r);
  Case small_a = identity_r;  // A = identity: rejected as a key
  small_a.pub = from_hex("0100000000000000000000000000000000000000000000000000000000000000");
  small_a.want = KS_ERR_BAD_PUBLIC_KEY;
  cases.push_back(small_a);
  Case noncanonical_a = cases[0];
  noncanonical_a.pub = from_hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  noncanonical_a.want = KS_ERR_BAD_PUBLIC_KEY;
  cases.push_back(noncanonical_a);
  Case off_curve_a = cases[0];
  off_curve_a.pub = from_hex("0200000000000000000000000000000000000000000000000000000000000000");
  off_curve_a.want = KS_ERR_BAD_PUBLIC_KEY;
  cases.push_back(off_curve_a);
  ks_ed25519_pubkey_free(pub);
  ks_ed25519_key_free(key);
  return cases;
}

int verify_one(const Case& c) {
  ks_ed25519_pubkey* pub = nullptr;
  const int rc = ks_ed25519_pubkey_from_bytes(c.pub.data(), c.pub.size(), &pub);
  if (rc != KS_OK) return rc;
  const int v = ks_ed25519_verify(pub, c.msg.data(), c.msg.size(), c.sig.data());
  ks_ed25519_pubkey_free(pub);
  return v;
}

TEST(Ed25519Api, BatchVerifyAgreesWithSingleOnEveryCase) {
  std::vector<Case> cases = edge_cases();
  // Many copies, shuffled, so that every lane position sees every case.
  std::vector<Case> items;
  for (int rep = 0; rep < 5; ++rep)
    for (size_t i = 0; i < cases.size(); ++i) items.push_back(cases[(i * 7 + size_t(rep)) % cases.size()]);
  std::vector<uint8_t> pubs, data, sigs;
  std::vector<uint64_t> offsets = {0};
  for (const Case& c : items) {
    ASSERT_EQ(verify_one(c), c.want);
    pubs.insert(pubs.end(), c.pub.begin(), c.pub.end());
    sigs.insert(sigs.end(), c.sig.begin(), c.sig.end());
    data.insert(data.end(), c.msg.begin(), c.msg.end());
    offsets.push_back(data.size());
  }
  for (uint32_t threads : {1u, 2u}) {
    Ctx ctx(threads);
    std::vector<int> status(items.size());
    EXPECT_EQ(ks_ed25519_verify_batch(ctx.ctx, pubs.data(), data.data(), data.size(), offsets.data(),
                                      items.size(), sigs.data(), status.data()),
              KS_ERR_BATCH_ITEMS);
    for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(status[i], items[i].want) << i;
  }
}

TEST(Ed25519Api, BatchSignMatchesSingleAndOpenSsl) {
  Ctx ctx;
  constexpr size_t kCount = 150;  // two whole groups of 64 (one inversion each) and a partial one
  std::vector<uint8_t> seeds(32 * kCount), pubs(32 * kCount), data;
  std::vector<uint64_t> offsets = {0};
  std::vector<int> status(kCount);
  ASSERT_EQ(ks_ed25519_keygen_batch(ctx.ctx, kCount, seeds.data(), seeds.size(), pubs.data(),
                                    pubs.size(), status.data()),
            KS_OK);
  for (size_t i = 0; i < kCount; ++i) {
    const std::vector<uint8_t> msg = random_bytes(i * 13);
    data.insert(data.end(), msg.begin(), msg.end());
    offsets.push_back(data.size());
  }
  std::vector<uint8_t> sigs(64 * kCount), one_key_sigs(64 * kCount);
  ASSERT_EQ(ks_ed25519_sign_batch_keys(ctx.ctx, seeds.data(), data.data(), data.size(),
                                       offsets.data(), kCount, sigs.data(), sigs.size(),
                                       status.data()),
            KS_OK);
  ks_ed25519_key* first = nullptr;
  ks_ed25519_key_from_seed(seeds.data(), 32, &first);
  ASSERT_EQ(ks_ed25519_sign_batch(ctx.ctx, first, data.data(), data.size(), offsets.data(), kCount,
                                  one_key_sigs.data(), one_key_sigs.size(), status.data()),
            KS_OK);
  for (size_t i = 0; i < kCount; ++i) {
    ks_ed25519_key* key = nullptr;
    ks_ed25519_key_from_seed(seeds.data() + 32 * i, 32, &key);
    uint8_t sig[64], pub[32];
    ks_ed25519_pubkey* p = nullptr;
    ks_ed25519_key_public(key, &p);
    ks_ed25519_pubkey_to_bytes(p, pub);
    EXPECT_EQ(memcmp(pub, pubs.data() + 32 * i, 32), 0) << i;
    ks_ed25519_sign(key, data.data() + offsets[i], size_t(offsets[i + 1] - offsets[i]), sig);
    EXPECT_EQ(memcmp(sig, sigs.data() + 64 * i, 64), 0) << i;
    ks_ed25519_sign(first, data.data() + offsets[i], size_t(offsets[i + 1] - offsets[i]), sig);
    EXPECT_EQ(memcmp(sig, one_key_sigs.data() + 64 * i, 64), 0) << i;
    // OpenSSL verifies the batch's signature
    EVP_PKEY* theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, pub, 32);
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    EVP_DigestVerifyInit(md, nullptr, nullptr, nullptr, theirs);
    EXPECT_EQ(EVP_DigestVerify(md, sigs.data() + 64 * i, 64, data.data() + offsets[i],
                               size_t(offsets[i + 1] - offsets[i])),
              1);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(theirs);
    ks_ed25519_pubkey_free(p);
    ks_ed25519_key_free(key);
  }
  ks_ed25519_key_free(first);
}

TEST(X25519Api, KeyFilesAndDerive) {
  uint8_t a[32], pa[32], b[32], pb[32];
  ASSERT_EQ(ks_x25519_keygen(a, pa), KS_OK);
  ASSERT_EQ(ks_x25519_keygen(b, pb), KS_OK);
  uint8_t s1[32], s2[32];
  ASSERT_EQ(ks_x25519(a, pb, s1), KS_OK);
  ASSERT_EQ(ks_x25519(b, pa, s2), KS_OK);
  EXPECT_EQ(memcmp(s1, s2, 32), 0);
  EVP_PKEY* theirs = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, a, 32);
  const std::vector<uint8_t> pem = encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_x25519_private_key_encode(a, 1, o, c, l);
  });
  EXPECT_EQ(std::string(pem.begin(), pem.end()), openssl_pem(theirs, true));
  const std::vector<uint8_t> pub_pem = encoded([&](uint8_t* o, size_t c, size_t* l) {
    return ks_x25519_public_key_encode(pa, 1, o, c, l);
  });
  EXPECT_EQ(std::string(pub_pem.begin(), pub_pem.end()), openssl_pem(theirs, false));
  uint8_t back[32];
  ASSERT_EQ(ks_x25519_private_key_decode(pem.data(), pem.size(), back), KS_OK);
  EXPECT_EQ(memcmp(back, a, 32), 0);
  ASSERT_EQ(ks_x25519_public_key_decode(pub_pem.data(), pub_pem.size(), back), KS_OK);
  EXPECT_EQ(memcmp(back, pa, 32), 0);
  const uint8_t zero[32] = {0};
  EXPECT_EQ(ks_x25519(a, zero, s1), KS_ERR_ZERO_SHARED_SECRET);
  EVP_PKEY_free(theirs);
}

TEST(X25519Api, BatchesMatchSingleOperations) {
  Ctx ctx;
  constexpr size_t kCount = 141;  // two whole groups of 64 (one inversion each) and a partial one
  std::vector<uint8_t> privs(32 * kCount), pubs(32 * kCount), peers = random_bytes(32 * kCount);
  std::vector<int> status(kCount);
  ASSERT_EQ(ks_x25519_keygen_batch(ctx.ctx, kCount, privs.data(), privs.size(), pubs.data(),
                                   pubs.size(), status.data()),
            KS_OK);
  memset(peers.data() + 32 * 5, 0, 32);  // a small-order peer value in the middle
  std::vector<uint8_t> shared(32 * kCount), shared_one(32 * kCount);
  EXPECT_EQ(ks_x25519_derive_batch_keys(ctx.ctx, privs.data(), peers.data(), kCount,
                                        shared.data(), shared.size(), status.data()),
            KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < kCount; ++i) {
    uint8_t pub[32], one[32];
    ks_x25519_public_key(privs.data() + 32 * i, pub);
    EXPECT_EQ(memcmp(pub, pubs.data() + 32 * i, 32), 0);
    const int rc = ks_x25519(privs.data() + 32 * i, peers.data() + 32 * i, one);
    EXPECT_EQ(status[i], rc) << i;
    EXPECT_EQ(rc, i == 5 ? KS_ERR_ZERO_SHARED_SECRET : KS_OK);
    EXPECT_EQ(memcmp(one, shared.data() + 32 * i, 32), 0) << i;
  }
  EXPECT_EQ(ks_x25519_derive_batch(ctx.ctx, privs.data(), peers.data(), kCount,
                                   shared_one.data(), shared_one.size(), nullptr),
            KS_ERR_BATCH_ITEMS);
  for (size_t i = 0; i < kCount; ++i) {
    uint8_t one[32];
    ks_x25519(privs.data(), peers.data() + 32 * i, one);
    EXPECT_EQ(memcmp(one, shared_one.data() + 32 * i, 32), 0) << i;
  }
  // Arguments
  EXPECT_EQ(ks_x25519_derive_batch(ctx.ctx, nullptr, peers.data(), kCount, shared.data(),
                                   shared.size(), nullptr),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_x25519_derive_batch_keys(ctx.ctx, nullptr, peers.data(), kCount, shared.data(),
                                        shared.size(), nullptr),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_x25519_derive_batch_keys(ctx.ctx, privs.data(), peers.data(), kCount,
                                        shared.data(), 31, nullptr),
            KS_ERR_LENGTH);
  // No key is read for an empty batch: NULL is accepted, as for any empty input.
  EXPECT_EQ(ks_x25519_derive_batch(ctx.ctx, nullptr, nullptr, 0, nullptr, 0, nullptr), KS_OK);
  EXPECT_EQ(ks_x25519_derive_batch_keys(ctx.ctx, nullptr, nullptr, 0, nullptr, 0, nullptr), KS_OK);
}

// The names kept for one release (KS_DEPRECATED) give what their
// replacements give: ks_ed25519_sign_batch_seeds is _keys, ks_x25519_batch
// is derive_batch_keys for any nonzero per_item_keys and derive_batch for 0.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(Curve25519Api, DeprecatedBatchNamesCallTheirReplacements) {
  Ctx ctx;
  constexpr size_t kCount = 9;
  const std::vector<uint8_t> keys = random_bytes(32 * kCount), peers = random_bytes(32 * kCount);
  std::vector<uint8_t> want(32 * kCount), got(32 * kCount);
  for (int per_item : {0, 1, -1, 0x100}) {
    ASSERT_EQ((per_item ? ks_x25519_derive_batch_keys : ks_x25519_derive_batch)(
                  ctx.ctx, keys.data(), peers.data(), kCount, want.data(), want.size(), nullptr),
              KS_OK);
    ASSERT_EQ(ks_x25519_batch(ctx.ctx, keys.data(), per_item, peers.data(), kCount, got.data(),
                              got.size(), nullptr),
              KS_OK);
    EXPECT_EQ(got, want) << "per_item_keys " << per_item;
  }
  const uint8_t data[] = "abcdefghi";
  std::vector<uint64_t> offsets(kCount + 1);
  for (size_t i = 0; i <= kCount; ++i) offsets[i] = i;
  std::vector<uint8_t> sigs_new(64 * kCount), sigs_old(64 * kCount);
  ASSERT_EQ(ks_ed25519_sign_batch_keys(ctx.ctx, keys.data(), data, kCount, offsets.data(), kCount,
                                       sigs_new.data(), sigs_new.size(), nullptr),
            KS_OK);
  ASSERT_EQ(ks_ed25519_sign_batch_seeds(ctx.ctx, keys.data(), data, kCount, offsets.data(),
                                        kCount, sigs_old.data(), sigs_old.size(), nullptr),
            KS_OK);
  EXPECT_EQ(sigs_old, sigs_new);
  EXPECT_EQ(ks_ed25519_sign_batch_seeds(ctx.ctx, nullptr, data, kCount, offsets.data(), kCount,
                                        sigs_old.data(), sigs_old.size(), nullptr),
            KS_ERR_NULL_POINTER);
}
#pragma GCC diagnostic pop

}  // namespace
