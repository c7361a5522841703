// GCM (src/cipher/gcm.h) and GHASH (ghash.h). The mode code is proved
// against OpenSSL by running it over OpenSSL's AES block function and
// comparing with EVP aes-128-gcm (OpenSSL 3.0 has no SM4-GCM); SM4-GCM is
// checked with RFC 8998's example; every GHASH kernel against a bit-by-bit
// model of SP 800-38D Algorithm 1; and the edge cases: empty text and AAD,
// IVs of other lengths, every tag length, every tag bit flipped, a counter
// whose low 32 bits wrap (inc32).
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cipher/gcm.h"
#include "cipher/ghash.h"
#include "sm4/sm4.h"
#include "sm4_gcm_vectors.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

// --- SP 800-38D 6.3 Algorithm 1, bit by bit: the independent model ------
struct Block {
  uint8_t b[16];
};

Block gf_mul(const Block& x, const Block& y) {
  Block z = {}, v = y;
  for (int i = 0; i < 128; ++i) {
    if ((x.b[i / 8] >> (7 - i % 8)) & 1)
      for (int j = 0; j < 16; ++j) z.b[j] ^= v.b[j];
    const bool lsb = v.b[15] & 1;
    for (int j = 15; j > 0; --j) v.b[j] = uint8_t((v.b[j] >> 1) | (v.b[j - 1] << 7));
    v.b[0] >>= 1;
    if (lsb) v.b[0] ^= 0xe1;  // R = 11100001 || 0^120
  }
  return z;
}

Block ghash_model(const Block& h, const uint8_t* data, size_t nblocks, Block y = Block{}) {
  for (size_t i = 0; i < nblocks; ++i) {
    for (int j = 0; j < 16; ++j) y.b[j] ^= data[16 * i + j];
    y = gf_mul(y, h);
  }
  return y;
}

// x^-1 = x^(2^128 - 2).
Block gf_inverse(const Block& x) {
  Block result = {}, power = x;
  result.b[0] = 0x80;  // 1
  for (int i = 1; i < 128; ++i) {  // bits 1 .. 127 of 2^128 - 2 are set
    power = gf_mul(power, power);
    result = gf_mul(result, power);
  }
  return result;
}

std::vector<const ks::ghash::Variant*> usable_ghash() {
  size_t count = 0;
  const ks::ghash::Variant* t = ks::ghash::variants(&count);
  std::vector<const ks::ghash::Variant*> out;
  for (size_t i = 0; i < count; ++i) {
    if (t[i].usable) {
      out.push_back(&t[i]);
    } else {
      std::printf("  [GHASH variant %s: not usable on this CPU, skipped]\n", t[i].name);
    }
  }
  return out;
}

TEST(Ghash, EveryVariantMatchesTheModel) {
  std::mt19937 rng(41);
  std::vector<size_t> counts;
  for (size_t n = 0; n <= 40; ++n) counts.push_back(n);
  for (size_t n : {63, 64, 65, 255, 1000}) counts.push_back(n);
  for (const auto* v : usable_ghash()) {
    SCOPED_TRACE(v->name);
    for (size_t n : counts) {
      Block h, y0;
      const Bytes hb = ks_test::random_bytes(rng, 16), yb = ks_test::random_bytes(rng, 16);
      memcpy(h.b, hb.data(), 16);
      memcpy(y0.b, yb.data(), 16);
      const Bytes data = ks_test::random_bytes(rng, 16 * n + 1);
      ks::ghash::Key key;
      ks::ghash::init(&key, h.b, *v);
      uint8_t y[16];
      memcpy(y, y0.b, 16);
      ks::ghash::blocks(key, y, data.data() + 1, n);  // misaligned
      const Block expect = ghash_model(h, data.data() + 1, n, y0);
      ASSERT_EQ(Bytes(y, y + 16), Bytes(expect.b, expect.b + 16)) << "n=" << n;
    }
  }
}

