// Pieces of the SM2 signer that the scalar (sm2.cc) and the 8-lane
// (sm2_mb.cc) implementations share. Internal: not part of any API.
#ifndef KS_SCHEME_SM2_INTERNAL_H_
#define KS_SCHEME_SM2_INTERNAL_H_

#include <stdint.h>

#include "field/u256.h"
#include "sm2/sm2.h"

namespace ks {
namespace sm2 {
namespace detail {

// A verdict derived from secrets that is public by design (a rejected
// random draw, a retried signing attempt, an invalid caller key): true when
// mask is nonzero. In a KS_CTGRIND build valgrind treats it as public.
bool declassify(uint64_t mask);

// n - k, for the ranges [1, n-1] and [1, n-2].
field::U256 n_minus(uint64_t k);

// A uniform integer in [1, max] by rejection sampling 256-bit draws from
// os_random (max is close to 2^256: a draw is rejected with probability
// about 2^-32, and only that a draw was rejected becomes visible).
Error random_scalar(field::U256& out, const field::U256& max);

}  // namespace detail
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_INTERNAL_H_
