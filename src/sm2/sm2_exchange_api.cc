// C entry points for SM2 key exchange (sm2/sm2_exchange.h). Argument
// errors are caught here and leave the exchange as it was; what the
// protocol rejects fails it for good (in the core).
#include "api/checks.h"
#include "api/guard.h"
#include "api/objects.h"
#include "kuaisuo/sm2.h"
#include "sm2/sm2_exchange.h"
#include "sm2/sm2_handles.h"
#include "sm3/sm3_kdf.h"

struct ks_sm2_kx {
  ks::sm2::KeyExchange kx;
};

namespace {

using ks::api::check_buffer;
using ks::api::to_status;
using ks::sm2::ExchangeRole;

int check_key_out(const uint8_t* key, size_t key_len) {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  return key_len == 0 || uint64_t(key_len) > ks::sm3::kKdfMaxBytes ? KS_ERR_LENGTH : KS_OK;
}

// The exchange and the peer's R.
int check_peer(const ks_sm2_kx* kx, const uint8_t* peer_r, size_t peer_r_len) {
  if (kx == nullptr || peer_r == nullptr) return KS_ERR_NULL_POINTER;
  return check_buffer(peer_r, peer_r_len);
}

// Tags are passed with confirmation and only then.
int check_tags(const ks_sm2_kx* kx, const uint8_t* peer_tag, const uint8_t* tag) {
  if (kx->kx.confirming()) return peer_tag == nullptr || tag == nullptr ? KS_ERR_NULL_POINTER : KS_OK;
  return peer_tag != nullptr || tag != nullptr ? KS_ERR_INVALID_ARGUMENT : KS_OK;
}

}  // namespace

int ks_sm2_kx_new(int role, const ks_sm2_key* key, const uint8_t* id, size_t id_len,
                  const ks_sm2_pubkey* peer, const uint8_t* peer_id, size_t peer_id_len,
                  int confirm, ks_sm2_kx** out) try {
  if (key == nullptr || peer == nullptr) return KS_ERR_NULL_POINTER;
  if ((role != KS_SM2_INITIATOR && role != KS_SM2_RESPONDER) || (confirm != 0 && confirm != 1))
    return KS_ERR_INVALID_ARGUMENT;
  int rc = ks::api::check_id(id, id_len);
  if (rc == KS_OK) rc = ks::api::check_id(peer_id, peer_id_len);
  if (rc != KS_OK) return rc;
  ks_sm2_kx* made = nullptr;
  rc = ks::api::new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = to_status(made->kx.init(static_cast<ExchangeRole>(role), key->key, id, id_len, peer->key,
                               peer_id, peer_id_len, confirm == 1));
  return ks::api::finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_kx_start(ks_sm2_kx* kx, uint8_t r[KS_SM2_PUBLIC_KEY_BYTES]) try {
  if (kx == nullptr || r == nullptr) return KS_ERR_NULL_POINTER;
  return to_status(kx->kx.start(r));
} KS_API_CATCH

int ks_sm2_kx_respond(ks_sm2_kx* kx, const uint8_t* peer_r, size_t peer_r_len,
                      uint8_t r[KS_SM2_PUBLIC_KEY_BYTES], uint8_t* tag, uint8_t* key,
                      size_t key_len) try {
  int rc = check_peer(kx, peer_r, peer_r_len);
  if (rc != KS_OK) return rc;
  if (r == nullptr) return KS_ERR_NULL_POINTER;
  rc = check_tags(kx, tag, tag);
  if (rc == KS_OK && kx->kx.confirming() && (key != nullptr || key_len != 0))
    rc = KS_ERR_INVALID_ARGUMENT;  // the key comes from ks_sm2_kx_confirm
  if (rc == KS_OK && !kx->kx.confirming()) rc = check_key_out(key, key_len);
  if (rc != KS_OK) return rc;
  return to_status(kx->kx.respond(peer_r, peer_r_len, r, tag, key, key_len));
} KS_API_CATCH

int ks_sm2_kx_finish(ks_sm2_kx* kx, const uint8_t* peer_r, size_t peer_r_len,
                     const uint8_t* peer_tag, uint8_t* key, size_t key_len, uint8_t* tag) try {
  int rc = check_peer(kx, peer_r, peer_r_len);
  if (rc == KS_OK) rc = check_key_out(key, key_len);
  if (rc == KS_OK) rc = check_tags(kx, peer_tag, tag);
  if (rc != KS_OK) return rc;
  return to_status(kx->kx.finish(peer_r, peer_r_len, peer_tag, key, key_len, tag));
} KS_API_CATCH

int ks_sm2_kx_confirm(ks_sm2_kx* kx, const uint8_t peer_tag[KS_SM2_CONFIRM_BYTES], uint8_t* key,
                      size_t key_len) try {
  if (kx == nullptr || peer_tag == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_key_out(key, key_len);
  if (rc != KS_OK) return rc;
  return to_status(kx->kx.confirm(peer_tag, key, key_len));
} KS_API_CATCH

void ks_sm2_kx_free(ks_sm2_kx* kx) { delete kx; }
