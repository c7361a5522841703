#include "scheme/ed25519_batch.h"

#include <string.h>

#include "core/secure.h"
#include "curve/ed25519_curve.h"
#include "field/fe25519.h"
#include "field/sc25519.h"
#include "hash/sha512.h"
#include "hash/sha512_blocks.h"

namespace ks {
namespace ed25519 {
namespace batch {

using field::Sc25519;
using field::U256;
namespace curve25519 = curve::ed25519;

namespace {

// H(prefix_i || M_i) mod L for every item, through the multi-buffer SHA-512.
void hash_to_scalars(U256 out[], const uint8_t* const prefix[], size_t prefix_len,
                     const uint8_t* const msgs[], const size_t lens[], size_t n) {
  uint8_t digest[kLanes][sha512::kDigestBytes];
  sha512::Prefixes prefixes;
  prefixes.bytes = prefix;
  prefixes.len = prefix_len;
  sha512::digest_many(msgs, lens, n, digest, prefixes);
  for (size_t i = 0; i < n; ++i) out[i] = Sc25519::reduce_wide(digest[i]);
  secure_wipe(digest, sizeof digest);
}

}  // namespace

void keys_from_seeds(PrivateKey keys[], const uint8_t (*seeds)[kSeedBytes], size_t n) {
  for (size_t i = 0; i < n; ++i) key_from_seed(keys[i], seeds[i]);
}

// RFC 8032 5.1.6 for n items: r_i = H(prefix_i || M_i), R_i = [r_i]B,
// k_i = H(R_i || A_i || M_i), S_i = r_i + k_i s_i.
void sign(uint8_t (*sig)[kSignatureBytes], const PrivateKey* const keys[],
          const uint8_t* const msgs[], const size_t lens[], size_t n) {
  if (n > kLanes) n = kLanes;
  const uint8_t* nonce_prefix[kLanes];
  for (size_t i = 0; i < n; ++i) nonce_prefix[i] = keys[i]->prefix;
  U256 r[kLanes];
  hash_to_scalars(r, nonce_prefix, 32, msgs, lens, n);
  uint8_t ra[kLanes][64];  // R_i || A_i, the prefix of the second hash
  for (size_t i = 0; i < n; ++i) {
    curve25519::encode(ra[i], curve25519::mul_base(r[i]));
    memcpy(ra[i] + 32, keys[i]->pub.bytes, 32);
  }
  ct_declassify(ra, sizeof ra);  // R is part of the signature
  const uint8_t* ra_prefix[kLanes];
  for (size_t i = 0; i < n; ++i) ra_prefix[i] = ra[i];
  U256 k[kLanes];
  hash_to_scalars(k, ra_prefix, 64, msgs, lens, n);
  for (size_t i = 0; i < n; ++i) {
    memcpy(sig[i], ra[i], 32);
    Sc25519::to_le_bytes(sig[i] + 32, signing_equation(r[i], k[i], keys[i]->s_mont));
    ct_declassify(sig[i] + 32, 32);
  }
  secure_wipe(r, sizeof r);
}

// RFC 8032 5.1.7 for n items, with the rules of scheme/ed25519.h.
void verify(Error status[], const PublicKey* const keys[], const uint8_t* const msgs[],
            const size_t lens[], const uint8_t (*sig)[kSignatureBytes], size_t n) {
  if (n > kLanes) n = kLanes;
  curve25519::Point r[kLanes];
  U256 s[kLanes];
  uint8_t ra[kLanes][64];
  const uint8_t* ra_prefix[kLanes];
  const uint8_t* well_formed_msgs[kLanes];
  size_t well_formed_lens[kLanes], idx[kLanes], m = 0;
  for (size_t i = 0; i < n; ++i) {
    status[i] = parse_signature(r[i], s[i], sig[i]);
    if (status[i] != Error::kOk) continue;
    memcpy(ra[m], sig[i], 32);
    memcpy(ra[m] + 32, keys[i]->bytes, 32);
    ra_prefix[m] = ra[m];
    well_formed_msgs[m] = msgs[i];
    well_formed_lens[m] = lens[i];
    idx[m++] = i;
  }
  U256 k[kLanes];
  hash_to_scalars(k, ra_prefix, 64, well_formed_msgs, well_formed_lens, m);
  for (size_t j = 0; j < m; ++j) {
    const size_t i = idx[j];
    status[i] = curve25519::verify_equation(s[i], k[j], keys[i]->point, r[i]) ? Error::kOk
                                                                              : Error::kVerifyFailed;
  }
}

}  // namespace batch
}  // namespace ed25519

namespace x25519 {
namespace batch {

void public_keys(uint8_t (*out)[kKeyBytes], const uint8_t (*k)[kKeyBytes], size_t n) {
  for (size_t i = 0; i < n; ++i) public_key(out[i], k[i]);
}

void shared_secrets(Error status[], uint8_t (*out)[kKeyBytes], const uint8_t* const k[],
                    const uint8_t (*u)[kKeyBytes], size_t n) {
  for (size_t i = 0; i < n; ++i) status[i] = shared_secret(out[i], k[i], u[i]);
}

}  // namespace batch
}  // namespace x25519
}  // namespace ks