// --- The generic GCM over OpenSSL's AES -----------------------------------
struct AesKey {
  EVP_CIPHER_CTX* ctx;
};

void aes_encrypt(const void* key, const uint8_t* in, uint8_t* out, size_t nblocks) {
  int len = 0;
  EVP_EncryptUpdate(static_cast<const AesKey*>(key)->ctx, out, &len, in, int(16 * nblocks));
}

void aes_ctr(const void* key, uint8_t counter[16], const uint8_t* in, uint8_t* out,
             size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) {
    uint8_t ks[16];
    aes_encrypt(key, counter, ks, 1);
    for (int j = 0; j < 16; ++j) out[16 * i + j] = in[16 * i + j] ^ ks[j];
    for (int j = 15; j >= 0 && ++counter[j] == 0; --j) {
    }
  }
}

const ks::BlockCipher kAes = {aes_encrypt, nullptr, aes_ctr};

struct Aes {
  AesKey key;
  explicit Aes(const Bytes& k) {
    key.ctx = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(key.ctx, EVP_aes_128_ecb(), nullptr, k.data(), nullptr);
    EVP_CIPHER_CTX_set_padding(key.ctx, 0);
  }
  ~Aes() { EVP_CIPHER_CTX_free(key.ctx); }
};

void openssl_aes_gcm(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& pt,
                     Bytes* ct, Bytes* tag) {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int len = 0;
  EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), nullptr, nullptr, nullptr);
  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, int(iv.size()), nullptr);
  EVP_EncryptInit_ex(c, nullptr, nullptr, key.data(), iv.data());
  if (!aad.empty()) EVP_EncryptUpdate(c, nullptr, &len, aad.data(), int(aad.size()));
  ct->assign(pt.size() + 16, 0);
  EVP_EncryptUpdate(c, ct->data(), &len, pt.data(), int(pt.size()));
  int fin = 0;
  EVP_EncryptFinal_ex(c, ct->data() + len, &fin);
  ct->resize(size_t(len + fin));
  tag->assign(16, 0);
  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag->data());
  EVP_CIPHER_CTX_free(c);
}

TEST(GcmOverAes, MatchesOpenSsl) {
  std::mt19937 rng(42);
  const size_t iv_lens[] = {12, 1, 8, 16, 17, 32, 60};
  const size_t text_lens[] = {0, 1, 15, 16, 17, 64, 255, 256, 1000, 4096, 4097, 10000};
  for (const auto* gv : usable_ghash()) {
    SCOPED_TRACE(gv->name);
    for (size_t iv_len : iv_lens) {
      for (size_t len : text_lens) {
        const size_t aad_len = rng() % 70;
        const size_t tag_len = 4 + rng() % 13;
        const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, iv_len),
                    aad = ks_test::random_bytes(rng, aad_len), pt = ks_test::random_bytes(rng, len);
        SCOPED_TRACE("iv=" + std::to_string(iv_len) + " len=" + std::to_string(len));
        Bytes expect_ct, expect_tag;
        openssl_aes_gcm(key, iv, aad, pt, &expect_ct, &expect_tag);
        Aes aes(key);
        // Streaming, with the AAD and text cut in two at random.
        ks::gcm::Gcm g;
        ASSERT_TRUE(g.init(kAes, &aes.key, iv.data(), iv.size(), *gv));
        const size_t a_cut = aad_len ? rng() % aad_len : 0, t_cut = len ? rng() % len : 0;
        ASSERT_TRUE(g.aad(aad.data(), a_cut));
        ASSERT_TRUE(g.aad(aad.data() + a_cut, aad_len - a_cut));
        Bytes ct(len);
        ASSERT_TRUE(g.encrypt(kAes, &aes.key, pt.data(), ct.data(), t_cut));
        ASSERT_TRUE(g.encrypt(kAes, &aes.key, pt.data() + t_cut, ct.data() + t_cut, len - t_cut));
        uint8_t tag[16];
        g.tag(tag);
        ASSERT_EQ(ct, expect_ct);
        ASSERT_EQ(Bytes(tag, tag + 16), expect_tag);
        // One-shot, the tag truncated.
        Bytes ct2(len), tag2(tag_len), back(len);
        ASSERT_TRUE(ks::gcm::seal(kAes, &aes.key, iv.data(), iv.size(), aad.data(), aad_len,
                                  pt.data(), len, ct2.data(), tag2.data(), tag_len));
        ASSERT_EQ(ct2, expect_ct);
        ASSERT_EQ(tag2, Bytes(expect_tag.begin(), expect_tag.begin() + tag_len));
        ASSERT_TRUE(ks::gcm::open(kAes, &aes.key, iv.data(), iv.size(), aad.data(), aad_len,
                                  ct2.data(), len, tag2.data(), tag_len, back.data()));
        ASSERT_EQ(back, pt);
      }
    }
  }
}

