// SKINNY-128-256 on the GPU over device buffers: ECB encryption and CTR
// with four kernels measured against each other (tools/skinny_gpu_bench.cu).
//  - kBitsliced: 32 blocks per thread as bit planes (cipher/gpu/sliced_gpu.cuh
//    with the round of skinny128_256_sliced.h): the S-box circuit costs
//    two LOP3s per step for 32 blocks, ShiftRows and the S-box's bit
//    permutations are register renaming. Constant time.
//  - kCircuit: one thread per 16-byte block (the seed's layout), the round
//    function of skinny128_256_core.h on the four row words, the S-box as
//    its NOR/XOR circuit (LOP3 and shifts). Constant time.
//  - kTablesConstant: the seed's design, SubCells + AddConstants +
//    AddRoundTweakey + ShiftRows + MixColumns as 4 T-table lookups and 5
//    XORs per column, tables in constant memory (which serialises a warp's
//    differing addresses).
//  - kTablesShared: the same tables copied into shared memory per block.
//  - kTablesReplicated: the S-box in shared memory, 32 copies, one per bank
//    (lane c reads copy c: no bank conflicts within a warp, whatever the
//    data), the T-values spread from the S-box byte by two multiplies and
//    a shift.
// The table kernels index memory with secret bytes: another tenant of the
// GPU may observe the addresses (bank conflicts across warps, cache lines
// of the constant cache, power); the default
// is a constant-time kernel, the faster by measurement (docs/ARCHITECTURE.md).
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

enum class Kernel { kBitsliced, kCircuit, kTablesConstant, kTablesShared, kTablesReplicated };

const char* kernel_name(Kernel k);

// d_out[i] = E(d_in[i]) (counter null: ECB), or d_in[i] ^ E(counter + i)
// (CTR, counter a 128-bit big-endian integer, not advanced here), for
// nblocks whole blocks; d_in and d_out 16-byte aligned device buffers (may
// be equal). Asynchronous on stream; returns the launch's cudaError_t as
// int (0 = success).
int crypt(Kernel k, const skinny::RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in,
          uint8_t* d_out, size_t nblocks, cudaStream_t stream);

// The default: constant time and, measured on an H100, the fastest
// (bench/results/h100-2026-11-26-s10-skinny-gpu.json: 3.8 Tbps CTR at
// 64 MiB against 0.46 for the shared-memory T-tables).
constexpr Kernel kDefaultKernel = Kernel::kBitsliced;

// ks_skinny128_256_crypt_buffer on a GPU engine: out = ECB encryption of
// in, or in ^ the CTR keystream from counter (not advanced here), over
// nblocks whole blocks of caller memory, cut into chunks that cross the
// bus while others run (pinned caller buffers copied directly).
// secret_input: in is plaintext (wiped from pinned staging), else out is.
// A ks_status; KS_ERR_BACKEND_UNAVAILABLE in a build without CUDA
// (skinny/gpu/skinny_gpu_absent.cc).
int crypt_buffer(ks::gpu::Engine& engine, Kernel kernel, const skinny::RoundTweakeys& rtk,
                 const uint8_t* counter, const uint8_t* in, uint8_t* out, size_t nblocks,
                 bool secret_input);

}  // namespace gpu
}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY_GPU_H_
