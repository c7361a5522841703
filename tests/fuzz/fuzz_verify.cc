// fuzz_verify: SM2 verification on arbitrary signature bytes, digests, IDs
// and messages, under fixed keys or keys taken from the input.
//
// Input layout (fields past the end of the input read as zeros):
//   flags       1 byte: bits 0-1 key (0..2: fixed private keys d = 1,
//               d = n - 2, a fixed d; 3: from the input), bit 2 the input
//               key is a raw point (else a private d), bit 3 signature in
//               DER (else raw r||s), bit 4 random nonce (else RFC 6979),
//               bit 5 also sign and check (the property below), bit 6 NULL
//               for an empty ID and an empty message
//   key         if key 3: 1 length byte (33, 64 or 65 for a point, by
//               value mod 3) and the point, or 32 bytes of d
//   digest      32 bytes
//   signature   64 bytes r||s, or 1 length byte L and L bytes of DER
//   id          1 byte L (255: 2 more bytes, L = their value mod 9000, so
//               that IDs over KS_SM2_MAX_ID_BYTES occur), then L bytes
//   flip        2 bytes: which bit of a good signature to flip
//   message     the rest
//
// Properties checked:
//  - ks_sm2_verify_digest and ks_sm2_verify never crash on any signature
//    bytes (raw 64 and via ks_sm2_signature_from_der) and answer KS_OK,
//    KS_ERR_SIGNATURE_RANGE or KS_ERR_VERIFY_FAILED (KS_ERR_ID_LENGTH for
//    IDs over the limit);
//  - ks_sm2_verify(key, id, msg, sig) answers as
//    ks_sm2_verify_digest(key, ks_sm2_digest(key, id, msg), sig);
//  - with a private key: a signature made by ks_sm2_sign_digest (or
//    ks_sm2_sign) verifies, also after a trip through DER; with one bit
//    flipped it does not; RFC 6979 signing is deterministic.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;
using ks_fuzz::Reader;

namespace {

const uint8_t kFixedD[3][32] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},  // 1: P = G
    {0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
     0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6,
     0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09, 0x39, 0xD5, 0x41, 0x21},  // n - 2, the largest
    {0x39, 0x45, 0x20, 0x8F, 0x7B, 0x21, 0x44, 0xB1, 0x3F, 0x36, 0xE3,
     0x8A, 0xC6, 0xD3, 0x9F, 0x95, 0x88, 0x93, 0x93, 0x69, 0x28, 0x60,
     0xB5, 0x1A, 0x42, 0xFB, 0x81, 0xEF, 0x4D, 0xF7, 0xC5, 0xB8},  // GB/T 32918.5 example
};

ks_sm2_key* g_keys[3];

bool is_verify_answer(int rc) {
  return rc == KS_OK || rc == KS_ERR_SIGNATURE_RANGE || rc == KS_ERR_VERIFY_FAILED;
}

