// SM2 signatures eight at a time on the calling thread: AVX-512 IFMA
// multi-buffer point arithmetic (sm2/sm2_curve_mb.h) for [k]G and [s]G + [t]P,
// scalar arithmetic mod n per lane, the same checks, nonce rules and error
// codes as sm2/sm2.h. Without IFMA (cpu_features().avx512ifma false, e.g.
// KS_CPU_FEATURES=portable or under valgrind) every call runs the scalar
// code lane by lane, so results never depend on the path taken except for
// the random nonces.
//
// Every function takes `count` items (0..8, more are cut to 8) and reads and
// writes only the first `count` entries of its arrays; statuses are per item.
#ifndef KS_SCHEME_SM2_MB_H_
#define KS_SCHEME_SM2_MB_H_

#include <stddef.h>
#include <stdint.h>

#include "sm2/sm2.h"
#include "sm2/sm2_curve_mb.h"

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

// The same with one public key for every item, from its comb tables: the
// scalar one (curve::make_point_table) and its lanes' form
// (curve::mb::make_lane_table, needed only where available()).
struct OneKey {
  const PublicKey* key;
  const curve::PointTable* table;
  const curve::mb::LaneTable* lanes;
};
void verify_digests_one_key_x8(const OneKey& key, const uint8_t e[][kDigestBytes],
                               const uint8_t sig[][kSignatureBytes], Error status[],
                               size_t count = kLanes);

// --- Messages (Z_A || M hashed in lanes) -------------------------------------
// e[i] = SM3(Z_A(*keys[i], id) || msgs[i]) for any number n of items, as
// message_digest() computes it: Z_A once per run of consecutive items with
// the same key pointer, then every e through the multi-buffer SM3
// (sm3/sm3_blocks.h digest_many: 16 lanes with AVX-512, 8 with AVX2).
// kBadIdLength for an ID over kMaxIdBytes (then nothing is written).
Error message_digests(uint8_t e[][kDigestBytes], const PublicKey* const keys[], const uint8_t* id,
                      size_t id_len, const uint8_t* const msgs[], const size_t lens[], size_t n);

// sign_message / verify_message for `count` (<= 8) items: message_digests,
// then sign_digests_x8 / verify_digests_x8. One ID for the group.
void sign_messages_x8(uint8_t sig[][kSignatureBytes], const PrivateKey* const keys[],
                      const uint8_t* id, size_t id_len, const uint8_t* const msgs[],
                      const size_t lens[], Nonce nonce, Error status[], size_t count = kLanes);
void verify_messages_x8(const PublicKey* const keys[], const uint8_t* id, size_t id_len,
                        const uint8_t* const msgs[], const size_t lens[],
                        const uint8_t sig[][kSignatureBytes], Error status[],
                        size_t count = kLanes);

}  // namespace mb
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_MB_H_
