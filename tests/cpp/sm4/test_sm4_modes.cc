// SM4 in ECB, CBC, CFB-128, OFB and CTR (src/cipher/modes.h) against
// OpenSSL's EVP sm4-ecb/cbc/cfb/ofb/ctr: every SM4 variant built in, random
// keys, IVs and lengths up to 1 MiB, misaligned and in-place buffers,
// streaming cut at random points, PKCS#7 padding and its failures.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cipher/modes.h"
#include "sm4/sm4.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks::modes::Mode;
using ks::modes::Status;
using ks::modes::Stream;

const EVP_CIPHER* evp_of(Mode m) {
  switch (m) {
    case Mode::kEcb: return EVP_sm4_ecb();
    case Mode::kCbc: return EVP_sm4_cbc();
    case Mode::kCfb: return EVP_sm4_cfb128();
    case Mode::kOfb: return EVP_sm4_ofb();
    case Mode::kCtr: return EVP_sm4_ctr();
  }
  return nullptr;
}

const char* name_of(Mode m) {
  static const char* const kNames[] = {"ecb", "cbc", "cfb", "ofb", "ctr"};
  return kNames[int(m)];
}

bool is_block_mode(Mode m) { return m == Mode::kEcb || m == Mode::kCbc; }

// OpenSSL's answer, or an empty optional-like flag on failure (bad padding).
bool openssl(Mode m, bool encrypt, bool pad, const Bytes& key, const Bytes& iv, const Bytes& in,
             Bytes* out) {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  out->assign(in.size() + 16, 0);
  int len = 0, fin = 0;
  bool ok = EVP_CipherInit_ex(c, evp_of(m), nullptr, key.data(), iv.data(), encrypt) == 1;
  EVP_CIPHER_CTX_set_padding(c, pad ? 1 : 0);
  ok = ok && EVP_CipherUpdate(c, out->data(), &len, in.data(), int(in.size())) == 1;
  ok = ok && EVP_CipherFinal_ex(c, out->data() + len, &fin) == 1;
  EVP_CIPHER_CTX_free(c);
  out->resize(size_t(len + fin));
  return ok;
}

// Ours through the streaming context, the input cut at `cuts` (sorted
// offsets), in place when asked; the status of finish.
Status ours(const ks::sm4::Key& k, Mode m, bool encrypt, bool pad, const Bytes& iv,
            const Bytes& in, const std::vector<size_t>& cuts, size_t misalign, Bytes* out) {
  Stream s;
  s.init(m, encrypt, pad, iv.data());
  Bytes src(in.size() + misalign), dst(in.size() + 16 + misalign);
  std::copy(in.begin(), in.end(), src.begin() + misalign);  // in may be empty
  size_t written = 0, prev = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(in.size());
  for (size_t end : ends) {
    written += s.update(ks::sm4::block_cipher(), &k, src.data() + misalign + prev, end - prev,
                        dst.data() + misalign + written);
    prev = end;
  }
  size_t last = 0;
  const Status st = s.finish(ks::sm4::block_cipher(), &k, dst.data() + misalign + written, &last);
  out->assign(dst.begin() + misalign, dst.begin() + misalign + written + last);
  return st;
}

std::vector<const ks::sm4::Variant*> usable_variants() {
  size_t count = 0;
  const ks::sm4::Variant* table = ks::sm4::variants(&count);
  std::vector<const ks::sm4::Variant*> out;
  for (size_t i = 0; i < count; ++i)
    if (table[i].usable) out.push_back(&table[i]);
  return out;
}

const Mode kModes[] = {Mode::kEcb, Mode::kCbc, Mode::kCfb, Mode::kOfb, Mode::kCtr};

TEST(Sm4Modes, MatchOpenSslOneShot) {
  std::mt19937 rng(31);
  for (const auto* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    // Megabyte messages only where they are fast (not the portable rows,
    // not under a sanitizer: the tails and block boundaries below are what
    // it checks).
    const bool slow = std::string(v->name) == "portable" || ks_test::kSanitized;
    // Every length to 64 (the one-block paths and their tails), then longer.
    std::vector<size_t> lengths(65);
    for (size_t n = 0; n < lengths.size(); ++n) lengths[n] = n;
    for (size_t n : {127, 128, 129, 255, 256, 1000, 4096}) lengths.push_back(n);
    if (!slow) {
      lengths.push_back(65536 + 5);
      lengths.push_back(size_t(1) << 20);
      lengths.push_back(rng() % (size_t(1) << 20));
      lengths.push_back((size_t(3) << 20) + 7);
    }
    for (Mode m : kModes) {
      for (size_t any_len : lengths) {
        for (bool pad : {false, true}) {
          if (!is_block_mode(m) && pad) continue;
          const size_t len = is_block_mode(m) && !pad ? any_len / 16 * 16 : any_len;
          SCOPED_TRACE(std::string(name_of(m)) + (pad ? " pad" : "") + " len=" + std::to_string(len));
          const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 16);
          const Bytes pt = ks_test::random_bytes(rng, len);
          ks::sm4::Key k;
          ks::sm4::set_key(&k, key.data(), *v);
          Bytes expect, ct, back;
          ASSERT_TRUE(openssl(m, true, pad, key, iv, pt, &expect));
          ASSERT_EQ(ours(k, m, true, pad, iv, pt, {}, len % 4, &ct), Status::kOk);
          ASSERT_EQ(ct, expect);
          ASSERT_EQ(ours(k, m, false, pad, iv, ct, {}, (len + 1) % 4, &back), Status::kOk);
          ASSERT_EQ(back, pt);
        }
      }
    }
  }
}

