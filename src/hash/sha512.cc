#include "hash/sha512.h"

#include <string.h>

#include "core/secure.h"
#include "hash/sha512_blocks.h"
#include "hash/sha512_compress.h"

namespace ks {
namespace sha512 {
namespace {

void store_digest(const uint64_t state[8], uint8_t out[kDigestBytes]) {
  for (int i = 0; i < 8; ++i) store_be64(out + 8 * i, state[i]);
}

}  // namespace

void Sha512Compress::init(uint64_t state[8]) { load_iv(state); }

void Sha512Compress::blocks(uint64_t state[8], const uint8_t* data, size_t nblocks) {
  compress_blocks(state, data, nblocks);
}

// Whole blocks straight from data, then the padded tail: no copy of the
// message into a block buffer.
void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]) {
  uint64_t state[8];
  load_iv(state);
  const size_t whole = len / kBlockBytes;
  if (whole > 0) compress_blocks(state, data, whole);
  compress_final(state, data + whole * kBlockBytes, len % kBlockBytes, len);
  store_digest(state, out);
  secure_wipe(state, sizeof(state));
}

void digest_parts(const uint8_t* const parts[], const size_t lens[], size_t nparts,
                  uint8_t out[kDigestBytes]) {
  Sha512 h;
  for (size_t i = 0; i < nparts; ++i) h.update(parts[i], lens[i]);
  h.finish(out);
}

}  // namespace sha512
}  // namespace ks
