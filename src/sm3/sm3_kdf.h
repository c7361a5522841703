// The SM3 key derivation function of GB/T 32918.4-2016 clause 5.4.3 (the
// same in GB/T 32918.3 and GM/T 0003): K = Ha_1 || Ha_2 || ... truncated to
// klen bytes, Ha_i = SM3(Z || ct_i) with ct_i = i as a 32-bit big-endian
// counter from 1. SM2 encryption and key exchange derive their keys with
// it from the shared point's coordinates.
#ifndef KS_SM3_SM3_KDF_H_
#define KS_SM3_SM3_KDF_H_

#include <stddef.h>
#include <stdint.h>

#include "sm3/sm3.h"

namespace ks {
namespace sm3 {

// klen is at most (2^32 - 1) digests (clause 5.4.3: the counter is 32 bits).
constexpr uint64_t kKdfMaxBytes = uint64_t(0xffffffffu) * kDigestBytes;

// The key stream, read in pieces of any size: Z is absorbed once and the
// hash state copied per block. Holds secrets (Z is a shared point): wiped
// on destruction.
class Kdf {
 public:
  Kdf(const uint8_t* z, size_t z_len);
  ~Kdf();
  Kdf(const Kdf&) = delete;
  Kdf& operator=(const Kdf&) = delete;
  // The next len bytes of K. The caller keeps the total within kKdfMaxBytes.
  void next(uint8_t* out, size_t len);

 private:
  Sm3 prefix_;                  // SM3 with Z absorbed
  uint8_t block_[kDigestBytes];  // Ha_i, of which used_ bytes are spent
  size_t used_ = kDigestBytes;
  uint32_t counter_ = 1;
};

// out[0..klen) = KDF(Z, klen); klen <= kKdfMaxBytes.
void kdf(const uint8_t* z, size_t z_len, uint8_t* out, size_t klen);

}  // namespace sm3
}  // namespace ks

#endif  // KS_SM3_SM3_KDF_H_
