// Ed25519 signing on the GPU (curve25519/gpu/curve25519_gpu.h): SHA-512 of the
// messages on the device and the fixed-base multiplication of
// curve25519/ed25519_sign_one.h's Signer over either GPU field and either
// table reader (curve25519/gpu/curve25519_gpu_fixed_base.cuh), several signatures
// a thread sharing inversions. Constant time in the keys and nonces with
// the default table.
#include "curve25519/gpu/curve25519_gpu.h"

#include "curve25519/gpu/curve25519_gpu_fixed_base.cuh"

namespace ks {
namespace curve25519 {
namespace gpu {

using namespace detail;

namespace {

// sigs[i] = the signature of message i under one key (key: s in Montgomery
// form || prefix || public key, 96 bytes) or, where key is null, under
// the key of seeds[i] (expanded here); per_thread signatures a thread,
// sharing inversions (their keys' and their R's). Offsets in device
// memory reach the kernel unchecked: an item whose range is not within
// data_len signs an empty message (the thread's work stays uniform), writes
// no signature and, where status is given, reports kBadItemOffsets there
// (0 for the others).
template <class F, int MinBlocks, class Row>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    ed25519_sign_kernel(const uint8_t* key, const uint8_t* seeds, const uint8_t* data,
                        uint64_t data_len, const uint64_t* offsets, uint8_t* sigs, int* status,
                        size_t count, int per_thread, const uint64_t* comb) {
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
  bool in_range[K];
  for (int j = 0; j < per_thread; ++j) {
    const int k = key != nullptr ? 0 : j;
    keys[j] = {s_mont[k], prefix[k], pub[k]};
    const size_t i = items.index(j);
    const uint64_t begin = offsets[i], end = offsets[i + 1];
    in_range[j] = begin <= end && end <= data_len;
    msg[j] = data + (in_range[j] ? begin : 0);
    len[j] = in_range[j] ? end - begin : 0;
  }
  uint8_t sig[K][64];
  Signer::template sign_many<K>(sig, keys, msg, len, per_thread, comb);
  for (int j = 0; j < per_thread; ++j) {
    store_if(items.live(j) && in_range[j], sigs + 64 * items.index(j), sig[j], 64);
    if (status != nullptr && items.live(j))
      status[items.index(j)] = in_range[j] ? 0 : kBadItemOffsets;
  }
}

}  // namespace

cudaError_t launch_ed25519_sign(Field field, Layout layout, const uint8_t* key,
                                const uint8_t* seeds, const uint8_t* data,
                                const uint64_t* offsets, uint8_t* sigs, size_t count,
                                cudaStream_t stream, BaseTable base, uint64_t data_len,
                                int* status) {
  const int per_thread = keys_per_thread(count);
  return launch_fixed_base(base, field, layout, count, per_thread,
                           [&](auto min_blocks, auto* f, auto* row, const uint64_t* table,
                               unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    using Row = std::remove_pointer_t<decltype(row)>;
    ed25519_sign_kernel<G, decltype(min_blocks)::value, Row><<<blocks, kThreads, 0, stream>>>(
        key, seeds, data, data_len, offsets, sigs, status, count, per_thread, table);
  });
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
