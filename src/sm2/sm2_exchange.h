// SM2 key exchange (GB/T 32918.3-2016 clause 6; GM/T 0003.3) on the
// recommended curve: the two-party protocol with its optional key
// confirmation. One party's side as a state object whose steps run in the
// protocol's order only:
//
//   initiator A                               responder B
//   start()        -- R_A -->
//                                             respond(R_A) -> R_B [, S_B]
//                  <-- R_B [, S_B] --         (no confirmation: K_B now)
//   finish(R_B [, S_B]) -> K_A [, S_A]
//                  -- S_A -->                 confirm(S_A) -> K_B
//
// With confirmation (steps A9, A10, B8, B10) each side releases its key
// only after the other's tag has checked: the initiator in finish(), the
// responder in confirm(). Any failure, or a step called out of order,
// leaves the object failed for good (a new exchange needs a new object)
// and its secrets wiped. Constant time in both parties' static and
// ephemeral private keys; the points exchanged, the verdicts and the
// roles are public.
#ifndef KS_SM2_SM2_EXCHANGE_H_
#define KS_SM2_SM2_EXCHANGE_H_

#include <stddef.h>
#include <stdint.h>

#include "sm2/sm2.h"

namespace ks {
namespace sm2 {

enum class ExchangeRole { kInitiator = 0, kResponder = 1 };

constexpr size_t kConfirmBytes = kDigestBytes;  // S_A, S_B: one SM3 value

class KeyExchange {
 public:
  KeyExchange() = default;
  ~KeyExchange();
  KeyExchange(const KeyExchange&) = delete;
  KeyExchange& operator=(const KeyExchange&) = delete;

  // One side of an exchange between own (this party's static key, with its
  // ID) and peer (the other's static public key and ID). confirm selects
  // the optional confirmation steps; both parties must agree on it.
  // kBadIdLength for an ID over kMaxIdBytes; kBadState if called twice.
  Error init(ExchangeRole role, const PrivateKey& own, const uint8_t* own_id, size_t own_id_len,
             const PublicKey& peer, const uint8_t* peer_id, size_t peer_id_len, bool confirm);

  // Initiator, A1-A3: draws r_A and writes R_A = [r_A]G (04 || x || y).
  // fixed_r, a test hook for the standard's example, fixes r_A (kBadNonce
  // outside [1, n-1]).
  Error start(uint8_t r_out[kPublicKeyBytes], const uint8_t* fixed_r = nullptr);

  // Responder, B1-B9: takes R_A (any encoding public_key_from_bytes reads;
  // kBadPublicKey when it is not a point of the curve), writes R_B and,
  // with confirmation, S_B into tag_out; without it, K_B (key_len bytes)
  // into key. kPointAtInfinity when V is the point at infinity.
  Error respond(const uint8_t* peer_r, size_t peer_r_len, uint8_t r_out[kPublicKeyBytes],
                uint8_t tag_out[kConfirmBytes], uint8_t* key, size_t key_len,
                const uint8_t* fixed_r = nullptr);

  // Initiator, A4-A10: takes R_B and, with confirmation, S_B (checked in
  // constant time: kConfirmMismatch, nothing released), then writes K_A
  // and, with confirmation, S_A into tag_out.
  Error finish(const uint8_t* peer_r, size_t peer_r_len, const uint8_t* peer_tag, uint8_t* key,
               size_t key_len, uint8_t tag_out[kConfirmBytes]);

  // Responder with confirmation, B10: checks S_A (kConfirmMismatch), then
  // writes K_B.
  Error confirm(const uint8_t peer_tag[kConfirmBytes], uint8_t* key, size_t key_len);

  ExchangeRole role() const { return role_; }
  bool confirming() const { return confirm_; }

 private:
  enum class Stage { kNew, kReady, kStarted, kAwaitingConfirm, kDone, kFailed };

  Error draw_ephemeral(uint8_t r_out[kPublicKeyBytes], const uint8_t* fixed_r);
  Error agree(const uint8_t* peer_r, size_t peer_r_len);
  void tag(uint8_t out[kConfirmBytes], uint8_t prefix) const;
  bool tag_matches(const uint8_t peer_tag[kConfirmBytes], uint8_t prefix) const;
  void derive(uint8_t* key, size_t key_len) const;
  Error fail(Error e);
  void wipe();

  Stage stage_ = Stage::kNew;
  ExchangeRole role_ = ExchangeRole::kInitiator;
  bool confirm_ = false;
  field::U256 d_ = {};       // own static key
  field::U256 r_ = {};       // own ephemeral key
  PublicKey peer_ = {};      // peer's static key
  uint8_t own_r_[kPublicKeyBytes] = {};  // own R: public once made
  // What the key and the tags hash: x || y of the shared point (U or V),
  // then Z_A || Z_B (clause 6.1 A8/B7), and the inner hash of the tags,
  // SM3(x || Z_A || Z_B || x1 || y1 || x2 || y2) (A9, B8).
  uint8_t shared_[4 * kScalarBytes] = {};
  uint8_t inner_[kDigestBytes] = {};
};

}  // namespace sm2
}  // namespace ks

#endif  // KS_SM2_SM2_EXCHANGE_H_
