// C entry points for SM3 and HMAC-SM3.
#include <new>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/checks.h"
#include "api/device_memory.h"
#include "core/secure.h"
#include "api/context.h"
#include "sm3/sm3.h"
#include "sm3/sm3_blocks.h"
#include "sm3/sm3_kdf.h"
#include "sm3/gpu/sm3_gpu_batch.h"
#include "api/guard.h"
#include "api/stream_state.h"
#include "kuaisuo/sm3.h"

using ks::api::check_buffer;
using ks::sm3::HmacSm3;
using ks::sm3::Sm3;

namespace {

// The streaming states, tagged as api/stream_state.h says why: a zeroed
// HMAC state would otherwise give tags that do not depend on the key.
struct Sm3State {
  static constexpr uint32_t kTag = 0x534d3368;  // "SM3h"
  uint32_t tag;
  Sm3 h;
  bool consistent() const { return h.consistent(); }
};

struct HmacState {
  static constexpr uint32_t kTag = 0x534d336d;  // "SM3m"
  HmacState(const uint8_t* key, size_t key_len) : h(key, key_len) {}
  uint32_t tag;
  HmacSm3 h;
  bool consistent() const { return h.consistent(); }
};

Sm3State* as_sm3(ks_sm3_ctx* c) { return ks::api::state_of<Sm3State>(c); }
HmacState* as_hmac(ks_hmac_sm3_ctx* c) { return ks::api::state_of<HmacState>(c); }

// Hashes items [begin, end) on this thread, a group of pointers at a time.
void sm3_cpu_range(const uint8_t* data, const uint64_t* offsets, size_t begin, size_t end,
                   uint8_t* digests) {
  constexpr size_t kGroup = 256;  // enough messages to keep 16 SIMD lanes full
  const uint8_t* msgs[kGroup];
  size_t lens[kGroup];
  for (size_t first = begin; first < end; first += kGroup) {
    const size_t n = end - first < kGroup ? end - first : kGroup;
    for (size_t i = 0; i < n; ++i) {
      msgs[i] = data + offsets[first + i];
      lens[i] = size_t(offsets[first + i + 1] - offsets[first + i]);
    }
    ks::sm3::digest_many(msgs, lens, n, reinterpret_cast<uint8_t(*)[32]>(digests + 32 * first));
  }
}

}  // namespace

int ks_sm3_init(ks_sm3_ctx* c) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  ks::api::start_state<Sm3State>(c)->tag = Sm3State::kTag;
  return KS_OK;
} KS_API_CATCH

int ks_sm3_update(ks_sm3_ctx* c, const void* data, size_t len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  Sm3State* s = as_sm3(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  const int rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  s->h.update(static_cast<const uint8_t*>(data), len);
  return KS_OK;
} KS_API_CATCH

int ks_sm3_final(ks_sm3_ctx* c, uint8_t digest[KS_SM3_DIGEST_BYTES]) try {
  if (c == nullptr || digest == nullptr) return KS_ERR_NULL_POINTER;
  Sm3State* s = as_sm3(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  s->h.finish(digest);
  return KS_OK;
} KS_API_CATCH

int ks_sm3(const void* data, size_t len, uint8_t digest[KS_SM3_DIGEST_BYTES]) try {
  if (digest == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  ks::sm3::digest(static_cast<const uint8_t*>(data), len, digest);
  return KS_OK;
} KS_API_CATCH

int ks_sm3_kdf(const uint8_t* z, size_t z_len, uint8_t* out, size_t klen) try {
  int rc = check_buffer(z, z_len);
  if (rc == KS_OK) rc = check_buffer(out, klen);
  if (rc != KS_OK) return rc;
  if (uint64_t(klen) > ks::sm3::kKdfMaxBytes) return KS_ERR_LENGTH;
  if (ks::api::overlap(z, z_len, out, klen)) return KS_ERR_INVALID_ARGUMENT;
  ks::sm3::kdf(z, z_len, out, klen);
  return KS_OK;
} KS_API_CATCH

int ks_hmac_sm3_init(ks_hmac_sm3_ctx* c, const void* key, size_t key_len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(key, key_len);
  if (rc != KS_OK) return rc;
  ks::api::start_state<HmacState>(c, static_cast<const uint8_t*>(key), key_len)->tag =
      HmacState::kTag;
  return KS_OK;
} KS_API_CATCH

int ks_hmac_sm3_update(ks_hmac_sm3_ctx* c, const void* data, size_t len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  HmacState* s = as_hmac(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  const int rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  s->h.update(static_cast<const uint8_t*>(data), len);
  return KS_OK;
} KS_API_CATCH

int ks_hmac_sm3_final(ks_hmac_sm3_ctx* c, uint8_t tag[KS_SM3_DIGEST_BYTES]) try {
  if (c == nullptr || tag == nullptr) return KS_ERR_NULL_POINTER;
  HmacState* s = as_hmac(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  s->h.finish(tag);
  return KS_OK;
} KS_API_CATCH

void ks_hmac_sm3_cleanse(ks_hmac_sm3_ctx* c) {
  if (c != nullptr) ks::secure_wipe(c, sizeof(*c));
}

int ks_hmac_sm3(const void* key, size_t key_len, const void* data, size_t len,
                uint8_t tag[KS_SM3_DIGEST_BYTES]) try {
  if (tag == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_buffer(key, key_len);
  if (rc == KS_OK) rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  ks::sm3::hmac(static_cast<const uint8_t*>(key), key_len, static_cast<const uint8_t*>(data),
                len, tag);
  return KS_OK;
} KS_API_CATCH

int ks_sm3_batch(ks_ctx* ctx, const uint8_t* data, size_t data_len, const uint64_t* offsets,
                 size_t count, uint8_t* digests, size_t digests_len, int* status) try {
  if (ctx == nullptr) return KS_ERR_NULL_POINTER;
  // The output check comes first: it rejects absurd counts before the
  // offsets array is read.
  int rc = ks::api::check_output(digests, digests_len, count, KS_SM3_DIGEST_BYTES);
  bool on_device = false;
  if (rc == KS_OK) rc = ks::api::device_buffers(ctx, {data, offsets, digests, status}, &on_device);
  if (rc == KS_OK && on_device)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return ks::sm3::gpu::digest_device(*ctx->gpu, data, data_len, offsets, count, digests,
                                         status, ctx->stream);
    });
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {{digests, digests_len}, ks::api::statuses_written(status, count)});
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm3Messages))
    return ks::api::run_on_gpu_whole(ctx, count, status, [&] {
      return ks::sm3::gpu::digest_batch(*ctx->gpu, data, offsets, count, digests);
    });
  ctx->pool.parallel_for(count, 256, [&](size_t begin, size_t end) {
    sm3_cpu_range(data, offsets, begin, end, digests);
  });
  ks::api::fill_status(ctx, status, count, KS_OK);
  return KS_OK;
} KS_API_CATCH
