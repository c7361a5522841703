// The SM4 C API (include/kuaisuo.h): one-shot, streaming and batch calls
// against OpenSSL and against each other, and every argument error
// reported as a status, never a crash.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

const EVP_CIPHER* evp_of(int mode) {
  switch (mode) {
    case KS_SM4_ECB: return EVP_sm4_ecb();
    case KS_SM4_CBC: return EVP_sm4_cbc();
    case KS_SM4_CFB: return EVP_sm4_cfb128();
    case KS_SM4_OFB: return EVP_sm4_ofb();
    default: return EVP_sm4_ctr();
  }
}

Bytes openssl_encrypt(int mode, bool pad, const Bytes& key, const Bytes& iv, const Bytes& in) {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  Bytes out(in.size() + 16);
  int len = 0, fin = 0;
  EVP_EncryptInit_ex(c, evp_of(mode), nullptr, key.data(), iv.data());
  EVP_CIPHER_CTX_set_padding(c, pad ? 1 : 0);
  EVP_EncryptUpdate(c, out.data(), &len, in.data(), int(in.size()));
  EVP_EncryptFinal_ex(c, out.data() + len, &fin);
  EVP_CIPHER_CTX_free(c);
  out.resize(size_t(len + fin));
  return out;
}

const int kModes[] = {KS_SM4_ECB, KS_SM4_CBC, KS_SM4_CFB, KS_SM4_OFB, KS_SM4_CTR};

TEST(Sm4Api, OneShotMatchesOpenSslInPlaceToo) {
  std::mt19937 rng(51);
  for (int mode : kModes) {
    const bool block = mode == KS_SM4_ECB || mode == KS_SM4_CBC;
    for (uint32_t flags : {0u, KS_SM4_PAD_PKCS7}) {
      if (flags != 0 && !block) continue;
      for (size_t len : {0, 1, 16, 33, 4096, 70001}) {
        if (block && flags == 0) len = len / 16 * 16;
        SCOPED_TRACE("mode=" + std::to_string(mode) + " flags=" + std::to_string(flags) +
                     " len=" + std::to_string(len));
        const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 16), pt = ks_test::random_bytes(rng, len);
        const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
        const Bytes expect = openssl_encrypt(mode, flags != 0, key, iv, pt);
        size_t need = 0;
        ASSERT_EQ(ks_sm4_crypt(mode, KS_ENCRYPT, flags, key.data(), iv.data(), iv_len, pt.data(),
                               len, nullptr, 0, &need),
                  expect.empty() ? KS_OK : KS_ERR_LENGTH);
        ASSERT_EQ(need, expect.size());
        Bytes buf(need + 16);
        std::copy(pt.begin(), pt.end(), buf.begin());  // pt may be empty (no data())
        size_t out_len = 0;
        ASSERT_EQ(ks_sm4_crypt(mode, KS_ENCRYPT, flags, key.data(), iv.data(), iv_len, buf.data(),
                               len, buf.data(), buf.size(), &out_len),
                  KS_OK);
        ASSERT_EQ(Bytes(buf.begin(), buf.begin() + out_len), expect);
        ASSERT_EQ(ks_sm4_crypt(mode, KS_DECRYPT, flags, key.data(), iv.data(), iv_len, buf.data(),
                               out_len, buf.data(), buf.size(), &out_len),
                  KS_OK);
        ASSERT_EQ(Bytes(buf.begin(), buf.begin() + out_len), pt);
      }
    }
  }
}

