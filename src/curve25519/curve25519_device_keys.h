// The key batches of Ed25519 and X25519 (keygen and public keys) on device
// memory, kuaisuo/common.h's "Device memory" rule, for ed25519_api.cc and
// x25519_api.cc.
#ifndef KS_CURVE25519_DEVICE_KEYS_H_
#define KS_CURVE25519_DEVICE_KEYS_H_

#include <stddef.h>
#include <stdint.h>

#include "api/context.h"
#include "api/device_memory.h"
#include "curve25519/gpu/curve25519_gpu_batch.h"

namespace ks {
namespace curve25519 {

// Whether the call is a device-memory one (or mixes memories), with *rc
// its result; false where its buffers are host memory and the host path
// runs. draw: keygen (secrets written), else public keys of secrets.
inline bool keys_on_device(ks_ctx* ctx, gpu::KeyAlg alg, bool draw, uint8_t* secrets,
                           size_t count, uint8_t* pubs, int* status, int* rc) {
  bool on_device = false;
  *rc = api::device_buffers(ctx, {secrets, pubs, status}, &on_device);
  if (*rc != KS_OK) return true;
  if (!on_device) return false;
  *rc = api::device_batch(count, status, [&] {
    return gpu::keys_device(*ctx->gpu, alg, gpu::base_table_of(ctx->gpu_flags), draw, secrets,
                            count, pubs, status, ctx->stream);
  });
  return true;
}

}  // namespace curve25519
}  // namespace ks

#endif  // KS_CURVE25519_DEVICE_KEYS_H_
