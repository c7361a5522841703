// Ed25519 verification on the GPU (curve25519/gpu/curve25519_gpu.h): the verifier
// of curve25519/ed25519_verify_one.h over either GPU field, one thread an item.
// It reads public data only.
#include "curve25519/gpu/curve25519_gpu.h"

#include "curve25519/gpu/curve25519_gpu_launch.cuh"
#include "curve25519/ed25519_verify_one.h"

namespace ks {
namespace curve25519 {
namespace gpu {

using namespace detail;

namespace {

template <class F, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    ed25519_verify_kernel(const uint8_t* pubs, const uint8_t* sigs, const uint8_t* data,
                          uint64_t data_len, const uint64_t* offsets, int* status, size_t count,
                          const uint64_t* comb) {
  const size_t i = item_index();
  if (i >= count) return;
  // Offsets in device memory reach the kernel unchecked (the host cannot
  // read them without waiting): an item whose range is not within data
  // verifies an empty message and reports kBadItemOffsets.
  uint64_t begin = offsets[i], end = offsets[i + 1];
  const bool in_range = begin <= end && end <= data_len;
  if (!in_range) begin = end = 0;
  const int verdict = ed25519::one_thread::Verifier<F>::verify(pubs + 32 * i, data + begin,
                                                               end - begin, sigs + 64 * i, comb);
  status[i] = in_range ? verdict : kBadItemOffsets;
}

}  // namespace


cudaError_t launch_ed25519_verify(Field field, Layout layout, const uint8_t* pubs,
                                  const uint8_t* sigs, const uint8_t* data, uint64_t data_len,
                                  const uint64_t* offsets, int* status, size_t count,
                                  cudaStream_t stream) {
  return launch_ed25519(g_comb, field, layout, count, 1,
                        [&](auto min_blocks, auto* f, const uint64_t* comb, unsigned blocks) {
    using G = std::remove_pointer_t<decltype(f)>;
    ed25519_verify_kernel<G, decltype(min_blocks)::value>
        <<<blocks, kThreads, 0, stream>>>(pubs, sigs, data, data_len, offsets, status, count,
                                                      comb);
  });
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
