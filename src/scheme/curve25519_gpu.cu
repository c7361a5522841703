// Curve25519 kernels (scheme/curve25519_gpu.h): the Montgomery ladder of
// curve/montgomery_ladder.h and the Ed25519 verifier of
// scheme/ed25519_verify_one.h instantiated for the two GPU fields. One
// thread per item; nothing in X25519 branches on or indexes memory by a
// secret (verification reads public data only).
#include "scheme/curve25519_gpu.h"

#include <initializer_list>
#include <type_traits>
#include <vector>

#include "curve/ed25519_curve.h"
#include "curve/montgomery_ladder.h"
#include "engine/device_table.cuh"
#include "field/fe25519_dpf.cuh"
#include "field/fe25519_gpu.cuh"
#include "field/out_of_line.cuh"
#include "scheme/ed25519_sign_one.h"
#include "scheme/ed25519_verify_one.h"

namespace ks {
namespace curve25519_gpu {
namespace {

constexpr unsigned kThreads = 128;

// Items a thread computes where they share one inversion (public keys and
// signatures: Signer::encode_all; X25519: x25519_kernel): up to this many,
// as many as keep the device's resident threads busy (items_per_thread).
// Measured on the H100, DPF inline, 2^20 keys (docs/STATUS.md, session
// 15): Ed25519 1.91e8/s for 1, 2.22e8 for 2, 2.35e8 for 4; X25519 public
// keys 2.01e8, 2.32e8, 2.54e8; signatures 1.53e8 for 1, 1.61e8 adaptive.
// At 2^16 keys 2 leads 4 by 6-9% (4 leaves the SMs under one wave), and 4
// quadruples the latency of small batches. X25519 shared secrets (session
// 19, 2^20): 4.42e7 against 4.27e7 for 1.
constexpr int kMaxItemsPerThread = 4;

__device__ __forceinline__ size_t item_index() {
  return size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

unsigned blocks_for(size_t count, unsigned threads) {
  return unsigned((count + threads - 1) / threads);
}

__device__ __forceinline__ void load_words(uint64_t w[4], const uint8_t* p) {
  const uint2* q = reinterpret_cast<const uint2*>(p);  // 8-byte aligned items
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint2 v = q[i];
    w[i] = uint64_t(v.x) | (uint64_t(v.y) << 32);
  }
}

__device__ __forceinline__ void store_words(uint8_t* p, const uint64_t w[4]) {
  uint2* q = reinterpret_cast<uint2*>(p);
#pragma unroll
  for (int i = 0; i < 4; ++i) q[i] = make_uint2(uint32_t(w[i]), uint32_t(w[i] >> 32));
}

// The clamped scalar's bit i as a mask (RFC 7748 5: bits 0-2 and 255
// cleared, bit 254 set).
struct ClampedBits {
  uint64_t w[4];
  __device__ explicit ClampedBits(const uint8_t* k) {
    load_words(w, k);
    w[0] &= ~uint64_t(7);
    w[3] = (w[3] & 0x7FFFFFFFFFFFFFFFull) | 0x4000000000000000ull;
  }
  __device__ __forceinline__ uint64_t operator()(int i) const {
    return 0 - ((w[i >> 6] >> (i & 63)) & 1);
  }
};

// out[i] = X25519(k[i * k_stride], u[i]) for per_thread consecutive items
// a thread: one ladder after another, then one inversion for all their z
// (Montgomery's trick, field/batch_invert.h: 3 products an item in place of
// 254 squarings and 11 products, about 8% of a ladder). A z of zero (u of
// small order) would be inverted as 1 there, so its result is masked to
// zero: the all-zero secret of RFC 7748 6.1, status 1. The item count a
// thread takes is public, so the loops' bounds are.
template <class F>
__global__ void __launch_bounds__(kThreads) x25519_kernel(const uint8_t* k, size_t k_stride,
                                                          const uint8_t* u, uint8_t* out,
                                                          int* status, size_t count,
                                                          int per_thread) {
  const size_t first = item_index() * per_thread;
  if (first >= count) return;
  const int n = int(count - first < size_t(per_thread) ? count - first : per_thread);
  typename F::Elem x[kMaxItemsPerThread], z[kMaxItemsPerThread], prefix[kMaxItemsPerThread];
  uint64_t z_zero[kMaxItemsPerThread];
  KS_NO_UNROLL for (int j = 0; j < n; ++j) {
    const size_t i = first + j;
    const ClampedBits bits(k + 32 * k_stride * i);
    uint64_t u_words[4];
    load_words(u_words, u + 32 * i);
    u_words[3] &= 0x7FFFFFFFFFFFFFFFull;
    const curve::LadderState<F> s = curve::ladder<F>(F::from_words(u_words), bits);
    x[j] = s.x2;
    z[j] = s.z2;
    z_zero[j] = F::is_zero(s.z2);
  }
  field::batch_invert<F>(z, prefix, n);
  KS_NO_UNROLL for (int j = 0; j < n; ++j) {
    uint64_t r[4];
    F::to_words(r, F::select(z_zero[j], F::zero(), F::mul(x[j], z[j])));
    store_words(out + 32 * (first + j), r);
    if (status != nullptr) status[first + j] = (r[0] | r[1] | r[2] | r[3]) == 0 ? 1 : 0;
  }
}

template <class F, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    ed25519_verify_kernel(const uint8_t* pubs, const uint8_t* sigs, const uint8_t* data,
                          const uint64_t* offsets, int* status, size_t count,
                          const uint64_t* comb) {
  const size_t i = item_index();
  if (i >= count) return;
  const uint64_t begin = offsets[i];
  status[i] = ed25519::one_thread::Verifier<F>::verify(pubs + 32 * i, data + begin,
                                                       offsets[i + 1] - begin, sigs + 64 * i, comb);
}

// The comb row reader of a whole warp (scheme/ed25519_sign_one.h's
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
// for 52. Every lane of the warp must call it together: the kernels below
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

// Items a thread takes when they share an inversion: kMaxItemsPerThread
// from that many resident threads' worth of items (blocks_per_sm blocks of
// kThreads on every SM), 2 from one, else 1 (so that small batches still
// fill the SMs).
int items_per_thread(size_t count, int blocks_per_sm) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 1;
  const size_t resident = size_t(sms) * size_t(blocks_per_sm < 1 ? 1 : blocks_per_sm) * kThreads;
  return count >= kMaxItemsPerThread * resident ? kMaxItemsPerThread : count >= resident ? 2 : 1;
}
// The same with the occupancy of `kernel` itself.
template <class Kernel>
int items_per_thread(Kernel* kernel, size_t count) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess)
    blocks = 1;
  return items_per_thread(count, blocks);
}

