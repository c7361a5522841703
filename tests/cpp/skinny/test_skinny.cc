// SKINNY-128-256 (src/skinny/skinny128_256*.h): the paper's test vector,
// the S-box circuit against the paper's table and its inverse on all 256
// bytes, decrypt(encrypt(x)) = x, the CTR keystream against ECB of the
// counters (wrap at 2^128 included), ECB/CTR/streaming through modes.h,
// the table-based baseline against the constant-time code, and the
// bitsliced round of the GPU kernel (skinny128_256_sliced.h) on 64 blocks
// of 64-bit planes. The
// independent Python model (tests/python/skinny_model.py) is compared with
// this code through the Python package.
#include <gtest/gtest.h>

#include <string.h>

#include <algorithm>
#include <vector>

#include "cipher/modes.h"
#include "skinny/skinny128_256.h"
#include "skinny/skinny128_256_sliced.h"
#include "kuaisuo.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks_test::from_hex;
using ks_test::random_bytes;
using ks_test::random_u32;
using ks_test::to_hex;

// S8, as printed in the SKINNY paper (eprint 2016/660, and appendix A of
// the SKINNY-AEAD NIST submission).
const uint8_t kPaperSbox[256] = {
    0x65, 0x4c, 0x6a, 0x42, 0x4b, 0x63, 0x43, 0x6b, 0x55, 0x75, 0x5a, 0x7a, 0x53, 0x73, 0x5b, 0x7b,
    0x35, 0x8c, 0x3a, 0x81, 0x89, 0x33, 0x80, 0x3b, 0x95, 0x25, 0x98, 0x2a, 0x90, 0x23, 0x99, 0x2b,
    0xe5, 0xcc, 0xe8, 0xc1, 0xc9, 0xe0, 0xc0, 0xe9, 0xd5, 0xf5, 0xd8, 0xf8, 0xd0, 0xf0, 0xd9, 0xf9,
    0xa5, 0x1c, 0xa8, 0x12, 0x1b, 0xa0, 0x13, 0xa9, 0x05, 0xb5, 0x0a, 0xb8, 0x03, 0xb0, 0x0b, 0xb9,
    0x32, 0x88, 0x3c, 0x85, 0x8d, 0x34, 0x84, 0x3d, 0x91, 0x22, 0x9c, 0x2c, 0x94, 0x24, 0x9d, 0x2d,
    0x62, 0x4a, 0x6c, 0x45, 0x4d, 0x64, 0x44, 0x6d, 0x52, 0x72, 0x5c, 0x7c, 0x54, 0x74, 0x5d, 0x7d,
    0xa1, 0x1a, 0xac, 0x15, 0x1d, 0xa4, 0x14, 0xad, 0x02, 0xb1, 0x0c, 0xbc, 0x04, 0xb4, 0x0d, 0xbd,
    0xe1, 0xc8, 0xec, 0xc5, 0xcd, 0xe4, 0xc4, 0xed, 0xd1, 0xf1, 0xdc, 0xfc, 0xd4, 0xf4, 0xdd, 0xfd,
    0x36, 0x8e, 0x38, 0x82, 0x8b, 0x30, 0x83, 0x39, 0x96, 0x26, 0x9a, 0x28, 0x93, 0x20, 0x9b, 0x29,
    0x66, 0x4e, 0x68, 0x41, 0x49, 0x60, 0x40, 0x69, 0x56, 0x76, 0x58, 0x78, 0x50, 0x70, 0x59, 0x79,
    0xa6, 0x1e, 0xaa, 0x11, 0x19, 0xa3, 0x10, 0xab, 0x06, 0xb6, 0x08, 0xba, 0x00, 0xb3, 0x09, 0xbb,
    0xe6, 0xce, 0xea, 0xc2, 0xcb, 0xe3, 0xc3, 0xeb, 0xd6, 0xf6, 0xda, 0xfa, 0xd3, 0xf3, 0xdb, 0xfb,
    0x31, 0x8a, 0x3e, 0x86, 0x8f, 0x37, 0x87, 0x3f, 0x92, 0x21, 0x9e, 0x2e, 0x97, 0x27, 0x9f, 0x2f,
    0x61, 0x48, 0x6e, 0x46, 0x4f, 0x67, 0x47, 0x6f, 0x51, 0x71, 0x5e, 0x7e, 0x57, 0x77, 0x5f, 0x7f,
    0xa2, 0x18, 0xae, 0x16, 0x1f, 0xa7, 0x17, 0xaf, 0x01, 0xb2, 0x0e, 0xbe, 0x07, 0xb7, 0x0f, 0xbf,
    0xe2, 0xca, 0xee, 0xc6, 0xcf, 0xe7, 0xc7, 0xef, 0xd2, 0xf2, 0xde, 0xfe, 0xd7, 0xf7, 0xdf, 0xff
};

