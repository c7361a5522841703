// SM3 bulk compression and multi-message hashing on the CPU, dispatched at run
// time to the fastest variant the CPU has (see core/cpu_features.h).
#ifndef KS_HASH_SM3_BLOCKS_H_
#define KS_HASH_SM3_BLOCKS_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace sm3 {

// Compresses nblocks consecutive 64-byte blocks into state.
void compress_blocks(uint32_t state[8], const uint8_t* blocks, size_t nblocks);

// The portable variant, always present (and the reference in tests).
void compress_blocks_portable(uint32_t state[8], const uint8_t* blocks, size_t nblocks);

// Name of the variant compress_blocks uses on this CPU, for reports.
const char* compress_variant_name();

// A prefix of its own before each message of a batch, all of one length
// below a block: SM2 hashes Z_A || M this way without copying M.
struct Prefixes {
  const uint8_t* const* bytes = nullptr;  // bytes[i]: item i's prefix (null when len is 0)
  size_t len = 0;                         // < 64
};

// out[i] = SM3(prefixes.bytes[i][0 .. prefixes.len) || msgs[i][0 .. lens[i]))
// for i < n, on the calling thread. Uses multi-buffer SIMD lanes where the
// CPU has them. The messages are read in place: only a block that straddles
// the prefix and the message, and the padded tail, are assembled.
void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n, uint8_t (*out)[32],
                 Prefixes prefixes = Prefixes());

// --- Multi-buffer lanes -----------------------------------------------------
// One compression per lane, lanes holding unrelated messages (batch callers:
// SM2 hashes Z_A || M of 16 signatures at once). The state is word-major:
// state[i][l] is word i of lane l's chaining value; blocks[l] is lane l's
// 64-byte block. Correct on every CPU: one AVX-512 (x16) or AVX2 (x8) kernel
// where the CPU has it, lane by lane otherwise.
void compress_x16(uint32_t state[8][16], const uint8_t* const blocks[16]);
void compress_x8(uint32_t state[8][8], const uint8_t* const blocks[8]);

// --- Variants, for tests and benchmarks -------------------------------------
// Every variant built into the library, preferred first. `usable` is false
// where this CPU (after KS_CPU_FEATURES) lacks an extension it needs; the
// dispatching functions above use the first usable one.
struct CompressVariant {
  const char* name;
  bool usable;
  void (*compress_blocks)(uint32_t state[8], const uint8_t* blocks, size_t nblocks);
};
struct DigestManyVariant {
  const char* name;
  bool usable;
  void (*digest_many)(const uint8_t* const* msgs, const size_t* lens, size_t n,
                      uint8_t (*out)[32], Prefixes prefixes);
};
const CompressVariant* compress_variants(size_t* count);
const DigestManyVariant* digest_many_variants(size_t* count);

// The reference for digest_many: one message at a time on the portable
// compression function.
void digest_many_portable(const uint8_t* const* msgs, const size_t* lens, size_t n,
                          uint8_t (*out)[32], Prefixes prefixes = Prefixes());

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_BLOCKS_H_
