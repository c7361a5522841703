// SM4 over one large buffer on the GPU engine's pipeline: the device side
// of ks_sm4_crypt_buffer. The buffer is cut into chunks of whole blocks
// that cross the bus while others run (gpu/gpu_pipeline.cuh); caller
// buffers in pinned memory are copied directly. Built with the CUDA
// backend (sm4/gpu/sm4_gpu_jobs.cu); without it, sm4/gpu/sm4_gpu_absent.cc
// answers KS_ERR_BACKEND_UNAVAILABLE.
#ifndef KS_CIPHER_SM4_GPU_BATCH_H_
#define KS_CIPHER_SM4_GPU_BATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "sm4/gpu/sm4_gpu.h"
#include "gpu/gpu.h"

namespace ks {
namespace sm4 {
namespace gpu {

// out = ECB(in) under rk (encryption or decryption keys), or, where
// counter is not null, in ^ the CTR keystream from counter (a 128-bit
// big-endian integer, not advanced here), over nblocks whole blocks.
// secret_input: in is plaintext (wiped from pinned staging), else out is.
// A ks_status.
int crypt_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool secret_input);

// The same over nbytes of device memory of the engine's device (a partial
// last block in CTR), in place on stream (a cudaStream_t), returning once
// queued: the device-memory path of ks_sm4_crypt_buffer. A ks_status.
int crypt_device(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                 const uint8_t* counter, const uint8_t* d_in, uint8_t* d_out, size_t nbytes,
                 void* stream);

// SM4-GCM over one buffer on the engine's device (96-bit IV): seal writes
// out and the full 16-byte tag; open checks tag (tag_len bytes) on the
// device and writes out only when it matches (KS_ERR_TAG_MISMATCH
// otherwise). The whole text crosses the bus once each way; the GHASH is
// one parallel reduction, so it is not cut into pipeline chunks.
int gcm_seal_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* in,
                    size_t len, uint8_t* out, uint8_t tag[16]);
int gcm_open_buffer(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* in,
                    size_t len, const uint8_t* tag, size_t tag_len, uint8_t* out);

// GCM over device memory of the engine's device, on stream (a
// cudaStream_t); aad in host memory. Seal writes tag_len bytes of the tag
// to d_tag and returns once queued. Open checks d_tag (device memory) on
// the device before the decryption kernel, which writes nothing unless it
// matched, and waits for the verdict on the stream: KS_ERR_TAG_MISMATCH.
int gcm_seal_device(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* d_in,
                    size_t len, uint8_t* d_out, uint8_t* d_tag, size_t tag_len, void* stream);
int gcm_open_device(ks::gpu::Engine& engine, Kernel kernel, const uint32_t rk[32],
                    const uint8_t iv[12], const uint8_t* aad, size_t aad_len, const uint8_t* d_in,
                    size_t len, const uint8_t* d_tag, size_t tag_len, uint8_t* d_out,
                    void* stream);

}  // namespace gpu
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_GPU_BATCH_H_
