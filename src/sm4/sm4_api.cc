// C entry points for SM4: one-shot, streaming and batch calls over the
// modes of src/cipher (modes.h, gcm.h).
#include <string.h>

#include <algorithm>
#include <new>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/device_memory.h"
#include "api/cipher_buffer.h"
#include "api/checks.h"
#include "api/guard.h"
#include "api/objects.h"
#include "api/stream_state.h"
#include "cipher/gcm.h"
#include "cipher/modes.h"
#include "sm4/sm4.h"
#include "sm4/sm4_blocks.h"
#include "sm4/gpu/sm4_gpu_batch.h"
#include "sm4/gpu/sm4_gpu_messages.h"
#include "core/cpu_features.h"
#include "core/secure.h"
#include "sm4/sm4_formats.h"
#include "api/context.h"
#include "gpu/gpu.h"
#include "kuaisuo/sm4.h"

using ks::api::check_buffer;
using ks::modes::Mode;

namespace {

constexpr size_t kBlock = KS_SM4_BLOCK_BYTES;

// What the streaming structs hold, tagged and checked as
// api/stream_state.h says why. The key's variant is a pointer to the
// block functions: called through only if it is one of the table's.
bool key_consistent(const ks::sm4::Key& k) {
  return ks::is_usable_variant(k.variant, ks::sm4::variants);
}

struct Sm4Stream {
  static constexpr uint32_t kTag = 0x534d3473;  // "SM4s"
  uint32_t tag;
  ks::sm4::Key key;
  ks::modes::Stream stream;
  bool consistent() const { return key_consistent(key) && stream.consistent(); }
};

struct Sm4GcmStream {
  static constexpr uint32_t kTag = 0x534d3467;  // "SM4g"
  uint32_t tag;
  uint8_t encrypt;  // 0 or 1; a byte, as a bool of another value is UB to load
  ks::sm4::Key key;
  ks::gcm::Gcm gcm;
  bool consistent() const { return encrypt <= 1 && key_consistent(key) && gcm.consistent(); }
};

Sm4Stream* as_stream(ks_sm4_ctx* c) { return ks::api::state_of<Sm4Stream>(c); }
Sm4GcmStream* as_gcm(ks_sm4_gcm_ctx* c) { return ks::api::state_of<Sm4GcmStream>(c); }

bool is_block_mode(int mode) { return mode == KS_SM4_ECB || mode == KS_SM4_CBC; }

// The non-GCM modes and their IV rule: none for ECB, 16 bytes otherwise.
int check_mode_iv(int mode, uint32_t flags, const uint8_t* iv, size_t iv_len) {
  if (mode < KS_SM4_ECB || mode > KS_SM4_CTR) return KS_ERR_INVALID_ARGUMENT;
  if ((flags & ~KS_SM4_PAD_PKCS7) != 0) return KS_ERR_INVALID_ARGUMENT;
  if ((flags & KS_SM4_PAD_PKCS7) != 0 && !is_block_mode(mode)) return KS_ERR_INVALID_ARGUMENT;
  if (mode == KS_SM4_ECB) return iv_len == 0 ? KS_OK : KS_ERR_LENGTH;
  if (iv == nullptr) return KS_ERR_NULL_POINTER;
  return iv_len == kBlock ? KS_OK : KS_ERR_LENGTH;
}

int check_gcm_args(const uint8_t* key, const uint8_t* iv, size_t iv_len, const uint8_t* aad,
                   size_t aad_len, const uint8_t* in, size_t len, const void* out,
                   const uint8_t* tag, size_t tag_len) {
  if (key == nullptr || iv == nullptr || tag == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_buffer(aad, aad_len);
  if (rc == KS_OK) rc = check_buffer(in, len);
  if (rc == KS_OK) rc = check_buffer(out, len);
  if (rc != KS_OK) return rc;
  if (!ks::gcm::valid_iv_length(iv_len) || !ks::gcm::valid_tag_length(tag_len) ||
      uint64_t(len) > ks::gcm::kMaxTextBytes || uint64_t(aad_len) > ks::gcm::kMaxAadBytes)
    return KS_ERR_LENGTH;
  return KS_OK;
}

// The output length of a one-shot call, or KS_ERR_LENGTH for input lengths
// the mode cannot take.
int output_length(int mode, bool encrypt, bool pad, size_t in_len, size_t* needed) {
  *needed = in_len;
  if (!is_block_mode(mode)) return KS_OK;
  if (!pad || !encrypt) {
    if (in_len % kBlock != 0 || (pad && in_len == 0)) return KS_ERR_LENGTH;
    return KS_OK;
  }
  if (in_len > SIZE_MAX - kBlock) return KS_ERR_OVERFLOW;
  *needed = in_len / kBlock * kBlock + kBlock;
  return KS_OK;
}

int status_of(ks::modes::Status st) {
  switch (st) {
    case ks::modes::Status::kOk: return KS_OK;
    case ks::modes::Status::kBadPadding: return KS_ERR_BAD_PADDING;
    case ks::modes::Status::kPartialBlock: return KS_ERR_LENGTH;
  }
  return KS_ERR_INTERNAL;
}

// One message without padding under an expanded key, through the
// whole-message functions of modes.h (no streaming state to set up).
// Block modes need whole blocks.
int crypt_unpadded(const ks::sm4::Key& k, int mode, bool encrypt, const uint8_t* iv,
                   const uint8_t* in, size_t len, uint8_t* out) {
  if (is_block_mode(mode) && len % kBlock != 0) return KS_ERR_LENGTH;
  const auto& bc = ks::sm4::block_cipher();
  if (mode == KS_SM4_ECB) {  // no state: nothing to set up or wipe
    encrypt ? ks::modes::ecb_encrypt(bc, &k, in, out, len)
            : ks::modes::ecb_decrypt(bc, &k, in, out, len);
    return KS_OK;
  }
  uint8_t chain[kBlock];
  ks::modes::StreamState st;
  const ks::WipeOnExit wipe_chain(chain, sizeof chain), wipe_state(&st, sizeof st);
  switch (mode) {
    case KS_SM4_CBC:
      memcpy(chain, iv, kBlock);
      encrypt ? ks::modes::cbc_encrypt(bc, &k, chain, in, out, len)
              : ks::modes::cbc_decrypt(bc, &k, chain, in, out, len);
      return KS_OK;
    case KS_SM4_CFB:
      ks::modes::stream_init(&st, iv);
      encrypt ? ks::modes::cfb_encrypt(bc, &k, &st, in, out, len)
              : ks::modes::cfb_decrypt(bc, &k, &st, in, out, len);
      return KS_OK;
    case KS_SM4_OFB:
      ks::modes::stream_init(&st, iv);
      ks::modes::ofb_crypt(bc, &k, &st, in, out, len);
      return KS_OK;
    case KS_SM4_CTR:
      ks::modes::stream_init(&st, iv);
      ks::modes::ctr_crypt(bc, &k, &st, in, out, len);
      return KS_OK;
  }
  return KS_ERR_INVALID_ARGUMENT;
}

// The checks of a one-shot call: *needed is the output length.
int check_one_shot(bool encrypt, int mode, uint32_t flags, const uint8_t* iv, size_t iv_len,
                   const uint8_t* in, size_t in_len, const uint8_t* out, size_t out_cap,
                   size_t* out_len, size_t* needed) {
  if (out_len == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_mode_iv(mode, flags, iv, iv_len);
  if (rc == KS_OK) rc = check_buffer(in, in_len);
  if (rc == KS_OK)
    rc = output_length(mode, encrypt, (flags & KS_SM4_PAD_PKCS7) != 0, in_len, needed);
  if (rc != KS_OK) return rc;
  *out_len = *needed;
  if (*needed != 0 && (out == nullptr || out_cap < *needed)) return KS_ERR_LENGTH;
  return KS_OK;
}

// A checked one-shot call under an expanded key.
int one_shot_under(const ks::sm4::Key& k, bool encrypt, int mode, uint32_t flags,
                   const uint8_t* iv, const uint8_t* in, size_t in_len, uint8_t* out,
                   size_t needed, size_t* out_len) {
  const bool pad = (flags & KS_SM4_PAD_PKCS7) != 0;
  if (!pad) return crypt_unpadded(k, mode, encrypt, iv, in, in_len, out);
  ks::modes::Stream s;
  const ks::WipeOnExit wipe_stream(&s, sizeof s);
  s.init(Mode(mode), encrypt, pad, iv);
  const auto& bc = ks::sm4::block_cipher();
  size_t written = in_len == 0 ? 0 : s.update(bc, &k, in, in_len, out);
  size_t last = 0;
  const int rc = status_of(s.finish(bc, &k, out + written, &last));
  *out_len = rc == KS_OK ? written + last : 0;
  if (rc != KS_OK) ks::secure_wipe(out, needed);  // no partial plaintext
  return rc;
}

int one_shot(bool encrypt, int mode, uint32_t flags, const uint8_t* key, const uint8_t* iv,
             size_t iv_len, const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap,
             size_t* out_len) {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  size_t needed = 0;
  const int rc = check_one_shot(encrypt, mode, flags, iv, iv_len, in, in_len, out, out_cap,
                                out_len, &needed);
  if (rc != KS_OK) return rc;
  ks::sm4::Key k;
  const ks::WipeOnExit wipe_key(&k, sizeof k);
  ks::sm4::set_key(&k, key);
  return one_shot_under(k, encrypt, mode, flags, iv, in, in_len, out, needed, out_len);
}

// One batch item on the calling thread.
int batch_item(int mode, bool encrypt, const uint8_t* key_bytes, const uint8_t* iv,
               size_t iv_len, const uint8_t* in, size_t len, uint8_t* out, const uint8_t* aad,
               size_t aad_len, uint8_t* tag, size_t tag_len) {
  if (is_block_mode(mode) && len % kBlock != 0) return KS_ERR_LENGTH;
  ks::sm4::Key k;
  const ks::WipeOnExit wipe_key(&k, sizeof k);
  ks::sm4::set_key(&k, key_bytes);
  if (mode != KS_SM4_GCM) return crypt_unpadded(k, mode, encrypt, iv, in, len, out);
  if (uint64_t(len) > ks::gcm::kMaxTextBytes) return KS_ERR_LENGTH;
  const auto& bc = ks::sm4::block_cipher();
  if (encrypt)
    return ks::gcm::seal(bc, &k, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len)
               ? KS_OK
               : KS_ERR_LENGTH;
  return ks::gcm::open(bc, &k, iv, iv_len, aad, aad_len, in, len, tag, tag_len, out)
             ? KS_OK
             : KS_ERR_TAG_MISMATCH;
}

// The batch's offsets and AAD offsets: the copies api/batch.h makes.
struct BatchOffsets {
  ks::api::OffsetsCopy data, aad;
};

// Checks a batch's arguments; on KS_OK *offsets and *aad_offsets (when not
// null) point to their copies in copies.
// What ks_sm4_batch checks before it looks at any array.
int check_batch_arguments(const ks_ctx* ctx, int mode, uint32_t flags, size_t iv_len) {
  const int rc = ks::api::check_ctx(ctx);
  if (rc != KS_OK) return rc;
  if (mode < KS_SM4_ECB || mode > KS_SM4_GCM || flags != 0) return KS_ERR_INVALID_ARGUMENT;
  if (mode == KS_SM4_ECB ? iv_len != 0
                         : mode == KS_SM4_GCM ? !ks::gcm::valid_iv_length(iv_len) : iv_len != kBlock)
    return KS_ERR_LENGTH;
  return KS_OK;
}

int check_batch(ks_ctx* ctx, int mode, uint32_t flags, const uint8_t* keys, const uint8_t* ivs,
                size_t iv_len, const uint8_t* data, size_t data_len, const uint64_t** offsets,
                size_t count, const uint8_t* out, size_t out_len, const uint8_t* aad,
                size_t aad_len, const uint64_t** aad_offsets, const uint8_t* tags,
                size_t tag_len, const int* status, BatchOffsets* copies) {
  int rc = check_batch_arguments(ctx, mode, flags, iv_len);
  if (rc != KS_OK) return rc;
  rc = ks::api::check_items(keys, count, KS_SM4_KEY_BYTES);
  if (rc == KS_OK && iv_len != 0) rc = ks::api::check_items(ivs, count, iv_len);
  // tags: written when GCM encrypts (their length checked below, before use).
  const bool tags_fit = tag_len <= KS_SM4_GCM_TAG_BYTES && count <= SIZE_MAX / KS_SM4_GCM_TAG_BYTES;
  const ks::api::Written tags_written{tags, tags_fit ? count * tag_len : 0};
  const std::initializer_list<ks::api::Written> written{
      {out, out_len}, tags_written, ks::api::statuses_written(status, count)};
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, offsets, count, &copies->data, written);
  if (rc == KS_OK) rc = check_buffer(out, out_len);
  if (rc != KS_OK) return rc;
  if (count != 0 && out_len < (*offsets)[count]) return KS_ERR_LENGTH;
  if (mode != KS_SM4_GCM) return KS_OK;
  if (!ks::gcm::valid_tag_length(tag_len)) return KS_ERR_LENGTH;
  rc = ks::api::check_items(tags, count, tag_len);
  if (rc == KS_OK && *aad_offsets != nullptr)
    rc = ks::api::checked_offsets(ctx, aad, aad_len, aad_offsets, count, &copies->aad, written);
  return rc;
}

}  // namespace

int ks_sm4_crypt(int mode, int encrypt, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                 const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                 uint8_t* out, size_t out_cap, size_t* out_len) try {
  return one_shot(encrypt != 0, mode, flags, key, iv, iv_len, in, in_len, out, out_cap,
                  out_len);
} KS_API_CATCH

int ks_sm4_encrypt(int mode, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                   const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                   uint8_t* out, size_t out_cap, size_t* out_len) {
  return ks_sm4_crypt(mode, KS_ENCRYPT, flags, key, iv, iv_len, in, in_len, out, out_cap,
                      out_len);
}

int ks_sm4_decrypt(int mode, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                   const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                   uint8_t* out, size_t out_cap, size_t* out_len) {
  return ks_sm4_crypt(mode, KS_DECRYPT, flags, key, iv, iv_len, in, in_len, out, out_cap,
                      out_len);
}

namespace {

struct Sm4Schedule {
  static constexpr uint32_t kTag = 0x534d346b;  // "SM4k"
  uint32_t tag;
  ks::sm4::Key key;
  bool consistent() const { return key_consistent(key); }
};

const Sm4Schedule* as_schedule(const ks_sm4_schedule* s) {
  return ks::api::state_of<const Sm4Schedule>(s);
}

}  // namespace

int ks_sm4_schedule_init(ks_sm4_schedule* s, const uint8_t key[KS_SM4_KEY_BYTES]) try {
  if (s == nullptr || key == nullptr) return KS_ERR_NULL_POINTER;
  Sm4Schedule* state = ks::api::start_state<Sm4Schedule>(s);
  ks::sm4::set_key(&state->key, key);
  state->tag = Sm4Schedule::kTag;
  return KS_OK;
} KS_API_CATCH

int ks_sm4_schedule_crypt(const ks_sm4_schedule* s, int mode, int encrypt, uint32_t flags,
                          const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                          uint8_t* out, size_t out_cap, size_t* out_len) try {
  if (s == nullptr) return KS_ERR_NULL_POINTER;
  const Sm4Schedule* state = as_schedule(s);
  if (state == nullptr) return KS_ERR_INVALID_ARGUMENT;
  size_t needed = 0;
  const int rc = check_one_shot(encrypt != 0, mode, flags, iv, iv_len, in, in_len, out, out_cap,
                                out_len, &needed);
  if (rc != KS_OK) return rc;
  return one_shot_under(state->key, encrypt != 0, mode, flags, iv, in, in_len, out, needed,
                        out_len);
} KS_API_CATCH

void ks_sm4_schedule_cleanse(ks_sm4_schedule* s) {
  if (s != nullptr) ks::secure_wipe(s, sizeof(*s));
}

int ks_sm4_gcm_seal(const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv, size_t iv_len,
                    const uint8_t* aad, size_t aad_len, const uint8_t* in, size_t len,
                    uint8_t* out, uint8_t* tag, size_t tag_len) try {
  const int rc = check_gcm_args(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
  if (rc != KS_OK) return rc;
  ks::sm4::Key k;
  const ks::WipeOnExit wipe(&k, sizeof k);
  ks::sm4::set_key(&k, key);
  return ks::gcm::seal(ks::sm4::block_cipher(), &k, iv, iv_len, aad, aad_len, in, len, out, tag,
                       tag_len)
             ? KS_OK
             : KS_ERR_LENGTH;
} KS_API_CATCH

int ks_sm4_gcm_open(const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv, size_t iv_len,
                    const uint8_t* aad, size_t aad_len, const uint8_t* in, size_t len,
                    const uint8_t* tag, size_t tag_len, uint8_t* out) try {
  const int rc = check_gcm_args(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
  if (rc != KS_OK) return rc;
  ks::sm4::Key k;
  const ks::WipeOnExit wipe(&k, sizeof k);
  ks::sm4::set_key(&k, key);
  return ks::gcm::open(ks::sm4::block_cipher(), &k, iv, iv_len, aad, aad_len, in, len, tag,
                       tag_len, out)
             ? KS_OK
             : KS_ERR_TAG_MISMATCH;
} KS_API_CATCH

int ks_sm4_key_encode(const uint8_t key[KS_SM4_KEY_BYTES], int pem, uint8_t* out,
                      size_t out_cap, size_t* out_len) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  return ks::api::emit_der_or_pem(ks::sm4_formats::pkcs8_encode(key), pem, "PRIVATE KEY", out,
                                  out_cap, out_len);
} KS_API_CATCH

int ks_sm4_key_decode(const uint8_t* in, size_t in_len, uint8_t key[KS_SM4_KEY_BYTES]) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  int rc = check_buffer(in, in_len);
  if (rc != KS_OK) return rc;
  ks::Bytes der;  // wipes itself
  rc = ks::api::unwrap_pkcs8(in, in_len, &der);
  if (rc != KS_OK) return rc;
  return ks::sm4_formats::pkcs8_decode(der.data(), der.size(), key);
} KS_API_CATCH

int ks_sm4_init(ks_sm4_ctx* c, int mode, int encrypt, uint32_t flags,
                const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv, size_t iv_len) try {
  if (c == nullptr || key == nullptr) return KS_ERR_NULL_POINTER;
  const int rc = check_mode_iv(mode, flags, iv, iv_len);
  if (rc != KS_OK) return rc;
  auto* s = ks::api::start_state<Sm4Stream>(c);
  ks::sm4::set_key(&s->key, key);
  s->stream.init(Mode(mode), encrypt != 0, (flags & KS_SM4_PAD_PKCS7) != 0, iv);
  s->tag = Sm4Stream::kTag;
  return KS_OK;
} KS_API_CATCH

int ks_sm4_update(ks_sm4_ctx* c, const uint8_t* in, size_t len, uint8_t* out, size_t out_cap,
                  size_t* out_len) try {
  if (c == nullptr || out_len == nullptr) return KS_ERR_NULL_POINTER;
  Sm4Stream* s = as_stream(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  int rc = check_buffer(in, len);
  if (rc != KS_OK) return rc;
  if (len == 0) {
    *out_len = 0;
    return KS_OK;
  }
  if (out == nullptr) return KS_ERR_NULL_POINTER;
  // The bound, not the exact count (what is buffered decides the latter).
  if (out_cap < s->stream.output_bound(len)) return KS_ERR_LENGTH;
  *out_len = s->stream.update(ks::sm4::block_cipher(), &s->key, in, len, out);
  return KS_OK;
} KS_API_CATCH

int ks_sm4_final(ks_sm4_ctx* c, uint8_t* out, size_t out_cap, size_t* out_len) try {
  if (c == nullptr || out_len == nullptr) return KS_ERR_NULL_POINTER;
  Sm4Stream* s = as_stream(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  uint8_t last[kBlock];
  size_t n = 0;
  int rc = status_of(s->stream.finish(ks::sm4::block_cipher(), &s->key, last, &n));
  *out_len = 0;
  if (rc == KS_OK && n != 0) {
    if (out == nullptr) {
      rc = KS_ERR_NULL_POINTER;
    } else if (out_cap < n) {
      rc = KS_ERR_LENGTH;
    } else {
      memcpy(out, last, n);
      *out_len = n;
    }
  }
  // Bad padding means a wrong key or damaged ciphertext: whatever out held
  // where the last block would go is zeroed, as the one-shot call zeroes
  // all it may have written, so that no caller reads a stale or partial
  // block as the message's end.
  if (rc == KS_ERR_BAD_PADDING && out != nullptr)
    ks::secure_wipe(out, std::min(out_cap, kBlock));
  ks::secure_wipe(last, sizeof last);
  ks_sm4_cleanse(c);
  return rc;
} KS_API_CATCH

void ks_sm4_cleanse(ks_sm4_ctx* c) {
  if (c != nullptr) ks::secure_wipe(c, sizeof(*c));
}

int ks_sm4_gcm_init(ks_sm4_gcm_ctx* c, int encrypt, const uint8_t key[KS_SM4_KEY_BYTES],
                    const uint8_t* iv, size_t iv_len) try {
  if (c == nullptr || key == nullptr || iv == nullptr) return KS_ERR_NULL_POINTER;
  if (!ks::gcm::valid_iv_length(iv_len)) return KS_ERR_LENGTH;
  auto* s = ks::api::start_state<Sm4GcmStream>(c);
  s->encrypt = encrypt != 0;
  ks::sm4::set_key(&s->key, key);
  s->gcm.init(ks::sm4::block_cipher(), &s->key, iv, iv_len);
  s->tag = Sm4GcmStream::kTag;
  return KS_OK;
} KS_API_CATCH

int ks_sm4_gcm_aad(ks_sm4_gcm_ctx* c, const uint8_t* aad, size_t len) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  Sm4GcmStream* s = as_gcm(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  const int rc = check_buffer(aad, len);
  if (rc != KS_OK) return rc;
  // Refused after the text has begun (GCM hashes the AAD first) or past
  // the AAD limit.
  return s->gcm.aad(aad, len) ? KS_OK : KS_ERR_INVALID_ARGUMENT;
} KS_API_CATCH

int ks_sm4_gcm_update(ks_sm4_gcm_ctx* c, const uint8_t* in, size_t len, uint8_t* out) try {
  if (c == nullptr) return KS_ERR_NULL_POINTER;
  Sm4GcmStream* s = as_gcm(c);
  if (s == nullptr) return KS_ERR_INVALID_ARGUMENT;
  int rc = check_buffer(in, len);
  if (rc == KS_OK) rc = check_buffer(out, len);
  if (rc != KS_OK) return rc;
  const auto& bc = ks::sm4::block_cipher();
  const bool ok = s->encrypt ? s->gcm.encrypt(bc, &s->key, in, out, len)
                             : s->gcm.decrypt(bc, &s->key, in, out, len);
  return ok ? KS_OK : KS_ERR_LENGTH;
} KS_API_CATCH

int ks_sm4_gcm_final(ks_sm4_gcm_ctx* c, uint8_t* tag, size_t tag_len) try {
  if (c == nullptr || tag == nullptr) return KS_ERR_NULL_POINTER;
  Sm4GcmStream* s = as_gcm(c);
  if (s == nullptr || !s->encrypt) return KS_ERR_INVALID_ARGUMENT;
  if (!ks::gcm::valid_tag_length(tag_len)) return KS_ERR_LENGTH;
  uint8_t full[KS_SM4_GCM_TAG_BYTES];
  s->gcm.tag(full);
  memcpy(tag, full, tag_len);
  ks_sm4_gcm_cleanse(c);
  return KS_OK;
} KS_API_CATCH

int ks_sm4_gcm_verify(ks_sm4_gcm_ctx* c, const uint8_t* tag, size_t tag_len) try {
  if (c == nullptr || tag == nullptr) return KS_ERR_NULL_POINTER;
  Sm4GcmStream* s = as_gcm(c);
  if (s == nullptr || s->encrypt) return KS_ERR_INVALID_ARGUMENT;
  if (!ks::gcm::valid_tag_length(tag_len)) return KS_ERR_LENGTH;
  const bool ok = s->gcm.verify(tag, tag_len);
  ks_sm4_gcm_cleanse(c);
  return ok ? KS_OK : KS_ERR_TAG_MISMATCH;
} KS_API_CATCH

void ks_sm4_gcm_cleanse(ks_sm4_gcm_ctx* c) {
  if (c != nullptr) ks::secure_wipe(c, sizeof(*c));
}

namespace {

// Whether a batch has a GPU path: every mode but GCM, and GCM with 96-bit
// IVs and texts within GCM's limit (other IV lengths and over-long texts,
// which fail, stay on the CPU).
bool gpu_batch_mode(int mode, size_t iv_len, const uint64_t* offsets, size_t count) {
  if (mode != KS_SM4_GCM) return true;
  if (iv_len != 12) return false;
  for (size_t i = 0; i < count; ++i)
    if (offsets[i + 1] - offsets[i] > ks::gcm::kMaxTextBytes) return false;
  return true;
}

// Per-item statuses from the GPU call's status and each item's own
// verdict (ok[i] == 0: fail_as); the batch's return as run_items gives it.
int gpu_statuses(int rc, const uint8_t* ok, int fail_as, size_t count, int* status) {
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) {
    if (status != nullptr) ks::api::store_status(status, i, ok[i] != 0 ? rc : fail_as);
    any_failed |= ok[i] == 0;
  }
  if (rc != KS_OK) return rc;
  return any_failed ? KS_ERR_BATCH_ITEMS : KS_OK;
}

// GCM items on the GPU: tags written when sealing; when opening, an item
// whose tag does not match gets KS_ERR_TAG_MISMATCH and its output is left
// as it was, as on the CPU.
int gcm_batch_on_gpu(ks_ctx* ctx, bool encrypt, const uint8_t* keys, const uint8_t* ivs,
                     const uint8_t* aad, const uint64_t* aad_offsets, const uint8_t* data,
                     const uint64_t* offsets, size_t count, uint8_t* out, uint8_t* tags,
                     size_t tag_len, int* status) {
  std::vector<uint8_t> passed(count, 0);
  // Under the GPU lock (the per-item statuses are written below).
  const int rc = ks::api::run_on_gpu_whole(ctx, 0, nullptr, [&] {
    return ks::sm4::gpu::gcm_messages(*ctx->gpu, encrypt, keys, ivs, aad, aad_offsets, data,
                                      offsets, count, tags, tag_len, out, passed.data());
  });
  if (rc != KS_OK) std::fill(passed.begin(), passed.end(), 1);  // every item: rc
  return gpu_statuses(rc, passed.data(), KS_ERR_TAG_MISMATCH, count, status);
}

// The device's way of running a mode in one direction.
ks::sm4::gpu::MessageMode gpu_message_mode(int mode, bool encrypt) {
  using M = ks::sm4::gpu::MessageMode;
  switch (mode) {
    case KS_SM4_ECB: return encrypt ? M::kEcbEncrypt : M::kEcbDecrypt;
    case KS_SM4_CBC: return encrypt ? M::kCbcEncrypt : M::kCbcDecrypt;
    case KS_SM4_CFB: return encrypt ? M::kCfbEncrypt : M::kCfbDecrypt;
    case KS_SM4_OFB: return M::kOfb;
    default: return M::kCtr;
  }
}

// ECB, CBC, CFB, OFB and CTR items on the GPU (sm4/gpu/sm4_gpu_messages.h):
// ECB and CBC items that are not whole blocks fail with KS_ERR_LENGTH and
// are left alone, as on the CPU; every other item gets the GPU call's
// status.
int batch_on_gpu(ks_ctx* ctx, int mode, bool encrypt, const uint8_t* keys, const uint8_t* ivs,
                 const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* out,
                 int* status) {
  std::vector<uint8_t> skip(count, 0);
  if (is_block_mode(mode))
    for (size_t i = 0; i < count; ++i) skip[i] = (offsets[i + 1] - offsets[i]) % kBlock != 0;
  const auto how = gpu_message_mode(mode, encrypt);
  const int rc = ks::api::run_on_gpu_whole(ctx, 0, nullptr, [&] {
    return ks::sm4::gpu::crypt_messages(*ctx->gpu, how, keys, ivs, data, offsets, count,
                                        skip.data(), out);
  });
  for (uint8_t& s : skip) s = s == 0;  // now: whether the item was computed
  return gpu_statuses(rc, skip.data(), KS_ERR_LENGTH, count, status);
}

}  // namespace

namespace {

bool is_serial_encryption(int mode, bool encrypt) {
  return encrypt && (mode == KS_SM4_CBC || mode == KS_SM4_CFB || mode == KS_SM4_OFB);
}

ks::ChainMode chain_mode(int mode) {
  return mode == KS_SM4_CBC ? ks::ChainMode::kCbc
         : mode == KS_SM4_CFB ? ks::ChainMode::kCfb
                              : ks::ChainMode::kOfb;
}

// CBC, CFB and OFB encryption of many messages on the CPU: groups of
// messages run one per SIMD lane (Variant::chain_lanes), each group on one
// of the context's threads; a CFB or OFB message's partial last block then
// goes through the stream mode on its own. CBC items that are not whole
// blocks fail with KS_ERR_LENGTH.
int serial_batch_on_cpu(ks_ctx* ctx, int mode, const uint8_t* keys, const uint8_t* ivs,
                        const uint8_t* data, const uint64_t* offsets, size_t count, uint8_t* out,
                        int* status) {
  constexpr size_t kGroup = 16;
  std::vector<int> result(count, KS_OK);
  for (size_t i = 0; i < count; ++i)
    if (mode == KS_SM4_CBC && (offsets[i + 1] - offsets[i]) % kBlock != 0)
      result[i] = KS_ERR_LENGTH;
  const ks::sm4::Variant& v = ks::sm4::chosen_variant();
  const auto& bc = ks::sm4::block_cipher();
  ks::api::run_groups<kGroup>(ctx, count, result, [&](const size_t* idx, size_t n) {
    uint8_t chain[kGroup][kBlock];
    ks::sm4::ChainJob jobs[kGroup];
    const ks::WipeOnExit wipe_chain(chain, sizeof chain);
    for (size_t g = 0; g < n; ++g) {
      const size_t i = idx[g], begin = size_t(offsets[i]);
      memcpy(chain[g], ivs + kBlock * i, kBlock);
      jobs[g] = {keys + KS_SM4_KEY_BYTES * i, chain[g], data + begin, out + begin,
                 size_t(offsets[i + 1] - offsets[i]) / kBlock};
    }
    for (size_t g = 0; g < n; g += v.chain_width)
      v.chain_lanes(chain_mode(mode), jobs + g, std::min(v.chain_width, n - g));
    for (size_t g = 0; g < n && mode != KS_SM4_CBC; ++g) {
      const size_t i = idx[g], whole = jobs[g].nblocks * kBlock;
      const size_t tail = size_t(offsets[i + 1] - offsets[i]) - whole;
      if (tail == 0) continue;
      ks::sm4::Key k;
      ks::sm4::set_key(&k, jobs[g].key, v);
      ks::modes::StreamState st;
      ks::modes::stream_init(&st, chain[g]);
      const uint8_t* in = data + offsets[i] + whole;
      uint8_t* dst = out + offsets[i] + whole;
      mode == KS_SM4_CFB ? ks::modes::cfb_encrypt(bc, &k, &st, in, dst, tail)
                         : ks::modes::ofb_crypt(bc, &k, &st, in, dst, tail);
      ks::secure_wipe(&st, sizeof st);
      ks::sm4::wipe_key(&k);
    }
  });
  return ks::api::finish_statuses(result, status);
}

// ks_sm4_batch with every array in device memory (kuaisuo/common.h,
// "Device memory"): the checks the host can make without reading them,
// then the call queued on the context's stream.
int batch_on_device(ks_ctx* ctx, int mode, bool encrypt, const uint8_t* keys, const uint8_t* ivs,
                    size_t iv_len, const uint8_t* data, size_t data_len, const uint64_t* offsets,
                    size_t count, uint8_t* out, size_t out_len, const uint8_t* aad,
                    size_t aad_len, const uint64_t* aad_offsets, uint8_t* tags, size_t tag_len,
                    int* status) {
  if (keys == nullptr || (iv_len != 0 && ivs == nullptr) || (out == nullptr && out_len != 0))
    return KS_ERR_NULL_POINTER;
  if (mode != KS_SM4_GCM)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return ks::sm4::gpu::crypt_messages_device(*ctx->gpu, gpu_message_mode(mode, encrypt), keys,
                                                 ivs, data, data_len, offsets, count, out,
                                                 out_len, status, ctx->stream);
    });
  if (iv_len != 12) return KS_ERR_UNSUPPORTED;  // the kernels take J0 = IV || 1
  if (!ks::gcm::valid_tag_length(tag_len)) return KS_ERR_LENGTH;
  if (tags == nullptr || (aad == nullptr && aad_len != 0)) return KS_ERR_NULL_POINTER;
  return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
    return ks::sm4::gpu::gcm_messages_device(*ctx->gpu, encrypt, keys, ivs, aad, aad_len,
                                             aad_offsets, data, data_len, offsets, count, tags,
                                             tag_len, out, out_len, status, ctx->stream);
  });
}

