// C entry points for SM2 encryption (sm2/sm2_encrypt.h), one message at a
// time and in batches on the context's threads.
#include <string.h>

#include <vector>

#include "api/auto_gpu.h"
#include "api/batch.h"
#include "api/checks.h"
#include "api/context.h"
#include "api/device_memory.h"
#include "api/guard.h"
#include "core/secure.h"
#include "kuaisuo/sm2.h"
#include "sm2/gpu/sm2_gpu_batch.h"
#include "sm2/gpu/sm2_gpu_host.h"
#include "sm2/sm2_curve.h"
#include "sm2/sm2_encrypt.h"
#include "sm2/sm2_handles.h"
#include "sm2/sm2_mb.h"

namespace {

using ks::sm2::CipherForm;

bool form_of(int form, CipherForm* out) {
  if (form < KS_SM2_C1C3C2 || form > KS_SM2_CIPHER_DER) return false;
  *out = static_cast<CipherForm>(form);
  return true;
}

// The arguments both calls share; *f the form.
int check_args(const void* key, int form, const uint8_t* in, size_t in_len, const uint8_t* out,
               size_t out_cap, const size_t* out_len, CipherForm* f) {
  if (key == nullptr || out_len == nullptr) return KS_ERR_NULL_POINTER;
  if (!form_of(form, f)) return KS_ERR_INVALID_ARGUMENT;
  int rc = ks::api::check_buffer(in, in_len);
  if (rc == KS_OK) rc = ks::api::check_buffer(out, out_cap);
  if (rc != KS_OK) return rc;
  return ks::api::overlap(in, in_len, out, out_cap) ? KS_ERR_INVALID_ARGUMENT : KS_OK;
}

}  // namespace

size_t ks_sm2_ciphertext_bound(size_t len, int form) {
  CipherForm f;
  return form_of(form, &f) ? ks::sm2::ciphertext_bound(len, f) : 0;
}

int ks_sm2_encrypt(const ks_sm2_pubkey* key, int form, const uint8_t* msg, size_t len,
                   uint8_t* out, size_t out_cap, size_t* out_len) try {
  CipherForm f;
  const int rc = check_args(key, form, msg, len, out, out_cap, out_len, &f);
  if (rc != KS_OK) return rc;
  const size_t bound = ks::sm2::ciphertext_bound(len, f);
  if (bound == 0) return KS_ERR_OVERFLOW;
  *out_len = bound;
  if (out_cap < bound) return KS_ERR_LENGTH;
  return ks::api::to_status(
      ks::sm2::encrypt(key->key, msg, len, f, out, out_cap, out_len, nullptr, key->point_table()));
} KS_API_CATCH

int ks_sm2_decrypt(const ks_sm2_key* key, int form, const uint8_t* ct, size_t ct_len,
                   uint8_t* out, size_t out_cap, size_t* out_len) try {
  CipherForm f;
  int rc = check_args(key, form, ct, ct_len, out, out_cap, out_len, &f);
  if (rc != KS_OK) return rc;
  size_t len = 0;
  rc = ks::api::to_status(ks::sm2::plaintext_length(ct, ct_len, f, &len));
  if (rc != KS_OK) return rc;
  *out_len = len;
  if (out_cap < len) return KS_ERR_LENGTH;
  return ks::api::to_status(ks::sm2::decrypt(key->key, ct, ct_len, f, out, out_cap, out_len));
} KS_API_CATCH

// ---- Batches ------------------------------------------------------------------

