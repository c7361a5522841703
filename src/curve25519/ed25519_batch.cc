#include "curve25519/ed25519_batch.h"

#include <string.h>

#include "core/secure.h"
#include "curve25519/ed25519_curve.h"
#include "curve25519/ed25519_mb.h"
#include "field/fe25519.h"
#include "field/sc25519.h"
#include "hash/sha512.h"
#include "hash/sha512_blocks.h"

namespace ks {
namespace {

// The groups of 8 IFMA lanes that n items fill; the lanes read all their
// inputs, so idle ones repeat item 0.
template <class T>
int fill_groups(T* v, size_t n) {
  constexpr size_t kGroupLanes = curve::ed25519::mb::kLanes;
  const size_t groups = (n + kGroupLanes - 1) / kGroupLanes;
  for (size_t i = n; i < kGroupLanes * groups; ++i) v[i] = v[0];
  return int(groups);
}

}  // namespace

namespace ed25519 {
namespace batch {

using field::Sc25519;
using field::U256;
namespace curve25519 = curve::ed25519;
namespace lanes = curve::ed25519::mb;
static_assert(kLanes == size_t(lanes::kLanes), "one group fills the IFMA lanes");

namespace {

// SHA-512(prefix_i || M_i) of every item through the multi-buffer SHA-512.
void hash_many(uint8_t (*digest)[sha512::kDigestBytes], const uint8_t* const prefix[],
               size_t prefix_len, const uint8_t* const msgs[], const size_t lens[], size_t n) {
  sha512::Prefixes prefixes;
  prefixes.bytes = prefix;
  prefixes.len = prefix_len;
  sha512::digest_many(msgs, lens, n, digest, prefixes);
}

// ... reduced mod L (the nonces r and the challenges k), n <= kBatchItems.
void hash_to_scalars(U256 out[], const uint8_t* const prefix[], size_t prefix_len,
                     const uint8_t* const msgs[], const size_t lens[], size_t n) {
  uint8_t digest[kBatchItems][sha512::kDigestBytes];
  hash_many(digest, prefix, prefix_len, msgs, lens, n);
  for (size_t i = 0; i < n; ++i) out[i] = Sc25519::reduce_wide(digest[i]);
  secure_wipe(digest, sizeof digest);
}

static_assert(kBatchItems == kLanes * lanes::kMaxGroups, "the groups hold the items");

// [s_i]B encoded, and the points if asked, for n <= kBatchItems (s has
// room for the idle lanes): in lanes where the CPU has them.
void mul_base_encode(uint8_t (*out)[32], U256 s[kBatchItems], size_t n,
                     curve25519::Point* points = nullptr) {
  if (lanes::available()) {
    const int groups = fill_groups(s, n);
    uint8_t enc[kBatchItems][32];
    curve25519::Point all[kBatchItems];
    lanes::mul_base_encode_x8(enc, s, points != nullptr ? all : nullptr, groups);
    for (size_t i = 0; i < n; ++i) {
      memcpy(out[i], enc[i], 32);
      if (points != nullptr) points[i] = all[i];
    }
    secure_wipe(all, sizeof all);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const curve25519::Point p = curve25519::mul_base(s[i]);
    curve25519::encode(out[i], p);
    if (points != nullptr) points[i] = p;
  }
}

}  // namespace

// RFC 8032 5.1.5 for n seeds: h = SHA-512(seed), s the clamped first half.
void keys_from_seeds(PrivateKey keys[], const uint8_t (*seeds)[kSeedBytes], size_t n) {
  if (n > kBatchItems) n = kBatchItems;
  uint8_t h[kBatchItems][sha512::kDigestBytes];
  const uint8_t* msgs[kBatchItems] = {};
  size_t lens[kBatchItems] = {};
  for (size_t i = 0; i < n; ++i) {
    msgs[i] = seeds[i];
    lens[i] = kSeedBytes;
  }
  hash_many(h, nullptr, 0, msgs, lens, n);
  U256 s[kBatchItems];
  uint8_t pub[kBatchItems][32];
  curve25519::Point points[kBatchItems];
  for (size_t i = 0; i < n; ++i) s[i] = expanded_scalar(h[i]);
  mul_base_encode(pub, s, n, points);
  ct_declassify(pub, sizeof pub);  // public keys are public
  ct_declassify(points, sizeof points);
  for (size_t i = 0; i < n; ++i) {
    memcpy(keys[i].seed, seeds[i], kSeedBytes);
    keys[i].s = s[i];
    keys[i].s_mont = Sc25519::to_mont(s[i]);
    memcpy(keys[i].prefix, h[i] + 32, 32);
    memcpy(keys[i].pub.bytes, pub[i], 32);
    keys[i].pub.point = points[i];
  }
  secure_wipe(h, sizeof h);
  secure_wipe(s, sizeof s);
}

// RFC 8032 5.1.6 for n items: r_i = H(prefix_i || M_i), R_i = [r_i]B,
// k_i = H(R_i || A_i || M_i), S_i = r_i + k_i s_i.
void sign(uint8_t (*sig)[kSignatureBytes], const PrivateKey* const keys[],
          const uint8_t* const msgs[], const size_t lens[], size_t n) {
  if (n > kBatchItems) n = kBatchItems;
  const uint8_t* nonce_prefix[kBatchItems] = {};
  for (size_t i = 0; i < n; ++i) nonce_prefix[i] = keys[i]->prefix;
  U256 r[kBatchItems];
  hash_to_scalars(r, nonce_prefix, 32, msgs, lens, n);
  uint8_t ra[kBatchItems][64];  // R_i || A_i, the prefix of the second hash
  uint8_t big_r[kBatchItems][32];
  mul_base_encode(big_r, r, n);
  for (size_t i = 0; i < n; ++i) {
    memcpy(ra[i], big_r[i], 32);
    memcpy(ra[i] + 32, keys[i]->pub.bytes, 32);
  }
  ct_declassify(ra, sizeof ra);  // R is part of the signature
  const uint8_t* ra_prefix[kBatchItems] = {};
  for (size_t i = 0; i < n; ++i) ra_prefix[i] = ra[i];
  U256 k[kBatchItems];
  hash_to_scalars(k, ra_prefix, 64, msgs, lens, n);
  for (size_t i = 0; i < n; ++i) {
    memcpy(sig[i], ra[i], 32);
    Sc25519::to_le_bytes(sig[i] + 32, signing_equation(r[i], k[i], keys[i]->s_mont));
    ct_declassify(sig[i] + 32, 32);
  }
  secure_wipe(r, sizeof r);
}

namespace {

// A and R of n items decoded with the rules of curve25519/ed25519.h: bitmaps
// of the items whose A, and whose R, are canonical points of large order.
void decode_keys_and_r(curve25519::Point a[kLanes], curve25519::Point r[kLanes],
                       unsigned* a_ok, unsigned* r_ok, const uint8_t (*pubs)[32],
                       const uint8_t (*sig)[kSignatureBytes], size_t n) {
  if (lanes::available()) {
    uint8_t a_in[kLanes][32], r_in[kLanes][32];
    for (size_t i = 0; i < kLanes; ++i) {
      memcpy(a_in[i], pubs[i < n ? i : 0], 32);
      memcpy(r_in[i], sig[i < n ? i : 0], 32);
    }
    const unsigned used = (1u << n) - 1;
    *a_ok = lanes::decode_large_order_x8(a, a_in, used);
    *r_ok = lanes::decode_large_order_x8(r, r_in, used);
    return;
  }
  *a_ok = *r_ok = 0;
  for (size_t i = 0; i < n; ++i) {
    if (curve25519::decode(a[i], pubs[i]) && !curve25519::has_small_order(a[i])) *a_ok |= 1u << i;
    if (curve25519::decode(r[i], sig[i]) && !curve25519::has_small_order(r[i])) *r_ok |= 1u << i;
  }
}

// The cofactored equation of each well-formed item (bitmap `todo`).
unsigned equations(const U256 s[kLanes], const U256 k[kLanes], const curve25519::Point a[kLanes],
                   const curve25519::Point r[kLanes], unsigned todo) {
  if (lanes::available()) return lanes::verify_equation_x8(s, k, a, r, todo);
  unsigned holds = 0;
  for (size_t i = 0; i < kLanes; ++i)
    if ((todo >> i) & 1 && curve25519::verify_equation(s[i], k[i], a[i], r[i])) holds |= 1u << i;
  return holds;
}

}  // namespace

// RFC 8032 5.1.7 for n items, with the rules of curve25519/ed25519.h.
void verify(Error status[], const uint8_t (*pubs)[kPublicKeyBytes], const uint8_t* const msgs[],
            const size_t lens[], const uint8_t (*sig)[kSignatureBytes], size_t n) {
  if (n > kLanes) n = kLanes;
  curve25519::Point a[kLanes], r[kLanes];
  unsigned a_ok, r_ok;
  decode_keys_and_r(a, r, &a_ok, &r_ok, pubs, sig, n);
  U256 s[kLanes] = {}, k[kLanes] = {};
  uint8_t ra[kLanes][64];
  const uint8_t* ra_prefix[kLanes] = {};
  const uint8_t* todo_msgs[kLanes] = {};
  size_t todo_lens[kLanes] = {}, idx[kLanes] = {}, m = 0;
  unsigned todo = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!((a_ok >> i) & 1)) {
      status[i] = Error::kBadPublicKey;
    } else if (!((r_ok >> i) & 1) || !Sc25519::is_canonical(sig[i] + 32)) {
      status[i] = Error::kBadSignature;
    } else {
      s[i] = Sc25519::from_le_bytes(sig[i] + 32);
      memcpy(ra[m], sig[i], 32);
      memcpy(ra[m] + 32, pubs[i], 32);
      ra_prefix[m] = ra[m];
      todo_msgs[m] = msgs[i];
      todo_lens[m] = lens[i];
      idx[m++] = i;
      todo |= 1u << i;
    }
  }
  U256 k_packed[kLanes];
  hash_to_scalars(k_packed, ra_prefix, 64, todo_msgs, todo_lens, m);
  for (size_t j = 0; j < m; ++j) k[idx[j]] = k_packed[j];
  if (todo == 0) return;
  for (size_t i = 0; i < kLanes; ++i) {  // lanes not in `todo` compute on lane data of some item
    if ((todo >> i) & 1) continue;
    const size_t any = idx[0];
    a[i] = a[any], r[i] = r[any], s[i] = s[any], k[i] = k[any];
  }
  const unsigned holds = equations(s, k, a, r, todo);
  for (size_t j = 0; j < m; ++j)
    status[idx[j]] = (holds >> idx[j]) & 1 ? Error::kOk : Error::kVerifyFailed;
}

}  // namespace batch
}  // namespace ed25519

