// X25519 (and, as they land, Ed25519) on the GPU: launchers over device
// memory, one thread per item, each over either GF(2^255 - 19) field of the
// GPU (curve25519/gpu/curve25519_gpu_host.h). Every pointer is a device pointer;
// every launcher enqueues on `stream` and returns the launch error.
// Layouts are RFC 7748's: 32-byte little-endian scalars and u-coordinates.
#ifndef KS_SCHEME_CURVE25519_GPU_H_
#define KS_SCHEME_CURVE25519_GPU_H_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "curve25519/gpu/curve25519_gpu_host.h"

namespace ks {
namespace curve25519 {
namespace gpu {

// out[i] = X25519(k[i * k_stride], u[i]) (RFC 7748 5: k clamped, u's bit
// 255 masked, non-canonical u taken mod p), constant time; status[i]
// (may be null) is 0, or 1 where the secret is all zero (u of small order:
// RFC 7748 6.1). k_stride 0: one key for the batch; 1: per item. A thread
// takes per_thread items (1 to 4) and inverts their z together; 0 chooses
// by the batch size (more only where the SMs stay full).
cudaError_t launch_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u,
                          uint8_t* out, int* status, size_t count, cudaStream_t stream,
                          int per_thread = 0);

// status[i] = the Ed25519 verification of (pubs[i], message i, sigs[i])
// (curve25519/ed25519_verify_one.h: curve25519/ed25519.h's Error values), message
// i being data[offsets[i] .. offsets[i + 1]), or kBadItemOffsets
// (curve25519_gpu_host.h) where that range is not within data_len bytes.
// Uploads the comb table to the current device on first use.
cudaError_t launch_ed25519_verify(Field field, Layout layout, const uint8_t* pubs,
                                  const uint8_t* sigs, const uint8_t* data, uint64_t data_len,
                                  const uint64_t* offsets, int* status, size_t count,
                                  cudaStream_t stream);

// pubs[i] = the Ed25519 public key of the 32-byte seeds[i] (RFC 8032
// 5.1.5), in constant time with base's default (curve25519/ed25519_sign_one.h;
// BaseTable in curve25519_gpu_host.h).
cudaError_t launch_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds,
                                       uint8_t* pubs, size_t count, cudaStream_t stream,
                                       BaseTable base = BaseTable::kComb);

// pubs[i] = the X25519 public key of the private key keys[i] (RFC 7748
// 6.1), by a comb of [k]B on the Edwards curve (constant time with
// base's default).
cudaError_t launch_x25519_public_keys(Field field, Layout layout, const uint8_t* keys,
                                      uint8_t* pubs, size_t count, cudaStream_t stream,
                                      BaseTable base = BaseTable::kComb);

// sigs[i] = the Ed25519 signature of message i (data[offsets[i] ..
// offsets[i + 1])) under one key (key: 96 bytes, s in Montgomery form mod
// L || prefix || public key, as curve25519/ed25519.h's PrivateKey holds them)
// or, where key is null, under the key of seeds[i]. Constant time in the
// keys and nonces with base's default. An item whose range is not within
// data_len bytes gets no signature and, where status is given,
// kBadItemOffsets there (0 for the others).
cudaError_t launch_ed25519_sign(Field field, Layout layout, const uint8_t* key,
                                const uint8_t* seeds, const uint8_t* data,
                                const uint64_t* offsets, uint8_t* sigs, size_t count,
                                cudaStream_t stream, BaseTable base = BaseTable::kComb,
                                uint64_t data_len = UINT64_MAX, int* status = nullptr);

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_H_
