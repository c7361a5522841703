// fuzz_pkcs8_decrypt: ks_pkcs8_decrypt (EncryptedPrivateKeyInfo, PBES2,
// DER or PEM, detected) on arbitrary bytes under a passphrase taken from
// the input.
//
// Input layout: passphrase length byte (mod 32), that many passphrase
// bytes, then the encrypted key. The reader's maximum is 4,096 PBKDF2
// iterations (ks_pkcs8_decrypt_max), so that a file's iteration count
// cannot turn into a timeout; the library itself is built as shipped.
//
// Properties checked:
//  - decrypting never crashes or reads outside the input or the output
//    (exactly-sized heap copies), and fails with a negative status;
//  - what decrypts is one DER SEQUENCE no longer than the input, and the
//    size query of the out/out_cap/out_len rule gives its length;
//  - encrypting it again (each scheme, one iteration) and decrypting that
//    gives the same bytes; another passphrase gives KS_ERR_WRONG_PASSPHRASE
//    or, rarely, other bytes, never these.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;

namespace {

constexpr uint32_t kMaxIterations = 4096;

std::vector<uint8_t> decrypt(const std::vector<uint8_t>& in, const std::vector<uint8_t>& pw,
                             int* rc) {
  const HeapBytes copy(in), pass(pw);
  size_t need = 0;
  *rc = ks_pkcs8_decrypt_max(copy.data(), copy.size(), pass.data(), pass.size(), kMaxIterations,
                             nullptr, 0, &need);
  if (*rc != KS_ERR_LENGTH) return {};
  KS_FUZZ_CHECK(need <= in.size(), "plaintext of %zu bytes from %zu", need, in.size());
  HeapBytes out(need);
  size_t got = 0;
  *rc = ks_pkcs8_decrypt_max(copy.data(), copy.size(), pass.data(), pass.size(), kMaxIterations,
                             out.data(), out.size(), &got);
  KS_FUZZ_CHECK(*rc == KS_OK && got == need, "decrypt gave %d, %zu bytes after a size query "
                "of %zu", *rc, got, need);
  return std::vector<uint8_t>(out.data(), out.data() + got);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ks_fuzz::Reader r(data, size);
  const size_t pw_len = r.u8() % 32;
  const std::vector<uint8_t> pw = r.bytes(pw_len);
  const std::vector<uint8_t> in = r.remainder();
  int rc = 0;
  const std::vector<uint8_t> plain = decrypt(in, pw, &rc);
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(rc < 0, "a failure with status %d", rc);
    return 0;
  }
  KS_FUZZ_CHECK(plain.size() >= 2 && plain[0] == 0x30, "decrypted bytes are not a SEQUENCE");
  for (int scheme : {KS_PBES2_AES256_SHA256, KS_PBES2_AES128_SHA256, KS_PBES2_SM4_SM3}) {
    std::vector<uint8_t> again(2 * plain.size() + 512);
    size_t len = 0;
    KS_FUZZ_OK(ks_pkcs8_encrypt(plain.data(), plain.size(), pw.data(), pw.size(), scheme, 1,
                                scheme == KS_PBES2_SM4_SM3, again.data(), again.size(), &len));
    again.resize(len);
    KS_FUZZ_CHECK(ks_fuzz::same(decrypt(again, pw, &rc), plain) && rc == KS_OK,
                  "scheme %d does not round trip: %d", scheme, rc);
    std::vector<uint8_t> other = pw;
    other.push_back(0x5a);
    const std::vector<uint8_t> wrong = decrypt(again, other, &rc);
    KS_FUZZ_CHECK(rc == KS_ERR_WRONG_PASSPHRASE || (rc == KS_OK && !ks_fuzz::same(wrong, plain)),
                  "another passphrase gave %d", rc);
  }
  return 0;
}
