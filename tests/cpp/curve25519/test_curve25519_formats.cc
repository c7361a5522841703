// Ed25519 and X25519 key encodings (RFC 8410) in curve25519/curve25519_formats:
// round trips; byte-identical to what OpenSSL writes for the same raw keys
// and readable by OpenSSL; OpenSSL's encodings and the RFC 8410 examples
// decode; each malformed variant is rejected with its own status; and SM2
// and RFC 8410 keys are each refused by the other's decoders as another
// algorithm.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <string.h>

#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "curve25519/curve25519_formats.h"
#include "encoding/der.h"
#include "encoding/pem.h"
#include "sm2/sm2_formats.h"
#include "kuaisuo.h"
#include "test_util.h"

namespace {

namespace fmt = ks::curve25519_formats;
using fmt::Curve25519Alg;
using ks_test::from_hex;
using ks_test::random_bytes;
using Bytes = std::vector<uint8_t>;

const Curve25519Alg kAlgs[] = {fmt::kEd25519, fmt::kX25519};

// A starting value for a decoder's output that it must overwrite.
Curve25519Alg other_than(Curve25519Alg alg) {
  return alg == fmt::kEd25519 ? fmt::kX25519 : fmt::kEd25519;
}

Bytes plain(const ks::Bytes& b) { return Bytes(b.begin(), b.end()); }

Bytes base64(const std::string& text) {
  Bytes out(text.size());
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const uint8_t*>(text.data()),
                                int(text.size()));
  EXPECT_GT(n, 0);
  out.resize(size_t(n) - (text.size() - text.find_last_not_of('=') - 1));  // padding
  return out;
}

// ---- Our decoders, returning the status -------------------------------------
int decode_spki(const Bytes& der, Curve25519Alg* alg = nullptr, Bytes* key = nullptr) {
  Curve25519Alg scratch = fmt::kEd25519;
  uint8_t buf[fmt::kKeyBytes];
  const int rc = fmt::spki_decode(der.data(), der.size(), alg != nullptr ? alg : &scratch, buf);
  if (rc == KS_OK && key != nullptr) key->assign(buf, buf + sizeof buf);
  return rc;
}

int decode_pkcs8(const Bytes& der, fmt::PrivateKey* out = nullptr) {
  fmt::PrivateKey scratch;
  return fmt::pkcs8_decode(der.data(), der.size(), out != nullptr ? out : &scratch);
}

// ---- OpenSSL, the independent implementation --------------------------------
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

const char* openssl_name(Curve25519Alg alg) { return alg == fmt::kEd25519 ? "ED25519" : "X25519"; }
int openssl_id(Curve25519Alg alg) {
  return alg == fmt::kEd25519 ? EVP_PKEY_ED25519 : EVP_PKEY_X25519;
}

Pkey openssl_generate(const char* name) { return Pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, name)); }

Pkey openssl_from_raw(Curve25519Alg alg, const Bytes& key) {
  return Pkey(EVP_PKEY_new_raw_private_key(openssl_id(alg), nullptr, key.data(), key.size()));
}

Bytes openssl_raw(EVP_PKEY* k, bool private_part) {
  Bytes out(fmt::kKeyBytes);
  size_t len = out.size();
  const int ok = private_part ? EVP_PKEY_get_raw_private_key(k, out.data(), &len)
                              : EVP_PKEY_get_raw_public_key(k, out.data(), &len);
  EXPECT_EQ(ok, 1);
  out.resize(len);
  return out;
}

template <class I2d>
Bytes openssl_der(EVP_PKEY* k, I2d i2d) {
  uint8_t* der = nullptr;
  const int n = i2d(k, &der);
  EXPECT_GT(n, 0);
  Bytes out(der, der + (n > 0 ? n : 0));
  OPENSSL_free(der);
  return out;
}

Bytes openssl_pkcs8(EVP_PKEY* k) { return openssl_der(k, i2d_PrivateKey); }
Bytes openssl_spki(EVP_PKEY* k) { return openssl_der(k, i2d_PUBKEY); }