ks::skinny::Key key_of(const Bytes& tweakey) {
  ks::skinny::Key k;
  ks::skinny::set_key(&k, tweakey.data());
  return k;
}

Bytes counter_plus(Bytes counter, uint64_t n) {
  ks::modes::ctr128_add(counter.data(), n);
  return counter;
}

TEST(Skinny, PaperTestVector) {
  // SKINNY paper, appendix B, SKINNY-128-256.
  const Bytes tk = from_hex("009CEC81605D4AC1D2AE9E3085D7A1F31AC123EBFC00FDDCF01046CEEDDFCAB3");
  const Bytes pt = from_hex("3A0C47767A26A68DD382A695E7022E25");
  const ks::skinny::Key k = key_of(tk);
  uint8_t ct[16], back[16];
  ks::skinny::encrypt_blocks(k, pt.data(), ct, 1);
  EXPECT_EQ(to_hex(ct, 16), "B731D98A4BDE147A7ED4A6F16B9B587F");
  ks::skinny::decrypt_blocks(k, ct, back, 1);
  EXPECT_EQ(Bytes(back, back + 16), pt);
  ks::skinny::table_encrypt_blocks(k, pt.data(), ct, 1);
  EXPECT_EQ(to_hex(ct, 16), "B731D98A4BDE147A7ED4A6F16B9B587F");
}

TEST(Skinny, SboxCircuitIsThePapersTableAndItsInverse) {
  for (uint32_t x = 0; x < 256; ++x) {
    // The four bytes of a row go through the circuit at once: each its own.
    const uint32_t row = x | ((x ^ 0x5A) << 8) | ((255 - x) << 16) | (((x * 7) & 0xFF) << 24);
    const uint32_t y = ks::skinny::sub_cells(row);
    EXPECT_EQ(y & 0xFF, kPaperSbox[x]) << x;
    EXPECT_EQ((y >> 8) & 0xFF, kPaperSbox[x ^ 0x5A]) << x;
    EXPECT_EQ((y >> 16) & 0xFF, kPaperSbox[255 - x]) << x;
    EXPECT_EQ(y >> 24, kPaperSbox[(x * 7) & 0xFF]) << x;
    EXPECT_EQ(ks::skinny::inv_sub_cells(y), row) << x;
  }
}

// The GPU's bitsliced round, run here on 64-bit planes (64 blocks): plane
// k of row r, bit l = bit k of row word r of block l.
struct Planes64 {
  using Plane = uint64_t;
  uint64_t bit[32];
};

struct MaskRows {
  const uint32_t* m;  // tweakey_mask(rtk, i, 0 .. 63), widened below
  void masks4(int row, int k, uint64_t out[4]) const {
    for (int j = 0; j < 4; ++j) out[j] = uint64_t(0) - (m[32 * row + k + j] & 1);
  }
};

// 64 blocks as planes, and back.
void to_planes(const Bytes& blocks, Planes64 s[4]) {
  for (int r = 0; r < 4; ++r) s[r] = {};
  for (int l = 0; l < 64; ++l)
    for (int b = 0; b < 128; ++b)
      s[b / 32].bit[b % 32] |= uint64_t(blocks[16 * l + b / 8] >> (b % 8) & 1) << l;
}
Bytes from_planes(const Planes64 s[4]) {
  Bytes blocks(16 * 64);
  for (int l = 0; l < 64; ++l)
    for (int b = 0; b < 128; ++b)
      blocks[16 * l + b / 8] |= uint8_t((s[b / 32].bit[b % 32] >> l & 1) << (b % 8));
  return blocks;
}