// The arguments' memory: KS_OK with *on_device where every array is on the
// context's device (kuaisuo/common.h, "Device memory").
int batch_memory(const ks_ctx* ctx, const uint8_t* keys, const uint8_t* ivs, const uint8_t* data,
                 const uint64_t* offsets, const uint8_t* out, const uint8_t* aad,
                 const uint64_t* aad_offsets, const uint8_t* tags, const int* status,
                 bool* on_device) {
  *on_device = false;
  if (ctx == nullptr) return KS_OK;  // check_batch reports it
  return ks::api::device_buffers(
      ctx, {keys, ivs, data, offsets, out, aad, aad_offsets, tags, status}, on_device);
}

}  // namespace

int ks_sm4_batch(ks_ctx* ctx, int mode, int encrypt, uint32_t flags, const uint8_t* keys,
                 const uint8_t* ivs, size_t iv_len, const uint8_t* data, size_t data_len,
                 const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                 const uint8_t* aad, size_t aad_len, const uint64_t* aad_offsets, uint8_t* tags,
                 size_t tag_len, int* status) try {
  bool on_device = false;
  int rc = batch_memory(ctx, keys, ivs, data, offsets, out, aad, aad_offsets, tags, status,
                        &on_device);
  if (rc != KS_OK) return rc;
  if (on_device) {
    rc = check_batch_arguments(ctx, mode, flags, iv_len);
    if (rc != KS_OK) return rc;
    return batch_on_device(ctx, mode, encrypt != 0, keys, ivs, iv_len, data, data_len, offsets,
                           count, out, out_len, aad, aad_len, aad_offsets, tags, tag_len,
                           status);
  }
  BatchOffsets copies;
  rc = check_batch(ctx, mode, flags, keys, ivs, iv_len, data, data_len, &offsets, count,
                             out, out_len, aad, aad_len, &aad_offsets, tags, tag_len, status,
                             &copies);
  if (rc != KS_OK) return rc;
  if (count != 0 && gpu_batch_mode(mode, iv_len, offsets, count) &&
      ctx->use_gpu(size_t(offsets[count] - offsets[0]),
                   ks::api::auto_gpu_min_bytes(data, out, ks::api::kAutoGpuMinSm4BatchPinnedBytes,
                                               ks::api::kAutoGpuMinSm4BatchPageableBytes))) {
    if (mode != KS_SM4_GCM)
      return batch_on_gpu(ctx, mode, encrypt != 0, keys, ivs, data, offsets, count, out, status);
    return gcm_batch_on_gpu(ctx, encrypt != 0, keys, ivs, aad, aad_offsets, data, offsets, count,
                            out, tags, tag_len, status);
  }
  if (is_serial_encryption(mode, encrypt != 0))
    return serial_batch_on_cpu(ctx, mode, keys, ivs, data, offsets, count, out, status);
  // Items are independent: one per task, a few per chunk so that many
  // short messages do not pay the pool's hand-off each.
  // AAD offsets are checked (and copied) for GCM only, and only GCM reads them.
  if (mode != KS_SM4_GCM) aad_offsets = nullptr;
  return ks::api::run_items(ctx, count, 16, status, [&](size_t i) {
    const size_t begin = size_t(offsets[i]), len = size_t(offsets[i + 1] - offsets[i]);
    const uint8_t* item_aad = aad_offsets != nullptr ? aad + aad_offsets[i] : nullptr;
    const size_t item_aad_len =
        aad_offsets != nullptr ? size_t(aad_offsets[i + 1] - aad_offsets[i]) : 0;
    return batch_item(mode, encrypt != 0, keys + KS_SM4_KEY_BYTES * i,
                      iv_len != 0 ? ivs + iv_len * i : nullptr, iv_len, data + begin, len,
                      out + begin, item_aad, item_aad_len,
                      mode == KS_SM4_GCM ? tags + tag_len * i : nullptr, tag_len);
  });
} KS_API_CATCH