namespace {

using ks::sm2::DecryptJob;
using ks::sm2::EncryptJob;

// One recipient for this many items or more: a call builds the key's comb
// table (about a millisecond) when the key has none; it pays for itself
// within ~40 encryptions (tools/sm2_micro: 37.5k/s with it, 13.5k/s
// without, on the EPYC).
constexpr size_t kTableMinItems = 128;

// The bytes a ciphertext of each item may add: its slot in out is its
// message's length plus this.
size_t slot_extra(CipherForm form) { return ks::sm2::ciphertext_bound(0, form); }

// What every batch call checks: the context, the form, the flat input
// (offsets validated on the host; in device memory, by the kernels), and
// the output (data_len bytes, plus each item's slot_extra when
// encrypting), which overlaps none of the inputs. on_device: every array
// (public_keys too, where given) is device memory of the context's GPU
// (kuaisuo/common.h's rule).
struct BatchArgs {
  CipherForm form;
  ks::api::OffsetsCopy offsets_copy;
  bool on_device = false;
};

int check_batch(ks_ctx* ctx, int form, bool encrypting, const uint8_t* data, size_t data_len,
                const uint64_t** offsets, size_t count, const uint8_t* out, size_t out_len,
                const uint64_t* lengths, const int* status, BatchArgs* args,
                const uint8_t* public_keys = nullptr) {
  int rc = ks::api::check_ctx(ctx);
  if (rc == KS_OK && !form_of(form, &args->form)) rc = KS_ERR_INVALID_ARGUMENT;
  size_t need = data_len;
  if (rc == KS_OK && encrypting) {
    const size_t extra = slot_extra(args->form);
    if (count > (SIZE_MAX - data_len) / extra) return KS_ERR_OVERFLOW;
    need += count * extra;
  }
  if (rc == KS_OK) rc = ks::api::check_items(lengths, count, sizeof(uint64_t));
  if (rc == KS_OK) rc = ks::api::check_buffer(out, out_len);
  if (rc == KS_OK)
    rc = ks::api::device_buffers(ctx, {data, *offsets, out, lengths, status, public_keys},
                                 &args->on_device);
  if (rc == KS_OK && !args->on_device) {  // device memory: api::device_messages_batch's checks
    rc = ks::api::checked_offsets(
        ctx, data, data_len, offsets, count, &args->offsets_copy,
        {{out, out_len}, {lengths, count * sizeof(uint64_t)},
         ks::api::statuses_written(status, count)});
  }
  if (rc != KS_OK) return rc;
  if (out_len < need) return KS_ERR_LENGTH;
  return ks::api::overlap(data, data_len, out, out_len) ? KS_ERR_INVALID_ARGUMENT : KS_OK;
}

// Records item i's result: its length, or on failure a zeroed slot.
void put_result(ks::sm2::Error e, size_t len, uint8_t* slot, size_t slot_len, uint64_t* length,
                int* result) {
  *result = ks::api::to_status(e);
  *length = e == ks::sm2::Error::kOk ? len : 0;
  if (e != ks::sm2::Error::kOk) ks::secure_wipe(slot, slot_len);
}

// Runs the items eight at a time: job_of(i) is item i's job (an
// EncryptJob or a DecryptJob), run(jobs, n) does a group; results land in
// lengths and result.
template <class Job, class JobOf, class Run>
void run_jobs(ks_ctx* ctx, size_t count, uint64_t* lengths, std::vector<int>& result,
              const JobOf& job_of, const Run& run) {
  constexpr size_t kLanes = ks::sm2::mb::kLanes;
  ks::api::run_groups<kLanes>(ctx, count, result, [&](const size_t* idx, size_t n) {
    Job jobs[kLanes];
    for (size_t j = 0; j < n; ++j) jobs[j] = job_of(idx[j]);
    run(jobs, n);
    for (size_t j = 0; j < n; ++j)
      put_result(jobs[j].status, jobs[j].out_len, jobs[j].out, jobs[j].out_cap,
                 &lengths[idx[j]], &result[idx[j]]);
  });
}

// Encrypts every item to pub_of(i) (and table, for one recipient).
template <class PubOf>
void encrypt_items(ks_ctx* ctx, CipherForm form, const uint8_t* data, const uint64_t* offsets,
                   size_t count, uint8_t* out, uint64_t* lengths, std::vector<int>& result,
                   const ks::curve::PointTable* table, const PubOf& pub_of) {
  const size_t extra = slot_extra(form);
  run_jobs<EncryptJob>(
      ctx, count, lengths, result,
      [&](size_t i) {
        const size_t len = size_t(offsets[i + 1] - offsets[i]);
        return EncryptJob{pub_of(i), data + offsets[i], len, out + offsets[i] + i * extra,
                          len + extra, 0, ks::sm2::Error::kOk};
      },
      [&](EncryptJob* jobs, size_t n) { ks::sm2::encrypt_x8(jobs, n, form, table); });
}

// The statuses of batches in device memory (sm2_gpu_batch.h's
// *_device): kRedoOnHost there is an item the device could not do (an
// encryption whose t stayed all zero through every redraw; a C2 of 4 GiB
// or more, past the layouts' 32-bit offsets).
ks::gpu::StatusMap device_status_map(bool encrypting) {
  using ks::sm2::Error;
  ks::gpu::StatusMap map = ks::api::status_map(
      {Error::kOk, Error::kBadPublicKey, Error::kBadCiphertext, Error::kCiphertextMismatch},
      [](Error e) { return ks::api::to_status(e); });
  map.codes[ks::sm2::gpu::kBadItemOffsets] = KS_ERR_OFFSETS;
  map.other = encrypting ? KS_ERR_RANDOM : KS_ERR_UNSUPPORTED;
  return map;
}

// A batch on the context's GPU (sm2/gpu/sm2_gpu_batch.h): run(device
// statuses) fills out, lengths and the statuses; the items the device left
// to the host (kRedoOnHost) are then done one at a time here, redo(i,
// &len) writing item i's slot.
template <class Run, class Redo>
int on_gpu(ks_ctx* ctx, size_t count, uint64_t* lengths, int* status, const Run& run,
           const Redo& redo) {
  return ks::api::run_on_gpu_items(ctx, count, status, run, [&](size_t i, int device) {
    if (device != ks::sm2::gpu::kRedoOnHost) return ks::api::to_status(ks::sm2::Error(device));
    size_t len = 0;
    int result = KS_OK;
    uint8_t* slot = nullptr;
    size_t slot_len = 0;
    const ks::sm2::Error e = redo(i, &len, &slot, &slot_len);
    put_result(e, len, slot, slot_len, &lengths[i], &result);
    if (e == ks::sm2::Error::kOk) memset(slot + len, 0, slot_len - len);  // as the device does
    return result;
  });
}

}  // namespace

