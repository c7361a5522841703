// The one-thread Ed25519 code of the GPU kernels
// (curve25519/ed25519_verify_one.h, curve25519/ed25519_sign_one.h), compiled for
// the host: the verifier over the CPU field on thousands of items and over
// the host-emulated FP64 / DPF field on a few hundred, each against
// curve25519/ed25519.cc's statuses on valid and bad input
// (tests/cpp/curve25519/ed25519_verify_cases.h); key expansion, public keys and
// signatures byte for byte against curve25519/ed25519.cc and the RFC 8032
// vectors, X25519 public keys by the comb against curve25519/x25519.cc and RFC
// 7748; its SHA-512 of parts and scalar arithmetic against the CPU's.
// The GPU runs the same code in test_gpu_curve25519.cc.
// The GPU formulas as ordinary inline functions here (core/hd.h): forced
// inlining made this file minutes of g++ for no difference in what it checks.
#define KS_HD_HOST_PLAIN_INLINE 1
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "curve25519/ed25519_curve.h"
#include "ed25519_verify_cases.h"
#include "field/fe25519_dpf.cuh"
#include "field/sc25519.h"
#include "hash/sha512.h"
#include "curve25519/ed25519_sign_one.h"
#include "curve25519/x25519.h"
#include "curve25519/ed25519_verify_one.h"
#include "test_util.h"

namespace {

namespace one = ks::ed25519::one_thread;

const uint64_t* comb_words() {
  static_assert(sizeof(ks::curve::ed::Niels<ks::field::Fe25519>) == 8 * one::kCombEntryWords,
                "comb entries are three 4-word values");
  return reinterpret_cast<const uint64_t*>(ks::curve::ed25519::comb_table());
}

template <class F>
void check_against_cpu(size_t n, size_t keys) {
  std::mt19937_64 rng(std::random_device{}());
  const ks_test::VerifyItems items = ks_test::make_verify_items(n, keys, rng);
  const std::vector<int> want = ks_test::cpu_verify_statuses(items);
  std::vector<int> got(n);
  ks_test::parallel_for(n, [&](size_t i) {
    got[i] = one::Verifier<F>::verify(&items.pubs[32 * i], items.msg(i), items.len(i),
                                      &items.sigs[64 * i], comb_words());
  });
  int counts[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], want[i]) << "item " << i << " pub " << ks_test::to_hex(&items.pubs[32 * i], 32)
                               << " sig " << ks_test::to_hex(&items.sigs[64 * i], 64);
    ++counts[want[i]];
  }
  for (int s = 0; s < 4; ++s) EXPECT_GT(counts[s], 0) << "status " << s << " never occurred";
}

TEST(Ed25519VerifyOne, CpuFieldAgreesWithTheCpuVerifier) {
  check_against_cpu<ks::field::Fe25519>(ks_test::scaled(6000), 64);
}

TEST(Ed25519VerifyOne, EmulatedDpfFieldAgreesWithTheCpuVerifier) {
  check_against_cpu<ks::field::Fe25519Dpf>(400, 16);
}

template <class F>
void check_signer(size_t n) {
  using Signer = one::Signer<F>;
  std::mt19937_64 rng(std::random_device{}());
  for (size_t t = 0; t < n; ++t) {
    // RFC 8032 7.1 TEST 1 first, then random seeds and messages
    const std::vector<uint8_t> seed =
        t == 0 ? ks_test::from_hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
               : ks_test::random_bytes(32);
    const std::vector<uint8_t> msg = ks_test::random_bytes(t == 0 ? 0 : rng() % 300);
    ks::ed25519::PrivateKey want;
    ks::ed25519::key_from_seed(want, seed.data());
    uint64_t s[4], s_mont[4];
    uint8_t prefix[32], pub[32], sig[64], want_sig[64];
    Signer::expand(s, prefix, seed.data());
    for (int i = 0; i < 4; ++i) ASSERT_EQ(s[i], want.s.w[i]);
    ASSERT_EQ(memcmp(prefix, want.prefix, 32), 0);
    Signer::public_key(pub, s, comb_words());
    ASSERT_EQ(ks_test::to_hex(pub, 32), ks_test::to_hex(want.pub.bytes, 32)) << t;
    ks::field::sc25519_to_mont(s_mont, s);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(s_mont[i], want.s_mont.w[i]);
    Signer::sign(sig, s_mont, prefix, pub, msg.data(), msg.size(), comb_words());
    ks::ed25519::sign(want_sig, want, ks::ed25519::Domain(), msg.data(), msg.size());
    ASSERT_EQ(ks_test::to_hex(sig, 64), ks_test::to_hex(want_sig, 64)) << t;
    // X25519 public keys by the same comb: RFC 7748 6.1's Alice first.
    const std::vector<uint8_t> k =
        t == 0 ? ks_test::from_hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
               : seed;
    uint8_t u[32], want_u[32];
    Signer::x25519_public_key(u, k.data(), comb_words());
    ks::x25519::public_key(want_u, k.data());
    ASSERT_EQ(ks_test::to_hex(u, 32), ks_test::to_hex(want_u, 32)) << t;
    if (t == 0) {
      ASSERT_EQ(ks_test::to_hex(u, 32),
                "8520F0098930A754748B7DDCB43EF75A0DBF3A0D26381AF4EBA4A98EAA9B4E6A");
    }
  }
}

