// Curve25519 batches on the GPU engine: the device side of the X25519
// and Ed25519 batch calls. Each returns a ks_status for the call itself; status[i]
// holds ks::x25519::Error values. Built with the CUDA backend
// (curve25519/gpu/curve25519_gpu_jobs.cu); without it,
// curve25519/gpu/curve25519_gpu_absent.cc answers KS_ERR_BACKEND_UNAVAILABLE.
#ifndef KS_SCHEME_CURVE25519_GPU_BATCH_H_
#define KS_SCHEME_CURVE25519_GPU_BATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "kuaisuo/curve25519.h"
#include "curve25519/gpu/curve25519_gpu_host.h"

namespace ks {
namespace curve25519 {
namespace gpu {

// shared[i] = X25519(key, peers[i]) with count keys (per_item_keys) or one;
// kZeroSharedSecret where the result is all zero (RFC 7748 6.1). The
// field is the faster one on the device (FP64 / DPF, measured by
// tools/curve25519_gpu_bench.cu).
int x25519_batch(ks::gpu::Engine& engine, const uint8_t* keys, bool per_item_keys,
                 const uint8_t* peers, size_t count, uint8_t* shared, int* status);

// The same on buffers in device memory of the engine's device (the one key
// too), queued on `stream` (a cudaStream_t) without waiting, statuses made
// ks_status values on the device through `map`.
int x25519_device(ks::gpu::Engine& engine, const uint8_t* keys, bool per_item_keys,
                  const uint8_t* peers, size_t count, uint8_t* shared, int* status,
                  const ks::gpu::StatusMap& map, void* stream);

// status[i] = the Ed25519 verification of (pubs[i], message i, sigs[i]),
// message i being data[offsets[i] .. offsets[i + 1]) (validated offsets):
// curve25519/ed25519.h's Error values, under the rules of the CPU path.
int ed25519_verify_batch(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* data,
                         const uint64_t* offsets, size_t count, const uint8_t* sigs,
                         int* status);

// The same on buffers in device memory of the engine's device, queued on
// `stream` (a cudaStream_t) without waiting: offsets unchecked by the host
// (an item whose range is not within data_len gets kBadItemOffsets, of
// curve25519_gpu.h), and statuses turned into ks_status values on the
// device through `map`.
int ed25519_verify_device(ks::gpu::Engine& engine, const uint8_t* pubs, const uint8_t* data,
                          size_t data_len, const uint64_t* offsets, size_t count,
                          const uint8_t* sigs, int* status, const ks::gpu::StatusMap& map,
                          void* stream);

// The calls below compute [k]B for secret k through the fixed-base table
// `base` (curve25519/gpu/curve25519_gpu_host.h): the constant-time comb unless the
// context asked for the wide table.
inline BaseTable base_table_of(uint32_t gpu_flags) {
  return (gpu_flags & KS_GPU_WIDE_BASE_TABLE) != 0 ? BaseTable::kWide : BaseTable::kComb;
}

// count fresh key pairs: secrets (Ed25519 seeds, X25519 private keys)
// drawn on the device from a DRBG keyed by getrandom for this call, and
// their public keys.
int ed25519_keygen_batch(ks::gpu::Engine& engine, BaseTable base, size_t count, uint8_t* seeds,
                         uint8_t* pubs);
int x25519_keygen_batch(ks::gpu::Engine& engine, BaseTable base, size_t count, uint8_t* keys,
                        uint8_t* pubs);

// pubs[i] = the X25519 public key of the private key keys[i].
int x25519_public_keys_batch(ks::gpu::Engine& engine, BaseTable base, const uint8_t* keys,
                             size_t count, uint8_t* pubs);

// pubs[i] = the Ed25519 public key of seeds[i] (32 bytes each).
int ed25519_public_keys_batch(ks::gpu::Engine& engine, BaseTable base, const uint8_t* seeds,
                              size_t count, uint8_t* pubs);

// The same two on buffers in device memory of the engine's device, queued
// on `stream` (a cudaStream_t) without waiting: with `draw`, count key
// pairs (secrets drawn into `secrets` as above), else the public keys of
// `secrets`. Nothing fails per item: every status is KS_OK.
enum class KeyAlg { kEd25519, kX25519 };
int keys_device(ks::gpu::Engine& engine, KeyAlg alg, BaseTable base, bool draw, uint8_t* secrets,
                size_t count, uint8_t* pubs, int* status, void* stream);

// sigs[i] = the pure Ed25519 signature of message i (data[offsets[i] ..
// offsets[i + 1]), validated offsets) under one key, one_key being its
// expanded form (s in Montgomery form mod L, little-endian 64-bit words ||
// prefix || public key: curve25519/ed25519.h's PrivateKey), or, where one_key
// is null, under the key of seeds[i].
int ed25519_sign_batch(ks::gpu::Engine& engine, BaseTable base, const uint8_t one_key[96],
                       const uint8_t* seeds, const uint8_t* data, const uint64_t* offsets,
                       size_t count, uint8_t* sigs);

// The same on buffers in device memory of the engine's device (seeds,
// data, offsets, sigs, status; the one key stays a host argument and
// reaches the device as a kernel parameter), queued on `stream` (a
// cudaStream_t) without waiting: an item whose range is not within
// data_len gets no signature and kBadItemOffsets, statuses made ks_status
// values on the device through `map`.
int ed25519_sign_device(ks::gpu::Engine& engine, BaseTable base, const uint8_t one_key[96],
                        const uint8_t* seeds, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, uint8_t* sigs, int* status,
                        const ks::gpu::StatusMap& map, void* stream);

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_BATCH_H_