// 64 blocks through the 48 rounds on planes (encrypt) or the inverse
// rounds in reverse order, the masks made from k's round tweakeys.
Bytes sliced_rounds(const ks::skinny::Key& k, const Bytes& blocks, bool encrypt) {
  Planes64 s[4];
  to_planes(blocks, s);
  for (int r = 0; r < ks::skinny::kRounds; ++r) {
    const int i = encrypt ? r : ks::skinny::kRounds - 1 - r;
    uint32_t m[64];
    for (int e = 0; e < 64; ++e) m[e] = ks::skinny::tweakey_mask(k.rtk, i, e);
    if (encrypt)
      ks::skinny::sliced_round(s, MaskRows{m});
    else
      ks::skinny::sliced_inv_round(s, MaskRows{m});
  }
  return from_planes(s);
}

TEST(Skinny, BitslicedRoundIsTheRowRound) {
  for (int t = 0; t < 20; ++t) {
    const ks::skinny::Key k = key_of(random_bytes(32));
    const Bytes pt = random_bytes(16 * 64);
    Bytes want(pt.size());
    ks::skinny::encrypt_blocks(k, pt.data(), want.data(), 64);
    const Bytes got = sliced_rounds(k, pt, true);
    EXPECT_EQ(to_hex(got.data(), got.size()), to_hex(want.data(), want.size()));
  }
}

// The inverse round on planes, rounds in reverse order, gives the row
// code's decryption of the same blocks.
TEST(Skinny, BitslicedInverseRoundIsTheRowInverseRound) {
  for (int t = 0; t < 20; ++t) {
    const ks::skinny::Key k = key_of(random_bytes(32));
    const Bytes ct = random_bytes(16 * 64);
    Bytes want(ct.size());
    ks::skinny::decrypt_blocks(k, ct.data(), want.data(), 64);
    const Bytes got = sliced_rounds(k, ct, false);
    EXPECT_EQ(to_hex(got.data(), got.size()), to_hex(want.data(), want.size()));
  }
}

TEST(Skinny, DecryptionInvertsEncryptionOnRandomInputs) {
  for (int t = 0; t < 200; ++t) {
    const ks::skinny::Key k = key_of(random_bytes(32));
    const size_t n = 1 + random_u32() % 9;
    const Bytes pt = random_bytes(16 * n);
    Bytes ct(pt.size()), back(pt.size()), table(pt.size());
    ks::skinny::encrypt_blocks(k, pt.data(), ct.data(), n);
    ks::skinny::decrypt_blocks(k, ct.data(), back.data(), n);
    ks::skinny::table_encrypt_blocks(k, pt.data(), table.data(), n);
    EXPECT_EQ(back, pt);
    EXPECT_EQ(table, ct);
    EXPECT_NE(ct, pt);
  }
}

// CTR's keystream is ECB of the counter blocks, counter + i modulo 2^128.
TEST(Skinny, CtrKeystreamIsEcbOfTheCounters) {
  const Bytes near_wrap = from_hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD");
  for (const Bytes& counter0 : {random_bytes(16), near_wrap, Bytes(16, 0)}) {
    const ks::skinny::Key k = key_of(random_bytes(32));
    const size_t n = 7;
    const Bytes data = random_bytes(16 * n);
    Bytes counters, ecb(16 * n), out(16 * n), table_out(16 * n);
    for (size_t i = 0; i < n; ++i) {
      const Bytes c = counter_plus(counter0, i);
      counters.insert(counters.end(), c.begin(), c.end());
    }
    ks::skinny::encrypt_blocks(k, counters.data(), ecb.data(), n);
    Bytes counter = counter0, table_counter = counter0;
    ks::skinny::ctr_blocks(k, counter.data(), data.data(), out.data(), n);
    ks::skinny::table_ctr_blocks(k, table_counter.data(), data.data(), table_out.data(), n);
    for (size_t i = 0; i < 16 * n; ++i) ASSERT_EQ(out[i], data[i] ^ ecb[i]) << i;
    EXPECT_EQ(table_out, out);
    EXPECT_EQ(counter, counter_plus(counter0, n));
  }
}