// Streaming with random cut points (the partial-block state of every mode),
// and the whole-message functions in place.
TEST(Sm4Modes, StreamingAndInPlace) {
  std::mt19937 rng(32);
  ks::sm4::Key k;
  for (int trial = 0; trial < 60; ++trial) {
    for (Mode m : kModes) {
      const bool pad = is_block_mode(m) && trial % 2 == 0;
      size_t len = rng() % 5000;
      if (is_block_mode(m) && !pad) len = len / 16 * 16;
      SCOPED_TRACE(std::string(name_of(m)) + " len=" + std::to_string(len));
      const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 16), pt = ks_test::random_bytes(rng, len);
      ks::sm4::set_key(&k, key.data());
      std::vector<size_t> cuts;
      for (size_t c = 0; c < 6 && len > 0; ++c) cuts.push_back(rng() % (len + 1));
      std::sort(cuts.begin(), cuts.end());
      Bytes expect, ct, back;
      ASSERT_TRUE(openssl(m, true, pad, key, iv, pt, &expect));
      ASSERT_EQ(ours(k, m, true, pad, iv, pt, cuts, 0, &ct), Status::kOk);
      ASSERT_EQ(ct, expect);
      ASSERT_EQ(ours(k, m, false, pad, iv, ct, cuts, 3, &back), Status::kOk);
      ASSERT_EQ(back, pt);
      if (pad) continue;
      // In place: the whole-message functions with in == out.
      Bytes buf = pt, chain = iv;
      ks::modes::StreamState st;
      ks::modes::stream_init(&st, iv.data());
      const auto& bc = ks::sm4::block_cipher();
      switch (m) {
        case Mode::kEcb: ks::modes::ecb_encrypt(bc, &k, buf.data(), buf.data(), len); break;
        case Mode::kCbc: ks::modes::cbc_encrypt(bc, &k, chain.data(), buf.data(), buf.data(), len); break;
        case Mode::kCfb: ks::modes::cfb_encrypt(bc, &k, &st, buf.data(), buf.data(), len); break;
        case Mode::kOfb: ks::modes::ofb_crypt(bc, &k, &st, buf.data(), buf.data(), len); break;
        case Mode::kCtr: ks::modes::ctr_crypt(bc, &k, &st, buf.data(), buf.data(), len); break;
      }
      ASSERT_EQ(buf, expect);
      chain = iv;
      ks::modes::stream_init(&st, iv.data());
      switch (m) {
        case Mode::kEcb: ks::modes::ecb_decrypt(bc, &k, buf.data(), buf.data(), len); break;
        case Mode::kCbc: ks::modes::cbc_decrypt(bc, &k, chain.data(), buf.data(), buf.data(), len); break;
        case Mode::kCfb: ks::modes::cfb_decrypt(bc, &k, &st, buf.data(), buf.data(), len); break;
        case Mode::kOfb: ks::modes::ofb_crypt(bc, &k, &st, buf.data(), buf.data(), len); break;
        case Mode::kCtr: ks::modes::ctr_crypt(bc, &k, &st, buf.data(), buf.data(), len); break;
      }
      ASSERT_EQ(buf, pt);
    }
  }
}

// The 128-bit counter wraps modulo 2^128, as OpenSSL's does.
TEST(Sm4Modes, CtrWrapsAt2To128) {
  std::mt19937 rng(33);
  const Bytes key = ks_test::random_bytes(rng, 16), pt = ks_test::random_bytes(rng, 16 * 40 + 7);
  Bytes iv(16, 0xff);
  iv[15] = 0xf0;
  ks::sm4::Key k;
  ks::sm4::set_key(&k, key.data());
  Bytes expect, ct;
  ASSERT_TRUE(openssl(Mode::kCtr, true, false, key, iv, pt, &expect));
  ASSERT_EQ(ours(k, Mode::kCtr, true, false, iv, pt, {5, 100}, 0, &ct), Status::kOk);
  EXPECT_EQ(ct, expect);
}

