// GCM (NIST SP 800-38D) over any 128-bit BlockCipher (modes.h): SM4-GCM
// (RFC 8998) here, AES-GCM in the tests to prove this code against
// OpenSSL. IVs of any length (96 bits is the fast, recommended one), AAD,
// and tags of 4 to 16 bytes (SP 800-38D 5.2.1.2 and appendix C: 12-16 are
// the general-purpose lengths, 4 and 8 only for the uses appendix C allows).
#ifndef KS_CIPHER_GCM_H_
#define KS_CIPHER_GCM_H_

#include <stddef.h>
#include <stdint.h>

#include "cipher/ghash.h"
#include "cipher/modes.h"

namespace ks {
namespace gcm {

constexpr size_t kTagBytes = 16;
constexpr size_t kMinTagBytes = 4;
// SP 800-38D 5.2.1.1: plaintext up to 2^39 - 256 bits; AAD and IV below
// 2^64 bits.
constexpr uint64_t kMaxTextBytes = (uint64_t(1) << 36) - 32;
constexpr uint64_t kMaxAadBytes = (uint64_t(1) << 61) - 1;
constexpr uint64_t kMaxIvBytes = (uint64_t(1) << 61) - 1;

bool valid_iv_length(size_t iv_len);
bool valid_tag_length(size_t tag_len);

// A streaming encryption or decryption: init, aad (any number of calls),
// then encrypt or decrypt (any number of calls), then tag. Decrypting in
// pieces hands out plaintext before the tag is checked: the caller must
// not use it unless verify() succeeds (open() below never releases it).
class Gcm {
 public:
  // Returns false on an IV length outside 1 .. kMaxIvBytes.
  bool init(const BlockCipher& bc, const void* key, const uint8_t* iv, size_t iv_len,
            const ghash::Variant& ghash_variant = ghash::chosen_variant());
  // false after encrypt/decrypt has begun or past kMaxAadBytes.
  bool aad(const uint8_t* data, size_t len);
  // false (and nothing written) past kMaxTextBytes.
  bool encrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
               size_t len);
  bool decrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
               size_t len);
  // The 16-byte tag of what came so far (GCM-AE step 5-6, SP 800-38D 7.1).
  void tag(uint8_t out[kTagBytes]);
  // Compares the first tag_len bytes of the tag in constant time.
  bool verify(const uint8_t* expected, size_t tag_len);
  // The two halves of decrypt, for open(), which checks the tag before it
  // decrypts: GHASH over ciphertext, and the CTR keystream alone.
  bool absorb_ciphertext(const uint8_t* in, size_t len);
  void keystream_xor(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                     size_t len);
  void wipe();
  // Whether every field holds a value init, aad or the text calls could
  // have left (a state read back from caller memory, which may hold
  // anything): the counts that index the partial blocks, the lengths
  // within their limits, the flag, and GHASH's variant one of its own.
  bool consistent() const;

 private:
  void hash_bytes(const uint8_t* data, size_t len);
  void flush_partial();
  bool begin_text(size_t len);

  ghash::Key hkey_;
  uint8_t y_[16];        // the GHASH state
  uint8_t ek_j0_[16];    // E(J0), masks the tag
  uint8_t counter_[16];  // the next counter block (inc32 of J0, then on)
  uint8_t ks_[16];       // the keystream block being used
  uint8_t partial_[16];  // bytes waiting for a whole GHASH block
  unsigned ks_used_, partial_len_;
  uint64_t aad_len_, text_len_;
  bool text_started_;
};

// One-shot GCM-AE: out (len bytes, may be in) and the first tag_len bytes
// of the tag. Returns false, writing nothing, on a bad IV, tag length or
// message length.
bool seal(const BlockCipher& bc, const void* key, const uint8_t* iv, size_t iv_len,
          const uint8_t* aad, size_t aad_len, const uint8_t* in, size_t len, uint8_t* out,
          uint8_t* tag, size_t tag_len);
// One-shot GCM-AD: the tag is checked before anything is decrypted, so on
// a mismatch (or bad lengths) false is returned and out is left untouched.
bool open(const BlockCipher& bc, const void* key, const uint8_t* iv, size_t iv_len,
          const uint8_t* aad, size_t aad_len, const uint8_t* in, size_t len,
          const uint8_t* tag, size_t tag_len, uint8_t* out);

}  // namespace gcm
}  // namespace ks

#endif  // KS_CIPHER_GCM_H_
