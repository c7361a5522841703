// The x86-64 SM4 kernels (sm4_x86_*.cc), one per instruction-set pair.
// Internal to src/cipher: sm4_blocks.cc checks the CPU before using one.
#ifndef KS_CIPHER_SM4_X86_KERNELS_H_
#define KS_CIPHER_SM4_X86_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/modes.h"
#include "sm4/sm4_blocks.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KS_SM4_X86 1
#else
#define KS_SM4_X86 0
#endif

namespace ks {
namespace sm4 {

// The functions of a sm4_blocks.h Variant, without its name and CPU check.
struct KernelFns {
  uint32_t (*tau)(uint32_t w);
  void (*crypt_blocks)(const uint32_t rk[32], const uint8_t* in, uint8_t* out, size_t nblocks);
  void (*ctr_blocks)(const uint32_t rk[32], uint8_t counter[16], const uint8_t* in,
                     uint8_t* out, size_t nblocks);
  void (*expand_key)(const uint8_t key[16], uint32_t rk[32]);
  void (*chain)(const uint32_t rk[32], ChainMode mode, uint8_t iv[16], const uint8_t* in,
                uint8_t* out, size_t nblocks);
  size_t chain_width;
  void (*chain_lanes)(ChainMode mode, ChainJob* jobs, size_t n);
};

#if KS_SM4_X86
extern const KernelFns kGfniAvx512;   // GFNI + AVX-512 F/BW/VL: 16 blocks per vector
extern const KernelFns kGfniAvx2;     // GFNI + AVX2: 8 blocks per vector
extern const KernelFns kAesniAvx512;  // VAES + AVX-512 F/BW/VL
extern const KernelFns kAesniAvx2;    // AES-NI + AVX2 (aesenclast on each 128-bit half)
#endif

}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_X86_KERNELS_H_