// Keys a thread: two blocks of kThreads per SM (the DPF inline kernels'
// ~250 registers).
int keys_per_thread(size_t count) { return items_per_thread(count, 2); }

// pubs[i] = the public key of seeds[i] (RFC 8032 5.1.5), per_thread keys
// a thread.
template <class F, int MinBlocks, class Row>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    ed25519_public_keys_kernel(const uint8_t* seeds, uint8_t* pubs, size_t count, int per_thread,
                               const uint64_t* comb) {
  constexpr int K = kMaxItemsPerThread;
  const WarpItems items(count, per_thread);
  uint64_t s[K][4];
  uint8_t pub[K][32];
  for (int j = 0; j < per_thread; ++j) {
    uint8_t prefix[32];
    ed25519::one_thread::Signer<F, Row>::expand(s[j], prefix, seeds + 32 * items.index(j));
  }
  ed25519::one_thread::Signer<F, Row>::template public_keys<K>(pub, s, per_thread, comb);
  for (int j = 0; j < per_thread; ++j)
    store_if(items.live(j), pubs + 32 * items.index(j), pub[j], 32);
}

// pubs[i] = the X25519 public key of the private key keys[i].
template <class F, int MinBlocks, class Row>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    x25519_public_keys_kernel(const uint8_t* keys, uint8_t* pubs, size_t count, int per_thread,
                              const uint64_t* comb) {
  constexpr int K = kMaxItemsPerThread;
  const WarpItems items(count, per_thread);
  const uint8_t* k[K];
  uint8_t pub[K][32];
  for (int j = 0; j < per_thread; ++j) k[j] = keys + 32 * items.index(j);
  ed25519::one_thread::Signer<F, Row>::template x25519_public_keys<K>(pub, k, per_thread, comb);
  for (int j = 0; j < per_thread; ++j)
    store_if(items.live(j), pubs + 32 * items.index(j), pub[j], 32);
}

