// Run-time dispatch of SM3 compression (single stream and multi-buffer) and
// digest_many, on the machinery shared with SHA-512 (lane_jobs.h).
#include "sm3/sm3_blocks.h"

#include "hash/lane_jobs.h"
#include "sm3/sm3.h"
#include "sm3/sm3_compress.h"
#include "sm3/sm3_x86_kernels.h"

namespace ks {
namespace sm3 {
namespace {

// What lane_jobs.h needs to know of SM3: 64-byte blocks ending, when
// padded, in a 64-bit length (section 5.2).
struct Sm3Hash {
  using Word = uint32_t;
  using Prefixes = sm3::Prefixes;
  static constexpr size_t kBlockBytes = sm3::kBlockBytes, kLengthBytes = 8;
  static constexpr size_t kDigestBytes = sm3::kDigestBytes;
  // On Zen 4 one x16 (AVX-512) or x8 (AVX2) kernel call costs a little more
  // than two single-stream blocks (tools/sm3_micro.cc), so two busy lanes
  // are already cheaper one at a time.
  static constexpr int kSerialLanes = 2;
  static constexpr auto compress_variants = sm3::compress_variants;

  static void load_iv(uint32_t state[8]) { sm3::load_iv(state); }
  static void store_digest(const uint32_t state[8], uint8_t* out) {
    for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, state[i]);
  }
  static void store_bit_length(uint8_t* end, uint64_t total_bytes) {
    const uint64_t bits = total_bytes * 8;
    store_be32(end - 8, uint32_t(bits >> 32));
    store_be32(end - 4, uint32_t(bits));
  }
};

}  // namespace

void compress_blocks_portable(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) compress_block(state, blocks + 64 * i);
}

// Preferred first, portable last (and always usable).
const CompressVariant* compress_variants(size_t* count) {
  static const CompressVariant kTable[] = {
#if KS_SM3_X86
      {"avx512-bmi2", hash::cpu_has_avx512_kernels(), compress_blocks_avx512},
      {"avx2-bmi2", hash::cpu_has_avx2_kernels(), compress_blocks_avx2},
#endif
      {"portable", true, compress_blocks_portable},
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

const DigestManyVariant* digest_many_variants(size_t* count) {
  static const DigestManyVariant kTable[] = {
#if KS_SM3_X86
      {"x16-avx512", hash::cpu_has_avx512_kernels(),
       hash::digest_many_lanes<Sm3Hash, 16, compress_x16_avx512>},
      {"x8-avx2", hash::cpu_has_avx2_kernels(),
       hash::digest_many_lanes<Sm3Hash, 8, compress_x8_avx2>},
#endif
      {"serial", true, hash::digest_many_serial<Sm3Hash>},
      {"portable", true, digest_many_portable},
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

void compress_blocks(uint32_t state[8], const uint8_t* blocks, size_t nblocks) {
  hash::chosen_compress<Sm3Hash>()(state, blocks, nblocks);
}

const char* compress_variant_name() { return first_usable(compress_variants).name; }

void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n, uint8_t (*out)[32],
                 Prefixes prefixes) {
  static const auto fn = first_usable(digest_many_variants).digest_many;
  fn(msgs, lens, n, out, prefixes);
}

void digest_many_portable(const uint8_t* const* msgs, const size_t* lens, size_t n,
                          uint8_t (*out)[32], Prefixes prefixes) {
  hash::digest_each<Sm3Hash>(compress_blocks_portable, msgs, lens, n, out, prefixes);
}

void compress_x16(uint32_t state[8][16], const uint8_t* const blocks[16]) {
#if KS_SM3_X86
  static const bool fast = hash::cpu_has_avx512_kernels();
  if (fast) return compress_x16_avx512(state, blocks);
#endif
  hash::compress_lanes_serial<Sm3Hash, 16>(state, blocks);
}

void compress_x8(uint32_t state[8][8], const uint8_t* const blocks[8]) {
#if KS_SM3_X86
  static const bool fast = hash::cpu_has_avx2_kernels();
  if (fast) return compress_x8_avx2(state, blocks);
#endif
  hash::compress_lanes_serial<Sm3Hash, 8>(state, blocks);
}

}  // namespace sm3
}  // namespace ks