namespace x25519 {
namespace batch {

namespace lanes = curve::ed25519::mb;
using field::U256;

static_assert(kBatchItems == kLanes * lanes::kMaxGroups, "the groups hold the items");

void public_keys(uint8_t (*out)[kKeyBytes], const uint8_t (*k)[kKeyBytes], size_t n) {
  if (n > kBatchItems) n = kBatchItems;
  if (!lanes::available()) {
    for (size_t i = 0; i < n; ++i) public_key(out[i], k[i]);
    return;
  }
  U256 s[kBatchItems], u[kBatchItems];
  for (size_t i = 0; i < n; ++i) s[i] = clamp(k[i]);
  lanes::x25519_base_x8(u, s, fill_groups(s, n));
  for (size_t i = 0; i < n; ++i) field::Fe25519::to_bytes(out[i], u[i]);
  ct_declassify(out, kKeyBytes * n);  // public keys are public
  secure_wipe(s, sizeof s);
}

void shared_secrets(Error status[], uint8_t (*out)[kKeyBytes], const uint8_t* const k[],
                    const uint8_t (*u)[kKeyBytes], size_t n) {
  if (n > kBatchItems) n = kBatchItems;
  if (!lanes::available()) {
    for (size_t i = 0; i < n; ++i) status[i] = shared_secret(out[i], k[i], u[i]);
    return;
  }
  U256 s[kBatchItems], peer[kBatchItems], shared[kBatchItems];
  for (size_t i = 0; i < n; ++i) {
    s[i] = clamp(k[i]);
    peer[i] = decode_u(u[i]);
  }
  fill_groups(peer, n);
  lanes::x25519_x8(shared, s, peer, fill_groups(s, n));
  for (size_t i = 0; i < n; ++i) {
    field::Fe25519::to_bytes(out[i], shared[i]);
    // RFC 7748 6.1: the verdict is public, the value is not (as shared_secret())
    status[i] = ct_public(field::is_zero_mask(shared[i])) != 0 ? Error::kZeroSharedSecret : Error::kOk;
  }
  secure_wipe(s, sizeof s);
  secure_wipe(shared, sizeof shared);
}

}  // namespace batch
}  // namespace x25519
}  // namespace ks
