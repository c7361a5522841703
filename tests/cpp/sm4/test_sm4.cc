// SM4 blocks (src/sm4/sm4*.h): the GB/T 32907-2016 vectors, the S-box
// decomposition behind every kernel checked on all 256 inputs, every
// variant built into the library against an independent table-based model
// (test_sm4_ref.h) and OpenSSL, CTR against ECB of the counters, and the
// run-time choice under KS_CPU_FEATURES masks.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "sm4/sm4.h"
#include "sm4/sm4_blocks.h"
#include "sm4/sm4_core.h"
#include "sm4/sm4_sbox_affine.h"
#include "cipher/x86_cpu.h"
#include "core/cpu_features.h"
#include "test_sm4_ref.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;
using ks::sm4::Variant;

std::vector<const Variant*> usable_variants() {
  size_t count = 0;
  const Variant* table = ks::sm4::variants(&count);
  std::vector<const Variant*> out;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].usable) {
      out.push_back(&table[i]);
    } else {
      std::printf("  [SM4 variant %s: not usable on this CPU, skipped]\n", table[i].name);
    }
  }
  return out;
}

// GB/T 32907-2016 appendix A (and GmSSL tests/sm4test.c).
const char kGbtKey[] = "0123456789abcdeffedcba9876543210";
const char kGbtCipher[] = "681edf34d206965e86b3e94f536e4246";
const char kGbtMillion[] = "595298c7c6fd271f0402f804c33d3f66";

TEST(Sm4Ref, ModelReproducesTheStandard) {
  const Bytes key = ks_test::from_hex(kGbtKey);
  uint32_t rk[32];
  sm4_ref::expand(key.data(), rk);
  EXPECT_EQ(rk[0], 0xf12186f9u);
  EXPECT_EQ(rk[1], 0x41662b61u);
  EXPECT_EQ(rk[2], 0x5a6ab19au);
  EXPECT_EQ(rk[3], 0x7ba92077u);
  EXPECT_EQ(rk[31], 0x9124a012u);
  Bytes block = key;
  sm4_ref::crypt(rk, false, block.data(), block.data());
  EXPECT_EQ(block, ks_test::from_hex(kGbtCipher));
  block = key;
  for (int i = 0; i < 1000000; ++i) sm4_ref::crypt(rk, false, block.data(), block.data());
  EXPECT_EQ(block, ks_test::from_hex(kGbtMillion));
}

// sm4_core.h's S-box circuit through the one-word path (tau_word).
TEST(Sm4Sbox, CircuitMatchesTheTable) {
  for (int x = 0; x < 256; ++x) {
    for (int byte = 0; byte < 4; ++byte) {
      const uint32_t w = uint32_t(x) << (8 * byte) | (0x5a5a5a5au & ~(0xffu << (8 * byte)));
      ASSERT_EQ(ks::sm4::tau_portable(w), sm4_ref::tau(w)) << "x=" << x << " byte=" << byte;
    }
  }
}

// sbox_planes (the generated circuit of tools/sm4_sbox_circuit.py) directly,
// on the plane types of its users: uint64_t (BitslicedOps) and uint32_t
// (tau_word, the GPU kernel). All 256 inputs, each in every lane: for every
// shift s, lane l of the batch at base holds (base + l + s) mod 256.
template <class P>
void check_sbox_planes() {
  constexpr int kLanes = int(sizeof(P) * 8);
  for (int shift = 0; shift < kLanes; ++shift) {
    for (int base = 0; base < 256; base += kLanes) {
      P x[8] = {};
      for (int l = 0; l < kLanes; ++l) {
        const int v = (base + l + shift) & 255;
        for (int i = 0; i < 8; ++i) x[i] |= P((v >> i) & 1) << l;
      }
      ks::sm4::sbox_planes(x);
      for (int l = 0; l < kLanes; ++l) {
        const int v = (base + l + shift) & 255;
        int y = 0;
        for (int i = 0; i < 8; ++i) y |= int((x[i] >> l) & 1) << i;
        ASSERT_EQ(y, sm4_ref::kSbox[v]) << "x=" << v << " lane=" << l;
      }
    }
  }
}

