// What the SM2 API files share: the key objects behind the C handles, and
// the mapping of scheme errors and arguments to ks_status.
#ifndef KS_API_SM2_INTERNAL_H_
#define KS_API_SM2_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "api/checks.h"
#include "kuaisuo/sm2.h"
#include "sm2/sm2.h"
#include "sm2/sm2_curve.h"

struct ks_sm2_key {
  ks::sm2::PrivateKey key;
};
// The key's comb table, once ks_sm2_pubkey_precompute (or a verification
// batch large enough to build one, sm2_batch_api.cc) built it: published
// with one atomic exchange, so that threads using the key meanwhile see
// either no table or the whole of it. The table is the one part of the
// object that may change while it is shared (as const): hence mutable.
struct ks_sm2_pubkey {
  ks::sm2::PublicKey key;
  mutable std::atomic<ks::curve::PointTable*> table{nullptr};
  const ks::curve::PointTable* point_table() const {
    return table.load(std::memory_order_acquire);
  }
  // The table, built and published now where there is none; null when
  // memory is short (sm2_api.cc).
  const ks::curve::PointTable* precomputed_table() const;
  ~ks_sm2_pubkey() { ks::curve::PointTableDeleter()(table.load()); }
};

namespace ks {
namespace api {

inline int to_status(sm2::Error e) {
  switch (e) {
    case sm2::Error::kOk: return KS_OK;
    case sm2::Error::kBadPrivateKey: return KS_ERR_BAD_PRIVATE_KEY;
    case sm2::Error::kBadPublicKey: return KS_ERR_BAD_PUBLIC_KEY;
    case sm2::Error::kPointAtInfinity: return KS_ERR_POINT_AT_INFINITY;
    case sm2::Error::kSignatureOutOfRange: return KS_ERR_SIGNATURE_RANGE;
    case sm2::Error::kVerifyFailed: return KS_ERR_VERIFY_FAILED;
    case sm2::Error::kRngFailure: return KS_ERR_RANDOM;
    case sm2::Error::kBadIdLength: return KS_ERR_ID_LENGTH;
    case sm2::Error::kBadNonce: return KS_ERR_INTERNAL;
    case sm2::Error::kBadCiphertext: return KS_ERR_BAD_CIPHERTEXT;
    case sm2::Error::kCiphertextMismatch: return KS_ERR_CIPHERTEXT_MISMATCH;
    case sm2::Error::kBadState: return KS_ERR_STATE;
    case sm2::Error::kConfirmMismatch: return KS_ERR_CONFIRMATION;
  }
  return KS_ERR_INTERNAL;
}

inline int parse_nonce(int nonce, sm2::Nonce* out) {
  if (nonce == KS_SM2_NONCE_RANDOM) {
    *out = sm2::Nonce::kRandom;
  } else if (nonce == KS_SM2_NONCE_DETERMINISTIC) {
    *out = sm2::Nonce::kDeterministic;
  } else {
    return KS_ERR_INVALID_ARGUMENT;
  }
  return KS_OK;
}

inline int check_id(const uint8_t* id, size_t id_len) {
  const int rc = check_buffer(id, id_len);
  if (rc != KS_OK) return rc;
  return id_len > KS_SM2_MAX_ID_BYTES ? KS_ERR_ID_LENGTH : KS_OK;
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_SM2_INTERNAL_H_
