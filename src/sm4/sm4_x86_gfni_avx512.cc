// SM4 kernel: GFNI on AVX-512 lanes (Ice Lake, Zen 4 and later), 16 blocks per vector.
// The kernel itself is sm4_x86_lanes.h, instantiated here for this
// instruction set.
#include "sm4/sm4_x86_kernels.h"

#if KS_SM4_X86

#define KS_X86_TARGET "avx2,avx512f,avx512bw,avx512vl,gfni"
#include "core/x86_target_begin.h"

#define KS_SM4_LANES_ZMM 1
#define KS_SM4_SBOX_GFNI 1
#include "sm4/sm4_x86_lanes.h"
#include "sm4/sm4_x86_serial.h"

namespace ks {
namespace sm4 {

// Groups in flight, by tools/sm4_micro.cc on Zen 4 (1 MiB, one thread):
// 8 for ECB (more spill the 32-bit lanes' state out of the registers); 7
// for CTR, whose counters and input take registers too (4: 3.06 GB/s,
// 5: 3.29, 6: 3.48, 7: 3.58-3.60, 8: 3.26).
const KernelFns kGfniAvx512 = {
    tau_lanes<Zmm, GfniSbox<Zmm>>,
    crypt_blocks_lanes<Zmm, GfniSbox<Zmm>, 8>,
    ctr_blocks_lanes<Zmm, GfniSbox<Zmm>, 7>,
    expand_key_serial,
    chain_serial,
    Zmm::kWords,
    chain_lanes_folded<Zmm, 1>,
};

}  // namespace sm4
}  // namespace ks

#include "core/x86_target_end.h"

#endif  // KS_SM4_X86
