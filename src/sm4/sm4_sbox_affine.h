// The SM4 S-box moved into AES's field, for the AES-NI and GFNI kernels.
//
// sm4_core.h writes S(x) = A * inv(A * x + c) + c with the inversion in
// GF(2^8) modulo 0x1f5. Both fields have 256 elements, so a linear map T
// carries one onto the other: pick a root b of 0x1f5 in AES's field
// (modulo 0x11b) and send x^j to b^j. Then inv_1f5(y) = T^-1 inv_11b(T y) and
//   S(x) = (A T^-1) * inv_11b((T A) x + T c) + c,
// one affine map in, AES's inversion, one affine map out:
//  - GFNI: gf2p8affineqb(x, T A, T c) then gf2p8affineinvqb(., A T^-1, c);
//  - AES-NI: aesenclast with a zero key is SubBytes(ShiftRows(.)), and
//    SubBytes = Aff_aes(inv_11b(.)) with Aff_aes(y) = M_aes y + 0x63, so the
//    map out is (A T^-1 M_aes^-1)(z + 0x63) + c. Both affine maps are
//    applied as two 16-entry nibble lookups (vpshufb, registers only).
// Everything is derived here at compile time from the constants of
// sm4_core.h; tests/cpp/sm4/test_sm4.cc checks the result against the
// standard's table on all 256 inputs, through every kernel.
#ifndef KS_CIPHER_SM4_SBOX_AFFINE_H_
#define KS_CIPHER_SM4_SBOX_AFFINE_H_

#include <stdint.h>

#include "sm4/sm4_core.h"

