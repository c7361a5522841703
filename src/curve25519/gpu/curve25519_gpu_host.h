// Curve25519 on the GPU as host code sees it: the field, the compiled
// layout and the fixed-base table a kernel uses (tests reach the kernels
// from host memory through testing/curve25519_gpu_testing.h). No CUDA
// header needed.
#ifndef KS_SCHEME_CURVE25519_GPU_HOST_H_
#define KS_SCHEME_CURVE25519_GPU_HOST_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace curve25519 {
namespace gpu {

// The status of a verification whose message range lies outside the data
// (offsets in device memory, which only the kernel reads); above every
// curve25519/ed25519.h Error value.
constexpr int kBadItemOffsets = 15;

// Which GF(2^255 - 19) a kernel computes in: the FP64 one ([DPFECC20]'s DPF
// arithmetic, field/fe25519_dpf.cuh) or the integer one
// (field/fe25519_gpu.cuh).
enum class Field { kDpf = 0, kInteger = 1 };

// How a kernel's field products are compiled: inlined everywhere, or as
// calls (field/out_of_line.cuh), which keeps long loops within the
// instruction caches; the last also caps registers at 128 (four blocks of
// 128 threads per SM). Measured per kernel by tools/curve25519_gpu_bench.cu.
enum class Layout { kInline = 0, kOutOfLine = 1, kOutOfLineFourBlocks = 2 };

// The fixed-base table that public keys and signatures read ([k]B for a
// secret k). kComb, the default: 43 windows of 6 bits, each entry read by
// a warp shuffle from the lane that loaded it, so that no address depends
// on k (constant time). kWide: 16 windows of 16 bits in a 48 MiB table,
// 16 additions in place of 43, each entry loaded from an address that
// depends on k's digit. That leaks the digits to whoever can observe the
// GPU's memory traffic (another tenant of the same GPU: co-resident
// kernels, MPS); on a GPU dedicated to the process it is SM2's fixed-base
// trade-off (sm2/gpu/sm2_gpu.h). Only on request (KS_GPU_WIDE_BASE_TABLE).
enum class BaseTable { kComb = 0, kWide = 1 };

}  // namespace gpu
}  // namespace curve25519
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_HOST_H_
