// SKINNY-128-256 kernel: AVX2 with GFNI (Alder Lake, Tremont, Zen 4 and
// later): 8 blocks per group, the S-box circuit's bit permutations as
// gf2p8affineqb (skinny_x86_lanes.h, instantiated for this instruction set).
#include "skinny/skinny_x86_kernels.h"

#if KS_SKINNY_X86

#define KS_X86_TARGET "avx2,gfni"
#include "core/x86_target_begin.h"

#include "skinny/skinny_x86_lanes.h"

namespace ks {
namespace skinny {
namespace {
typedef uint32_t Row __attribute__((vector_size(32)));
struct Affine {
  template <uint8_t c>
  static Row apply(Row x, uint64_t matrix) {
    return Row(_mm256_gf2p8affine_epi64_epi8(__m256i(x), _mm256_set1_epi64x(int64_t(matrix)), c));
  }
};
#if defined(KS_CT_MSAN)
// MemorySanitizer checks gf2p8affineqb's operands strictly (it does not
// propagate through it), so its constant-time build runs the circuit's
// shift-and-mask permutations in its place: the rest of this kernel is
// checked as it is. The instruction itself has no data-dependent timing.
using L = Lanes<Row, 8>;
#else
using L = Lanes<Row, 8, AffinePermuteSbox<Row, Affine>>;
#endif
}  // namespace

const KernelFns kGfniAvx2 = {L::crypt_blocks, L::ctr_blocks, L::tweaked_blocks};

}  // namespace skinny
}  // namespace ks

#include "core/x86_target_end.h"

#endif  // KS_SKINNY_X86
