// SM2 keygen, sign and verify on the GPU (see sm2_gpu.h): one thread per
// item, the point formulas of curve/jacobian.h over field/fp_gpu.cuh.
#include <algorithm>
#include <atomic>
#include <type_traits>
#include <vector>

#include "curve/jacobian.h"
#include "gpu/device_table.cuh"
#include "field/batch_invert.h"
#include "field/fn_gpu.cuh"
#include "field/fp_dpf.cuh"
#include "field/fp_gpu.cuh"
#include "field/out_of_line.cuh"
#include "sm2/gpu/sm2_gpu.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

using field::FnGpu;
using field::FpGpu;
using field::FpGpuCompact;
using field::U32x8;
// Keygen and signing run over FpGpu, verification over FpGpuCompact (the
// products out of line: see field/fp_gpu.cuh); the same elements.
using Jac = curve::JacobianPoint<FpGpu>;
template <class F>
using JacOf = curve::JacobianPoint<F>;
template <class F>
using AffOf = curve::AffinePoint<F>;

constexpr unsigned kThreads = 128;
// Tuning knobs (overridable with -D for benchmark variants): minimum
// resident blocks per SM for __launch_bounds__ (a register cap) and items
// per thread of keygen/sign (the batch-inversion width, now chosen per
// batch: items_per_thread() below). Measured on an H100, kernel-only, 2^20
// items ([ZHU22 table 6]'s exercise):
//   items/minb_sign/minb_verify  keygen   sign     verify
//   4/3/2 (168, 231 regs)        2.36e8   2.30e8   8.6e6
//   4/4/3 (128, 168 regs)        2.18e8   2.16e8   8.8e6
//   8/3/4 (168, 128 regs)        2.56e8   2.48e8   1.29e7   <- chosen
//   8/4/3                        2.35e8   2.31e8   8.2e6
//   16/3/5 (verify 96 regs)      2.27e8   2.21e8   1.30e7
//   8/3/6 (verify 80 regs)       2.53e8   2.45e8   9.4e6
// (1 item/thread, no batch inversion: keygen 1.55e8, sign 1.60e8.)
// Verification since runs over out-of-line products (FpGpuCompact, see
// mul_point); its minimum blocks measured again then, verifications/s at
// 2^20: 2 -> 1.81e7, 3 -> 1.97e7, 4 -> 2.05e7, 5 -> 2.06e7 (102 regs),
// 6 -> 2.06e7.
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

// Next 16-bit window of k (consumed from the bottom: k >>= 16) with the
// bit below it, as booth() wants it.
__device__ __forceinline__ SignedDigit next_base_digit(U32x8& k, uint32_t& below) {
  const uint32_t chunk = k.w[0] & 0xFFFF;
  const uint32_t v = (chunk << 1) | below;
  below = chunk >> 15;
#pragma unroll
  for (int i = 0; i < 7; ++i) k.w[i] = __funnelshift_r(k.w[i], k.w[i + 1], 16);
  k.w[7] >>= 16;
  return booth(v, kBaseWindowBits);
}

