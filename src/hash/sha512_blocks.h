// SHA-512 bulk compression and multi-message hashing on the CPU, dispatched
// at run time to the fastest variant the CPU has (see core/cpu_features.h).
// The same shape as sm3_blocks.h.
#ifndef KS_HASH_SHA512_BLOCKS_H_
#define KS_HASH_SHA512_BLOCKS_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace sha512 {

// Compresses nblocks consecutive 128-byte blocks into state.
void compress_blocks(uint64_t state[8], const uint8_t* blocks, size_t nblocks);

// The portable variant, always present (and the reference in tests).
void compress_blocks_portable(uint64_t state[8], const uint8_t* blocks, size_t nblocks);

// Name of the variant compress_blocks uses on this CPU, for reports.
const char* compress_variant_name();

// Compresses the padded end of a message (FIPS 180-4 section 5.1.2): its
// last rest_len (< 128) bytes, the padding and the length field for a
// message of total_bytes in all. The buffer it pads in is wiped.
void compress_final(uint64_t state[8], const uint8_t* rest, size_t rest_len,
                    uint64_t total_bytes);

// A prefix of its own before each message of a batch, all of one length
// below a block: Ed25519 batch verification hashes R || A || M this way
// (a 64-byte prefix R || A) without copying M.
struct Prefixes {
  const uint8_t* const* bytes = nullptr;  // bytes[i]: item i's prefix (null when len is 0)
  size_t len = 0;                         // < 128
};

// out[i] = SHA-512(prefixes.bytes[i][0 .. prefixes.len) || msgs[i][0 .. lens[i]))
// for i < n, on the calling thread. Uses multi-buffer SIMD lanes where the
// CPU has them. The messages are read in place: only a block that straddles
// the prefix and the message, and the padded tail, are assembled.
void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n, uint8_t (*out)[64],
                 Prefixes prefixes = Prefixes());

// --- Multi-buffer lanes -----------------------------------------------------
// One compression per lane, lanes holding unrelated messages. The state is
// word-major: state[i][l] is word i of lane l's chaining value; blocks[l] is
// lane l's 128-byte block. Correct on every CPU: the AVX-512 (x8) or AVX2
// (x4) kernel where the CPU has it, lane by lane otherwise.
void compress_x8(uint64_t state[8][8], const uint8_t* const blocks[8]);
void compress_x4(uint64_t state[8][4], const uint8_t* const blocks[4]);

// --- Variants, for tests and benchmarks -------------------------------------
// Every variant built into the library, preferred first. `usable` is false
// where this CPU (after KS_CPU_FEATURES) lacks an extension it needs; the
// dispatching functions above use the first usable one.
struct CompressVariant {
  const char* name;
  bool usable;
  void (*compress_blocks)(uint64_t state[8], const uint8_t* blocks, size_t nblocks);
};
struct DigestManyVariant {
  const char* name;
  bool usable;
  void (*digest_many)(const uint8_t* const* msgs, const size_t* lens, size_t n,
                      uint8_t (*out)[64], Prefixes prefixes);
};
const CompressVariant* compress_variants(size_t* count);
const DigestManyVariant* digest_many_variants(size_t* count);

// The reference for digest_many: one message at a time on the portable
// compression function.
void digest_many_portable(const uint8_t* const* msgs, const size_t* lens, size_t n,
                          uint8_t (*out)[64], Prefixes prefixes = Prefixes());

}  // namespace sha512
}  // namespace ks

#endif  // KS_HASH_SHA512_BLOCKS_H_
