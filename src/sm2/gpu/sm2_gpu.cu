// SM2 keygen, sign and verify on the GPU (see sm2_gpu.h): one thread per
// item, the point formulas of curve/jacobian.h over field/fp_gpu.cuh.
#include <atomic>
#include <type_traits>
#include <vector>

#include "core/chacha20.h"
#include "curve/jacobian.h"
#include "field/batch_invert.h"
#include "field/fn_gpu.cuh"
#include "field/fp_gpu.cuh"
#include "gpu/device_table.cuh"
#include "gpu/launch.cuh"
#include "kuaisuo/common.h"
#include "sm2/gpu/sm2_gpu.h"
#include "sm3/gpu/sm3_gpu_digest.cuh"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

using field::FnGpu;
using field::FpGpu;
using field::FpGpuCompact;
using field::U32x8;
using ks::gpu::blocks_for;
// Keygen and signing run over FpGpu, verification over FpGpuCompact (the
// products out of line: see field/fp_gpu.cuh); the same elements.
using Jac = curve::JacobianPoint<FpGpu>;
template <class F>
using JacOf = curve::JacobianPoint<F>;
template <class F>
using AffOf = curve::AffinePoint<F>;

constexpr unsigned kThreads = 128;
// Minimum resident blocks per SM for __launch_bounds__ (a register cap)
// of keygen/sign and of verification, chosen by kernel-only measurement
// ([ZHU22 table 6]'s exercise; the figures are in
// docs/design/0008-sm2-gpu-verify-kernel.md). Overridable with -D for
// scripts/gpu-variants.
#ifndef KS_MINB_SIGN
#define KS_MINB_SIGN 3
#endif
#ifndef KS_MINB_VERIFY
#define KS_MINB_VERIFY 5
#endif

// --- Encodings -----------------------------------------------------------------
__device__ __forceinline__ U32x8 load_be(const uint8_t* p) {
  U32x8 r;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const uint8_t* q = p + 4 * (7 - i);
    r.w[i] = (uint32_t(q[0]) << 24) | (uint32_t(q[1]) << 16) | (uint32_t(q[2]) << 8) | q[3];
  }
  return r;
}

__device__ __forceinline__ void store_be(uint8_t* p, const U32x8& a) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    uint8_t* q = p + 4 * (7 - i);
    q[0] = uint8_t(a.w[i] >> 24);
    q[1] = uint8_t(a.w[i] >> 16);
    q[2] = uint8_t(a.w[i] >> 8);
    q[3] = uint8_t(a.w[i]);
  }
}

__device__ __forceinline__ U32x8 load_words(const uint32_t* p) {
  U32x8 r;
#pragma unroll
  for (int i = 0; i < 8; ++i) r.w[i] = p[i];
  return r;
}

__device__ __forceinline__ U32x8 select_u32(uint32_t mask, const U32x8& a, const U32x8& b) {
  return FpGpu::select(mask, a, b);
}

// All ones if x == 0 (a digit magnitude: the table entry is absent).
__device__ __forceinline__ uint64_t zero_mask(uint32_t x) { return uint64_t(0) - uint64_t(x == 0); }

// --- Signed (Booth) digits -------------------------------------------------------
struct SignedDigit {
  uint32_t magnitude;
  uint32_t negative;  // all ones if the digit is negative
};

// v holds the w + 1 bits [pos - 1, pos + w) of the scalar; the digit is
// ceil(v / 2) - 2^w bit(pos + w - 1), in [-2^(w-1), 2^(w-1)] (the same
// recoding as sm2/sm2_curve.cc's booth_digit). Branch-free.
__device__ __forceinline__ SignedDigit booth(uint32_t v, int w) {
  const uint32_t digit = ((v + 1) >> 1) - ((v >> w) << w);
  const uint32_t negative = 0u - (digit >> 31);
  return {(digit ^ negative) - negative, negative};
}

// --- Fixed-base multiplication ([k]G through the 32 MiB table) ---------------------
// Entry j 2^(16 window) G for j = max(magnitude, 1), negated for a negative
// digit. The address depends on the digit: the one secret-indexed read
// left (see sm2_gpu.h).
template <class F>
__device__ __forceinline__ AffOf<F> base_entry(const uint4* table, int window, SignedDigit d) {
  const uint32_t index = d.magnitude - (d.magnitude != 0);
  const uint4* e = table + (size_t(window) * kBaseEntries + index) * 4;
  const uint4 q0 = __ldg(e), q1 = __ldg(e + 1), q2 = __ldg(e + 2), q3 = __ldg(e + 3);
  AffOf<F> a = {{{q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w}},
                {{q2.x, q2.y, q2.z, q2.w, q3.x, q3.y, q3.z, q3.w}}};
  return curve::negate_if<F>(d.negative, a);
}

// Next kBits-bit window of k (consumed from the bottom: k >>= kBits) with
// the bit below it, as booth() wants it.
template <int kBits>
__device__ __forceinline__ SignedDigit next_digit(U32x8& k, uint32_t& below) {
  const uint32_t chunk = k.w[0] & ((1u << kBits) - 1);
  const uint32_t v = (chunk << 1) | below;
  below = chunk >> (kBits - 1);
#pragma unroll
  for (int i = 0; i < 7; ++i) k.w[i] = __funnelshift_r(k.w[i], k.w[i + 1], kBits);
  k.w[7] >>= kBits;
  return booth(v, kBits);
}

__device__ __forceinline__ SignedDigit next_base_digit(U32x8& k, uint32_t& below) {
  return next_digit<kBaseWindowBits>(k, below);
}

// k <- min(k, n - k) for k in [0, n-1], below 2^255; all ones where k was
// replaced (the multiple is then negated).
__device__ __forceinline__ uint32_t fold_scalar(U32x8& k) {
  U32x8 n_minus_k;
  field::gpu_detail::sub_n<8>(n_minus_k.w, field::gpu_detail::kN, k.w);
  const uint32_t flip = 0u - (k.w[7] >> 31);
  k = select_u32(flip, n_minus_k, k);
  return flip;
}

