// GHASH (NIST SP 800-38D 6.4) on the CPU, dispatched at run time:
// PCLMULQDQ / VPCLMULQDQ with aggregated reduction where the CPU has them,
// a constant-time portable multiplication (no tables) everywhere.
#ifndef KS_CIPHER_GHASH_H_
#define KS_CIPHER_GHASH_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace ghash {

// The hash key's precomputed form; its layout belongs to the variant that
// filled it (powers of H for the carry-less kernels). Secret.
struct Key {
  uint64_t words[32];  // 16 powers of H, 16 bytes each
  const struct Variant* variant;
};

struct Variant {
  const char* name;
  bool usable;
  void (*init)(Key* key, const uint8_t h[16]);
  // Y = (...((Y ^ X_1) H ^ X_2) H ... ^ X_n) H over nblocks 16-byte blocks;
  // y in the standard's byte order.
  void (*blocks)(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks);
};

// Every variant built in, preferred first; the last (portable) always usable.
const Variant* variants(size_t* count);
const Variant& chosen_variant();

void init(Key* key, const uint8_t h[16], const Variant& variant = chosen_variant());
inline void blocks(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks) {
  if (nblocks != 0) key.variant->blocks(key, y, data, nblocks);
}

// The portable variant's functions (ghash.cc).
void init_portable(Key* key, const uint8_t h[16]);
void blocks_portable(const Key& key, uint8_t y[16], const uint8_t* data, size_t nblocks);

}  // namespace ghash
}  // namespace ks

#endif  // KS_CIPHER_GHASH_H_
