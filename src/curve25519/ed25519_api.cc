// C entry points for Ed25519: key objects and their RFC 8410 encodings,
// single operations of the three RFC 8032 instances, and pure-Ed25519
// batches on the context's CPU threads. The arithmetic lives in
// curve25519/ed25519.h (and curve25519/ed25519_batch.h for groups of lanes), the
// formats in curve25519/curve25519_formats.h.
#include <string.h>

#include <mutex>
#include <vector>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/checks.h"
#include "api/device_memory.h"
#include "api/guard.h"
#include "api/objects.h"
#include "core/os_random.h"
#include "core/secure.h"
#include "curve25519/curve25519_formats.h"
#include "api/context.h"
#include "kuaisuo/curve25519.h"
#include "curve25519/curve25519_device_keys.h"
#include "curve25519/gpu/curve25519_gpu_batch.h"
#include "curve25519/ed25519.h"
#include "curve25519/ed25519_batch.h"

struct ks_ed25519_key {
  ks::ed25519::PrivateKey key;
};
struct ks_ed25519_pubkey {
  ks::ed25519::PublicKey key;
};

namespace {

using ks::api::check_buffer;
using ks::api::check_ctx;
using ks::curve25519::keys_on_device;
using ks::curve25519::gpu::KeyAlg;
using ks::api::check_items;
using ks::api::finish_object;
using ks::api::finish_statuses;
using ks::api::new_object;
using ks::ed25519::Error;
namespace formats = ks::curve25519_formats;
namespace batch = ks::ed25519::batch;

int to_status(Error e) {
  switch (e) {
    case Error::kOk: return KS_OK;
    case Error::kBadPublicKey: return KS_ERR_BAD_PUBLIC_KEY;
    case Error::kBadSignature: return KS_ERR_SIGNATURE_RANGE;
    case Error::kVerifyFailed: return KS_ERR_VERIFY_FAILED;
    case Error::kRngFailure: return KS_ERR_RANDOM;
    case Error::kBadContext: return KS_ERR_CONTEXT_LENGTH;
  }
  return KS_ERR_INTERNAL;
}

// The statuses the device-memory calls' kernels write as ks_status values
// (verification verdicts and kBadItemOffsets; signing writes 0 or
// kBadItemOffsets).
ks::gpu::StatusMap device_status_map() {
  ks::gpu::StatusMap map = ks::api::status_map(
      {Error::kOk, Error::kBadPublicKey, Error::kBadSignature, Error::kVerifyFailed}, to_status);
  map.codes[ks::curve25519::gpu::kBadItemOffsets] = KS_ERR_OFFSETS;
  return map;
}

int parse_domain(int flavor, const uint8_t* context, size_t context_len,
                 ks::ed25519::Domain* out) {
  if (flavor != KS_ED25519_PURE && flavor != KS_ED25519_CTX && flavor != KS_ED25519_PH)
    return KS_ERR_INVALID_ARGUMENT;
  const int rc = check_buffer(context, context_len);
  if (rc != KS_OK) return rc;
  out->flavor = static_cast<ks::ed25519::Flavor>(flavor);
  out->context = context;
  out->context_len = context_len;
  return KS_OK;
}

// A seed from PKCS#8 DER or PEM (RFC 8410 section 7), with a version 1
// key's embedded public key checked against it.
int decode_seed(const uint8_t* in, size_t in_len, ks::ed25519::PrivateKey* key) {
  ks::Bytes der;
  int rc = ks::api::unwrap_pkcs8(in, in_len, &der);
  if (rc != KS_OK) return rc;
  formats::PrivateKey decoded;
  rc = formats::pkcs8_decode(der.data(), der.size(), &decoded);
  if (rc != KS_OK) return rc;
  if (decoded.alg != formats::kEd25519) return KS_ERR_KEY_ALGORITHM;
  ks::ed25519::key_from_seed(*key, decoded.key);
  if (decoded.has_public_key && memcmp(decoded.public_key, key->pub.bytes, 32) != 0)
    return KS_ERR_KEY_MISMATCH;
  return KS_OK;
}

int decode_public(const uint8_t* in, size_t in_len, ks::ed25519::PublicKey* key) {
  ks::Bytes der;
  int rc = ks::api::unwrap_public_key(in, in_len, &der);
  if (rc != KS_OK) return rc;
  formats::Curve25519Alg alg;
  uint8_t bytes[32];
  rc = formats::spki_decode(der.data(), der.size(), &alg, bytes);
  if (rc != KS_OK) return rc;
  if (alg != formats::kEd25519) return KS_ERR_KEY_ALGORITHM;
  return to_status(ks::ed25519::public_key_from_bytes(*key, bytes));
}

}  // namespace

