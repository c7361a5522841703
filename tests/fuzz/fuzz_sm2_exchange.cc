// fuzz_sm2_exchange: the SM2 key exchange messages from an attacker. The
// first byte picks the side and whether the exchange confirms; the rest is
// the peer's R (its length from the second byte) and then its tag. Both
// parties' static keys are fixed (GM/T 0003.5's example keys).
//
// Properties checked:
//  - no crash and no read outside the input (exactly-sized heap copies);
//  - R is accepted exactly when ks_sm2_pubkey_from_bytes accepts it, and
//    otherwise refused with KS_ERR_BAD_PUBLIC_KEY;
//  - a tag that the fuzzer made up is refused (KS_ERR_CONFIRMATION): it
//    would have to be an SM3 value of the secret shared point;
//  - on any failure no key byte is written, and the exchange is failed for
//    good (the next step gives KS_ERR_STATE).
#include "fuzz_util.h"

namespace {

constexpr size_t kKeyLen = 24;

struct Keys {
  ks_sm2_key* a = nullptr;
  ks_sm2_key* b = nullptr;
  ks_sm2_pubkey* pub_a = nullptr;
  ks_sm2_pubkey* pub_b = nullptr;
  Keys() {
    static const uint8_t kDa[32] = {
        0x81, 0xEB, 0x26, 0xE9, 0x41, 0xBB, 0x5A, 0xF1, 0x6D, 0xF1, 0x16, 0x49, 0x5F, 0x90, 0x69, 0x52,
        0x72, 0xAE, 0x2C, 0xD6, 0x3D, 0x6C, 0x4A, 0xE1, 0x67, 0x84, 0x18, 0xBE, 0x48, 0x23, 0x00, 0x29};
    static const uint8_t kDb[32] = {
        0x78, 0x51, 0x29, 0x91, 0x7D, 0x45, 0xA9, 0xEA, 0x54, 0x37, 0xA5, 0x93, 0x56, 0xB8, 0x23, 0x38,
        0xEA, 0xAD, 0xDA, 0x6C, 0xEB, 0x19, 0x90, 0x88, 0xF1, 0x4A, 0xE1, 0x0D, 0xEF, 0xA2, 0x29, 0xB5};
    KS_FUZZ_OK(ks_sm2_key_from_bytes(kDa, 32, &a));
    KS_FUZZ_OK(ks_sm2_key_from_bytes(kDb, 32, &b));
    KS_FUZZ_OK(ks_sm2_key_public(a, &pub_a));
    KS_FUZZ_OK(ks_sm2_key_public(b, &pub_b));
  }
};

bool untouched(const uint8_t* key) {
  for (size_t i = 0; i < kKeyLen; ++i)
    if (key[i] != 0xA5) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Keys keys;
  if (size < 2) return 0;
  const bool initiator = data[0] & 1, confirm = data[0] & 2;
  const size_t r_len = data[1] < size - 2 ? data[1] : size - 2;
  const ks_fuzz::HeapBytes r(data + 2, r_len);
  uint8_t tag_bytes[KS_SM2_CONFIRM_BYTES] = {};
  const size_t tag_len = size - 2 - r_len < sizeof tag_bytes ? size - 2 - r_len : sizeof tag_bytes;
  memcpy(tag_bytes, data + 2 + r_len, tag_len);
  const ks_fuzz::HeapBytes peer_tag(tag_bytes, sizeof tag_bytes);

  ks_sm2_pubkey* as_key = nullptr;
  const bool is_point = ks_sm2_pubkey_from_bytes(r.data(), r.size(), &as_key) == KS_OK;
  ks_sm2_pubkey_free(as_key);

  ks_sm2_kx* kx = nullptr;
  KS_FUZZ_OK(ks_sm2_kx_new(initiator ? KS_SM2_INITIATOR : KS_SM2_RESPONDER,
                           initiator ? keys.a : keys.b, nullptr, 0,
                           initiator ? keys.pub_b : keys.pub_a, nullptr, 0, confirm, &kx));
  uint8_t own_r[65], tag[KS_SM2_CONFIRM_BYTES], key[kKeyLen];
  memset(key, 0xA5, sizeof key);
  int rc;
  if (initiator) {
    KS_FUZZ_OK(ks_sm2_kx_start(kx, own_r));
    rc = ks_sm2_kx_finish(kx, r.data(), r.size(), confirm ? peer_tag.data() : nullptr, key,
                          kKeyLen, confirm ? tag : nullptr);
    const int want = !is_point ? KS_ERR_BAD_PUBLIC_KEY : confirm ? KS_ERR_CONFIRMATION : KS_OK;
    KS_FUZZ_CHECK(rc == want, "finish returned %d, expected %d", rc, want);
  } else {
    rc = ks_sm2_kx_respond(kx, r.data(), r.size(), own_r, confirm ? tag : nullptr,
                           confirm ? nullptr : key, confirm ? 0 : kKeyLen);
    KS_FUZZ_CHECK(rc == (is_point ? KS_OK : KS_ERR_BAD_PUBLIC_KEY), "respond returned %d", rc);
    if (rc == KS_OK && confirm) {
      rc = ks_sm2_kx_confirm(kx, peer_tag.data(), key, kKeyLen);
      KS_FUZZ_CHECK(rc == KS_ERR_CONFIRMATION, "confirm returned %d", rc);
    }
  }
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(untouched(key), "a failed exchange wrote key bytes");
    const int again = ks_sm2_kx_confirm(kx, peer_tag.data(), key, kKeyLen);
    KS_FUZZ_CHECK(again == KS_ERR_STATE, "a failed exchange went on (%d)", again);
  } else {
    KS_FUZZ_CHECK(!untouched(key), "a finished exchange wrote no key");
  }
  ks_sm2_kx_free(kx);
  return 0;
}