TEST(Sm4Modes, Pkcs7PaddingLength) {
  uint8_t block[16];
  for (int n = 0; n < 256; ++n) {
    memset(block, 0xaa, 16);
    const int pad = n >= 1 && n <= 16 ? n : 0;
    for (int i = 16 - (pad ? pad : 1); i < 16; ++i) block[i] = uint8_t(n);
    EXPECT_EQ(ks::modes::pkcs7_padding_length(block), size_t(pad)) << n;
    if (pad >= 2) {  // one wrong byte inside the padding
      block[16 - pad] ^= 1;
      EXPECT_EQ(ks::modes::pkcs7_padding_length(block), 0u) << n;
    }
  }
}

TEST(Sm4Modes, BadPaddingAndPartialBlocksAreErrors) {
  std::mt19937 rng(34);
  const Bytes key = ks_test::random_bytes(rng, 16), iv = ks_test::random_bytes(rng, 16);
  ks::sm4::Key k;
  ks::sm4::set_key(&k, key.data());
  for (Mode m : {Mode::kEcb, Mode::kCbc}) {
    // A last block that decrypts to a bad padding byte (0x00): encrypt one
    // without padding, then decrypt with padding.
    Bytes bad(32, 0x00), ct, back;
    ASSERT_EQ(ours(k, m, true, false, iv, bad, {}, 0, &ct), Status::kOk);
    EXPECT_EQ(ours(k, m, false, true, iv, ct, {}, 0, &back), Status::kBadPadding);
    bad[31] = 17;
    ASSERT_EQ(ours(k, m, true, false, iv, bad, {}, 0, &ct), Status::kOk);
    EXPECT_EQ(ours(k, m, false, true, iv, ct, {}, 0, &back), Status::kBadPadding);
    // Lengths that are not whole blocks.
    EXPECT_EQ(ours(k, m, true, false, iv, Bytes(20), {}, 0, &ct), Status::kPartialBlock);
    EXPECT_EQ(ours(k, m, false, true, iv, Bytes(20), {}, 0, &ct), Status::kPartialBlock);
    EXPECT_EQ(ours(k, m, false, true, iv, Bytes(), {}, 0, &ct), Status::kPartialBlock);
  }
}

}  // namespace

// Variant::chain_lanes (many messages, one per SIMD lane) against the
// portable one-message chain, for every variant and serial mode: groups of
// 1 to 2 x the lane width, lengths 0 to 40 blocks mixed, in place and not.
TEST(Sm4Modes, ChainLanesMatchOneMessageAtATime) {
  std::mt19937 rng(47);
  const ks::sm4::Variant& portable = ks::sm4::portable_variant();
  for (const auto* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    for (ks::ChainMode mode : {ks::ChainMode::kCbc, ks::ChainMode::kCfb, ks::ChainMode::kOfb}) {
      for (size_t n = 1; n <= v->chain_width; n = n < 3 ? n + 1 : n * 2 + 1) {
        const size_t count = std::min(n, v->chain_width);
        SCOPED_TRACE("mode " + std::to_string(int(mode)) + " messages " + std::to_string(count));
        std::vector<ks::sm4::Key> keys(count);
        std::vector<Bytes> raw(count), in(count), out(count), ivs(count), expect(count),
            expect_iv(count);
        std::vector<ks::sm4::ChainJob> jobs(count);
        const bool in_place = n % 2 == 0;
        for (size_t m = 0; m < count; ++m) {
          raw[m] = ks_test::random_bytes(rng, 16);
          ks::sm4::set_key(&keys[m], raw[m].data(), portable);
          const size_t blocks = m == 1 ? 0 : rng() % 41;
          in[m] = ks_test::random_bytes(rng, 16 * blocks);
          ivs[m] = expect_iv[m] = ks_test::random_bytes(rng, 16);
          expect[m].resize(in[m].size());
          portable.chain(keys[m].enc, mode, expect_iv[m].data(), in[m].data(), expect[m].data(),
                         blocks);
          out[m] = in_place ? in[m] : Bytes(in[m].size(), 0);
          jobs[m] = {raw[m].data(), ivs[m].data(), in_place ? out[m].data() : in[m].data(),
                     out[m].data(), blocks};
        }
        v->chain_lanes(mode, jobs.data(), count);
        for (size_t m = 0; m < count; ++m) {
          ASSERT_EQ(out[m], expect[m]) << "message " << m;
          ASSERT_EQ(ivs[m], expect_iv[m]) << "chaining block of message " << m;
        }
      }
    }
  }
}
