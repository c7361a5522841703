// Constant-time table lookups for the scalar multiplications of every
// curve: an entry is read by touching every entry of its table ([TONGSUO23]'s
// select_point), so neither the branch pattern nor the memory addresses
// depend on the (secret) index.
#ifndef KS_CURVE_CT_LOOKUP_H_
#define KS_CURVE_CT_LOOKUP_H_

#include <stdint.h>
#include <string.h>

namespace ks {
namespace curve {

// out = table[index - 1] for index in [1, size], all-zero words for index
// 0. Entries are `words` 64-bit words apart; entries of 4, 8 or 12 words
// are scanned with AVX2 where the CPU has it, others (and every entry on
// other CPUs) word by word.
void ct_lookup_words(uint64_t* out, const uint64_t* table, int size, int words, uint64_t index);

// The same for a table of plain-old-data points.
template <class Point>
Point ct_lookup(const Point* table, int size, uint64_t index) {
  constexpr int kWords = sizeof(Point) / sizeof(uint64_t);
  static_assert(kWords * sizeof(uint64_t) == sizeof(Point), "whole words");
  static_assert(kWords % 4 == 0 && kWords <= 12, "whole 256-bit lanes (the vector scans)");
  uint64_t out[kWords];
  ct_lookup_words(out, reinterpret_cast<const uint64_t*>(table), size, kWords, index);
  Point p;
  memcpy(&p, out, sizeof p);
  return p;
}

}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_CT_LOOKUP_H_
