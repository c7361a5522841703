// The multiples of the Edwards25519 base point B that the fixed-base tables
// hold, as affine Niels points (y+x, y-x, 2dxy) in canonical words: written
// once for the build-time generator (tools/gen_ed25519_tables.cc) and the
// tables of other shapes built at run time (curve/ed25519_curve.h's
// comb_words: the GPU's comb). Portable field, formulas of curve/edwards.h.
#ifndef KS_CURVE_ED25519_BASE_MULTIPLES_H_
#define KS_CURVE_ED25519_BASE_MULTIPLES_H_

#include <stdint.h>

#include "curve/ed25519_params.h"
#include "curve/edwards.h"
#include "field/fe25519.h"

namespace ks {
namespace curve {
namespace ed25519 {

// visit(row, j, words) for j < entries of each row < rows, words (12:
// y+x, y-x, 2dxy, 4 little-endian words each) being the affine Niels form
// of (j + 1) 2^(shift row) B.
template <class Visit>
void visit_base_multiples(int rows, int shift, int entries, Visit visit) {
  using field::Fe25519;
  using P = ed::Extended<Fe25519>;
  const auto add = [](const P& a, const P& b) {
    return ed::add(a, ed::cached(b, kD2)).extended();
  };
  P row_base = {kBx, kBy, Fe25519::one(), Fe25519::mul(kBx, kBy)};  // 2^(shift row) B
  for (int row = 0; row < rows; ++row) {
    P multiple = row_base;
    for (int j = 0; j < entries; ++j) {
      const field::U256 zinv = Fe25519::inv(multiple.z);
      const field::U256 x = Fe25519::mul(multiple.x, zinv), y = Fe25519::mul(multiple.y, zinv);
      const field::U256 niels[3] = {Fe25519::add(y, x), Fe25519::sub(y, x),
                                    Fe25519::mul(Fe25519::mul(x, y), kD2)};
      uint64_t words[12];
      for (int e = 0; e < 3; ++e) {
        const field::U256 c = Fe25519::canonical(niels[e]);
        for (int i = 0; i < 4; ++i) words[4 * e + i] = c.w[i];
      }
      visit(row, j, static_cast<const uint64_t*>(words));
      multiple = add(multiple, row_base);
    }
    for (int i = 0; i < shift; ++i) row_base = add(row_base, row_base);
  }
}

}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_BASE_MULTIPLES_H_