int ks_sm2_encrypt_batch(ks_ctx* ctx, const ks_sm2_pubkey* key, int form, const uint8_t* data,
                         size_t data_len, const uint64_t* offsets, size_t count, uint8_t* out,
                         size_t out_len, uint64_t* lengths, int* status) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  BatchArgs args;
  const int rc = check_batch(ctx, form, true, data, data_len, &offsets, count, out, out_len,
                             lengths, status, &args);
  if (rc != KS_OK) return rc;
  if (args.on_device)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      uint8_t pub[KS_SM2_PUBLIC_KEY_BYTES];
      ks::sm2::public_key_to_bytes(pub, key->key);
      return ks::sm2::gpu::encrypt_device(*ctx->gpu, pub, nullptr, form, data, data_len, offsets,
                                          count, out, lengths, status, device_status_map(true),
                                          ctx->stream);
    });
  const ks::curve::PointTable* table = key->point_table();
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2Encrypt)) {
    const size_t extra = slot_extra(args.form);
    uint8_t pub[KS_SM2_PUBLIC_KEY_BYTES];
    ks::sm2::public_key_to_bytes(pub, key->key);
    return on_gpu(
        ctx, count, lengths, status,
        [&](int* device) {
          return ks::sm2::gpu::encrypt_batch(*ctx->gpu, pub, nullptr, form, data, offsets, count,
                                             out, lengths, device);
        },
        [&](size_t i, size_t* len, uint8_t** slot, size_t* slot_len) {
          const size_t msg_len = size_t(offsets[i + 1] - offsets[i]);
          *slot = out + offsets[i] + i * extra;
          *slot_len = msg_len + extra;
          return ks::sm2::encrypt(key->key, data + offsets[i], msg_len, args.form, *slot,
                                  *slot_len, len, nullptr, table);
        });
  }
  ks::curve::PointTablePtr own;
  if (table == nullptr && count >= kTableMinItems) {
    own = ks::curve::make_point_table(key->key.point);
    if (own == nullptr) return KS_ERR_NO_MEMORY;
    table = own.get();
  }
  std::vector<int> result(count, KS_OK);
  encrypt_items(ctx, args.form, data, offsets, count, out, lengths, result, table,
                [&](size_t) { return &key->key; });
  return ks::api::finish_statuses(result, status);
} KS_API_CATCH

