// Curve25519 on the GPU as host code sees it: the field choice, the field
// operations of the test and benchmark kernels, and host-memory wrappers
// (copy in, launch on the current device, wait, copy out; each returns a
// cudaError_t value as int, 0 on success). No CUDA header needed.
#ifndef KS_SCHEME_CURVE25519_GPU_HOST_H_
#define KS_SCHEME_CURVE25519_GPU_HOST_H_

#include <stddef.h>
#include <stdint.h>

#include "field/field_op.h"

namespace ks {
namespace curve25519_gpu {

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

// out[i] = op(a[i], b[i]) (field/field_op.h), canonical, on elements given
// as 4 little-endian 64-bit words.
using field::FieldOp;

// X25519 of count items through device copies (per_thread as
// launch_x25519 takes it).
int run_x25519(Field field, const uint8_t* k, size_t k_stride, const uint8_t* u, uint8_t* out,
               int* status, size_t count, int per_thread = 0);
// Ed25519 verification of count items in the flat layout (offsets has
// count + 1 entries from 0); status[i] as launch_ed25519_verify.
int run_ed25519_verify(Field field, Layout layout, const uint8_t* pubs, const uint8_t* sigs,
                       const uint8_t* data, const uint64_t* offsets, int* status, size_t count);
// Ed25519 public keys of count seeds, and signatures under one key (96
// bytes, as launch_ed25519_sign) or per-item seeds (key null).
int run_ed25519_public_keys(Field field, Layout layout, const uint8_t* seeds, uint8_t* pubs,
                            size_t count, BaseTable base = BaseTable::kComb);
// X25519 public keys of count private keys.
int run_x25519_public_keys(Field field, Layout layout, const uint8_t* keys, uint8_t* pubs,
                           size_t count, BaseTable base = BaseTable::kComb);
int run_ed25519_sign(Field field, Layout layout, const uint8_t* key, const uint8_t* seeds,
                     const uint8_t* data, const uint64_t* offsets, uint8_t* sigs, size_t count,
                     BaseTable base = BaseTable::kComb);
int run_field_op(Field field, FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
                 size_t count, int repeat);
// The DPF field's operations on raw radix-2^51 limbs (five per element,
// any limbs within the field's invariant, field/fe25519_dpf.cuh), results
// canonical as four words: the bounds test at the limb maxima.
int run_dpf_limb_op(FieldOp op, const uint64_t* a_limbs, const uint64_t* b_limbs, uint64_t* out,
                    size_t count, int repeat);

}  // namespace curve25519_gpu
}  // namespace ks

#endif  // KS_SCHEME_CURVE25519_GPU_HOST_H_