// The vector kernels (groups of 8 or 16 blocks, two groups at a time)
// against the one-block core function, around every group size and with
// counters whose low 64 bits carry and whose 128 bits wrap. ctest runs
// this binary under each KS_CPU_FEATURES mask (tests/cpp/CMakeLists.txt).
TEST(Skinny, KernelsMatchTheOneBlockCodeAroundGroupsAndCarries) {
  SCOPED_TRACE(ks::skinny::kernel_name());
  const Bytes carry64 = from_hex("0123456789ABCDEFFFFFFFFFFFFFFFF0");
  const Bytes wrap128 = from_hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5");
  for (size_t n : {size_t(8), size_t(15), size_t(16), size_t(17), size_t(31), size_t(32),
                   size_t(33), size_t(48), size_t(100)}) {
    const ks::skinny::Key k = key_of(random_bytes(32));
    const Bytes data = random_bytes(16 * n);
    Bytes ecb(16 * n), back(16 * n);
    ks::skinny::encrypt_blocks(k, data.data(), ecb.data(), n);
    ks::skinny::decrypt_blocks(k, ecb.data(), back.data(), n);
    EXPECT_EQ(back, data) << n;
    for (size_t i = 0; i < n; ++i) {
      uint8_t want[16];
      ks::skinny::encrypt_block(k.rtk, data.data() + 16 * i, want);
      ASSERT_EQ(memcmp(want, ecb.data() + 16 * i, 16), 0) << n << " " << i;
    }
    for (const Bytes& counter0 : {random_bytes(16), carry64, wrap128}) {
      Bytes counter = counter0, out(16 * n);
      ks::skinny::ctr_blocks(k, counter.data(), data.data(), out.data(), n);
      EXPECT_EQ(counter, counter_plus(counter0, n));
      for (size_t i = 0; i < n; ++i) {
        uint8_t pad[16];
        ks::skinny::encrypt_block(k.rtk, counter_plus(counter0, i).data(), pad);
        for (int j = 0; j < 16; ++j) ASSERT_EQ(out[16 * i + j], data[16 * i + j] ^ pad[j]) << n << " " << i;
      }
    }
  }
}

// ECB and CTR of any length through modes.h, in one call and streamed in
// random pieces, in place too.
TEST(Skinny, ModesOverTheBlockCipherPolicy) {
  const ks::BlockCipher& bc = ks::skinny::block_cipher();
  for (int t = 0; t < 50; ++t) {
    const ks::skinny::Key k = key_of(random_bytes(32));
    const Bytes iv = random_bytes(16);
    const size_t len = random_u32() % 300;
    const Bytes data = random_bytes(len);
    Bytes whole(len), pieces(len);
    ks::modes::StreamState s;
    ks::modes::stream_init(&s, iv.data());
    ks::modes::ctr_crypt(bc, &k, &s, data.data(), whole.data(), len);
    ks::modes::stream_init(&s, iv.data());
    for (size_t at = 0; at < len;) {
      const size_t step = std::min<size_t>(len - at, random_u32() % 40);
      ks::modes::ctr_crypt(bc, &k, &s, data.data() + at, pieces.data() + at, step);
      at += step;
    }
    EXPECT_EQ(pieces, whole);
    Bytes in_place = data;
    ks::modes::stream_init(&s, iv.data());
    ks::modes::ctr_crypt(bc, &k, &s, in_place.data(), in_place.data(), len);
    EXPECT_EQ(in_place, whole);
    const size_t blocks = len / 16;
    Bytes ecb(16 * blocks), back(16 * blocks);
    ks::modes::ecb_encrypt(bc, &k, data.data(), ecb.data(), 16 * blocks);
    ks::modes::ecb_decrypt(bc, &k, ecb.data(), back.data(), 16 * blocks);
    EXPECT_EQ(back, Bytes(data.begin(), data.begin() + 16 * blocks));
  }
}

// Each tweakey byte matters: flipping any bit of TK1 or TK2 changes the
// ciphertext (the schedule reads all 32 bytes).
TEST(Skinny, EveryTweakeyBitChangesTheCiphertext) {
  const Bytes tk = random_bytes(32), pt = random_bytes(16);
  uint8_t base[16];
  ks::skinny::encrypt_blocks(key_of(tk), pt.data(), base, 1);
  for (int bit = 0; bit < 256; ++bit) {
    Bytes other = tk;
    other[bit / 8] ^= uint8_t(1u << (bit % 8));
    uint8_t ct[16];
    ks::skinny::encrypt_blocks(key_of(other), pt.data(), ct, 1);
    EXPECT_NE(memcmp(ct, base, 16), 0) << bit;
  }
}

