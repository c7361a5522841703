// C entry points for SM2 batches: on the context's CPU threads (8-lane
// AVX-512 IFMA groups, sm2/sm2_mb.h) or on its GPU engine. The GPU draws
// keys and nonces on the device; the rare items it cannot use (a random
// scalar out of range) are redone here on the CPU. Messages are hashed
// (e = SM3(Z_A || M)) on the CPU threads for CPU batches, on the device
// for GPU ones.
#include <string.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/device_memory.h"
#include "api/guard.h"
#include "sm2/sm2_handles.h"
#include "core/secure.h"
#include "api/context.h"
#include "sm3/sm3.h"
#include "sm3/sm3_blocks.h"
#include "kuaisuo/sm2.h"
#include "sm2/sm2.h"
#include "sm2/gpu/sm2_gpu_batch.h"
#include "sm2/gpu/sm2_gpu_host.h"
#include "sm2/sm2_mb.h"

using ks::api::check_buffer;
using ks::api::check_ctx;
using ks::api::check_id;
using ks::api::check_items;
using ks::api::finish_statuses;
using ks::api::parse_nonce;
using ks::api::run_groups;
using ks::api::run_items;
using ks::api::to_status;
using ks::sm2::Error;
constexpr size_t kLanes = ks::sm2::mb::kLanes;

