// C entry points for SKINNY-128-256: one-shot, one buffer over the
// context's threads or its GPU, tweak per block, streaming CTR and
// batches, all on the constant-time code of skinny/skinny128_256.h through
// modes.h (and skinny/gpu/skinny_gpu.h's bitsliced kernel on the GPU).
#include <new>
#include <string.h>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/checks.h"
#include "api/cipher_buffer.h"
#include "api/device_memory.h"
#include "api/guard.h"
#include "api/stream_state.h"
#include "cipher/modes.h"
#include "skinny/skinny128_256.h"
#include "skinny/gpu/skinny_gpu.h"
#include "core/secure.h"
#include "api/context.h"
#include "kuaisuo/skinny.h"

using ks::api::check_buffer;
namespace skinny = ks::skinny;

namespace {

constexpr size_t kBlock = KS_SKINNY_BLOCK_BYTES;

// The mode and its iv: CTR takes a 16-byte first counter block, ECB none.
int check_mode_iv(int mode, const uint8_t* iv, size_t iv_len) {
  if (mode == KS_SKINNY_ECB) return iv_len == 0 ? KS_OK : KS_ERR_LENGTH;
  if (mode != KS_SKINNY_CTR) return KS_ERR_INVALID_ARGUMENT;
  if (iv == nullptr) return KS_ERR_NULL_POINTER;
  return iv_len == kBlock ? KS_OK : KS_ERR_LENGTH;
}

int check_buffer_args(int mode, const uint8_t* tweakey, const uint8_t* iv, size_t iv_len,
                      const uint8_t* in, size_t len, const uint8_t* out) {
  if (tweakey == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_mode_iv(mode, iv, iv_len);
  if (rc == KS_OK) rc = check_buffer(in, len);
  if (rc == KS_OK) rc = check_buffer(out, len);
  if (rc == KS_OK && mode == KS_SKINNY_ECB && len % kBlock != 0) rc = KS_ERR_LENGTH;
  return rc;
}

// An expanded tweakey wiped when it goes out of scope.
struct ScopedKey {
  explicit ScopedKey(const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES]) {
    skinny::set_key(&k, tweakey);
  }
  ~ScopedKey() { skinny::wipe_key(&k); }
  skinny::Key k;
};

const uint8_t* counter_of(int mode, const uint8_t* iv) {
  return mode == KS_SKINNY_CTR ? iv : nullptr;
}

// The GPU part of ks_skinny128_256_crypt_buffer: the whole blocks there, a
// partial last CTR block on this thread.
int crypt_buffer_on_gpu(ks_ctx* ctx, const skinny::Key& k, bool encrypt, const uint8_t* counter,
                        const uint8_t* in, size_t len, uint8_t* out) {
  const size_t blocks = len / kBlock;
  if (blocks != 0) {
    const int rc = ks::api::run_on_gpu_whole(ctx, 0, nullptr, [&] {
      return ks::skinny::gpu::crypt_buffer(*ctx->gpu, k.rtk, counter, in, out, blocks, encrypt);
    });
    if (rc != KS_OK) return rc;
  }
  if (len % kBlock != 0)
    ks::api::crypt_range(skinny::block_cipher(), &k, true, counter, in, out, len, blocks,
                         blocks + 1);
  return KS_OK;
}

// Tagged and checked as api/stream_state.h says why: a zeroed state once
// encrypted under an all-zero key schedule, a 0xFF-filled one read past
// the keystream block (issue 42).
struct CtrStream {
  static constexpr uint32_t kTag = 0x534b7963;  // "SKyc"
  uint32_t tag;
  skinny::Key key;
  ks::modes::StreamState state;
  bool consistent() const { return ks::modes::stream_consistent(state); }
};

}  // namespace

int ks_skinny128_256_crypt(int mode, int encrypt, const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES],
                           const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t len,
                           uint8_t* out) try {
  const int rc = check_buffer_args(mode, tweakey, iv, iv_len, in, len, out);
  if (rc != KS_OK || len == 0) return rc;
  const ScopedKey key(tweakey);
  ks::api::crypt_range(skinny::block_cipher(), &key.k, encrypt != 0, counter_of(mode, iv), in,
                       out, len, 0, (len + kBlock - 1) / kBlock);
  return KS_OK;
} KS_API_CATCH

