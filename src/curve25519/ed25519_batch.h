// Ed25519 and X25519 on groups of items (pure Ed25519), what
// the batch calls run on each of the context's threads: the hashes through
// the multi-buffer SHA-512 (hash/sha512_blocks.h digest_many, R || A as a
// per-item prefix, no message copied), the curve work through the 8-lane
// AVX-512 IFMA code (curve25519/ed25519_mb.h) where the CPU has it and item by
// item otherwise. Every function gives exactly the results of the
// single-item functions of curve25519/ed25519.h and curve25519/x25519.h.
#ifndef KS_SCHEME_ED25519_BATCH_H_
#define KS_SCHEME_ED25519_BATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "curve25519/ed25519.h"
#include "curve25519/x25519.h"

namespace ks {
namespace ed25519 {
namespace batch {

constexpr size_t kLanes = 8;
// keys_from_seeds() and sign() take up to this many items: several groups
// of lanes, whose [r]B end in one inversion (curve25519/ed25519_mb.h).
constexpr size_t kBatchItems = 64;

// Expands n <= kBatchItems seeds into keys (keygen and per-item signing
// keys).
void keys_from_seeds(PrivateKey keys[], const uint8_t (*seeds)[kSeedBytes], size_t n);

// sig[i] = sign(*keys[i], msgs[i]) for pure Ed25519, n <= kBatchItems.
void sign(uint8_t (*sig)[kSignatureBytes], const PrivateKey* const keys[],
          const uint8_t* const msgs[], const size_t lens[], size_t n);

// status[i] = verify(public key pubs[i], msgs[i], sig[i]) for pure
// Ed25519, n <= kLanes, with kBadPublicKey where pubs[i] is not a valid public key
// (public_key_from_bytes): the keys are decoded here, in lanes.
void verify(Error status[], const uint8_t (*pubs)[kPublicKeyBytes], const uint8_t* const msgs[],
            const size_t lens[], const uint8_t (*sig)[kSignatureBytes], size_t n);

}  // namespace batch
}  // namespace ed25519

namespace x25519 {
namespace batch {

constexpr size_t kLanes = 8;
// Both functions take up to this many items: several groups of lanes,
// whose scalar multiplications end in one inversion (curve25519/ed25519_mb.h).
constexpr size_t kBatchItems = 64;

// out[i] = X25519(k[i], 9), n <= kBatchItems.
void public_keys(uint8_t (*out)[kKeyBytes], const uint8_t (*k)[kKeyBytes], size_t n);
// out[i] = X25519(*k[i], u[i]), with status[i] as shared_secret() returns
// it, n <= kBatchItems.
void shared_secrets(Error status[], uint8_t (*out)[kKeyBytes], const uint8_t* const k[],
                    const uint8_t (*u)[kKeyBytes], size_t n);

}  // namespace batch
}  // namespace x25519
}  // namespace ks

#endif  // KS_SCHEME_ED25519_BATCH_H_
