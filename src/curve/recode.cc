#include "curve/recode.h"

namespace ks {
namespace curve {

int wnaf(int digits[257], const field::U256& t, int w) {
  int carry = 0, used = 0;
  for (int i = 0; i < 257; ++i) digits[i] = 0;
  for (int bit = 0; bit < 257;) {
    if (int(field::bit_window(t, bit, 1)) == carry) {
      ++bit;
      continue;
    }
    int word = int(field::bit_window(t, bit, w)) + carry;
    carry = (word >> (w - 1)) & 1;
    word -= carry << w;
    digits[bit] = word;
    used = bit + 1;
    bit += w;
  }
  return used;
}

}  // namespace curve
}  // namespace ks
