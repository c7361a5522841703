// GHASH with VPCLMULQDQ on AVX-512 (Ice Lake, Zen 4 and later): four
// blocks per carry-less multiply instruction, 16 blocks per reduction.
#include "cipher/ghash_x86_kernels.h"

#if KS_GHASH_X86

#define KS_X86_TARGET "avx2,pclmul,avx512f,avx512bw,avx512vl,vpclmulqdq"
#include "core/x86_target_begin.h"

#include "cipher/ghash_x86_clmul.h"

namespace ks {
namespace ghash {
namespace {

__m512i load4(const uint8_t* p) {
  return _mm512_shuffle_epi8(_mm512_loadu_si512(p), _mm512_broadcast_i32x4(byte_reverse()));
}

// The sum of the four 128-bit lanes.
__m128i lanes_sum(__m512i v) {
  const __m256i h = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  return _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

}  // namespace

void init_vpclmul(Key* key, const uint8_t h[16]) { init_powers(key, h); }

// 16 blocks: block j (lane j % 4 of vector j / 4) times H^(16 - j), the
// running hash added to block 0, summed unreduced across the lanes.
void blocks_vpclmul(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks) {
  __m128i acc = load_block(y);
  const __m512i* h = reinterpret_cast<const __m512i*>(key.words);
  for (; nblocks >= 16; nblocks -= 16, data += 256) {
    __m512i lo = _mm512_setzero_si512(), mid = lo, hi = lo;
    for (int v = 0; v < 4; ++v) {
      __m512i x = load4(data + 64 * v);
      if (v == 0) x = _mm512_xor_si512(x, _mm512_zextsi128_si512(acc));
      const __m512i p = _mm512_loadu_si512(h + v);
      lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(x, p, 0x00));
      hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(x, p, 0x11));
      mid = _mm512_xor_si512(mid, _mm512_xor_si512(_mm512_clmulepi64_epi128(x, p, 0x01),
                                                    _mm512_clmulepi64_epi128(x, p, 0x10)));
    }
    acc = reduce(Wide{lanes_sum(lo), lanes_sum(mid), lanes_sum(hi)});
  }
  if (nblocks > 0) acc = chunk(key, acc, data, nblocks);
  store_block(y, acc);
}

}  // namespace ghash
}  // namespace ks

#include "core/x86_target_end.h"

#endif  // KS_GHASH_X86