namespace {

size_t auto_gpu_min_bytes(const void* in, const void* out) {
  return ks::api::auto_gpu_min_bytes(in, out, ks::api::kAutoGpuMinSm4PinnedBytes,
                                     ks::api::kAutoGpuMinSm4PageableBytes);
}

// The GPU kernel flags ask for: constant time unless KS_SM4_GPU_TABLES.
ks::sm4::gpu::Kernel gpu_kernel(uint32_t flags) {
  return (flags & KS_SM4_GPU_TABLES) != 0 ? ks::sm4::gpu::Kernel::kTable
                                          : ks::sm4::gpu::Kernel::kBitsliced;
}

// Blocks [begin, end) of a buffer of len bytes on the calling thread; the
// last one may be partial in CTR, which is the stream mode of
// cipher/modes.h started at counter0 + begin.
void crypt_range(const ks::sm4::Key& k, bool encrypt, const uint8_t* counter0, const uint8_t* in,
                 uint8_t* out, size_t len, size_t begin, size_t end) {
  ks::api::crypt_range(ks::sm4::block_cipher(), &k, encrypt, counter0, in, out, len, begin, end);
}

}  // namespace

int ks_sm4_crypt_buffer(ks_ctx* ctx, int mode, int encrypt, uint32_t flags,
                        const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv, size_t iv_len,
                        const uint8_t* in, size_t len, uint8_t* out) try {
  if (ctx == nullptr || key == nullptr) return KS_ERR_NULL_POINTER;
  if (mode != KS_SM4_ECB && mode != KS_SM4_CTR) return KS_ERR_INVALID_ARGUMENT;
  if ((flags & ~KS_SM4_GPU_TABLES) != 0) return KS_ERR_INVALID_ARGUMENT;
  int rc = check_mode_iv(mode, 0, iv, iv_len);
  if (rc == KS_OK) rc = check_buffer(in, len);
  if (rc == KS_OK) rc = check_buffer(out, len);
  if (rc == KS_OK && mode == KS_SM4_ECB && len % kBlock != 0) rc = KS_ERR_LENGTH;
  if (rc != KS_OK) return rc;
  bool on_device = false;
  rc = ks::api::device_buffers(ctx, {in, out}, &on_device);
  if (rc != KS_OK) return rc;
  const uint8_t* counter = mode == KS_SM4_CTR ? iv : nullptr;
  ks::sm4::Key k;
  const ks::WipeOnExit wipe_key(&k, sizeof k);
  ks::sm4::set_key(&k, key);
  if (on_device)
    return ks::sm4::gpu::crypt_device(*ctx->gpu, gpu_kernel(flags),
                                      encrypt || counter ? k.enc : k.dec, counter, in, out, len,
                                      ctx->stream);
  const size_t blocks = len / kBlock;  // whole ones; a partial last one only in CTR
  if (ctx->use_gpu(len, auto_gpu_min_bytes(in, out))) {
    const auto kernel = gpu_kernel(flags);
    rc = ks::api::run_on_gpu_whole(ctx, 0, nullptr, [&] {
      return blocks == 0 ? KS_OK
                         : ks::sm4::gpu::crypt_buffer(*ctx->gpu, kernel,
                                                      encrypt || counter ? k.enc : k.dec, counter,
                                                      in, out, blocks, encrypt != 0);
    });
    if (rc != KS_OK) return rc;
    if (len % kBlock != 0) crypt_range(k, true, counter, in, out, len, blocks, blocks + 1);
    return KS_OK;
  }
  // Threads take 4 KiB or more each: below that the hand-off costs more
  // than the blocks.
  ctx->pool.parallel_for((len + kBlock - 1) / kBlock, 256, [&](size_t begin, size_t end) {
    crypt_range(k, encrypt != 0, counter, in, out, len, begin, end);
  });
  return KS_OK;
} KS_API_CATCH