// [k]G for k in [0, n-1], constant time. k is replaced by n - k when
// k >= 2^255 (and the result negated), so that the 16 windows' Booth carry
// never passes bit 255. The additions never meet P == Q (the exclusion of
// jacobian.h's add_mixed): before window i the accumulator is [a]G with
// |a| < 2^(16i) and the entry is [d 2^(16i)]G with 1 <= |d| <= 2^15, so
// a - d 2^(16i) is nonzero and below 2^255 + 2^240 < n in magnitude.
template <class F>
__device__ JacOf<F> mul_base(U32x8 k, const uint4* table) {
  const uint32_t flip = fold_scalar(k);

  uint32_t below = 0;
  SignedDigit d = next_base_digit(k, below);
  JacOf<F> acc = JacOf<F>::from_affine(base_entry<F>(table, 0, d));
  acc.z = F::select(zero_mask(d.magnitude), F::zero(), acc.z);
#pragma unroll 1
  for (int window = 1; window < kBaseWindows; ++window) {
    d = next_base_digit(k, below);
    const uint64_t absent = zero_mask(d.magnitude);
    acc = curve::add_mixed(acc, base_entry<F>(table, window, d), absent);
  }
  return curve::negate_if<F>(flip, acc);
}

// --- Batch inversion (Montgomery's trick across the items of a thread) -------------
// Each thread of keygen and sign handles M items (the kernels' template
// argument, chosen per launch by items_of_batch()) and inverts their Z
// coordinates together: 3(M - 1) products and one Fermat inversion
// ([ZHU22 table 4]) instead of M inversions. Across threads it would not
// pay on a GPU: the lanes of a warp already invert in lockstep.

// z[j] <- z[j]^-1 for j < M (field/batch_invert.h; a zero z, the point at
// infinity, becomes 1: its item's result is meaningless and the caller
// masks it).
template <int M>
__device__ void batch_invert(U32x8* z) {
  U32x8 prefix[M];
  field::batch_invert<FpGpu>(z, prefix, M);
}

// Item j of this thread (M items per thread): items are interleaved by
// blockDim so that each load and store instruction of a warp touches
// consecutive items.
template <int M>
__device__ __forceinline__ size_t item_of(int j) {
  return (size_t(blockIdx.x) * M + j) * blockDim.x + threadIdx.x;
}

// --- Variable-base multiplication ([t]P, verification) -----------------------------
// The window width and the doubling (Z3 from a square, 3M + 5S, or from a
// product, 4M + 4S) as measured best (docs/design/0008); overridable with
// -D for scripts/gpu-variants.
#ifndef KS_POINT_WINDOW_BITS
#define KS_POINT_WINDOW_BITS 5
#endif
#ifndef KS_DBL_SQUARE_Z
#define KS_DBL_SQUARE_Z 1
#endif
constexpr int kPointWindowBits = KS_POINT_WINDOW_BITS;
constexpr bool kDblSquareZ = KS_DBL_SQUARE_Z != 0;
constexpr int kPointWindows = (256 + kPointWindowBits) / kPointWindowBits;  // 52
constexpr int kPointEntries = 1 << (kPointWindowBits - 1);                  // 1P..16P
// Verification runs over FpGpuCompact: the field's products out of line
// (field/fp_gpu.cuh), operands by value, the point formulas inline. The
// variants not kept (everything inline, the point operations out of line,
// [t]P in the DPF field) and what they measured: docs/design/0008.
using Fv = FpGpuCompact;
using JacV = curve::JacobianPoint<Fv>;
using AffV = curve::AffinePoint<Fv>;

// Bits [pos, pos + width) of k, zero past bit 255; pos is a compile-time
// constant after unrolling, so k stays in registers.
__device__ __forceinline__ uint32_t bits_at(const U32x8& k, int pos, int width) {
  if (pos < 0) return (k.w[0] << -pos) & ((1u << width) - 1);  // bits below 0 read as 0
  const int limb = pos >> 5, shift = pos & 31;
  if (limb >= 8) return 0;
  const uint32_t hi = limb + 1 < 8 ? k.w[limb + 1] : 0;
  return __funnelshift_r(k.w[limb], hi, shift) & ((1u << width) - 1);
}

// The signed 5-bit digits of t (at most 256 bits), least significant
// first; bits_at's positions are compile-time constants once unrolled.
__device__ __forceinline__ void point_digits(const U32x8& t, int8_t digits[kPointWindows]) {
#pragma unroll
  for (int i = 0; i < kPointWindows; ++i) {
    const SignedDigit d = booth(bits_at(t, kPointWindowBits * i - 1, kPointWindowBits + 1),
                                kPointWindowBits);
    digits[i] = int8_t((d.magnitude ^ d.negative) - d.negative);
  }
}

// table[j - 1] = jP for j = 1..16, Jacobian (P public: the doublings and
// additions meet no exceptional case, jP != O for j < n).
template <class F>
__device__ void point_multiples(JacOf<F> table[kPointEntries], const AffOf<F>& p) {
  table[0] = JacOf<F>::from_affine(p);
#pragma unroll 1
  for (int j = 2; j <= kPointEntries; ++j)
    table[j - 1] = (j % 2 == 0) ? curve::dbl<F, kDblSquareZ>(table[j / 2 - 1])
                                : curve::add(table[j - 2], table[0]);
}

// [t]P for t in [1, n-1], signed 5-bit windows from the top, table 1P..16P
// in Jacobian form ([ZHU22 table 5] with signed digits: P0 = infinity is
// the all-zero magnitude). jacobian.h's add() suffices but in the last
// window, where t = n - 6 adds [-3]P to itself (the argument of
// sm2/sm2_curve.cc's mul_point): add_vartime there, t being public. Code
// size, not arithmetic, bounds this loop (the inlined field products made
// it larger than the instruction caches): hence Fv's out-of-line products
// and the doublings' rolled loop (docs/design/0008).
template <class F>
__device__ JacOf<F> mul_point(const U32x8& t, const AffOf<F>& p) {
  JacOf<F> table[kPointEntries];  // indexed by public digits
  point_multiples<F>(table, p);
  int8_t digits[kPointWindows];
  point_digits(t, digits);

  JacOf<F> acc = JacOf<F>::infinity();
#pragma unroll 1
  for (int i = kPointWindows - 1; i >= 0; --i) {
#pragma unroll 1
    for (int b = 0; b < kPointWindowBits; ++b) acc = curve::dbl<F, kDblSquareZ>(acc);
    const int digit = digits[i];
    const uint32_t magnitude = digit < 0 ? -digit : digit;
    JacOf<F> e = table[magnitude - (magnitude != 0)];
    e.z = F::select(zero_mask(magnitude), F::zero(), e.z);
    e = curve::negate_if<F>(0 - uint64_t(digit < 0), e);
    if (i > 0) {
      acc = curve::add(acc, e);
    } else {
      acc = curve::add_vartime(acc, e);  // t = n - 6 doubles here (t is public)
    }
  }
  return acc;
}