// sigs[i] = the signature of message i under one key (key: s in Montgomery
// form || prefix || public key, 96 bytes) or, where key is null, under
// the key of seeds[i] (expanded here); per_thread signatures a thread,
// sharing inversions (their keys' and their R's).
template <class F, int MinBlocks, class Row>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    ed25519_sign_kernel(const uint8_t* key, const uint8_t* seeds, const uint8_t* data,
                        const uint64_t* offsets, uint8_t* sigs, size_t count, int per_thread,
                        const uint64_t* comb) {
  using Signer = ed25519::one_thread::Signer<F, Row>;
  constexpr int K = kMaxItemsPerThread;
  const WarpItems items(count, per_thread);
  uint64_t s_mont[K][4];
  uint8_t prefix[K][32], pub[K][32];
  if (key != nullptr) {
    ed25519::one_thread::load_le_words(s_mont[0], key);
    for (int j = 0; j < 32; ++j) prefix[0][j] = key[32 + j], pub[0][j] = key[64 + j];
  } else {
    uint64_t s[K][4];
    for (int j = 0; j < per_thread; ++j)
      Signer::expand(s[j], prefix[j], seeds + 32 * items.index(j));
    Signer::template public_keys<K>(pub, s, per_thread, comb);
    for (int j = 0; j < per_thread; ++j) field::sc25519_to_mont(s_mont[j], s[j]);
  }
  typename Signer::Key keys[K];
  const uint8_t* msg[K];
  uint64_t len[K];
  for (int j = 0; j < per_thread; ++j) {
    const int k = key != nullptr ? 0 : j;
    keys[j] = {s_mont[k], prefix[k], pub[k]};
    const size_t i = items.index(j);
    msg[j] = data + offsets[i];
    len[j] = offsets[i + 1] - offsets[i];
  }
  uint8_t sig[K][64];
  Signer::template sign_many<K>(sig, keys, msg, len, per_thread, comb);
  for (int j = 0; j < per_thread; ++j)
    store_if(items.live(j), sigs + 64 * items.index(j), sig[j], 64);
}

// The comb table of the CPU's fixed-base multiplication (verification's
// [S]B) and the signing comb of WarpRow, on each device.
std::vector<uint8_t> host_comb_table() {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(curve::ed25519::comb_table());
  return std::vector<uint8_t>(p, p + 8 * ed25519::one_thread::kCombTableWords);
}

ks::gpu::DeviceTable g_comb(&host_comb_table);
ks::gpu::DeviceTable g_sign_comb(&WarpRow::host_table);
ks::gpu::DeviceTable g_wide_table(&WideRow::host_table);

// Launches kernel<G, MinBlocks> for the field policy G of `layout` over F
// (field/out_of_line.cuh).
template <class F, class Launch>
cudaError_t launch_in_layout(Layout layout, const Launch& launch) {
  using Calls = field::OutOfLineProducts<F>;
  if (layout == Layout::kInline)
    launch(std::integral_constant<int, 1>(), static_cast<F*>(nullptr));
  else if (layout == Layout::kOutOfLine)
    launch(std::integral_constant<int, 1>(), static_cast<Calls*>(nullptr));
  else
    launch(std::integral_constant<int, 4>(), static_cast<Calls*>(nullptr));
  return cudaGetLastError();
}

