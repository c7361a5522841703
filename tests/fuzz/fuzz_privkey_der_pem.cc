// fuzz_privkey_der_pem: ks_sm2_key_decode (PKCS#8 PrivateKeyInfo or SEC1
// ECPrivateKey, DER or PEM, detected) on arbitrary bytes.
//
// Properties checked:
//  - decoding never crashes or reads outside the input (exactly-sized heap
//    copy), and fails with a negative status (encrypted PEM included);
//  - decode, encode, decode gives the same key: a decoded key encodes to
//    PKCS#8 DER and PEM (following the out/out_cap/out_len rule), and both
//    decode again to the same d (compared through ks_sm2_key_to_bytes) and
//    the same public key. This is what catches DER being taken for PEM when
//    d carries "-----BEGIN ";
//  - the decoded d is a valid private key by itself (ks_sm2_key_from_bytes)
//    with the same public key.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;

namespace {

std::vector<uint8_t> encode(const ks_sm2_key* key, int pem) {
  return ks_fuzz::encode_output(
      [&](uint8_t* out, size_t cap, size_t* len) {
        return ks_sm2_key_encode(key, pem, out, cap, len);
      },
      pem != 0);
}

std::vector<uint8_t> private_bytes(const ks_sm2_key* key) {
  uint8_t d[KS_SM2_PRIVATE_KEY_BYTES];
  KS_FUZZ_OK(ks_sm2_key_to_bytes(key, d));
  return std::vector<uint8_t>(d, d + sizeof d);
}

std::vector<uint8_t> public_bytes(const ks_sm2_key* key) {
  ks_sm2_pubkey* pub = nullptr;
  KS_FUZZ_OK(ks_sm2_key_public(key, &pub));
  std::vector<uint8_t> out = ks_fuzz::pubkey_bytes(pub, 0);
  ks_sm2_pubkey_free(pub);
  return out;
}

void expect_decodes_to(const std::vector<uint8_t>& bytes, const std::vector<uint8_t>& d,
                       const std::vector<uint8_t>& pub, const char* what,
                       const std::vector<uint8_t>& input) {
  const HeapBytes copy(bytes);
  ks_sm2_key* key = nullptr;
  const int rc = ks_sm2_key_decode(copy.data(), copy.size(), &key);
  if (rc != KS_OK || !ks_fuzz::same(private_bytes(key), d) ||
      !ks_fuzz::same(public_bytes(key), pub)) {
    ks_fuzz::print_hex("input", input);
    ks_fuzz::print_hex(what, bytes);
    ks_fuzz::print_hex("d", d);
    KS_FUZZ_FAIL("%s of a decoded key does not decode to it: %d (%s)", what, rc,
                  ks_strerror(rc));
  }
  ks_sm2_key_free(key);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HeapBytes in(data, size);
  const std::vector<uint8_t> input(data, data + size);
  ks_sm2_key* key = nullptr;
  const int rc = ks_sm2_key_decode(in.data(), in.size(), &key);
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(rc < 0 && ks_strerror(rc) != nullptr, "decode returned %d", rc);
    return 0;
  }
  KS_FUZZ_CHECK(key != nullptr, "KS_OK without a key");
  const std::vector<uint8_t> d = private_bytes(key);
  const std::vector<uint8_t> pub = public_bytes(key);

  expect_decodes_to(encode(key, 0), d, pub, "PKCS#8 DER", input);
  expect_decodes_to(encode(key, 1), d, pub, "PKCS#8 PEM", input);

  const HeapBytes d_copy(d);
  ks_sm2_key* from_d = nullptr;
  KS_FUZZ_OK(ks_sm2_key_from_bytes(d_copy.data(), d_copy.size(), &from_d));
  KS_FUZZ_CHECK(ks_fuzz::same(public_bytes(from_d), pub), "d gives another public key");
  ks_sm2_key_free(from_d);
  ks_sm2_key_free(key);
  return 0;
}