TEST(Sm4Sbox, PlanesMatchTheTable64) { check_sbox_planes<uint64_t>(); }
TEST(Sm4Sbox, PlanesMatchTheTable32) { check_sbox_planes<uint32_t>(); }

// The maps into and out of AES's field (sm4_sbox_affine.h), evaluated in
// plain C with AES's inversion and SubBytes computed from their definitions.
uint8_t aes_inverse(uint8_t x) {
  for (int y = 1; y < 256 && x != 0; ++y)
    if (ks::sm4::affine::aes_mul(x, uint8_t(y)) == 1) return uint8_t(y);
  return 0;
}

uint8_t aes_subbytes(uint8_t x) {  // FIPS 197 5.1.1
  const uint8_t b = aes_inverse(x);
  uint8_t r = 0x63;
  for (int i = 0; i < 8; ++i) {
    const int bit = ((b >> i) ^ (b >> ((i + 4) & 7)) ^ (b >> ((i + 5) & 7)) ^
                     (b >> ((i + 6) & 7)) ^ (b >> ((i + 7) & 7))) & 1;
    r ^= uint8_t(bit << i);
  }
  return r;
}

uint8_t nibbles(const ks::sm4::affine::NibbleTables& t, uint8_t x) {
  return t.lo[x & 15] ^ t.hi[x >> 4];
}

TEST(Sm4Sbox, AesFieldDecompositionMatchesTheTable) {
  namespace af = ks::sm4::affine;
  const af::Affine in = af::map_in(), out = af::map_out_of_inverse();
  for (int x = 0; x < 256; ++x) {
    const uint8_t y = af::apply(in.m, uint8_t(x)) ^ in.c;
    // gf2p8affineinvqb's form and aesenclast's form.
    EXPECT_EQ(af::apply(out.m, aes_inverse(y)) ^ out.c, sm4_ref::kSbox[x]) << x;
    EXPECT_EQ(nibbles(af::kAesOut, aes_subbytes(nibbles(af::kAesIn, uint8_t(x)))),
              sm4_ref::kSbox[x])
        << x;
  }
}

// Every kernel's S-box on all 256 inputs in every byte of a word.
TEST(Sm4Variants, SboxMatchesTheTable) {
  for (const Variant* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    for (int x = 0; x < 256; ++x)
      for (int byte = 0; byte < 4; ++byte) {
        const uint32_t w = uint32_t(x) << (8 * byte) | (0x3c3c3c3cu & ~(0xffu << (8 * byte)));
        ASSERT_EQ(v->tau(w), sm4_ref::tau(w)) << "x=" << x << " byte=" << byte;
      }
  }
}

TEST(Sm4Variants, StandardVectors) {
  const Bytes key = ks_test::from_hex(kGbtKey);
  for (const Variant* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    ks::sm4::Key k;
    ks::sm4::set_key(&k, key.data(), *v);
    uint32_t rk[32];
    sm4_ref::expand(key.data(), rk);
    for (int i = 0; i < 32; ++i) ASSERT_EQ(k.enc[i], rk[i]) << i;
    Bytes block = key;
    ks::sm4::encrypt_blocks(k, block.data(), block.data(), 1);
    EXPECT_EQ(block, ks_test::from_hex(kGbtCipher));
    ks::sm4::decrypt_blocks(k, block.data(), block.data(), 1);
    EXPECT_EQ(block, key);
    // The million-fold chain, cut to 10,000 links for the slow portable
    // single-block path (the full chain runs on the chosen variant below).
    Bytes mine = key, model = key;
    for (int i = 0; i < 10000; ++i) {
      ks::sm4::encrypt_blocks(k, mine.data(), mine.data(), 1);
      sm4_ref::crypt(rk, false, model.data(), model.data());
    }
    EXPECT_EQ(mine, model);
  }
}

