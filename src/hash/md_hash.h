// Streaming Merkle-Damgard hashing written once over a compression policy
// C: SM3 (GB/T 32905-2016), SHA-1, SHA-256 and SHA-512 (FIPS 180-4) differ
// only in their compression function, word size, block size and length
// field, which C gives:
//   C::Word (uint32_t or uint64_t), C::kStateWords, C::kDigestBytes (the
//   first kDigestBytes / sizeof(Word) state words, big endian),
//   C::kBlockBytes, C::kLengthBytes (the bit length field: 8 or 16),
//   C::init(state), C::blocks(state, data, nblocks).
// The padding (0x80, zeros, the bit length) is hash::pad_tail, which the
// multi-buffer lanes of lane_jobs.h use too.
#ifndef KS_HASH_MD_HASH_H_
#define KS_HASH_MD_HASH_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/endian.h"
#include "core/secure.h"
#include "hash/lane_jobs.h"

namespace ks {

template <class C>
class MdHash {
 public:
  using Word = typename C::Word;
  static constexpr size_t kDigestBytes = C::kDigestBytes;
  static constexpr size_t kBlockBytes = C::kBlockBytes;

  // The length field for hash::pad_tail: total * 8 as a big-endian integer
  // of kLengthBytes (the bytes above the low 8 hold total >> 61).
  struct Padding {
    static constexpr size_t kBlockBytes = C::kBlockBytes, kLengthBytes = C::kLengthBytes;
    static void store_bit_length(uint8_t* end, uint64_t total_bytes) {
      if (kLengthBytes == 16) store_be64(end - 16, total_bytes >> 61);
      store_be64(end - 8, total_bytes * 8);
    }
  };

  MdHash() { reset(); }
  void reset() {
    C::init(state_);
    total_bytes_ = 0;
    block_len_ = 0;
  }

  // Accepts (nullptr, 0): an empty message or ID may come that way, which
  // memcpy must not see even with a zero length (C11 7.24.1).
  void update(const uint8_t* data, size_t len) {
    if (len == 0) return;
    total_bytes_ += len;
    if (block_len_ > 0) {
      const size_t take = len < kBlockBytes - block_len_ ? len : kBlockBytes - block_len_;
      memcpy(block_ + block_len_, data, take);
      block_len_ += take;
      data += take;
      len -= take;
      if (block_len_ < kBlockBytes) return;
      C::blocks(state_, block_, 1);
      block_len_ = 0;
    }
    const size_t whole = len / kBlockBytes;
    if (whole > 0) {
      C::blocks(state_, data, whole);
      data += whole * kBlockBytes;
      len -= whole * kBlockBytes;
    }
    if (len > 0) {
      memcpy(block_, data, len);
      block_len_ = len;
    }
  }

  // Writes the digest, wipes the buffered message bytes and resets the
  // object for reuse.
  void finish(uint8_t out[kDigestBytes]) {
    uint8_t tail[2 * kBlockBytes];
    const size_t n = hash::pad_tail<Padding>(block_, block_len_, nullptr, 0, total_bytes_, tail);
    C::blocks(state_, tail, n);
    for (size_t i = 0; i < kDigestBytes / sizeof(Word); ++i) {
      if constexpr (sizeof(Word) == 8) {
        store_be64(out + 8 * i, state_[i]);
      } else {
        store_be32(out + 4 * i, state_[i]);
      }
    }
    secure_wipe(tail, sizeof(tail));
    secure_wipe(block_, sizeof(block_));
    reset();
  }

  // Whether the fields that index the buffer are in range (a state read
  // back from caller memory, which may hold anything).
  bool consistent() const { return block_len_ < kBlockBytes; }

  static void digest(const uint8_t* data, size_t len, uint8_t out[kDigestBytes]) {
    MdHash h;
    h.update(data, len);
    h.finish(out);
  }

 private:
  Word state_[C::kStateWords];
  uint64_t total_bytes_;
  uint8_t block_[kBlockBytes];
  size_t block_len_;
};

}  // namespace ks

#endif  // KS_HASH_MD_HASH_H_
