// Run-time dispatch of SHA-512 compression (single stream and multi-buffer)
// and digest_many, on the machinery shared with SM3 (lane_jobs.h).
#include "hash/sha512_blocks.h"

#include "core/secure.h"
#include "hash/lane_jobs.h"
#include "hash/sha512.h"
#include "hash/sha512_compress.h"
#include "hash/sha512_x86_kernels.h"

namespace ks {
namespace sha512 {
namespace {

// What lane_jobs.h needs to know of SHA-512: 128-byte blocks ending, when
// padded, in a 128-bit length (section 5.1.2).
struct Sha512Hash {
  using Word = uint64_t;
  using Prefixes = sha512::Prefixes;
  static constexpr size_t kBlockBytes = sha512::kBlockBytes, kLengthBytes = 16;
  static constexpr size_t kDigestBytes = sha512::kDigestBytes;
  // On Zen 4 one x8 (AVX-512) or x4 (AVX2) kernel call costs about 2.3
  // single-stream blocks (tools/sha512_micro.cc), so two busy lanes are
  // already cheaper one at a time.
  static constexpr int kSerialLanes = 2;
  static constexpr auto compress_variants = sha512::compress_variants;

  static void load_iv(uint64_t state[8]) { sha512::load_iv(state); }
  static void store_digest(const uint64_t state[8], uint8_t* out) {
    for (int i = 0; i < 8; ++i) store_be64(out + 8 * i, state[i]);
  }
  static void store_bit_length(uint8_t* end, uint64_t total_bytes) {
    store_be64(end - 16, total_bytes >> 61);
    store_be64(end - 8, total_bytes << 3);
  }
};

}  // namespace

void compress_blocks_portable(uint64_t state[8], const uint8_t* blocks, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) compress_block(state, blocks + 128 * i);
}

// Preferred first, portable last (and always usable).
const CompressVariant* compress_variants(size_t* count) {
  static const CompressVariant kTable[] = {
#if KS_SHA512_X86
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
#if KS_SHA512_X86
      {"x8-avx512", hash::cpu_has_avx512_kernels(),
       hash::digest_many_lanes<Sha512Hash, 8, compress_x8_avx512>},
      {"x4-avx2", hash::cpu_has_avx2_kernels(),
       hash::digest_many_lanes<Sha512Hash, 4, compress_x4_avx2>},
#endif
      {"serial", true, hash::digest_many_serial<Sha512Hash>},
      {"portable", true, digest_many_portable},
  };
  *count = sizeof(kTable) / sizeof(kTable[0]);
  return kTable;
}

void compress_blocks(uint64_t state[8], const uint8_t* blocks, size_t nblocks) {
  hash::chosen_compress<Sha512Hash>()(state, blocks, nblocks);
}

const char* compress_variant_name() { return first_usable(compress_variants).name; }

void compress_final(uint64_t state[8], const uint8_t* rest, size_t rest_len,
                    uint64_t total_bytes) {
  uint8_t tail[2 * kBlockBytes];
  const size_t blocks = hash::pad_tail<Sha512Hash>(rest, rest_len, nullptr, 0, total_bytes, tail);
  compress_blocks(state, tail, blocks);
  secure_wipe(tail, sizeof(tail));
}

void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n, uint8_t (*out)[64],
                 Prefixes prefixes) {
  static const auto fn = first_usable(digest_many_variants).digest_many;
  fn(msgs, lens, n, out, prefixes);
}

void digest_many_portable(const uint8_t* const* msgs, const size_t* lens, size_t n,
                          uint8_t (*out)[64], Prefixes prefixes) {
  hash::digest_each<Sha512Hash>(compress_blocks_portable, msgs, lens, n, out, prefixes);
}

void compress_x8(uint64_t state[8][8], const uint8_t* const blocks[8]) {
#if KS_SHA512_X86
  static const bool fast = hash::cpu_has_avx512_kernels();
  if (fast) return compress_x8_avx512(state, blocks);
#endif
  hash::compress_lanes_serial<Sha512Hash, 8>(state, blocks);
}

void compress_x4(uint64_t state[8][4], const uint8_t* const blocks[4]) {
#if KS_SHA512_X86
  static const bool fast = hash::cpu_has_avx2_kernels();
  if (fast) return compress_x4_avx2(state, blocks);
#endif
  hash::compress_lanes_serial<Sha512Hash, 4>(state, blocks);
}

}  // namespace sha512
}  // namespace ks