// One direction parameter, KS_ENCRYPT / KS_DECRYPT (any nonzero value
// encrypts, as for ks_sm4_init); the deprecated ks_sm4_encrypt / _decrypt
// give the same bytes and statuses.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(Sm4Api, CryptTakesTheDirectionAndTheOldPairAgrees) {
  static_assert(KS_DECRYPT == 0 && KS_ENCRYPT == 1, "the values ks_sm4_init always took");
  const Bytes key = ks_test::random_bytes(16), iv = ks_test::random_bytes(16);
  const Bytes pt = ks_test::random_bytes(37);
  for (int mode : {KS_SM4_ECB, KS_SM4_CBC, KS_SM4_CFB, KS_SM4_OFB, KS_SM4_CTR}) {
    const uint32_t flags = mode <= KS_SM4_CBC ? KS_SM4_PAD_PKCS7 : 0;
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
    Bytes ct(64), old_ct(64), back(64), old_back(64);
    size_t n = 0, m = 0;
    for (int encrypt : {int(KS_ENCRYPT), 2, -1}) {
      ASSERT_EQ(ks_sm4_crypt(mode, encrypt, flags, key.data(), iv.data(), iv_len, pt.data(),
                             pt.size(), ct.data(), ct.size(), &n),
                KS_OK);
      ASSERT_EQ(ks_sm4_encrypt(mode, flags, key.data(), iv.data(), iv_len, pt.data(), pt.size(),
                               old_ct.data(), old_ct.size(), &m),
                KS_OK);
      EXPECT_EQ(Bytes(ct.begin(), ct.begin() + n), Bytes(old_ct.begin(), old_ct.begin() + m))
          << "mode " << mode << " encrypt " << encrypt;
    }
    ASSERT_EQ(ks_sm4_crypt(mode, KS_DECRYPT, flags, key.data(), iv.data(), iv_len, ct.data(), n,
                           back.data(), back.size(), &m),
              KS_OK);
    EXPECT_EQ(Bytes(back.begin(), back.begin() + m), pt) << "mode " << mode;
    ASSERT_EQ(ks_sm4_decrypt(mode, flags, key.data(), iv.data(), iv_len, ct.data(), n,
                             old_back.data(), old_back.size(), &m),
              KS_OK);
    EXPECT_EQ(Bytes(old_back.begin(), old_back.begin() + m), pt) << "mode " << mode;
  }
  size_t n = 0;
  EXPECT_EQ(ks_sm4_encrypt(KS_SM4_GCM, 0, key.data(), iv.data(), 12, pt.data(), 16, nullptr, 0,
                           &n),
            KS_ERR_INVALID_ARGUMENT);
}
#pragma GCC diagnostic pop