TEST(Sm4, MillionIterationsOnTheChosenVariant) {
  // A million one-block calls compute one known answer; under a sanitizer
  // they check no memory the other tests do not (the optimized build runs it).
  if (ks_test::kSanitized) GTEST_SKIP() << "the optimized build runs it";
  const Bytes key = ks_test::from_hex(kGbtKey);
  ks::sm4::Key k;
  ks::sm4::set_key(&k, key.data());
  Bytes block = key;
  for (int i = 0; i < 1000000; ++i) ks::sm4::encrypt_blocks(k, block.data(), block.data(), 1);
  EXPECT_EQ(block, ks_test::from_hex(kGbtMillion));
}

// Every block count from 0 to 200 (every tail of every group size) and a
// few long runs; unaligned, in place and out of place; both directions.
TEST(Sm4Variants, MatchTheModelOnRandomBlocks) {
  std::mt19937 rng(20260411);
  std::vector<size_t> counts;
  for (size_t n = 0; n <= 200; ++n) counts.push_back(n);
  for (size_t n : {255, 256, 257, 1023, 4099}) counts.push_back(n);
  for (const Variant* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    for (size_t n : counts) {
      const Bytes key = ks_test::random_bytes(rng, 16);
      ks::sm4::Key k;
      ks::sm4::set_key(&k, key.data(), *v);
      uint32_t rk[32];
      sm4_ref::expand(key.data(), rk);
      const size_t offset = n % 7;  // misaligned buffers
      Bytes pt = ks_test::random_bytes(rng, 16 * n + offset), ct(16 * n + offset), model(16 * n);
      for (size_t i = 0; i < n; ++i)
        sm4_ref::crypt(rk, false, pt.data() + offset + 16 * i, model.data() + 16 * i);
      ks::sm4::encrypt_blocks(k, pt.data() + offset, ct.data() + offset, n);
      ASSERT_EQ(Bytes(ct.begin() + offset, ct.end()), model) << "n=" << n;
      Bytes inplace = ct;
      ks::sm4::decrypt_blocks(k, inplace.data() + offset, inplace.data() + offset, n);
      ASSERT_EQ(Bytes(inplace.begin() + offset, inplace.end()),
                Bytes(pt.begin() + offset, pt.end()))
          << "n=" << n;
    }
  }
}

// CTR = in XOR ECB(counter + i), the counter 128 bits wide and wrapping
// modulo 2^128; counters chosen to cross the 32-bit and 64-bit words and
// the top inside a run.
TEST(Sm4Variants, CtrIsEcbOfTheCounters) {
  std::mt19937 rng(7);
  const std::vector<std::string> starts = {
      "000102030405060708090a0b0c0d0e0f", "00000000000000000000000000000000",
      "0000000000000000fffffffffffffff0", "00000000ffffffffffffffffffffffe7",
      "ffffffffffffffffffffffffffffffe1", "0123456789abcdef01234567fffffffd"};
  for (const Variant* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    for (const std::string& start : starts) {
      for (size_t n : {1, 3, 16, 31, 32, 33, 64, 100, 257}) {
        const Bytes key = ks_test::random_bytes(rng, 16);
        ks::sm4::Key k;
        ks::sm4::set_key(&k, key.data(), *v);
        uint32_t rk[32];
        sm4_ref::expand(key.data(), rk);
        const Bytes in = ks_test::random_bytes(rng, 16 * n);
        Bytes expect(16 * n), counter = ks_test::from_hex(start);
        for (size_t i = 0; i < n; ++i) {
          uint8_t ks_block[16];
          sm4_ref::crypt(rk, false, counter.data(), ks_block);
          for (int j = 0; j < 16; ++j) expect[16 * i + j] = in[16 * i + j] ^ ks_block[j];
          for (int j = 15; j >= 0 && ++counter[j] == 0; --j) {
          }
        }
        Bytes out(16 * n), mine = ks_test::from_hex(start);
        ks::sm4::ctr_blocks(k, mine.data(), in.data(), out.data(), n);
        ASSERT_EQ(out, expect) << start << " n=" << n;
        ASSERT_EQ(mine, counter) << "counter after the run";
      }
    }
  }
}