// ---- Keys -------------------------------------------------------------------

int ks_ed25519_key_generate(ks_ed25519_key** out) try {
  ks_ed25519_key* made = nullptr;
  const int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  return finish_object(to_status(ks::ed25519::generate_key(made->key)), made, out);
} KS_API_CATCH

int ks_ed25519_key_from_seed(const uint8_t* seed, size_t seed_len, ks_ed25519_key** out) try {
  ks_ed25519_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(seed, seed_len);
  // A seed of another length is a length error, not a bad key: every 32
  // bytes are a valid seed (RFC 8032 5.1.5), so there is no range to fail.
  if (rc == KS_OK && seed_len != KS_ED25519_SEED_BYTES) rc = KS_ERR_LENGTH;
  if (rc == KS_OK) ks::ed25519::key_from_seed(made->key, seed);
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_ed25519_key_decode(const uint8_t* in, size_t in_len, ks_ed25519_key** out) try {
  ks_ed25519_key* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  if (rc == KS_OK) rc = decode_seed(in, in_len, &made->key);
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_ed25519_key_to_seed(const ks_ed25519_key* key, uint8_t seed[KS_ED25519_SEED_BYTES]) try {
  if (key == nullptr || seed == nullptr) return KS_ERR_NULL_POINTER;
  memcpy(seed, key->key.seed, KS_ED25519_SEED_BYTES);
  return KS_OK;
} KS_API_CATCH

int ks_ed25519_key_encode(const ks_ed25519_key* key, int pem, uint8_t* out, size_t out_cap,
                          size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  return ks::api::emit_der_or_pem(formats::pkcs8_encode(formats::kEd25519, key->key.seed), pem,
                                  "PRIVATE KEY", out, out_cap, out_len);
} KS_API_CATCH

int ks_ed25519_key_public(const ks_ed25519_key* key, ks_ed25519_pubkey** out) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  ks_ed25519_pubkey* made = nullptr;
  const int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  made->key = key->key.pub;
  return finish_object(KS_OK, made, out);
} KS_API_CATCH

void ks_ed25519_key_free(ks_ed25519_key* key) { delete key; }

int ks_ed25519_pubkey_from_bytes(const uint8_t* in, size_t in_len, ks_ed25519_pubkey** out) try {
  ks_ed25519_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  if (rc == KS_OK && in_len != KS_ED25519_PUBLIC_KEY_BYTES) rc = KS_ERR_BAD_PUBLIC_KEY;
  if (rc == KS_OK) rc = to_status(ks::ed25519::public_key_from_bytes(made->key, in));
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_ed25519_pubkey_decode(const uint8_t* in, size_t in_len, ks_ed25519_pubkey** out) try {
  ks_ed25519_pubkey* made = nullptr;
  int rc = new_object(out, &made);
  if (rc != KS_OK) return rc;
  rc = check_buffer(in, in_len);
  if (rc == KS_OK) rc = decode_public(in, in_len, &made->key);
  return finish_object(rc, made, out);
} KS_API_CATCH

int ks_ed25519_pubkey_to_bytes(const ks_ed25519_pubkey* key,
                               uint8_t out[KS_ED25519_PUBLIC_KEY_BYTES]) try {
  if (key == nullptr || out == nullptr) return KS_ERR_NULL_POINTER;
  memcpy(out, key->key.bytes, KS_ED25519_PUBLIC_KEY_BYTES);
  return KS_OK;
} KS_API_CATCH

int ks_ed25519_pubkey_encode(const ks_ed25519_pubkey* key, int pem, uint8_t* out,
                             size_t out_cap, size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  return ks::api::emit_der_or_pem(formats::spki_encode(formats::kEd25519, key->key.bytes), pem,
                                  "PUBLIC KEY", out, out_cap, out_len);
} KS_API_CATCH

void ks_ed25519_pubkey_free(ks_ed25519_pubkey* key) { delete key; }

// ---- Single operations --------------------------------------------------------

int ks_ed25519_sign_ex(const ks_ed25519_key* key, int flavor, const uint8_t* context,
                       size_t context_len, const uint8_t* msg, size_t msg_len,
                       uint8_t sig[KS_ED25519_SIGNATURE_BYTES]) try {
  if (key == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  ks::ed25519::Domain domain;
  int rc = parse_domain(flavor, context, context_len, &domain);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::ed25519::sign(sig, key->key, domain, msg, msg_len));
} KS_API_CATCH

int ks_ed25519_verify_ex(const ks_ed25519_pubkey* key, int flavor, const uint8_t* context,
                         size_t context_len, const uint8_t* msg, size_t msg_len,
                         const uint8_t sig[KS_ED25519_SIGNATURE_BYTES]) try {
  if (key == nullptr || sig == nullptr) return KS_ERR_NULL_POINTER;
  ks::ed25519::Domain domain;
  int rc = parse_domain(flavor, context, context_len, &domain);
  if (rc == KS_OK) rc = check_buffer(msg, msg_len);
  if (rc != KS_OK) return rc;
  return to_status(ks::ed25519::verify(key->key, domain, msg, msg_len, sig));
} KS_API_CATCH

int ks_ed25519_sign(const ks_ed25519_key* key, const uint8_t* msg, size_t msg_len,
                    uint8_t sig[KS_ED25519_SIGNATURE_BYTES]) {
  return ks_ed25519_sign_ex(key, KS_ED25519_PURE, nullptr, 0, msg, msg_len, sig);
}

int ks_ed25519_verify(const ks_ed25519_pubkey* key, const uint8_t* msg, size_t msg_len,
                      const uint8_t sig[KS_ED25519_SIGNATURE_BYTES]) {
  return ks_ed25519_verify_ex(key, KS_ED25519_PURE, nullptr, 0, msg, msg_len, sig);
}

// ---- Batches --------------------------------------------------------------------

namespace {

constexpr size_t kLanes = batch::kLanes;
constexpr size_t kItems = batch::kBatchItems;  // keygen and signing groups

// The public keys of n seeds: a group of keys expanded at once.
void public_keys_of(const uint8_t* seeds, const size_t* idx, size_t n, uint8_t* public_keys) {
  ks::ed25519::PrivateKey keys[kItems];
  uint8_t group_seeds[kItems][32];
  const ks::WipeOnExit wipe(group_seeds, sizeof group_seeds);
  for (size_t j = 0; j < n; ++j) memcpy(group_seeds[j], seeds + 32 * idx[j], 32);
  batch::keys_from_seeds(keys, group_seeds, n);
  for (size_t j = 0; j < n; ++j) memcpy(public_keys + 32 * idx[j], keys[j].pub.bytes, 32);
}

// Signs the messages of a group under per-item keys.
void sign_group(const ks::ed25519::PrivateKey* const keys[], const uint8_t* data,
                const uint64_t* offsets, const size_t* idx, size_t n, uint8_t* sigs) {
  const uint8_t* msgs[kItems] = {};
  size_t lens[kItems] = {};
  uint8_t sig[kItems][64];
  for (size_t j = 0; j < n; ++j) {
    msgs[j] = data + offsets[idx[j]];
    lens[j] = size_t(offsets[idx[j] + 1] - offsets[idx[j]]);
  }
  batch::sign(sig, keys, msgs, lens, n);
  for (size_t j = 0; j < n; ++j) memcpy(sigs + 64 * idx[j], sig[j], 64);
}

// Signatures of a batch on the GPU, under one key or per-item seeds.
int sign_on_gpu(ks_ctx* ctx, const ks::ed25519::PrivateKey* key, const uint8_t* seeds,
                const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* sigs,
                int* status) {
  uint8_t device_key[ks::ed25519::kDeviceKeyBytes];
  const ks::WipeOnExit wipe(device_key, sizeof device_key);
  if (key != nullptr) ks::ed25519::device_key_bytes(device_key, *key);
  return ks::api::run_on_gpu_whole(ctx, count, status, [&] {
    return ks::curve25519::gpu::ed25519_sign_batch(
        *ctx->gpu, ks::curve25519::gpu::base_table_of(ctx->gpu_flags),
        key != nullptr ? device_key : nullptr, seeds, data, offsets, count, sigs);
  });
}

// The same with data, offsets, sigs, statuses (and seeds) in device memory
// (kuaisuo/common.h, "Device memory"), queued on the context's stream.
int sign_on_device(ks_ctx* ctx, const ks::ed25519::PrivateKey* key, const uint8_t* seeds,
                   const uint8_t* data, size_t data_len, const uint64_t* offsets, size_t count,
                   uint8_t* sigs, int* status) {
  uint8_t device_key[ks::ed25519::kDeviceKeyBytes];
  const ks::WipeOnExit wipe(device_key, sizeof device_key);
  if (key != nullptr) ks::ed25519::device_key_bytes(device_key, *key);
  return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
    return ks::curve25519::gpu::ed25519_sign_device(
        *ctx->gpu, ks::curve25519::gpu::base_table_of(ctx->gpu_flags),
        key != nullptr ? device_key : nullptr, seeds, data, data_len, offsets, count, sigs,
        status, device_status_map(), ctx->stream);
  });
}

}  // namespace

