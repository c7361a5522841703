// SKINNY-128-256 kernel: AVX-512 F/BW/VL: 16 blocks per group (skinny_x86_lanes.h,
// instantiated for this instruction set).
#include "skinny/skinny_x86_kernels.h"

#if KS_SKINNY_X86

#define KS_X86_TARGET "avx2,avx512f,avx512bw,avx512vl"
#include "core/x86_target_begin.h"

#include "skinny/skinny_x86_lanes.h"

namespace ks {
namespace skinny {
namespace {
typedef uint32_t Row __attribute__((vector_size(64)));
using L = Lanes<Row, 16>;
}  // namespace

const KernelFns kAvx512 = {L::crypt_blocks, L::ctr_blocks, L::tweaked_blocks};

}  // namespace skinny
}  // namespace ks

#include "core/x86_target_end.h"

#endif  // KS_SKINNY_X86