// table[magnitude - 1], or infinity for magnitude 0, reading every entry
// (the address sequence is the same for every magnitude).
template <class F>
__device__ __forceinline__ JacOf<F> scan_entry(const JacOf<F> table[kPointEntries],
                                               uint32_t magnitude) {
  JacOf<F> e = JacOf<F>::infinity();
#pragma unroll 1
  for (int j = 0; j < kPointEntries; ++j)
    e = curve::select(uint64_t(0) - uint64_t(uint32_t(j + 1) == magnitude), table[j], e);
  return e;
}

// [k]P for a secret k in [1, n-1] and a public P of order n (a
// recipient's key, a ciphertext's C1 checked on the curve), in constant
// time: mul_point's windows with every table entry read (scan_entry) and
// no branch on k; the last window adds with add_or_dbl, where k = n - 6
// meets P == Q (sm2/sm2_curve.cc's Sm2Mul::point argues the other windows
// cannot).
template <class F>
__device__ JacOf<F> mul_point_ct(const U32x8& k, const AffOf<F>& p) {
  JacOf<F> table[kPointEntries];
  point_multiples<F>(table, p);
  int8_t digits[kPointWindows];  // secret values at public indices
  point_digits(k, digits);

  JacOf<F> acc = JacOf<F>::infinity();
#pragma unroll 1
  for (int i = kPointWindows - 1; i >= 0; --i) {
#pragma unroll 1
    for (int b = 0; b < kPointWindowBits; ++b) acc = curve::dbl<F, kDblSquareZ>(acc);
    const int digit = digits[i];
    const uint32_t negative = uint32_t(digit >> 31);  // all ones if negative
    const JacOf<F> e = curve::negate_if<F>(uint64_t(0) - (negative & 1),
                                           scan_entry<F>(table, (digit ^ negative) - negative));
    acc = i > 0 ? curve::add(acc, e) : curve::add_or_dbl(acc, e);
  }
  return acc;
}

// p[j] = [scalar(i)]G for this thread's items i = item_of(j) (items past
// count use 1), and zinv[j] = their Z^-1 (one batch inversion).
template <int M, class Scalar>
__device__ void base_mults(Jac* p, U32x8* zinv, size_t count, const uint4* table, Scalar scalar) {
#pragma unroll 1
  for (int j = 0; j < M; ++j) {
    const size_t i = item_of<M>(j);
    p[j] = mul_base<FpGpu>(i < count ? scalar(i) : FpGpu::one(), table);
    zinv[j] = p[j].z;
  }
  batch_invert<M>(zinv);
}

// --- The three operations --------------------------------------------------------------
// Whether d is a private key: d in [1, n-2] (GB/T 32918.1 6.1).
__device__ __forceinline__ uint32_t private_key_in_range(const U32x8& d) {
  U32x8 d_plus_1;
  const U32x8 one = FpGpu::one();
  field::gpu_detail::add_n<8>(d_plus_1.w, d.w, one.w);  // 2^256 - 1 wraps to 0: rejected
  return FnGpu::in_range_nonzero(d) & FnGpu::in_range_nonzero(d_plus_1);
}

// Keygen for this thread's items: [d]G, then affine through one batch
// inversion; status (if set) kOk, or kBadPrivateKey for d outside [1, n-2].
// Items past `count` compute [1]G and store nothing.
template <int M>
__device__ void keygen_items(const uint8_t* priv, uint8_t* pub, int* status, size_t count,
                             const uint4* table) {
  Jac p[M];
  U32x8 z[M];
  base_mults<M>(p, z, count, table,
             [=](size_t i) { return FnGpu::reduce_once(load_be(priv + 32 * i)); });
#pragma unroll 1
  for (int j = 0; j < M; ++j) {
    const size_t i = item_of<M>(j);
    if (i >= count) break;
    const uint64_t finite = ~p[j].is_infinity();  // d = 0 gives 04 || 0 || 0
    if (status != nullptr)
      status[i] = private_key_in_range(load_be(priv + 32 * i)) ? kOk : kBadPrivateKey;
    const U32x8 z2 = FpGpu::sqr(z[j]);
    pub[65 * i] = 0x04;
    store_be(pub + 65 * i + 1, FpGpu::select(finite, FpGpu::mul(p[j].x, z2), FpGpu::zero()));
    store_be(pub + 65 * i + 33,
             FpGpu::select(finite, FpGpu::mul(p[j].y, FpGpu::mul(z2, z[j])), FpGpu::zero()));
  }
}

// Clause 6.1 steps A4-A6 for nonce k, given x1 of [k]G (the CPU's
// sign_attempt, sm2.cc).
__device__ void sign_finish(const uint8_t* digest, const SignKey& key, const U32x8& k,
                            uint32_t point_ok, const U32x8& x1, uint8_t* sig, int* status) {
  const U32x8 e = FnGpu::reduce_once(load_be(digest));
  const U32x8 r = FnGpu::add(e, FnGpu::reduce_once(x1));
  const U32x8 rd = FnGpu::mont_mul(r, load_words(key.d_mont));  // plain r d
  const U32x8 s = FnGpu::mont_mul(FnGpu::sub(k, rd), load_words(key.inv_one_plus_d_mont));
  const uint32_t ok = point_ok & FnGpu::in_range_nonzero(k) & ~uint32_t(FpGpu::is_zero(r)) &
                      ~uint32_t(FpGpu::is_zero(FnGpu::add(r, k))) & ~uint32_t(FpGpu::is_zero(s));
  store_be(sig, select_u32(ok, r, FpGpu::zero()));
  store_be(sig + 32, select_u32(ok, s, FpGpu::zero()));
  *status = ok ? kOk : kBadNonce;
}

template <int M>
__device__ void sign_items(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                           const uint8_t* nonces, uint8_t* sigs, int* status, size_t count,
                           const uint4* table) {
  Jac p[M];
  U32x8 z[M];
  base_mults<M>(p, z, count, table, [=](size_t i) { return load_be(nonces + 32 * i); });
#pragma unroll 1
  for (int j = 0; j < M; ++j) {
    const size_t i = item_of<M>(j);
    if (i >= count) break;
    const U32x8 x1 = FpGpu::mul(p[j].x, FpGpu::sqr(z[j]));
    sign_finish(digests + 32 * i, keys[i * key_stride], load_be(nonces + 32 * i),
                ~uint32_t(p[j].is_infinity()), x1, sigs + 64 * i, status + i);
  }
}

// b of y^2 = x^3 - 3x + b.
__device__ __forceinline__ U32x8 curve_b() {
  return U32x8{{0x4D940E93, 0xDDBCBD41, 0x15AB8F92, 0xF39789F5, 0xCF6509A7, 0x4D5A9E4B, 0x9D9F5E34,
                0x28E9FA9E}};
}