// [k]G for k in [0, n-1], constant time. k is replaced by n - k when
// k >= 2^255 (and the result negated), so that the 16 windows' Booth carry
// never passes bit 255. The additions never meet P == Q (the exclusion of
// jacobian.h's add_mixed): before window i the accumulator is [a]G with
// |a| < 2^(16i) and the entry is [d 2^(16i)]G with 1 <= |d| <= 2^15, so
// a - d 2^(16i) is nonzero and below 2^255 + 2^240 < n in magnitude.
template <class F>
__device__ JacOf<F> mul_base(U32x8 k, const uint4* table) {
  U32x8 n_minus_k;
  field::gpu_detail::sub_n<8>(n_minus_k.w, field::gpu_detail::kN, k.w);
  const uint32_t flip = 0u - (k.w[7] >> 31);
  k = select_u32(flip, n_minus_k, k);

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
// argument, chosen per launch by items_per_thread()) and inverts their Z
// coordinates together: 3(M - 1) products and one Fermat inversion (seed
// 001 table 4) instead of M inversions. Across threads it would not pay on
// a GPU: the lanes of a warp already invert in lockstep.

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
#ifndef KS_POINT_WINDOW_BITS
#define KS_POINT_WINDOW_BITS 5
#endif
#ifndef KS_DBL_SQUARE_Z
#define KS_DBL_SQUARE_Z 1
#endif
constexpr int kPointWindowBits = KS_POINT_WINDOW_BITS;
// jacobian.h's doubling with Z3 from a square (3M + 5S) or a product (4M + 4S).
constexpr bool kDblSquareZ = KS_DBL_SQUARE_Z != 0;
constexpr int kPointWindows = (256 + kPointWindowBits) / kPointWindowBits;  // 52
constexpr int kPointEntries = 1 << (kPointWindowBits - 1);                  // 1P..16P
// Verification's field and point operations, one of (KS_VERIFY_CODE):
//   1: FpGpuCompact, products out of line (field/fp_gpu.cuh), point
//      formulas inline;
//   2: FpGpu inline, the doubling and the addition out of line;
//   0: everything inline (the doublings' loop stays rolled in every case);
//   3: as 1, with [t]P in the DPF field (field/fp_dpf.cuh), products out
//      of line (field/out_of_line.cuh).
//      Slower, measured on an H200 (kernel-only, verifications/s at 2^16,
//      2^18, 2^20): 1.68e7, 1.79e7, 1.87e7 against code 1's 1.87e7,
//      2.03e7, 2.12e7. Its product alone is 16% faster (7.85e10 against
//      6.75e10/s, sm2_gpu_bench's field rates) but its square is not
//      (1.02e11 against 1.03e11), so a 3M + 5S doubling costs the same;
//      its additions (a fold and a carry round of 64-bit limbs) and its
//      40-byte elements (a 2.4 KiB table frame) cost more.
#ifndef KS_VERIFY_CODE
#define KS_VERIFY_CODE 1
#endif
#if KS_VERIFY_CODE == 1 || KS_VERIFY_CODE == 3
using Fv = FpGpuCompact;
#else
using Fv = FpGpu;
#endif
#if KS_VERIFY_CODE == 3
using Fpoint = field::OutOfLineProducts<field::FpDpf>;  // the field of [t]P
#else
using Fpoint = Fv;
#endif
using JacV = curve::JacobianPoint<Fv>;
using AffV = curve::AffinePoint<Fv>;
#if KS_VERIFY_CODE == 2
#define KS_VERIFY_POINT_OP __device__ __noinline__
#else
#define KS_VERIFY_POINT_OP __device__ __forceinline__
#endif
template <class F>
KS_VERIFY_POINT_OP JacOf<F> dbl_v(const JacOf<F>& p) { return curve::dbl<F, kDblSquareZ>(p); }
template <class F>
KS_VERIFY_POINT_OP JacOf<F> add_v(const JacOf<F>& p, const JacOf<F>& q) { return curve::add(p, q); }

// Bits [pos, pos + width) of k, zero past bit 255; pos is a compile-time
// constant after unrolling, so k stays in registers.
__device__ __forceinline__ uint32_t bits_at(const U32x8& k, int pos, int width) {
  if (pos < 0) return (k.w[0] << -pos) & ((1u << width) - 1);  // bits below 0 read as 0
  const int limb = pos >> 5, shift = pos & 31;
  if (limb >= 8) return 0;
  const uint32_t hi = limb + 1 < 8 ? k.w[limb + 1] : 0;
  return __funnelshift_r(k.w[limb], hi, shift) & ((1u << width) - 1);
}

// [t]P for t in [1, n-1], signed 5-bit windows from the top, table 1P..16P
// in Jacobian form ([ZHU22 table 5] with signed digits: P0 = infinity is
// the all-zero magnitude, no branch on digits). jacobian.h's add() suffices:
// the argument of sm2/sm2_curve.cc's mul_point applies unchanged.
// The doublings take Z3 from a square (3M + 5S, kDblSquareZ). Measured on
// an H100, kernel-only, verifications/s at 2^20 and 2^22 items (one run):
//   4M + 4S doublings (before)                          1.24e7  1.27e7
//   3M + 5S doublings                 <- chosen         1.36e7  1.40e7
//   3M + 5S, 4-bit windows (8 entries)                  1.36e7  1.30e7
//   affine entries (one batch inversion, madd 7M + 4S)  1.28e7  1.13e7
//   the same with 3M + 5S                               1.29e7  1.14e7
//   affine, 4-bit windows, 3M + 5S                      1.40e7  1.27e7
//   3M + 5S, launch bounds (128, 5): 102 regs           1.34e7  1.26e7
//   entries with Z^2, Z^3 cached (10M + 4S additions)   1.09e7 at 2^22
//   products out of line, doublings not unrolled        1.57e7  1.49e7
//   the same, operands passed by value       <- chosen  2.05e7  (2^20)
//     then: 4- / 6-bit windows 2.00e7 / 2.04e7, 4M + 4S doublings 2.02e7,
//     everything inline 1.19e7 (bench/results/h100-verify-variants-*)
//   jacobian.h's doubling in the nistz256 arrangement, cmo-2 / hmv
//     additions (fewer field additions)                  2.11e7  2.15e7
//     with 4M + 4S doublings instead                     2.07e7  (2^20)
//     (bench/results/h100-dbl-square-z-variants-2026-11-22-s3.txt)
// Nsight Compute on the 4M + 4S kernel: issue slots 32% busy, 9.4 cycles
// between issues per warp of which 5.2 wait on instruction fetch (the
// fully inlined field products make the loop far larger than the
// instruction caches), local memory (table, spills) 47% L2 hit rate, DRAM
// 17% busy: code size, not arithmetic, limited verification; hence Fv and
// the rolled doublings. Passing the products' operands by reference kept
// every operand in local memory around each call (2.9 KiB stack frame);
// by value they stay in registers (+31%).
template <class F>
__device__ JacOf<F> mul_point(const U32x8& t, const AffOf<F>& p) {
  JacOf<F> table[kPointEntries];  // table[j - 1] = jP; indexed by public digits
  table[0] = JacOf<F>::from_affine(p);
#pragma unroll 1
  for (int j = 2; j <= kPointEntries; ++j)
    table[j - 1] = (j % 2 == 0) ? dbl_v<F>(table[j / 2 - 1]) : add_v<F>(table[j - 2], table[0]);

  int8_t digits[kPointWindows];
#pragma unroll
  for (int i = 0; i < kPointWindows; ++i) {
    const SignedDigit d = booth(bits_at(t, kPointWindowBits * i - 1, kPointWindowBits + 1),
                                kPointWindowBits);
    digits[i] = int8_t((d.magnitude ^ d.negative) - d.negative);
  }

  JacOf<F> acc = JacOf<F>::infinity();
#pragma unroll 1
  for (int i = kPointWindows - 1; i >= 0; --i) {
#pragma unroll 1
    for (int b = 0; b < kPointWindowBits; ++b) acc = dbl_v<F>(acc);
    const int digit = digits[i];
    const uint32_t magnitude = digit < 0 ? -digit : digit;
    JacOf<F> e = table[magnitude - (magnitude != 0)];
    e.z = F::select(zero_mask(magnitude), F::zero(), e.z);
    acc = add_v<F>(acc, curve::negate_if<F>(0 - uint64_t(digit < 0), e));
  }
  return acc;
}

// [t]P in the field Fp (Fpoint), in Fv's representation at both ends.
template <class Fp = Fpoint>
__device__ __forceinline__ JacV mul_point_v(const U32x8& t, const AffV& p) {
  if constexpr (std::is_same<Fp, Fv>::value) {
    return mul_point<Fv>(t, p);
  } else {
    const auto in = [](const U32x8& a) {
      uint64_t w[4];
      FpGpu::to_words(w, a);
      return Fp::from_words(w);
    };
    const auto out = [](const typename Fp::Elem& a) {
      uint64_t w[4];
      Fp::to_words(w, a);
      return FpGpu::from_words(w);
    };
    const JacOf<Fp> q = mul_point<Fp>(t, AffOf<Fp>{in(p.x), in(p.y)});
    return JacV{out(q.x), out(q.y), out(q.z)};
  }
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

// x(Q) == c mod n for Q = (X, Y, Z) finite, without inverting Z: x(Q) < p
// and c < n, so x(Q) is c or c + n (when below p); X == x Z^2.
__device__ __forceinline__ uint32_t x_matches(const JacV& q, const U32x8& c) {
  const U32x8 z2 = Fv::sqr(q.z);
  U32x8 c_plus_n;
  const uint32_t carry = field::gpu_detail::add_n<8>(c_plus_n.w, c.w, field::gpu_detail::kN);
  const uint32_t second_ok = Fv::lt_p_mask(c_plus_n) & (0u - (carry ^ 1));
  const uint32_t first = uint32_t(Fv::eq(q.x, Fv::mul(c, z2)));
  const uint32_t second = uint32_t(Fv::eq(q.x, Fv::mul(c_plus_n, z2))) & second_ok;
  return (first | second) & ~uint32_t(q.is_infinity());
}

// Clause 7.1 steps B1-B7 (public data).
__device__ int verify_one(const uint8_t* pub, const uint8_t* digest, const uint8_t* sig,
                          const uint4* table) {
  const AffV p = {load_be(pub + 1), load_be(pub + 33)};
  const uint32_t key_ok = (pub[0] == 0x04 ? ~0u : 0u) & Fv::lt_p_mask(p.x) &
                          Fv::lt_p_mask(p.y) & uint32_t(curve::on_curve(p, curve_b()));
  const U32x8 r = load_be(sig), s = load_be(sig + 32);
  const U32x8 t = FnGpu::add(r, s);
  const uint32_t range_ok = FnGpu::in_range_nonzero(r) & FnGpu::in_range_nonzero(s) &
                            ~uint32_t(FpGpu::is_zero(t));
  const JacV q = curve::add_vartime(mul_point_v(t, p), mul_base<Fv>(s, table));
  const U32x8 e = FnGpu::reduce_once(load_be(digest));
  const uint32_t match = x_matches(q, FnGpu::sub(r, e));
  return !key_ok ? kBadPublicKey : !range_ok ? kSignatureOutOfRange : match ? kOk : kVerifyFailed;
}

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

__global__ void prepare_keys_kernel(const uint8_t* priv, SignKey* keys, size_t count) {
  const size_t i = item_index();
  if (i >= count) return;
  const U32x8 d_mont = FnGpu::to_mont(load_be(priv + 32 * i));
  const U32x8 w = FnGpu::inv_mont(FnGpu::add(d_mont, FnGpu::one_mont()));
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    keys[i].d_mont[j] = d_mont.w[j];
    keys[i].inv_one_plus_d_mont[j] = w.w[j];
  }
}

// The DPF field's operations on plain 8-word values.
__device__ U32x8 dpf_field_op(FieldOp op, const U32x8& a, const U32x8& b) {
  using F = field::FpDpf;
  uint64_t w[4];
  FpGpu::to_words(w, a);
  const F::Elem x = F::from_words(w);
  FpGpu::to_words(w, b);
  const F::Elem y = F::from_words(w);
  F::Elem r = x;
  switch (op) {
    case FieldOp::kDpfAdd: r = F::add(x, y); break;
    case FieldOp::kDpfSub: r = F::sub(x, y); break;
    case FieldOp::kDpfMul: r = F::mul(x, y); break;
    case FieldOp::kDpfSqr: r = F::sqr(x); break;
    case FieldOp::kDpfInv: r = F::inv(x); break;
    case FieldOp::kDpfNeg: r = F::neg(x); break;
    default: break;
  }
  F::to_words(w, r);
  return FpGpu::from_words(w);
}

__device__ U32x8 field_op(FieldOp op, const U32x8& a, const U32x8& b) {
  switch (op) {
    case FieldOp::kFpAdd: return FpGpu::add(a, b);
    case FieldOp::kFpSub: return FpGpu::sub(a, b);
    case FieldOp::kFpMul: return FpGpu::mul(a, b);
    case FieldOp::kFpSqr: return FpGpu::sqr(a);
    case FieldOp::kFpInv: return FpGpu::inv(a);
    case FieldOp::kFpNeg: return FpGpu::neg(a);
    case FieldOp::kFpHalf: return FpGpu::half(a);
    case FieldOp::kFnAdd: return FnGpu::add(a, b);
    case FieldOp::kFnSub: return FnGpu::sub(a, b);
    case FieldOp::kFnMontMul: return FnGpu::mont_mul(a, b);
    case FieldOp::kFnInvMont: return FnGpu::inv_mont(a);
    case FieldOp::kFnToMont: return FnGpu::to_mont(a);
    case FieldOp::kDpfAdd:
    case FieldOp::kDpfSub:
    case FieldOp::kDpfMul:
    case FieldOp::kDpfSqr:
    case FieldOp::kDpfInv:
    case FieldOp::kDpfNeg: return dpf_field_op(op, a, b);
  }
  return a;
}

__global__ void field_op_kernel(FieldOp op, const uint32_t* a, const uint32_t* b, uint32_t* out,
                                size_t count) {
  const size_t i = item_index();
  if (i >= count) return;
  const U32x8 r = field_op(op, load_words(a + 8 * i), load_words(b + 8 * i));
#pragma unroll
  for (int j = 0; j < 8; ++j) out[8 * i + j] = r.w[j];
}

unsigned blocks_for(size_t count, unsigned threads) {
  return unsigned((count + threads - 1) / threads);
}

// --- The table, per device ------------------------------------------------------------
std::vector<uint8_t> host_table() {
  std::vector<uint8_t> t(kBaseTableWords * sizeof(uint32_t));
  build_base_table(reinterpret_cast<uint32_t*>(t.data()));
  return t;
}

ks::gpu::DeviceTable g_table(&host_table);

cudaError_t table_for_current_device(const uint4** out) { return g_table.get(out); }

// --- Synchronous host wrappers -----------------------------------------------------------
// A device copy of `count` T's (from host `src` when given), freed on scope exit.
template <class T>
class DeviceArray {
 public:
  DeviceArray(const T* src, size_t count) : bytes_(count * sizeof(T)) {
    err_ = cudaMalloc(&ptr_, bytes_ ? bytes_ : 1);
    if (err_ == cudaSuccess && src != nullptr)
      err_ = cudaMemcpy(ptr_, src, bytes_, cudaMemcpyHostToDevice);
  }
  ~DeviceArray() { cudaFree(ptr_); }
  T* get() const { return static_cast<T*>(ptr_); }
  cudaError_t error() const { return err_; }
  cudaError_t copy_out(T* dst) const {
    return cudaMemcpy(dst, ptr_, bytes_, cudaMemcpyDeviceToHost);
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
  cudaError_t err_;
};

// First error of a list, or cudaSuccess.
cudaError_t first_error(std::initializer_list<cudaError_t> errs) {
  for (cudaError_t e : errs)
    if (e != cudaSuccess) return e;
  return cudaSuccess;
}

// Launch, wait, copy the outputs back.
template <class Launch>
int run_sync(Launch launch, std::initializer_list<cudaError_t> alloc_errors) {
  cudaError_t err = first_error(alloc_errors);
  if (err == cudaSuccess) err = launch();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return int(err);
}

// --- Items per thread of keygen and sign -----------------------------------------------
// More items per thread amortize the one inversion better, but a small
// batch then gives too few blocks to fill the SMs. The choice: M in
// {8, 4, 2, 1} minimizing waves(M) x M x kItemCost[M], where kItemCost is
// the relative time per item at full occupancy (H100, kernel-only, 2^22
// items: keygen 1.64e8, 2.07e8, 2.38e8, 2.60e8 per second for M = 1, 2, 4,
// 8) and waves(M) counts, for the busiest SM (b = ceil(blocks / SMs) blocks
// against R resident slots), floor(b / R) full waves plus a last partial
// one of r = b mod R blocks costing max(r, R / 2) / R: blocks sharing an SM
// split its issue slots, but one or two alone do not run proportionally
// faster. Against the forced variants measured on an H100 at 2^14 .. 2^22
// items (sm2_gpu_bench sweep) it picks the fastest at every size: M = 1 up
// to 2^15, 2 at 2^16, 4 at 2^17 and 2^19, 8 at 2^18 and from 2^20.
// set_items_per_thread() overrides it.
std::atomic<int> g_items_override{0};

struct Slots {
  int sms, per_sm;  // 0 if unknown
};

// SMs and resident blocks of sign_kernel<8> per SM for the current device
// (cached per device; the other kernels have the same launch bounds).
Slots block_slots() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cache[kMaxDevices];  // sms * 256 + per_sm
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return {0, 0};
  int v = cache[device].load(std::memory_order_relaxed);
  if (v == 0) {
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sign_kernel<8>, kThreads, 0) !=
            cudaSuccess ||
        sms <= 0 || per_sm <= 0 || per_sm > 255)
      return {0, 0};
    v = sms * 256 + per_sm;
    cache[device].store(v, std::memory_order_relaxed);
  }
  return {v / 256, v % 256};
}

