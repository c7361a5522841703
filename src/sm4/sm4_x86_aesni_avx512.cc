// SM4 kernel: VAES on AVX-512 lanes, 16 blocks per vector.
// The kernel itself is sm4_x86_lanes.h, instantiated here for this
// instruction set.
#include "sm4/sm4_x86_kernels.h"

#if KS_SM4_X86

#define KS_X86_TARGET "avx2,avx512f,avx512bw,avx512vl,aes,vaes"
#include "core/x86_target_begin.h"

#define KS_SM4_LANES_ZMM 1
#define KS_SM4_SBOX_AESNI 1
#include "sm4/sm4_x86_lanes.h"
#include "sm4/sm4_x86_serial.h"

namespace ks {
namespace sm4 {

// 4 groups in flight: the most that tools/sm4_micro.cc found faster on Zen 4
// (more spill the 32-bit lanes' state out of the registers).
const KernelFns kAesniAvx512 = {
    tau_lanes<Zmm, AesniSbox<Zmm>>,
    crypt_blocks_lanes<Zmm, AesniSbox<Zmm>, 4>,
    ctr_blocks_lanes<Zmm, AesniSbox<Zmm>, 4>,
    expand_key_serial,
    chain_serial,
    Zmm::kWords,
    chain_lanes_folded<Zmm, 1>,
};

}  // namespace sm4
}  // namespace ks

#include "core/x86_target_end.h"

#endif  // KS_SM4_X86
