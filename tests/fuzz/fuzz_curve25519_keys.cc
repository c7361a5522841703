// fuzz_curve25519_keys: the RFC 8410 key decoders of
// curve25519/curve25519_formats (SubjectPublicKeyInfo and PKCS#8, DER) on
// arbitrary bytes, both of them on every input.
//
// Properties checked:
//  - decoding never crashes or reads outside the input (exactly-sized heap
//    copy), and fails with a negative status;
//  - strict DER is canonical: an accepted SPKI re-encodes to exactly the
//    input; so does an accepted PKCS#8 that leaves no room for optional
//    fields (our length, no public key), its version byte (0, or 1 for
//    OneAsymmetricKey) aside;
//  - any accepted PKCS#8 (attributes, a public key) re-encodes to version 0
//    that decodes to the same algorithm and key, without a public key;
//  - an input one family's decoders accept is another algorithm to the
//    other's: the SM2 decoders answer KS_ERR_KEY_ALGORITHM.
#include "curve25519/curve25519_formats.h"
#include "sm2/sm2_formats.h"
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;
namespace fmt = ks::curve25519_formats;

namespace {

// The byte of PKCS#8's version INTEGER in our (short-form) encoding:
// 30 2E 02 01 <version>.
constexpr size_t kVersionAt = 4;

std::vector<uint8_t> plain(const ks::Bytes& b) { return std::vector<uint8_t>(b.begin(), b.end()); }

void require_same(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                  const char* what, const std::vector<uint8_t>& input) {
  if (ks_fuzz::same(got, want)) return;
  ks_fuzz::print_hex("input", input);
  ks_fuzz::print_hex("re-encoded", got);
  ks_fuzz::print_hex("expected", want);
  KS_FUZZ_FAIL("%s", what);
}

void check_status(int rc, const char* what) {
  KS_FUZZ_CHECK(rc <= 0 && ks_strerror(rc) != nullptr, "%s returned %d", what, rc);
}

void check_spki(const HeapBytes& in, const std::vector<uint8_t>& input) {
  fmt::Curve25519Alg alg = fmt::kEd25519;
  uint8_t key[fmt::kKeyBytes];
  const int rc = fmt::spki_decode(in.data(), in.size(), &alg, key);
  check_status(rc, "spki_decode");
  if (rc != KS_OK) return;
  require_same(plain(fmt::spki_encode(alg, key)), input,
               "an accepted SPKI does not re-encode to the same bytes", input);
  const uint8_t* point = nullptr;
  size_t point_len = 0;
  const int sm2_rc = ks::sm2_formats::spki_decode(in.data(), in.size(), &point, &point_len);
  KS_FUZZ_CHECK(sm2_rc == KS_ERR_KEY_ALGORITHM, "the SM2 SPKI decoder says %d", sm2_rc);
}

// Decodes our own version 0 encoding of key again: the same key, no public key.
void check_reencoded(const fmt::PrivateKey& key, const std::vector<uint8_t>& der,
                     const std::vector<uint8_t>& input) {
  const HeapBytes copy(der);
  fmt::PrivateKey again;
  KS_FUZZ_OK(fmt::pkcs8_decode(copy.data(), copy.size(), &again));
  const bool same = again.alg == key.alg && !again.has_public_key &&
                    memcmp(again.key, key.key, fmt::kKeyBytes) == 0;
  if (!same) {
    ks_fuzz::print_hex("input", input);
    KS_FUZZ_FAIL("the re-encoded PKCS#8 decodes to another key");
  }
}

void check_pkcs8(const HeapBytes& in, const std::vector<uint8_t>& input) {
  fmt::PrivateKey key;
  const int rc = fmt::pkcs8_decode(in.data(), in.size(), &key);
  check_status(rc, "pkcs8_decode");
  if (rc != KS_OK) return;
  std::vector<uint8_t> der = plain(fmt::pkcs8_encode(key.alg, key.key));
  check_reencoded(key, der, input);
  if (!key.has_public_key && der.size() == input.size()) {
    der[kVersionAt] = input[kVersionAt];  // 0 or 1: both have this layout
    require_same(der, input, "an accepted PKCS#8 without optional fields is not ours", input);
  }
  uint8_t d[32];
  const ks::WipeOnExit wipe_d(d, sizeof d);
  const uint8_t* pub = nullptr;
  size_t pub_len = 0;
  const int sm2_rc = ks::sm2_formats::private_key_decode(in.data(), in.size(), d, &pub, &pub_len);
  KS_FUZZ_CHECK(sm2_rc == KS_ERR_KEY_ALGORITHM, "the SM2 private key decoder says %d", sm2_rc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HeapBytes in(data, size);
  const std::vector<uint8_t> input(data, data + size);
  check_spki(in, input);
  check_pkcs8(in, input);
  return 0;
}
