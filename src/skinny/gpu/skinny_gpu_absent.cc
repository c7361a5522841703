// SKINNY-128-256 on the GPU engine in a build without CUDA.
#include "skinny/gpu/skinny_gpu.h"
#include "kuaisuo/skinny.h"

namespace ks {
namespace skinny {
namespace gpu {

int crypt_buffer(ks::gpu::Engine&, const skinny::RoundTweakeys&, const uint8_t*, const uint8_t*,
                 uint8_t*, size_t, bool) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int crypt_device(ks::gpu::Engine&, const skinny::RoundTweakeys&, const uint8_t*, const uint8_t*,
                 uint8_t*, size_t, bool, void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

int crypt_messages_device(ks::gpu::Engine&, bool, bool, const uint8_t*, const uint8_t*,
                          const uint8_t*, size_t, const uint64_t*, size_t, uint8_t*, size_t, int*,
                          void*) {
  return KS_ERR_BACKEND_UNAVAILABLE;
}

}  // namespace gpu
}  // namespace skinny
}  // namespace ks
