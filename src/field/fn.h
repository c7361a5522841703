// Scalars of SM2: integers mod the group order
// n = FFFFFFFE FFFFFFFF FFFFFFFF FFFFFFFF 7203DF6B 21C6052B 53BBF409 39D54123
// (GM/T 0003.5), with Montgomery products (field/mont_n.h). In SM2 every
// value reduced with reduce_once is below 2n: hash values e < 2^256 < 2n,
// and field elements x < p < 2n.
#ifndef KS_FIELD_FN_H_
#define KS_FIELD_FN_H_

#include "field/mont_n.h"

namespace ks {
namespace field {

namespace fn_detail {

struct Sm2Order {
  static constexpr U256 kModulus = {
      {0x53BBF40939D54123ull, 0x7203DF6B21C6052Bull, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFEFFFFFFFFull}};
};
constexpr U256 kN = Sm2Order::kModulus;

}  // namespace fn_detail

using Fn = MontScalar<fn_detail::Sm2Order>;

}  // namespace field
}  // namespace ks

#endif  // KS_FIELD_FN_H_
