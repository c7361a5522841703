// The x86 extensions the cipher kernels need beyond core/cpu_features.h:
// AES-NI, PCLMULQDQ and VPCLMULQDQ (CPUID leaves 1 and 7). KS_CPU_FEATURES
// has no names of its own for them yet, so each is only reported where the
// vector extension its kernels run on survives the mask (AVX2 for the
// 128-bit instructions, AVX-512 for VPCLMULQDQ): KS_CPU_FEATURES=portable
// and =-avx2 still reach the portable paths.
#ifndef KS_CIPHER_X86_CPU_H_
#define KS_CIPHER_X86_CPU_H_

#include "core/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace ks {
namespace x86 {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
inline bool cpuid_bit(unsigned leaf, int reg, int bit) {
  unsigned r[4] = {0, 0, 0, 0};
  if (static_cast<unsigned>(__get_cpuid_max(0, nullptr)) < leaf) return false;
  __cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
  return (r[reg] >> bit) & 1;
}
inline bool has_aesni() { return cpu_features().avx2 && cpuid_bit(1, 2, 25); }
inline bool has_pclmul() { return cpu_features().avx2 && cpuid_bit(1, 2, 1); }
inline bool has_vpclmul() {
  const CpuFeatures& f = cpu_features();
  return f.avx512f && f.avx512bw && f.avx512vl && cpuid_bit(7, 2, 10);
}
#else
inline bool has_aesni() { return false; }
inline bool has_pclmul() { return false; }
inline bool has_vpclmul() { return false; }
#endif

}  // namespace x86
}  // namespace ks

#endif  // KS_CIPHER_X86_CPU_H_
