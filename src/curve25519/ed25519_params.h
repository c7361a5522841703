// Edwards25519 parameters (RFC 8032 5.1, RFC 7748 4.1) as
// canonical 256-bit values, little-endian limbs; each field type turns them
// into its own representation (F::from_canonical). The test
// Ed25519Params.ConstantsAreWhatTheRfcsDefine derives every one of them
// from its definition.
#ifndef KS_CURVE_ED25519_PARAMS_H_
#define KS_CURVE_ED25519_PARAMS_H_

#include "field/fe25519.h"
#include "field/sc25519.h"

namespace ks {
namespace curve {
namespace ed25519 {

using field::U256;

// d = -121665 / 121666 (mod p)
constexpr U256 kD = {{0x75EB4DCA135978A3ull, 0x00700A4D4141D8ABull, 0x8CC740797779E898ull,
                      0x52036CEE2B6FFE73ull}};
// 2d, the constant of the addition formulas (curve/edwards.h)
constexpr U256 kD2 = {{0xEBD69B9426B2F159ull, 0x00E0149A8283B156ull, 0x198E80F2EEF3D130ull,
                       0x2406D9DC56DFFCE7ull}};
// The base point B: y = 4/5, x the non-negative (even) root.
constexpr U256 kBx = {{0xC9562D608F25D51Aull, 0x692CC7609525A7B2ull, 0xC0A4E231FDD6DC5Cull,
                       0x216936D3CD6E53FEull}};
constexpr U256 kBy = {{0x6666666666666658ull, 0x6666666666666666ull, 0x6666666666666666ull,
                       0x6666666666666666ull}};
// The order of B (field/sc25519.h)
constexpr U256 kL = field::Sc25519::kModulus;

}  // namespace ed25519
}  // namespace curve
}  // namespace ks

#endif  // KS_CURVE_ED25519_PARAMS_H_
