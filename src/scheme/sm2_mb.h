// SM2 signatures eight at a time on the calling thread: AVX-512 IFMA
// multi-buffer point arithmetic (curve/sm2_mb.h) for [k]G and [s]G + [t]P,
// scalar arithmetic mod n per lane, the same checks, nonce rules and error
// codes as scheme/sm2.h. Without IFMA (cpu_features().avx512ifma false, e.g.
// KS_CPU_FEATURES=portable or under valgrind) every call runs the scalar
// code lane by lane, so results never depend on the path taken except for
// the random nonces.
//
// Every function takes `count` items (1..8); arrays need `count` entries.
#ifndef KS_SCHEME_SM2_MB_H_
#define KS_SCHEME_SM2_MB_H_

#include <stddef.h>
#include <stdint.h>

#include "scheme/sm2.h"

namespace ks {
namespace sm2 {
namespace mb {

constexpr size_t kLanes = 8;

// True when the 8-lane path runs (the CPU has AVX-512 IFMA and it is not
// masked by KS_CPU_FEATURES).
bool available();

// sig[i] = sign_digest(*keys[i], e[i], nonce): kRandom draws k from the OS,
// kDeterministic gives exactly sign_digest's signature (RFC 6979 over
// HMAC-SM3). A lane whose k hits r = 0, r + k = n or s = 0 is re-signed by
// the scalar signer. Constant time in d and k.
void sign_digests_x8(uint8_t sig[][kSignatureBytes], const PrivateKey* const keys[],
                     const uint8_t e[][kDigestBytes], Nonce nonce, Error status[],
                     size_t count = kLanes);
// Same, one key for every item.
void sign_digests_x8(uint8_t sig[][kSignatureBytes], const PrivateKey& key,
                     const uint8_t e[][kDigestBytes], Nonce nonce, Error status[],
                     size_t count = kLanes);

// Test hook (sign_digest_with_fixed_nonce in lanes): kBadNonce for a k
// outside [1, n-1] or one that gives r = 0, r + k = n or s = 0.
void sign_digests_with_fixed_nonces_x8(uint8_t sig[][kSignatureBytes],
                                       const PrivateKey* const keys[],
                                       const uint8_t e[][kDigestBytes],
                                       const uint8_t k[][kScalarBytes], Error status[],
                                       size_t count = kLanes);

// generate_keypair() eight times: d uniform in [1, n-2] from the OS, pub = [d]G.
void keygen_x8(uint8_t d[][kScalarBytes], PublicKey pub[], Error status[], size_t count = kLanes);

// status[i] = verify_digest(*keys[i], e[i], sig[i]) (kOk, kSignatureOutOfRange
// or kVerifyFailed), variable time (all inputs public).
void verify_digests_x8(const PublicKey* const keys[], const uint8_t e[][kDigestBytes],
                       const uint8_t sig[][kSignatureBytes], Error status[], size_t count = kLanes);

}  // namespace mb
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_MB_H_
