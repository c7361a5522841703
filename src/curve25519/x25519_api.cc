// C entry points for X25519: raw 32-byte keys, their RFC 8410 encodings,
// single operations and batches on the context's CPU threads. The
// arithmetic lives in curve25519/x25519.h (curve25519/ed25519_batch.h for groups of
// lanes).
#include <stdint.h>
#include <string.h>

#include <mutex>
#include <vector>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/device_memory.h"
#include "api/checks.h"
#include "api/guard.h"
#include "api/objects.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "curve25519/curve25519_formats.h"
#include "api/context.h"
#include "kuaisuo/curve25519.h"
#include "curve25519/curve25519_device_keys.h"
#include "curve25519/gpu/curve25519_gpu_batch.h"
#include "curve25519/ed25519_batch.h"
#include "curve25519/x25519.h"

namespace {

using ks::api::check_buffer;
using ks::api::check_ctx;
using ks::curve25519::keys_on_device;
using ks::curve25519::gpu::KeyAlg;
using ks::api::check_items;
using ks::api::finish_statuses;
using ks::x25519::Error;
namespace formats = ks::curve25519_formats;
namespace batch = ks::x25519::batch;
constexpr size_t kItems = batch::kBatchItems;  // groups of IFMA lanes with one inversion

int to_status(Error e) {
  switch (e) {
    case Error::kOk: return KS_OK;
    case Error::kZeroSharedSecret: return KS_ERR_ZERO_SHARED_SECRET;
    case Error::kRngFailure: return KS_ERR_RANDOM;
  }
  return KS_ERR_INTERNAL;
}

const uint8_t (*as_keys(const uint8_t* p))[32] { return reinterpret_cast<const uint8_t(*)[32]>(p); }

int gpu_shared_secrets(ks_ctx* ctx, const uint8_t* keys, bool per_item_keys, const uint8_t* peers,
                       size_t count, uint8_t* shared, int* status) {
  return ks::api::run_on_gpu(
      ctx, count, status,
      [&](int* device) {
        const int rc = ks::curve25519::gpu::x25519_batch(*ctx->gpu, keys, per_item_keys, peers,
                                                         count, shared, device);
        if (rc != KS_OK) ks::secure_wipe(shared, 32 * count);  // no partial secrets
        return rc;
      },
      [](int e) { return to_status(static_cast<Error>(e)); });
}

}  // namespace

int ks_x25519_keygen(uint8_t private_key[KS_X25519_KEY_BYTES],
                     uint8_t public_key[KS_X25519_KEY_BYTES]) try {
  if (private_key == nullptr || public_key == nullptr) return KS_ERR_NULL_POINTER;
  return to_status(ks::x25519::generate(private_key, public_key));
} KS_API_CATCH

int ks_x25519_public_key(const uint8_t private_key[KS_X25519_KEY_BYTES],
                         uint8_t public_key[KS_X25519_KEY_BYTES]) try {
  if (private_key == nullptr || public_key == nullptr) return KS_ERR_NULL_POINTER;
  ks::x25519::public_key(public_key, private_key);
  return KS_OK;
} KS_API_CATCH

int ks_x25519(const uint8_t private_key[KS_X25519_KEY_BYTES],
              const uint8_t peer_public_key[KS_X25519_KEY_BYTES],
              uint8_t shared_secret[KS_X25519_KEY_BYTES]) try {
  if (private_key == nullptr || peer_public_key == nullptr || shared_secret == nullptr)
    return KS_ERR_NULL_POINTER;
  return to_status(ks::x25519::shared_secret(shared_secret, private_key, peer_public_key));
} KS_API_CATCH