// What an OpenSSL writer puts into a memory BIO.
template <class Write>
Bytes bio_written(Write write) {
  BIO* bio = BIO_new(BIO_s_mem());
  EXPECT_EQ(write(bio), 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  Bytes out(data, data + n);
  BIO_free(bio);
  return out;
}

// The same key through the PKCS#8-specific writer (not i2d_PrivateKey's
// choice of format).
Bytes openssl_pkcs8_bio(EVP_PKEY* k) {
  return bio_written([&](BIO* bio) {
    return i2d_PKCS8PrivateKey_bio(bio, k, nullptr, nullptr, 0, nullptr, nullptr);
  });
}

std::string openssl_private_pem(EVP_PKEY* k) {
  const Bytes pem = bio_written([&](BIO* bio) {
    return PEM_write_bio_PrivateKey(bio, k, nullptr, nullptr, 0, nullptr, nullptr);
  });
  return std::string(pem.begin(), pem.end());
}

Pkey openssl_read_private(const Bytes& der) {
  const uint8_t* p = der.data();
  return Pkey(d2i_AutoPrivateKey(nullptr, &p, long(der.size())));
}

Pkey openssl_read_public(const Bytes& der) {
  const uint8_t* p = der.data();
  return Pkey(d2i_PUBKEY(nullptr, &p, long(der.size())));
}

// ---- DER pieces for hand-made (mostly malformed) keys ------------------------
Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes tlv(uint8_t tag, const Bytes& body) {
  Bytes out = {tag};
  if (body.size() >= 0x80) out.push_back(0x81);  // every body here is < 256 bytes
  out.push_back(uint8_t(body.size()));
  return cat({out, body});
}

const Bytes kOidEd25519 = {0x06, 0x03, 0x2B, 0x65, 0x70};
const Bytes kOidX25519 = {0x06, 0x03, 0x2B, 0x65, 0x6E};
const Bytes kOidX448 = {0x06, 0x03, 0x2B, 0x65, 0x6F};
const Bytes kOidEd448 = {0x06, 0x03, 0x2B, 0x65, 0x71};
const Bytes kNull = {0x05, 0x00};

// A fixed key whose first byte (01) is no OCTET STRING tag: the "raw key"
// case below relies on it.
Bytes fixed_key(size_t len = 32) {
  Bytes k(len);
  for (size_t i = 0; i < len; ++i) k[i] = uint8_t(i + 1);
  return k;
}

Bytes alg_id(const Bytes& oid, const Bytes& params = {}) { return tlv(0x30, cat({oid, params})); }
Bytes bits(const Bytes& key, uint8_t unused = 0) { return tlv(0x03, cat({{unused}, key})); }
Bytes spki(const Bytes& alg, const Bytes& bit_string, const Bytes& extra = {}) {
  return tlv(0x30, cat({alg, bit_string, extra}));
}
Bytes version(uint8_t v) { return {0x02, 0x01, v}; }
Bytes curve_private_key(const Bytes& key) { return tlv(0x04, tlv(0x04, key)); }
Bytes pkcs8(const Bytes& ver, const Bytes& alg, const Bytes& key_octets, const Bytes& tail = {}) {
  return tlv(0x30, cat({ver, alg, key_octets, tail}));
}
Bytes public_key_field(const Bytes& key, uint8_t unused = 0) {
  return tlv(0x81, cat({{unused}, key}));
}

// ---- The RFC 8410 examples (section 10) -------------------------------------
// 10.1: the Ed25519 public key that goes with 10.3's private key.
const char* kRfcPublic = "MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=";
// 10.3: the private key, version 0 ...
const char* kRfcPrivateV0 = "MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC";
// ... and version 1 with an attribute ("Curdle Chairs") and the public key.
const char* kRfcPrivateV1 =
    "MHICAQEwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC"
    "oB8wHQYKKoZIhvcNAQkJFDEPDA1DdXJkbGUgQ2hhaXJzgSEAGb9ECWmEzf6FQbrB"
    "Z9w7lshQhqowtrbLDFw4rXAxZuE=";
const char* kRfcSeed = "D4EE72DBF913584AD5B6D8F1F769F8AD3AFE7C28CBF1D4FBE097A88F44755842";
const char* kRfcPublicKey = "19BF44096984CDFE8541BAC167DC3B96C85086AA30B6B6CB0C5C38AD703166E1";

// ---- Round trips and OpenSSL --------------------------------------------------
TEST(Curve25519Formats, RoundTrip) {
  for (Curve25519Alg alg : kAlgs) {
    const Bytes key = random_bytes(32);
    Curve25519Alg got_alg = other_than(alg);
    Bytes got;
    ASSERT_EQ(decode_spki(plain(fmt::spki_encode(alg, key.data())), &got_alg, &got), KS_OK);
    EXPECT_EQ(got_alg, alg);
    EXPECT_EQ(got, key);

    fmt::PrivateKey priv;
    ASSERT_EQ(decode_pkcs8(plain(fmt::pkcs8_encode(alg, key.data())), &priv), KS_OK);
    EXPECT_EQ(priv.alg, alg);
    EXPECT_EQ(Bytes(priv.key, priv.key + 32), key);
    EXPECT_FALSE(priv.has_public_key);
  }
}

TEST(Curve25519Formats, ByteIdenticalToOpenSsl) {
  for (Curve25519Alg alg : kAlgs) {
    for (int round = 0; round < 20; ++round) {
      // Keys OpenSSL generated, and keys it was given.
      Pkey theirs = round % 2 ? openssl_generate(openssl_name(alg))
                              : openssl_from_raw(alg, random_bytes(32));
      ASSERT_NE(theirs, nullptr);
      const Bytes priv = openssl_raw(theirs.get(), true);
      const Bytes pub = openssl_raw(theirs.get(), false);
      const Bytes pkcs8_der = plain(fmt::pkcs8_encode(alg, priv.data()));
      const Bytes spki_der = plain(fmt::spki_encode(alg, pub.data()));
      EXPECT_EQ(pkcs8_der, openssl_pkcs8(theirs.get()));
      EXPECT_EQ(pkcs8_der, openssl_pkcs8_bio(theirs.get()));
      EXPECT_EQ(spki_der, openssl_spki(theirs.get()));

      // And OpenSSL reads ours back to the same key.
      Pkey back = openssl_read_private(pkcs8_der);
      ASSERT_NE(back, nullptr);
      EXPECT_EQ(EVP_PKEY_get_id(back.get()), openssl_id(alg));
      EXPECT_EQ(openssl_raw(back.get(), true), priv);
      Pkey back_pub = openssl_read_public(spki_der);
      ASSERT_NE(back_pub, nullptr);
      EXPECT_EQ(openssl_raw(back_pub.get(), false), pub);
    }
  }
}

TEST(Curve25519Formats, PemIsOpenSslsWithTheSharedLabel) {
  for (Curve25519Alg alg : kAlgs) {
    Pkey theirs = openssl_generate(openssl_name(alg));
    const ks::Bytes der = fmt::pkcs8_encode(alg, openssl_raw(theirs.get(), true).data());
    const ks::SecretString pem = ks::pem::encode("PRIVATE KEY", der.data(), der.size());
    EXPECT_EQ(std::string(pem.data(), pem.size()), openssl_private_pem(theirs.get()));
  }
}

TEST(Curve25519Formats, DecodesWhatOpenSslWrites) {
  for (Curve25519Alg alg : kAlgs) {
    for (int round = 0; round < 20; ++round) {
      Pkey theirs = openssl_generate(openssl_name(alg));
      fmt::PrivateKey priv;
      ASSERT_EQ(decode_pkcs8(openssl_pkcs8(theirs.get()), &priv), KS_OK);
      EXPECT_EQ(priv.alg, alg);
      EXPECT_EQ(Bytes(priv.key, priv.key + 32), openssl_raw(theirs.get(), true));
      EXPECT_FALSE(priv.has_public_key);

      Curve25519Alg pub_alg = other_than(alg);
      Bytes pub;
      ASSERT_EQ(decode_spki(openssl_spki(theirs.get()), &pub_alg, &pub), KS_OK);
      EXPECT_EQ(pub_alg, alg);
      EXPECT_EQ(pub, openssl_raw(theirs.get(), false));
    }
  }
}

TEST(Curve25519Formats, Rfc8410Examples) {
  Curve25519Alg alg = fmt::kX25519;
  Bytes pub;
  ASSERT_EQ(decode_spki(base64(kRfcPublic), &alg, &pub), KS_OK);
  EXPECT_EQ(alg, fmt::kEd25519);
  EXPECT_EQ(pub, from_hex(kRfcPublicKey));
  EXPECT_EQ(plain(fmt::spki_encode(fmt::kEd25519, pub.data())), base64(kRfcPublic));

  fmt::PrivateKey v0;
  ASSERT_EQ(decode_pkcs8(base64(kRfcPrivateV0), &v0), KS_OK);
  EXPECT_EQ(v0.alg, fmt::kEd25519);
  EXPECT_EQ(Bytes(v0.key, v0.key + 32), from_hex(kRfcSeed));
  EXPECT_FALSE(v0.has_public_key);
  EXPECT_EQ(plain(fmt::pkcs8_encode(fmt::kEd25519, v0.key)), base64(kRfcPrivateV0));

  // Version 1: the attribute is skipped, the public key comes back (and is
  // the seed's, by OpenSSL; OpenSSL 3.0 itself cannot read this form).
  fmt::PrivateKey v1;
  ASSERT_EQ(decode_pkcs8(base64(kRfcPrivateV1), &v1), KS_OK);
  EXPECT_EQ(v1.alg, fmt::kEd25519);
  EXPECT_EQ(Bytes(v1.key, v1.key + 32), from_hex(kRfcSeed));
  ASSERT_TRUE(v1.has_public_key);
  EXPECT_EQ(Bytes(v1.public_key, v1.public_key + 32), from_hex(kRfcPublicKey));
  EXPECT_EQ(openssl_raw(openssl_from_raw(fmt::kEd25519, from_hex(kRfcSeed)).get(), false),
            from_hex(kRfcPublicKey));
}

TEST(Curve25519Formats, OptionalFieldsOfBothVersions) {
  const Bytes key = fixed_key(), pub = random_bytes(32), attrs = tlv(0xA0, {});
  const Bytes alg = alg_id(kOidX25519), inner = curve_private_key(key);
  fmt::PrivateKey out;
  ASSERT_EQ(decode_pkcs8(pkcs8(version(0), alg, inner, attrs), &out), KS_OK);
  EXPECT_FALSE(out.has_public_key);
  ASSERT_EQ(decode_pkcs8(pkcs8(version(1), alg, inner), &out), KS_OK);
  EXPECT_FALSE(out.has_public_key);
  ASSERT_EQ(decode_pkcs8(pkcs8(version(1), alg, inner, public_key_field(pub)), &out), KS_OK);
  EXPECT_EQ(out.alg, fmt::kX25519);
  EXPECT_EQ(Bytes(out.key, out.key + 32), key);
  ASSERT_TRUE(out.has_public_key);
  EXPECT_EQ(Bytes(out.public_key, out.public_key + 32), pub);
  // A later decode without the field clears what an earlier one left.
  ASSERT_EQ(decode_pkcs8(pkcs8(version(0), alg, inner), &out), KS_OK);
  EXPECT_FALSE(out.has_public_key);
  EXPECT_EQ(Bytes(out.public_key, out.public_key + 32), Bytes(32, 0));
}

TEST(Curve25519Formats, DecodedPrivateKeyWipesItself) {
  alignas(fmt::PrivateKey) unsigned char storage[sizeof(fmt::PrivateKey)];
  fmt::PrivateKey* k = new (storage) fmt::PrivateKey;
  ASSERT_EQ(decode_pkcs8(pkcs8(version(0), alg_id(kOidEd25519), curve_private_key(fixed_key())), k),
            KS_OK);
  const size_t at = size_t(k->key - storage);
  ASSERT_EQ(Bytes(storage + at, storage + at + 32), fixed_key());
  k->~PrivateKey();
  EXPECT_EQ(Bytes(storage + at, storage + at + 32), Bytes(32, 0));
}

// ---- Rejections, each with its reason -----------------------------------------
struct Case {
  const char* what;
  Bytes der;
  int want;
};

TEST(Curve25519Formats, RejectsMalformedPublicKeysWithTheReason) {
  const Bytes key = fixed_key(), alg = alg_id(kOidEd25519);
  const Bytes good = spki(alg, bits(key));
  ASSERT_EQ(decode_spki(good), KS_OK);
  const Case cases[] = {
      {"X448 OID", spki(alg_id(kOidX448), bits(key)), KS_ERR_KEY_ALGORITHM},
      {"Ed448 OID", spki(alg_id(kOidEd448), bits(key)), KS_ERR_KEY_ALGORITHM},
      {"NULL parameters", spki(alg_id(kOidEd25519, kNull), bits(key)), KS_ERR_DER_TRAILING},
      {"OID parameters", spki(alg_id(kOidEd25519, kOidX25519), bits(key)), KS_ERR_DER_TRAILING},
      {"no OID", spki(tlv(0x30, {}), bits(key)), KS_ERR_DER_TRUNCATED},
      {"31-byte key", spki(alg, bits(fixed_key(31))), KS_ERR_BAD_PUBLIC_KEY},
      {"33-byte key", spki(alg, bits(fixed_key(33))), KS_ERR_BAD_PUBLIC_KEY},
      {"no key bits", spki(alg, bits({})), KS_ERR_BAD_PUBLIC_KEY},
      {"empty BIT STRING", spki(alg, tlv(0x03, {})), KS_ERR_DER_BIT_STRING},
      {"unused bits", spki(alg, bits(key, 1)), KS_ERR_DER_BIT_STRING},
      {"OCTET STRING key", spki(alg, tlv(0x04, key)), KS_ERR_DER_TAG},
      {"field after the key", spki(alg, bits(key), kNull), KS_ERR_DER_TRAILING},
      {"bytes after the SEQUENCE", cat({good, {0x00}}), KS_ERR_DER_TRAILING},
      {"SET instead of SEQUENCE", cat({{0x31}, Bytes(good.begin() + 1, good.end())}),
       KS_ERR_DER_TAG},
      {"long-form short length", cat({{0x30, 0x81}, Bytes(good.begin() + 1, good.end())}),
       KS_ERR_DER_LENGTH},
      {"empty", {}, KS_ERR_DER_TRUNCATED},
  };
  for (const Case& c : cases) EXPECT_EQ(decode_spki(c.der), c.want) << c.what;
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_EQ(decode_spki(Bytes(good.begin(), good.begin() + cut)), KS_ERR_DER_TRUNCATED) << cut;
  }
}

