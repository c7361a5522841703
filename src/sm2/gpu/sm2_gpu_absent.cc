// SM2 batches on the GPU in a build without CUDA.
#include "kuaisuo/sm2.h"
#include "sm2/gpu/sm2_gpu_batch.h"

namespace ks {
namespace sm2 {
namespace gpu {

int keygen_batch(ks::gpu::Engine&, size_t, uint8_t*, uint8_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int sign_digest_batch(ks::gpu::Engine&, const PrivateKey*, const uint8_t*, const uint8_t*, size_t,
                      uint8_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int sign_messages_batch(ks::gpu::Engine&, const PrivateKey&, const uint8_t*, const uint8_t*,
                        const uint64_t*, size_t, uint8_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int verify_digest_batch(ks::gpu::Engine&, const uint8_t*, const uint8_t*, const uint8_t*, size_t,
                        int*, BatchKeys) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int verify_messages_batch(ks::gpu::Engine&, const uint8_t*, const uint8_t*, size_t,
                          const uint8_t*, const uint64_t*, size_t, const uint8_t*, int*,
                          BatchKeys) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int verify_digest_device(ks::gpu::Engine&, const uint8_t*, const uint8_t*, const uint8_t*,
                         const uint8_t*, size_t, int*, const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int verify_messages_device(ks::gpu::Engine&, const uint8_t*, const uint8_t*, const uint8_t*,
                           size_t, const uint8_t*, size_t, const uint64_t*, size_t,
                           const uint8_t*, int*, const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int digests_device(ks::gpu::Engine&, const uint8_t*, const uint8_t*, size_t,
                   const uint64_t*, const uint8_t*, size_t, const uint64_t*, size_t, uint8_t*,
                   int*, const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int keygen_device(ks::gpu::Engine&, size_t, uint8_t*, uint8_t*, int*, const ks::gpu::StatusMap&,
                  void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int sign_digest_device(ks::gpu::Engine&, const PrivateKey*, const uint8_t*, const uint8_t*,
                       size_t, uint8_t*, int*, const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int sign_messages_device(ks::gpu::Engine&, const PrivateKey&, const uint8_t*, const uint8_t*,
                         size_t, const uint64_t*, size_t, uint8_t*, int*,
                         const ks::gpu::StatusMap&, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int encrypt_batch(ks::gpu::Engine&, const uint8_t*, const uint8_t*, int, const uint8_t*,
                  const uint64_t*, size_t, uint8_t*, uint64_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int decrypt_batch(ks::gpu::Engine&, const PrivateKey&, int, const uint8_t*, const uint64_t*,
                  size_t, uint8_t*, uint64_t*, int*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int encrypt_device(ks::gpu::Engine&, const uint8_t*, const uint8_t*, int, const uint8_t*, size_t,
                   const uint64_t*, size_t, uint8_t*, uint64_t*, int*, const ks::gpu::StatusMap&,
                   void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
int decrypt_device(ks::gpu::Engine&, const PrivateKey&, int, const uint8_t*, size_t,
                   const uint64_t*, size_t, uint8_t*, uint64_t*, int*, const ks::gpu::StatusMap&,
                   void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}
uint64_t one_key_batches() { return 0; }

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