int ks_ed25519_keygen_batch(ks_ctx* ctx, size_t count, uint8_t* seeds, size_t seeds_len,
                            uint8_t* public_keys, size_t public_keys_len, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = ks::api::check_output(seeds, seeds_len, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(public_keys, public_keys_len, count, 32);
  if (rc != KS_OK) return rc;
  int device_rc = KS_OK;
  if (keys_on_device(ctx, KeyAlg::kEd25519, true, seeds, count, public_keys, status, &device_rc))
    return device_rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinEd25519Sign)) {  // secrets drawn on the device
    rc = ks::api::run_on_gpu_whole(ctx, count, status, [&] {
      return ks::curve25519::gpu::ed25519_keygen_batch(
          *ctx->gpu, ks::curve25519::gpu::base_table_of(ctx->gpu_flags), count, seeds,
          public_keys);
    });
    if (rc != KS_OK) ks::secure_wipe(seeds, 32 * count);
    return rc;
  }
  if (count > 0 && !ks::os_random(seeds, 32 * count)) {
    ks::secure_wipe(seeds, 32 * count);
    memset(public_keys, 0, 32 * count);
    ks::api::fill_status(status, count, KS_ERR_RANDOM);
    return KS_ERR_RANDOM;
  }
  try {
    // A failed batch hands out no seeds.
    rc = ks_ed25519_public_keys_batch(ctx, seeds, count, public_keys, public_keys_len, status);
    if (rc != KS_OK) ks::secure_wipe(seeds, 32 * count);
    return rc;
  } catch (...) {
    ks::secure_wipe(seeds, 32 * count);
    throw;
  }
} KS_API_CATCH