namespace {

// Whether a GCM buffer goes to the GPU: AUTO's rule for buffers, and a
// 96-bit IV (the kernels take J0 = IV || 1; SP 800-38D 7.1).
bool gcm_on_gpu(ks_ctx* ctx, size_t iv_len, const void* in, const void* out, size_t len) {
  return iv_len == 12 && ctx->use_gpu(len, auto_gpu_min_bytes(in, out));
}

// The device-memory rule for GCM: in, out and the tag all on the device or
// all on the host; the AAD (GHASHed on the host) in host memory either
// way. A device call needs a 96-bit IV.
int gcm_device_buffers(const ks_ctx* ctx, const void* in, const void* out, const void* tag,
                       const void* aad, size_t iv_len, bool* on_device) {
  int rc = ks::api::device_buffers(ctx, {in, out, tag}, on_device);
  int ordinal = -1;
  if (rc == KS_OK && ctx->gpu != nullptr && ks::gpu::device_memory(aad, &ordinal))
    rc = KS_ERR_MEMORY_MIX;
  if (rc == KS_OK && *on_device && iv_len != 12) rc = KS_ERR_UNSUPPORTED;
  return rc;
}

}  // namespace

int ks_sm4_gcm_seal_buffer(ks_ctx* ctx, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                           const uint8_t* iv, size_t iv_len, const uint8_t* aad, size_t aad_len,
                           const uint8_t* in, size_t len, uint8_t* out, uint8_t* tag,
                           size_t tag_len) try {
  if (ctx == nullptr) return KS_ERR_NULL_POINTER;
  if ((flags & ~KS_SM4_GPU_TABLES) != 0) return KS_ERR_INVALID_ARGUMENT;
  int rc = check_gcm_args(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
  bool on_device = false;
  if (rc == KS_OK) rc = gcm_device_buffers(ctx, in, out, tag, aad, iv_len, &on_device);
  if (rc != KS_OK) return rc;
  if (!on_device && !gcm_on_gpu(ctx, iv_len, in, out, len))
    return ks_sm4_gcm_seal(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
  ks::sm4::Key k;
  const ks::WipeOnExit wipe(&k, sizeof k);
  ks::sm4::set_key(&k, key);
  if (on_device)
    return ks::sm4::gpu::gcm_seal_device(*ctx->gpu, gpu_kernel(flags), k.enc, iv, aad, aad_len,
                                         in, len, out, tag, tag_len, ctx->stream);
  uint8_t full_tag[KS_SM4_GCM_TAG_BYTES];
  rc = ks::api::run_on_gpu_whole(ctx, 0, nullptr, [&] {
    return ks::sm4::gpu::gcm_seal_buffer(*ctx->gpu, gpu_kernel(flags), k.enc, iv, aad, aad_len,
                                         in, len, out, full_tag);
  });
  if (rc == KS_OK) memcpy(tag, full_tag, tag_len);
  return rc;
} KS_API_CATCH

int ks_sm4_gcm_open_buffer(ks_ctx* ctx, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                           const uint8_t* iv, size_t iv_len, const uint8_t* aad, size_t aad_len,
                           const uint8_t* in, size_t len, const uint8_t* tag, size_t tag_len,
                           uint8_t* out) try {
  if (ctx == nullptr) return KS_ERR_NULL_POINTER;
  if ((flags & ~KS_SM4_GPU_TABLES) != 0) return KS_ERR_INVALID_ARGUMENT;
  int rc = check_gcm_args(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
  bool on_device = false;
  if (rc == KS_OK) rc = gcm_device_buffers(ctx, in, out, tag, aad, iv_len, &on_device);
  if (rc != KS_OK) return rc;
  if (!on_device && !gcm_on_gpu(ctx, iv_len, in, out, len))
    return ks_sm4_gcm_open(key, iv, iv_len, aad, aad_len, in, len, tag, tag_len, out);
  ks::sm4::Key k;
  const ks::WipeOnExit wipe(&k, sizeof k);
  ks::sm4::set_key(&k, key);
  if (on_device)
    return ks::sm4::gpu::gcm_open_device(*ctx->gpu, gpu_kernel(flags), k.enc, iv, aad, aad_len,
                                         in, len, tag, tag_len, out, ctx->stream);
  return ks::api::run_on_gpu_whole(ctx, 0, nullptr, [&] {
    return ks::sm4::gpu::gcm_open_buffer(*ctx->gpu, gpu_kernel(flags), k.enc, iv, aad, aad_len,
                                         in, len, tag, tag_len, out);
  });
} KS_API_CATCH