// GCTR counts with inc32 (SP 800-38D 6.2): an IV whose J0 ends in
// ...fffffffe makes the low word wrap to 0 on the third counter block, and
// the upper 96 bits must not change. The IV is found by inverting GHASH.
TEST(GcmOverAes, CounterLowWordWraps) {
  std::mt19937 rng(43);
  const Bytes key = ks_test::random_bytes(rng, 16);
  Aes aes(key);
  Block h = {};
  aes_encrypt(&aes.key, h.b, h.b, 1);
  Block j0;
  const Bytes upper = ks_test::random_bytes(rng, 12);
  memcpy(j0.b, upper.data(), 12);
  j0.b[12] = j0.b[13] = j0.b[14] = 0xff;
  j0.b[15] = 0xfe;
  // J0 = ((IV * H) ^ L) * H for a one-block IV, L = 0^64 || [128]_64.
  Block l = {};
  l.b[15] = 128;
  const Block h_inv = gf_inverse(h);
  Block t = gf_mul(j0, h_inv);
  for (int i = 0; i < 16; ++i) t.b[i] ^= l.b[i];
  const Block ivb = gf_mul(t, h_inv);
  const Bytes iv(ivb.b, ivb.b + 16), pt = ks_test::random_bytes(rng, 100), aad;
  const Block check = ghash_model(h, l.b, 1, gf_mul(ivb, h));
  ASSERT_EQ(Bytes(check.b, check.b + 16), Bytes(j0.b, j0.b + 16));
  Bytes expect_ct, expect_tag;
  openssl_aes_gcm(key, iv, aad, pt, &expect_ct, &expect_tag);
  Bytes ct(pt.size()), tag(16);
  ASSERT_TRUE(ks::gcm::seal(kAes, &aes.key, iv.data(), 16, nullptr, 0, pt.data(), pt.size(),
                            ct.data(), tag.data(), 16));
  EXPECT_EQ(ct, expect_ct);
  EXPECT_EQ(tag, expect_tag);
}

// --- SM4-GCM ------------------------------------------------------------
std::vector<const ks::sm4::Variant*> usable_sm4() {
  size_t count = 0;
  const ks::sm4::Variant* t = ks::sm4::variants(&count);
  std::vector<const ks::sm4::Variant*> out;
  for (size_t i = 0; i < count; ++i)
    if (t[i].usable) out.push_back(&t[i]);
  return out;
}