TEST(Curve25519Formats, RejectsMalformedPrivateKeysWithTheReason) {
  const Bytes key = fixed_key(), alg = alg_id(kOidEd25519), inner = curve_private_key(key);
  const Bytes good = pkcs8(version(0), alg, inner);
  ASSERT_EQ(decode_pkcs8(good), KS_OK);
  const Bytes pub = public_key_field(random_bytes(32));
  const Case cases[] = {
      {"X448 OID", pkcs8(version(0), alg_id(kOidX448), inner), KS_ERR_KEY_ALGORITHM},
      {"NULL parameters", pkcs8(version(0), alg_id(kOidEd25519, kNull), inner),
       KS_ERR_DER_TRAILING},
      {"version 2", pkcs8(version(2), alg, inner), KS_ERR_KEY_VERSION},
      {"version 256", pkcs8({0x02, 0x02, 0x01, 0x00}, alg, inner), KS_ERR_KEY_VERSION},
      {"negative version", pkcs8(version(0xFF), alg, inner), KS_ERR_DER_NEGATIVE},
      {"non-minimal version", pkcs8({0x02, 0x02, 0x00, 0x00}, alg, inner), KS_ERR_DER_NON_MINIMAL},
      {"31-byte key", pkcs8(version(0), alg, curve_private_key(fixed_key(31))),
       KS_ERR_BAD_PRIVATE_KEY},
      {"33-byte key", pkcs8(version(0), alg, curve_private_key(fixed_key(33))),
       KS_ERR_BAD_PRIVATE_KEY},
      {"64-byte seed||public", pkcs8(version(0), alg, curve_private_key(fixed_key(64))),
       KS_ERR_BAD_PRIVATE_KEY},
      // Without the inner OCTET STRING the key's first byte (01) is read as a tag.
      {"raw key", pkcs8(version(0), alg, tlv(0x04, key)), KS_ERR_DER_TAG},
      {"bytes after the inner key", pkcs8(version(0), alg, tlv(0x04, cat({tlv(0x04, key), kNull}))),
       KS_ERR_DER_TRAILING},
      {"version 0 with a public key", pkcs8(version(0), alg, inner, pub), KS_ERR_DER_TRAILING},
      {"public key before attributes", pkcs8(version(1), alg, inner, cat({pub, tlv(0xA0, {})})),
       KS_ERR_DER_TRAILING},
      {"constructed [1]", pkcs8(version(1), alg, inner, tlv(0xA1, bits(random_bytes(32)))),
       KS_ERR_DER_TRAILING},
      {"31-byte public key", pkcs8(version(1), alg, inner, public_key_field(fixed_key(31))),
       KS_ERR_BAD_PUBLIC_KEY},
      {"public key unused bits", pkcs8(version(1), alg, inner, public_key_field(key, 3)),
       KS_ERR_DER_BIT_STRING},
      {"empty public key field", pkcs8(version(1), alg, inner, tlv(0x81, {})),
       KS_ERR_DER_BIT_STRING},
      {"field after the public key", pkcs8(version(1), alg, inner, cat({pub, kNull})),
       KS_ERR_DER_TRAILING},
      {"bytes after the SEQUENCE", cat({good, {0x00}}), KS_ERR_DER_TRAILING},
      {"no version", tlv(0x30, cat({alg, inner})), KS_ERR_DER_TAG},
      {"empty", {}, KS_ERR_DER_TRUNCATED},
  };
  for (const Case& c : cases) EXPECT_EQ(decode_pkcs8(c.der), c.want) << c.what;
  for (const Bytes& full : {good, base64(kRfcPrivateV1)}) {
    for (size_t cut = 0; cut < full.size(); ++cut) {
      EXPECT_EQ(decode_pkcs8(Bytes(full.begin(), full.begin() + cut)), KS_ERR_DER_TRUNCATED) << cut;
    }
  }
}

