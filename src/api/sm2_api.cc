// C entry points for SM2: key objects and their encodings, single
// operations, and CPU batches. The arithmetic lives in scheme/sm2.h, the
// formats in encoding/.
#include <string.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "api/checks.h"
#include "core/secure.h"
#include "encoding/pem.h"
#include "encoding/sm2_formats.h"
#include "engine/context.h"
#include "hash/sm3.h"
#include "api/guard.h"
#include "kuaisuo.h"
#include "scheme/sm2.h"
#include "scheme/sm2_mb.h"

struct ks_sm2_key {
  ks::sm2::PrivateKey key;
};
struct ks_sm2_pubkey {
  ks::sm2::PublicKey key;
};

namespace {

using ks::api::check_buffer;
using ks::sm2::Error;

int to_status(Error e) {
  switch (e) {
    case Error::kOk: return KS_OK;
    case Error::kBadPrivateKey: return KS_ERR_BAD_PRIVATE_KEY;
    case Error::kBadPublicKey: return KS_ERR_BAD_PUBLIC_KEY;
    case Error::kPointAtInfinity: return KS_ERR_POINT_AT_INFINITY;
    case Error::kSignatureOutOfRange: return KS_ERR_SIGNATURE_RANGE;
    case Error::kVerifyFailed: return KS_ERR_VERIFY_FAILED;
    case Error::kRngFailure: return KS_ERR_RANDOM;
    case Error::kBadIdLength: return KS_ERR_ID_LENGTH;
    case Error::kBadNonce: return KS_ERR_INTERNAL;
  }
  return KS_ERR_INTERNAL;
}

int to_status(ks::pem::Error e) {
  switch (e) {
    case ks::pem::Error::kOk: return KS_OK;
    case ks::pem::Error::kNoBlock: return KS_ERR_PEM_NO_BLOCK;
    case ks::pem::Error::kNoEnd: return KS_ERR_PEM_NO_END;
    case ks::pem::Error::kEncrypted: return KS_ERR_PEM_ENCRYPTED;
    case ks::pem::Error::kBadBase64: return KS_ERR_PEM_BASE64;
  }
  return KS_ERR_INTERNAL;
}

int parse_nonce(int nonce, ks::sm2::Nonce* out) {
  if (nonce == KS_SM2_NONCE_RANDOM) {
    *out = ks::sm2::Nonce::kRandom;
  } else if (nonce == KS_SM2_NONCE_DETERMINISTIC) {
    *out = ks::sm2::Nonce::kDeterministic;
  } else {
    return KS_ERR_INVALID_ARGUMENT;
  }
  return KS_OK;
}

int check_id(const uint8_t* id, size_t id_len) {
  const int rc = check_buffer(id, id_len);
  if (rc != KS_OK) return rc;
  return id_len > KS_SM2_MAX_ID_BYTES ? KS_ERR_ID_LENGTH : KS_OK;
}

// Copies a variable-length result under the out/out_cap/out_len rule.
int emit(const uint8_t* bytes, size_t len, bool nul_terminate, uint8_t* out, size_t out_cap,
         size_t* out_len) {
  if (out_len == nullptr) return KS_ERR_NULL_POINTER;
  *out_len = len;
  const size_t need = len + (nul_terminate ? 1 : 0);
  if (out == nullptr || out_cap < need) return KS_ERR_LENGTH;
  memcpy(out, bytes, len);
  if (nul_terminate) out[len] = 0;
  return KS_OK;
}

// The DER inside `in`: `in` itself when it starts as DER does, else the
// body of its first PEM block with one of `labels` (pem::is_der says why
// the first byte decides).
int unwrap_pem(const uint8_t* in, size_t len, const char* const labels[], size_t nlabels,
               ks::Bytes* der) {
  if (ks::pem::is_der(in, len)) {
    der->assign(in, in + len);
    return KS_OK;
  }
  return to_status(ks::pem::decode(in, len, labels, nlabels, der));
}

template <class T>
int new_object(T** out, T** made) {
  if (out == nullptr) return KS_ERR_NULL_POINTER;
  *out = nullptr;
  *made = new (std::nothrow) T();
  return *made == nullptr ? KS_ERR_NO_MEMORY : KS_OK;
}

// Hands a finished object to the caller, or frees it on error.
template <class T>
int finish_object(int rc, T* made, T** out) {
  if (rc == KS_OK) {
    *out = made;
  } else {
    delete made;
  }
  return rc;
}

// A fixed-size input array of count items of item_bytes each.
int check_items(const void* p, size_t count, size_t item_bytes) {
  if (count == 0) return KS_OK;
  if (p == nullptr) return KS_ERR_NULL_POINTER;
  return count > SIZE_MAX / item_bytes ? KS_ERR_OVERFLOW : KS_OK;
}

// Runs item(i) -> ks_status for every i on the context's threads, records
// the statuses (status may be null), and returns KS_OK or
// KS_ERR_BATCH_ITEMS. One parallel pass: a serial scan of a GPU batch's
// millions of statuses would cost the host more than the batch's copies.
template <class Item>
int run_items(ks_ctx* ctx, size_t count, size_t min_chunk, int* status, const Item& item) {
  std::atomic<bool> failed{false};
  ctx->pool.parallel_for(count, min_chunk, [&](size_t begin, size_t end) {
    bool any = false;
    for (size_t i = begin; i < end; ++i) {
      const int st = item(i);
      if (status != nullptr) status[i] = st;
      any |= st != KS_OK;
    }
    if (any) failed.store(true, std::memory_order_relaxed);
  });
  return failed.load() ? KS_ERR_BATCH_ITEMS : KS_OK;
}

// Where the engine writes a GPU batch's per-item ks::sm2::Error values: the
// caller's status array, mapped to ks_status in place afterwards (and
// copied into directly when pinned), or scratch when the caller passed
// none. Written for every item by the engine, so never initialized here.
class DeviceResults {
 public:
  DeviceResults(int* caller_status, size_t count) : out_(caller_status) {
    if (out_ == nullptr) {
      own_.reset(new (std::nothrow) int[count > 0 ? count : 1]);
      out_ = own_.get();
    }
  }
  int* get() const { return out_; }
  int operator[](size_t i) const { return out_[i]; }