int ks_ed25519_public_keys_batch(ks_ctx* ctx, const uint8_t* seeds, size_t count,
                                 uint8_t* public_keys, size_t public_keys_len, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(seeds, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(public_keys, public_keys_len, count, 32);
  if (rc != KS_OK) return rc;
  int device_rc = KS_OK;
  if (keys_on_device(ctx, KeyAlg::kEd25519, false, const_cast<uint8_t*>(seeds), count,
                     public_keys, status, &device_rc))
    return device_rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinEd25519Sign))
    return ks::api::run_on_gpu_whole(ctx, count, status, [&] {
      return ks::curve25519::gpu::ed25519_public_keys_batch(
          *ctx->gpu, ks::curve25519::gpu::base_table_of(ctx->gpu_flags), seeds, count,
          public_keys);
    });
  std::vector<int> result(count, KS_OK);
  ks::api::run_groups<kItems>(ctx, count, result, [&](const size_t* idx, size_t n) {
    public_keys_of(seeds, idx, n, public_keys);
  });
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_ed25519_sign_batch(ks_ctx* ctx, const ks_ed25519_key* key, const uint8_t* data,
                          size_t data_len, const uint64_t* offsets, size_t count, uint8_t* sigs,
                          size_t sigs_len, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK && key == nullptr) rc = KS_ERR_NULL_POINTER;
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  bool on_device = false;
  if (rc == KS_OK) rc = ks::api::device_buffers(ctx, {data, offsets, sigs, status}, &on_device);
  if (rc == KS_OK && on_device)
    return sign_on_device(ctx, &key->key, nullptr, data, data_len, offsets, count, sigs, status);
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {{sigs, sigs_len}, ks::api::statuses_written(status, count)});
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinEd25519Sign))
    return sign_on_gpu(ctx, &key->key, nullptr, data, offsets, count, sigs, status);
  std::vector<int> result(count, KS_OK);
  ks::api::run_groups<kItems>(ctx, count, result, [&](const size_t* idx, size_t n) {
    const ks::ed25519::PrivateKey* keys[kItems];
    for (size_t j = 0; j < n; ++j) keys[j] = &key->key;
    sign_group(keys, data, offsets, idx, n, sigs);
  });
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_ed25519_sign_batch_keys(ks_ctx* ctx, const uint8_t* seeds, const uint8_t* data,
                               size_t data_len, const uint64_t* offsets, size_t count,
                               uint8_t* sigs, size_t sigs_len, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(seeds, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {seeds, data, offsets, sigs, status}, &on_device);
  if (rc == KS_OK && on_device)
    return sign_on_device(ctx, nullptr, seeds, data, data_len, offsets, count, sigs, status);
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {{sigs, sigs_len}, ks::api::statuses_written(status, count)});
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinEd25519Sign))
    return sign_on_gpu(ctx, nullptr, seeds, data, offsets, count, sigs, status);
  std::vector<int> result(count, KS_OK);
  ks::api::run_groups<kItems>(ctx, count, result, [&](const size_t* idx, size_t n) {
    ks::ed25519::PrivateKey keys[kItems];
    uint8_t group_seeds[kItems][32];
    const ks::WipeOnExit wipe(group_seeds, sizeof group_seeds);
    const ks::ed25519::PrivateKey* key_ptrs[kItems];
    for (size_t j = 0; j < n; ++j) {
      memcpy(group_seeds[j], seeds + 32 * idx[j], 32);
      key_ptrs[j] = &keys[j];
    }
    batch::keys_from_seeds(keys, group_seeds, n);
    sign_group(key_ptrs, data, offsets, idx, n, sigs);
  });
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_ed25519_sign_batch_seeds(ks_ctx* ctx, const uint8_t* seeds, const uint8_t* data,
                                size_t data_len, const uint64_t* offsets, size_t count,
                                uint8_t* sigs, size_t sigs_len, int* status) {
  return ks_ed25519_sign_batch_keys(ctx, seeds, data, data_len, offsets, count, sigs, sigs_len,
                                    status);
}