TEST(Sm4Api, OneShotArgumentErrors) {
  uint8_t key[16] = {}, iv[16] = {}, buf[64] = {};
  size_t n = 0;
  // Encrypting into buf (out_cap bytes of it).
  const auto enc = [&](int mode, uint32_t flags, const uint8_t* k, const uint8_t* v, size_t v_len,
                       const uint8_t* in, size_t in_len, size_t out_cap, size_t* out_len) {
    return ks_sm4_crypt(mode, KS_ENCRYPT, flags, k, v, v_len, in, in_len, buf, out_cap, out_len);
  };
  EXPECT_EQ(enc(KS_SM4_CBC, 0, nullptr, iv, 16, buf, 16, 64, &n), KS_ERR_NULL_POINTER);
  EXPECT_EQ(enc(KS_SM4_CBC, 0, key, nullptr, 16, buf, 16, 64, &n), KS_ERR_NULL_POINTER);
  EXPECT_EQ(enc(KS_SM4_CBC, 0, key, iv, 16, nullptr, 16, 64, &n), KS_ERR_NULL_POINTER);
  EXPECT_EQ(enc(KS_SM4_CBC, 0, key, iv, 16, buf, 16, 64, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(enc(KS_SM4_CBC, 0, key, iv, 12, buf, 16, 64, &n), KS_ERR_LENGTH);
  EXPECT_EQ(enc(KS_SM4_ECB, 0, key, iv, 16, buf, 16, 64, &n), KS_ERR_LENGTH);
  EXPECT_EQ(enc(KS_SM4_CBC, 0, key, iv, 16, buf, 17, 64, &n), KS_ERR_LENGTH);
  EXPECT_EQ(enc(KS_SM4_GCM, 0, key, iv, 16, buf, 16, 64, &n), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(enc(-1, 0, key, iv, 16, buf, 16, 64, &n), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(enc(KS_SM4_CTR, KS_SM4_PAD_PKCS7, key, iv, 16, buf, 16, 64, &n),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(enc(KS_SM4_CBC, 8, key, iv, 16, buf, 16, 64, &n), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(enc(KS_SM4_CBC, KS_SM4_PAD_PKCS7, key, iv, 16, buf, 16, 31, &n), KS_ERR_LENGTH);
  EXPECT_EQ(n, 32u);
  // A decryption whose padding is bad: error, and nothing of it left in out.
  ASSERT_EQ(ks_sm4_crypt(KS_SM4_CBC, KS_ENCRYPT, 0, key, iv, 16, buf, 32, buf, 64, &n), KS_OK);
  uint8_t out[32];
  memset(out, 0x77, sizeof out);
  EXPECT_EQ(
      ks_sm4_crypt(KS_SM4_CBC, KS_DECRYPT, KS_SM4_PAD_PKCS7, key, iv, 16, buf, 32, out, 32, &n),
      KS_ERR_BAD_PADDING);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Bytes(out, out + 32), Bytes(32, 0));
  EXPECT_EQ(
      ks_sm4_crypt(KS_SM4_CBC, KS_DECRYPT, KS_SM4_PAD_PKCS7, key, iv, 16, buf, 0, out, 32, &n),
      KS_ERR_LENGTH);
}

TEST(Sm4Api, GcmOneShotAndStreaming) {
  // RFC 8998 A.1 through the C API.
  const uint8_t key[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                           0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
  const uint8_t iv[12] = {0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x00, 0xab, 0xcd};
  const uint8_t aad[20] = {0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed,
                           0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xab, 0xad, 0xda, 0xd2};
  uint8_t pt[64];
  for (int i = 0; i < 64; ++i) pt[i] = uint8_t("\xaa\xbb\xcc\xdd\xee\xff\xee\xaa"[i / 8]);
  const uint8_t expect_tag[16] = {0x83, 0xde, 0x35, 0x41, 0xe4, 0xc2, 0xb5, 0x81,
                                  0x77, 0xe0, 0x65, 0xa9, 0xbf, 0x7b, 0x62, 0xec};
  uint8_t ct[64], tag[16], back[64];
  ASSERT_EQ(ks_sm4_gcm_seal(key, iv, 12, aad, 20, pt, 64, ct, tag, 16), KS_OK);
  EXPECT_EQ(Bytes(tag, tag + 16), Bytes(expect_tag, expect_tag + 16));
  EXPECT_EQ(ct[0], 0x17);
  EXPECT_EQ(ct[63], 0x8d);
  ASSERT_EQ(ks_sm4_gcm_open(key, iv, 12, aad, 20, ct, 64, tag, 16, back), KS_OK);
  EXPECT_EQ(Bytes(back, back + 64), Bytes(pt, pt + 64));
  tag[3] ^= 4;
  memset(back, 0x11, 64);
  EXPECT_EQ(ks_sm4_gcm_open(key, iv, 12, aad, 20, ct, 64, tag, 16, back), KS_ERR_TAG_MISMATCH);
  EXPECT_EQ(Bytes(back, back + 64), Bytes(64, 0x11));
  tag[3] ^= 4;
  // Streaming, in pieces, both ways.
  ks_sm4_gcm_ctx c;
  ASSERT_EQ(ks_sm4_gcm_init(&c, 1, key, iv, 12), KS_OK);
  ASSERT_EQ(ks_sm4_gcm_aad(&c, aad, 7), KS_OK);
  ASSERT_EQ(ks_sm4_gcm_aad(&c, aad + 7, 13), KS_OK);
  uint8_t sct[64], stag[12];
  ASSERT_EQ(ks_sm4_gcm_update(&c, pt, 5, sct), KS_OK);
  ASSERT_EQ(ks_sm4_gcm_aad(&c, aad, 1), KS_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(ks_sm4_gcm_update(&c, pt + 5, 59, sct + 5), KS_OK);
  ASSERT_EQ(ks_sm4_gcm_verify(&c, tag, 16), KS_ERR_INVALID_ARGUMENT);  // an encryptor
  ASSERT_EQ(ks_sm4_gcm_final(&c, stag, 12), KS_OK);
  EXPECT_EQ(Bytes(sct, sct + 64), Bytes(ct, ct + 64));
  EXPECT_EQ(Bytes(stag, stag + 12), Bytes(expect_tag, expect_tag + 12));
  EXPECT_EQ(ks_sm4_gcm_update(&c, pt, 1, sct), KS_ERR_INVALID_ARGUMENT) << "wiped by final";
  ASSERT_EQ(ks_sm4_gcm_init(&c, 0, key, iv, 12), KS_OK);
  ASSERT_EQ(ks_sm4_gcm_aad(&c, aad, 20), KS_OK);
  ASSERT_EQ(ks_sm4_gcm_update(&c, ct, 64, back), KS_OK);
  EXPECT_EQ(ks_sm4_gcm_verify(&c, stag, 12), KS_OK);
  // Argument errors.
  EXPECT_EQ(ks_sm4_gcm_seal(key, iv, 0, aad, 20, pt, 64, ct, tag, 16), KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm4_gcm_seal(key, iv, 12, aad, 20, pt, 64, ct, tag, 3), KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm4_gcm_seal(key, iv, 12, nullptr, 20, pt, 64, ct, tag, 16), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_gcm_seal(key, iv, 12, aad, 20, pt, 64, nullptr, tag, 16), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_gcm_open(key, iv, 12, aad, 20, ct, 64, nullptr, 16, back), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_gcm_seal(key, iv, 12, nullptr, 0, nullptr, 0, nullptr, tag, 16), KS_OK);
}

TEST(Sm4Api, StreamingMatchesOneShot) {
  std::mt19937 rng(52);
  for (int mode : kModes) {
    for (uint32_t flags : {0u, KS_SM4_PAD_PKCS7}) {
      const bool block = mode == KS_SM4_ECB || mode == KS_SM4_CBC;
      if (flags != 0 && !block) continue;
      size_t len = 1 + rng() % 3000;
      if (block && flags == 0) len = len / 16 * 16;
      const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 16), pt = ks_test::random_bytes(rng, len);
      const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
      const Bytes expect = openssl_encrypt(mode, flags != 0, key, iv, pt);
      for (int encrypt : {1, 0}) {
        const Bytes& in = encrypt ? pt : expect;
        const Bytes& want = encrypt ? expect : pt;
        ks_sm4_ctx c;
        ASSERT_EQ(ks_sm4_init(&c, mode, encrypt, flags, key.data(), iv.data(), iv_len), KS_OK);
        Bytes out(in.size() + 32);
        size_t done = 0, off = 0;
        while (off < in.size()) {
          const size_t piece = std::min<size_t>(in.size() - off, 1 + rng() % 100);
          size_t n = 0;
          ASSERT_EQ(ks_sm4_update(&c, in.data() + off, piece, out.data() + done, piece + 16, &n), KS_OK);
          done += n;
          off += piece;
        }
        size_t n = 0;
        ASSERT_EQ(ks_sm4_final(&c, out.data() + done, 16, &n), KS_OK);
        out.resize(done + n);
        EXPECT_EQ(out, want) << "mode=" << mode << " encrypt=" << encrypt;
      }
    }
  }
  ks_sm4_ctx zeroed;
  memset(&zeroed, 0, sizeof zeroed);
  size_t n = 0;
  uint8_t b[32];
  EXPECT_EQ(ks_sm4_update(&zeroed, b, 16, b, 32, &n), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm4_final(&zeroed, b, 32, &n), KS_ERR_INVALID_ARGUMENT);
  ks_sm4_ctx c;
  uint8_t key[16] = {}, iv[16] = {};
  ASSERT_EQ(ks_sm4_init(&c, KS_SM4_CBC, 1, 0, key, iv, 16), KS_OK);
  EXPECT_EQ(ks_sm4_update(&c, b, 16, b + 16, 16, &n), KS_ERR_LENGTH) << "needs room for len + 16";
  ASSERT_EQ(ks_sm4_update(&c, b, 5, b + 16, 16 + 5, &n), KS_OK);
  EXPECT_EQ(ks_sm4_final(&c, b, 16, &n), KS_ERR_LENGTH) << "a partial block without padding";
}

// Issue 42: KS_ERR_BAD_PADDING from the streaming final, ECB and CBC,
// zeroes what final may write (as the one-shot call zeroes its output, and
// GCM never writes), instead of leaving the caller's bytes there.
TEST(Sm4Api, BadPaddingZeroesTheOutputOfFinalAndOneShot) {
  const uint8_t key[16] = {1, 2, 3}, iv[16] = {4, 5, 6};
  uint8_t ct[48], pt[48];
  memset(pt, 0x41, sizeof pt);  // the last byte, 0x41, is no PKCS#7 padding
  for (int mode : {KS_SM4_ECB, KS_SM4_CBC}) {
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
    size_t n = 0;
    ASSERT_EQ(ks_sm4_crypt(mode, KS_ENCRYPT, 0, key, iv, iv_len, pt, 48, ct, 48, &n), KS_OK);
    uint8_t out[48];
    memset(out, 0x77, sizeof out);
    EXPECT_EQ(
        ks_sm4_crypt(mode, KS_DECRYPT, KS_SM4_PAD_PKCS7, key, iv, iv_len, ct, 48, out, 48, &n),
        KS_ERR_BAD_PADDING);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(Bytes(out, out + 48), Bytes(48, 0)) << "one-shot, mode " << mode;
    ks_sm4_ctx c;
    ASSERT_EQ(ks_sm4_init(&c, mode, 0, KS_SM4_PAD_PKCS7, key, iv, iv_len), KS_OK);
    ASSERT_EQ(ks_sm4_update(&c, ct, 48, out, 64, &n), KS_OK);
    ASSERT_EQ(n, 32u);  // the last block is held back for final
    memset(out, 0x77, sizeof out);
    EXPECT_EQ(ks_sm4_final(&c, out + 32, 16, &n), KS_ERR_BAD_PADDING);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(Bytes(out + 32, out + 48), Bytes(16, 0)) << "final, mode " << mode;
    EXPECT_EQ(Bytes(out, out + 32), Bytes(32, 0x77)) << "nothing before out is touched";
  }
}

// A schedule made once gives what ks_sm4_crypt gives for every mode,
// direction, padding and length 0..64 (and longer), and is refused after
// cleanse; arguments are checked as for ks_sm4_crypt.
TEST(Sm4Api, ScheduleIsTheOneShotWithTheKeyExpandedOnce) {
  std::mt19937 rng(61);
  const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 16);
  ks_sm4_schedule s;
  ASSERT_EQ(ks_sm4_schedule_init(&s, key.data()), KS_OK);
  std::vector<size_t> lengths(65);
  for (size_t n = 0; n < lengths.size(); ++n) lengths[n] = n;
  for (size_t n : {1000, 65536 + 3}) lengths.push_back(n);
  for (int mode : kModes) {
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
    for (uint32_t flags : {0u, unsigned(KS_SM4_PAD_PKCS7)}) {
      const bool block = mode == KS_SM4_ECB || mode == KS_SM4_CBC;
      if (flags != 0 && !block) continue;
      for (size_t len : lengths) {
        for (int dir : {KS_ENCRYPT, KS_DECRYPT}) {
          SCOPED_TRACE("mode " + std::to_string(mode) + " flags " + std::to_string(flags) +
                       " len " + std::to_string(len) + " dir " + std::to_string(dir));
          const Bytes in = ks_test::random_bytes(rng, len);
          Bytes want(len + 16), got(len + 16);
          size_t want_len = 0, got_len = 0;
          const int want_rc = ks_sm4_crypt(mode, dir, flags, key.data(), iv.data(), iv_len,
                                           in.data(), len, want.data(), want.size(), &want_len);
          const int got_rc = ks_sm4_schedule_crypt(&s, mode, dir, flags, iv.data(), iv_len,
                                                   in.data(), len, got.data(), got.size(),
                                                   &got_len);
          ASSERT_EQ(got_rc, want_rc);
          ASSERT_EQ(got_len, want_len);
          ASSERT_EQ(got, want);
        }
      }
    }
  }
  uint8_t out[32];
  size_t n = 0;
  EXPECT_EQ(ks_sm4_schedule_crypt(&s, KS_SM4_CBC, KS_ENCRYPT, 0, nullptr, 16, out, 16, out, 32,
                                  &n),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_schedule_crypt(&s, KS_SM4_GCM, KS_ENCRYPT, 0, iv.data(), 16, out, 16, out, 32,
                                  &n),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm4_schedule_crypt(&s, KS_SM4_ECB, KS_ENCRYPT, 0, nullptr, 0, out, 16, out, 8, &n),
            KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm4_schedule_init(nullptr, key.data()), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_schedule_init(&s, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_schedule_crypt(nullptr, KS_SM4_ECB, KS_ENCRYPT, 0, nullptr, 0, out, 16, out,
                                  32, &n),
            KS_ERR_NULL_POINTER);
  ks_sm4_schedule_cleanse(&s);
  EXPECT_EQ(ks_sm4_schedule_crypt(&s, KS_SM4_ECB, KS_ENCRYPT, 0, nullptr, 0, out, 16, out, 32,
                                  &n),
            KS_ERR_INVALID_ARGUMENT);
}

// Mixed modes, lengths and per-item failures across two threads.
TEST(Sm4Api, BatchMatchesOneShotWithPerItemStatus) {
  std::mt19937 rng(53);
  ks_test::Context ctx(KS_BACKEND_CPU, 2);
  ASSERT_EQ(ctx.rc, KS_OK);
  for (int mode : {KS_SM4_ECB, KS_SM4_CBC, KS_SM4_CFB, KS_SM4_OFB, KS_SM4_CTR, KS_SM4_GCM}) {
    const size_t count = 300;
    const size_t iv_len = mode == KS_SM4_ECB ? 0 : mode == KS_SM4_GCM ? 12 : 16;
    const bool block = mode == KS_SM4_ECB || mode == KS_SM4_CBC;
    std::vector<uint64_t> offsets(count + 1, 0), aad_offsets(count + 1, 0);
    for (size_t i = 0; i < count; ++i) {
      size_t len = rng() % 2000;
      if (block && i % 7 != 3) len = len / 16 * 16;  // every 7th item a bad length
      offsets[i + 1] = offsets[i] + len;
      aad_offsets[i + 1] = aad_offsets[i] + rng() % 20;
    }
    const Bytes keys = ks_test::random_bytes(rng, 16 * count), ivs = ks_test::random_bytes(rng, iv_len * count);
    const Bytes data = ks_test::random_bytes(rng, offsets[count]), aad = ks_test::random_bytes(rng, aad_offsets[count]);
    Bytes out(data.size()), tags(16 * count);
    std::vector<int> status(count, 99);
    const int rc = ks_sm4_batch(ctx.ctx, mode, 1, 0, keys.data(), ivs.data(), iv_len, data.data(),
                                data.size(), offsets.data(), count, out.data(), out.size(),
                                aad.data(), aad.size(), aad_offsets.data(), tags.data(), 16,
                                status.data());
    EXPECT_EQ(rc, block ? KS_ERR_BATCH_ITEMS : KS_OK);
    for (size_t i = 0; i < count; ++i) {
      const size_t begin = offsets[i], len = offsets[i + 1] - offsets[i];
      if (block && len % 16 != 0) {
        EXPECT_EQ(status[i], KS_ERR_LENGTH);
        continue;
      }
      ASSERT_EQ(status[i], KS_OK) << i;
      Bytes expect(len + 16), tag(16);
      size_t n = 0;
      if (mode == KS_SM4_GCM) {
        ASSERT_EQ(ks_sm4_gcm_seal(keys.data() + 16 * i, ivs.data() + 12 * i, 12,
                                  aad.data() + aad_offsets[i], aad_offsets[i + 1] - aad_offsets[i],
                                  data.data() + begin, len, expect.data(), tag.data(), 16),
                  KS_OK);
        n = len;
        ASSERT_EQ(Bytes(tags.begin() + 16 * i, tags.begin() + 16 * i + 16), tag);
      } else {
        ASSERT_EQ(ks_sm4_crypt(mode, KS_ENCRYPT, 0, keys.data() + 16 * i, ivs.data() + iv_len * i,
                               iv_len, data.data() + begin, len, expect.data(), expect.size(), &n),
                  KS_OK);
      }
      ASSERT_EQ(Bytes(out.begin() + begin, out.begin() + begin + len),
                Bytes(expect.begin(), expect.begin() + n))
          << i;
    }
    if (mode != KS_SM4_GCM) continue;
    // Decrypting in place, with every 5th tag broken: those items fail and
    // keep their ciphertext.
    for (size_t i = 0; i < count; i += 5) tags[16 * i] ^= 1;
    Bytes inplace = out;
    ASSERT_EQ(ks_sm4_batch(ctx.ctx, mode, 0, 0, keys.data(), ivs.data(), 12, inplace.data(),
                           inplace.size(), offsets.data(), count, inplace.data(), inplace.size(),
                           aad.data(), aad.size(), aad_offsets.data(), tags.data(), 16,
                           status.data()),
              KS_ERR_BATCH_ITEMS);
    for (size_t i = 0; i < count; ++i) {
      const auto b = inplace.begin() + offsets[i], e = inplace.begin() + offsets[i + 1];
      if (i % 5 == 0) {
        EXPECT_EQ(status[i], KS_ERR_TAG_MISMATCH);
        EXPECT_EQ(Bytes(b, e), Bytes(out.begin() + offsets[i], out.begin() + offsets[i + 1]));
      } else {
        EXPECT_EQ(status[i], KS_OK);
        EXPECT_EQ(Bytes(b, e), Bytes(data.begin() + offsets[i], data.begin() + offsets[i + 1]));
      }
    }
  }
}

TEST(Sm4Api, BatchArgumentErrors) {
  ks_test::Context ctx(KS_BACKEND_CPU, 1);
  uint8_t keys[32] = {}, ivs[32] = {}, data[64] = {}, out[64] = {}, tags[32] = {};
  uint64_t offsets[3] = {0, 16, 32}, bad_offsets[3] = {0, 40, 32};
  int st[2];
  auto batch = [&](ks_ctx* c, int mode, uint32_t flags, size_t iv_len, const uint64_t* off,
                   size_t out_len, size_t tag_len) {
    return ks_sm4_batch(c, mode, 1, flags, keys, ivs, iv_len, data, 64, off, 2, out, out_len,
                        nullptr, 0, nullptr, tags, tag_len, st);
  };
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_CBC, 0, 16, offsets, 64, 0), KS_OK);
  EXPECT_EQ(batch(nullptr, KS_SM4_CBC, 0, 16, offsets, 64, 0), KS_ERR_NULL_POINTER);
  EXPECT_EQ(batch(ctx.ctx, 9, 0, 16, offsets, 64, 0), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_CBC, KS_SM4_PAD_PKCS7, 16, offsets, 64, 0), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_CBC, 0, 12, offsets, 64, 0), KS_ERR_LENGTH);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_ECB, 0, 16, offsets, 64, 0), KS_ERR_LENGTH);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_CBC, 0, 16, bad_offsets, 64, 0), KS_ERR_OFFSETS);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_CBC, 0, 16, nullptr, 64, 0), KS_ERR_NULL_POINTER);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_CBC, 0, 16, offsets, 31, 0), KS_ERR_LENGTH);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_GCM, 0, 12, offsets, 64, 16), KS_OK);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_GCM, 0, 12, offsets, 64, 2), KS_ERR_LENGTH);
  EXPECT_EQ(batch(ctx.ctx, KS_SM4_GCM, 0, 0, offsets, 64, 16), KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm4_batch(ctx.ctx, KS_SM4_GCM, 1, 0, keys, ivs, 12, data, 64, offsets, 2, out, 64,
                         nullptr, 0, nullptr, nullptr, 16, st),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_batch(ctx.ctx, KS_SM4_CTR, 1, 0, nullptr, ivs, 16, data, 64, offsets, 2, out,
                         64, nullptr, 0, nullptr, nullptr, 0, st),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_batch(ctx.ctx, KS_SM4_CTR, 1, 0, nullptr, nullptr, 16, nullptr, 0, nullptr, 0,
                         nullptr, 0, nullptr, 0, nullptr, nullptr, 0, nullptr),
            KS_ERR_NULL_POINTER)
      << "offsets is required even for no items";
}

}  // namespace