// ---- SM2 and RFC 8410 keys are another algorithm to each other's decoders ------
struct Sm2Der {
  Bytes pkcs8, sec1, spki;
};

Sm2Der sm2_key() {
  ks_sm2_key* key = nullptr;
  EXPECT_EQ(ks_sm2_key_generate(&key), KS_OK);
  uint8_t d[32], pub[65];
  EXPECT_EQ(ks_sm2_key_to_bytes(key, d), KS_OK);
  ks_sm2_pubkey* p = nullptr;
  EXPECT_EQ(ks_sm2_key_public(key, &p), KS_OK);
  size_t len = 0;
  EXPECT_EQ(ks_sm2_pubkey_to_bytes(p, 0, pub, sizeof pub, &len), KS_OK);
  ks_sm2_pubkey_free(p);
  ks_sm2_key_free(key);
  Sm2Der out;
  out.pkcs8 = plain(ks::sm2_formats::pkcs8_encode(d, pub));
  out.spki = plain(ks::sm2_formats::spki_encode(pub, sizeof pub));
  // SEC1 ECPrivateKey: the PKCS#8 privateKey OCTET STRING's contents.
  ks::der::Reader top(out.pkcs8.data(), out.pkcs8.size()), seq, skip, sec1;
  EXPECT_EQ(top.read(ks::der::kSequence, &seq), ks::der::Error::kOk);
  EXPECT_EQ(seq.read(ks::der::kInteger, &skip), ks::der::Error::kOk);
  EXPECT_EQ(seq.read(ks::der::kSequence, &skip), ks::der::Error::kOk);
  EXPECT_EQ(seq.read(ks::der::kOctetString, &sec1), ks::der::Error::kOk);
  out.sec1.assign(sec1.data(), sec1.data() + sec1.remaining());
  return out;
}

