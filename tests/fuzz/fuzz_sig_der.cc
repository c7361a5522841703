// fuzz_sig_der: ks_sm2_signature_from_der on arbitrary bytes.
//
// Properties checked:
//  - decoding never crashes or reads outside the input (exactly-sized heap
//    copy), and fails with a negative status;
//  - strict DER is canonical: whatever the decoder accepts,
//    ks_sm2_signature_to_der gives back exactly the same bytes;
//  - the other way round, the first 64 input bytes taken as r||s encode to
//    DER (at most KS_SM2_SIGNATURE_DER_MAX_BYTES) that decodes to them.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;

namespace {

std::vector<uint8_t> to_der(const uint8_t sig[KS_SM2_SIGNATURE_BYTES]) {
  std::vector<uint8_t> der = ks_fuzz::encode_output(
      [&](uint8_t* out, size_t cap, size_t* len) {
        return ks_sm2_signature_to_der(sig, out, cap, len);
      },
      false);
  KS_FUZZ_CHECK(der.size() <= KS_SM2_SIGNATURE_DER_MAX_BYTES, "DER of %zu bytes", der.size());
  return der;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HeapBytes in(data, size);
  const std::vector<uint8_t> input(data, data + size);

  uint8_t sig[KS_SM2_SIGNATURE_BYTES];
  int rc = ks_sm2_signature_from_der(in.data(), in.size(), sig);
  if (rc == KS_OK) {
    const std::vector<uint8_t> der = to_der(sig);
    if (!ks_fuzz::same(der, input)) {
      ks_fuzz::print_hex("input", input);
      ks_fuzz::print_hex("re-encoded", der);
      KS_FUZZ_FAIL("accepted DER does not re-encode to the same bytes");
    }
  } else {
    KS_FUZZ_CHECK(rc < 0 && ks_strerror(rc) != nullptr, "from_der returned %d", rc);
  }

  // r||s -> DER -> r||s.
  if (size >= KS_SM2_SIGNATURE_BYTES) {
    const std::vector<uint8_t> der = to_der(data);
    const HeapBytes der_copy(der);
    uint8_t back[KS_SM2_SIGNATURE_BYTES];
    rc = ks_sm2_signature_from_der(der_copy.data(), der_copy.size(), back);
    KS_FUZZ_CHECK(rc == KS_OK, "our own DER did not decode: %d (%s)", rc, ks_strerror(rc));
    KS_FUZZ_CHECK(memcmp(back, data, KS_SM2_SIGNATURE_BYTES) == 0, "r||s changed through DER");
  }
  return 0;
}
