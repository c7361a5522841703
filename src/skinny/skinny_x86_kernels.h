// The x86-64 SKINNY kernels (skinny_x86_*.cc): the rows of many blocks in
// vector lanes. Internal to src/cipher: skinny128_256.cc checks the CPU.
#ifndef KS_CIPHER_SKINNY_X86_KERNELS_H_
#define KS_CIPHER_SKINNY_X86_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KS_SKINNY_X86 1
#else
#define KS_SKINNY_X86 0
#endif

namespace ks {
namespace skinny {

// Not included here: skinny128_256_core.h's templates must be seen first
// inside each kernel file's target region.
struct RoundTweakeys;

// Every block of a call (a last partial group zero-padded); each returns
// the number of blocks it did, nblocks.
struct KernelFns {
  size_t (*crypt_blocks)(const RoundTweakeys& k, bool encrypt, const uint8_t* in, uint8_t* out,
                         size_t nblocks);
  size_t (*ctr_blocks)(const RoundTweakeys& k, uint8_t counter[16], const uint8_t* in,
                       uint8_t* out, size_t nblocks);
  // A tweak per block (skinny128_256.h's tweaked_blocks).
  size_t (*tweaked_blocks)(const RoundTweakeys& k2, bool encrypt, const uint8_t* tweaks,
                           const uint8_t* in, uint8_t* out, size_t nblocks);
};

#if KS_SKINNY_X86
extern const KernelFns kGfniAvx512;  // GFNI + AVX-512 F/BW/VL: 16 blocks per group
extern const KernelFns kAvx512;  // AVX-512 F/BW/VL: 16 blocks per group
extern const KernelFns kGfniAvx2;  // GFNI + AVX2: 8 blocks per group
extern const KernelFns kAvx2;    // AVX2: 8 blocks per group
#endif

}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY_X86_KERNELS_H_
