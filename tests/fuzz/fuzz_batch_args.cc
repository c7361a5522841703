// fuzz_batch_args: the batch calls (ks_sm3_batch, ks_sm2_verify_batch,
// ks_sm2_verify_digest_batch and their _key forms under a key object,
// ks_sm2_sign_digest_batch,
// ks_sm2_sign_digest_batch_keys, ks_sm2_sign_batch, ks_sm2_keygen_batch,
// ks_sm2_digest_batch)
// with counts, data lengths, offsets, output lengths, IDs, nonces and NULL
// pointers taken from the input, on CPU contexts of 1 and 2 threads.
//
// Every buffer is an exactly-sized heap allocation of the size the call is
// told (offsets: count + 1 entries), so a read or write past one is an
// AddressSanitizer report. What may lie is only what the header says is
// checked: offsets (decreasing, past data_len), output lengths smaller
// than needed, counts whose byte sizes overflow (then the buffers are
// small: the header promises the overflow is reported before any memory is
// touched), NULL pointers with nonzero lengths, nonce values, ID lengths.
// The machinery for this (plan, counts, offsets, verdicts, the checks of
// an answer) is shared with fuzz_batch_args_25519.cc: batch_args.h.
//
// Properties checked:
//  - bad arguments: the call returns one of the codes that name what is
//    wrong (this harness works out which from the arguments themselves),
//    writes no status and no output byte, and reads nothing it was not
//    given;
//  - good arguments: KS_OK or KS_ERR_BATCH_ITEMS, and the results agree,
//    item by item (all items, or the first and last kChecked of large
//    calls), with the one-item calls: ks_sm3 for each message;
//    ks_sm2_verify / ks_sm2_verify_digest (or KS_ERR_BAD_PUBLIC_KEY for a
//    key that does not parse) for each verification, with valid, corrupted
//    and arbitrary signatures and keys; signatures verify and, with RFC 6979
//    nonces, equal ks_sm2_sign / ks_sm2_sign_digest; per-item private keys
//    out of range fail their item with a zeroed signature; generated key
//    pairs match (ks_sm2_key_from_bytes of the private key).
//
// Input layout (fields past the end of the input read as zeros): op (mod
// 10), control byte (bit 0 context, bit 1 status NULL, bits 2-3 shape:
// valid small, valid large, bad arguments, overflowing count), then the
// op's fields in the order the code below reads them.
#include <stdint.h>

#include <memory>

#include "batch_args.h"

using ks_fuzz::Reader;
using namespace ks_fuzz::batch;  // Plan, Verdict, Output, Status, ... (batch_args.h)

namespace {

constexpr size_t kSmallCount = 12;       // SM2 items in a "small" call
constexpr size_t kBigCount = 136;        // SM2 items in a "large" one (2 threads' worth)
constexpr size_t kSm3SmallCount = 1024;  // SM3 messages
constexpr size_t kSm3BigCount = 4096;

ks_ctx* g_ctx[2];
ks_sm2_key* g_keys[3];
ks_sm2_pubkey* g_pubs[3];
uint8_t g_pub_bytes[3][65];
uint8_t g_priv_bytes[3][32];

const uint8_t kFixedD[3][32] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    {0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
     0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6,
     0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09, 0x39, 0xD5, 0x41, 0x21},  // n - 2
    {0x39, 0x45, 0x20, 0x8F, 0x7B, 0x21, 0x44, 0xB1, 0x3F, 0x36, 0xE3,
     0x8A, 0xC6, 0xD3, 0x9F, 0x95, 0x88, 0x93, 0x93, 0x69, 0x28, 0x60,
     0xB5, 0x1A, 0x42, 0xFB, 0x81, 0xEF, 0x4D, 0xF7, 0xC5, 0xB8},
};
// n, the group order: n - 1 and n are out of range for private keys.
const uint8_t kOrder[32] = {0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6,
                            0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09, 0x39, 0xD5, 0x41, 0x23};

// A nonce argument: valid ones mostly, else an invalid value.
int pick_nonce(Reader& r, const Plan& plan) {
  const uint8_t b = r.u8();
  if (plan.shape == kBadArgs && (plan.bad & kBadNonce)) {
    static const int kInvalid[] = {2, 3, -1, 255, INT32_MIN, INT32_MAX};
    return kInvalid[b % 6];
  }
  return (b & 1) ? KS_SM2_NONCE_RANDOM : KS_SM2_NONCE_DETERMINISTIC;
}