namespace {

// An item's signature, or zeros where it failed (its buffer then holds
// neither stack bytes nor half of a computation).
void put_signature(uint8_t* out, const uint8_t sig[64], Error err) {
  if (err == Error::kOk) {
    memcpy(out, sig, 64);
  } else {
    memset(out, 0, 64);
  }
}

// e_i = SM3(Z_A || M_i) for every item under one public key, whose Z_A
// the caller computed once (GB/T 32918.2 clause 6.1 A1-A2, 7.1 B3-B4), on
// the CPU threads: groups of 64 messages, read in place, through the
// multi-buffer SM3.
std::vector<uint8_t> hash_messages(ks_ctx* ctx, const uint8_t za[32], const uint8_t* data,
                                   const uint64_t* offsets, size_t count) {
  constexpr size_t kGroup = 64;
  std::vector<uint8_t> e(32 * count);
  ctx->pool.parallel_for(count, kGroup, [&](size_t b, size_t end) {
    const uint8_t* prefix[kGroup];
    std::fill(prefix, prefix + kGroup, za);
    ks::sm3::Prefixes prefixes;
    prefixes.bytes = prefix;
    prefixes.len = 32;
    for (size_t g = b; g < end; g += kGroup) {
      const size_t n = std::min(kGroup, end - g);
      const uint8_t* msgs[kGroup];
      size_t lens[kGroup];
      for (size_t j = 0; j < n; ++j) {
        msgs[j] = data + offsets[g + j];
        lens[j] = size_t(offsets[g + j + 1] - offsets[g + j]);
      }
      ks::sm3::digest_many(msgs, lens, n, reinterpret_cast<uint8_t(*)[32]>(&e[32 * g]), prefixes);
    }
  });
  return e;
}

int gpu_keygen(ks_ctx* ctx, size_t count, uint8_t* priv, uint8_t* pub, int* status) {
  const auto run = [&](int* device) {
    return ks::sm2::gpu::keygen_batch(*ctx->gpu, count, priv, pub, device);
  };
  return ks::api::run_on_gpu_items(ctx, count, status, run, [&](size_t i, int device) -> int {
    if (device == int(Error::kOk)) return KS_OK;
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
  const auto run = [&](int* device) {
    return ks::sm2::gpu::sign_digest_batch(*ctx->gpu, key, keys, digests, count, sigs, device);
  };
  return ks::api::run_on_gpu_items(ctx, count, status, run, [&](size_t i, int device) -> int {
    if (keys != nullptr && !ks::sm2::private_key_in_range(keys + 32 * i)) {
      memset(sigs + 64 * i, 0, 64);
      return KS_ERR_BAD_PRIVATE_KEY;
    }
    if (device != int(Error::kBadNonce)) return to_status(static_cast<Error>(device));
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
  const auto run = [&](int* device) {
    return ks::sm2::gpu::sign_messages_batch(*ctx->gpu, key, za, data, offsets, count, sigs,
                                             device);
  };
  return ks::api::run_on_gpu_items(ctx, count, status, run, [&](size_t i, int device) -> int {
    Error err = static_cast<Error>(device);
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

// Whether every item carries the same public key bytes as the first (a
// batch of one signer's signatures), compared on the context's threads as
// 64-bit words, each range giving up once any range has found a
// difference. It reads 65 bytes an item, against the 96 of digest and
// signature that the device gets.
bool one_public_key(ks_ctx* ctx, const uint8_t* pubs, size_t count) {
  if (count < 2) return false;
  uint64_t key[8];
  memcpy(key, pubs, 64);
  const uint8_t last = pubs[64];
  std::atomic<bool> differ{false};
  constexpr size_t kBlock = 256;  // items between looks at `differ`
  ctx->pool.parallel_for(count, 16384, [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; b += kBlock) {
      if (differ.load(std::memory_order_relaxed)) return;
      uint64_t diff = 0;
      for (size_t i = b; i < std::min(end, b + kBlock); ++i) {
        const uint8_t* p = pubs + 65 * i;
        for (int w = 0; w < 8; ++w) {
          uint64_t v;
          memcpy(&v, p + 8 * w, 8);
          diff |= v ^ key[w];
        }
        diff |= uint8_t(p[64] ^ last);
      }
      if (diff != 0) {
        differ.store(true, std::memory_order_relaxed);
        return;
      }
    }
  });
  return !differ.load();
}

// A key object's 65 bytes 04||x||y, as the GPU calls take a key (null
// without a key object).
class KeyBytes {
 public:
  explicit KeyBytes(const ks_sm2_pubkey* key) : set_(key != nullptr) {
    if (set_) ks::sm2::public_key_to_bytes(bytes_, key->key);
  }
  const uint8_t* get() const { return set_ ? bytes_ : nullptr; }

 private:
  uint8_t bytes_[KS_SM2_PUBLIC_KEY_BYTES];
  bool set_;
};

// Verification on the GPU: of digests, or (messages set) of messages with
// Z_A and e computed on the device; under a key object (one_pub, its
// bytes) or per-item keys (pubs), a batch under one key (a key object, or
// every item's key the same bytes) running over that key's table.
int gpu_verify(ks_ctx* ctx, const uint8_t* one_pub, const uint8_t* pubs, const uint8_t* digests,
               const MessagesIn* messages, size_t count, const uint8_t* sigs, int* status) {
  using ks::sm2::gpu::BatchKeys;
  std::vector<uint8_t> prefix;
  if (messages != nullptr) {
    prefix.resize(ks::sm2::kZaPrefixMaxBytes);
    prefix.resize(ks::sm2::za_prefix(prefix.data(), messages->id, messages->id_len));
    if (prefix.empty()) return KS_ERR_ID_LENGTH;
  }
  const BatchKeys keys = one_pub != nullptr                   ? BatchKeys::kOne
                         : one_public_key(ctx, pubs, count) ? BatchKeys::kRepeated
                                                            : BatchKeys::kPerItem;
  const uint8_t* key_bytes = one_pub != nullptr ? one_pub : pubs;
  const auto run = [&](int* device) {
    return messages == nullptr
               ? ks::sm2::gpu::verify_digest_batch(*ctx->gpu, key_bytes, digests, sigs, count,
                                                   device, keys)
               : ks::sm2::gpu::verify_messages_batch(*ctx->gpu, key_bytes, prefix.data(),
                                                     prefix.size(), messages->data,
                                                     messages->offsets, count, sigs, device,
                                                     keys);
  };
  return ks::api::run_on_gpu_items(ctx, count, status, run,
                [](size_t, int device) { return to_status(static_cast<Error>(device)); });
}

// Keygen and signing statuses on device memory: a key or nonce drawn
// there outside its range (about 2^-255 an item) fails its item.
ks::gpu::StatusMap drawn_status_map() {
  return ks::api::status_map({Error::kOk, Error::kBadPrivateKey, Error::kBadNonce},
                             [](Error e) { return e == Error::kOk ? KS_OK : KS_ERR_RANDOM; });
}

// Signing on device memory takes random nonces (RFC 6979's are derived
// on the CPU only).
template <class Run>
int sign_on_device(ks::sm2::Nonce mode, size_t count, const int* status, const Run& run) {
  if (mode != ks::sm2::Nonce::kRandom) return KS_ERR_UNSUPPORTED;
  return ks::api::device_batch(count, status, run);
}

// Verification statuses as ks_status values, for the device's batches.
ks::gpu::StatusMap verify_status_map() {
  return ks::api::status_map({Error::kOk, Error::kBadPublicKey, Error::kSignatureOutOfRange,
                              Error::kVerifyFailed},
                             [](Error e) { return to_status(e); });
}

// Z_A and e statuses on device memory: an ID range outside the IDs is
// KS_ERR_OFFSETS, as a message's is.
ks::gpu::StatusMap digest_status_map() {
  ks::gpu::StatusMap map = ks::api::status_map(
      {Error::kOk, Error::kBadPublicKey, Error::kBadIdLength}, [](Error e) { return to_status(e); });
  map.codes[ks::sm2::gpu::kBadItemOffsets] = KS_ERR_OFFSETS;
  return map;
}

// A CPU batch under one key (a key object, or every item's key the same
// bytes) from this many items verifies over the key's comb tables in IFMA
// lanes: building them costs ~1.2 ms, ~90 verifications at the
// per-item-key lanes' rate (72k/s a core), and each item then costs a
// quarter of that (293k/s; tools/sm2_mb_micro, docs/design/0012).
constexpr size_t kOneKeyMinItems = 256;
// Without the lanes, over the scalar comb table alone, from this many items
// a thread: its build (1.19 ms on the EPYC) is 18 verifications with the
// key alone (15k/s), and each item then costs a quarter of one (57k/s;
// sm2_micro's verify rows), so it pays from ~24 items on the thread that
// builds it while the others verify.
constexpr size_t kOneKeyScalarMinItemsPerThread = 32;

// Items from which a CPU batch under one key makes the key's tables.
size_t one_key_min_items(const ks_ctx* ctx) {
  return ks::sm2::mb::available() ? kOneKeyMinItems
                                  : kOneKeyScalarMinItemsPerThread * ctx->pool.threads();
}

// The one key's comb tables for a CPU batch (mb::OneKey): the scalar one
// (a key object's, or made for the call and then held in `own`) and,
// where the IFMA lanes run, its lanes' form, made for the call. one().key
// stays null where there are none: the items then verify as under keys of
// their own.
class OneKeyTables {
 public:
  // Takes `table` of `key`; leaves none where it is null or memory is
  // short for the lanes' form.
  void use(const ks::sm2::PublicKey& key, const ks::curve::PointTable* table) {
    if (table == nullptr) return;
    if (ks::sm2::mb::available()) {
      lanes_ = ks::curve::mb::make_lane_table(*table);
      if (lanes_ == nullptr) return;
    }
    one_ = {&key, table, lanes_.get()};
  }
  const ks::sm2::mb::OneKey& one() const { return one_; }
  ks::curve::PointTablePtr own;

 private:
  ks::curve::mb::LaneTablePtr lanes_;
  ks::sm2::mb::OneKey one_ = {nullptr, nullptr, nullptr};
};

// Verifies digests 8 at a time on the CPU threads: over one.key's tables
// where it is set, else each item under *key_of(i); items whose result is
// already an error are skipped.
template <class KeyOf>
void verify_groups(ks_ctx* ctx, const ks::sm2::mb::OneKey& one, const KeyOf& key_of,
                   const uint8_t* digests, const uint8_t* sigs, std::vector<int>& result) {
  run_groups<kLanes>(ctx, result.size(), result, [&](const size_t* idx, size_t n) {
    const ks::sm2::PublicKey* key_ptrs[8] = {};
    uint8_t e[8][32], sig[8][64];
    Error err[8];
    for (size_t j = 0; j < n; ++j) {
      key_ptrs[j] = key_of(idx[j]);
      memcpy(e[j], digests + 32 * idx[j], 32);
      memcpy(sig[j], sigs + 64 * idx[j], 64);
    }
    if (one.key != nullptr) {
      ks::sm2::mb::verify_digests_one_key_x8(one, e, sig, err, n);
    } else {
      ks::sm2::mb::verify_digests_x8(key_ptrs, e, sig, err, n);
    }
    for (size_t j = 0; j < n; ++j) result[idx[j]] = to_status(err[j]);
  });
}

// Verifies digests under already parsed per-item keys (pubs, their bytes),
// over the one key's tables, made for the call, where every item carries
// the same key bytes and the batch is large enough; items whose result is
// already an error are skipped.
void verify_parsed(ks_ctx* ctx, const std::vector<ks::sm2::PublicKey>& keys, const uint8_t* pubs,
                   const uint8_t* digests, const uint8_t* sigs, std::vector<int>& result) {
  const size_t count = keys.size();
  OneKeyTables tables;
  if (count >= one_key_min_items(ctx) && result[0] == KS_OK && one_public_key(ctx, pubs, count)) {
    tables.own = ks::curve::make_point_table(keys[0].point);
    tables.use(keys[0], tables.own.get());  // short of memory: the per-item path
  }
  verify_groups(ctx, tables.one(), [&](size_t i) { return &keys[i]; }, digests, sigs, result);
}

// Verifies digests under a key object: over its own comb table where it
// has one. From the batch size at which the per-item-key path makes the
// table for its call (one_key_min_items), the table is built on the key
// itself, as ks_sm2_pubkey_precompute builds it (the same cost), so that
// the key's later batches find it. With the table, a batch smaller than
// one group of lanes verifies item by item over it: the lanes' form costs
// ~47 us to make, about four scalar verifications over the table (12 us
// each), while a full group of 8 in the lanes takes ~26 us (a Xeon with
// AVX-512 IFMA: tools/sm2_mb_micro's verify rows, make_lane_table timed
// alone).
void verify_under_key(ks_ctx* ctx, const ks_sm2_pubkey& key, const uint8_t* digests,
                      const uint8_t* sigs, std::vector<int>& result) {
  const size_t count = result.size();
  const ks::curve::PointTable* table =
      count >= one_key_min_items(ctx) ? key.precomputed_table() : key.point_table();
  if (table != nullptr && count < kLanes) {
    for (size_t i = 0; i < count; ++i) {
      const Error err = ks::sm2::verify_digest(key.key, digests + 32 * i, sigs + 64 * i, table);
      result[i] = to_status(err);
    }
    return;
  }
  OneKeyTables tables;
  tables.use(key.key, table);  // none (no table, or short of memory): item by item
  verify_groups(ctx, tables.one(), [&](size_t) { return &key.key; }, digests, sigs, result);
}

// The CPU side of ks_sm2_verify_batch under per-item keys: each key parsed
// once (a key that does not parse fails its item), a run of items with the
// same key bytes sharing one Z_A (mb::message_digests computes it once per
// run of equal key pointers), e_i = SM3(Z_A(P_i) || M_i) through the
// multi-buffer SM3, then the digests' verification.
void verify_messages_under_keys(ks_ctx* ctx, const uint8_t* pubs, const MessagesIn& in,
                                const uint8_t* sigs, std::vector<int>& result) {
  const size_t count = result.size();
  std::vector<uint8_t> e(32 * count);
  std::vector<ks::sm2::PublicKey> keys(count);
  ctx->pool.parallel_for(count, 64, [&](size_t b, size_t end) {
    constexpr size_t kGroup = 64;
    for (size_t g = b; g < end; g += kGroup) {
      const size_t n = std::min(kGroup, end - g);
      const ks::sm2::PublicKey* key_ptrs[kGroup];
      const uint8_t* msgs[kGroup];
      size_t lens[kGroup], idx[kGroup], m = 0;
      for (size_t i = g; i < g + n; ++i) {
        const uint8_t* bytes = pubs + 65 * i;
        result[i] = to_status(ks::sm2::public_key_from_bytes(keys[i], bytes, 65));
        if (result[i] != KS_OK) continue;
        const bool same_key = m > 0 && idx[m - 1] == i - 1 && memcmp(bytes, bytes - 65, 65) == 0;
        key_ptrs[m] = same_key ? key_ptrs[m - 1] : &keys[i];
        msgs[m] = in.data + in.offsets[i];
        lens[m] = size_t(in.offsets[i + 1] - in.offsets[i]);
        idx[m++] = i;
      }
      uint8_t digests[kGroup][32];
      const Error err =
          ks::sm2::mb::message_digests(digests, key_ptrs, in.id, in.id_len, msgs, lens, m);
      for (size_t j = 0; j < m; ++j) {
        memcpy(&e[32 * idx[j]], digests[j], 32);
        if (err != Error::kOk) result[idx[j]] = to_status(err);
      }
    }
  });
  verify_parsed(ctx, keys, pubs, e.data(), sigs, result);
}

// ks_sm2_verify_digest_batch (pubs: 65 bytes an item) and
// ks_sm2_verify_digest_batch_key (key, pubs null).
int verify_digests_call(ks_ctx* ctx, const ks_sm2_pubkey* key, const uint8_t* pubs,
                        const uint8_t* digests, size_t count, const uint8_t* sigs, int* status) {
  int rc = check_ctx(ctx);
  if (rc == KS_OK && key == nullptr) rc = check_items(pubs, count, 65);
  if (rc == KS_OK) rc = check_items(digests, count, 32);
  if (rc == KS_OK) rc = check_items(sigs, count, 64);
  bool on_device = false;
  if (rc == KS_OK) rc = ks::api::device_buffers(ctx, {pubs, digests, sigs, status}, &on_device);
  if (rc != KS_OK) return rc;
  const KeyBytes one_pub(key);
  if (on_device)
    return ks::api::device_batch(count, status, [&] {
      return ks::sm2::gpu::verify_digest_device(*ctx->gpu, one_pub.get(), pubs, digests, sigs,
                                                count, status, verify_status_map(), ctx->stream);
    });
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2Verify))
    return gpu_verify(ctx, one_pub.get(), pubs, digests, nullptr, count, sigs, status);
  std::vector<int> result(count, KS_OK);
  if (key != nullptr) {
    verify_under_key(ctx, *key, digests, sigs, result);
    return finish_statuses(result, status);
  }
  std::vector<ks::sm2::PublicKey> keys(count);
  ctx->pool.parallel_for(count, 256, [&](size_t b, size_t end) {
    for (size_t i = b; i < end; ++i)
      result[i] = to_status(ks::sm2::public_key_from_bytes(keys[i], pubs + 65 * i, 65));
  });
  verify_parsed(ctx, keys, pubs, digests, sigs, result);
  return finish_statuses(result, status);
}

// ks_sm2_verify_batch (pubs: 65 bytes an item) and ks_sm2_verify_batch_key
// (key, pubs null; its Z_A computed once).
int verify_messages_call(ks_ctx* ctx, const ks_sm2_pubkey* key, const uint8_t* pubs,
                         const MessagesIn& in, size_t data_len, size_t count,
                         const uint8_t* sigs, int* status) {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_id(in.id, in.id_len);
  if (rc == KS_OK && key == nullptr) rc = check_items(pubs, count, 65);
  if (rc == KS_OK) rc = check_items(sigs, count, 64);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {pubs, in.data, in.offsets, sigs, status}, &on_device);
  const KeyBytes one_pub(key);
  if (rc == KS_OK && on_device)
    return ks::api::device_messages_batch(in.data, data_len, in.offsets, count, status, [&] {
      uint8_t prefix[ks::sm2::kZaPrefixMaxBytes];
      const size_t prefix_len = ks::sm2::za_prefix(prefix, in.id, in.id_len);
      if (prefix_len == 0) return int(KS_ERR_ID_LENGTH);
      return ks::sm2::gpu::verify_messages_device(*ctx->gpu, one_pub.get(), pubs, prefix,
                                                  prefix_len, in.data, data_len, in.offsets,
                                                  count, sigs, status, verify_status_map(),
                                                  ctx->stream);
    });
  MessagesIn checked = in;
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, in.data, data_len, &checked.offsets, count, &offsets_copy,
                                  {ks::api::statuses_written(status, count)});
  if (rc != KS_OK) return rc;
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2Verify))
    return gpu_verify(ctx, one_pub.get(), pubs, nullptr, &checked, count, sigs, status);
  std::vector<int> result(count, KS_OK);
  if (key == nullptr) {
    verify_messages_under_keys(ctx, pubs, checked, sigs, result);
    return finish_statuses(result, status);
  }
  uint8_t za[32];  // the ID's length was checked: compute_za cannot fail
  ks::sm2::compute_za(za, key->key, in.id, in.id_len);
  const std::vector<uint8_t> e = hash_messages(ctx, za, checked.data, checked.offsets, count);
  verify_under_key(ctx, *key, e.data(), sigs, result);
  return finish_statuses(result, status);
}

}  // namespace