// 04 || x || y with x, y < p on the curve, as a mask (GB/T 32918.1 6.2's
// checks; SM2's cofactor is 1, so such a point has order n).
__device__ __forceinline__ uint32_t point_ok_xy(const AffV& p) {
  return Fv::lt_p_mask(p.x) & Fv::lt_p_mask(p.y) & uint32_t(curve::on_curve(p, curve_b()));
}
__device__ __forceinline__ uint32_t point_ok(const uint8_t* xy, AffV* p) {
  *p = {load_be(xy), load_be(xy + 32)};
  return point_ok_xy(*p);
}

// x(Q) == c mod n for Q = (X, Y, Z) finite, without inverting Z: x(Q) < p
// and c < n, so x(Q) is c or c + n (when below p); X == x Z^2.
template <class F>
__device__ __forceinline__ uint32_t x_matches(const JacOf<F>& q, const U32x8& c) {
  const U32x8 z2 = F::sqr(q.z);
  U32x8 c_plus_n;
  const uint32_t carry = field::gpu_detail::add_n<8>(c_plus_n.w, c.w, field::gpu_detail::kN);
  const uint32_t second_ok = F::lt_p_mask(c_plus_n) & (0u - (carry ^ 1));
  const uint32_t first = uint32_t(F::eq(q.x, F::mul(c, z2)));
  const uint32_t second = uint32_t(F::eq(q.x, F::mul(c_plus_n, z2))) & second_ok;
  return (first | second) & ~uint32_t(q.is_infinity());
}

// Clause 7.1 steps B1-B7 (public data).
__device__ int verify_one(const uint8_t* pub, const uint8_t* digest, const uint8_t* sig,
                          const uint4* table) {
  AffV p;
  const uint32_t key_ok = (pub[0] == 0x04 ? ~0u : 0u) & point_ok(pub + 1, &p);
  const U32x8 r = load_be(sig), s = load_be(sig + 32);
  const U32x8 t = FnGpu::add(r, s);
  const uint32_t range_ok = FnGpu::in_range_nonzero(r) & FnGpu::in_range_nonzero(s) &
                            ~uint32_t(FpGpu::is_zero(t));
  const JacV q = curve::add_vartime(mul_point<Fv>(t, p), mul_base<Fv>(s, table));
  const U32x8 e = FnGpu::reduce_once(load_be(digest));
  const uint32_t match = x_matches(q, FnGpu::sub(r, e));
  return !key_ok ? kBadPublicKey : !range_ok ? kSignatureOutOfRange : match ? kOk : kVerifyFailed;
}

// --- One public key for the batch ([s]G + [t]P over two tables) ----------------------
// Verification of many signatures under one key P whose table (the key
// table layout of sm2_gpu_host.h, windows of kBits bits) is in device
// memory: s over G's table (16 windows) and t over P's (key_windows(kBits)
// windows), each nonzero Booth digit one mixed addition of a table entry,
// no doubling: 32 additions for kBits = 16 against the ~260 doublings and
// ~68 additions of verify_one. Public data only: the digits, and the rare
// cases of the addition formulas, may branch.
// Resident blocks per SM of its kernel: 3 (164 registers, no spill). 4
// (128 registers, 80 bytes spilled) ran 1-2% faster on an H200 at
// 2^18..2^22 items and 10% at 2^16
// (bench/results/h200-2026-12-02-sm2-one-key-verify.json), with only
// valid signatures checked there: not worth a second copy of the kernel
// in every build.
constexpr int kMinBlocksOneKey = 3;

// 2P out of line: reached only where the accumulator meets the entry it
// adds (P == Q), which no honest input does; inlined it would double the
// loop's code.
template <class F>
__device__ __noinline__ JacOf<F> dbl_rare(JacOf<F> p) {
  return curve::dbl<F>(p);
}

// P + Q for affine Q, every case (jacobian.h's add_mixed_vartime with the
// doubling out of line): infinity + Q = Q, P + P = 2P, and P + (-P) gives
// Z = 0 by the generic formulas.
template <class F>
__device__ __forceinline__ JacOf<F> add_affine_vartime(const JacOf<F>& p, const AffOf<F>& q) {
  if (p.is_infinity()) return JacOf<F>::from_affine(q);
  curve::AddCase c;
  const JacOf<F> r = curve::add_mixed_generic(p, q, &c);
  if (c.same_point) return dbl_rare<F>(p);
  return r;
}

// The affine entry at e (16 words: x then y).
template <class F>
__device__ __forceinline__ AffOf<F> load_entry(const uint4* e) {
  const uint4 q0 = __ldg(e), q1 = __ldg(e + 1), q2 = __ldg(e + 2), q3 = __ldg(e + 3);
  return {{{q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w}},
          {{q2.x, q2.y, q2.z, q2.w, q3.x, q3.y, q3.z, q3.w}}};
}

// The digit of step `step` of base_add_key_vartime's loop (G's windows,
// then P's) and its entry's address (of entry |digit| - 1, absent for 0).
template <int kBits>
struct KeyWalk {
  U32x8 s, t;  // what is left of each scalar (consumed from the bottom)
  uint32_t below_s = 0, below_t = 0, flip_s, flip_t;
  const uint4 *g_table, *p_table;

  __device__ __forceinline__ SignedDigit next(int step, const uint4** entry, uint32_t* negative) {
    SignedDigit d;
    const uint4* window;
    if (step < kBaseWindows) {
      d = next_digit<kBaseWindowBits>(s, below_s);
      window = g_table + size_t(step) * kBaseEntries * 4;
      *negative = d.negative ^ flip_s;
    } else {
      d = next_digit<kBits>(t, below_t);
      window = p_table + (size_t(step - kBaseWindows) << (kBits - 1)) * 4;
      *negative = d.negative ^ flip_t;
    }
    *entry = window + size_t(d.magnitude - (d.magnitude != 0)) * 4;
    return d;
  }
};

