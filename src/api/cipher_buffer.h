// One buffer of a 128-bit block cipher split over the context's threads:
// the part of ECB or CTR that is the same for SM4 and SKINNY.
#ifndef KS_API_CIPHER_BUFFER_H_
#define KS_API_CIPHER_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include <algorithm>

#include "cipher/modes.h"
#include "core/secure.h"
#include "gpu/gpu.h"

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

// The size from which an AUTO context sends a buffer to the GPU: each
// cipher's crossovers, measured end to end, from pinned caller memory
// (ks_host_alloc: copied directly) and from ordinary memory (staged).
inline size_t auto_gpu_min_bytes(const void* in, const void* out, size_t pinned_min,
                                 size_t pageable_min) {
  return gpu::host_pinned(in) && gpu::host_pinned(out) ? pinned_min : pageable_min;
}

}  // namespace api
}  // namespace ks

#endif  // KS_API_CIPHER_BUFFER_H_
