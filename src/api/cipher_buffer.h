// One buffer of a 128-bit block cipher split over the context's threads:
// the part of ECB or CTR that is the same for SM4 and SKINNY.
#ifndef KS_API_CIPHER_BUFFER_H_
#define KS_API_CIPHER_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include <algorithm>

#include "cipher/modes.h"
#include "core/secure.h"

namespace ks {
namespace api {

// Blocks [begin, end) of a buffer of len bytes: ECB (counter0 null) or CTR
// from the first counter block counter0, the last block partial in CTR.
inline void crypt_range(const BlockCipher& bc, const void* key, bool encrypt,
                        const uint8_t* counter0, const uint8_t* in, uint8_t* out, size_t len,
                        size_t begin, size_t end) {
  constexpr size_t kBlock = modes::kBlock;
  const size_t lo = kBlock * begin, hi = std::min(len, kBlock * end);
  if (counter0 == nullptr) {
    (encrypt ? bc.encrypt : bc.decrypt)(key, in + lo, out + lo, end - begin);
    return;
  }
  modes::StreamState s;
  const WipeOnExit wipe(&s, sizeof s);
  modes::stream_init(&s, counter0);
  modes::ctr128_add(s.iv, begin);
  modes::ctr_crypt(bc, key, &s, in + lo, out + lo, hi - lo);
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_CIPHER_BUFFER_H_