// An ID: length from the input (over KS_SM2_MAX_ID_BYTES for kBadIdLen).
struct Id {
  std::unique_ptr<Bytes> bytes;
  const uint8_t* ptr;
  size_t len;
};
Id pick_id(Reader& r, const Plan& plan) {
  Id id;
  const uint8_t sel = r.u8();
  const bool too_long = plan.shape == kBadArgs && (plan.bad & kBadIdLen);
  const bool standard = sel % 4 == 0 && !too_long;
  size_t len = standard ? KS_SM2_DEFAULT_ID_BYTES : r.u8() % 64;
  if (too_long) len = KS_SM2_MAX_ID_BYTES + 1 + r.u16() % 900;
  id.bytes = std::make_unique<Bytes>(len);
  if (standard) {
    memcpy(id.bytes->data(), KS_SM2_DEFAULT_ID, len);
  } else {
    fill(*id.bytes, r);
  }
  id.len = len;
  id.ptr = (len == 0 && (sel & 4)) ? nullptr : id.bytes->data();
  return id;
}

// ks_sm2_pubkey for a 65-byte key, or nullptr when it does not parse.
ks_sm2_pubkey* parse_pub(const uint8_t* bytes) {
  ks_sm2_pubkey* pub = nullptr;
  if (ks_sm2_pubkey_from_bytes(bytes, 65, &pub) != KS_OK) return nullptr;
  return pub;
}

// Fills the public keys and signatures of verification items: a fixed key
// with a good signature (sign(item) gives it), the same with a bit
// flipped, a fixed key with input bytes as signature, or input bytes as
// both. Only checked items get good signatures (signing costs time).
// With one_key (0-2) every item has that fixed key (a key object's batch).
template <class Sign>
void make_verify_items(Reader& r, size_t count, Bytes& keys, Bytes& sigs, const Sign& sign,
                       int one_key = -1) {
  for (size_t i = 0; i < count; ++i) {
    const uint8_t sel = r.u8();
    const int k = one_key >= 0 ? one_key : (sel >> 2) % 3;
    uint8_t* key = keys.data() + 65 * i;
    uint8_t* sig = sigs.data() + 64 * i;
    const std::vector<uint8_t> raw_sig = r.fixed(64);
    memcpy(sig, raw_sig.data(), 64);
    memcpy(key, g_pub_bytes[k], 65);
    switch (sel % 4) {
      case 0:
      case 1:
        if (checked(i, count)) {
          sign(i, g_keys[k], sig);
          if (sel % 4 == 1) sig[r.u8() % 64] ^= uint8_t(1u << (sel >> 5));
        }
        break;
      case 2: break;
      case 3: {
        const std::vector<uint8_t> raw_key = r.fixed(65);
        if (one_key >= 0) break;  // input bytes as the signature only
        memcpy(key, raw_key.data(), 65);
        if (sel & 0x10) key[0] = 4;
        break;
      }
    }
  }
}

// ---- The calls ----------------------------------------------------------------

