// fuzz_sm4_key: ks_sm4_key_decode (PKCS#8 with the sm4 OID, DER or PEM,
// detected) on arbitrary bytes: the decoder a key store runs on every file
// of its directory.
//
// Properties checked:
//  - decoding never crashes or reads outside the input (exactly-sized heap
//    copy), fails with a negative status, and leaves the key buffer as it
//    was when it fails;
//  - an accepted input's key encodes to DER and PEM (following the
//    out/out_cap/out_len rule) that both decode to the same key; an accepted
//    DER input of our length (no attributes) is our encoding byte for byte,
//    its version byte (0 or 1) aside;
//  - the SM2 and Ed25519 decoders answer KS_ERR_KEY_ALGORITHM to whatever
//    this one accepts.
#include <string.h>

#include "fuzz_util.h"

using ks_fuzz::HeapBytes;

namespace {

// The byte of PKCS#8's version INTEGER in our encoding: 30 20 02 01 <version>.
constexpr size_t kVersionAt = 4;
constexpr uint8_t kUntouched = 0xA5;

std::vector<uint8_t> encode(const uint8_t key[KS_SM4_KEY_BYTES], int pem) {
  return ks_fuzz::encode_output(
      [&](uint8_t* out, size_t cap, size_t* len) { return ks_sm4_key_encode(key, pem, out, cap, len); },
      pem != 0);
}

void expect_decodes_to(const std::vector<uint8_t>& bytes, const uint8_t key[KS_SM4_KEY_BYTES],
                       const char* what, const std::vector<uint8_t>& input) {
  const HeapBytes copy(bytes);
  uint8_t again[KS_SM4_KEY_BYTES];
  const int rc = ks_sm4_key_decode(copy.data(), copy.size(), again);
  if (rc != KS_OK || memcmp(again, key, KS_SM4_KEY_BYTES) != 0) {
    ks_fuzz::print_hex("input", input);
    ks_fuzz::print_hex(what, bytes);
    KS_FUZZ_FAIL("%s of a decoded key does not decode to it: %d (%s)", what, rc, ks_strerror(rc));
  }
}

void expect_other_algorithms_refuse(const HeapBytes& in) {
  ks_sm2_key* sm2 = nullptr;
  const int sm2_rc = ks_sm2_key_decode(in.data(), in.size(), &sm2);
  KS_FUZZ_CHECK(sm2_rc == KS_ERR_KEY_ALGORITHM, "the SM2 key decoder says %d", sm2_rc);
  ks_ed25519_key* ed = nullptr;
  const int ed_rc = ks_ed25519_key_decode(in.data(), in.size(), &ed);
  KS_FUZZ_CHECK(ed_rc == KS_ERR_KEY_ALGORITHM, "the Ed25519 key decoder says %d", ed_rc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HeapBytes in(data, size);
  const std::vector<uint8_t> input(data, data + size);
  uint8_t key[KS_SM4_KEY_BYTES];
  memset(key, kUntouched, sizeof key);
  const int rc = ks_sm4_key_decode(in.data(), in.size(), key);
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(rc < 0 && ks_strerror(rc) != nullptr, "decode returned %d", rc);
    for (uint8_t b : key) KS_FUZZ_CHECK(b == kUntouched, "a failed decode wrote the key");
    return 0;
  }
  std::vector<uint8_t> der = encode(key, 0);
  expect_decodes_to(der, key, "DER", input);
  expect_decodes_to(encode(key, 1), key, "PEM", input);
  if (size == der.size() && size > kVersionAt && data[0] == 0x30) {
    der[kVersionAt] = data[kVersionAt];
    KS_FUZZ_CHECK(ks_fuzz::same(der, input), "an accepted DER key of our length is not ours");
  }
  expect_other_algorithms_refuse(in);
  return 0;
}