int ks_x25519_private_key_decode(const uint8_t* in, size_t in_len,
                                 uint8_t private_key[KS_X25519_KEY_BYTES]) try {
  if (private_key == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_buffer(in, in_len);
  if (rc != KS_OK) return rc;
  ks::Bytes der;
  rc = ks::api::unwrap_pkcs8(in, in_len, &der);
  if (rc != KS_OK) return rc;
  formats::PrivateKey decoded;
  rc = formats::pkcs8_decode(der.data(), der.size(), &decoded);
  if (rc != KS_OK) return rc;
  if (decoded.alg != formats::kX25519) return KS_ERR_KEY_ALGORITHM;
  if (decoded.has_public_key) {
    uint8_t pub[32];
    ks::x25519::public_key(pub, decoded.key);
    if (memcmp(pub, decoded.public_key, 32) != 0) return KS_ERR_KEY_MISMATCH;
  }
  memcpy(private_key, decoded.key, KS_X25519_KEY_BYTES);
  return KS_OK;
} KS_API_CATCH

int ks_x25519_private_key_encode(const uint8_t private_key[KS_X25519_KEY_BYTES], int pem,
                                 uint8_t* out, size_t out_cap, size_t* out_len) try {
  if (private_key == nullptr) return KS_ERR_NULL_POINTER;
  return ks::api::emit_der_or_pem(formats::pkcs8_encode(formats::kX25519, private_key), pem,
                                  "PRIVATE KEY", out, out_cap, out_len);
} KS_API_CATCH

int ks_x25519_public_key_decode(const uint8_t* in, size_t in_len,
                                uint8_t public_key[KS_X25519_KEY_BYTES]) try {
  if (public_key == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_buffer(in, in_len);
  if (rc != KS_OK) return rc;
  ks::Bytes der;
  rc = ks::api::unwrap_public_key(in, in_len, &der);
  if (rc != KS_OK) return rc;
  formats::Curve25519Alg alg;
  uint8_t key[32];
  rc = formats::spki_decode(der.data(), der.size(), &alg, key);
  if (rc != KS_OK) return rc;
  if (alg != formats::kX25519) return KS_ERR_KEY_ALGORITHM;
  memcpy(public_key, key, KS_X25519_KEY_BYTES);
  return KS_OK;
} KS_API_CATCH

int ks_x25519_public_key_encode(const uint8_t public_key[KS_X25519_KEY_BYTES], int pem,
                                uint8_t* out, size_t out_cap, size_t* out_len) try {
  if (public_key == nullptr) return KS_ERR_NULL_POINTER;
  return ks::api::emit_der_or_pem(formats::spki_encode(formats::kX25519, public_key), pem,
                                  "PUBLIC KEY", out, out_cap, out_len);
} KS_API_CATCH

int ks_x25519_keygen_batch(ks_ctx* ctx, size_t count, uint8_t* private_keys,
                           size_t private_keys_len, uint8_t* public_keys, size_t public_keys_len,
                           int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = ks::api::check_output(private_keys, private_keys_len, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(public_keys, public_keys_len, count, 32);
  if (rc != KS_OK) return rc;
  int device_rc = KS_OK;
  if (keys_on_device(ctx, KeyAlg::kX25519, true, private_keys, count, public_keys, status,
                     &device_rc))
    return device_rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinX25519Keygen)) {  // secrets drawn on the device
    rc = ks::api::run_on_gpu_whole(ctx, count, status, [&] {
      return ks::curve25519::gpu::x25519_keygen_batch(
          *ctx->gpu, ks::curve25519::gpu::base_table_of(ctx->gpu_flags), count, private_keys,
          public_keys);
    });
    if (rc != KS_OK) ks::secure_wipe(private_keys, 32 * count);
    return rc;
  }
  if (count > 0 && !ks::os_random(private_keys, 32 * count)) {
    ks::secure_wipe(private_keys, 32 * count);
    memset(public_keys, 0, 32 * count);
    ks::api::fill_status(status, count, KS_ERR_RANDOM);
    return KS_ERR_RANDOM;
  }
  try {
    // A failed batch hands out no private keys.
    rc = ks_x25519_public_keys_batch(ctx, private_keys, count, public_keys, public_keys_len,
                                     status);
    if (rc != KS_OK) ks::secure_wipe(private_keys, 32 * count);
    return rc;
  } catch (...) {
    ks::secure_wipe(private_keys, 32 * count);
    throw;
  }
} KS_API_CATCH

int ks_x25519_public_keys_batch(ks_ctx* ctx, const uint8_t* private_keys, size_t count,
                                uint8_t* public_keys, size_t public_keys_len, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(private_keys, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(public_keys, public_keys_len, count, 32);
  if (rc != KS_OK) return rc;
  int device_rc = KS_OK;
  if (keys_on_device(ctx, KeyAlg::kX25519, false, const_cast<uint8_t*>(private_keys), count,
                     public_keys, status, &device_rc))
    return device_rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinX25519Keygen))
    return ks::api::run_on_gpu_whole(ctx, count, status, [&] {
      return ks::curve25519::gpu::x25519_public_keys_batch(
          *ctx->gpu, ks::curve25519::gpu::base_table_of(ctx->gpu_flags), private_keys, count,
          public_keys);
    });
  std::vector<int> result(count, KS_OK);
  ks::api::run_groups<kItems>(ctx, count, result, [&](const size_t* idx, size_t n) {
    uint8_t k[kItems][32], out[kItems][32];
    const ks::WipeOnExit wipe(k, sizeof k);
    for (size_t j = 0; j < n; ++j) memcpy(k[j], private_keys + 32 * idx[j], 32);
    batch::public_keys(out, k, n);
    for (size_t j = 0; j < n; ++j) memcpy(public_keys + 32 * idx[j], out[j], 32);
  });
  return finish_statuses(result, status);
} KS_API_CATCH

