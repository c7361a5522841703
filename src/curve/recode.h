// Scalar recodings shared by every curve's scalar multiplications: signed
// fixed windows (Booth) for the constant-time paths, width-w NAF for
// verification (public scalars). Scalars are 256-bit integers (field/u256.h).
#ifndef KS_CURVE_RECODE_H_
#define KS_CURVE_RECODE_H_

#include <stdint.h>

#include "field/u256.h"

namespace ks {
namespace curve {

// A Booth-recoded window digit: |digit| and an all-ones mask if negative.
struct SignedDigit {
  uint64_t magnitude;
  uint64_t negative;
};

// Digit of window [pos, pos + w) in signed (Booth) recoding: with v the w+1
// bits [pos-1, pos+w) of k (bit -1 reads as 0), digit = ceil(v/2) - 2^w *
// bit(pos+w-1), which lies in [-2^(w-1), 2^(w-1)] and sums to k over all
// windows. Branch-free in k (pos is public).
inline SignedDigit booth_digit(const field::U256& k, int pos, int w) {
  const uint64_t v =
      pos == 0 ? field::bit_window(k, 0, w) << 1 : field::bit_window(k, pos - 1, w + 1);
  const uint64_t digit = ((v + 1) >> 1) - ((v >> w) << w);  // two's complement
  const uint64_t negative = 0 - (digit >> 63);
  return {(digit ^ negative) - negative, negative};
}

// Width-w NAF of t: digits[i] odd in (-2^(w-1), 2^(w-1)) or 0, at most one
// nonzero digit in any w consecutive positions. Returns the number of
// positions used (<= 257). Variable time: public scalars only.
int wnaf(int digits[257], const field::U256& t, int w);

}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_RECODE_H_
