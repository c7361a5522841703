// Ed25519 verification inputs for tests of other verifiers against the CPU
// (curve25519/ed25519.h): valid signatures over random messages of 0 to 300
// bytes mixed with every kind of bad input where implementations disagree
// (S >= L, non-canonical, off-curve and small-order A and R, x = 0 with the
// sign bit, mixed-order R that only the cofactored equation accepts, wrong
// messages and flipped bits), in the flat layout of the batch calls.
#ifndef KS_TESTS_ED25519_VERIFY_CASES_H_
#define KS_TESTS_ED25519_VERIFY_CASES_H_

#include <string.h>

#include <random>
#include <vector>

#include "curve25519/ed25519_curve.h"
#include "field/sc25519.h"
#include "hash/sha512.h"
#include "curve25519/ed25519.h"
#include "test_util.h"

namespace ks_test {

struct VerifyItems {
  std::vector<uint8_t> pubs, sigs, data;  // 32 and 64 bytes per item; messages
  std::vector<uint64_t> offsets{0};       // count + 1
  size_t count() const { return offsets.size() - 1; }
  const uint8_t* msg(size_t i) const { return data.data() + offsets[i]; }
  size_t len(size_t i) const { return size_t(offsets[i + 1] - offsets[i]); }
};

// The statuses curve25519/ed25519.cc gives (kBadPublicKey for a key
// public_key_from_bytes refuses), as ints.
inline std::vector<int> cpu_verify_statuses(const VerifyItems& items) {
  std::vector<int> status(items.count());
  parallel_for(items.count(), [&](size_t i) {
    ks::ed25519::PublicKey pub;
    ks::ed25519::Error e = ks::ed25519::public_key_from_bytes(pub, &items.pubs[32 * i]);
    if (e == ks::ed25519::Error::kOk)
      e = ks::ed25519::verify(pub, ks::ed25519::Domain(), items.msg(i), items.len(i),
                              &items.sigs[64 * i]);
    status[i] = int(e);
  });
  return status;
}

namespace ed25519_cases {

// An order-8 point (RFC 8032's small-order list) and encodings that are
// not points or not canonical.
constexpr const char* kTorsion8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a";
constexpr const char* kBad[] = {
    "0100000000000000000000000000000000000000000000000000000000000000",  // identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p - 1: order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  // y = 0: order 4
    "0000000000000000000000000000000000000000000000000000000000000080",  // order 4, sign set
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  // order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  // order 8
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p + 1
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p
    "0100000000000000000000000000000000000000000000000000000000000080",  // x = 0, sign 1
    "0200000000000000000000000000000000000000000000000000000000000000",  // off the curve
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  // y = 2^255 - 1
};

// A signature whose R carries an order-8 component, made honestly: R' =
// [r]B + T8, S = r + H(R' || A || M) s. The cofactored equation accepts it.
inline void sign_with_mixed_r(uint8_t sig[64], const ks::ed25519::PrivateKey& key,
                              const uint8_t* msg, size_t len) {
  namespace curve = ks::curve::ed25519;
  using ks::field::Sc25519;
  const std::vector<uint8_t> r_bytes = random_bytes(64), t8 = from_hex(kTorsion8);
  const ks::field::U256 r = Sc25519::reduce_wide(r_bytes.data());
  curve::Point torsion;
  curve::decode(torsion, t8.data());
  curve::encode(sig, ks::curve::ed::add(curve::mul_base(r), ks::curve::ed::cached(torsion, curve::kD2))
                         .extended());
  const uint8_t* parts[] = {sig, key.pub.bytes, msg};
  const size_t lens[] = {32, 32, len};
  uint8_t digest[64];
  ks::sha512::digest_parts(parts, lens, 3, digest);
  const ks::field::U256 k = Sc25519::reduce_wide(digest);
  Sc25519::to_le_bytes(sig + 32, ks::ed25519::signing_equation(r, k, key.s_mont));
}

}  // namespace ed25519_cases

// n items under `keys` fresh keys; about one in three is valid as made, the
// rest altered in one of the ways above (the CPU decides their status).
inline VerifyItems make_verify_items(size_t n, size_t keys, std::mt19937_64& rng) {
  using namespace ed25519_cases;
  std::vector<ks::ed25519::PrivateKey> pool(keys);
  for (auto& k : pool) ks::ed25519::key_from_seed(k, random_bytes(32).data());
  VerifyItems items;
  items.pubs.resize(32 * n);
  items.sigs.resize(64 * n);
  std::vector<size_t> key_of(n);
  for (size_t i = 0; i < n; ++i) {
    const std::vector<uint8_t> msg = random_bytes(rng() % 301);
    items.data.insert(items.data.end(), msg.begin(), msg.end());
    items.offsets.push_back(items.data.size());
    key_of[i] = rng() % keys;
  }
  std::vector<uint32_t> kind(n);
  for (auto& k : kind) k = uint32_t(rng() % 48);
  parallel_for(n, [&](size_t i) {
    const ks::ed25519::PrivateKey& key = pool[key_of[i]];
    uint8_t* pub = &items.pubs[32 * i];
    uint8_t* sig = &items.sigs[64 * i];
    memcpy(pub, key.pub.bytes, 32);
    if (kind[i] == 1) {
      sign_with_mixed_r(sig, key, items.msg(i), items.len(i));
      return;
    }
    ks::ed25519::sign(sig, key, ks::ed25519::Domain(), items.msg(i), items.len(i));
  });
  const size_t n_bad = sizeof kBad / sizeof kBad[0];
  for (size_t i = 0; i < n; ++i) {
    uint8_t* pub = &items.pubs[32 * i];
    uint8_t* sig = &items.sigs[64 * i];
    const uint32_t k = kind[i];
    if (k < 16) continue;  // valid (and mixed-order R)
    if (k < 18) pub[rng() % 32] ^= uint8_t(1u << (rng() % 8));
    else if (k < 20) sig[rng() % 64] ^= uint8_t(1u << (rng() % 8));
    else if (k < 22 && items.len(i) > 0) items.data[items.offsets[i]] ^= 1;  // wrong message
    else if (k < 24) memcpy(pub, from_hex(kBad[rng() % n_bad]).data(), 32);
    else if (k < 26) memcpy(sig, from_hex(kBad[rng() % n_bad]).data(), 32);
    else if (k < 27) sig[63] |= 0x80;  // S >= 2^255
    else if (k < 28) {                 // S + L: the same value mod L, not canonical
      ks::field::U256 s = ks::field::Sc25519::from_le_bytes(sig + 32);
      ks::field::add_carry(s, s, ks::field::Sc25519::kModulus);
      ks::field::Sc25519::to_le_bytes(sig + 32, s);
    } else if (k < 29) {  // S = L exactly
      ks::field::Sc25519::to_le_bytes(sig + 32, ks::field::Sc25519::kModulus);
    } else if (k < 30) {  // A + T8: of mixed order, accepted as a key
      namespace curve = ks::curve::ed25519;
      curve::Point a, t;
      curve::decode(a, pub);
      curve::decode(t, from_hex(kTorsion8).data());
      curve::encode(pub, ks::curve::ed::add(a, ks::curve::ed::cached(t, curve::kD2)).extended());
    } else if (k < 31) {
      memset(sig + 32, 0, 32);  // S = 0
    }
  }
  return items;
}

}  // namespace ks_test

#endif  // KS_TESTS_ED25519_VERIFY_CASES_H_