// RFC 8998 appendix A.1.
TEST(Sm4Gcm, Rfc8998Example) {
  const ks_test::GcmExample ex = ks_test::rfc8998_example();
  const Bytes &key = ex.key, &iv = ex.iv, &aad = ex.aad, &pt = ex.pt, &ct = ex.ct, &tag = ex.tag;
  for (const auto* sv : usable_sm4()) {
    for (const auto* gv : usable_ghash()) {
      SCOPED_TRACE(std::string(sv->name) + " / " + gv->name);
      ks::sm4::Key k;
      ks::sm4::set_key(&k, key.data(), *sv);
      ks::gcm::Gcm g;
      ASSERT_TRUE(g.init(ks::sm4::block_cipher(), &k, iv.data(), iv.size(), *gv));
      ASSERT_TRUE(g.aad(aad.data(), aad.size()));
      Bytes out(pt.size());
      ASSERT_TRUE(g.encrypt(ks::sm4::block_cipher(), &k, pt.data(), out.data(), pt.size()));
      uint8_t t[16];
      g.tag(t);
      EXPECT_EQ(out, ct);
      EXPECT_EQ(Bytes(t, t + 16), tag);
      Bytes back(pt.size());
      ASSERT_TRUE(ks::gcm::open(ks::sm4::block_cipher(), &k, iv.data(), iv.size(), aad.data(),
                                aad.size(), ct.data(), ct.size(), tag.data(), 16, back.data()));
      EXPECT_EQ(back, pt);
    }
  }
}

TEST(Sm4Gcm, EdgeCases) {
  std::mt19937 rng(44);
  const auto& bc = ks::sm4::block_cipher();
  ks::sm4::Key k;
  const Bytes key = ks_test::random_bytes(rng, 16);
  ks::sm4::set_key(&k, key.data());
  for (size_t iv_len : {size_t(12), size_t(1), size_t(16), size_t(100)}) {
    for (size_t len : {size_t(0), size_t(1), size_t(33)}) {
      for (size_t aad_len : {size_t(0), size_t(5)}) {
        const Bytes iv = ks_test::random_bytes(rng, iv_len), aad = ks_test::random_bytes(rng, aad_len),
                    pt = ks_test::random_bytes(rng, len);
        for (size_t tag_len = ks::gcm::kMinTagBytes; tag_len <= 16; ++tag_len) {
          SCOPED_TRACE("iv=" + std::to_string(iv_len) + " len=" + std::to_string(len) +
                       " aad=" + std::to_string(aad_len) + " tag=" + std::to_string(tag_len));
          Bytes ct(len + 1), tag(tag_len);
          ASSERT_TRUE(ks::gcm::seal(bc, &k, iv.data(), iv_len, aad.data(), aad_len, pt.data(),
                                    len, ct.data(), tag.data(), tag_len));
          Bytes out(len + 1, 0x5c);
          ASSERT_TRUE(ks::gcm::open(bc, &k, iv.data(), iv_len, aad.data(), aad_len, ct.data(),
                                    len, tag.data(), tag_len, out.data()));
          ASSERT_EQ(Bytes(out.begin(), out.begin() + len), pt);
          // Every bit of the tag flipped: rejected, and no byte written.
          for (size_t bit = 0; bit < 8 * tag_len; ++bit) {
            Bytes bad = tag;
            bad[bit / 8] ^= uint8_t(1 << (bit % 8));
            Bytes untouched(len + 1, 0x5c);
            ASSERT_FALSE(ks::gcm::open(bc, &k, iv.data(), iv_len, aad.data(), aad_len,
                                       ct.data(), len, bad.data(), tag_len, untouched.data()));
            ASSERT_EQ(untouched, Bytes(len + 1, 0x5c));
          }
          // A flipped ciphertext or AAD byte too.
          if (len > 0) {
            Bytes bad_ct = ct;
            bad_ct[len - 1] ^= 0x80;
            ASSERT_FALSE(ks::gcm::open(bc, &k, iv.data(), iv_len, aad.data(), aad_len,
                                       bad_ct.data(), len, tag.data(), tag_len, out.data()));
          }
          if (aad_len > 0) {
            Bytes bad_aad = aad;
            bad_aad[0] ^= 1;
            ASSERT_FALSE(ks::gcm::open(bc, &k, iv.data(), iv_len, bad_aad.data(), aad_len,
                                       ct.data(), len, tag.data(), tag_len, out.data()));
          }
        }
      }
    }
  }
  // Lengths the standard does not allow.
  uint8_t iv[12] = {}, tag[17] = {}, buf[16] = {};
  EXPECT_FALSE(ks::gcm::seal(bc, &k, iv, 0, nullptr, 0, buf, 16, buf, tag, 16));
  EXPECT_FALSE(ks::gcm::seal(bc, &k, iv, 12, nullptr, 0, buf, 16, buf, tag, 3));
  EXPECT_FALSE(ks::gcm::seal(bc, &k, iv, 12, nullptr, 0, buf, 16, buf, tag, 17));
  EXPECT_FALSE(ks::gcm::open(bc, &k, iv, 12, nullptr, 0, buf, 16, tag, 3, buf));
  ks::gcm::Gcm g;
  ASSERT_TRUE(g.init(bc, &k, iv, 12));
  ASSERT_TRUE(g.encrypt(bc, &k, buf, buf, 16));
  EXPECT_FALSE(g.aad(buf, 1)) << "AAD after the text";
}

