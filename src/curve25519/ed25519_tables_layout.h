// The shapes of the build-time tables of the Edwards25519 base point B
// (src/curve25519/gen_ed25519_tables.cc writes them, curve25519/ed25519_curve.cc reads
// them): shared by both so that they cannot disagree.
#ifndef KS_CURVE_ED25519_TABLES_LAYOUT_H_
#define KS_CURVE_ED25519_TABLES_LAYOUT_H_

#include "curve/edwards.h"
#include "field/fe25519.h"

namespace ks {
namespace curve {
namespace ed25519 {

using Niels = ed::Niels<field::Fe25519>;

// The signing comb: signed digits of kCombBits bits (Booth recoding,
// curve/recode.h) in [-2^(c-1), 2^(c-1)]; window w holds d 2^(c w) B for
// d = 1 .. 2^(c-1). Scalars are below 2^255, so ceil(256 / c) windows
// suffice (the top window's Booth digit is never negative).
constexpr int kCombBits = 5;
constexpr int kCombWindows = (256 + kCombBits - 1) / kCombBits;
constexpr int kCombEntries = 1 << (kCombBits - 1);

// Verification adds the B part of its half-size equation
// (field/sc25519_lattice.h) in the doubling chain of the 128-bit scalars:
// S' split at bit 128, each half's digits taken from d 2^(128 h) B for d =
// 1 .. kSplitBEntries, h = 0, 1. The lanes (curve25519/ed25519_mb.cc) use signed
// digits of kSplitBBits bits (Booth); single operations (ed25519_curve.cc,
// ed25519_x4.cc) width-kOddBNafBits NAF digits, odd in (-128, 128), which
// pick the odd entries (kOddBEntries of them).
constexpr int kSplitBBits = 8;
constexpr int kSplitBEntries = 1 << (kSplitBBits - 1);
constexpr int kOddBNafBits = 8;
constexpr int kOddBEntries = 1 << (kOddBNafBits - 2);
static_assert(2 * kOddBEntries <= kSplitBEntries, "NAF digits index kEd25519SplitB");

}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_TABLES_LAYOUT_H_
