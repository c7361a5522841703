// Ed25519, Ed25519ctx and Ed25519ph (curve25519/ed25519.h) against the RFC 8032
// section 7 known answers and OpenSSL's EVP Ed25519 in both directions, and
// the verification rules of curve25519/ed25519.h on the inputs where
// implementations disagree.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>
#include <vector>

#include "curve25519/ed25519_curve.h"
#include "field/sc25519.h"
#include "curve25519/ed25519.h"
#include "test_util.h"

namespace {

using ks::ed25519::Domain;
using ks::ed25519::Error;
using ks::ed25519::Flavor;
using ks_test::from_hex;
using ks_test::random_bytes;
using ks_test::to_hex;

struct Vector {
  const char* seed;
  const char* pub;
  const char* msg;
  Flavor flavor;
  const char* context;  // hex
  const char* sig;
};

// RFC 8032 7.1 (TEST 1, 2, 3, 1024 are below; SHA(abc) in its own test),
// 7.2 (Ed25519ctx) and 7.3 (Ed25519ph).
const Vector kVectors[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "", Flavor::kPure, "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72", Flavor::kPure, "",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82", Flavor::kPure, "",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
    {"0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "f726936d19c800494e3fdaff20b276a8", Flavor::kCtx, "666f6f",
     "55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b95130022907a7fb7c4e9b2d5f6cca685a587b4b21f4b888e4e7edb0d"},
    {"0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "f726936d19c800494e3fdaff20b276a8", Flavor::kCtx, "626172",
     "fc60d5872fc46b3aa69f8b5b4351d5808f92bcc044606db097abab6dbcb1aee3216c48e8b3b66431b5b186d1d28f8ee15a5ca2df6668346291c2043d4eb3e90d"},
    {"0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "508e9e6882b979fea900f62adceaca35", Flavor::kCtx, "666f6f",
     "8b70c1cc8310e1de20ac53ce28ae6e7207f33c3295e03bb5c0732a1d20dc64908922a8b052cf99b7c4fe107a5abb5b2c4085ae75890d02df26269d8945f84b0b"},
    {"ab9c2853ce297ddab85c993b3ae14bcad39b2c682beabc27d6d4eb20711d6560",
     "0f1d1274943b91415889152e893d80e93275a1fc0b65fd71b4b0dda10ad7d772",
     "f726936d19c800494e3fdaff20b276a8", Flavor::kCtx, "666f6f",
     "21655b5f1aa965996b3f97b3c849eafba922a0a62992f73b3d1b73106a84ad85e9b86a7b6005ea868337ff2d20a7f5fbd4cd10b0be49a68da2b2e0dc0ad8960f"},
    {"833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf", "616263", Flavor::kPh, "",
     "98a70222f0b8121aa9d30f813d683f809e462b469c7ff87639499bb94e6dae4131f85042463c2a355a2003d062adf5aaa10b8c61e636062aaad11c2a26083406"},
};

Domain domain_of(Flavor flavor, const std::vector<uint8_t>& context) {
  Domain d;
  d.flavor = flavor;
  d.context = context.data();
  d.context_len = context.size();
  return d;
}

void check_vector(const std::string& seed_hex, const std::string& pub_hex, const std::vector<uint8_t>& msg,
                  Flavor flavor, const std::string& context_hex, const std::string& sig_hex) {
  const std::vector<uint8_t> seed = from_hex(seed_hex), context = from_hex(context_hex);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seed.data());
  EXPECT_EQ(to_hex(key.pub.bytes, 32), to_hex(from_hex(pub_hex).data(), 32));
  uint8_t sig[64];
  const Domain domain = domain_of(flavor, context);
  ASSERT_EQ(ks::ed25519::sign(sig, key, domain, msg.data(), msg.size()), Error::kOk);
  EXPECT_EQ(to_hex(sig, 64), to_hex(from_hex(sig_hex).data(), 64));
  ks::ed25519::PublicKey pub;
  ASSERT_EQ(ks::ed25519::public_key_from_bytes(pub, key.pub.bytes), Error::kOk);
  EXPECT_EQ(ks::ed25519::verify(pub, domain, msg.data(), msg.size(), sig), Error::kOk);
  sig[10] ^= 1;
  EXPECT_NE(ks::ed25519::verify(pub, domain, msg.data(), msg.size(), sig), Error::kOk);
}

