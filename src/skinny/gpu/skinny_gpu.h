// SKINNY-128-256 on the GPU: ECB encryption and CTR by the bitsliced
// kernel (cipher/gpu/sliced_gpu.cuh with the round of
// skinny128_256_sliced.h): 32 blocks per thread as bit planes, the S-box
// circuit two LOP3s per step for 32 blocks, ShiftRows and the S-box's bit
// permutations register renaming. Constant time, and, measured on an H100
// against the T-table and circuit kernels (testing/skinny_gpu_testing.h,
// tools/skinny_gpu_bench.cu), the fastest:
// bench/results/h100-2026-11-26-s10-skinny-gpu.json, 3.8 Tbps CTR at 64 MiB
// against 0.46 for the shared-memory T-tables
// (docs/design/0002-bitsliced-ciphers.md).
#ifndef KS_CIPHER_SKINNY_GPU_H_
#define KS_CIPHER_SKINNY_GPU_H_

#include <stddef.h>
#include <stdint.h>

#include "skinny/skinny128_256_core.h"

// The CUDA runtime's stream handle, declared exactly as driver_types.h
// does: no CUDA header is needed to include this file.
typedef struct CUstream_st* cudaStream_t;

namespace ks {
namespace gpu {
class Engine;
}
namespace skinny {
namespace gpu {

// d_out[i] = E(d_in[i]) (counter null: ECB), or d_in[i] ^ E(counter + i)
// (CTR, counter a 128-bit big-endian integer, not advanced here), for
// nblocks whole blocks; d_in and d_out 16-byte aligned device buffers (may
// be equal). Asynchronous on stream; returns the launch's cudaError_t as
// int (0 = success).
int crypt(const skinny::RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in,
          uint8_t* d_out, size_t nblocks, cudaStream_t stream);
// The same over nbytes bytes: whole blocks in ECB, the last block may be
// partial in CTR.
int crypt_bytes(const skinny::RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in,
                uint8_t* d_out, size_t nbytes, cudaStream_t stream);
// d_out = ECB decryption of d_in, nbytes a multiple of 16: the inverse
// rounds on the same bit planes (skinny128_256_sliced.h's sliced_inv_round).
int decrypt_ecb_bytes(const skinny::RoundTweakeys& rtk, const uint8_t* d_in, uint8_t* d_out,
                      size_t nbytes, cudaStream_t stream);

// ks_skinny128_256_crypt_buffer on a GPU engine: out = ECB encryption
// (or, with encrypt false, decryption) of in, or in ^ the CTR keystream
// from counter (not advanced here), over nblocks whole blocks of caller
// memory, cut into chunks that cross the bus while others run (pinned
// caller buffers copied directly). The plaintext side (in when encrypting,
// out when decrypting) is wiped from pinned staging. A ks_status;
// KS_ERR_BACKEND_UNAVAILABLE in a build without CUDA
// (skinny/gpu/skinny_gpu_absent.cc).
int crypt_buffer(ks::gpu::Engine& engine, const skinny::RoundTweakeys& rtk,
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool encrypt);

// The same over device memory of the engine's device (nbytes; in CTR the
// last block may be partial), in place on stream (a cudaStream_t),
// returning once queued: the device-memory path of
// ks_skinny128_256_crypt_buffer. A ks_status.
int crypt_device(ks::gpu::Engine& engine, const skinny::RoundTweakeys& rtk,
                 const uint8_t* counter, const uint8_t* d_in, uint8_t* d_out, size_t nbytes,
                 bool encrypt, void* stream);

// ks_skinny128_256_batch on device memory of the engine's device: message
// i, data[offsets[i] .. offsets[i + 1]), under tweakey tweakeys[32 i ..),
// ECB-encrypted or -decrypted (encrypt; whole blocks, else KS_ERR_LENGTH)
// or, with ctr, XORed with the CTR keystream from ivs[16 i ..), to the
// same offsets of out (out may be data). Offsets unchecked by the host:
// status[i] KS_ERR_OFFSETS for a range that descends or passes data_len or
// out_len; a failed message is not written. Queued on stream (a
// cudaStream_t); returns once queued.
int crypt_messages_device(ks::gpu::Engine& engine, bool ctr, bool encrypt,
                          const uint8_t* tweakeys, const uint8_t* ivs, const uint8_t* data,
                          size_t data_len,
                          const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                          int* status, void* stream);

}  // namespace gpu
}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY_GPU_H_
