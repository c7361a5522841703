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

// out[i] = SM3(msgs[i][0 .. lens[i])) for i < n, on the calling thread.
// Uses multi-buffer SIMD lanes where the CPU has them.
void digest_many(const uint8_t* const* msgs, const size_t* lens, size_t n,
                 uint8_t (*out)[32]);

}  // namespace sm3
}  // namespace ks

#endif  // KS_HASH_SM3_BLOCKS_H_