namespace {

int cpu_keygen(ks_ctx* ctx, size_t count, uint8_t* private_keys, uint8_t* public_keys,
               int* status) {
  std::vector<int> result(count, KS_OK);
  run_groups<kLanes>(ctx, count, result, [&](const size_t* idx, size_t n) {
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
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {private_keys, public_keys, status}, &on_device);
  if (rc != KS_OK) return rc;
  if (on_device)
    return ks::api::device_batch(count, status, [&] {
      return ks::sm2::gpu::keygen_device(*ctx->gpu, count, private_keys, public_keys, status,
                                         drawn_status_map(), ctx->stream);
    });
  // A batch that fails as a whole leaves no private key behind in the
  // caller's buffer (its statuses do not say which items were written).
  try {
    rc = ctx->use_gpu(count, ks::api::kAutoGpuMinSm2)
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
  ks::sm2::Nonce mode = ks::sm2::Nonce::kRandom;
  if (rc == KS_OK && key == nullptr) rc = KS_ERR_NULL_POINTER;
  if (rc == KS_OK) rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_items(digests, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  bool on_device = false;
  if (rc == KS_OK) rc = ks::api::device_buffers(ctx, {digests, sigs, status}, &on_device);
  if (rc != KS_OK) return rc;
  if (on_device)
    return sign_on_device(mode, count, status, [&] {
      return ks::sm2::gpu::sign_digest_device(*ctx->gpu, &key->key, nullptr, digests, count, sigs,
                                              status, drawn_status_map(), ctx->stream);
    });
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2) && mode == ks::sm2::Nonce::kRandom)
    return gpu_sign_digests(ctx, &key->key, nullptr, digests, count, mode, sigs, status);
  std::vector<int> result(count, KS_OK);
  run_groups<kLanes>(ctx, count, result, [&](const size_t* idx, size_t n) {
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
  ks::sm2::Nonce mode = ks::sm2::Nonce::kRandom;
  if (rc == KS_OK) rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_items(private_keys, count, 32);
  if (rc == KS_OK) rc = check_items(digests, count, 32);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {private_keys, digests, sigs, status}, &on_device);
  if (rc != KS_OK) return rc;
  if (on_device)
    return sign_on_device(mode, count, status, [&] {
      return ks::sm2::gpu::sign_digest_device(*ctx->gpu, nullptr, private_keys, digests, count,
                                              sigs, status, drawn_status_map(), ctx->stream);
    });
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2) && mode == ks::sm2::Nonce::kRandom)
    return gpu_sign_digests(ctx, nullptr, private_keys, digests, count, mode, sigs, status);
  std::vector<int> result(count, KS_OK);
  ctx->pool.parallel_for(count, 4096, [&](size_t b, size_t end) {
    for (size_t i = b; i < end; ++i)
      if (!ks::sm2::private_key_in_range(private_keys + 32 * i)) {
        result[i] = KS_ERR_BAD_PRIVATE_KEY;
        memset(sigs + 64 * i, 0, 64);
      }
  });
  run_groups<kLanes>(ctx, count, result, [&](const size_t* idx, size_t n) {
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
  ks::sm2::Nonce mode = ks::sm2::Nonce::kRandom;
  if (rc == KS_OK && key == nullptr) rc = KS_ERR_NULL_POINTER;
  if (rc == KS_OK) rc = parse_nonce(nonce, &mode);
  if (rc == KS_OK) rc = check_id(id, id_len);
  if (rc == KS_OK) rc = ks::api::check_output(sigs, sigs_len, count, 64);
  bool on_device = false;
  if (rc == KS_OK) rc = ks::api::device_buffers(ctx, {data, offsets, sigs, status}, &on_device);
  uint8_t za[32];
  const bool gpu = rc == KS_OK && (on_device || (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2) &&
                                                  mode == ks::sm2::Nonce::kRandom));
  if (rc == KS_OK) rc = to_status(ks::sm2::compute_za(za, key->key.pub, id, id_len));
  if (rc == KS_OK && on_device)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return sign_on_device(mode, count, status, [&] {
        return ks::sm2::gpu::sign_messages_device(*ctx->gpu, key->key, za, data, data_len,
                                                  offsets, count, sigs, status,
                                                  drawn_status_map(), ctx->stream);
      });
    });
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {{sigs, sigs_len}, ks::api::statuses_written(status, count)});
  if (rc != KS_OK) return rc;
  if (gpu) return gpu_sign_messages(ctx, key->key, za, data, offsets, count, sigs, status);
  const std::vector<uint8_t> e = hash_messages(ctx, za, data, offsets, count);
  return ks_sm2_sign_digest_batch(ctx, key, e.data(), count, nonce, sigs, sigs_len, status);
} KS_API_CATCH

