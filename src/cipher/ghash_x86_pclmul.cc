// GHASH with PCLMULQDQ (Westmere / Bulldozer and later; used where AVX2
// is present too, see x86_cpu.h): 8 blocks per reduction.
#include "cipher/ghash_x86_kernels.h"

#if KS_GHASH_X86

#define KS_X86_TARGET "avx2,pclmul"
#include "core/x86_target_begin.h"

#include "cipher/ghash_x86_clmul.h"

namespace ks {
namespace ghash {

// Eight blocks per reduction: twice as many fill the PCLMULQDQ pipeline no
// better on one port, and cost a second cache line of powers.
constexpr size_t kAggregate = 8;

void init_pclmul(Key* key, const uint8_t h[16]) { init_powers(key, h); }

void blocks_pclmul(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks) {
  __m128i acc = load_block(y);
  while (nblocks > 0) {
    const size_t k = nblocks < kAggregate ? nblocks : kAggregate;
    acc = chunk(key, acc, data, k);
    data += 16 * k;
    nblocks -= k;
  }
  store_block(y, acc);
}

}  // namespace ghash
}  // namespace ks

#include "core/x86_target_end.h"

#endif  // KS_GHASH_X86