 private:
  std::unique_ptr<int[]> own_;
  int* out_;
};

}  // namespace

// Runs group(idx, n) over groups of up to 8 items (the lanes of
// scheme/sm2_mb.h) on the context's threads. Items whose status is already
// an error are left out of the groups; group writes the statuses of its own
// (the caller's finish_statuses then reports them).
template <class Group>
void run_groups(ks_ctx* ctx, size_t count, std::vector<int>& status, const Group& group) {
  constexpr size_t kLanes = ks::sm2::mb::kLanes;
  ctx->pool.parallel_for(count, 64, [&](size_t begin, size_t end) {
    size_t idx[kLanes];
    size_t n = 0;
    for (size_t i = begin; i < end; ++i) {
      if (status[i] != KS_OK) continue;
      idx[n++] = i;
      if (n == kLanes) {
        group(idx, n);
        n = 0;
      }
    }
    if (n > 0) group(idx, n);
  });
}

// ---- Keys -------------------------------------------------------------------

int ks_sm2_key_generate(ks_sm2_key** out) try {
  ks_sm2_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  return finish_object(to_status(ks::sm2::generate_key(made->key)), made, out);
} KS_API_CATCH

int ks_sm2_key_from_bytes(const uint8_t* d, size_t d_len, ks_sm2_key** out) try {
  ks_sm2_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(d, d_len);
  if (rc == KS_OK && d_len != KS_SM2_PRIVATE_KEY_BYTES) rc = KS_ERR_BAD_PRIVATE_KEY;
  if (rc == KS_OK) rc = to_status(ks::sm2::private_key_from_bytes(made->key, d));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_key_decode(const uint8_t* in, size_t in_len, ks_sm2_key** out) try {
  ks_sm2_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  static const char* const kLabels[] = {"PRIVATE KEY", "EC PRIVATE KEY"};
  ks::Bytes der;
  if (rc == KS_OK) rc = unwrap_pem(in, in_len, kLabels, 2, &der);
  uint8_t d[32];
  const ks::WipeOnExit wipe_d(d, sizeof d);
  const uint8_t* pub = nullptr;
  size_t pub_len = 0;
  if (rc == KS_OK) rc = ks::sm2_formats::private_key_decode(der.data(), der.size(), d, &pub, &pub_len);
  if (rc == KS_OK) rc = to_status(ks::sm2::private_key_from_bytes(made->key, d));
  if (rc == KS_OK && pub != nullptr) {
    ks::sm2::PublicKey embedded;
    rc = to_status(ks::sm2::public_key_from_bytes(embedded, pub, pub_len));
    uint8_t a[65], b[65];
    ks::sm2::public_key_to_bytes(a, embedded);
    ks::sm2::public_key_to_bytes(b, made->key.pub);
    if (rc == KS_OK && memcmp(a, b, sizeof a) != 0) rc = KS_ERR_KEY_MISMATCH;
  }
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_key_to_bytes(const ks_sm2_key* key, uint8_t d[KS_SM2_PRIVATE_KEY_BYTES]) try {
  if (key == nullptr || d == nullptr) return KS_ERR_NULL_POINTER;
  ks::sm2::private_key_to_bytes(d, key->key);
  return KS_OK;
} KS_API_CATCH

int ks_sm2_key_encode(const ks_sm2_key* key, int pem, uint8_t* out, size_t out_cap,
                      size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  uint8_t d[32], pub[65];
  const ks::WipeOnExit wipe_d(d, sizeof d);
  ks::sm2::private_key_to_bytes(d, key->key);
  ks::sm2::public_key_to_bytes(pub, key->key.pub);
  const ks::Bytes der = ks::sm2_formats::pkcs8_encode(d, pub);
  if (!pem) return emit(der.data(), der.size(), false, out, out_cap, out_len);
  const ks::SecretString text = ks::pem::encode("PRIVATE KEY", der.data(), der.size());
  return emit(reinterpret_cast<const uint8_t*>(text.data()), text.size(), true, out, out_cap,
              out_len);
} KS_API_CATCH

int ks_sm2_key_public(const ks_sm2_key* key, ks_sm2_pubkey** out) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  ks_sm2_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  made->key = key->key.pub;
  return finish_object(KS_OK, made, out);
} KS_API_CATCH

void ks_sm2_key_free(ks_sm2_key* key) { delete key; }

int ks_sm2_pubkey_from_bytes(const uint8_t* in, size_t in_len, ks_sm2_pubkey** out) try {
  ks_sm2_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  if (rc == KS_OK) rc = to_status(ks::sm2::public_key_from_bytes(made->key, in, in_len));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_pubkey_decode(const uint8_t* in, size_t in_len, ks_sm2_pubkey** out) try {
  ks_sm2_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  static const char* const kLabels[] = {"PUBLIC KEY"};
  ks::Bytes der;
  if (rc == KS_OK) rc = unwrap_pem(in, in_len, kLabels, 1, &der);
  const uint8_t* point = nullptr;
  size_t point_len = 0;
  if (rc == KS_OK) rc = ks::sm2_formats::spki_decode(der.data(), der.size(), &point, &point_len);
  if (rc == KS_OK) rc = to_status(ks::sm2::public_key_from_bytes(made->key, point, point_len));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_sm2_pubkey_to_bytes(const ks_sm2_pubkey* key, int compressed, uint8_t* out,
                           size_t out_cap, size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  uint8_t buf[KS_SM2_PUBLIC_KEY_BYTES];
  if (compressed) {
    ks::sm2::public_key_to_compressed(buf, key->key);
    return emit(buf, KS_SM2_COMPRESSED_PUBLIC_KEY_BYTES, false, out, out_cap, out_len);
  }
  ks::sm2::public_key_to_bytes(buf, key->key);
  return emit(buf, KS_SM2_PUBLIC_KEY_BYTES, false, out, out_cap, out_len);
} KS_API_CATCH

int ks_sm2_pubkey_encode(const ks_sm2_pubkey* key, int pem, uint8_t* out, size_t out_cap,
                         size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  uint8_t point[KS_SM2_PUBLIC_KEY_BYTES];
  ks::sm2::public_key_to_bytes(point, key->key);
  const ks::Bytes der = ks::sm2_formats::spki_encode(point, sizeof point);
  if (!pem) return emit(der.data(), der.size(), false, out, out_cap, out_len);
  const ks::SecretString text = ks::pem::encode("PUBLIC KEY", der.data(), der.size());
  return emit(reinterpret_cast<const uint8_t*>(text.data()), text.size(), true, out, out_cap,
              out_len);
} KS_API_CATCH

void ks_sm2_pubkey_free(ks_sm2_pubkey* key) { delete key; }

// ---- Digests, signatures ------------------------------------------------------

int ks_sm2_za(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
              uint8_t za[KS_SM2_DIGEST_BYTES]) try {
  if (key == nullptr || za == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_id(id, id_len);
  return rc != KS_OK ? rc : to_status(ks::sm2::compute_za(za, key->key, id, id_len));
} KS_API_CATCH

int ks_sm2_digest(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                  const uint8_t* msg, size_t msg_len, uint8_t e[KS_SM2_DIGEST_BYTES]) try {
  if (key == nullptr || e == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::sm2::message_digest(e, key->key, id, id_len, msg, msg_len));
} KS_API_CATCH

int ks_sm2_sign(const ks_sm2_key* key, const uint8_t* id, size_t id_len, const uint8_t* msg,
                size_t msg_len, int nonce, uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  ks::sm2::Nonce mode;
  int rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::sm2::sign_message(sig, key->key, id, id_len, msg, msg_len, mode));
} KS_API_CATCH

int ks_sm2_sign_digest(const ks_sm2_key* key, const uint8_t e[KS_SM2_DIGEST_BYTES], int nonce,
                       uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || e == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  ks::sm2::Nonce mode;
  const int rc = parse_nonce(nonce, &mode);
  return rc != KS_OK ? rc : to_status(ks::sm2::sign_digest(sig, key->key, e, mode));
} KS_API_CATCH

int ks_sm2_verify(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                  const uint8_t* msg, size_t msg_len, const uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::sm2::verify_message(key->key, id, id_len, msg, msg_len, sig));
} KS_API_CATCH

int ks_sm2_verify_digest(const ks_sm2_pubkey* key, const uint8_t e[KS_SM2_DIGEST_BYTES],
                         const uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (key == nullptr || e == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  return to_status(ks::sm2::verify_digest(key->key, e, sig));
} KS_API_CATCH

int ks_sm2_signature_to_der(const uint8_t sig[KS_SM2_SIGNATURE_BYTES], uint8_t* out,
                            size_t out_cap, size_t* out_len) try {
  if (sig == nullptr) return KS_ERR_NULL_POINTER;
  const ks::Bytes der = ks::sm2_formats::signature_to_der(sig);
  return emit(der.data(), der.size(), false, out, out_cap, out_len);
} KS_API_CATCH

int ks_sm2_signature_from_der(const uint8_t* der, size_t der_len,
                              uint8_t sig[KS_SM2_SIGNATURE_BYTES]) try {
  if (sig == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(der, der_len);
  return rc != KS_OK ? rc : ks::sm2_formats::signature_from_der(sig, der, der_len);
} KS_API_CATCH

// ---- Batches ------------------------------------------------------------------
// Each batch runs on the context's CPU threads, or on its GPU engine when
// ctx->use_gpu() says so. The GPU draws keys and nonces on the device; the
// rare items it cannot use (a random scalar out of range) are redone here on
// the CPU. Messages are hashed (e = SM3(Z_A || M)) on the CPU threads.

namespace {

// Below these batch sizes an AUTO context stays on the CPU: the crossovers
// measured end to end on an H100 next to 16 Xeon threads with the 8-lane
// IFMA path (bench/results/h100-sweep-2026-11-22-s2.txt): keygen and
// signing win on the GPU from 256 items; verification loses at 256 (one
// verification takes the GPU 1.4 ms) and wins from 1,024 (7.3e5/s against
// 4.0e5/s).
constexpr size_t kAutoGpuMinSm2 = 1024;
constexpr size_t kAutoGpuMinSm2Verify = 1024;

// An item's signature, or zeros where it failed (its buffer then holds
// neither stack bytes nor half of a computation).
void put_signature(uint8_t* out, const uint8_t sig[64], Error err) {
  if (err == Error::kOk) {
    memcpy(out, sig, 64);
  } else {
    memset(out, 0, 64);
  }
}

int finish_statuses(const std::vector<int>& status, int* out) {
  int rc = KS_OK;
  for (size_t i = 0; i < status.size(); ++i) {
    if (out != nullptr) out[i] = status[i];
    if (status[i] != KS_OK) rc = KS_ERR_BATCH_ITEMS;
  }
  return rc;
}

// e_i = SM3(Z_A || M_i) for every item under one public key, on the CPU
// threads: groups of 64 through mb::message_digests (Z_A once per group,
// the multi-buffer SM3 for the messages).
std::vector<uint8_t> hash_messages(ks_ctx* ctx, const ks::sm2::PublicKey& pub, const uint8_t* id,
                                   size_t id_len, const uint8_t* data, const uint64_t* offsets,
                                   size_t count) {
  constexpr size_t kGroup = 64;
  std::vector<uint8_t> e(32 * count);
  ctx->pool.parallel_for(count, kGroup, [&](size_t b, size_t end) {
    for (size_t g = b; g < end; g += kGroup) {
      const size_t n = std::min(kGroup, end - g);
      const ks::sm2::PublicKey* keys[kGroup];
      const uint8_t* msgs[kGroup];
      size_t lens[kGroup];
      for (size_t j = 0; j < n; ++j) {
        keys[j] = &pub;
        msgs[j] = data + offsets[g + j];
        lens[j] = size_t(offsets[g + j + 1] - offsets[g + j]);
      }
      // id_len was checked by the caller: kBadIdLength cannot happen here
      ks::sm2::mb::message_digests(reinterpret_cast<uint8_t(*)[32]>(&e[32 * g]), keys, id,
                                   id_len, msgs, lens, n);
    }
  });
  return e;
}

int gpu_keygen(ks_ctx* ctx, size_t count, uint8_t* priv, uint8_t* pub, int* status) {
  const DeviceResults device(status, count);
  if (device.get() == nullptr) return KS_ERR_NO_MEMORY;
  int rc;
  {
    std::lock_guard<std::mutex> lock(ctx->gpu_mutex);
    rc = ctx->gpu->sm2_keygen(count, priv, pub, device.get());
  }
  if (rc != KS_OK) return rc;
  return run_items(ctx, count, 4096, status, [&](size_t i) -> int {
    if (device[i] == int(Error::kOk)) return KS_OK;
    ks::sm2::PublicKey p;  // the device drew d >= n - 1 or 0: draw again here
    const Error err = ks::sm2::generate_keypair(priv + 32 * i, p);
    if (err == Error::kOk) {
      ks::sm2::public_key_to_bytes(pub + 65 * i, p);
    } else {
      ks::secure_wipe(priv + 32 * i, 32);
      memset(pub + 65 * i, 0, 65);
    }
    return to_status(err);
  });
}

// Signs digests on the GPU with random nonces (RFC 6979 nonces are derived
// on the CPU only) under one key or per-item keys (exactly one of key / keys
// is set), redoing on the CPU the items whose nonce was unusable. Per-item
// keys out of range go to the device like the others (their results are
// discarded): checking them here, in the one pass after the batch, keeps
// the host's work off the device's path.
int gpu_sign_digests(ks_ctx* ctx, const ks::sm2::PrivateKey* key, const uint8_t* keys,
                     const uint8_t* digests, size_t count, ks::sm2::Nonce mode, uint8_t* sigs,
                     int* status) {
  const DeviceResults device(status, count);
  if (device.get() == nullptr) return KS_ERR_NO_MEMORY;
  int rc;
  {
    std::lock_guard<std::mutex> lock(ctx->gpu_mutex);
    rc = ctx->gpu->sm2_sign_digest(key, keys, digests, count, sigs, device.get());
  }
  if (rc != KS_OK) return rc;
  return run_items(ctx, count, 4096, status, [&](size_t i) -> int {
    if (keys != nullptr && !ks::sm2::private_key_in_range(keys + 32 * i)) {
      memset(sigs + 64 * i, 0, 64);
      return KS_ERR_BAD_PRIVATE_KEY;
    }
    if (device[i] != int(Error::kBadNonce)) return to_status(static_cast<Error>(device[i]));
    ks::sm2::PrivateKey own;
    Error err = key != nullptr ? Error::kOk : ks::sm2::private_key_from_bytes(own, keys + 32 * i);
    if (err == Error::kOk)
      err = ks::sm2::sign_digest(sigs + 64 * i, key != nullptr ? *key : own, digests + 32 * i, mode);
    if (err != Error::kOk) memset(sigs + 64 * i, 0, 64);
    return to_status(err);
  });
}

// Messages under one key, hashed and signed on the device; items whose
// nonce was unusable are hashed and signed again here.
int gpu_sign_messages(ks_ctx* ctx, const ks::sm2::PrivateKey& key, const uint8_t za[32],
                      const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* sigs,
                      int* status) {
  const DeviceResults device(status, count);
  if (device.get() == nullptr) return KS_ERR_NO_MEMORY;
  int rc;
  {
    std::lock_guard<std::mutex> lock(ctx->gpu_mutex);
    rc = ctx->gpu->sm2_sign_messages(key, za, data, offsets, count, sigs, device.get());
  }
  if (rc != KS_OK) return rc;
  return run_items(ctx, count, 4096, status, [&](size_t i) -> int {
    Error err = static_cast<Error>(device[i]);
    if (err == Error::kBadNonce) {  // e = SM3(Z_A || M_i) again, then a fresh nonce
      uint8_t e[32];
      ks::sm3::Sm3 h;
      h.update(za, 32);
      h.update(data + offsets[i], size_t(offsets[i + 1] - offsets[i]));
      h.finish(e);
      err = ks::sm2::sign_digest(sigs + 64 * i, key, e, ks::sm2::Nonce::kRandom);
    }
    if (err != Error::kOk) memset(sigs + 64 * i, 0, 64);
    return to_status(err);
  });
}

// Messages of a verify batch: one ID, flat data and offsets (validated).
struct MessagesIn {
  const uint8_t* id;
  size_t id_len;
  const uint8_t* data;
  const uint64_t* offsets;
};

// Verification on the GPU: of digests, or (messages set) of messages with
// Z_A and e computed on the device.
int gpu_verify(ks_ctx* ctx, const uint8_t* pubs, const uint8_t* digests,
               const MessagesIn* messages, size_t count, const uint8_t* sigs, int* status) {
  const DeviceResults device(status, count);
  std::vector<uint8_t> prefix;
  if (messages != nullptr) {
    prefix.resize(ks::sm2::kZaPrefixMaxBytes);
    prefix.resize(ks::sm2::za_prefix(prefix.data(), messages->id, messages->id_len));
    if (prefix.empty()) return KS_ERR_ID_LENGTH;
  }
  if (device.get() == nullptr) return KS_ERR_NO_MEMORY;
  int rc;
  {
    std::lock_guard<std::mutex> lock(ctx->gpu_mutex);
    rc = messages == nullptr
             ? ctx->gpu->sm2_verify_digest(pubs, digests, sigs, count, device.get())
             : ctx->gpu->sm2_verify_messages(pubs, prefix.data(), prefix.size(), messages->data,
                                             messages->offsets, count, sigs, device.get());
  }
  if (rc != KS_OK) return rc;
  return run_items(ctx, count, 4096, status,
                   [&](size_t i) { return to_status(static_cast<Error>(device[i])); });
}

int check_ctx(const ks_ctx* ctx) { return ctx == nullptr ? KS_ERR_NULL_POINTER : KS_OK; }

// Verifies digests under already parsed keys, 8 at a time, on the CPU
// threads; items whose result is already an error are skipped.
void verify_parsed(ks_ctx* ctx, const std::vector<ks::sm2::PublicKey>& keys,
                   const uint8_t* digests, const uint8_t* sigs, std::vector<int>& result) {
  run_groups(ctx, keys.size(), result, [&](const size_t* idx, size_t n) {
    const ks::sm2::PublicKey* key_ptrs[8] = {};
    uint8_t e[8][32], sig[8][64];
    Error err[8];
    for (size_t j = 0; j < n; ++j) {
      key_ptrs[j] = &keys[idx[j]];
      memcpy(e[j], digests + 32 * idx[j], 32);
      memcpy(sig[j], sigs + 64 * idx[j], 64);
    }
    ks::sm2::mb::verify_digests_x8(key_ptrs, e, sig, err, n);
    for (size_t j = 0; j < n; ++j) result[idx[j]] = to_status(err[j]);
  });
}


}  // namespace

namespace {

int cpu_keygen(ks_ctx* ctx, size_t count, uint8_t* private_keys, uint8_t* public_keys,
               int* status) {
  std::vector<int> result(count, KS_OK);
  run_groups(ctx, count, result, [&](const size_t* idx, size_t n) {
    uint8_t d[8][32];  // d and P only: no (1 + d)^-1 needed here
    const ks::WipeOnExit wipe_d(d, sizeof d);
    ks::sm2::PublicKey pub[8];
    Error err[8];
    ks::sm2::mb::keygen_x8(d, pub, err, n);
    for (size_t j = 0; j < n; ++j) {
      result[idx[j]] = to_status(err[j]);
      uint8_t* priv = private_keys + 32 * idx[j];
      uint8_t* pub_out = public_keys + 65 * idx[j];
      if (err[j] != Error::kOk) {  // no draw (getrandom failed): zeros, not stack bytes
        memset(priv, 0, 32);
        memset(pub_out, 0, 65);
        continue;
      }
      memcpy(priv, d[j], 32);
      ks::sm2::public_key_to_bytes(pub_out, pub[j]);
    }
  });
  return finish_statuses(result, status);
}

}  // namespace

int ks_sm2_keygen_batch(ks_ctx* ctx, size_t count, uint8_t* private_keys,
                        size_t private_keys_len, uint8_t* public_keys, size_t public_keys_len,
                        int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = ks::api::check_output(private_keys, private_keys_len, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(public_keys, public_keys_len, count, 65);
  if (rc != KS_OK) return rc;
  // A batch that fails as a whole leaves no private key behind in the
  // caller's buffer (its statuses do not say which items were written).
  try {
    rc = ctx->use_gpu(count, kAutoGpuMinSm2)
             ? gpu_keygen(ctx, count, private_keys, public_keys, status)
             : cpu_keygen(ctx, count, private_keys, public_keys, status);
  } catch (...) {
    ks::secure_wipe(private_keys, 32 * count);
    throw;
  }
  if (rc != KS_OK && rc != KS_ERR_BATCH_ITEMS) ks::secure_wipe(private_keys, 32 * count);
  return rc;
} KS_API_CATCH

int ks_sm2_sign_digest_batch(ks_ctx* ctx, const ks_sm2_key* key, const uint8_t* digests,
                             size_t count, int nonce, uint8_t* sigs, size_t sigs_len,
                             int* status) try {
  int rc = check_ctx(ctx);
  ks::sm2::Nonce mode;
  if (rc == KS_OK && key == nullptr) rc = KS_ERR_NULL_POINTER;
  if (rc == KS_OK) rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_items(digests, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, kAutoGpuMinSm2) && mode == ks::sm2::Nonce::kRandom)
    return gpu_sign_digests(ctx, &key->key, nullptr, digests, count, mode, sigs, status);
  std::vector<int> result(count, KS_OK);
  run_groups(ctx, count, result, [&](const size_t* idx, size_t n) {
    uint8_t e[8][32], sig[8][64];
    Error err[8];
    for (size_t j = 0; j < n; ++j) memcpy(e[j], digests + 32 * idx[j], 32);
    ks::sm2::mb::sign_digests_x8(sig, key->key, e, mode, err, n);
    for (size_t j = 0; j < n; ++j) put_signature(sigs + 64 * idx[j], sig[j], err[j]);
    for (size_t j = 0; j < n; ++j) result[idx[j]] = to_status(err[j]);
  });
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_sm2_sign_digest_batch_keys(ks_ctx* ctx, const uint8_t* private_keys,
                                  const uint8_t* digests, size_t count, int nonce, uint8_t* sigs,
                                  size_t sigs_len, int* status) try {
  int rc = check_ctx(ctx);
  ks::sm2::Nonce mode;
  if (rc == KS_OK) rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_items(private_keys, count, 32);
  if (rc == KS_OK) rc = check_items(digests, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, kAutoGpuMinSm2) && mode == ks::sm2::Nonce::kRandom)
    return gpu_sign_digests(ctx, nullptr, private_keys, digests, count, mode, sigs, status);
  std::vector<int> result(count, KS_OK);
  ctx->pool.parallel_for(count, 4096, [&](size_t b, size_t end) {
    for (size_t i = b; i < end; ++i)
      if (!ks::sm2::private_key_in_range(private_keys + 32 * i)) {
        result[i] = KS_ERR_BAD_PRIVATE_KEY;
        memset(sigs + 64 * i, 0, 64);
      }
  });
  run_groups(ctx, count, result, [&](const size_t* idx, size_t n) {
    ks::sm2::PrivateKey keys[8];  // valid: checked above
    const ks::sm2::PrivateKey* key_ptrs[8] = {};
    uint8_t e[8][32], sig[8][64];
    Error err[8];
    for (size_t j = 0; j < n; ++j) {
      ks::sm2::private_key_from_bytes(keys[j], private_keys + 32 * idx[j]);
      key_ptrs[j] = &keys[j];
      memcpy(e[j], digests + 32 * idx[j], 32);
    }
    ks::sm2::mb::sign_digests_x8(sig, key_ptrs, e, mode, err, n);
    for (size_t j = 0; j < n; ++j) put_signature(sigs + 64 * idx[j], sig[j], err[j]);
    for (size_t j = 0; j < n; ++j) result[idx[j]] = to_status(err[j]);
  });
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_sm2_sign_batch(ks_ctx* ctx, const ks_sm2_key* key, const uint8_t* id, size_t id_len,
                      const uint8_t* data, size_t data_len, const uint64_t* offsets,
                      size_t count, int nonce, uint8_t* sigs, size_t sigs_len, int* status) try {
  int rc = check_ctx(ctx);
  ks::sm2::Nonce mode;
  if (rc == KS_OK && key == nullptr) rc = KS_ERR_NULL_POINTER;
  if (rc == KS_OK) rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_id(id, id_len);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  if (rc == KS_OK) rc = ks::api::check_offsets(data, data_len, offsets, count);
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, kAutoGpuMinSm2) && mode == ks::sm2::Nonce::kRandom) {
    uint8_t za[32];
    rc = to_status(ks::sm2::compute_za(za, key->key.pub, id, id_len));
    if (rc != KS_OK) return rc;
    return gpu_sign_messages(ctx, key->key, za, data, offsets, count, sigs, status);
  }
  // e = SM3(Z_A || M) (clause 6.1 A1-A2).
  const std::vector<uint8_t> e = hash_messages(ctx, key->key.pub, id, id_len, data, offsets, count);
  return ks_sm2_sign_digest_batch(ctx, key, e.data(), count, nonce, sigs, sigs_len, status);
} KS_API_CATCH

int ks_sm2_verify_digest_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* digests,
                               size_t count, const uint8_t* sigs, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(public_keys, count, 65);
  if (rc == KS_OK) rc = check_items(digests, count, 32);
  if (rc == KS_OK) rc = check_items(sigs, count, 64);
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, kAutoGpuMinSm2Verify))
    return gpu_verify(ctx, public_keys, digests, nullptr, count, sigs, status);
  std::vector<int> result(count, KS_OK);
  std::vector<ks::sm2::PublicKey> keys(count);
  ctx->pool.parallel_for(count, 256, [&](size_t b, size_t end) {
    for (size_t i = b; i < end; ++i)
      result[i] = to_status(ks::sm2::public_key_from_bytes(keys[i], public_keys + 65 * i, 65));
  });
  verify_parsed(ctx, keys, digests, sigs, result);
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_sm2_verify_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* id,
                        size_t id_len, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, const uint8_t* sigs,
                        int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_id(id, id_len);
  if (rc == KS_OK) rc = check_items(public_keys, count, 65);
  if (rc == KS_OK) rc = check_items(sigs, count, 64);
  if (rc == KS_OK) rc = ks::api::check_offsets(data, data_len, offsets, count);
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, kAutoGpuMinSm2Verify)) {
    const MessagesIn messages = {id, id_len, data, offsets};
    return gpu_verify(ctx, public_keys, nullptr, &messages, count, sigs, status);
  }
  // Each key is parsed once; a run of items with the same key bytes shares
  // one Z_A (mb::message_digests computes it once per run of equal key
  // pointers), and e_i = SM3(Z_A(P_i) || M_i) goes through the
  // multi-buffer SM3, on the CPU threads. A key that does not parse fails
  // its item here.
  std::vector<uint8_t> e(32 * count);
  std::vector<int> result(count, KS_OK);
  std::vector<ks::sm2::PublicKey> keys(count);
  ctx->pool.parallel_for(count, 64, [&](size_t b, size_t end) {
    constexpr size_t kGroup = 64;
    for (size_t g = b; g < end; g += kGroup) {
      const size_t n = std::min(kGroup, end - g);
      const ks::sm2::PublicKey* key_ptrs[kGroup];
      const uint8_t* msgs[kGroup];
      size_t lens[kGroup], idx[kGroup], m = 0;
      for (size_t i = g; i < g + n; ++i) {
        const uint8_t* bytes = public_keys + 65 * i;
        result[i] = to_status(ks::sm2::public_key_from_bytes(keys[i], bytes, 65));
        if (result[i] != KS_OK) continue;
        const bool same_key = m > 0 && idx[m - 1] == i - 1 && memcmp(bytes, bytes - 65, 65) == 0;
        key_ptrs[m] = same_key ? key_ptrs[m - 1] : &keys[i];
        msgs[m] = data + offsets[i];
        lens[m] = size_t(offsets[i + 1] - offsets[i]);
        idx[m++] = i;
      }
      uint8_t digests[kGroup][32];
      const Error err = ks::sm2::mb::message_digests(digests, key_ptrs, id, id_len, msgs, lens, m);
      for (size_t j = 0; j < m; ++j) {
        memcpy(&e[32 * idx[j]], digests[j], 32);
        if (err != Error::kOk) result[idx[j]] = to_status(err);
      }
    }
  });
  verify_parsed(ctx, keys, e.data(), sigs, result);
  return finish_statuses(result, status);
} KS_API_CATCH
