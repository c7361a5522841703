// The fixed-base multiplication's table readers and launch, shared by the
// key kernels (curve25519/gpu/curve25519_gpu_keys.cu) and the signing kernels
// (curve25519/gpu/curve25519_gpu_sign.cu): curve25519/ed25519_sign_one.h's Signer over
// WarpRow (the constant-time default) or WideRow (BaseTable::kWide).
// Internal to those files.
#ifndef KS_SCHEME_CURVE25519_GPU_FIXED_BASE_CUH_
#define KS_SCHEME_CURVE25519_GPU_FIXED_BASE_CUH_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "curve25519/ed25519_curve.h"
#include "curve25519/gpu/curve25519_gpu_launch.cuh"
#include "curve25519/ed25519_sign_one.h"

namespace ks {
namespace curve25519 {
namespace gpu {
namespace detail {

// The comb row reader of a whole warp (curve25519/ed25519_sign_one.h's
// Signer), over the signing comb's device table (g_sign_comb: windows of 6
// bits, 32 entries a window, word-major so that a warp's loads are
// contiguous): lane l loads the entry of digit l + 1, and each thread
// takes the entry of its own digit from the lane that holds it by a
// register shuffle. The addresses depend on the lane and the window only,
// never on a digit: the secret is the shuffle's source lane, and a warp
// shuffle moves registers through the SM's crossbar at one rate whatever
// the pattern (no banks, unlike shared memory; no cache lines, unlike a
// load). 12 loads and 12 shuffles a window replace ScanRow's 16-entry scan
// of 5-bit windows (what the host and its tests run), with 43 additions
// for 52. Every lane of the warp must call it together: the kernels
// keep spare lanes working on a copy of the last item (WarpItems).
struct WarpRow {
  static constexpr int kBits = 6;
  static constexpr int kEntries = 1 << (kBits - 1);  // one a lane
  static constexpr int kWindows = (256 + kBits - 1) / kBits;
  static_assert(kEntries == 32, "a warp holds a window");

  template <class F>
  static __device__ curve::ed::Niels<F> entry(const uint64_t* comb, int w, int magnitude) {
    using ed25519::one_thread::kCombEntryWords;
    const uint64_t* mine = comb + size_t(w) * kEntries * kCombEntryWords + (threadIdx.x & 31);
    const int from = (magnitude - 1) & 31;  // digit 0 takes any entry, replaced below
    uint64_t e[kCombEntryWords];
#pragma unroll
    for (int j = 0; j < kCombEntryWords; ++j)
      e[j] = __shfl_sync(0xFFFFFFFFu, mine[j * kEntries], from);
    return curve::ed::select(0 - uint64_t(magnitude == 0), curve::ed::Niels<F>::identity(),
                             ed25519::one_thread::niels_from_words<F>(e));
  }

  // The device table: curve::ed25519::comb_words(kBits) with each window's
  // entries transposed to word-major order (word j of entry l at j * 32 +
  // l).
  static std::vector<uint8_t> host_table() {
    using ed25519::one_thread::kCombEntryWords;
    const std::vector<uint64_t> rows = curve::ed25519::comb_words(kBits);
    std::vector<uint64_t> t(rows.size());
    for (size_t w = 0; w < size_t(kWindows); ++w)
      for (int l = 0; l < kEntries; ++l)
        for (int j = 0; j < kCombEntryWords; ++j)
          t[(w * kCombEntryWords + j) * kEntries + l] =
              rows[(w * kEntries + l) * kCombEntryWords + j];
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data());
    return std::vector<uint8_t>(p, p + 8 * t.size());
  }
};

// The row reader over the wide table (BaseTable::kWide, g_wide_table):
// windows of 16 bits, 2^15 entries a window, entry `magnitude` loaded
// from its own address. Not constant time: the address is the secret
// digit (curve25519_gpu_host.h says when that matters); 16 additions a
// multiplication where WarpRow needs 43.
struct WideRow {
  static constexpr int kBits = 16;
  static constexpr int kEntries = 1 << (kBits - 1);

  template <class F>
  static __device__ curve::ed::Niels<F> entry(const uint64_t* table, int w, int magnitude) {
    using ed25519::one_thread::kCombEntryWords;
    static_assert(kCombEntryWords % 2 == 0, "entries are whole 16-byte loads");
    const int index = magnitude - (magnitude != 0);  // digit 0 loads entry 0, replaced below
    const ulonglong2* e = reinterpret_cast<const ulonglong2*>(
        table + (size_t(w) * kEntries + index) * kCombEntryWords);
    uint64_t words[kCombEntryWords];
#pragma unroll
    for (int j = 0; j < kCombEntryWords / 2; ++j) {
      const ulonglong2 v = __ldg(e + j);
      words[2 * j] = v.x;
      words[2 * j + 1] = v.y;
    }
    return curve::ed::select(0 - uint64_t(magnitude == 0), curve::ed::Niels<F>::identity(),
                             ed25519::one_thread::niels_from_words<F>(words));
  }

  // curve::ed25519::comb_words(16): entry-major, 96 bytes an entry.
  static std::vector<uint8_t> host_table() {
    const std::vector<uint64_t> rows = curve::ed25519::comb_words(kBits);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(rows.data());
    return std::vector<uint8_t>(p, p + 8 * rows.size());
  }
};

// The items of a thread in a kernel whose warps must stay whole (WarpRow):
// `per_thread` consecutive ones; threads past the end repeat the last item
// and keep their results.
struct WarpItems {
  size_t first, count;
  __device__ WarpItems(size_t n, int per_thread) : first(per_thread * item_index()), count(n) {}
  __device__ size_t index(int j) const { return live(j) ? first + j : count - 1; }
  __device__ bool live(int j) const { return first + j < count; }
};

__device__ __forceinline__ void store_if(bool live, uint8_t* dst, const uint8_t* src, int bytes) {
  if (!live) return;
#pragma unroll
  for (int j = 0; j < bytes; j += 8) {
    uint64_t w = 0;
#pragma unroll
    for (int b = 7; b >= 0; --b) w = (w << 8) | src[j + b];
    reinterpret_cast<uint2*>(dst + j)[0] = make_uint2(uint32_t(w), uint32_t(w >> 32));
  }
}

// Keys a thread: two blocks of kThreads per SM (the DPF inline kernels'
// ~250 registers).
inline int keys_per_thread(size_t count) { return per_thread_for(count, 2); }

// A key or signing kernel over the fixed-base table `base` selects:
// launch(min_blocks, G*, Row*, table, blocks) with Row its reader.
template <class Launch>
cudaError_t launch_fixed_base(BaseTable base, Field field, Layout layout, size_t count,
                              int per_thread, const Launch& launch) {
  const auto with_row = [&](auto* row) {
    return [&, row](auto min_blocks, auto* f, const uint64_t* table, unsigned blocks) {
      launch(min_blocks, f, row, table, blocks);
    };
  };
  return base == BaseTable::kWide
             ? launch_ed25519(g_wide_table, field, layout, count, per_thread,
                              with_row(static_cast<WideRow*>(nullptr)))
             : launch_ed25519(g_sign_comb, field, layout, count, per_thread,
                              with_row(static_cast<WarpRow*>(nullptr)));
}

}  // namespace detail
}  // namespace gpu
}  // namespace curve25519
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_FIXED_BASE_CUH_
