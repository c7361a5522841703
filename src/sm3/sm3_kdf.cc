// The SM3 KDF (sm3/sm3_kdf.h).
#include "sm3/sm3_kdf.h"

#include <string.h>

#include "core/endian.h"
#include "core/secure.h"

namespace ks {
namespace sm3 {

Kdf::Kdf(const uint8_t* z, size_t z_len) { prefix_.update(z, z_len); }

Kdf::~Kdf() {
  secure_wipe(&prefix_, sizeof prefix_);
  secure_wipe(block_, sizeof block_);
}

void Kdf::next(uint8_t* out, size_t len) {
  while (len > 0) {
    if (used_ == kDigestBytes) {
      Sm3 h = prefix_;
      uint8_t ct[4];
      store_be32(ct, counter_++);
      h.update(ct, sizeof ct);
      h.finish(block_);
      secure_wipe(&h, sizeof h);
      used_ = 0;
    }
    const size_t n = len < kDigestBytes - used_ ? len : kDigestBytes - used_;
    memcpy(out, block_ + used_, n);
    used_ += n;
    out += n;
    len -= n;
  }
}

void kdf(const uint8_t* z, size_t z_len, uint8_t* out, size_t klen) {
  Kdf k(z, z_len);
  k.next(out, klen);
}

}  // namespace sm3
}  // namespace ks