// An Ed25519 kernel over `field` in `layout`, `per_thread` items a
// thread: launch(min_blocks, G*, comb, blocks) once `table` (g_comb or
// g_sign_comb) is on the current device.
template <class Launch>
cudaError_t launch_ed25519(ks::gpu::DeviceTable& table, Field field, Layout layout, size_t count,
                           int per_thread, const Launch& launch) {
  const uint64_t* comb = nullptr;
  const cudaError_t err = table.get(&comb);
  if (err != cudaSuccess || count == 0) return err;
  const unsigned blocks = blocks_for((count + per_thread - 1) / per_thread, kThreads);
  const auto with_table = [&](auto min_blocks, auto* f) { launch(min_blocks, f, comb, blocks); };
  return field == Field::kDpf ? launch_in_layout<field::Fe25519Dpf>(layout, with_table)
                              : launch_in_layout<field::Fe25519Gpu>(layout, with_table);
}


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

template <class F>
__global__ void field_op_kernel(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                                size_t count, int repeat) {
  const size_t i = item_index();
  if (i >= count) return;
  const typename F::Elem r =
      field::apply<F>(op, F::from_words(a + 4 * i), F::from_words(b + 4 * i), repeat);
  F::to_words(out + 4 * i, r);
}

__global__ void dpf_limb_op_kernel(FieldOp op, const uint64_t* a, const uint64_t* b,
                                   uint64_t* out, size_t count, int repeat) {
  using F = field::Fe25519Dpf;
  const size_t i = item_index();
  if (i >= count) return;
  F::Elem x, y;
#pragma unroll
  for (int j = 0; j < 5; ++j) x.l[j] = a[5 * i + j], y.l[j] = b[5 * i + j];
  F::to_words(out + 4 * i, field::apply<F>(op, x, y, repeat));
}

}  // namespace

cudaError_t launch_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u,
                          uint8_t* out, int* status, size_t count, cudaStream_t stream,
                          int per_thread) {
  if (count == 0) return cudaSuccess;
  const auto launch = [&](auto* kernel) {
    if (per_thread < 1 || per_thread > kMaxItemsPerThread)
      per_thread = items_per_thread(kernel, count);
    const unsigned blocks = blocks_for((count + per_thread - 1) / per_thread, kThreads);
    kernel<<<blocks, kThreads, 0, stream>>>(k, k_stride, u, out, status, count, per_thread);
    return cudaGetLastError();
  };
  return field == Field::kDpf ? launch(x25519_kernel<field::Fe25519Dpf>)
                              : launch(x25519_kernel<field::Fe25519Gpu>);
}

cudaError_t launch_ed25519_verify(Field field, Layout layout, const uint8_t* pubs,
                                  const uint8_t* sigs, const uint8_t* data,
                                  const uint64_t* offsets, int* status, size_t count,
                                  cudaStream_t stream) {
  return launch_ed25519(g_comb, field, layout, count, 1,
                        [&](auto min_blocks, auto* f, const uint64_t* comb, unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    ed25519_verify_kernel<G, decltype(min_blocks)::value>
        <<<blocks, kThreads, 0, stream>>>(pubs, sigs, data, offsets, status, count, comb);
  });
}

cudaError_t launch_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds,
                                       uint8_t* pubs, size_t count, cudaStream_t stream,
                                       BaseTable base) {
  const int per_thread = keys_per_thread(count);
  return launch_fixed_base(base, field, layout, count, per_thread,
                           [&](auto min_blocks, auto* f, auto* row, const uint64_t* table,
                               unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    using Row = std::remove_pointer_t<decltype(row)>;
    ed25519_public_keys_kernel<G, decltype(min_blocks)::value, Row>
        <<<blocks, kThreads, 0, stream>>>(seeds, pubs, count, per_thread, table);
  });
}

