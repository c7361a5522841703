// fuzz_sm2_decrypt: ks_sm2_decrypt on arbitrary bytes in each ciphertext
// form (the first byte picks it: C1C3C2, C1C2C3, DER), under the private
// key of OpenSSL's SM2 encryption example (so the seed corpus holds real
// ciphertexts, tests/fuzz/make_corpus.py).
//
// Properties checked:
//  - decryption never crashes or reads outside the input (exactly-sized
//    heap copy) and fails with KS_ERR_BAD_CIPHERTEXT,
//    KS_ERR_CIPHERTEXT_MISMATCH or KS_ERR_LENGTH;
//  - on failure nothing is released: the output holds zeros up to the
//    plaintext length and is untouched beyond it;
//  - what decrypts re-encrypts (to the key's public key, same form) to a
//    ciphertext that decrypts to the same plaintext;
//  - the layout the GPU makes of the same bytes (sm2/gpu/sm2_gpu_host.h's
//    layout_of, host-and-device code) agrees: a ciphertext it calls bad
//    does not decrypt, one it lays out has its parts inside the input and
//    decrypts to C2's length where it decrypts, with C1's form (04, or a
//    compressed 02 / 03, which the GPU recovers) as given; none is left
//    to the host.
#include "fuzz_util.h"
#include "sm2/gpu/sm2_gpu_host.h"

namespace {

constexpr uint8_t kKey[32] = {0x39, 0x45, 0x20, 0x8F, 0x7B, 0x21, 0x44, 0xB1, 0x3F, 0x36, 0xE3,
                              0x8A, 0xC6, 0xD3, 0x9F, 0x95, 0x88, 0x93, 0x93, 0x69, 0x28, 0x60,
                              0xB5, 0x1A, 0x42, 0xFB, 0x81, 0xEF, 0x4D, 0xF7, 0xC5, 0xB8};

struct Keys {
  ks_sm2_key* key = nullptr;
  ks_sm2_pubkey* pub = nullptr;
  Keys() {
    KS_FUZZ_OK(ks_sm2_key_from_bytes(kKey, sizeof kKey, &key));
    KS_FUZZ_OK(ks_sm2_key_public(key, &pub));
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Keys keys;
  if (size == 0) return 0;
  const int form = data[0] % 3;
  const ks_fuzz::HeapBytes ct(data + 1, size - 1);
  const size_t cap = ct.size() + 1;
  ks_fuzz::HeapBytes out(cap);
  memset(out.data(), 0xA5, cap);
  size_t len = 0;
  const int rc = ks_sm2_decrypt(keys.key, form, ct.data(), ct.size(), out.data(), cap, &len);
  namespace gpu = ks::sm2::gpu;
  const gpu::CiphertextLayout l =
      gpu::layout_of(ct.data(), ct.size(), ks::sm2::CipherForm(form), UINT64_MAX);
  if (l.status == gpu::kBadCiphertext) KS_FUZZ_CHECK(rc != KS_OK, "a bad layout decrypts");
  KS_FUZZ_CHECK(l.status != gpu::kRedoOnHost, "layout left to the host with no C2 limit");
  if (l.status == gpu::kOk) {
    KS_FUZZ_CHECK(uint64_t(l.c3_at) + 32 <= ct.size() &&
                      uint64_t(l.c2_at) + l.c2_len <= ct.size(),
                  "layout outside the input");
    KS_FUZZ_CHECK(l.c1_prefix == (form == 2 ? 0x04u : ct.data()[0]), "layout's C1 form differs");
    KS_FUZZ_CHECK(rc != KS_OK || len == l.c2_len, "layout's C2 length differs");
  }
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(rc == KS_ERR_BAD_CIPHERTEXT || rc == KS_ERR_CIPHERTEXT_MISMATCH ||
                      rc == KS_ERR_LENGTH,
                  "decrypt returned %d", rc);
    size_t zeroed = 0;
    while (zeroed < cap && out.data()[zeroed] == 0) ++zeroed;
    for (size_t i = zeroed; i < cap; ++i)
      KS_FUZZ_CHECK(out.data()[i] == 0xA5, "byte %zu written by a failed decryption", i);
    return 0;
  }
  std::vector<uint8_t> again(ks_sm2_ciphertext_bound(len, form));
  size_t again_len = 0, back_len = 0;
  KS_FUZZ_OK(ks_sm2_encrypt(keys.pub, form, out.data(), len, again.data(), again.size(),
                            &again_len));
  std::vector<uint8_t> back(len + 1);
  KS_FUZZ_OK(ks_sm2_decrypt(keys.key, form, again.data(), again_len, back.data(), back.size(),
                            &back_len));
  KS_FUZZ_CHECK(back_len == len && memcmp(back.data(), out.data(), len) == 0,
                "the re-encrypted plaintext does not come back");
  return 0;
}
