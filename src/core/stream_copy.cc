#include "core/stream_copy.h"

#include <stdint.h>
#include <string.h>

#include "core/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ks {
namespace {

#if defined(__x86_64__)
// 128 bytes per step into 32-byte-aligned destination lines; the unaligned
// head and the tail go through memcpy. The sfence orders the streaming
// stores before whatever the caller does next (e.g. a GPU copy).
__attribute__((target("avx2"))) void stream_copy_avx2(uint8_t* dst, const uint8_t* src,
                                                       size_t bytes) {
  const size_t head = (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31;
  memcpy(dst, src, head);
  dst += head, src += head, bytes -= head;
  for (; bytes >= 128; dst += 128, src += 128, bytes -= 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 96), d);
  }
  _mm_sfence();
  memcpy(dst, src, bytes);
}
#endif

}  // namespace

void stream_copy(void* dst, const void* src, size_t bytes) {
#if defined(__x86_64__)
  static const bool avx2 = cpu_features().avx2;
  if (avx2 && bytes >= 4096) {
    stream_copy_avx2(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), bytes);
    return;
  }
#endif
  if (bytes != 0) memcpy(dst, src, bytes);  // an empty copy may have null pointers
}

}  // namespace ks