// ks_sm2_verify checked against ks_sm2_digest + ks_sm2_verify_digest.
int verify_message(const ks_sm2_pubkey* pub, const HeapBytes& id, bool id_null,
                   const HeapBytes& msg, bool msg_null, const uint8_t sig[64]) {
  const uint8_t* id_p = id_null ? nullptr : id.data();
  const uint8_t* msg_p = msg_null ? nullptr : msg.data();
  const int rc = ks_sm2_verify(pub, id_p, id.size(), msg_p, msg.size(), sig);
  if (id.size() > KS_SM2_MAX_ID_BYTES) {
    KS_FUZZ_CHECK(rc == KS_ERR_ID_LENGTH, "ID of %zu bytes: verify gave %d", id.size(), rc);
    return rc;
  }
  KS_FUZZ_CHECK(is_verify_answer(rc), "verify gave %d (%s)", rc, ks_strerror(rc));
  uint8_t e[32];
  KS_FUZZ_OK(ks_sm2_digest(pub, id_p, id.size(), msg_p, msg.size(), e));
  const HeapBytes sig_copy(sig, 64);
  const int rc_digest = ks_sm2_verify_digest(pub, e, sig_copy.data());
  KS_FUZZ_CHECK(rc == rc_digest, "verify gave %d, verify_digest of its digest %d", rc, rc_digest);
  return rc;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (int i = 0; i < 3; ++i) KS_FUZZ_OK(ks_sm2_key_from_bytes(kFixedD[i], 32, &g_keys[i]));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const uint8_t flags = r.u8();
  const bool nonce_random = flags & 0x10, sign_too = flags & 0x20, use_null = flags & 0x40;
  const int nonce = nonce_random ? KS_SM2_NONCE_RANDOM : KS_SM2_NONCE_DETERMINISTIC;

  const ks_sm2_key* key = nullptr;
  ks_sm2_key* own_key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  if ((flags & 3) != 3) {
    key = g_keys[flags & 3];
  } else if (flags & 4) {
    static const size_t kLens[3] = {33, 64, 65};
    const HeapBytes point(r.fixed(kLens[r.u8() % 3]));
    const int rc = ks_sm2_pubkey_from_bytes(point.data(), point.size(), &pub);
    if (rc != KS_OK) return 0;  // fuzz_pubkey_raw covers the decoder
  } else {
    const HeapBytes d(r.fixed(32));
    if (ks_sm2_key_from_bytes(d.data(), d.size(), &own_key) != KS_OK) return 0;
    key = own_key;
  }
  if (key != nullptr) KS_FUZZ_OK(ks_sm2_key_public(key, &pub));

  const HeapBytes digest(r.fixed(32));
  uint8_t sig[64];
  bool have_sig = true;
  if (flags & 8) {
    const size_t len = r.u8();
    const HeapBytes der(r.bytes(len));
    have_sig = ks_sm2_signature_from_der(der.data(), der.size(), sig) == KS_OK;
  } else {
    const std::vector<uint8_t> raw = r.fixed(64);
    memcpy(sig, raw.data(), 64);
  }
  size_t id_len = r.u8();
  if (id_len == 255) id_len = r.u16() % 9000;
  const HeapBytes id(r.fixed(id_len));
  const size_t flip = r.u16() % 512;
  const HeapBytes msg(r.remainder());
  const bool id_null = use_null && id.size() == 0, msg_null = use_null && msg.size() == 0;

  if (have_sig) {
    const HeapBytes sig_copy(sig, 64);
    const int rc = ks_sm2_verify_digest(pub, digest.data(), sig_copy.data());
    KS_FUZZ_CHECK(is_verify_answer(rc), "verify_digest gave %d (%s)", rc, ks_strerror(rc));
    verify_message(pub, id, id_null, msg, msg_null, sig);
  }

  if (key != nullptr && sign_too) {
    uint8_t good[64];
    KS_FUZZ_OK(ks_sm2_sign_digest(key, digest.data(), nonce, good));
    KS_FUZZ_OK(ks_sm2_verify_digest(pub, digest.data(), good));
    if (nonce == KS_SM2_NONCE_DETERMINISTIC) {
      uint8_t again[64];
      KS_FUZZ_OK(ks_sm2_sign_digest(key, digest.data(), nonce, again));
      KS_FUZZ_CHECK(memcmp(good, again, 64) == 0, "RFC 6979 signatures differ");
    }
    uint8_t der[KS_SM2_SIGNATURE_DER_MAX_BYTES], back[64];
    size_t der_len = 0;
    KS_FUZZ_OK(ks_sm2_signature_to_der(good, der, sizeof der, &der_len));
    KS_FUZZ_OK(ks_sm2_signature_from_der(der, der_len, back));
    KS_FUZZ_CHECK(memcmp(good, back, 64) == 0, "signature changed through DER");
    uint8_t bad[64];
    memcpy(bad, good, 64);
    bad[flip / 8] ^= uint8_t(1u << (flip % 8));
    const int rc = ks_sm2_verify_digest(pub, digest.data(), bad);
    KS_FUZZ_CHECK(rc == KS_ERR_VERIFY_FAILED || rc == KS_ERR_SIGNATURE_RANGE,
                  "a signature with bit %zu flipped gave %d", flip, rc);

    const uint8_t* id_p = id_null ? nullptr : id.data();
    const uint8_t* msg_p = msg_null ? nullptr : msg.data();
    const int sign_rc = ks_sm2_sign(key, id_p, id.size(), msg_p, msg.size(), nonce, good);
    if (id.size() > KS_SM2_MAX_ID_BYTES) {
      KS_FUZZ_CHECK(sign_rc == KS_ERR_ID_LENGTH, "ID of %zu bytes: sign gave %d", id.size(),
                    sign_rc);
    } else {
      KS_FUZZ_CHECK(sign_rc == KS_OK, "sign gave %d (%s)", sign_rc, ks_strerror(sign_rc));
      KS_FUZZ_CHECK(verify_message(pub, id, id_null, msg, msg_null, good) == KS_OK,
                    "a fresh signature of the message does not verify");
    }
  }
  ks_sm2_pubkey_free(pub);
  ks_sm2_key_free(own_key);
  return 0;
}