int ks_sm2_verify_digest_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* digests,
                               size_t count, const uint8_t* sigs, int* status) try {
  return verify_digests_call(ctx, nullptr, public_keys, digests, count, sigs, status);
} KS_API_CATCH

int ks_sm2_verify_digest_batch_key(ks_ctx* ctx, const ks_sm2_pubkey* key, const uint8_t* digests,
                                   size_t count, const uint8_t* sigs, int* status) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  return verify_digests_call(ctx, key, nullptr, digests, count, sigs, status);
} KS_API_CATCH

namespace {

// Z_A of item i (its key and its own ID), or the previous item's when both
// are the same bytes: a batch of one signer's messages hashes its Z_A once.
struct ZaRun {
  const uint8_t* key = nullptr;
  const uint8_t* id = nullptr;
  size_t id_len = 0;
  uint8_t za[32];

  Error next(const uint8_t* key_bytes, const uint8_t* id_bytes, size_t len) {
    if (key != nullptr && id_len == len && memcmp(key, key_bytes, 65) == 0 &&
        memcmp(id, id_bytes, len) == 0)
      return Error::kOk;
    key = nullptr;
    ks::sm2::PublicKey pub;
    Error err = ks::sm2::public_key_from_bytes(pub, key_bytes, 65);
    if (err == Error::kOk) err = ks::sm2::compute_za(za, pub, id_bytes, len);
    if (err != Error::kOk) return err;
    key = key_bytes;
    id = id_bytes;
    id_len = len;
    return Error::kOk;
  }
};

}  // namespace