// One buffer on a CPU context's threads: the same bytes as OpenSSL (CTR
// across a counter wrap of every width inside the buffer, a partial last
// block), in place, decryption back; and the argument errors.
TEST(Sm4Api, CryptBufferOnThreadsMatchesOpenSsl) {
  ks_test::Context ctx(KS_BACKEND_CPU, 4);
  ASSERT_EQ(ctx.rc, KS_OK);
  std::mt19937_64 rng(std::random_device{}());
  const Bytes key = ks_test::random_bytes(16);
  for (size_t len : {size_t(0), size_t(16), size_t(4096 * 16), size_t((1 << 20) + 16 * 7),
                     size_t((1 << 20) + 5)}) {
    for (int mode : {KS_SM4_ECB, KS_SM4_CTR}) {
      if (mode == KS_SM4_ECB && len % 16 != 0) continue;
      Bytes iv = ks_test::random_bytes(16);
      if (mode == KS_SM4_CTR && rng() % 2 == 0) {  // the low 64 bits wrap inside the buffer
        memset(iv.data() + 8, 0xff, 8);
        iv[15] = uint8_t(0xff - rng() % 64);
      }
      const Bytes in = ks_test::random_bytes(len);
      const Bytes want = openssl_encrypt(mode, false, key, iv, in);
      const uint8_t* ivp = mode == KS_SM4_ECB ? nullptr : iv.data();
      const size_t iv_len = mode == KS_SM4_ECB ? 0 : 16;
      Bytes out(len + 1, 0xA5), back(len + 1);
      ASSERT_EQ(ks_sm4_crypt_buffer(ctx.ctx, mode, 1, 0, key.data(), ivp, iv_len, in.data(), len,
                                    out.data()), KS_OK);
      ASSERT_EQ(Bytes(out.begin(), out.begin() + len), want) << "mode " << mode << " len " << len;
      EXPECT_EQ(out[len], 0xA5);  // nothing written past the end
      ASSERT_EQ(ks_sm4_crypt_buffer(ctx.ctx, mode, 0, 0, key.data(), ivp, iv_len, out.data(), len,
                                    out.data()), KS_OK);  // in place
      ASSERT_EQ(Bytes(out.begin(), out.begin() + len), in);
    }
  }
  const Bytes iv(16, 0);
  uint8_t buf[32] = {};
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_GCM, 1, 0, key.data(), iv.data(), 12, buf, 32, buf),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_CBC, 1, 0, key.data(), iv.data(), 16, buf, 32, buf),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_ECB, 1, 0, key.data(), nullptr, 0, buf, 17, buf),
            KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_CTR, 1, 0, key.data(), iv.data(), 15, buf, 32, buf),
            KS_ERR_LENGTH);
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_CTR, 1, 0, key.data(), nullptr, 16, buf, 32, buf),
            KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_CTR, 1, 8, key.data(), iv.data(), 16, buf, 32, buf),
            KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm4_crypt_buffer(ctx.ctx, KS_SM4_CTR, 1, 0, key.data(), iv.data(), 16, nullptr, 32,
                                buf), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_crypt_buffer(nullptr, KS_SM4_CTR, 1, 0, key.data(), iv.data(), 16, buf, 32, buf),
            KS_ERR_NULL_POINTER);
}