// ---- The C API ----------------------------------------------------------------
struct CpuCtx {
  explicit CpuCtx(uint32_t threads) {
    ks_ctx_config cfg;
    ks_ctx_config_init(&cfg);
    cfg.backend = KS_BACKEND_CPU;
    cfg.cpu_threads = threads;
    EXPECT_EQ(ks_ctx_new(&cfg, &ctx), KS_OK);
  }
  ~CpuCtx() { ks_ctx_free(ctx); }
  ks_ctx* ctx = nullptr;
};

// One-shot, threaded buffer and streaming CTR agree with the block
// functions, for lengths around the threads' split and partial blocks.
TEST(SkinnyApi, OneShotBufferAndStreamAgree) {
  CpuCtx c(3);
  for (size_t len : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(1000), size_t(16 * 64 * 3 + 5),
                     size_t(100000)}) {
    const Bytes tk = random_bytes(32), iv = random_bytes(16), data = random_bytes(len);
    Bytes one(len), buf(len), streamed(len), want(len);
    Bytes counter = iv;
    const ks::skinny::Key k = key_of(tk);
    ks::skinny::ctr_blocks(k, counter.data(), data.data(), want.data(), len / 16);
    if (len % 16 != 0) {
      uint8_t last[16] = {0};
      memcpy(last, data.data() + len / 16 * 16, len % 16);
      ks::skinny::ctr_blocks(k, counter.data(), last, last, 1);
      memcpy(want.data() + len / 16 * 16, last, len % 16);
    }
    ASSERT_EQ(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tk.data(), iv.data(), 16, data.data(), len, one.data()), KS_OK);
    ASSERT_EQ(ks_skinny128_256_crypt_buffer(c.ctx, KS_SKINNY_CTR, 0, tk.data(), iv.data(), 16, data.data(), len, buf.data()), KS_OK);
    ks_skinny_ctr_ctx s;
    ASSERT_EQ(ks_skinny128_256_ctr_init(&s, tk.data(), iv.data()), KS_OK);
    for (size_t at = 0; at < len;) {
      const size_t step = std::min<size_t>(len - at, 1 + random_u32() % 700);
      ASSERT_EQ(ks_skinny128_256_ctr_update(&s, data.data() + at, step, streamed.data() + at), KS_OK);
      at += step;
    }
    ks_skinny128_256_ctr_cleanse(&s);
    EXPECT_EQ(one, want) << len;
    EXPECT_EQ(buf, want) << len;
    EXPECT_EQ(streamed, want) << len;
    const size_t whole = len / 16 * 16;
    Bytes ecb(whole), back(whole);
    ASSERT_EQ(ks_skinny128_256_crypt_buffer(c.ctx, KS_SKINNY_ECB, 1, tk.data(), nullptr, 0, data.data(), whole, ecb.data()), KS_OK);
    ASSERT_EQ(ks_skinny128_256_crypt(KS_SKINNY_ECB, 0, tk.data(), nullptr, 0, ecb.data(), whole, back.data()), KS_OK);
    EXPECT_EQ(back, Bytes(data.begin(), data.begin() + whole));
  }
}

// Every block under its own TK1: the kernel's groups (16 or 8 lanes, each
// with its own round tweakeys), a partial last group, and the one-block
// code, each block against a whole schedule of TK1 || TK2.
TEST(SkinnyApi, TweakPerBlockIsTk1) {
  for (size_t n : {size_t(1), size_t(5), size_t(16), size_t(37)}) {
    const Bytes key = random_bytes(16), tweaks = random_bytes(16 * n), pt = random_bytes(16 * n);
    Bytes ct(pt.size()), back(pt.size());
    ASSERT_EQ(ks_skinny128_256_tweaked_blocks(1, key.data(), tweaks.data(), pt.data(), ct.data(),
                                              n), KS_OK);
    ASSERT_EQ(ks_skinny128_256_tweaked_blocks(0, key.data(), tweaks.data(), ct.data(),
                                              back.data(), n), KS_OK);
    EXPECT_EQ(back, pt) << n;
    for (size_t i = 0; i < n; ++i) {
      Bytes tk(tweaks.begin() + 16 * i, tweaks.begin() + 16 * i + 16);
      tk.insert(tk.end(), key.begin(), key.end());
      uint8_t want[16];
      ks::skinny::encrypt_blocks(key_of(tk), pt.data() + 16 * i, want, 1);
      EXPECT_EQ(Bytes(ct.begin() + 16 * i, ct.begin() + 16 * i + 16), Bytes(want, want + 16))
          << n << " blocks, block " << i;
    }
  }
}

