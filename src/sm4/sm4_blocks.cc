// Run-time choice of the SM4 kernel, and the helpers shared by kernels.
#include "sm4/sm4_blocks.h"

#include <string.h>

#include "sm4/sm4.h"
#include "sm4/sm4_core.h"
#include "sm4/sm4_x86_kernels.h"
#include "cipher/x86_cpu.h"
#include "core/cpu_features.h"
#include "core/secure.h"

namespace ks {
namespace sm4 {
namespace {

#if KS_SM4_X86
bool has_avx512() {
  const CpuFeatures& f = cpu_features();
  return f.avx2 && f.avx512f && f.avx512bw && f.avx512vl;
}

Variant from_kernel(const char* name, bool usable, const KernelFns& k) {
  return {name,         usable,  k.tau,         k.crypt_blocks,  k.ctr_blocks,
          k.expand_key, k.chain, k.chain_width, k.chain_lanes};
}
#endif

void ctr_portable(const uint32_t rk[32], uint8_t counter[16], const uint8_t* in, uint8_t* out,
                  size_t nblocks) {
  ctr_by_blocks(crypt_blocks_portable, rk, counter, in, out, nblocks);
}

void expand_key_portable(const uint8_t key[16], uint32_t rk[32]) { expand_key(key, rk); }

// The serial modes one block at a time through the word circuit.
void chain_portable(const uint32_t rk[32], ChainMode mode, uint8_t iv[16], const uint8_t* in,
                    uint8_t* out, size_t nblocks) {
  uint8_t x[16];
  for (; nblocks > 0; --nblocks, in += 16, out += 16) {
    if (mode == ChainMode::kCbc) {
      for (int b = 0; b < 16; ++b) iv[b] ^= in[b];
      crypt_block(rk, iv, iv);
      memcpy(out, iv, 16);
      continue;
    }
    crypt_block(rk, iv, x);
    for (int b = 0; b < 16; ++b) out[b] = in[b] ^ x[b];
    memcpy(iv, mode == ChainMode::kCfb ? out : x, 16);
  }
  secure_wipe(x, sizeof x);
}

void chain_lanes_portable(ChainMode mode, ChainJob* jobs, size_t n) {
  uint32_t rk[32];
  for (size_t m = 0; m < n; ++m) {
    expand_key(jobs[m].key, rk);
    chain_portable(rk, mode, jobs[m].iv, jobs[m].in, jobs[m].out, jobs[m].nblocks);
  }
  secure_wipe(rk, sizeof rk);
}

}  // namespace

// Preferred first (measured on Zen 4 with tools/sm4_micro.cc), portable last.
const Variant* variants(size_t* count) {
  static const Variant kTable[] = {
#if KS_SM4_X86
      from_kernel("gfni-avx512", has_avx512() && cpu_features().gfni, kGfniAvx512),
      from_kernel("aesni-avx512", has_avx512() && cpu_features().vaes && x86::has_aesni(),
                  kAesniAvx512),
      from_kernel("gfni-avx2", cpu_features().avx2 && cpu_features().gfni, kGfniAvx2),
      from_kernel("aesni-avx2", cpu_features().avx2 && x86::has_aesni(), kAesniAvx2),
#endif
      portable_variant(),
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

const Variant& chosen_variant() {
  static const Variant& chosen = first_usable(variants);
  return chosen;
}

const Variant& portable_variant() {
  static const Variant kPortable = {"portable",   true,
                                    tau_portable, crypt_blocks_portable,
                                    ctr_portable, expand_key_portable,
                                    chain_portable, 1,
                                    chain_lanes_portable};
  return kPortable;
}

void ctr_by_blocks(void (*crypt_blocks)(const uint32_t*, const uint8_t*, uint8_t*, size_t),
                   const uint32_t rk[32], uint8_t counter[16], const uint8_t* in, uint8_t* out,
                   size_t nblocks) {
  constexpr size_t kChunk = 64;
  uint8_t ks[16 * kChunk];
  const size_t used = 16 * (nblocks < kChunk ? nblocks : kChunk);
  while (nblocks > 0) {
    const size_t n = nblocks < kChunk ? nblocks : kChunk;
    for (size_t i = 0; i < n; ++i) {
      memcpy(ks + 16 * i, counter, 16);
      ctr128_add(counter, 1);
    }
    crypt_blocks(rk, ks, ks, n);
    for (size_t i = 0; i < 16 * n; ++i) out[i] = in[i] ^ ks[i];
    in += 16 * n;
    out += 16 * n;
    nblocks -= n;
  }
  secure_wipe(ks, used);
}

}  // namespace sm4
}  // namespace ks
