// C entry points for SM3 and HMAC-SM3.
#include <new>

#include "api/batch.h"
#include "api/checks.h"
#include "core/secure.h"
#include "engine/context.h"
#include "hash/sm3.h"
#include "hash/sm3_blocks.h"
#include "hash/sm3_gpu_batch.h"
#include "api/guard.h"
#include "kuaisuo.h"

using ks::api::check_buffer;
using ks::sm3::HmacSm3;
using ks::sm3::Sm3;

static_assert(sizeof(Sm3) <= sizeof(ks_sm3_ctx), "ks_sm3_ctx too small");
static_assert(alignof(Sm3) <= alignof(ks_sm3_ctx), "ks_sm3_ctx misaligned");
static_assert(sizeof(HmacSm3) <= sizeof(ks_hmac_sm3_ctx), "ks_hmac_sm3_ctx too small");
static_assert(alignof(HmacSm3) <= alignof(ks_hmac_sm3_ctx), "ks_hmac_sm3_ctx misaligned");

namespace {

Sm3* as_sm3(ks_sm3_ctx* c) { return reinterpret_cast<Sm3*>(c->opaque); }
HmacSm3* as_hmac(ks_hmac_sm3_ctx* c) { return reinterpret_cast<HmacSm3*>(c->opaque); }

// Below this many messages an AUTO context hashes on the CPU: the copies to
// and from the device cost more than the CPU needs. Measured with 64-byte
// messages on an H100 next to 16 Xeon threads (x16 AVX-512 multi-buffer):
// the CPU leads up to 2^18 messages, the GPU from 2^20
// (bench/results/h100-sweep-2026-11-22.txt).
constexpr size_t kAutoGpuMinMessages = size_t(1) << 19;

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
  new (c->opaque) Sm3();
  return KS_OK;
} KS_API_CATCH

int ks_sm3_update(ks_sm3_ctx* c, const void* data, size_t len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  as_sm3(c)->update(static_cast<const uint8_t*>(data), len);
  return KS_OK;
} KS_API_CATCH

int ks_sm3_final(ks_sm3_ctx* c, uint8_t digest[KS_SM3_DIGEST_BYTES]) try {
  if (c == nullptr || digest == nullptr) return KS_ERR_NULL_POINTER;
  as_sm3(c)->finish(digest);
  return KS_OK;
} KS_API_CATCH

int ks_sm3(const void* data, size_t len, uint8_t digest[KS_SM3_DIGEST_BYTES]) try {
  if (digest == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  ks::sm3::digest(static_cast<const uint8_t*>(data), len, digest);
  return KS_OK;
} KS_API_CATCH

int ks_hmac_sm3_init(ks_hmac_sm3_ctx* c, const void* key, size_t key_len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(key, key_len);
  if (rc != KS_OK) return rc;
  new (c->opaque) HmacSm3(static_cast<const uint8_t*>(key), key_len);
  return KS_OK;
} KS_API_CATCH

int ks_hmac_sm3_update(ks_hmac_sm3_ctx* c, const void* data, size_t len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_buffer(data, len);
  if (rc != KS_OK) return rc;
  as_hmac(c)->update(static_cast<const uint8_t*>(data), len);
  return KS_OK;
} KS_API_CATCH

int ks_hmac_sm3_final(ks_hmac_sm3_ctx* c, uint8_t tag[KS_SM3_DIGEST_BYTES]) try {
  if (c == nullptr || tag == nullptr) return KS_ERR_NULL_POINTER;
  as_hmac(c)->finish(tag);
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
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::copy_offsets(ctx, data, data_len, &offsets, count, &offsets_copy);
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, kAutoGpuMinMessages))
    return ks::api::run_on_gpu_whole(ctx, count, status, [&] {
      return ks::sm3::gpu_batch(*ctx->gpu, data, offsets, count, digests);
    });
  ctx->pool.parallel_for(count, 256, [&](size_t begin, size_t end) {
    sm3_cpu_range(data, offsets, begin, end, digests);
  });
  ks::api::fill_status(ctx, status, count, KS_OK);
  return KS_OK;
} KS_API_CATCH
