#include "curve/ct_lookup.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/cpu_features.h"
#include "core/secure.h"

namespace ks {
namespace curve {
namespace {

void scan_words(uint64_t* out, const uint64_t* table, int size, int words, uint64_t index) {
  for (int j = 0; j < words; ++j) out[j] = 0;
  for (int i = 0; i < size; ++i) {
    const uint64_t mask = value_barrier(ct_eq_mask(uint64_t(i + 1), index));
    for (int j = 0; j < words; ++j) out[j] |= table[i * words + j] & mask;
  }
}

#if defined(__x86_64__)
// The same scan 256 bits at a time: an SM2 comb lookup reads 64 entries of
// 64 bytes, which the word loop above makes ~1,500 instructions and this
// ~250, a third of the time of a signature. The masks come from vpcmpeqq,
// which has no data-dependent timing.
__attribute__((target("avx2"))) void scan_avx2(uint64_t* out, const uint64_t* table, int size,
                                               int words, uint64_t index) {
  const int lanes = words / 4;
  __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  const __m256i want = _mm256_set1_epi64x(int64_t(index)), one = _mm256_set1_epi64x(1);
  __m256i position = one;
  for (int i = 0; i < size; ++i) {
    const __m256i mask = _mm256_cmpeq_epi64(position, want);
    const __m256i* entry = reinterpret_cast<const __m256i*>(table + i * words);
    for (int j = 0; j < lanes; ++j)
      acc[j] = _mm256_or_si256(acc[j], _mm256_and_si256(mask, _mm256_loadu_si256(entry + j)));
    position = _mm256_add_epi64(position, one);
  }
  for (int j = 0; j < lanes; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out) + j, acc[j]);
}
#endif

}  // namespace

void ct_lookup_words(uint64_t* out, const uint64_t* table, int size, int words, uint64_t index) {
#if defined(__x86_64__)
  static const bool avx2 = cpu_features().avx2;
  if (avx2 && words % 4 == 0 && words <= 12) return scan_avx2(out, table, size, words, index);
#endif
  scan_words(out, table, size, words, index);
}

}  // namespace curve
}  // namespace ks
