// Ed25519 and X25519 public keys on the GPU (curve25519/gpu/curve25519_gpu.h): the
// fixed-base multiplication of curve25519/ed25519_sign_one.h's Signer over
// either GPU field and either table reader
// (curve25519/gpu/curve25519_gpu_fixed_base.cuh), several keys a thread sharing
// one inversion. Constant time in the keys with the default table.
#include "curve25519/gpu/curve25519_gpu.h"

#include "curve25519/gpu/curve25519_gpu_fixed_base.cuh"

namespace ks {
namespace curve25519 {
namespace gpu {

using namespace detail;

namespace {

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

// The two key kernels as types, for launch_keys.
struct Ed25519Keys {
  template <class G, int MinBlocks, class Row>
  static auto kernel() { return &ed25519_public_keys_kernel<G, MinBlocks, Row>; }
};
struct X25519Keys {
  template <class G, int MinBlocks, class Row>
  static auto kernel() { return &x25519_public_keys_kernel<G, MinBlocks, Row>; }
};

// pubs[i] = the public key of the 32 bytes in[i] by Kernels' kernel.
template <class Kernels>
cudaError_t launch_keys(Field field, Layout layout, const uint8_t* in, uint8_t* pubs, size_t count,
                        cudaStream_t stream, BaseTable base) {
  const int per_thread = keys_per_thread(count);
  return launch_fixed_base(base, field, layout, count, per_thread,
                           [&](auto min_blocks, auto* f, auto* row, const uint64_t* table,
                               unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    using Row = std::remove_pointer_t<decltype(row)>;
    const auto kernel = Kernels::template kernel<G, decltype(min_blocks)::value, Row>();
    kernel<<<blocks, kThreads, 0, stream>>>(in, pubs, count, per_thread, table);
  });
}

}  // namespace

cudaError_t launch_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds,
                                       uint8_t* pubs, size_t count, cudaStream_t stream,
                                       BaseTable base) {
  return launch_keys<Ed25519Keys>(field, layout, seeds, pubs, count, stream, base);
}

cudaError_t launch_x25519_public_keys(Field field, Layout layout, const uint8_t* keys,
                                      uint8_t* pubs, size_t count, cudaStream_t stream,
                                      BaseTable base) {
  return launch_keys<X25519Keys>(field, layout, keys, pubs, count, stream, base);
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
