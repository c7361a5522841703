// SM4 on the GPU engine in a build without CUDA.
#include "sm4/gpu/sm4_gpu_batch.h"
#include "sm4/gpu/sm4_gpu_messages.h"
#include "kuaisuo/sm4.h"

namespace ks {
namespace sm4 {
namespace gpu {

int crypt_buffer(ks::gpu::Engine&, Kernel, const uint32_t*, const uint8_t*, const uint8_t*,
                 uint8_t*, size_t, bool) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int crypt_device(ks::gpu::Engine&, Kernel, const uint32_t*, const uint8_t*, const uint8_t*,
                 uint8_t*, size_t, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int gcm_seal_device(ks::gpu::Engine&, Kernel, const uint32_t*, const uint8_t*, const uint8_t*,
                    size_t, const uint8_t*, size_t, uint8_t*, uint8_t*, size_t, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int gcm_open_device(ks::gpu::Engine&, Kernel, const uint32_t*, const uint8_t*, const uint8_t*,
                    size_t, const uint8_t*, size_t, const uint8_t*, size_t, uint8_t*, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int gcm_seal_buffer(ks::gpu::Engine&, Kernel, const uint32_t*, const uint8_t*, const uint8_t*,
                    size_t, const uint8_t*, size_t, uint8_t*, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int gcm_open_buffer(ks::gpu::Engine&, Kernel, const uint32_t*, const uint8_t*, const uint8_t*,
                    size_t, const uint8_t*, size_t, const uint8_t*, size_t, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int crypt_messages(ks::gpu::Engine&, MessageMode, const uint8_t*, const uint8_t*, const uint8_t*,
                   const uint64_t*, size_t, const uint8_t*, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int gcm_messages(ks::gpu::Engine&, bool, const uint8_t*, const uint8_t*, const uint8_t*,
                 const uint64_t*, const uint8_t*, const uint64_t*, size_t, uint8_t*, size_t,
                 uint8_t*, uint8_t*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int crypt_messages_device(ks::gpu::Engine&, MessageMode, const uint8_t*, const uint8_t*,
                          const uint8_t*, size_t, const uint64_t*, size_t, uint8_t*, size_t, int*,
                          void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int gcm_messages_device(ks::gpu::Engine&, bool, const uint8_t*, const uint8_t*, const uint8_t*,
                        size_t, const uint64_t*, const uint8_t*, size_t, const uint64_t*, size_t,
                        uint8_t*, size_t, uint8_t*, size_t, int*, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

}  // namespace gpu
}  // namespace sm4
}  // namespace ks