// GCM over one buffer on a CPU context: the one-shot bytes and tag, a
// wrong tag refused with the output untouched, argument errors.
TEST(Sm4Api, GcmBufferOnACpuContextIsTheOneShot) {
  ks_test::Context ctx(KS_BACKEND_CPU, 2);
  ASSERT_EQ(ctx.rc, KS_OK);
  const Bytes key = ks_test::random_bytes(16), aad = ks_test::random_bytes(20);
  for (size_t iv_len : {size_t(12), size_t(16)}) {
    const Bytes iv = ks_test::random_bytes(iv_len), in = ks_test::random_bytes(100003);
    Bytes want(in.size()), got(in.size()), back(in.size(), 0x5a);
    uint8_t want_tag[16], tag[16];
    ASSERT_EQ(ks_sm4_gcm_seal(key.data(), iv.data(), iv_len, aad.data(), aad.size(), in.data(),
                              in.size(), want.data(), want_tag, 16), KS_OK);
    ASSERT_EQ(ks_sm4_gcm_seal_buffer(ctx.ctx, 0, key.data(), iv.data(), iv_len, aad.data(),
                                     aad.size(), in.data(), in.size(), got.data(), tag, 16),
              KS_OK);
    EXPECT_EQ(got, want);
    EXPECT_EQ(memcmp(tag, want_tag, 16), 0);
    tag[3] ^= 1;
    EXPECT_EQ(ks_sm4_gcm_open_buffer(ctx.ctx, 0, key.data(), iv.data(), iv_len, aad.data(),
                                     aad.size(), got.data(), got.size(), tag, 16, back.data()),
              KS_ERR_TAG_MISMATCH);
    EXPECT_EQ(back, Bytes(in.size(), 0x5a));
    tag[3] ^= 1;
    ASSERT_EQ(ks_sm4_gcm_open_buffer(ctx.ctx, 0, key.data(), iv.data(), iv_len, aad.data(),
                                     aad.size(), got.data(), got.size(), tag, 12, back.data()),
              KS_OK);  // a 12-byte tag is the full tag's prefix
    EXPECT_EQ(back, in);
  }
  uint8_t buf[16] = {}, tag[16] = {};
  EXPECT_EQ(ks_sm4_gcm_seal_buffer(nullptr, 0, key.data(), buf, 12, nullptr, 0, buf, 16, buf, tag,
                                   16), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_sm4_gcm_seal_buffer(ctx.ctx, 4, key.data(), buf, 12, nullptr, 0, buf, 16, buf, tag,
                                   16), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_sm4_gcm_open_buffer(ctx.ctx, 0, key.data(), buf, 12, nullptr, 0, buf, 16, tag, 3,
                                   buf), KS_ERR_LENGTH);
}

// Device memory needs a GPU context: a CPU context has no stream to take
// (kuaisuo/common.h, "Device memory"), and says so.
TEST(Sm4Api, StreamsBelongToGpuContexts) {
  ks_test::Context ctx(KS_BACKEND_CPU, 1);
  ASSERT_EQ(ctx.rc, KS_OK);
  int token = 0;
  EXPECT_EQ(ks_ctx_set_stream(ctx.ctx, &token), KS_ERR_BACKEND_UNAVAILABLE);
  EXPECT_EQ(ks_ctx_stream(ctx.ctx), nullptr);
  EXPECT_EQ(ks_ctx_set_stream(nullptr, nullptr), KS_ERR_NULL_POINTER);
  EXPECT_NE(std::string(ks_strerror(KS_ERR_ALIGNMENT)).find("16-byte"), std::string::npos);
}