void fuzz_sm3_batch(Reader& r, const Plan& plan) {
  const size_t count = pick_count(r, plan, kSm3SmallCount, kSm3BigCount);
  const bool huge = plan.shape == kHugeCount;
  const std::unique_ptr<Bytes> data = pick_data(r, plan);
  auto offsets = make_offsets(r, huge ? 1 : count, data->size(),
                              plan.shape == kBadArgs && (plan.bad & kBadOffsets));
  size_t out_len = huge ? 64 : 32 * count;
  if (plan.shape == kBadArgs && (plan.bad & kBadOutputLen) && out_len > 0)
    out_len -= 1 + r.u16() % out_len;
  Output digests(out_len);
  Status status(huge ? 1 : count, plan.status_null);
  ks_ctx* ctx = plan.ctx;
  const uint8_t* data_p = data->size() == 0 && (r.u8() & 1) ? nullptr : data->data();
  const uint64_t* off_p = offsets->data();
  uint8_t* out_p = digests.buf.data();
  size_t data_len = data->size();
  if (plan.shape == kBadArgs && (plan.bad & kBadNullPointer)) {
    switch (plan.null_which % 3) {
      case 0: data_p = nullptr; data_len += data_len == 0; break;
      case 1: off_p = nullptr; break;
      case 2: out_p = nullptr; break;
    }
  }
  Verdict v;
  if (ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_output_arg(v, out_p, digests.buf.size(), count, 32);
  if (off_p == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_buffer_arg(v, data_p, data_len);
  if (count == SIZE_MAX) v.bad(KS_ERR_OVERFLOW);
  if (!huge && off_p != nullptr && !offsets_ok(*offsets, count, data_len)) v.bad(KS_ERR_OFFSETS);
  KS_FUZZ_CHECK(huge || !v.valid() || count <= kSm3BigCount, "harness: large valid call");

  const int rc = ks_sm3_batch(ctx, data_p, data_len, off_p, count, out_p, digests.buf.size(),
                              status.ptr());
  if (!check_answer("ks_sm3_batch", rc, v, count, status, {&digests})) return;
  KS_FUZZ_CHECK(rc == KS_OK, "ks_sm3_batch returned %d", rc);
  for (size_t i = 0; i < count; ++i) {
    uint8_t want[32];
    const uint64_t b = (*offsets)[i], e = (*offsets)[i + 1];
    KS_FUZZ_OK(ks_sm3(data_p == nullptr ? nullptr : data_p + b, size_t(e - b), want));
    KS_FUZZ_CHECK(memcmp(want, out_p + 32 * i, 32) == 0, "ks_sm3_batch item %zu differs", i);
    expect_item("ks_sm3_batch", status, i, KS_OK);
  }
}

// ks_sm2_verify_batch and ks_sm2_verify_digest_batch (digests_in), or with
// key_object their _key forms under one of the fixed keys' objects.
void fuzz_verify_batch(Reader& r, const Plan& plan, bool digests_in, bool key_object) {
  static const char* const kCalls[2][2] = {
      {"ks_sm2_verify_batch", "ks_sm2_verify_digest_batch"},
      {"ks_sm2_verify_batch_key", "ks_sm2_verify_digest_batch_key"}};
  const char* call = kCalls[key_object][digests_in];
  const int one_key = key_object ? r.u8() % 3 : -1;
  const ks_sm2_pubkey* key_p = key_object ? g_pubs[one_key] : nullptr;
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const bool huge = plan.shape == kHugeCount;
  const size_t n = huge ? 1 : count;  // items actually allocated
  Id id = pick_id(r, plan);
  std::unique_ptr<Bytes> data = digests_in ? std::make_unique<Bytes>(0) : pick_data(r, plan);
  auto offsets = make_offsets(r, n, data->size(),
                              plan.shape == kBadArgs && (plan.bad & kBadOffsets) && !digests_in);
  Bytes keys(65 * n), sigs(64 * n), digests(digests_in ? 32 * n : 0);
  fill(digests, r);
  Status status(n, plan.status_null);
  ks_ctx* ctx = plan.ctx;
  const uint8_t* data_p = data->size() == 0 && (r.u8() & 1) ? nullptr : data->data();
  size_t data_len = data->size();
  const uint8_t *keys_p = keys.data(), *sigs_p = sigs.data(), *digests_p = digests.data();
  const uint64_t* off_p = offsets->data();
  if (plan.shape == kBadArgs && (plan.bad & kBadNullPointer)) {
    switch (plan.null_which % 5) {
      case 0:
        keys_p = nullptr;
        key_p = nullptr;
        break;
      case 1: sigs_p = nullptr; break;
      case 2:
        if (digests_in) {
          digests_p = nullptr;
        } else {
          off_p = nullptr;
        }
        break;
      case 3:
        if (!digests_in) {
          data_p = nullptr;
          data_len += data_len == 0;
        }
        break;
      case 4:
        if (!digests_in) {
          id.ptr = nullptr;
          id.len += id.len == 0;
        }
        break;
    }
  }
  Verdict v;
  if (ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (key_object) {
    if (key_p == nullptr) v.bad(KS_ERR_NULL_POINTER);
  } else {
    check_items_arg(v, keys_p, count, 65);
  }
  check_items_arg(v, sigs_p, count, 64);
  if (digests_in) {
    check_items_arg(v, digests_p, count, 32);
  } else {
    check_buffer_arg(v, id.ptr, id.len);
    if (id.len > KS_SM2_MAX_ID_BYTES) v.bad(KS_ERR_ID_LENGTH);
    if (off_p == nullptr) v.bad(KS_ERR_NULL_POINTER);
    check_buffer_arg(v, data_p, data_len);
    if (count == SIZE_MAX) v.bad(KS_ERR_OVERFLOW);
    if (!huge && off_p != nullptr && !offsets_ok(*offsets, count, data_len))
      v.bad(KS_ERR_OFFSETS);
  }
  // Large calls are meant to have bad arguments; where none applied or the
  // spoiling left them good by chance, they are made bad (offsets) or
  // smaller (the buffers are then larger than needed) here: SM2 is slow.
  if (v.valid() && count > kBigCount) {
    if (digests_in) {
      count %= kBigCount + 1;
    } else {
      (*offsets)[count] = data_len + 1;
      v.bad(KS_ERR_OFFSETS);
    }
  }
  if (v.valid()) {
    make_verify_items(r, count, keys, sigs, [&](size_t i, const ks_sm2_key* key, uint8_t* sig) {
      if (digests_in) {
        KS_FUZZ_OK(ks_sm2_sign_digest(key, digests.data() + 32 * i, KS_SM2_NONCE_DETERMINISTIC,
                                      sig));
      } else {
        const uint64_t b = (*offsets)[i], e = (*offsets)[i + 1];
        KS_FUZZ_OK(ks_sm2_sign(key, id.ptr, id.len, data_p == nullptr ? nullptr : data_p + b,
                               size_t(e - b), KS_SM2_NONCE_DETERMINISTIC, sig));
      }
    }, one_key);
  } else {
    fill(keys, r);
    fill(sigs, r);
  }
  int rc;
  if (key_object && digests_in) {
    rc = ks_sm2_verify_digest_batch_key(ctx, key_p, digests_p, count, sigs_p, status.ptr());
  } else if (key_object) {
    rc = ks_sm2_verify_batch_key(ctx, key_p, id.ptr, id.len, data_p, data_len, off_p, count,
                                 sigs_p, status.ptr());
  } else if (digests_in) {
    rc = ks_sm2_verify_digest_batch(ctx, keys_p, digests_p, count, sigs_p, status.ptr());
  } else {
    rc = ks_sm2_verify_batch(ctx, keys_p, id.ptr, id.len, data_p, data_len, off_p, count, sigs_p,
                             status.ptr());
  }
  if (!check_answer(call, rc, v, count, status, {})) return;
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    int want = KS_ERR_BAD_PUBLIC_KEY;
    if (ks_sm2_pubkey* pub = parse_pub(keys.data() + 65 * i)) {
      if (digests_in) {
        want = ks_sm2_verify_digest(pub, digests.data() + 32 * i, sigs.data() + 64 * i);
      } else {
        const uint64_t b = (*offsets)[i], e = (*offsets)[i + 1];
        want = ks_sm2_verify(pub, id.ptr, id.len, data_p == nullptr ? nullptr : data_p + b,
                             size_t(e - b), sigs.data() + 64 * i);
      }
      ks_sm2_pubkey_free(pub);
    }
    any_failed |= want != KS_OK;
    expect_item(call, status, i, want);
  }
  expect_rc(call, rc, count <= 2 * kChecked, any_failed);
}

// ks_sm2_sign_digest_batch (per_item_keys false) and
// ks_sm2_sign_digest_batch_keys (true).
void fuzz_sign_digest_batch(Reader& r, const Plan& plan, bool per_item_keys) {
  const char* call = per_item_keys ? "ks_sm2_sign_digest_batch_keys" : "ks_sm2_sign_digest_batch";
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const bool huge = plan.shape == kHugeCount;
  const size_t n = huge ? 1 : count;
  const int nonce = pick_nonce(r, plan);
  const int key_index = r.u8() % 3;
  const ks_sm2_key* key = g_keys[key_index];
  Bytes digests(32 * n), priv(per_item_keys ? 32 * n : 0);
  fill(digests, r);
  for (size_t i = 0; i < priv.size() / 32; ++i) {
    const uint8_t sel = r.u8();
    uint8_t* d = priv.data() + 32 * i;
    switch (sel % 6) {
      case 0:
      case 1:
      case 2: memcpy(d, g_priv_bytes[sel % 3], 32); break;
      case 3: memset(d, 0, 32); break;
      case 4:  // n - 1 + (0..2): out of range, or n - 1 - (...)
        memcpy(d, kOrder, 32);
        d[31] = uint8_t(d[31] - 1 - (sel >> 3) % 4 + (sel >> 5) % 2 * 2);
        break;
      case 5: {
        const std::vector<uint8_t> raw = r.fixed(32);
        memcpy(d, raw.data(), 32);
        break;
      }
    }
  }
  size_t out_len = huge ? 64 : 64 * count;
  if (plan.shape == kBadArgs && (plan.bad & kBadOutputLen) && out_len > 0)
    out_len -= 1 + r.u16() % out_len;
  Output sigs(out_len);
  Status status(n, plan.status_null);
  ks_ctx* ctx = plan.ctx;
  const uint8_t *digests_p = digests.data(), *priv_p = priv.data();
  uint8_t* sigs_p = sigs.buf.data();
  if (plan.shape == kBadArgs && (plan.bad & kBadNullPointer)) {
    switch (plan.null_which % 3) {
      case 0: digests_p = nullptr; break;
      case 1: sigs_p = nullptr; break;
      case 2:
        if (per_item_keys) {
          priv_p = nullptr;
        } else {
          key = nullptr;
        }
        break;
    }
  }
  Verdict v;
  if (ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (!per_item_keys && key == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (nonce != KS_SM2_NONCE_RANDOM && nonce != KS_SM2_NONCE_DETERMINISTIC)
    v.bad(KS_ERR_INVALID_ARGUMENT);
  if (per_item_keys) check_items_arg(v, priv_p, count, 32);
  check_items_arg(v, digests_p, count, 32);
  check_output_arg(v, sigs_p, sigs.buf.size(), count, 64);
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;  // see fuzz_verify_batch
  int rc;
  if (per_item_keys) {
    rc = ks_sm2_sign_digest_batch_keys(ctx, priv_p, digests_p, count, nonce, sigs_p,
                                       sigs.buf.size(), status.ptr());
  } else {
    rc = ks_sm2_sign_digest_batch(ctx, key, digests_p, count, nonce, sigs_p, sigs.buf.size(),
                                  status.ptr());
  }
  if (!check_answer(call, rc, v, count, status, {&sigs})) return;
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    const uint8_t* sig = sigs_p + 64 * i;
    const uint8_t* e = digests.data() + 32 * i;
    ks_sm2_key* own = nullptr;
    const ks_sm2_key* signer = key;
    if (per_item_keys) {
      if (ks_sm2_key_from_bytes(priv.data() + 32 * i, 32, &own) != KS_OK) {
        static const uint8_t kZero[64] = {0};
        KS_FUZZ_CHECK(memcmp(sig, kZero, 64) == 0, "%s item %zu: bad key, signature not zeroed",
                      call, i);
        expect_item(call, status, i, KS_ERR_BAD_PRIVATE_KEY);
        any_failed = true;
        continue;
      }
      signer = own;
    }
    expect_item(call, status, i, KS_OK);
    ks_sm2_pubkey* pub = nullptr;
    KS_FUZZ_OK(ks_sm2_key_public(signer, &pub));
    const int vrc = ks_sm2_verify_digest(pub, e, sig);
    KS_FUZZ_CHECK(vrc == KS_OK, "%s item %zu does not verify: %d", call, i, vrc);
    if (nonce == KS_SM2_NONCE_DETERMINISTIC) {
      uint8_t want[64];
      KS_FUZZ_OK(ks_sm2_sign_digest(signer, e, nonce, want));
      KS_FUZZ_CHECK(memcmp(want, sig, 64) == 0, "%s item %zu: RFC 6979 signature differs", call,
                    i);
    }
    ks_sm2_pubkey_free(pub);
    ks_sm2_key_free(own);
  }
  expect_rc(call, rc, count <= 2 * kChecked, any_failed);
}

void fuzz_sign_batch(Reader& r, const Plan& plan) {
  const char* call = "ks_sm2_sign_batch";
  const size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const bool huge = plan.shape == kHugeCount;
  const int nonce = pick_nonce(r, plan);
  const ks_sm2_key* key = g_keys[r.u8() % 3];
  Id id = pick_id(r, plan);
  const std::unique_ptr<Bytes> data = pick_data(r, plan);
  auto offsets = make_offsets(r, huge ? 1 : count, data->size(),
                              plan.shape == kBadArgs && (plan.bad & kBadOffsets));
  size_t out_len = huge ? 64 : 64 * count;
  if (plan.shape == kBadArgs && (plan.bad & kBadOutputLen) && out_len > 0)
    out_len -= 1 + r.u16() % out_len;
  Output sigs(out_len);
  Status status(huge ? 1 : count, plan.status_null);
  ks_ctx* ctx = plan.ctx;
  const uint8_t* data_p = data->size() == 0 && (r.u8() & 1) ? nullptr : data->data();
  size_t data_len = data->size();
  const uint64_t* off_p = offsets->data();
  uint8_t* sigs_p = sigs.buf.data();
  if (plan.shape == kBadArgs && (plan.bad & kBadNullPointer)) {
    switch (plan.null_which % 5) {
      case 0: key = nullptr; break;
      case 1: sigs_p = nullptr; break;
      case 2: off_p = nullptr; break;
      case 3: data_p = nullptr; data_len += data_len == 0; break;
      case 4: id.ptr = nullptr; id.len += id.len == 0; break;
    }
  }
  Verdict v;
  if (ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (key == nullptr) v.bad(KS_ERR_NULL_POINTER);
  if (nonce != KS_SM2_NONCE_RANDOM && nonce != KS_SM2_NONCE_DETERMINISTIC)
    v.bad(KS_ERR_INVALID_ARGUMENT);
  check_buffer_arg(v, id.ptr, id.len);
  if (id.len > KS_SM2_MAX_ID_BYTES) v.bad(KS_ERR_ID_LENGTH);
  check_output_arg(v, sigs_p, sigs.buf.size(), count, 64);
  if (off_p == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_buffer_arg(v, data_p, data_len);
  if (count == SIZE_MAX) v.bad(KS_ERR_OVERFLOW);
  if (!huge && off_p != nullptr && !offsets_ok(*offsets, count, data_len)) v.bad(KS_ERR_OFFSETS);
  if (v.valid() && count > kBigCount) {
    (*offsets)[count] = data_len + 1;
    v.bad(KS_ERR_OFFSETS);
  }
  const int rc = ks_sm2_sign_batch(ctx, key, id.ptr, id.len, data_p, data_len, off_p, count,
                                   nonce, sigs_p, sigs.buf.size(), status.ptr());
  if (!check_answer(call, rc, v, count, status, {&sigs})) return;
  KS_FUZZ_CHECK(rc == KS_OK, "%s returned %d (%s)", call, rc, ks_strerror(rc));
  ks_sm2_pubkey* pub = nullptr;
  KS_FUZZ_OK(ks_sm2_key_public(key, &pub));
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    expect_item(call, status, i, KS_OK);
    const uint64_t b = (*offsets)[i], e = (*offsets)[i + 1];
    const uint8_t* msg = data_p == nullptr ? nullptr : data_p + b;
    const int vrc = ks_sm2_verify(pub, id.ptr, id.len, msg, size_t(e - b), sigs_p + 64 * i);
    KS_FUZZ_CHECK(vrc == KS_OK, "%s item %zu does not verify: %d", call, i, vrc);
    if (nonce == KS_SM2_NONCE_DETERMINISTIC) {
      uint8_t want[64];
      KS_FUZZ_OK(ks_sm2_sign(key, id.ptr, id.len, msg, size_t(e - b), nonce, want));
      KS_FUZZ_CHECK(memcmp(want, sigs_p + 64 * i, 64) == 0,
                    "%s item %zu: RFC 6979 signature differs", call, i);
    }
  }
  ks_sm2_pubkey_free(pub);
}

void fuzz_keygen_batch(Reader& r, const Plan& plan) {
  const char* call = "ks_sm2_keygen_batch";
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const bool huge = plan.shape == kHugeCount;
  size_t priv_len = huge ? 64 : 32 * count, pub_len = huge ? 130 : 65 * count;
  if (plan.shape == kBadArgs && (plan.bad & kBadOutputLen)) {
    const uint8_t which = r.u8();
    if ((which & 1) && priv_len > 0) priv_len -= 1 + r.u16() % priv_len;
    if ((which & 2) && pub_len > 0) pub_len -= 1 + r.u16() % pub_len;
  }
  Output priv(priv_len), pub(pub_len);
  Status status(huge ? 1 : count, plan.status_null);
  ks_ctx* ctx = plan.ctx;
  uint8_t *priv_p = priv.buf.data(), *pub_p = pub.buf.data();
  if (plan.shape == kBadArgs && (plan.bad & kBadNullPointer)) {
    if (plan.null_which & 1) priv_p = nullptr;
    if (plan.null_which & 2) pub_p = nullptr;
  }
  Verdict v;
  if (ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_output_arg(v, priv_p, priv.buf.size(), count, 32);
  check_output_arg(v, pub_p, pub.buf.size(), count, 65);
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;  // see fuzz_verify_batch
  const int rc = ks_sm2_keygen_batch(ctx, count, priv_p, priv.buf.size(), pub_p, pub.buf.size(),
                                     status.ptr());
  if (!check_answer(call, rc, v, count, status, {&priv, &pub})) return;
  KS_FUZZ_CHECK(rc == KS_OK, "%s returned %d (%s)", call, rc, ks_strerror(rc));
  for (size_t i = 0; i < count; ++i) {
    if (!checked(i, count)) continue;
    expect_item(call, status, i, KS_OK);
    ks_sm2_key* key = nullptr;
    const int krc = ks_sm2_key_from_bytes(priv_p + 32 * i, 32, &key);
    KS_FUZZ_CHECK(krc == KS_OK, "%s item %zu: private key rejected: %d", call, i, krc);
    ks_sm2_pubkey* p = nullptr;
    KS_FUZZ_OK(ks_sm2_key_public(key, &p));
    const std::vector<uint8_t> want = ks_fuzz::pubkey_bytes(p, 0);
    KS_FUZZ_CHECK(memcmp(want.data(), pub_p + 65 * i, 65) == 0,
                  "%s item %zu: public key does not match the private key", call, i);
    ks_sm2_pubkey_free(p);
    ks_sm2_key_free(key);
  }
}

// ks_sm2_digest_batch: per-item keys (fixed ones or input bytes) and IDs
// (flat, with their own offsets, which may lie; an ID buffer past the
// length limit makes some items' IDs too long), each digest checked
// against ks_sm2_digest or the item's error (a zeroed digest).
void fuzz_digest_batch(Reader& r, const Plan& plan) {
  const char* call = "ks_sm2_digest_batch";
  size_t count = pick_count(r, plan, kSmallCount, kBigCount);
  const bool huge = plan.huge();
  const size_t n = huge ? 1 : count;
  const std::unique_ptr<Bytes> data = pick_data(r, plan);
  const bool spoil_ids = plan.spoils(kBadOffsets) && (r.u8() & 1);
  auto offsets = make_offsets(r, n, data->size(), plan.spoils(kBadOffsets) && !spoil_ids);
  const size_t ids_len = (r.u8() % 8 == 0) ? KS_SM2_MAX_ID_BYTES + 1 + r.u16() % 4096
                                           : r.u16() % 1024;
  Bytes ids(ids_len);
  fill(ids, r);
  auto id_offsets = make_offsets(r, n, ids_len, spoil_ids);
  Bytes keys(65 * n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t sel = r.u8();
    if (sel % 4 == 3) {
      const std::vector<uint8_t> raw = r.fixed(65);
      memcpy(keys.data() + 65 * i, raw.data(), 65);
    } else {
      memcpy(keys.data() + 65 * i, g_pub_bytes[sel % 3], 65);
    }
  }
  size_t out_len = huge ? 64 : 32 * count;
  if (plan.spoils(kBadOutputLen) && out_len > 0) out_len -= 1 + r.u16() % out_len;
  Output digests(out_len);
  Status status(n, plan.status_null);
  ks_ctx* ctx = plan.ctx;
  const uint8_t *keys_p = keys.data(), *ids_p = ids.data(), *data_p = data->data();
  const uint64_t *off_p = offsets->data(), *id_off_p = id_offsets->data();
  uint8_t* out_p = digests.buf.data();
  size_t data_len = data->size(), id_bytes = ids_len;
  if (plan.spoils(kBadNullPointer)) {
    switch (plan.null_which % 6) {
      case 0: keys_p = nullptr; break;
      case 1: ids_p = nullptr; id_bytes += id_bytes == 0; break;
      case 2: id_off_p = nullptr; break;
      case 3: data_p = nullptr; data_len += data_len == 0; break;
      case 4: off_p = nullptr; break;
      case 5: out_p = nullptr; break;
    }
  }
  Verdict v;
  if (ctx == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_items_arg(v, keys_p, count, 65);
  if (id_off_p == nullptr || off_p == nullptr) v.bad(KS_ERR_NULL_POINTER);
  check_buffer_arg(v, ids_p, id_bytes);
  check_buffer_arg(v, data_p, data_len);
  if (count == SIZE_MAX) v.bad(KS_ERR_OVERFLOW);
  if (!huge && id_off_p != nullptr && !offsets_ok(*id_offsets, count, id_bytes))
    v.bad(KS_ERR_OFFSETS);
  if (!huge && off_p != nullptr && !offsets_ok(*offsets, count, data_len)) v.bad(KS_ERR_OFFSETS);
  check_output_arg(v, out_p, digests.buf.size(), count, 32);
  if (v.valid() && count > kBigCount) count %= kBigCount + 1;  // see fuzz_verify_batch
  const int rc = ks_sm2_digest_batch(ctx, keys_p, ids_p, id_bytes, id_off_p, data_p, data_len,
                                     off_p, count, out_p, digests.buf.size(), status.ptr());
  if (!check_answer(call, rc, v, count, status, {&digests})) return;
  bool any_failed = false;
  for (size_t i = 0; i < count; ++i) {
    uint8_t want[32] = {0};
    int want_rc = KS_ERR_BAD_PUBLIC_KEY;
    if (ks_sm2_pubkey* pub = parse_pub(keys.data() + 65 * i)) {
      const uint64_t ib = (*id_offsets)[i], ie = (*id_offsets)[i + 1];
      const uint64_t b = (*offsets)[i], e = (*offsets)[i + 1];
      want_rc = ks_sm2_digest(pub, ids_p + ib, size_t(ie - ib),
                              data_p == nullptr ? nullptr : data_p + b, size_t(e - b), want);
      ks_sm2_pubkey_free(pub);
    }
    if (want_rc != KS_OK) memset(want, 0, 32);
    any_failed |= want_rc != KS_OK;
    expect_item(call, status, i, want_rc);
    KS_FUZZ_CHECK(memcmp(want, out_p + 32 * i, 32) == 0, "%s item %zu: digest differs", call, i);
  }
  expect_rc(call, rc, true, any_failed);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_contexts(g_ctx);
  for (int i = 0; i < 3; ++i) {
    KS_FUZZ_OK(ks_sm2_key_from_bytes(kFixedD[i], 32, &g_keys[i]));
    KS_FUZZ_OK(ks_sm2_key_public(g_keys[i], &g_pubs[i]));
    const std::vector<uint8_t> b = ks_fuzz::pubkey_bytes(g_pubs[i], 0);
    memcpy(g_pub_bytes[i], b.data(), 65);
    KS_FUZZ_OK(ks_sm2_key_to_bytes(g_keys[i], g_priv_bytes[i]));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const uint8_t op = r.u8() % 10;
  const Plan plan = read_plan(r, g_ctx);
  switch (op) {
    case 0: fuzz_sm3_batch(r, plan); break;
    case 1: fuzz_verify_batch(r, plan, false, false); break;
    case 2: fuzz_verify_batch(r, plan, true, false); break;
    case 8: fuzz_verify_batch(r, plan, false, true); break;
    case 9: fuzz_verify_batch(r, plan, true, true); break;
    case 3: fuzz_sign_digest_batch(r, plan, false); break;
    case 4: fuzz_sign_digest_batch(r, plan, true); break;
    case 5: fuzz_sign_batch(r, plan); break;
    case 6: fuzz_keygen_batch(r, plan); break;
    case 7: fuzz_digest_batch(r, plan); break;
  }
  return 0;
}
