// fuzz_pubkey_der_pem: ks_sm2_pubkey_decode (SubjectPublicKeyInfo, DER or
// PEM, detected) on arbitrary bytes.
//
// Properties checked:
//  - decoding never crashes or reads outside the input (exactly-sized heap
//    copy) and fails with a negative status;
//  - decode, encode, decode gives the same key: a decoded key encodes to
//    DER and to PEM (following the out/out_cap/out_len rule), and both
//    decode again to the same point (compared through
//    ks_sm2_pubkey_to_bytes). This is what catches DER being taken for PEM
//    when the key's coordinates carry "-----BEGIN ";
//  - PEM output is NUL-terminated and decodes again when read without the
//    NUL too (out_len excludes it);
//  - the compressed and uncompressed raw forms of a decoded key decode to
//    the same key.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;

namespace {

std::vector<uint8_t> encode(const ks_sm2_pubkey* key, int pem) {
  return ks_fuzz::encode_output(
      [&](uint8_t* out, size_t cap, size_t* len) {
        return ks_sm2_pubkey_encode(key, pem, out, cap, len);
      },
      pem != 0);
}

// Decodes `bytes` (from an exactly-sized heap copy); the key must be `want`.
void expect_decodes_to(const std::vector<uint8_t>& bytes, const std::vector<uint8_t>& want,
                       const char* what, const std::vector<uint8_t>& input) {
  const HeapBytes copy(bytes);
  ks_sm2_pubkey* key = nullptr;
  const int rc = ks_sm2_pubkey_decode(copy.data(), copy.size(), &key);
  if (rc != KS_OK || !ks_fuzz::same(ks_fuzz::pubkey_bytes(key, 0), want)) {
    ks_fuzz::print_hex("input", input);
    ks_fuzz::print_hex(what, bytes);
    ks_fuzz::print_hex("key", want);
    KS_FUZZ_FAIL("%s of a decoded key does not decode to it: %d (%s)", what, rc,
                  ks_strerror(rc));
  }
  ks_sm2_pubkey_free(key);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HeapBytes in(data, size);
  const std::vector<uint8_t> input(data, data + size);
  ks_sm2_pubkey* key = nullptr;
  const int rc = ks_sm2_pubkey_decode(in.data(), in.size(), &key);
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(rc < 0 && ks_strerror(rc) != nullptr, "decode returned %d", rc);
    return 0;
  }
  KS_FUZZ_CHECK(key != nullptr, "KS_OK without a key");
  const std::vector<uint8_t> point = ks_fuzz::pubkey_bytes(key, 0);
  const std::vector<uint8_t> compressed = ks_fuzz::pubkey_bytes(key, 1);

  const std::vector<uint8_t> der = encode(key, 0);
  expect_decodes_to(der, point, "DER", input);
  std::vector<uint8_t> pem = encode(key, 1);
  expect_decodes_to(pem, point, "PEM", input);
  pem.push_back(0);  // as written, with its NUL
  expect_decodes_to(pem, point, "PEM with its NUL", input);

  const HeapBytes raw(compressed);
  ks_sm2_pubkey* again = nullptr;
  KS_FUZZ_OK(ks_sm2_pubkey_from_bytes(raw.data(), raw.size(), &again));
  KS_FUZZ_CHECK(ks_fuzz::same(ks_fuzz::pubkey_bytes(again, 0), point),
                "the compressed form decodes to another key");
  ks_sm2_pubkey_free(again);
  ks_sm2_pubkey_free(key);
  return 0;
}