// [s]G + [t]P for s, t in [1, n-1]: both folded below 2^255 (fold_scalar),
// then one loop over G's windows and P's with one addition site (code
// size). Each step asks L2 for the next step's entry first: with 32 MiB
// of G's table and up to 32 MiB of P's, most entries come from DRAM, and
// the address depends on the digits only.
template <int kBits, class F>
__device__ JacOf<F> base_add_key_vartime(const U32x8& s, const U32x8& t, const uint4* g_table,
                                         const uint4* p_table) {
  constexpr int kSteps = kBaseWindows + key_windows(kBits);
  KeyWalk<kBits> walk;
  walk.s = s;
  walk.t = t;
  walk.flip_s = fold_scalar(walk.s);
  walk.flip_t = fold_scalar(walk.t);
  walk.g_table = g_table;
  walk.p_table = p_table;
  const uint4* entry;
  uint32_t negative;
  SignedDigit d = walk.next(0, &entry, &negative);
  JacOf<F> acc = JacOf<F>::infinity();
#pragma unroll 1
  for (int step = 0; step < kSteps; ++step) {
    const uint4* next_entry = entry;
    uint32_t next_negative = 0;
    SignedDigit next_d = {0, 0};
    if (step + 1 < kSteps) {
      next_d = walk.next(step + 1, &next_entry, &next_negative);
      asm volatile("prefetch.global.L2 [%0];" ::"l"(next_entry));
    }
    if (d.magnitude != 0) {
      AffOf<F> q = load_entry<F>(entry);
      q.y = F::select(uint64_t(0) - (negative & 1), F::neg(q.y), q.y);
      acc = add_affine_vartime<F>(acc, q);
    }
    d = next_d;
    entry = next_entry;
    negative = next_negative;
  }
  return acc;
}

// Clause 7.1 steps B1-B7 under the batch's key (checked on the CPU): the
// statuses of verify_one for a valid key.
template <int kBits, class F>
__device__ int verify_one_key(const uint8_t* digest, const uint8_t* sig, const uint4* g_table,
                              const uint4* p_table) {
  const U32x8 r = load_be(sig), s = load_be(sig + 32);
  const U32x8 t = FnGpu::add(r, s);
  const uint32_t range_ok = FnGpu::in_range_nonzero(r) & FnGpu::in_range_nonzero(s) &
                            ~uint32_t(FpGpu::is_zero(t));
  if (!range_ok) return kSignatureOutOfRange;
  const JacOf<F> q = base_add_key_vartime<kBits, F>(s, t, g_table, p_table);
  const U32x8 e = FnGpu::reduce_once(load_be(digest));
  return x_matches<F>(q, FnGpu::sub(load_be(sig), e)) ? kOk : kVerifyFailed;
}

// --- Encryption and decryption (GB/T 32918.4): the point multiplications ---------------
// Writes x || y of p[j] (affine through zinv[j] = Z^-1), 64 bytes at out.
__device__ __forceinline__ void store_affine(uint8_t* out, const Jac& p, const U32x8& zinv) {
  const U32x8 z2 = FpGpu::sqr(zinv);
  store_be(out, FpGpu::mul(p.x, z2));
  store_be(out + 32, FpGpu::mul(p.y, FpGpu::mul(z2, zinv)));
}

__device__ __forceinline__ Jac from_compact(const JacV& q) { return {q.x, q.y, q.z}; }

// Clause 6.1 A1-A4 for this thread's items: C1 = [k]G and [k]P_B, affine
// through one batch inversion, as x1 || y1 || x2 || y2 (128 bytes) per item.
// kOneKey: P_B's table (key_table, 16-bit windows: G's table layout), read
// as G's is (sm2_gpu.h's side-channel note); else each item's key (65
// bytes, 04 || x || y) by the constant-time ladder. status kOk,
// kBadPublicKey (a key not on the curve), or kRedoOnHost for k outside
// [1, n-1] (the host encrypts that item itself).
template <int M, bool kOneKey>
__device__ void encrypt_points_items(const uint8_t* pubs, const uint4* key_table,
                                     const uint8_t* nonces, uint8_t* points, int* status,
                                     size_t count, const uint4* g_table) {
  Jac p[2 * M];
  U32x8 z[2 * M];
  int verdict[M];
#pragma unroll 1
  for (int j = 0; j < M; ++j) {
    const size_t i = item_of<M>(j);
    const U32x8 k = i < count ? load_be(nonces + 32 * i) : FpGpu::one();
    uint32_t key_ok = ~0u;
    if constexpr (kOneKey) {
      // [k]G, then [k]P_B, through one copy of the walk's code: with two
      // inlined copies, the same products, the kernel ran 18% longer on
      // an H200, and fewer products in more code (windows 0 and 1 added
      // as two affine points) were slower too (design/0012).
#pragma unroll 1
      for (int t = 0; t < 2; ++t) p[2 * j + t] = mul_base<FpGpu>(k, t == 0 ? g_table : key_table);
    } else {
      p[2 * j] = mul_base<FpGpu>(k, g_table);
      AffV q = load_entry<Fv>(g_table), key;  // G (entry 1 of window 0) for bad keys
      if (i < count) {
        key_ok = (pubs[65 * i] == 0x04 ? ~0u : 0u) & point_ok(pubs + 65 * i + 1, &key);
        if (key_ok) q = key;  // public
      }
      p[2 * j + 1] = from_compact(mul_point_ct<Fv>(k, q));
    }
    verdict[j] = !key_ok ? kBadPublicKey : FnGpu::in_range_nonzero(k) ? kOk : kRedoOnHost;
    z[2 * j] = p[2 * j].z;
    z[2 * j + 1] = p[2 * j + 1].z;
  }
  batch_invert<2 * M>(z);
#pragma unroll 1
  for (int j = 0; j < M; ++j) {
    const size_t i = item_of<M>(j);
    if (i >= count) break;
    store_affine(points + 128 * i, p[2 * j], z[2 * j]);
    store_affine(points + 128 * i + 64, p[2 * j + 1], z[2 * j + 1]);
    status[i] = verdict[j];
  }
}

// A compressed C1 (02 or 03 || x): y from y^2 = x^3 - 3x + b, the root of
// y's parity (GB/T 32918.1 clause 4.2.10 and A.5.2; p = 3 mod 4, so the
// root is rhs^((p+1)/4): field/fp_chain.h). A mask: all ones where x < p
// and rhs is a square. C1 is public: the branch on its form is too.
__device__ uint32_t decompress(uint32_t prefix, AffV* p) {
  const U32x8 rhs = Fv::add(Fv::mul(Fv::sub(Fv::sqr(p->x), U32x8{{3}}), p->x), curve_b());
  U32x8 y = field::sm2_p_sqrt_candidate<Fv>(rhs);
  const uint32_t root = uint32_t(Fv::eq(Fv::sqr(y), rhs));
  if ((y.w[0] & 1) != (prefix & 1)) y = Fv::neg(y);
  p->y = y;
  return Fv::lt_p_mask(p->x) & root;
}

