// The recommended SM2 curve sm2p256v1 (GM/T 0003.5-2012 / GB/T 32918.5):
// y^2 = x^3 - 3x + b over GF(p), base point G of prime order n, cofactor 1.
// p and n live with their fields (field/fp.h, field/fn.h).
#ifndef KS_CURVE_SM2_PARAMS_H_
#define KS_CURVE_SM2_PARAMS_H_

#include "curve/jacobian.h"
#include "field/fn.h"
#include "field/fp.h"

namespace ks {
namespace curve {

using field::Fn;
using field::Fp;
using field::U256;
using Affine = AffinePoint<Fp>;
using Jacobian = JacobianPoint<Fp>;

constexpr U256 kB = {
    {0xDDBCBD414D940E93ull, 0xF39789F515AB8F92ull, 0x4D5A9E4BCF6509A7ull, 0x28E9FA9E9D9F5E34ull}};
constexpr Affine kG = {
    {{0x715A4589334C74C7ull, 0x8FE30BBFF2660BE1ull, 0x5F9904466A39C994ull, 0x32C4AE2C1F198119ull}},
    {{0x02DF32E52139F0A0ull, 0xD0A9877CC62A4740ull, 0x59BDCEE36B692153ull, 0xBC3736A2F4F6779Cull}}};

// Layout of the fixed-base comb table that src/sm2/gen_sm2_tables.cc writes:
// window i (bits [7i, 7i+7) of the scalar, Booth-recoded into a signed digit
// in [-64, 64]) has its own sub-table of j * 2^(7i) * G for j = 1..64, so
// [k]G costs 36 mixed additions and no doubling. 37 windows cover 256 bits
// plus the final Booth carry. 37 * 64 affine points = 148 KiB.
constexpr int kCombWindowBits = 7;
constexpr int kCombWindows = (256 + kCombWindowBits) / kCombWindowBits;
constexpr int kCombEntries = 1 << (kCombWindowBits - 1);

// The comb's points for base point p, in variable time (p is public):
// entry(i, j - 1, j * 2^(7i) * p) for every window i and j = 1..64. G's
// table at build time, a public key's at run time (sm2_curve.h).
template <class F, class Entry>
void comb_points(const AffinePoint<F>& p, Entry entry) {
  JacobianPoint<F> base = JacobianPoint<F>::from_affine(p);  // 2^(7i) p
  for (int i = 0; i < kCombWindows; ++i) {
    JacobianPoint<F> multiple = base;
    const CachedJacobian<F> cached = with_z_powers(base);
    for (int j = 0; j < kCombEntries; ++j) {
      entry(i, j, multiple);
      multiple = add_vartime(multiple, cached);
    }
    for (int b = 0; b < kCombWindowBits; ++b) base = dbl(base);
  }
}

// The odd multiples of G for verification's interleaved width-12 wNAF of s
// (also written by src/sm2/gen_sm2_tables.cc): entry j = (2j + 1) G, affine,
// for j < 1024 (64 KiB). [s]G then costs ~20 mixed additions inside the
// doublings that [t]P needs anyway, against the comb's 37.
constexpr int kGWnafBits = 12;
constexpr int kGWnafEntries = 1 << (kGWnafBits - 2);

}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_SM2_PARAMS_H_