int items_per_thread(size_t count) {
  const int forced = g_items_override.load(std::memory_order_relaxed);
  if (forced != 0) return forced;
  const Slots slots = block_slots();
  if (slots.sms == 0) return 8;
  static const double kItemCost[9] = {0, 1 / 1.64, 1 / 2.07, 0, 1 / 2.38, 0, 0, 0, 1 / 2.60};
  int best = 8;
  double best_time = 0;
  for (int m = 8; m >= 1; m /= 2) {
    const size_t blocks = (count + kThreads * m - 1) / (kThreads * m);
    const size_t per_sm = (blocks + slots.sms - 1) / slots.sms;
    const size_t full = per_sm / slots.per_sm, rest = per_sm % slots.per_sm;
    const double waves =
        double(full) + (rest == 0 ? 0.0 : std::max(double(rest), slots.per_sm / 2.0) / slots.per_sm);
    const double time = waves * m * kItemCost[m];
    if (m == 8 || time < best_time) {
      best = m;
      best_time = time;
    }
  }
  return best;
}

// Calls launch(std::integral_constant<int, M>) for M = items_per_thread(count)
// and returns the launch error.
template <class Launch>
cudaError_t dispatch_items(size_t count, Launch launch) {
  switch (items_per_thread(count)) {
    case 1: launch(std::integral_constant<int, 1>()); break;
    case 2: launch(std::integral_constant<int, 2>()); break;
    case 4: launch(std::integral_constant<int, 4>()); break;
    default: launch(std::integral_constant<int, 8>()); break;
  }
  return cudaGetLastError();
}

}  // namespace