// Clause 7.1 B1 and B3 for each item whose parts were found (layout.status
// kOk): C1 recovered where compressed and checked on the curve
// (kBadCiphertext otherwise), then x2 || y2 of [d]C1 (64 bytes per item)
// by the constant-time ladder. Items refused while parsing keep their
// status.
__device__ void decrypt_point_item(const uint8_t* d_be, const CiphertextLayout& layout,
                                   uint8_t* xy, int* status) {
  AffV c1;
  uint32_t ok = 0;
  if (layout.status == kOk && layout.c1_prefix == 0x04) {
    ok = point_ok(layout.c1, &c1);
  } else if (layout.status == kOk) {
    c1.x = load_be(layout.c1);
    ok = decompress(layout.c1_prefix, &c1);
    ok &= point_ok_xy(c1);
  }
  if (!ok) c1 = {FpGpu::one(), FpGpu::one()};  // public: the item fails, its result unused
  const JacV q = mul_point_ct<Fv>(load_be(d_be), c1);
  store_affine(xy, from_compact(q), Fv::inv(q.z));
  *status = layout.status != kOk ? layout.status : ok ? kOk : kBadCiphertext;
}

// Entries a thread of the key table's build computes: a run of consecutive
// multiples j B, .., (j + kKeyRun - 1) B of a window's base B, one
// inversion for all of them.
constexpr int kKeyRun = 16;

// --- Kernels ---------------------------------------------------------------------------
__device__ __forceinline__ size_t item_index() { return size_t(blockIdx.x) * blockDim.x + threadIdx.x; }

template <int M>
__global__ void __launch_bounds__(kThreads, KS_MINB_SIGN)
    keygen_kernel(const uint8_t* priv, uint8_t* pub, int* status, size_t count,
                  const uint4* table) {
  keygen_items<M>(priv, pub, status, count, table);
}

template <int M>
__global__ void __launch_bounds__(kThreads, KS_MINB_SIGN)
    sign_kernel(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                const uint8_t* nonces, uint8_t* sigs, int* status, size_t count,
                const uint4* table) {
  sign_items<M>(digests, keys, key_stride, nonces, sigs, status, count, table);
}

__global__ void __launch_bounds__(kThreads, KS_MINB_VERIFY)
    verify_kernel(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs, int* status,
                  size_t count, const uint4* table) {
  const size_t i = item_index();
  if (i < count) status[i] = verify_one(pubs + 65 * i, digests + 32 * i, sigs + 64 * i, table);
}

template <int kBits>
__global__ void __launch_bounds__(kThreads, kMinBlocksOneKey)
    verify_one_key_kernel(const uint8_t* digests, const uint8_t* sigs, int* status, size_t count,
                          const uint4* g_table, const uint4* p_table) {
  const size_t i = item_index();
  if (i < count)
    status[i] = verify_one_key<kBits, FpGpu>(digests + 32 * i, sigs + 64 * i, g_table, p_table);
}

// Encryption's and decryption's point multiplications: the constant-time
// ladder's kernels run at KS_MINB_CRYPT resident blocks per SM.
#ifndef KS_MINB_CRYPT
#define KS_MINB_CRYPT 4
#endif

template <int M, bool kOneKey>
__global__ void __launch_bounds__(kThreads, kOneKey ? KS_MINB_SIGN : KS_MINB_CRYPT)
    encrypt_points_kernel(const uint8_t* pubs, const uint4* key_table, const uint8_t* nonces,
                          uint8_t* points, int* status, size_t count, const uint4* g_table,
                          const int* only) {
  if (only != nullptr) {  // a redraw pass (M = 1): the items not named idle
    const size_t i = item_index();
    if (i >= count || only[i] == 0) return;
  }
  encrypt_points_items<M, kOneKey>(pubs, key_table, nonces, points, status, count, g_table);
}

__global__ void __launch_bounds__(kThreads, KS_MINB_CRYPT)
    decrypt_points_kernel(const uint8_t* d, const CiphertextLayout* layouts, uint8_t* xy,
                          int* status, size_t count) {
  const size_t i = item_index();
  if (i < count) decrypt_point_item(d, layouts[i], xy + 64 * i, status + i);
}

// Z_A = SM3(ENTL || ID || a || b || x_G || y_G || x_A || y_A) (clause 5.5)
// as bytes: ENTL the ID's length in bits, two bytes big-endian.
struct ZaBytes {
  const uint8_t* id;
  uint32_t id_len;
  const uint8_t* curve;  // a || b || x_G || y_G
  const uint8_t* xy;     // x_A || y_A
  __device__ uint8_t operator()(uint64_t pos) const {
    if (pos < 2) return uint8_t((8 * id_len) >> (pos == 0 ? 8 : 0));
    if (pos < 2 + id_len) return id[pos - 2];
    const uint64_t at = pos - 2 - id_len;
    return at < 128 ? curve[at] : xy[at - 128];
  }
};

// Z_A of item i under its key pubs[65 i ..] and its ID ids[id_offsets[i]
// .. id_offsets[i + 1]) (offsets no host has checked). status[i] kOk,
// kBadItemOffsets (the ID's range descends or passes ids_len),
// kBadPublicKey or kBadIdLength, checked in that order (the host path's);
// a failed item's Z_A is that of an empty ID and is to be discarded.
__global__ void za_kernel(const uint8_t* pubs, const uint8_t* ids, uint64_t ids_len,
                          const uint64_t* id_offsets, const ZaCurve curve, size_t count,
                          uint8_t* za, int* status) {
  const size_t i = item_index();
  if (i >= count) return;
  const uint64_t begin = id_offsets[i], end = id_offsets[i + 1];
  const bool range_ok = begin <= end && end <= ids_len;
  const uint64_t len = range_ok ? end - begin : 0;
  AffV p;
  const uint8_t* pub = pubs + 65 * i;
  const bool key_ok = pub[0] == 0x04 && point_ok(pub + 1, &p) != 0;
  status[i] = !range_ok ? kBadItemOffsets : !key_ok ? kBadPublicKey
              : len > kMaxIdBytes ? kBadIdLength : kOk;
  const ZaBytes bytes = {ids + begin, uint32_t(len <= kMaxIdBytes ? len : 0), curve.bytes,
                         pub + 1};
  sm3::gpu::digest_source(sm3::gpu::GatheredBlocks<ZaBytes>{bytes},
                          2 + bytes.id_len + 128 + 64, za + 32 * i);
}