namespace ks {
namespace sm4 {
namespace affine {

// An 8x8 matrix over GF(2): col[j] is the image of input bit j.
struct Matrix {
  uint8_t col[8];
};

constexpr uint8_t apply(const Matrix& m, uint8_t x) {
  uint8_t y = 0;
  for (int j = 0; j < 8; ++j)
    if ((x >> j) & 1) y ^= m.col[j];
  return y;
}

constexpr Matrix compose(const Matrix& outer, const Matrix& inner) {
  Matrix m{};
  for (int j = 0; j < 8; ++j) m.col[j] = apply(outer, inner.col[j]);
  return m;
}

// The inverse of an invertible matrix, by looking for the preimage of each
// unit vector (256 tries each: compile time only).
constexpr Matrix inverse(const Matrix& m) {
  Matrix r{};
  for (int x = 0; x < 256; ++x) {
    const uint8_t y = apply(m, uint8_t(x));
    for (int j = 0; j < 8; ++j)
      if (y == (1 << j)) r.col[j] = uint8_t(x);
  }
  return r;
}

constexpr uint8_t aes_mul(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if ((b >> i) & 1) r ^= a;
    a = uint8_t((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
  }
  return r;
}

// The first root of sm4::kFieldPoly in GF(2^8) modulo 0x11b.
constexpr uint8_t root_in_aes_field() {
  for (int b = 2; b < 256; ++b) {
    uint8_t power = 1, sum = 0;
    for (int k = 0; k <= 8; ++k) {
      if ((kFieldPoly >> k) & 1) sum ^= power;
      power = aes_mul(power, uint8_t(b));
    }
    if (sum == 0) return uint8_t(b);
  }
  return 0;
}

// Evaluated once: the constants below are built from it, and compilers
// bound the work of one constant evaluation (clang: 2^20 steps).
constexpr uint8_t kAesRoot = root_in_aes_field();

// T: the SM4 field onto AES's, x^j -> b^j.
constexpr Matrix to_aes_field() {
  Matrix t{};
  uint8_t power = 1;
  for (int j = 0; j < 8; ++j) {
    t.col[j] = power;
    power = aes_mul(power, kAesRoot);
  }
  return t;
}

// A of sm4_core.h, from its rows.
constexpr Matrix sm4_a() {
  Matrix a{};
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 8; ++i) a.col[j] |= uint8_t(((affine_row(i) >> j) & 1) << i);
  return a;
}

// M_aes of AES's SubBytes: output bit i = x_i ^ x_{i+4} ^ ... ^ x_{i+7},
// i.e. column j is 0x1f rotated left by j.
constexpr Matrix aes_a() {
  Matrix m{};
  for (int j = 0; j < 8; ++j) m.col[j] = uint8_t((0x1f << j) | (0x1f >> (8 - j)));
  return m;
}

struct Affine {
  Matrix m;
  uint8_t c;
};

constexpr Affine map_in() {
  return {compose(to_aes_field(), sm4_a()), apply(to_aes_field(), kAffineConstant)};
}
constexpr Affine map_out_of_inverse() {  // for gf2p8affineinvqb
  return {compose(sm4_a(), inverse(to_aes_field())), kAffineConstant};
}
constexpr Affine kMapIn = map_in();
constexpr Affine kMapOutOfInverse = map_out_of_inverse();

constexpr Affine map_out_of_subbytes() {  // for aesenclast
  const Matrix m = compose(kMapOutOfInverse.m, inverse(aes_a()));
  return {m, uint8_t(apply(m, 0x63) ^ kAffineConstant)};
}

// GF2P8AFFINEQB's matrix operand: byte 7 - i of the qword is row i.
constexpr uint64_t gfni_matrix(const Matrix& m) {
  uint64_t q = 0;
  for (int i = 0; i < 8; ++i) {
    uint64_t row = 0;
    for (int j = 0; j < 8; ++j) row |= uint64_t((m.col[j] >> i) & 1) << j;
    q |= row << (8 * (7 - i));
  }
  return q;
}

// An affine map as two nibble tables: f(x) = lo[x & 15] ^ hi[x >> 4].
struct NibbleTables {
  uint8_t lo[16];
  uint8_t hi[16];
};

constexpr NibbleTables nibble_tables(const Affine& f) {
  NibbleTables t{};
  for (int n = 0; n < 16; ++n) {
    t.lo[n] = uint8_t(apply(f.m, uint8_t(n)) ^ f.c);
    t.hi[n] = apply(f.m, uint8_t(n << 4));
  }
  return t;
}

constexpr uint64_t kGfniIn = gfni_matrix(kMapIn.m);
constexpr uint8_t kGfniInConstant = kMapIn.c;
constexpr uint64_t kGfniOut = gfni_matrix(kMapOutOfInverse.m);
constexpr uint8_t kGfniOutConstant = kMapOutOfInverse.c;
constexpr NibbleTables kAesIn = nibble_tables(kMapIn);
constexpr NibbleTables kAesOut = nibble_tables(map_out_of_subbytes());

// --- The folded round of the one-block kernels (sm4_x86_serial.h) ---------
// One block is a chain of 32 rounds, so its speed is the round's latency.
// The one-block kernels keep the state words in the S-box's input basis,
// Y = phi(X) with phi = T A applied to every byte (linear, no constant),
// and fold the linear transform into the map out of the inversion:
//   L (and L' of the key schedule) is a sum of byte rotations of bytewise
//   matrices: the term rol_{8d} carries byte j of the input to byte j + d,
//   through D_d = the part of each rotation that lands d bytes up
//   (rol 2: SHL2 at d = 0, SHR6 at d = 1; rol 10: SHL2 at 1, SHR6 at 2; ...).
// So Y_{i+4} = Y_i ^ kappa ^ XOR_d rol_{8d}(E_d inv(u_i)), with
//   u_i = Y_{i+1} ^ Y_{i+2} ^ Y_{i+3} ^ rho_i, rho_i = phi(rk_i) ^ T c,
//   E_d = phi D_d (A T^-1), kappa = phi(L(c c c c)),
// one inversion-with-matrix per distinct E_d (gf2p8affineinvqb), no
// affine map in, and the rotations as byte shuffles.
constexpr Matrix matrix_xor(const Matrix& a, const Matrix& b) {
  Matrix m{};
  for (int j = 0; j < 8; ++j) m.col[j] = uint8_t(a.col[j] ^ b.col[j]);
  return m;
}

// x -> x << n (n > 0) or x >> -n (n < 0) on one byte.
constexpr Matrix shift_matrix(int n) {
  Matrix m{};
  for (int j = 0; j < 8; ++j) {
    const int to = j + n;
    m.col[j] = to >= 0 && to < 8 ? uint8_t(1 << to) : 0;
  }
  return m;
}

constexpr Matrix identity() { return shift_matrix(0); }

// D_d of L(B) = B ^ rol2 ^ rol10 ^ rol18 ^ rol24 (GB/T 32907-2016, L).
constexpr Matrix l_part(int d) {
  return d == 0   ? matrix_xor(identity(), shift_matrix(2))
         : d == 3 ? matrix_xor(shift_matrix(-6), identity())
                  : matrix_xor(shift_matrix(-6), shift_matrix(2));  // d = 1, 2
}
// D_d of L'(B) = B ^ rol13 ^ rol23 (key expansion).
constexpr Matrix l_key_part(int d) {
  return d == 0   ? identity()
         : d == 1 ? shift_matrix(5)
         : d == 2 ? matrix_xor(shift_matrix(-3), shift_matrix(7))
                  : shift_matrix(-1);
}

constexpr Matrix phi() { return kMapIn.m; }
constexpr uint8_t phi_byte(uint8_t x) { return apply(phi(), x); }
// phi (and any bytewise map) on the four bytes of a word.
constexpr uint32_t phi_word(uint32_t w) {
  uint32_t r = 0;
  for (int b = 0; b < 4; ++b) r |= uint32_t(phi_byte(uint8_t(w >> (8 * b)))) << (8 * b);
  return r;
}
constexpr uint32_t replicate(uint8_t b) { return 0x01010101u * b; }

// E_d for the cipher (key = false) or the key schedule (key = true).
constexpr Matrix folded_out(int d, bool key) {
  return compose(phi(), compose(key ? l_key_part(d) : l_part(d), kMapOutOfInverse.m));
}
constexpr uint32_t linear_l(uint32_t b) {
  return b ^ rotl32(b, 2) ^ rotl32(b, 10) ^ rotl32(b, 18) ^ rotl32(b, 24);
}
constexpr uint32_t linear_l_key(uint32_t b) { return b ^ rotl32(b, 13) ^ rotl32(b, 23); }
// kappa: the S-box's constant c through L (or L') and phi.
constexpr uint32_t kFoldedKappa = phi_word(linear_l(replicate(kAffineConstant)));
constexpr uint32_t kFoldedKappaKey = phi_word(linear_l_key(replicate(kAffineConstant)));
constexpr uint32_t kFoldedGamma = replicate(kMapIn.c);
// The key schedule's rho_i: phi(CK_i) ^ T c, public constants.
constexpr uint32_t folded_ck(int i) { return phi_word(ck(i)) ^ kFoldedGamma; }
// AES-NI's aesenclast returns M_aes inv(u) ^ 0x63: E_d M_aes^-1 after it,
// the constant folded into the low nibble table.
constexpr NibbleTables folded_out_of_subbytes(int d, bool key) {
  const Matrix m = compose(folded_out(d, key), inverse(aes_a()));
  return nibble_tables({m, apply(m, 0x63)});
}

static_assert(kAesRoot != 0, "0x1f5 has a root in GF(2^8)");

}  // namespace affine
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_SBOX_AFFINE_H_