TEST(Curve25519Formats, Sm2KeysAreAnotherAlgorithm) {
  const Sm2Der sm2 = sm2_key();
  EXPECT_EQ(decode_spki(sm2.spki), KS_ERR_KEY_ALGORITHM);
  EXPECT_EQ(decode_pkcs8(sm2.pkcs8), KS_ERR_KEY_ALGORITHM);
  // A bare SEC1 key is no PKCS#8 at all: an OCTET STRING where the
  // AlgorithmIdentifier belongs.
  EXPECT_EQ(decode_pkcs8(sm2.sec1), KS_ERR_DER_TAG);
  // And keys of other algorithms that OpenSSL writes.
  for (const char* name : {"ED448", "X448"}) {
    Pkey other = openssl_generate(name);
    EXPECT_EQ(decode_pkcs8(openssl_pkcs8(other.get())), KS_ERR_KEY_ALGORITHM) << name;
    EXPECT_EQ(decode_spki(openssl_spki(other.get())), KS_ERR_KEY_ALGORITHM) << name;
  }
  Pkey p256(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  EXPECT_EQ(decode_pkcs8(openssl_pkcs8_bio(p256.get())), KS_ERR_KEY_ALGORITHM);
  EXPECT_EQ(decode_spki(openssl_spki(p256.get())), KS_ERR_KEY_ALGORITHM);
}

int sm2_private_decode(const Bytes& der) {
  uint8_t d[32];
  const uint8_t* pub = nullptr;
  size_t pub_len = 0;
  return ks::sm2_formats::private_key_decode(der.data(), der.size(), d, &pub, &pub_len);
}

int sm2_spki_decode(const Bytes& der) {
  const uint8_t* point = nullptr;
  size_t len = 0;
  return ks::sm2_formats::spki_decode(der.data(), der.size(), &point, &len);
}

TEST(Curve25519Formats, Sm2DecodersRejectRfc8410Keys) {
  const Sm2Der sm2 = sm2_key();  // the SM2 decoders still take their own
  ASSERT_EQ(sm2_private_decode(sm2.pkcs8), KS_OK);
  ASSERT_EQ(sm2_private_decode(sm2.sec1), KS_OK);
  ASSERT_EQ(sm2_spki_decode(sm2.spki), KS_OK);
  for (Curve25519Alg alg : kAlgs) {
    Pkey theirs = openssl_generate(openssl_name(alg));
    const Bytes priv = openssl_pkcs8(theirs.get()), pub = openssl_spki(theirs.get());
    EXPECT_EQ(sm2_private_decode(priv), KS_ERR_KEY_ALGORITHM);
    EXPECT_EQ(sm2_spki_decode(pub), KS_ERR_KEY_ALGORITHM);
    // Through the C API, DER and PEM.
    ks_sm2_key* key = nullptr;
    EXPECT_EQ(ks_sm2_key_decode(priv.data(), priv.size(), &key), KS_ERR_KEY_ALGORITHM);
    const std::string pem = openssl_private_pem(theirs.get());
    EXPECT_EQ(ks_sm2_key_decode(reinterpret_cast<const uint8_t*>(pem.data()), pem.size(), &key),
              KS_ERR_KEY_ALGORITHM);
    EXPECT_EQ(key, nullptr);
    ks_sm2_pubkey* pk = nullptr;
    EXPECT_EQ(ks_sm2_pubkey_decode(pub.data(), pub.size(), &pk), KS_ERR_KEY_ALGORITHM);
    EXPECT_EQ(pk, nullptr);
  }
  // Version 1 (OneAsymmetricKey) starts like a SEC1 key (INTEGER 1); it is
  // still another algorithm, not a broken SEC1 key.
  EXPECT_EQ(sm2_private_decode(base64(kRfcPrivateV1)), KS_ERR_KEY_ALGORITHM);
  // An SM2 OneAsymmetricKey is not read (only version 0 is, for SM2).
  Bytes sm2_v1 = sm2.pkcs8;
  ASSERT_EQ(Bytes(sm2_v1.begin() + 3, sm2_v1.begin() + 6), version(0));  // after 30 81 87
  sm2_v1[5] = 1;
  EXPECT_EQ(sm2_private_decode(sm2_v1), KS_ERR_KEY_VERSION);
}

}  // namespace