cudaError_t launch_x25519_public_keys(Field field, Layout layout, const uint8_t* keys,
                                      uint8_t* pubs, size_t count, cudaStream_t stream,
                                      BaseTable base) {
  const int per_thread = keys_per_thread(count);
  return launch_fixed_base(base, field, layout, count, per_thread,
                           [&](auto min_blocks, auto* f, auto* row, const uint64_t* table,
                               unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    using Row = std::remove_pointer_t<decltype(row)>;
    x25519_public_keys_kernel<G, decltype(min_blocks)::value, Row>
        <<<blocks, kThreads, 0, stream>>>(keys, pubs, count, per_thread, table);
  });
}

cudaError_t launch_ed25519_sign(Field field, Layout layout, const uint8_t* key,
                                const uint8_t* seeds, const uint8_t* data,
                                const uint64_t* offsets, uint8_t* sigs, size_t count,
                                cudaStream_t stream, BaseTable base) {
  const int per_thread = keys_per_thread(count);
  return launch_fixed_base(base, field, layout, count, per_thread,
                           [&](auto min_blocks, auto* f, auto* row, const uint64_t* table,
                               unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    using Row = std::remove_pointer_t<decltype(row)>;
    ed25519_sign_kernel<G, decltype(min_blocks)::value, Row><<<blocks, kThreads, 0, stream>>>(
        key, seeds, data, offsets, sigs, count, per_thread, table);
  });
}

cudaError_t launch_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b,
                            uint64_t* out, size_t count, int repeat, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned blocks = blocks_for(count, kThreads);
  if (field == Field::kDpf) {
    field_op_kernel<field::Fe25519Dpf><<<blocks, kThreads, 0, stream>>>(op, a, b, out, count,
                                                                        repeat);
  } else {
    field_op_kernel<field::Fe25519Gpu><<<blocks, kThreads, 0, stream>>>(op, a, b, out, count,
                                                                        repeat);
  }
  return cudaGetLastError();
}

namespace {

// A device copy of a host array, or an output array, freed on scope exit.
struct DeviceBytes {
  void* p = nullptr;
  cudaError_t err;
  DeviceBytes(const void* host, size_t bytes) : err(cudaMalloc(&p, bytes > 0 ? bytes : 1)) {
    if (err == cudaSuccess && host != nullptr && bytes > 0)
      err = cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
  }
  ~DeviceBytes() { cudaFree(p); }
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

template <class Launch>
int run_sync(Launch launch) {
  cudaError_t err = launch();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return int(err);
}

}  // namespace

int run_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u, uint8_t* out,
               int* status, size_t count, int per_thread) {
  DeviceBytes dk(k, 32 * (k_stride ? count : 1)), du(u, 32 * count), dout(nullptr, 32 * count),
      dst(nullptr, sizeof(int) * count);
  for (const DeviceBytes* d : {&dk, &du, &dout, &dst})
    if (d->err != cudaSuccess) return int(d->err);
  const int rc = run_sync([&] {
    return launch_x25519(field, dk.as<uint8_t>(), k_stride, du.as<uint8_t>(), dout.as<uint8_t>(),
                         dst.as<int>(), count, nullptr, per_thread);
  });
  if (rc != 0) return rc;
  cudaError_t err = cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && status != nullptr)
    err = cudaMemcpy(status, dst.p, sizeof(int) * count, cudaMemcpyDeviceToHost);
  return int(err);
}