TEST(Ed25519, Rfc8032Vectors) {
  for (const Vector& v : kVectors) check_vector(v.seed, v.pub, from_hex(v.msg), v.flavor, v.context, v.sig);
}

// RFC 8032 7.1 TEST 1024 (a 1023-byte message) and TEST SHA(abc): the
// message of the latter is SHA-512("abc"), computed here with OpenSSL.
TEST(Ed25519, Rfc8032LongAndShaAbcVectors) {
  const char* kMessage1024 =
    "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1"
    "e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d"
    "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a"
    "7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e"
    "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
    "3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1"
    "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d"
    "502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270"
    "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089b"
    "eccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
    "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969b"
    "e3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7"
    "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988d"
    "cda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df"
    "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
    "984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4"
    "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac09"
    "43bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f"
    "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f161"
    "0e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
    "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8ca"
    "c60c905c15fc910840b94c00a0b9d0";
  check_vector("f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
               "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
               from_hex(kMessage1024), Flavor::kPure, "",
               "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03");
  uint8_t sha_abc[64];
  unsigned len = 0;
  EVP_Digest("abc", 3, sha_abc, &len, EVP_sha512(), nullptr);
  check_vector("833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
               "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
               std::vector<uint8_t>(sha_abc, sha_abc + 64), Flavor::kPure, "",
               "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704");
}

EVP_PKEY* openssl_key(const uint8_t seed[32]) {
  return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed, 32);
}

std::vector<uint8_t> openssl_sign(EVP_PKEY* key, const std::vector<uint8_t>& msg) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_DigestSignInit(md, nullptr, nullptr, nullptr, key);
  std::vector<uint8_t> sig(64);
  size_t len = 64;
  EXPECT_EQ(EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size()), 1);
  EVP_MD_CTX_free(md);
  return sig;
}

bool openssl_verify(const uint8_t pub[32], const std::vector<uint8_t>& msg, const uint8_t sig[64]) {
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, pub, 32);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_DigestVerifyInit(md, nullptr, nullptr, nullptr, key);
  const bool ok = EVP_DigestVerify(md, sig, 64, msg.data(), msg.size()) == 1;
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(key);
  return ok;
}

// Random seeds and messages of many lengths, both directions.
TEST(Ed25519, MatchesOpenSslBothWays) {
  const Domain pure;
  for (size_t len : {0, 1, 31, 32, 63, 64, 111, 112, 127, 128, 129, 1000, 100000}) {
    const std::vector<uint8_t> seed = random_bytes(32), msg = random_bytes(len);
    ks::ed25519::PrivateKey key;
    ks::ed25519::key_from_seed(key, seed.data());
    EVP_PKEY* theirs = openssl_key(seed.data());
    uint8_t their_pub[32];
    size_t pub_len = 32;
    EVP_PKEY_get_raw_public_key(theirs, their_pub, &pub_len);
    ASSERT_EQ(to_hex(key.pub.bytes, 32), to_hex(their_pub, 32));
    uint8_t sig[64];
    ASSERT_EQ(ks::ed25519::sign(sig, key, pure, msg.data(), msg.size()), Error::kOk);
    EXPECT_EQ(to_hex(sig, 64), to_hex(openssl_sign(theirs, msg).data(), 64)) << len;
    EXPECT_TRUE(openssl_verify(key.pub.bytes, msg, sig));
    ks::ed25519::PublicKey pub;
    ASSERT_EQ(ks::ed25519::public_key_from_bytes(pub, their_pub), Error::kOk);
    const std::vector<uint8_t> theirs_sig = openssl_sign(theirs, msg);
    EXPECT_EQ(ks::ed25519::verify(pub, pure, msg.data(), msg.size(), theirs_sig.data()), Error::kOk);
    EVP_PKEY_free(theirs);
  }
}

