// Test and benchmark hooks of SKINNY-128-256 on the GPU (built into
// kuaisuo_testing, not into libkuaisuo): the kernels the library's
// bitsliced one (skinny/gpu/skinny_gpu.h) was measured against
// (tools/skinny_gpu_bench.cu; docs/design/0002-bitsliced-ciphers.md), and
// a synchronous wrapper. The table kernels index memory with secret bytes:
// another tenant of the GPU may observe the addresses (bank conflicts
// across warps, cache lines of the constant cache, power).
#ifndef KS_TESTING_SKINNY_GPU_TESTING_H_
#define KS_TESTING_SKINNY_GPU_TESTING_H_

#include <stddef.h>
#include <stdint.h>

#include "skinny/gpu/skinny_gpu.h"

namespace ks {
namespace skinny {
namespace gpu {

//  - kBitsliced: the library's kernel (skinny/gpu/skinny_gpu.h's crypt).
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
enum class Kernel { kBitsliced, kCircuit, kTablesConstant, kTablesShared, kTablesReplicated };

// What the library runs.
constexpr Kernel kDefaultKernel = Kernel::kBitsliced;

const char* kernel_name(Kernel k);

// crypt (skinny/gpu/skinny_gpu.h) by kernel k.
int crypt(Kernel k, const skinny::RoundTweakeys& rtk, const uint8_t* counter, const uint8_t* d_in,
          uint8_t* d_out, size_t nblocks, cudaStream_t stream);

// The same from host buffers, synchronously on the current device (one
// device buffer, in place; in and out may be equal). 0 or a cudaError_t.
int run_crypt(Kernel k, const skinny::RoundTweakeys& rtk, const uint8_t* counter,
              const uint8_t* in, uint8_t* out, size_t nblocks);

}  // namespace gpu
}  // namespace skinny
}  // namespace ks

#endif  // KS_TESTING_SKINNY_GPU_TESTING_H_