TEST(SkinnyApi, BatchWithPerItemStatus) {
  CpuCtx c(2);
  const size_t n = 40;
  Bytes tks = random_bytes(32 * n), ivs = random_bytes(16 * n), data;
  std::vector<uint64_t> offsets{0};
  for (size_t i = 0; i < n; ++i) {
    const size_t len = i == 7 ? 33 : 16 * (random_u32() % 6);  // item 7: not whole blocks
    const Bytes m = random_bytes(len);
    data.insert(data.end(), m.begin(), m.end());
    offsets.push_back(data.size());
  }
  for (int mode : {KS_SKINNY_CTR, KS_SKINNY_ECB}) {
    Bytes out(data.size(), 0xEE);
    std::vector<int> status(n);
    const int rc = ks_skinny128_256_batch(c.ctx, mode, 1, tks.data(), mode == KS_SKINNY_CTR ? ivs.data() : nullptr,
                                          data.data(), data.size(), offsets.data(), n, out.data(), out.size(),
                                          status.data());
    EXPECT_EQ(rc, mode == KS_SKINNY_CTR ? KS_OK : KS_ERR_BATCH_ITEMS);
    for (size_t i = 0; i < n; ++i) {
      const size_t b = offsets[i], len = offsets[i + 1] - b;
      Bytes want(len);
      const int one = ks_skinny128_256_crypt(mode, 1, tks.data() + 32 * i, mode == KS_SKINNY_CTR ? ivs.data() + 16 * i : nullptr,
                                             mode == KS_SKINNY_CTR ? 16 : 0, data.data() + b, len, want.data());
      EXPECT_EQ(status[i], one) << i;
      if (one == KS_OK) {
        EXPECT_EQ(Bytes(out.begin() + b, out.begin() + b + len), want) << i;
      }
    }
    EXPECT_EQ(status[7], mode == KS_SKINNY_CTR ? KS_OK : KS_ERR_LENGTH);
  }
}

TEST(SkinnyApi, BadArgumentsAreNamed) {
  CpuCtx c(1);
  const Bytes tk(32, 1), iv(16, 2), data(32, 3);
  Bytes out(32);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_ECB, 1, tk.data(), nullptr, 0, data.data(), 17, out.data()), KS_ERR_LENGTH);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tk.data(), iv.data(), 15, data.data(), 16, out.data()), KS_ERR_LENGTH);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tk.data(), nullptr, 16, data.data(), 16, out.data()), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_ECB, 1, tk.data(), iv.data(), 16, data.data(), 16, out.data()), KS_ERR_LENGTH);
  EXPECT_EQ(ks_skinny128_256_crypt(2, 1, tk.data(), iv.data(), 16, data.data(), 16, out.data()), KS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, nullptr, iv.data(), 16, data.data(), 16, out.data()), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tk.data(), iv.data(), 16, nullptr, 16, out.data()), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_skinny128_256_crypt(KS_SKINNY_CTR, 1, tk.data(), iv.data(), 16, nullptr, 0, nullptr), KS_OK);
  EXPECT_EQ(ks_skinny128_256_crypt_buffer(nullptr, KS_SKINNY_CTR, 1, tk.data(), iv.data(), 16, data.data(), 16, out.data()), KS_ERR_NULL_POINTER);
  const uint64_t offsets[2] = {0, 33};
  int status = 0;
  EXPECT_EQ(ks_skinny128_256_batch(c.ctx, KS_SKINNY_CTR, 1, tk.data(), iv.data(), data.data(), 32, offsets, 1, out.data(), 32, &status), KS_ERR_OFFSETS);
  const uint64_t ok_offsets[2] = {0, 32};
  EXPECT_EQ(ks_skinny128_256_batch(c.ctx, KS_SKINNY_CTR, 1, tk.data(), iv.data(), data.data(), 32, ok_offsets, 1, out.data(), 31, &status), KS_ERR_LENGTH);
  EXPECT_EQ(ks_skinny128_256_batch(c.ctx, KS_SKINNY_CTR, 1, tk.data(), nullptr, data.data(), 32, ok_offsets, 1, out.data(), 32, &status), KS_ERR_NULL_POINTER);
  EXPECT_EQ(ks_skinny128_256_tweaked_blocks(1, tk.data(), nullptr, data.data(), out.data(), 1), KS_ERR_NULL_POINTER);
}

}  // namespace