// S + L (the malleable twin of a valid S) is rejected, as by OpenSSL.
TEST(Ed25519, NonCanonicalSIsRejected) {
  const std::vector<uint8_t> seed = random_bytes(32), msg = random_bytes(40);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seed.data());
  uint8_t sig[64];
  ks::ed25519::sign(sig, key, Domain(), msg.data(), msg.size());
  using ks::field::U256;
  U256 s = ks::field::Sc25519::from_le_bytes(sig + 32), s_plus_l;
  const uint64_t carry = ks::field::add_carry(s_plus_l, s, ks::field::Sc25519::kModulus);
  ASSERT_EQ(carry, 0u);
  ks::field::Sc25519::to_le_bytes(sig + 32, s_plus_l);
  ks::ed25519::PublicKey pub;
  ks::ed25519::public_key_from_bytes(pub, key.pub.bytes);
  EXPECT_EQ(ks::ed25519::verify(pub, Domain(), msg.data(), msg.size(), sig), Error::kBadSignature);
  EXPECT_FALSE(openssl_verify(key.pub.bytes, msg, sig));
}

// A non-canonical encoding of A (y + p) and of R: rejected.
TEST(Ed25519, NonCanonicalPointEncodingsAreRejected) {
  // y = 1 + p: the identity's non-canonical twin; y = p - 1 + p is over 2^255
  uint8_t y1p[32];
  memset(y1p, 0xFF, 32);
  y1p[0] = 0xEE;
  y1p[31] = 0x7F;
  ks::ed25519::PublicKey pub;
  EXPECT_EQ(ks::ed25519::public_key_from_bytes(pub, y1p), Error::kBadPublicKey);
  // A signature whose R is that encoding
  const std::vector<uint8_t> seed = random_bytes(32);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seed.data());
  uint8_t sig[64] = {0};
  memcpy(sig, y1p, 32);
  ks::ed25519::public_key_from_bytes(pub, key.pub.bytes);
  EXPECT_EQ(ks::ed25519::verify(pub, Domain(), nullptr, 0, sig), Error::kBadSignature);
}

// Public keys and R of small order are rejected (rule 3): the identity as
// A verifies "signatures" R = identity, S = 0 of every message under the
// bare equation.
TEST(Ed25519, SmallOrderKeysAndRAreRejected) {
  const std::vector<uint8_t> identity = from_hex("0100000000000000000000000000000000000000000000000000000000000000");
  ks::ed25519::PublicKey pub;
  EXPECT_EQ(ks::ed25519::public_key_from_bytes(pub, identity.data()), Error::kBadPublicKey);
  const std::vector<uint8_t> order8 = from_hex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a");
  EXPECT_EQ(ks::ed25519::public_key_from_bytes(pub, order8.data()), Error::kBadPublicKey);
  const std::vector<uint8_t> seed = random_bytes(32);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seed.data());
  ks::ed25519::public_key_from_bytes(pub, key.pub.bytes);
  uint8_t sig[64] = {0};
  memcpy(sig, identity.data(), 32);
  EXPECT_EQ(ks::ed25519::verify(pub, Domain(), nullptr, 0, sig), Error::kBadSignature);
}