int ks_sm2_digest_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* ids,
                        size_t ids_len, const uint64_t* id_offsets, const uint8_t* data,
                        size_t data_len, const uint64_t* offsets, size_t count,
                        uint8_t* digests, size_t digests_len, int* status) try {
  int rc = check_ctx(ctx);
  if (rc == KS_OK) rc = check_items(public_keys, count, 65);
  bool on_device = false;
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {public_keys, ids, id_offsets, data, offsets, digests, status},
                                 &on_device);
  if (rc == KS_OK && on_device) {
    rc = ks::api::check_output(digests, digests_len, count, 32);
    if (rc != KS_OK) return rc;
    // The IDs are flat items with offsets too: the same checks as the data's.
    return ks::api::device_messages_batch(ids, ids_len, id_offsets, count, status, [&] {
      return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
        return ks::sm2::gpu::digests_device(*ctx->gpu, public_keys, ids, ids_len, id_offsets,
                                            data, data_len, offsets, count, digests, status,
                                            digest_status_map(), ctx->stream);
      });
    });
  }
  ks::api::OffsetsCopy id_offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, ids, ids_len, &id_offsets, count, &id_offsets_copy,
                              {{digests, digests_len}, ks::api::statuses_written(status, count)});
  ks::api::OffsetsCopy offsets_copy;
  if (rc == KS_OK)
    rc = ks::api::checked_offsets(ctx, data, data_len, &offsets, count, &offsets_copy,
                              {{digests, digests_len}, ks::api::statuses_written(status, count)});
  if (rc == KS_OK) rc = ks::api::check_output(digests, digests_len, count, 32);
  if (rc != KS_OK) return rc;
  // Groups of 64 items: their Z_A values, then e_i = SM3(Z_A_i || M_i)
  // through the multi-buffer SM3 with the messages read in place.
  std::vector<int> result(count, KS_OK);
  ctx->pool.parallel_for(count, 64, [&](size_t b, size_t end) {
    constexpr size_t kGroup = 64;
    ZaRun run;
    for (size_t g = b; g < end; g += kGroup) {
      const size_t n = std::min(kGroup, end - g);
      uint8_t za[kGroup][32], e[kGroup][32];
      const uint8_t* prefix[kGroup];
      const uint8_t* msgs[kGroup];
      size_t lens[kGroup], idx[kGroup], m = 0;
      for (size_t i = g; i < g + n; ++i) {
        const Error err = run.next(public_keys + 65 * i, ids + id_offsets[i],
                                   size_t(id_offsets[i + 1] - id_offsets[i]));
        if (err != Error::kOk) {
          result[i] = to_status(err);
          memset(digests + 32 * i, 0, 32);
          continue;
        }
        memcpy(za[m], run.za, 32);
        prefix[m] = za[m];
        msgs[m] = data + offsets[i];
        lens[m] = size_t(offsets[i + 1] - offsets[i]);
        idx[m++] = i;
      }
      ks::sm3::Prefixes prefixes;
      prefixes.bytes = prefix;
      prefixes.len = 32;
      ks::sm3::digest_many(msgs, lens, m, e, prefixes);
      for (size_t j = 0; j < m; ++j) memcpy(digests + 32 * idx[j], e[j], 32);
    }
  });
  return finish_statuses(result, status);
} KS_API_CATCH

int ks_sm2_verify_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* id,
                        size_t id_len, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, const uint8_t* sigs,
                        int* status) try {
  const MessagesIn in = {id, id_len, data, offsets};
  return verify_messages_call(ctx, nullptr, public_keys, in, data_len, count, sigs, status);
} KS_API_CATCH

int ks_sm2_verify_batch_key(ks_ctx* ctx, const ks_sm2_pubkey* key, const uint8_t* id,
                            size_t id_len, const uint8_t* data, size_t data_len,
                            const uint64_t* offsets, size_t count, const uint8_t* sigs,
                            int* status) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  const MessagesIn in = {id, id_len, data, offsets};
  return verify_messages_call(ctx, key, nullptr, in, data_len, count, sigs, status);
} KS_API_CATCH
