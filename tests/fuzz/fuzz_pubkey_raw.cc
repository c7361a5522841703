// fuzz_pubkey_raw: ks_sm2_pubkey_from_bytes on inputs of every length, the
// empty one included.
//
// Properties checked:
//  - decoding never crashes or reads outside the input: the input is
//    copied into an exactly-sized heap buffer (for length 0, a pointer just
//    past a 1-byte allocation: any read of a prefix byte is reported, which
//    malloc(0) would not give under ASan), and (NULL, 0) is tried after the
//    first input of every run and after every empty input;
//  - only 33-, 64- and 65-byte inputs are accepted, and an accepted key's
//    uncompressed form is the input (65 bytes), 04||input (64 bytes), or
//    has the input as its compressed form (33 bytes);
//  - the compressed and uncompressed encodings of an accepted key decode
//    to the same key.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;

namespace {

void null_input() {
  ks_sm2_pubkey* key = nullptr;
  const int rc = ks_sm2_pubkey_from_bytes(nullptr, 0, &key);
  KS_FUZZ_CHECK(rc != KS_OK && rc < 0, "(NULL, 0) gave %d", rc);
}

std::vector<uint8_t> decode_again(const std::vector<uint8_t>& bytes) {
  const HeapBytes copy(bytes);
  ks_sm2_pubkey* key = nullptr;
  KS_FUZZ_OK(ks_sm2_pubkey_from_bytes(copy.data(), copy.size(), &key));
  std::vector<uint8_t> out = ks_fuzz::pubkey_bytes(key, 0);
  ks_sm2_pubkey_free(key);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const HeapBytes in(data, size);
  const std::vector<uint8_t> input(data, data + size);
  ks_sm2_pubkey* key = nullptr;
  const int rc = ks_sm2_pubkey_from_bytes(in.data(), in.size(), &key);
  static bool first = true;
  if (first || size == 0) {
    first = false;
    null_input();
  }
  if (rc != KS_OK) {
    KS_FUZZ_CHECK(rc < 0 && ks_strerror(rc) != nullptr, "from_bytes returned %d", rc);
    return 0;
  }
  KS_FUZZ_CHECK(size == 33 || size == 64 || size == 65, "accepted a %zu-byte key", size);
  const std::vector<uint8_t> point = ks_fuzz::pubkey_bytes(key, 0);
  const std::vector<uint8_t> compressed = ks_fuzz::pubkey_bytes(key, 1);
  switch (size) {
    case 65:
      KS_FUZZ_CHECK(ks_fuzz::same(point, input), "65-byte key re-encodes differently");
      break;
    case 64:
      KS_FUZZ_CHECK(point[0] == 4 && memcmp(point.data() + 1, data, 64) == 0,
                    "64-byte key re-encodes differently");
      break;
    case 33:
      KS_FUZZ_CHECK(ks_fuzz::same(compressed, input), "33-byte key re-encodes differently");
      break;
  }
  KS_FUZZ_CHECK(compressed[0] == (2 | (point[64] & 1)) &&
                    memcmp(compressed.data() + 1, point.data() + 1, 32) == 0,
                "compressed form does not match the point");
  KS_FUZZ_CHECK(ks_fuzz::same(decode_again(point), point), "uncompressed form decodes elsewhere");
  KS_FUZZ_CHECK(ks_fuzz::same(decode_again(compressed), point),
                "compressed form decodes to another key");
  ks_sm2_pubkey_free(key);
  return 0;
}