// A valid signature with a torsion component added to R: R' = R + T8 (T8
// of order 8) and S unchanged. Then [S]B - [k']A - R' is a small-order
// point only if k' = k, which fails (k' hashes R'); so instead build the
// signature for R' honestly: r chosen, R' = [r]B + T8, k = H(R'||A||M),
// S = r + k s. [8]([S]B - [k]A - R') = [8](-T8) = identity: the cofactored
// equation accepts, the cofactorless one (OpenSSL's) rejects.
TEST(Ed25519, MixedOrderRVerifiesCofactoredOnly) {
  namespace curve25519 = ks::curve::ed25519;
  using ks::field::Sc25519;
  using ks::field::U256;
  const std::vector<uint8_t> seed = random_bytes(32), msg = random_bytes(33);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seed.data());
  std::vector<uint8_t> r_bytes = random_bytes(64);
  const U256 r = Sc25519::reduce_wide(r_bytes.data());
  const std::vector<uint8_t> t8 = from_hex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a");
  curve25519::Point torsion;
  ASSERT_TRUE(curve25519::decode(torsion, t8.data()));
  const curve25519::Point rb = curve25519::mul_base(r);
  const curve25519::Point mixed =
      ks::curve::ed::add(rb, ks::curve::ed::cached(torsion, curve25519::kD2)).extended();
  uint8_t sig[64];
  curve25519::encode(sig, mixed);
  // k = SHA-512(R' || A || M) mod L, through OpenSSL's SHA-512
  std::vector<uint8_t> in(sig, sig + 32);
  in.insert(in.end(), key.pub.bytes, key.pub.bytes + 32);
  in.insert(in.end(), msg.begin(), msg.end());
  uint8_t h[64];
  unsigned hlen = 0;
  EVP_Digest(in.data(), in.size(), h, &hlen, EVP_sha512(), nullptr);
  const U256 k = Sc25519::reduce_wide(h);
  Sc25519::to_le_bytes(sig + 32, ks::ed25519::signing_equation(r, k, key.s_mont));
  ks::ed25519::PublicKey pub;
  ks::ed25519::public_key_from_bytes(pub, key.pub.bytes);
  EXPECT_EQ(ks::ed25519::verify(pub, Domain(), msg.data(), msg.size(), sig), Error::kOk);
  EXPECT_FALSE(openssl_verify(key.pub.bytes, msg, sig)) << "OpenSSL's equation is cofactorless";
}

TEST(Ed25519, ContextRules) {
  const std::vector<uint8_t> seed = random_bytes(32), msg = random_bytes(10);
  ks::ed25519::PrivateKey key;
  ks::ed25519::key_from_seed(key, seed.data());
  uint8_t sig[64];
  const std::vector<uint8_t> empty, ctx255(255, 7), ctx256(256, 7);
  EXPECT_EQ(ks::ed25519::sign(sig, key, domain_of(Flavor::kCtx, empty), msg.data(), msg.size()),
            Error::kBadContext);
  EXPECT_EQ(ks::ed25519::sign(sig, key, domain_of(Flavor::kCtx, ctx256), msg.data(), msg.size()),
            Error::kBadContext);
  EXPECT_EQ(ks::ed25519::sign(sig, key, domain_of(Flavor::kPure, ctx255), msg.data(), msg.size()),
            Error::kBadContext);
  ASSERT_EQ(ks::ed25519::sign(sig, key, domain_of(Flavor::kCtx, ctx255), msg.data(), msg.size()),
            Error::kOk);
  ks::ed25519::PublicKey pub;
  ks::ed25519::public_key_from_bytes(pub, key.pub.bytes);
  EXPECT_EQ(ks::ed25519::verify(pub, domain_of(Flavor::kCtx, ctx255), msg.data(), msg.size(), sig),
            Error::kOk);
  // The same signature under another flavor or context does not verify.
  EXPECT_EQ(ks::ed25519::verify(pub, domain_of(Flavor::kPh, ctx255), msg.data(), msg.size(), sig),
            Error::kVerifyFailed);
  EXPECT_EQ(ks::ed25519::verify(pub, Domain(), msg.data(), msg.size(), sig), Error::kVerifyFailed);
  // Ed25519ph with an empty context is allowed
  ASSERT_EQ(ks::ed25519::sign(sig, key, domain_of(Flavor::kPh, empty), msg.data(), msg.size()),
            Error::kOk);
  EXPECT_EQ(ks::ed25519::verify(pub, domain_of(Flavor::kPh, empty), msg.data(), msg.size(), sig),
            Error::kOk);
}

}  // namespace