int ks_skinny128_256_crypt_buffer(ks_ctx* ctx, int mode, int encrypt,
                                  const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES],
                                  const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t len,
                                  uint8_t* out) try {
  if (ctx == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_buffer_args(mode, tweakey, iv, iv_len, in, len, out);
  if (rc != KS_OK) return rc;
  bool on_device = false;
  rc = ks::api::device_buffers(ctx, {in, out}, &on_device);
  if (rc != KS_OK) return rc;
  const ScopedKey key(tweakey);
  const uint8_t* counter = counter_of(mode, iv);
  if (on_device)
    return ks::skinny::gpu::crypt_device(*ctx->gpu, key.k.rtk, counter, in, out, len,
                                         encrypt != 0, ctx->stream);
  const size_t auto_gpu_min = ks::api::auto_gpu_min_bytes(
      in, out, ks::api::kAutoGpuMinSkinnyPinnedBytes, ks::api::kAutoGpuMinSkinnyPageableBytes);
  if (ctx->use_gpu(len, auto_gpu_min))
    return crypt_buffer_on_gpu(ctx, key.k, encrypt != 0, counter, in, len, out);
  // Threads take 64 blocks or more each: SKINNY costs ~50x SM4 per block
  // on the portable path, so the hand-off pays for itself early.
  ctx->pool.parallel_for((len + kBlock - 1) / kBlock, 64, [&](size_t begin, size_t end) {
    ks::api::crypt_range(skinny::block_cipher(), &key.k, encrypt != 0, counter, in, out, len,
                         begin, end);
  });
  return KS_OK;
} KS_API_CATCH

int ks_skinny128_256_tweaked_blocks(int encrypt, const uint8_t key[16], const uint8_t* tweaks,
                                    const uint8_t* in, uint8_t* out, size_t nblocks) try {
  if (nblocks == 0) return KS_OK;
  if (key == nullptr || tweaks == nullptr || in == nullptr || out == nullptr)
    return KS_ERR_NULL_POINTER;
  if (nblocks > SIZE_MAX / kBlock) return KS_ERR_OVERFLOW;
  uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES] = {};  // 0^128 || TK2, TK2 the key
  const ks::WipeOnExit wipe(tweakey, sizeof tweakey);
  memcpy(tweakey + 16, key, 16);
  const ScopedKey k2(tweakey);
  skinny::tweaked_blocks(k2.k, encrypt != 0, tweaks, in, out, nblocks);
  return KS_OK;
} KS_API_CATCH

int ks_skinny128_256_ctr_init(ks_skinny_ctr_ctx* c, const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES],
                              const uint8_t iv[KS_SKINNY_BLOCK_BYTES]) try {
  if (c == nullptr || tweakey == nullptr || iv == nullptr) return KS_ERR_NULL_POINTER;
  auto* s = ks::api::start_state<CtrStream>(c);
  skinny::set_key(&s->key, tweakey);
  ks::modes::stream_init(&s->state, iv);
  s->tag = CtrStream::kTag;
  return KS_OK;
} KS_API_CATCH

int ks_skinny128_256_ctr_update(ks_skinny_ctr_ctx* c, const uint8_t* in, size_t len,
                                uint8_t* out) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  CtrStream* s = ks::api::state_of<CtrStream>(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  int rc = check_buffer(in, len);
  if (rc == KS_OK) rc = check_buffer(out, len);
  if (rc != KS_OK) return rc;
  ks::modes::ctr_crypt(skinny::block_cipher(), &s->key, &s->state, in, out, len);
  return KS_OK;
} KS_API_CATCH

void ks_skinny128_256_ctr_cleanse(ks_skinny_ctr_ctx* c) {
  if (c != nullptr) ks::secure_wipe(c, sizeof *c);
}

int ks_skinny128_256_batch(ks_ctx* ctx, int mode, int encrypt, const uint8_t* tweakeys,
                           const uint8_t* ivs, const uint8_t* data, size_t data_len,
                           const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                           int* status) try {
  int rc = ks::api::check_ctx(ctx);
  if (rc == KS_OK && mode != KS_SKINNY_ECB && mode != KS_SKINNY_CTR) rc = KS_ERR_INVALID_ARGUMENT;
  if (rc == KS_OK) rc = ks::api::check_items(tweakeys, count, KS_SKINNY_TWEAKEY_BYTES);
  if (rc == KS_OK && mode == KS_SKINNY_CTR) rc = ks::api::check_items(ivs, count, kBlock);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {tweakeys, ivs, data, offsets, out, status}, &on_device);
  if (rc == KS_OK && on_device) {
    if (out == nullptr && out_len != 0) return KS_ERR_NULL_POINTER;
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return ks::skinny::gpu::crypt_messages_device(*ctx->gpu, mode == KS_SKINNY_CTR, encrypt != 0,
                                                    tweakeys, ivs, data, data_len, offsets, count,
                                                    out, out_len, status, ctx->stream);
    });
  }
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {{out, out_len}, ks::api::statuses_written(status, count)});
  if (rc == KS_OK) rc = check_buffer(out, out_len);
  if (rc == KS_OK && count != 0 && out_len < offsets[count]) rc = KS_ERR_LENGTH;
  if (rc != KS_OK) return rc;
  return ks::api::run_items(ctx, count, 16, status, [&](size_t i) {
    const size_t begin = size_t(offsets[i]), len = size_t(offsets[i + 1] - offsets[i]);
    const uint8_t* iv = mode == KS_SKINNY_CTR ? ivs + kBlock * i : nullptr;
    return ks_skinny128_256_crypt(mode, encrypt, tweakeys + KS_SKINNY_TWEAKEY_BYTES * i, iv,
                                  iv == nullptr ? 0 : kBlock, data + begin, len, out + begin);
  });
} KS_API_CATCH