void set_items_per_thread(int m) {
  g_items_override.store(m == 1 || m == 2 || m == 4 || m == 8 ? m : 0);
}

cudaError_t init_tables() {
  const uint4* table = nullptr;
  return table_for_current_device(&table);
}

cudaError_t launch_keygen(const uint8_t* priv, uint8_t* pub, int* status, size_t count,
                          cudaStream_t stream) {
  const uint4* table = nullptr;
  const cudaError_t err = table_for_current_device(&table);
  if (err != cudaSuccess || count == 0) return err;
  return dispatch_items(count, [&](auto m) {
    constexpr int M = decltype(m)::value;
    keygen_kernel<M><<<blocks_for(count, kThreads * M), kThreads, 0, stream>>>(priv, pub, status,
                                                                              count, table);
  });
}

cudaError_t launch_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count,
                                     cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  prepare_keys_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(priv, keys, count);
  return cudaGetLastError();
}

cudaError_t launch_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                               const uint8_t* nonces, uint8_t* sigs, int* status, size_t count,
                               cudaStream_t stream) {
  const uint4* table = nullptr;
  const cudaError_t err = table_for_current_device(&table);
  if (err != cudaSuccess || count == 0) return err;
  return dispatch_items(count, [&](auto m) {
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

cudaError_t launch_field_op(FieldOp op, const uint32_t* a, const uint32_t* b, uint32_t* out,
                            size_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  field_op_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(op, a, b, out, count);
  return cudaGetLastError();
}

int run_field_op(FieldOp op, const uint32_t* a, const uint32_t* b, uint32_t* out, size_t count) {
  DeviceArray<uint32_t> da(a, 8 * count), db(b, 8 * count), dout(nullptr, 8 * count);
  const int err = run_sync([&] { return launch_field_op(op, da.get(), db.get(), dout.get(), count, 0); },
                           {da.error(), db.error(), dout.error()});
  return err != 0 ? err : int(dout.copy_out(out));
}

int run_keygen(const uint8_t* priv, uint8_t* pub, size_t count) {
  DeviceArray<uint8_t> dpriv(priv, 32 * count), dpub(nullptr, 65 * count);
  const int err = run_sync([&] { return launch_keygen(dpriv.get(), dpub.get(), nullptr, count, 0); },
                           {dpriv.error(), dpub.error()});
  return err != 0 ? err : int(dpub.copy_out(pub));
}

int run_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count) {
  DeviceArray<uint8_t> dpriv(priv, 32 * count);
  DeviceArray<SignKey> dkeys(nullptr, count);
  const int err =
      run_sync([&] { return launch_prepare_sign_keys(dpriv.get(), dkeys.get(), count, 0); },
               {dpriv.error(), dkeys.error()});
  return err != 0 ? err : int(dkeys.copy_out(keys));
}

int run_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                    const uint8_t* nonces, uint8_t* sigs, int* status, size_t count) {
  DeviceArray<uint8_t> de(digests, 32 * count), dk(nonces, 32 * count), dsig(nullptr, 64 * count);
  DeviceArray<SignKey> dkeys(keys, key_stride ? count : 1);
  DeviceArray<int> dstatus(nullptr, count);
  const int err = run_sync(
      [&] {
        return launch_sign_digest(de.get(), dkeys.get(), key_stride, dk.get(), dsig.get(),
                                  dstatus.get(), count, 0);
      },
      {de.error(), dk.error(), dsig.error(), dkeys.error(), dstatus.error()});
  if (err != 0) return err;
  return int(first_error({dsig.copy_out(sigs), dstatus.copy_out(status)}));
}

int run_verify_digest(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs,
                      int* status, size_t count) {
  DeviceArray<uint8_t> dpub(pubs, 65 * count), de(digests, 32 * count), dsig(sigs, 64 * count);
  DeviceArray<int> dstatus(nullptr, count);
  const int err = run_sync(
      [&] {
        return launch_verify_digest(dpub.get(), de.get(), dsig.get(), dstatus.get(), count, 0);
      },
      {dpub.error(), de.error(), dsig.error(), dstatus.error()});
  return err != 0 ? err : int(dstatus.copy_out(status));
}

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