// Large messages through every SM4 kernel and the chosen GHASH, streamed in
// odd pieces, against the one-shot on the portable pair.
TEST(Sm4Gcm, VariantsAgreeOnLargeMessages) {
  std::mt19937 rng(45);
  const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 12), aad = ks_test::random_bytes(rng, 33);
  const size_t len = (size_t(1) << 20) + 13;
  const Bytes pt = ks_test::random_bytes(rng, len);
  ks::sm4::Key ref_key;
  ks::sm4::set_key(&ref_key, key.data(), ks::sm4::portable_variant());
  size_t count = 0;
  const ks::ghash::Variant* gtable = ks::ghash::variants(&count);
  const ks::ghash::Variant& portable_ghash = gtable[count - 1];
  ks::gcm::Gcm ref;
  ASSERT_TRUE(ref.init(ks::sm4::block_cipher(), &ref_key, iv.data(), 12, portable_ghash));
  ref.aad(aad.data(), aad.size());
  Bytes expect(len);
  // The portable pair over 64 KiB only (it is slow); the kernels over 1 MiB.
  const size_t ref_len = 65536 + 13;
  ASSERT_TRUE(ref.encrypt(ks::sm4::block_cipher(), &ref_key, pt.data(), expect.data(), ref_len));
  uint8_t ref_tag[16];
  ref.tag(ref_tag);
  for (const auto* sv : usable_sm4()) {
    if (std::string(sv->name) == "portable") continue;
    SCOPED_TRACE(sv->name);
    ks::sm4::Key k;
    ks::sm4::set_key(&k, key.data(), *sv);
    for (size_t n : {ref_len, len}) {
      ks::gcm::Gcm g;
      ASSERT_TRUE(g.init(ks::sm4::block_cipher(), &k, iv.data(), 12));
      g.aad(aad.data(), aad.size());
      Bytes out(n);
      for (size_t off = 0; off < n;) {
        const size_t piece = std::min<size_t>(n - off, 1 + rng() % 70000);
        ASSERT_TRUE(g.encrypt(ks::sm4::block_cipher(), &k, pt.data() + off, out.data() + off, piece));
        off += piece;
      }
      uint8_t t[16];
      g.tag(t);
      if (n == ref_len) {
        EXPECT_EQ(out, Bytes(expect.begin(), expect.begin() + ref_len));
        EXPECT_EQ(Bytes(t, t + 16), Bytes(ref_tag, ref_tag + 16));
      }
      Bytes back(n);
      ASSERT_TRUE(ks::gcm::open(ks::sm4::block_cipher(), &k, iv.data(), 12, aad.data(),
                                aad.size(), out.data(), n, t, 16, back.data()));
      ASSERT_EQ(back, Bytes(pt.begin(), pt.begin() + n));
    }
  }
}

}  // namespace