// Window `window`'s entries j B for j in this thread's run, B = bases[window]
// (16 words, affine): [first] B by double-and-add, the run by additions of
// B, then affine through one batch inversion. Public data; the compact
// field (a one-off kernel: code size matters more than speed).
template <int kBits>
__global__ void __launch_bounds__(kThreads)
    build_key_table_kernel(const uint32_t* bases, uint4* table) {
  constexpr int kEntries = 1 << (kBits - 1);
  constexpr int kRuns = kEntries / kKeyRun;
  static_assert(kEntries % kKeyRun == 0, "whole runs");
  const size_t id = item_index();
  if (id >= size_t(key_windows(kBits)) * kRuns) return;
  const int window = int(id / kRuns), run = int(id % kRuns);
  const AffV b = {load_words(bases + 16 * window), load_words(bases + 16 * window + 8)};
  const uint32_t first = uint32_t(run) * kKeyRun + 1;
  JacV acc = JacV::from_affine(b);
#pragma unroll 1
  for (int bit = 30 - __clz(first); bit >= 0; --bit) {
    acc = curve::dbl<Fv, kDblSquareZ>(acc);
    if ((first >> bit) & 1) acc = curve::add_mixed_vartime(acc, b);
  }
  JacV points[kKeyRun];
  U32x8 z[kKeyRun], prefix[kKeyRun];
#pragma unroll 1
  for (int j = 0; j < kKeyRun; ++j) {
    points[j] = acc;
    z[j] = acc.z;
    if (j + 1 < kKeyRun) acc = curve::add_mixed_vartime(acc, b);
  }
  field::batch_invert<Fv>(z, prefix, kKeyRun);  // no z is 0: j B != O for j < n
  uint4* out = table + (size_t(window) * kEntries + size_t(run) * kKeyRun) * 4;
#pragma unroll 1
  for (int j = 0; j < kKeyRun; ++j) {
    const U32x8 z2 = Fv::sqr(z[j]);
    const U32x8 x = Fv::mul(points[j].x, z2), y = Fv::mul(points[j].y, Fv::mul(z2, z[j]));
    out[4 * j] = make_uint4(x.w[0], x.w[1], x.w[2], x.w[3]);
    out[4 * j + 1] = make_uint4(x.w[4], x.w[5], x.w[6], x.w[7]);
    out[4 * j + 2] = make_uint4(y.w[0], y.w[1], y.w[2], y.w[3]);
    out[4 * j + 3] = make_uint4(y.w[4], y.w[5], y.w[6], y.w[7]);
  }
}

__global__ void prepare_keys_kernel(const uint8_t* priv, SignKey* keys, size_t count,
                                    int* key_status) {
  const size_t i = item_index();
  if (i >= count) return;
  U32x8 d = load_be(priv + 32 * i);
  if (key_status != nullptr) {  // keys no host has checked: a bad one signs with d = 1
    const uint32_t ok = private_key_in_range(d);
    d = FpGpu::select(uint64_t(0) - (ok & 1), d, FpGpu::one());
    key_status[i] = ok ? 0 : KS_ERR_BAD_PRIVATE_KEY;
  }
  const U32x8 d_mont = FnGpu::to_mont(d);
  const U32x8 w = FnGpu::inv_mont(FnGpu::add(d_mont, FnGpu::one_mont()));
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    keys[i].d_mont[j] = d_mont.w[j];
    keys[i].inv_one_plus_d_mont[j] = w.w[j];
  }
}

// Item i's 64 bytes, ChaCha20 block i under (key, first, tag), as hi
// 2^256 + lo; their value mod n is hi R + lo, hi R being the Montgomery
// form of hi mod n.
__global__ void random_scalars_kernel(const chacha20::Key key, uint32_t tag, uint32_t first_lo,
                                      uint32_t first_hi, size_t count, uint8_t* out,
                                      const int* only) {
  const size_t i = item_index();
  if (i >= count || (only != nullptr && only[i] == 0)) return;
  const uint32_t nonce[3] = {first_lo, first_hi, tag};
  uint32_t words[16];
  chacha20::block(words, key.words, uint32_t(i), nonce);
  U32x8 h, l;
#pragma unroll
  for (int j = 0; j < 8; ++j) h.w[j] = words[j], l.w[j] = words[8 + j];
  store_be(out + 32 * i,
           FnGpu::add(FnGpu::to_mont(FnGpu::reduce_once(h)), FnGpu::reduce_once(l)));
}

// --- The table, per device ------------------------------------------------------------
std::vector<uint8_t> host_table() {
  std::vector<uint8_t> t(kBaseTableWords * sizeof(uint32_t));
  build_base_table(reinterpret_cast<uint32_t*>(t.data()));
  return t;
}

ks::gpu::DeviceTable g_table(&host_table);

cudaError_t table_for_current_device(const uint4** out) { return g_table.get(out); }

// --- Items per thread of keygen and sign -----------------------------------------------
// More items per thread amortize the one inversion better, but a small
// batch then gives too few blocks to fill the SMs: gpu/launch.cuh's
// modelled-time rule over kItemCost, the relative time per item at full
// occupancy (H100, kernel-only, 2^22 items: keygen 1.64e8, 2.07e8, 2.38e8,
// 2.60e8 per second for M = 1, 2, 4, 8). Against the forced variants
// measured on an H100 at 2^14 .. 2^22 items (sm2_gpu_bench sweep) it picks
// the fastest at every size: M = 1 up to 2^15, 2 at 2^16, 4 at 2^17 and
// 2^19, 8 at 2^18 and from 2^20.
constexpr double kItemCost[9] = {0, 1 / 1.64, 1 / 2.07, 0, 1 / 2.38, 0, 0, 0, 1 / 2.60};

// SMs and resident blocks of sign_kernel<8> per SM for the current device
// (cached per device; the other kernels have the same launch bounds).
ks::gpu::Residency block_slots() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cache[kMaxDevices];  // sms * 256 + per_sm
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return {};
  int v = cache[device].load(std::memory_order_relaxed);
  if (v == 0) {
    const ks::gpu::Residency r = ks::gpu::residency(sign_kernel<8>, kThreads);
    if (r.sms <= 0 || r.blocks_per_sm <= 0 || r.blocks_per_sm > 255) return {};
    v = r.sms * 256 + r.blocks_per_sm;
    cache[device].store(v, std::memory_order_relaxed);
  }
  ks::gpu::Residency r;
  r.sms = v / 256;
  r.blocks_per_sm = v % 256;
  return r;
}

// per_thread where it is 1, 2, 4 or 8 (forced), else the rule's choice.
int items_of_batch(size_t count, int per_thread) {
  if (per_thread == 1 || per_thread == 2 || per_thread == 4 || per_thread == 8) return per_thread;
  return ks::gpu::items_per_thread(count, block_slots(), kThreads, kItemCost);
}