namespace {

// ks_x25519_derive_batch (one key) and _keys (per_item_keys).
int derive_batch(ks_ctx* ctx, const uint8_t* private_keys, bool per_item_keys,
                 const uint8_t* peer_public_keys, size_t count, uint8_t* shared,
                 size_t shared_len, int* status) {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(private_keys, count == 0 ? 0 : per_item_keys ? count : 1, 32);
  if (rc == KS_OK) rc = check_items(peer_public_keys, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(shared, shared_len, count, 32);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {private_keys, peer_public_keys, shared, status},
                                 &on_device);
  if (rc != KS_OK) return rc;
  if (on_device)
    return ks::api::device_batch(count, status, [&] {
      return ks::curve25519::gpu::x25519_device(
          *ctx->gpu, private_keys, per_item_keys, peer_public_keys, count, shared, status,
          ks::api::status_map({Error::kOk, Error::kZeroSharedSecret}, to_status), ctx->stream);
    });
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinX25519))
    return gpu_shared_secrets(ctx, private_keys, per_item_keys, peer_public_keys, count,
                              shared, status);
  std::vector<int> result(count, KS_OK);
  ks::api::run_groups<kItems>(ctx, count, result, [&](const size_t* idx, size_t n) {
    const uint8_t* k[kItems];
    uint8_t u[kItems][32], out[kItems][32];
    const ks::WipeOnExit wipe(out, sizeof out);
    for (size_t j = 0; j < n; ++j) {
      k[j] = private_keys + (per_item_keys ? 32 * idx[j] : 0);
      memcpy(u[j], as_keys(peer_public_keys)[idx[j]], 32);
    }
    Error err[kItems];
    batch::shared_secrets(err, out, k, u, n);
    for (size_t j = 0; j < n; ++j) {
      memcpy(shared + 32 * idx[j], out[j], 32);
      result[idx[j]] = to_status(err[j]);
    }
  });
  return finish_statuses(result, status);
}

}  // namespace

int ks_x25519_derive_batch(ks_ctx* ctx, const uint8_t private_key[KS_X25519_KEY_BYTES],
                           const uint8_t* peer_public_keys, size_t count, uint8_t* shared,
                           size_t shared_len, int* status) try {
  return derive_batch(ctx, private_key, false, peer_public_keys, count, shared, shared_len,
                      status);
} KS_API_CATCH

int ks_x25519_derive_batch_keys(ks_ctx* ctx, const uint8_t* private_keys,
                                const uint8_t* peer_public_keys, size_t count, uint8_t* shared,
                                size_t shared_len, int* status) try {
  return derive_batch(ctx, private_keys, true, peer_public_keys, count, shared, shared_len,
                      status);
} KS_API_CATCH

int ks_x25519_batch(ks_ctx* ctx, const uint8_t* private_keys, int per_item_keys,
                    const uint8_t* peer_public_keys, size_t count, uint8_t* shared,
                    size_t shared_len, int* status) {
  return per_item_keys ? ks_x25519_derive_batch_keys(ctx, private_keys, peer_public_keys, count,
                                                     shared, shared_len, status)
                       : ks_x25519_derive_batch(ctx, private_keys, peer_public_keys, count,
                                                shared, shared_len, status);
}
