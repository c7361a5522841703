// The multiples of the Edwards25519 base point B that the fixed-base tables
// hold, as affine Niels points (y+x, y-x, 2dxy) in canonical words: written
// once for the build-time generator (src/curve25519/gen_ed25519_tables.cc) and the
// tables of other shapes built at run time (curve25519/ed25519_curve.h's
// comb_words: the GPU's comb and wide table). Portable field, formulas of curve/edwards.h.
#ifndef KS_CURVE_ED25519_BASE_MULTIPLES_H_
#define KS_CURVE_ED25519_BASE_MULTIPLES_H_

#include <stdint.h>

#include <vector>

#include "curve25519/ed25519_params.h"
#include "curve/edwards.h"
#include "field/batch_invert.h"
#include "field/fe25519.h"

namespace ks {
namespace curve {
namespace ed25519 {

// visit(row, j, words) for j < entries, words (12: y+x, y-x, 2dxy, 4
// little-endian words each) being the affine Niels form of (j + 1)
// 2^(shift row) B: one row, its Z coordinates inverted together
// (field/batch_invert.h), so that a row costs about 16 products an entry
// (the GPU's 16-bit-window table has 2^15 entries a row).
template <class Visit>
void visit_base_multiples_row(int row, int shift, int entries, Visit visit) {
  using field::Fe25519;
  using field::U256;
  using P = ed::Extended<Fe25519>;
  const auto add = [](const P& a, const P& b) {
    return ed::add(a, ed::cached(b, kD2)).extended();
  };
  P row_base = {kBx, kBy, Fe25519::one(), Fe25519::mul(kBx, kBy)};
  for (int i = 0; i < shift * row; ++i) row_base = add(row_base, row_base);  // 2^(shift row) B
  std::vector<P> multiple(size_t(entries > 0 ? entries : 0));
  std::vector<U256> zinv(multiple.size()), prefix(multiple.size());
  for (int j = 0; j < entries; ++j) {
    multiple[j] = j == 0 ? row_base : add(multiple[j - 1], row_base);
    zinv[j] = multiple[j].z;
  }
  field::batch_invert<Fe25519>(zinv.data(), prefix.data(), entries);  // public points: no zero z
  for (int j = 0; j < entries; ++j) {
    const U256 x = Fe25519::mul(multiple[j].x, zinv[j]), y = Fe25519::mul(multiple[j].y, zinv[j]);
    const U256 niels[3] = {Fe25519::add(y, x), Fe25519::sub(y, x),
                           Fe25519::mul(Fe25519::mul(x, y), kD2)};
    uint64_t words[12];
    for (int e = 0; e < 3; ++e) {
      const U256 c = Fe25519::canonical(niels[e]);
      for (int i = 0; i < 4; ++i) words[4 * e + i] = c.w[i];
    }
    visit(row, j, static_cast<const uint64_t*>(words));
  }
}

// The same for rows 0 .. rows - 1.
template <class Visit>
void visit_base_multiples(int rows, int shift, int entries, Visit visit) {
  for (int row = 0; row < rows; ++row) visit_base_multiples_row(row, shift, entries, visit);
}

}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_BASE_MULTIPLES_H_