// Calls launch(std::integral_constant<int, M>) for M = items_of_batch(count,
// per_thread) and returns the launch error.
template <class Launch>
cudaError_t dispatch_items(size_t count, int per_thread, Launch launch) {
  switch (items_of_batch(count, per_thread)) {
    case 1: launch(std::integral_constant<int, 1>()); break;
    case 2: launch(std::integral_constant<int, 2>()); break;
    case 4: launch(std::integral_constant<int, 4>()); break;
    default: launch(std::integral_constant<int, 8>()); break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t init_tables() {
  const uint4* table = nullptr;
  return table_for_current_device(&table);
}

cudaError_t launch_keygen(const uint8_t* priv, uint8_t* pub, int* status, size_t count,
                          cudaStream_t stream, int per_thread) {
  const uint4* table = nullptr;
  const cudaError_t err = table_for_current_device(&table);
  if (err != cudaSuccess || count == 0) return err;
  return dispatch_items(count, per_thread, [&](auto m) {
    constexpr int M = decltype(m)::value;
    keygen_kernel<M><<<blocks_for(count, kThreads * M), kThreads, 0, stream>>>(priv, pub, status,
                                                                              count, table);
  });
}

cudaError_t launch_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count,
                                     cudaStream_t stream, int* key_status) {
  if (count == 0) return cudaSuccess;
  prepare_keys_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(priv, keys, count,
                                                                          key_status);
  return cudaGetLastError();
}

cudaError_t launch_random_scalars(const chacha20::Key& key, uint32_t tag, uint64_t first,
                                  size_t count, uint8_t* out, const int* only,
                                  cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (count > 0xffffffffu) return cudaErrorInvalidValue;  // the block counter
  random_scalars_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
      key, tag, uint32_t(first), uint32_t(first >> 32), count, out, only);
  return cudaGetLastError();
}

cudaError_t launch_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                               const uint8_t* nonces, uint8_t* sigs, int* status, size_t count,
                               cudaStream_t stream, int per_thread) {
  const uint4* table = nullptr;
  const cudaError_t err = table_for_current_device(&table);
  if (err != cudaSuccess || count == 0) return err;
  return dispatch_items(count, per_thread, [&](auto m) {
    constexpr int M = decltype(m)::value;
    sign_kernel<M><<<blocks_for(count, kThreads * M), kThreads, 0, stream>>>(
        digests, keys, key_stride, nonces, sigs, status, count, table);
  });
}

cudaError_t launch_verify_digest(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs,
                                 int* status, size_t count, cudaStream_t stream) {
  const uint4* table = nullptr;
  const cudaError_t err = table_for_current_device(&table);
  if (err != cudaSuccess || count == 0) return err;
  verify_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(pubs, digests, sigs, status,
                                                                       count, table);
  return cudaGetLastError();
}

size_t key_table_bytes(int bits) {
  return (key_table_entries(bits) + size_t(key_windows(bits))) * 64;  // entries, then the bases
}

cudaError_t launch_build_key_table(const PublicKey& key, int bits, uint8_t* table,
                                   cudaStream_t stream) {
  if (bits != 8 && bits != 12 && bits != 16) return cudaErrorInvalidValue;
  std::vector<uint32_t> bases(16 * size_t(key_windows(bits)));
  key_table_bases(key, bits, bases.data());
  auto* dev_bases = reinterpret_cast<uint32_t*>(table + key_table_entries(bits) * 64);
  // From pageable memory: staged before this returns, so `bases` may go.
  cudaError_t err = cudaMemcpyAsync(dev_bases, bases.data(), bases.size() * sizeof(uint32_t),
                                    cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess) return err;
  const size_t threads = key_table_entries(bits) / kKeyRun;
  auto* out = reinterpret_cast<uint4*>(table);
  const unsigned blocks = blocks_for(threads, kThreads);
  switch (bits) {
    case 8: build_key_table_kernel<8><<<blocks, kThreads, 0, stream>>>(dev_bases, out); break;
    case 12: build_key_table_kernel<12><<<blocks, kThreads, 0, stream>>>(dev_bases, out); break;
    default: build_key_table_kernel<16><<<blocks, kThreads, 0, stream>>>(dev_bases, out); break;
  }
  return cudaGetLastError();
}

cudaError_t launch_verify_digest_one_key(const uint8_t* key_table, int bits,
                                         const uint8_t* digests, const uint8_t* sigs, int* status,
                                         size_t count, cudaStream_t stream) {
  if (bits != 8 && bits != 12 && bits != 16) return cudaErrorInvalidValue;
  const uint4* g_table = nullptr;
  const cudaError_t err = table_for_current_device(&g_table);
  if (err != cudaSuccess || count == 0) return err;
  const auto* p_table = reinterpret_cast<const uint4*>(key_table);
  auto launch = [&](auto kernel) {
    kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(digests, sigs, status, count,
                                                                  g_table, p_table);
  };
  switch (bits) {
    case 8: launch(verify_one_key_kernel<8>); break;
    case 12: launch(verify_one_key_kernel<12>); break;
    default: launch(verify_one_key_kernel<16>); break;
  }
  return cudaGetLastError();
}

cudaError_t launch_encrypt_points(const uint8_t* pubs, const uint8_t* key_table,
                                  const uint8_t* nonces, uint8_t* points, int* status,
                                  size_t count, cudaStream_t stream, int per_thread,
                                  const int* only) {
  const uint4* g_table = nullptr;
  const cudaError_t err = table_for_current_device(&g_table);
  if (err != cudaSuccess || count == 0) return err;
  const auto* p_table = reinterpret_cast<const uint4*>(key_table);
  // The ladder's cost dwarfs the inversion's, and a redraw pass names few
  // items: one item a thread.
  if (key_table == nullptr || only != nullptr) {
    const unsigned blocks = blocks_for(count, kThreads);
    if (key_table == nullptr)
      encrypt_points_kernel<1, false><<<blocks, kThreads, 0, stream>>>(
          pubs, nullptr, nonces, points, status, count, g_table, only);
    else
      encrypt_points_kernel<1, true><<<blocks, kThreads, 0, stream>>>(
          nullptr, p_table, nonces, points, status, count, g_table, only);
    return cudaGetLastError();
  }
  return dispatch_items(count, per_thread, [&](auto m) {
    constexpr int M = decltype(m)::value;
    encrypt_points_kernel<M, true><<<blocks_for(count, kThreads * M), kThreads, 0, stream>>>(
        nullptr, p_table, nonces, points, status, count, g_table, nullptr);
  });
}

cudaError_t launch_decrypt_points(const uint8_t* d, const CiphertextLayout* layouts, uint8_t* xy,
                                  int* status, size_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  decrypt_points_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(d, layouts, xy,
                                                                             status, count);
  return cudaGetLastError();
}

cudaError_t launch_za(const uint8_t* pubs, const uint8_t* ids, uint64_t ids_len,
                      const uint64_t* id_offsets, const ZaCurve& curve, size_t count, uint8_t* za,
                      int* status, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  za_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(pubs, ids, ids_len, id_offsets,
                                                                  curve, count, za, status);
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
