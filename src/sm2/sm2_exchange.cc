// SM2 key exchange (sm2/sm2_exchange.h), GB/T 32918.3-2016 clause 6.1:
// steps A1-A10 and B1-B10.
#include "sm2/sm2_exchange.h"

#include <string.h>

#include "core/secure.h"
#include "field/fn.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_detail.h"
#include "sm3/sm3.h"
#include "sm3/sm3_kdf.h"

namespace ks {
namespace sm2 {
namespace {

using detail::declassify;
using field::Fn;
using field::U256;

constexpr size_t kPointBytes = 2 * kScalarBytes;  // x || y
constexpr uint8_t kTagResponder = 0x02;           // S_B = S1 (B8, A9)
constexpr uint8_t kTagInitiator = 0x03;           // S_A = S2 (A10, B10)

// x-bar = 2^w + (x & (2^w - 1)) with w = ceil(ceil(log2 n) / 2) - 1 = 127
// (clause 6.1 A4, B3), from a point's 04 || x || y encoding.
U256 x_bar(const uint8_t point[kPublicKeyBytes]) {
  U256 x = field::from_be_bytes(point + 1);
  x.w[1] = (x.w[1] & 0x7fffffffffffffffull) | 0x8000000000000000ull;
  x.w[2] = x.w[3] = 0;
  return x;
}

}  // namespace

KeyExchange::~KeyExchange() { wipe(); }

void KeyExchange::wipe() {
  secure_wipe(&d_, sizeof d_);
  secure_wipe(&r_, sizeof r_);
  secure_wipe(shared_, sizeof shared_);
  secure_wipe(inner_, sizeof inner_);
}

Error KeyExchange::fail(Error e) {
  wipe();
  stage_ = Stage::kFailed;
  return e;
}

Error KeyExchange::init(ExchangeRole role, const PrivateKey& own, const uint8_t* own_id,
                        size_t own_id_len, const PublicKey& peer, const uint8_t* peer_id,
                        size_t peer_id_len, bool confirm) {
  if (stage_ != Stage::kNew) return fail(Error::kBadState);
  uint8_t* z_own = shared_ + kPointBytes + (role == ExchangeRole::kInitiator ? 0 : kDigestBytes);
  uint8_t* z_peer = shared_ + kPointBytes + (role == ExchangeRole::kInitiator ? kDigestBytes : 0);
  Error e = compute_za(z_own, own.pub, own_id, own_id_len);  // Z_A, Z_B (clause 5.5 of part 2)
  if (e == Error::kOk) e = compute_za(z_peer, peer, peer_id, peer_id_len);
  if (e != Error::kOk) return fail(e);
  role_ = role;
  confirm_ = confirm;
  d_ = own.d;
  peer_ = peer;
  stage_ = Stage::kReady;
  return Error::kOk;
}

// A1-A2 / B1-B2: r in [1, n-1], R = [r]G.
Error KeyExchange::draw_ephemeral(uint8_t r_out[kPublicKeyBytes], const uint8_t* fixed_r) {
  if (fixed_r != nullptr) {
    r_ = field::from_be_bytes(fixed_r);
    if (!declassify(Fn::in_range_nonzero(r_))) return Error::kBadNonce;
  } else {
    const Error e = detail::random_scalar(r_, detail::n_minus(1));
    if (e != Error::kOk) return e;
  }
  curve::encode_point_uncompressed(own_r_, curve::mul_base_affine(r_));
  ct_declassify(own_r_, sizeof own_r_);  // R is sent in the clear
  if (r_out != nullptr) memcpy(r_out, own_r_, kPublicKeyBytes);
  return Error::kOk;
}

// A4-A8 / B3-B7 up to the shared point, and the tags' inner hash:
// t = (d + x-bar r) mod n, then [t](P_peer + [x-bar_peer] R_peer).
Error KeyExchange::agree(const uint8_t* peer_r, size_t peer_r_len) {
  PublicKey peer_eph;  // A6 / B5: R_peer must be a point of the curve
  if (public_key_from_bytes(peer_eph, peer_r, peer_r_len) != Error::kOk)
    return Error::kBadPublicKey;
  uint8_t peer_enc[kPublicKeyBytes];
  public_key_to_bytes(peer_enc, peer_eph);
  U256 t = Fn::add(d_, Fn::mul_plain_mont(x_bar(own_r_), Fn::to_mont(r_)));  // A5 / B4
  const WipeOnExit wipe_t(&t, sizeof t);
  // The sum [t] multiplies has public inputs only: variable time is fine.
  curve::Jacobian q = curve::mul_base_add_point_vartime(U256{}, x_bar(peer_enc), peer_eph.point);
  q = curve::add_mixed_vartime(q, peer_.point);
  curve::Affine q_affine;
  if (!curve::to_affine_checked(q_affine, q)) return Error::kPointAtInfinity;
  const curve::Jacobian u = curve::mul_point(t, q_affine);  // A7 / B6 (h = 1)
  if (declassify(u.is_infinity())) return Error::kPointAtInfinity;
  curve::encode_point_xy(shared_, curve::affine_of(u));
  const bool initiator = role_ == ExchangeRole::kInitiator;
  sm3::Sm3 h;  // SM3(x_U || Z_A || Z_B || x1 || y1 || x2 || y2)
  h.update(shared_, kScalarBytes);
  h.update(shared_ + kPointBytes, 2 * kDigestBytes);
  h.update((initiator ? own_r_ : peer_enc) + 1, kPointBytes);
  h.update((initiator ? peer_enc : own_r_) + 1, kPointBytes);
  h.finish(inner_);
  secure_wipe(&h, sizeof h);
  return Error::kOk;
}

// SM3(prefix || y_U || inner).
void KeyExchange::tag(uint8_t out[kConfirmBytes], uint8_t prefix) const {
  sm3::Sm3 h;
  h.update(&prefix, 1);
  h.update(shared_ + kScalarBytes, kScalarBytes);
  h.update(inner_, sizeof inner_);
  h.finish(out);
  secure_wipe(&h, sizeof h);
}

// Every byte compared; only the verdict is public.
bool KeyExchange::tag_matches(const uint8_t peer_tag[kConfirmBytes], uint8_t prefix) const {
  uint8_t expected[kConfirmBytes];
  tag(expected, prefix);
  uint64_t diff = 0;
  for (size_t i = 0; i < kConfirmBytes; ++i) diff |= uint64_t(expected[i] ^ peer_tag[i]);
  secure_wipe(expected, sizeof expected);
  return !declassify(~ct_is_zero_mask(diff));
}

// K = KDF(x || y || Z_A || Z_B, klen) (A8, B7).
void KeyExchange::derive(uint8_t* key, size_t key_len) const {
  sm3::kdf(shared_, sizeof shared_, key, key_len);
}

Error KeyExchange::start(uint8_t r_out[kPublicKeyBytes], const uint8_t* fixed_r) {
  if (stage_ != Stage::kReady || role_ != ExchangeRole::kInitiator)
    return fail(Error::kBadState);
  const Error e = draw_ephemeral(r_out, fixed_r);
  if (e != Error::kOk) return fail(e);
  stage_ = Stage::kStarted;
  return Error::kOk;
}

Error KeyExchange::respond(const uint8_t* peer_r, size_t peer_r_len,
                           uint8_t r_out[kPublicKeyBytes], uint8_t tag_out[kConfirmBytes],
                           uint8_t* key, size_t key_len, const uint8_t* fixed_r) {
  if (stage_ != Stage::kReady || role_ != ExchangeRole::kResponder)
    return fail(Error::kBadState);
  Error e = draw_ephemeral(nullptr, fixed_r);
  if (e == Error::kOk) e = agree(peer_r, peer_r_len);
  if (e != Error::kOk) return fail(e);
  memcpy(r_out, own_r_, kPublicKeyBytes);
  if (confirm_) {
    tag(tag_out, kTagResponder);  // B8
    stage_ = Stage::kAwaitingConfirm;
    return Error::kOk;
  }
  derive(key, key_len);
  wipe();
  stage_ = Stage::kDone;
  return Error::kOk;
}

Error KeyExchange::finish(const uint8_t* peer_r, size_t peer_r_len, const uint8_t* peer_tag,
                          uint8_t* key, size_t key_len, uint8_t tag_out[kConfirmBytes]) {
  if (stage_ != Stage::kStarted) return fail(Error::kBadState);
  const Error e = agree(peer_r, peer_r_len);
  if (e != Error::kOk) return fail(e);
  if (confirm_ && !tag_matches(peer_tag, kTagResponder)) return fail(Error::kConfirmMismatch);
  derive(key, key_len);
  if (confirm_) tag(tag_out, kTagInitiator);  // A10
  wipe();
  stage_ = Stage::kDone;
  return Error::kOk;
}

Error KeyExchange::confirm(const uint8_t peer_tag[kConfirmBytes], uint8_t* key, size_t key_len) {
  if (stage_ != Stage::kAwaitingConfirm) return fail(Error::kBadState);
  if (!tag_matches(peer_tag, kTagInitiator)) return fail(Error::kConfirmMismatch);  // B10
  derive(key, key_len);
  wipe();
  stage_ = Stage::kDone;
  return Error::kOk;
}

}  // namespace sm2
}  // namespace ks