int ks_sm2_encrypt_batch_keys(ks_ctx* ctx, const uint8_t* public_keys, int form,
                              const uint8_t* data, size_t data_len, const uint64_t* offsets,
                              size_t count, uint8_t* out, size_t out_len, uint64_t* lengths,
                              int* status) try {
  int rc = ks::api::check_items(public_keys, count, KS_SM2_PUBLIC_KEY_BYTES);
  if (rc != KS_OK) return rc;
  BatchArgs args;
  rc = check_batch(ctx, form, true, data, data_len, &offsets, count, out, out_len, lengths,
                   status, &args, public_keys);
  if (rc != KS_OK) return rc;
  if (args.on_device)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return ks::sm2::gpu::encrypt_device(*ctx->gpu, nullptr, public_keys, form, data, data_len,
                                          offsets, count, out, lengths, status,
                                          device_status_map(true), ctx->stream);
    });
  const size_t extra = slot_extra(args.form);
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2Encrypt))
    return on_gpu(
        ctx, count, lengths, status,
        [&](int* device) {
          return ks::sm2::gpu::encrypt_batch(*ctx->gpu, nullptr, public_keys, form, data, offsets,
                                             count, out, lengths, device);
        },
        [&](size_t i, size_t* len, uint8_t** slot, size_t* slot_len) {
          const size_t msg_len = size_t(offsets[i + 1] - offsets[i]);
          *slot = out + offsets[i] + i * extra;
          *slot_len = msg_len + extra;
          ks::sm2::PublicKey pub;
          ks::sm2::Error e = ks::sm2::public_key_from_bytes(
              pub, public_keys + KS_SM2_PUBLIC_KEY_BYTES * i, KS_SM2_PUBLIC_KEY_BYTES);
          if (e == ks::sm2::Error::kOk)
            e = ks::sm2::encrypt(pub, data + offsets[i], msg_len, args.form, *slot, *slot_len,
                                 len);
          return e;
        });
  std::vector<ks::sm2::PublicKey> keys(count);
  std::vector<int> result(count, KS_OK);
  ctx->pool.parallel_for(count, 1024, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const ks::sm2::Error e = ks::sm2::public_key_from_bytes(
          keys[i], public_keys + KS_SM2_PUBLIC_KEY_BYTES * i, KS_SM2_PUBLIC_KEY_BYTES);
      if (e != ks::sm2::Error::kOk)
        put_result(ks::sm2::Error::kBadPublicKey, 0, out + offsets[i] + i * extra,
                   size_t(offsets[i + 1] - offsets[i]) + extra, &lengths[i], &result[i]);
    }
  });
  encrypt_items(ctx, args.form, data, offsets, count, out, lengths, result, nullptr,
                [&](size_t i) { return &keys[i]; });
  return ks::api::finish_statuses(result, status);
} KS_API_CATCH

int ks_sm2_decrypt_batch(ks_ctx* ctx, const ks_sm2_key* key, int form, const uint8_t* data,
                         size_t data_len, const uint64_t* offsets, size_t count, uint8_t* out,
                         size_t out_len, uint64_t* lengths, int* status) try {
  if (key == nullptr) return KS_ERR_NULL_POINTER;
  BatchArgs args;
  const int rc = check_batch(ctx, form, false, data, data_len, &offsets, count, out, out_len,
                             lengths, status, &args);
  if (rc != KS_OK) return rc;
  if (args.on_device)
    return ks::api::device_messages_batch(data, data_len, offsets, count, status, [&] {
      return ks::sm2::gpu::decrypt_device(*ctx->gpu, key->key, form, data, data_len, offsets,
                                          count, out, lengths, status, device_status_map(false),
                                          ctx->stream);
    });
  if (ctx->use_gpu(count, ks::api::kAutoGpuMinSm2Decrypt))
    return on_gpu(
        ctx, count, lengths, status,
        [&](int* device) {
          return ks::sm2::gpu::decrypt_batch(*ctx->gpu, key->key, form, data, offsets, count, out,
                                             lengths, device);
        },
        [&](size_t i, size_t* len, uint8_t** slot, size_t* slot_len) {
          const size_t ct_len = size_t(offsets[i + 1] - offsets[i]);
          *slot = out + offsets[i];
          *slot_len = ct_len;
          return ks::sm2::decrypt(key->key, data + offsets[i], ct_len, args.form, *slot, ct_len,
                                  len);
        });
  std::vector<int> result(count, KS_OK);
  run_jobs<DecryptJob>(
      ctx, count, lengths, result,
      [&](size_t i) {
        const size_t len = size_t(offsets[i + 1] - offsets[i]);
        return DecryptJob{&key->key, data + offsets[i], len, out + offsets[i], len, 0,
                          ks::sm2::Error::kOk};
      },
      [&](DecryptJob* jobs, size_t n) { ks::sm2::decrypt_x8(jobs, n, args.form); });
  return ks::api::finish_statuses(result, status);
} KS_API_CATCH