int run_ed25519_verify(Field field, Layout layout, const uint8_t* pubs, const uint8_t* sigs,
                       const uint8_t* data, const uint64_t* offsets, int* status, size_t count) {
  const size_t data_len = count > 0 ? size_t(offsets[count]) : 0;
  DeviceBytes dpub(pubs, 32 * count), dsig(sigs, 64 * count), ddata(data, data_len),
      doff(offsets, 8 * (count + 1)), dst(nullptr, sizeof(int) * count);
  for (const DeviceBytes* d : {&dpub, &dsig, &ddata, &doff, &dst})
    if (d->err != cudaSuccess) return int(d->err);
  const int rc = run_sync([&] {
    return launch_ed25519_verify(field, layout, dpub.as<uint8_t>(), dsig.as<uint8_t>(),
                                 ddata.as<uint8_t>(), doff.as<uint64_t>(), dst.as<int>(), count,
                                 nullptr);
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(status, dst.p, sizeof(int) * count, cudaMemcpyDeviceToHost));
}

namespace {

// 32 bytes in, 32 bytes out per item, through a launcher of that shape.
template <class Launcher>
int run_32_to_32(Launcher launcher, Field field, Layout layout, BaseTable base, const uint8_t* in,
                 uint8_t* out, size_t count) {
  DeviceBytes din(in, 32 * count), dout(nullptr, 32 * count);
  for (const DeviceBytes* d : {&din, &dout})
    if (d->err != cudaSuccess) return int(d->err);
  const int rc = run_sync([&] {
    return launcher(field, layout, din.as<uint8_t>(), dout.as<uint8_t>(), count, nullptr, base);
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost));
}

}  // namespace

int run_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds, uint8_t* pubs,
                            size_t count, BaseTable base) {
  return run_32_to_32(launch_ed25519_public_keys, field, layout, base, seeds, pubs, count);
}

int run_x25519_public_keys(Field field, Layout layout, const uint8_t* keys, uint8_t* pubs,
                           size_t count, BaseTable base) {
  return run_32_to_32(launch_x25519_public_keys, field, layout, base, keys, pubs, count);
}

int run_ed25519_sign(Field field, Layout layout, const uint8_t* key, const uint8_t* seeds,
                     const uint8_t* data, const uint64_t* offsets, uint8_t* sigs, size_t count,
                     BaseTable base) {
  const size_t data_len = count > 0 ? size_t(offsets[count]) : 0;
  DeviceBytes dkey(key, key != nullptr ? 96 : 0), dseed(seeds, seeds != nullptr ? 32 * count : 0),
      ddata(data, data_len), doff(offsets, 8 * (count + 1)), dsig(nullptr, 64 * count);
  for (const DeviceBytes* d : {&dkey, &dseed, &ddata, &doff, &dsig})
    if (d->err != cudaSuccess) return int(d->err);
  const int rc = run_sync([&] {
    return launch_ed25519_sign(field, layout, key != nullptr ? dkey.as<uint8_t>() : nullptr,
                               seeds != nullptr ? dseed.as<uint8_t>() : nullptr,
                               ddata.as<uint8_t>(), doff.as<uint64_t>(), dsig.as<uint8_t>(), count,
                               nullptr, base);
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(sigs, dsig.p, 64 * count, cudaMemcpyDeviceToHost));
}

int run_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                 size_t count, int repeat) {
  DeviceBytes da(a, 32 * count), db(b, 32 * count), dout(nullptr, 32 * count);
  for (const DeviceBytes* d : {&da, &db, &dout})
    if (d->err != cudaSuccess) return int(d->err);
  const int rc = run_sync([&] {
    return launch_field_op(field, op, da.as<uint64_t>(), db.as<uint64_t>(), dout.as<uint64_t>(),
                           count, repeat, nullptr);
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost));
}

int run_dpf_limb_op(FieldOp op, const uint64_t* a_limbs, const uint64_t* b_limbs, uint64_t* out,
                    size_t count, int repeat) {
  DeviceBytes da(a_limbs, 40 * count), db(b_limbs, 40 * count), dout(nullptr, 32 * count);
  for (const DeviceBytes* d : {&da, &db, &dout})
    if (d->err != cudaSuccess) return int(d->err);
  const int rc = run_sync([&] {
    if (count == 0) return cudaSuccess;
    dpf_limb_op_kernel<<<blocks_for(count, kThreads), kThreads>>>(
        op, da.as<uint64_t>(), db.as<uint64_t>(), dout.as<uint64_t>(), count, repeat);
    return cudaGetLastError();
  });
  if (rc != 0) return rc;
  return int(cudaMemcpy(out, dout.p, 32 * count, cudaMemcpyDeviceToHost));
}

}  // namespace curve25519_gpu
}  // namespace ks
