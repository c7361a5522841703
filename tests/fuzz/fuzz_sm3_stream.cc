// fuzz_sm3_stream: streaming SM3 and HMAC-SM3 fed in arbitrary chunks.
//
// Input layout (fields past the end of the input read as zeros):
//   key_len  1 byte (255: 2 more bytes, mod 1024, for keys longer than a
//            block), then the HMAC key
//   chunks   the rest, as records: 1 byte c, then
//              c == 0:   a zero-length chunk from a valid pointer
//              c == 255: a (NULL, 0) chunk
//              c & 128:  (c & 127) bytes, fed (repeat byte) + 1 times
//              else:     c bytes
//
// Properties checked:
//  - every chunk is an exactly-sized heap copy: no update reads past it;
//    zero-length chunks, from a pointer or NULL, are accepted;
//  - ks_sm3_init/update/final over the chunks equals the one-shot ks_sm3 of
//    their concatenation (called with NULL when it is empty); final
//    re-initialises the context: the concatenation fed again in one update
//    gives the same digest;
//  - the same for ks_hmac_sm3_init/update/final against ks_hmac_sm3, and
//    the HMAC context stays keyed after final: the concatenation fed again
//    in one update gives the same tag.
#include "fuzz_util.h"

using ks_fuzz::HeapBytes;
using ks_fuzz::Reader;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r(data, size);
  size_t key_len = r.u8();
  if (key_len == 255) key_len = r.u16() % 1024;
  const HeapBytes key(r.bytes(key_len));

  ks_sm3_ctx sm3;
  ks_hmac_sm3_ctx hmac;
  KS_FUZZ_OK(ks_sm3_init(&sm3));
  KS_FUZZ_OK(ks_hmac_sm3_init(&hmac, key.size() == 0 ? nullptr : key.data(), key.size()));
  std::vector<uint8_t> all;
  while (r.left() > 0) {
    const uint8_t c = r.u8();
    if (c == 255) {
      KS_FUZZ_OK(ks_sm3_update(&sm3, nullptr, 0));
      KS_FUZZ_OK(ks_hmac_sm3_update(&hmac, nullptr, 0));
      continue;
    }
    const size_t repeat = (c & 128) ? size_t(r.u8()) + 1 : 1;
    const HeapBytes chunk(r.bytes(c & 127));
    for (size_t i = 0; i < repeat; ++i) {
      KS_FUZZ_OK(ks_sm3_update(&sm3, chunk.data(), chunk.size()));
      KS_FUZZ_OK(ks_hmac_sm3_update(&hmac, chunk.data(), chunk.size()));
      all.insert(all.end(), chunk.data(), chunk.data() + chunk.size());
    }
  }
  const HeapBytes whole(all);
  const uint8_t* whole_p = whole.size() == 0 ? nullptr : whole.data();

  uint8_t streamed[32], oneshot[32];
  KS_FUZZ_OK(ks_sm3_final(&sm3, streamed));
  KS_FUZZ_OK(ks_sm3(whole_p, whole.size(), oneshot));
  KS_FUZZ_CHECK(memcmp(streamed, oneshot, 32) == 0, "streamed SM3 differs (%zu bytes)",
                whole.size());
  // final re-initialised the context: the whole message again, in one go.
  KS_FUZZ_OK(ks_sm3_update(&sm3, whole_p, whole.size()));
  KS_FUZZ_OK(ks_sm3_final(&sm3, streamed));
  KS_FUZZ_CHECK(memcmp(streamed, oneshot, 32) == 0, "SM3 after final differs");

  KS_FUZZ_OK(ks_hmac_sm3_final(&hmac, streamed));
  KS_FUZZ_OK(ks_hmac_sm3(key.size() == 0 ? nullptr : key.data(), key.size(), whole_p,
                         whole.size(), oneshot));
  KS_FUZZ_CHECK(memcmp(streamed, oneshot, 32) == 0, "streamed HMAC-SM3 differs (%zu bytes)",
                whole.size());
  // Still keyed after final.
  KS_FUZZ_OK(ks_hmac_sm3_update(&hmac, whole_p, whole.size()));
  KS_FUZZ_OK(ks_hmac_sm3_final(&hmac, streamed));
  KS_FUZZ_CHECK(memcmp(streamed, oneshot, 32) == 0, "HMAC-SM3 after final differs");
  ks_hmac_sm3_cleanse(&hmac);
  return 0;
}