// Public keys and signatures three at a time (one inversion for three, as
// the GPU's kernels share one), Ed25519 and X25519, against the CPU.
template <class F>
void check_keys_together(size_t rounds) {
  using Signer = one::Signer<F>;
  for (size_t t = 0; t < rounds; ++t) {
    uint8_t seeds[3][32], pubs[3][32], us[3][32];
    uint64_t s[3][4];
    const uint8_t* keys[3];
    for (int j = 0; j < 3; ++j) {
      const std::vector<uint8_t> seed = ks_test::random_bytes(32);
      memcpy(seeds[j], seed.data(), 32);
      uint8_t prefix[32];
      Signer::expand(s[j], prefix, seeds[j]);
      keys[j] = seeds[j];
    }
    Signer::template public_keys<4>(pubs, s, 3, comb_words());
    Signer::template x25519_public_keys<4>(us, keys, 3, comb_words());
    // Three signatures together, each message (0 to 299 bytes) under its
    // own key.
    uint64_t s_mont[3][4];
    typename Signer::Key sign_keys[3];
    std::vector<uint8_t> msgs[3];
    const uint8_t* msg[3];
    uint64_t len[3];
    uint8_t prefixes[3][32], sigs[3][64];
    for (int j = 0; j < 3; ++j) {
      Signer::expand(s[j], prefixes[j], seeds[j]);
      ks::field::sc25519_to_mont(s_mont[j], s[j]);
      sign_keys[j] = {s_mont[j], prefixes[j], pubs[j]};
      msgs[j] = ks_test::random_bytes((t * 37 + j * 101) % 300);
      msg[j] = msgs[j].data();
      len[j] = msgs[j].size();
    }
    Signer::template sign_many<4>(sigs, sign_keys, msg, len, 3, comb_words());
    for (int j = 0; j < 3; ++j) {
      ks::ed25519::PrivateKey want;
      ks::ed25519::key_from_seed(want, seeds[j]);
      ASSERT_EQ(ks_test::to_hex(pubs[j], 32), ks_test::to_hex(want.pub.bytes, 32)) << t << j;
      uint8_t want_u[32], want_sig[64];
      ks::x25519::public_key(want_u, seeds[j]);
      ASSERT_EQ(ks_test::to_hex(us[j], 32), ks_test::to_hex(want_u, 32)) << t << j;
      ks::ed25519::sign(want_sig, want, ks::ed25519::Domain(), msg[j], len[j]);
      ASSERT_EQ(ks_test::to_hex(sigs[j], 64), ks_test::to_hex(want_sig, 64)) << t << j;
    }
  }
}

TEST(Ed25519SignOne, CpuFieldSignsAsTheCpu) { check_signer<ks::field::Fe25519>(300); }

TEST(Ed25519SignOne, KeysAndSignaturesTogetherShareOneInversion) {
  check_keys_together<ks::field::Fe25519>(50);
  check_keys_together<ks::field::Fe25519Dpf>(5);
}

TEST(Ed25519SignOne, EmulatedDpfFieldSignsAsTheCpu) { check_signer<ks::field::Fe25519Dpf>(20); }

TEST(Ed25519VerifyOne, DigestOfPartsAndReductionMatchTheCpu) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 2000; ++t) {
    std::vector<uint8_t> a = ks_test::random_bytes(rng() % 200), b = ks_test::random_bytes(rng() % 140),
                         c = ks_test::random_bytes(t < 300 ? t : rng() % 600);
    uint8_t got[64], want[64];
    ks::sha512::digest_parts(got, ks::sha512::Parts{{a.data(), b.data(), c.data()},
                                                    {a.size(), b.size(), c.size()}});
    const uint8_t* parts[] = {a.data(), b.data(), c.data()};
    const size_t lens[] = {a.size(), b.size(), c.size()};
    ks::sha512::digest_parts(parts, lens, 3, want);
    ASSERT_EQ(ks_test::to_hex(got, 64), ks_test::to_hex(want, 64)) << a.size() << " " << b.size()
                                                                   << " " << c.size();
    uint64_t k[4];
    ks::field::sc25519_reduce_wide(k, got);
    const ks::field::U256 r = ks::field::Sc25519::reduce_wide(got);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(k[i], r.w[i]);
  }
  uint8_t all_ones[64];
  memset(all_ones, 0xFF, 64);  // 2^512 - 1, the largest input
  uint64_t k[4];
  ks::field::sc25519_reduce_wide(k, all_ones);
  const ks::field::U256 r = ks::field::Sc25519::reduce_wide(all_ones);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(k[i], r.w[i]);
}

}  // namespace