TEST(Sm4Variants, MatchOpenSslEcb) {
  std::mt19937 rng(99);
  for (const Variant* v : usable_variants()) {
    SCOPED_TRACE(v->name);
    const bool slow = std::string(v->name) == "portable";
    for (size_t n : {size_t(1), size_t(17), size_t(4096), size_t(65536)}) {
      if (slow && n > 4096) continue;
      const Bytes key = ks_test::random_bytes(rng, 16), pt = ks_test::random_bytes(rng, 16 * n);
      Bytes mine(16 * n), theirs(16 * n + 16);
      ks::sm4::Key k;
      ks::sm4::set_key(&k, key.data(), *v);
      ks::sm4::encrypt_blocks(k, pt.data(), mine.data(), n);
      EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
      int len = 0;
      ASSERT_EQ(EVP_EncryptInit_ex(c, EVP_sm4_ecb(), nullptr, key.data(), nullptr), 1);
      EVP_CIPHER_CTX_set_padding(c, 0);
      ASSERT_EQ(EVP_EncryptUpdate(c, theirs.data(), &len, pt.data(), int(pt.size())), 1);
      EVP_CIPHER_CTX_free(c);
      theirs.resize(size_t(len));
      ASSERT_EQ(mine, theirs) << "n=" << n;
    }
  }
}

// The run-time choice under KS_CPU_FEATURES: this binary re-runs itself
// with each mask, and the child checks the chosen variant (named in
// KS_SM4_EXPECT_VARIANT) against the model.
TEST(Sm4Dispatch, ChosenVariantUnderTheMask) {
  const char* expect = getenv("KS_SM4_EXPECT_VARIANT");
  if (expect == nullptr) GTEST_SKIP() << "run by Sm4Dispatch.HonoursKsCpuFeatures";
  const Variant& v = ks::sm4::chosen_variant();
  std::printf("  [chosen: %s]\n", v.name);
  EXPECT_STREQ(v.name, expect);
  std::mt19937 rng(1);
  const Bytes key = ks_test::random_bytes(rng, 16), pt = ks_test::random_bytes(rng, 16 * 40);
  uint32_t rk[32];
  sm4_ref::expand(key.data(), rk);
  ks::sm4::Key k;
  ks::sm4::set_key(&k, key.data());
  Bytes ct(pt.size()), model(pt.size());
  ks::sm4::encrypt_blocks(k, pt.data(), ct.data(), 40);
  for (size_t i = 0; i < 40; ++i) sm4_ref::crypt(rk, false, pt.data() + 16 * i, model.data() + 16 * i);
  EXPECT_EQ(ct, model);
}

int run_child(const std::string& mask, const std::string& expect) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("KS_CPU_FEATURES", mask.c_str(), 1);
    setenv("KS_SM4_EXPECT_VARIANT", expect.c_str(), 1);
    execl("/proc/self/exe", "test_sm4", "--gtest_filter=Sm4Dispatch.ChosenVariantUnderTheMask",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Sm4Dispatch, HonoursKsCpuFeatures) {
  if (getenv("KS_CPU_FEATURES") != nullptr) GTEST_SKIP() << "already under a mask";
  const ks::CpuFeatures& f = ks::cpu_features();
  // What each mask must leave, given what this CPU has.
  const bool avx512 = f.avx512f && f.avx512bw && f.avx512vl;
  const std::string aesni_avx2 = ks::x86::has_aesni() ? "aesni-avx2" : "portable";
  struct Case {
    std::string mask, expect;
  } cases[] = {
      {"portable", "portable"},
      {"-avx2", "portable"},
      {"-avx512f", f.avx2 && f.gfni ? "gfni-avx2" : aesni_avx2},
      {"-gfni", avx512 && f.vaes && ks::x86::has_aesni() ? "aesni-avx512" : aesni_avx2},
      {"-gfni,-avx512f", aesni_avx2},
      {"-gfni,-vaes", aesni_avx2},
      {"", ks::sm4::chosen_variant().name},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mask);
    EXPECT_EQ(run_child(c.mask, c.expect), 0);
  }
}

}  // namespace