int ks_ed25519_verify_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* data,
                            size_t data_len, const uint64_t* offsets, size_t count,
                            const uint8_t* sigs, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(public_keys, count, 32);
  if (rc == KS_OK) rc = check_items(sigs, count, 64);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {public_keys, data, offsets, sigs, status}, &on_device);
  if (rc == KS_OK && on_device)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return ks::curve25519::gpu::ed25519_verify_device(*ctx->gpu, public_keys, data, data_len,
                                                        offsets, count, sigs, status,
                                                        device_status_map(), ctx->stream);
    });
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {ks::api::statuses_written(status, count)});
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinEd25519Verify))
    return ks::api::run_on_gpu(
        ctx, count, status,
        [&](int* device) {
          return ks::curve25519::gpu::ed25519_verify_batch(*ctx->gpu, public_keys, data, offsets,
                                                           count, sigs, device);
        },
        [](int e) { return to_status(static_cast<Error>(e)); });
  std::vector<int> result(count, KS_OK);
  ks::api::run_groups<kLanes>(ctx, count, result, [&](const size_t* idx, size_t n) {
    uint8_t keys[kLanes][32], sig[kLanes][64];
    const uint8_t* msgs[kLanes] = {};
    size_t lens[kLanes] = {};
    for (size_t j = 0; j < n; ++j) {
      const size_t i = idx[j];
      memcpy(keys[j], public_keys + 32 * i, 32);
      memcpy(sig[j], sigs + 64 * i, 64);
      msgs[j] = data + offsets[i];
      lens[j] = size_t(offsets[i + 1] - offsets[i]);
    }
    Error err[kLanes];
    batch::verify(err, keys, msgs, lens, sig, n);
    for (size_t j = 0; j < n; ++j) result[idx[j]] = to_status(err[j]);
  });
  return finish_statuses(result, status);
} KS_API_CATCH
