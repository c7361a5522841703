// Curve25519 batches on the GPU in a build without CUDA.
#include "kuaisuo/curve25519.h"
#include "curve25519/gpu/curve25519_gpu_batch.h"

namespace ks {
namespace curve25519 {
namespace gpu {

int x25519_batch(ks::gpu::Engine&, const uint8_t*, bool, const uint8_t*, size_t, uint8_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int x25519_device(ks::gpu::Engine&, const uint8_t*, bool, const uint8_t*, size_t, uint8_t*, int*,
                  const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int ed25519_verify_batch(ks::gpu::Engine&, const uint8_t*, const uint8_t*, const uint64_t*, size_t,
                         const uint8_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int ed25519_sign_device(ks::gpu::Engine&, BaseTable, const uint8_t*, const uint8_t*,
                        const uint8_t*, size_t, const uint64_t*, size_t, uint8_t*, int*,
                        const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int ed25519_verify_device(ks::gpu::Engine&, const uint8_t*, const uint8_t*, size_t,
                          const uint64_t*, size_t, const uint8_t*, int*,
                          const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int ed25519_keygen_batch(ks::gpu::Engine&, BaseTable, size_t, uint8_t*, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int x25519_keygen_batch(ks::gpu::Engine&, BaseTable, size_t, uint8_t*, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int x25519_public_keys_batch(ks::gpu::Engine&, BaseTable, const uint8_t*, size_t, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int ed25519_public_keys_batch(ks::gpu::Engine&, BaseTable, const uint8_t*, size_t, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int keys_device(ks::gpu::Engine&, KeyAlg, BaseTable, bool, uint8_t*, size_t, uint8_t*, int*,
                void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int ed25519_sign_batch(ks::gpu::Engine&, BaseTable, const uint8_t*, const uint8_t*, const uint8_t*,
                       const uint64_t*, size_t, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
