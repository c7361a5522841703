// One signer's batch for the tests of verification under a key object
// (ks_sm2_verify_batch_key, ks_sm2_verify_digest_batch_key;
// test_sm2_verify_key.cc, test_gpu_sm2_verify_key.cc): digests and messages
// signed under a fresh key through a CPU context, every odd item then made
// invalid in one of the ways verification must catch, and the answers the
// per-item calls give, to compare with.
#ifndef KS_TESTS_SM2_KEY_BATCH_H_
#define KS_TESTS_SM2_KEY_BATCH_H_

#include <gtest/gtest.h>
#include <string.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

namespace ks_test {

struct Sm2KeyFree {
  void operator()(ks_sm2_key* k) const { ks_sm2_key_free(k); }
  void operator()(ks_sm2_pubkey* k) const { ks_sm2_pubkey_free(k); }
};

// The order n of the SM2 group, big-endian.
inline std::vector<uint8_t> sm2_order() {
  return from_hex("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
}

// sig = r || s with r + s = n (t = 0, clause 7.1 B5): s = n - r.
inline void make_t_zero(uint8_t* sig) {
  const std::vector<uint8_t> n = sm2_order();
  int borrow = 0;
  for (int i = 31; i >= 0; --i) {
    const int d = int(n[i]) - int(sig[i]) - borrow;
    sig[32 + i] = uint8_t(d);
    borrow = d < 0;
  }
}

class Sm2KeyBatch {
 public:
  // count items under a fresh key with `id`, signed on cpu_ctx.
  Sm2KeyBatch(ks_ctx* cpu_ctx, size_t count, std::mt19937_64& rng,
              const std::string& id = KS_SM2_DEFAULT_ID)
      : id(id.begin(), id.end()), digests(random_bytes(rng, 32 * count)),
        digest_sigs(64 * count), message_sigs(64 * count), pubs(65 * count) {
    ks_sm2_key* k = nullptr;
    ks_sm2_pubkey* p = nullptr;
    EXPECT_EQ(ks_sm2_key_generate(&k), KS_OK);
    key.reset(k);
    EXPECT_EQ(ks_sm2_key_public(k, &p), KS_OK);
    pub.reset(p);
    uint8_t bytes[65];
    size_t len = 0;
    EXPECT_EQ(ks_sm2_pubkey_to_bytes(p, 0, bytes, sizeof bytes, &len), KS_OK);
    std::vector<std::vector<uint8_t>> items(count);
    FlatMessages signed_messages;
    for (size_t i = 0; i < count; ++i) {
      memcpy(&pubs[65 * i], bytes, 65);
      // Item 0's message is long enough that no other item's is the same,
      // so its signature (tamper()'s kind 6) is invalid for every other.
      items[i] = random_bytes(rng, i == 0 ? 64 : rng() % 100);
      signed_messages.add(items[i]);
    }
    EXPECT_EQ(ks_sm2_sign_digest_batch(cpu_ctx, k, digests.data(), count, KS_SM2_NONCE_RANDOM,
                                       digest_sigs.data(), digest_sigs.size(), nullptr),
              KS_OK);
    EXPECT_EQ(ks_sm2_sign_batch(cpu_ctx, k, this->id.data(), this->id.size(),
                                signed_messages.data.data(), signed_messages.data.size(),
                                signed_messages.offsets.data(), count, KS_SM2_NONCE_RANDOM,
                                message_sigs.data(), message_sigs.size(), nullptr),
              KS_OK);
    for (size_t i = 1; i < count; i += 2) {
      tamper(i, &digest_sigs[64 * i], &digests[32 * i + rng() % 32], rng);
      std::vector<uint8_t>& msg = items[i];
      tamper(i, &message_sigs[64 * i], msg.empty() ? nullptr : &msg[rng() % msg.size()], rng);
    }
    for (const std::vector<uint8_t>& m : items) messages.add(m);
  }
  size_t count() const { return digests.size() / 32; }
  size_t valid() const { return (count() + 1) / 2; }

  // ks_sm2_verify_digest / ks_sm2_verify on each item.
  std::vector<int> single_digest_answers() const {
    std::vector<int> want(count());
    parallel_for(count(), [&](size_t i) {
      want[i] = ks_sm2_verify_digest(pub.get(), &digests[32 * i], &digest_sigs[64 * i]);
    });
    return want;
  }
  std::vector<int> single_message_answers() const {
    std::vector<int> want(count());
    parallel_for(count(), [&](size_t i) {
      const std::vector<uint8_t>& m = messages.items[i];
      want[i] = ks_sm2_verify(pub.get(), id.data(), id.size(), m.data(), m.size(),
                              &message_sigs[64 * i]);
    });
    return want;
  }

  std::vector<uint8_t> id;
  std::unique_ptr<ks_sm2_key, Sm2KeyFree> key;
  std::unique_ptr<ks_sm2_pubkey, Sm2KeyFree> pub;
  std::vector<uint8_t> digests, digest_sigs;
  FlatMessages messages;
  std::vector<uint8_t> message_sigs;
  std::vector<uint8_t> pubs;  // the key's 65 bytes once per item

 private:
  // Item i's signature or signed bytes made invalid, by the kind i picks:
  // a bit of r or s flipped, r = 0, s = 0, r = n, s all ones (> n), r + s
  // = n, another item's valid signature (item 0's), or a bit of the signed
  // byte `signed_byte` flipped (of the signature where there is none).
  static void tamper(size_t i, uint8_t* sig, uint8_t* signed_byte, std::mt19937_64& rng) {
    const uint8_t bit = uint8_t(1 << (rng() % 8));
    switch ((i / 2) % 8) {
      case 0: sig[rng() % 64] ^= bit; break;
      case 1: memset(sig, 0, 32); break;
      case 2: memset(sig + 32, 0, 32); break;
      case 3: memcpy(sig, sm2_order().data(), 32); break;
      case 4: memset(sig + 32, 0xFF, 32); break;
      case 5: make_t_zero(sig); break;
      case 6: memcpy(sig, sig - 64 * i, 64); break;
      default: *(signed_byte != nullptr ? signed_byte : sig + 63) ^= bit;
    }
  }
};

}  // namespace ks_test

#endif  // KS_TESTS_SM2_KEY_BATCH_H_
