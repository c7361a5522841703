// Montgomery's trick (simultaneous inversion): n field elements inverted
// with one inversion and 3(n - 1) products, written once over the field
// policy (field/policy.h) for every field type: the GPU's SM2 keygen and
// sign invert their items' Z together, the 8-lane IFMA X25519 inverts the
// z of several groups of lanes together.
//
// Constant time: the same products whatever the values; a zero element is
// replaced by 1 with a select (it would otherwise zero every inverse), so
// its "inverse" is 1 and the caller masks that item's result where a zero
// is possible (see each caller).
#ifndef KS_FIELD_BATCH_INVERT_H_
#define KS_FIELD_BATCH_INVERT_H_

#include "core/hd.h"

namespace ks {
namespace field {

// z[j] <- z[j]^-1 for j < n (a zero z[j] becomes 1; nothing for n < 1),
// with prefix[0..n-1] as scratch: prefix[j] = z[0] ... z[j].
template <class F>
KS_HD void batch_invert(typename F::Elem* z, typename F::Elem* prefix, int n) {
  if (n < 1) return;  // a public count
  KS_NO_UNROLL for (int j = 0; j < n; ++j) {
    z[j] = F::select(F::is_zero(z[j]), F::one(), z[j]);
    prefix[j] = j == 0 ? z[0] : F::mul(prefix[j - 1], z[j]);
  }
  auto inv = F::inv(prefix[n - 1]);  // (z[0] ... z[j])^-1, j from the top
  KS_NO_UNROLL for (int j = n - 1; j > 0; --j) {
    const auto zj_inv = F::mul(inv, prefix[j - 1]);
    inv = F::mul(inv, z[j]);
    z[j] = zj_inv;
  }
  z[0] = inv;
}

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_BATCH_INVERT_H_
