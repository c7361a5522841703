// Block-cipher modes of operation written once over a 128-bit block-cipher
// policy (BoringSSL's block128_f / ctr128_f, over a void* key so that SM4
// and, later, SKINNY-128 share them): ECB, CBC (NIST SP 800-38A 6.1-6.2),
// CFB-128 (6.3), OFB (6.4) and CTR (6.5), PKCS#7 padding (RFC 5652 6.3)
// for ECB and CBC, and one streaming context for all five.
//
// Buffers: out may equal in (in-place); no other overlap is allowed.
#ifndef KS_CIPHER_MODES_H_
#define KS_CIPHER_MODES_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {

// The serial modes' encryptions: each block waits for the one before.
enum class ChainMode { kCbc, kCfb, kOfb };

// A 16-byte block cipher under an opaque expanded key.
struct BlockCipher {
  void (*encrypt)(const void* key, const uint8_t* in, uint8_t* out, size_t nblocks);
  void (*decrypt)(const void* key, const uint8_t* in, uint8_t* out, size_t nblocks);
  // out[i] = in[i] ^ E(counter + i), counter a 128-bit big-endian integer
  // modulo 2^128, advanced by nblocks.
  void (*ctr)(const void* key, uint8_t counter[16], const uint8_t* in, uint8_t* out,
              size_t nblocks);
  // Optional (null: the modes go block by block through encrypt): CBC,
  // CFB-128 or OFB encryption of nblocks whole blocks, the chaining block
  // in iv (C_{-1} or O_{-1} in; the last C or O out), kept in registers.
  void (*chain)(const void* key, ChainMode mode, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t nblocks);
};

// The BlockCipher of a cipher whose expanded key type is Key and whose
// whole-block functions take it by reference (sm4::encrypt_blocks, ...).
template <class Key, void (*Encrypt)(const Key&, const uint8_t*, uint8_t*, size_t),
          void (*Decrypt)(const Key&, const uint8_t*, uint8_t*, size_t),
          void (*Ctr)(const Key&, uint8_t[16], const uint8_t*, uint8_t*, size_t),
          void (*Chain)(const Key&, ChainMode, uint8_t[16], const uint8_t*, uint8_t*, size_t) =
              nullptr>
const BlockCipher& block_cipher_of() {
  static const BlockCipher kCipher = {
      [](const void* key, const uint8_t* in, uint8_t* out, size_t nblocks) {
        Encrypt(*static_cast<const Key*>(key), in, out, nblocks);
      },
      [](const void* key, const uint8_t* in, uint8_t* out, size_t nblocks) {
        Decrypt(*static_cast<const Key*>(key), in, out, nblocks);
      },
      [](const void* key, uint8_t counter[16], const uint8_t* in, uint8_t* out, size_t nblocks) {
        Ctr(*static_cast<const Key*>(key), counter, in, out, nblocks);
      },
      Chain == nullptr ? nullptr
                       : +[](const void* key, ChainMode mode, uint8_t iv[16], const uint8_t* in,
                             uint8_t* out, size_t nblocks) {
                           Chain(*static_cast<const Key*>(key), mode, iv, in, out, nblocks);
                         }};
  return kCipher;
}

namespace modes {

constexpr size_t kBlock = 16;

// counter += n, modulo 2^128, big endian: the counter blocks of every
// cipher's CTR (SP 800-38A B.1's standard incrementing function over all
// 128 bits).
void ctr128_add(uint8_t counter[16], uint64_t n);

// --- Whole blocks: len must be a multiple of 16 ---------------------------
void ecb_encrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                 size_t len);
void ecb_decrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                 size_t len);
// iv is the chaining value: on return it is the last ciphertext block, so
// consecutive calls continue one message.
void cbc_encrypt(const BlockCipher& bc, const void* key, uint8_t iv[16], const uint8_t* in,
                 uint8_t* out, size_t len);
void cbc_decrypt(const BlockCipher& bc, const void* key, uint8_t iv[16], const uint8_t* in,
                 uint8_t* out, size_t len);

// --- Stream modes, any length ----------------------------------------------
// The register between calls: the IV / feedback block / counter, and how
// many bytes of the current block are used (0..15; 0 = at a boundary).
struct StreamState {
  uint8_t iv[16];   // CFB: the feedback block; OFB: the last output block; CTR: next counter
  uint8_t pad[16];  // CFB: E(feedback) XOR the bytes so far; OFB/CTR: the current keystream
  unsigned used;
};
void stream_init(StreamState* s, const uint8_t iv[16]);
// Whether used indexes inside pad (a state read back from caller memory).
inline bool stream_consistent(const StreamState& s) { return s.used < kBlock; }
void cfb_encrypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
                 uint8_t* out, size_t len);
void cfb_decrypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
                 uint8_t* out, size_t len);
void ofb_crypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
               uint8_t* out, size_t len);
// The counter is 128 bits, big endian, and wraps modulo 2^128 (after
// 2^128 blocks, which no caller reaches: the IV's choice is the caller's).
void ctr_crypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
               uint8_t* out, size_t len);

// --- PKCS#7 (RFC 5652 6.3) ------------------------------------------------
// The last block of a padded message: the final len % 16 bytes of it, then
// 16 - len % 16 bytes of that value (a whole block of 16s when len is a
// multiple of 16).
void pkcs7_last_block(const uint8_t* tail, size_t tail_len, uint8_t block[16]);
// The padding length (1..16) of a decrypted last block, or 0 if the padding
// is malformed. Constant time in the block's contents.
size_t pkcs7_padding_length(const uint8_t block[16]);

// --- One streaming context for ECB, CBC, CFB, OFB and CTR ------------------
enum class Mode { kEcb, kCbc, kCfb, kOfb, kCtr };

enum class Status { kOk, kBadPadding, kPartialBlock };

class Stream {
 public:
  // pad: PKCS#7 for ECB/CBC (ignored by the stream modes). iv is unused
  // for ECB and may be null then.
  void init(Mode mode, bool encrypt, bool pad, const uint8_t iv[16]);

  // Most bytes update may write for len input bytes: len for the stream
  // modes; ECB/CBC emit whole blocks of what is buffered and new (and,
  // decrypting with padding, hold the last one back): len + 16 at most.
  size_t output_bound(size_t len) const {
    if (mode_ != Mode::kEcb && mode_ != Mode::kCbc) return len;
    return len > SIZE_MAX - kBlock ? SIZE_MAX : len + kBlock;
  }
  // Writes the output ready after len more bytes; returns its length.
  size_t update(const BlockCipher& bc, const void* key, const uint8_t* in, size_t len,
                uint8_t* out);
  // Ends the message: ECB/CBC write the padded last block (encrypting) or
  // the unpadded one (decrypting); at most 16 bytes, in *out_len. Without
  // padding a partial block left over is kPartialBlock. The stream modes
  // write nothing.
  Status finish(const BlockCipher& bc, const void* key, uint8_t* out, size_t* out_len);

  // Whether every field holds a value init or update could have left: the
  // mode, the flags (read as bytes: a bool holding another value is
  // undefined behaviour to load), and the buffered counts that index buf_
  // and the state's pad.
  bool consistent() const;

 private:
  size_t update_blocks(const BlockCipher& bc, const void* key, const uint8_t* in, size_t len,
                       uint8_t* out);
  void crypt_whole(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                   size_t len);

  Mode mode_;
  bool encrypt_, pad_;
  StreamState state_;
  uint8_t buf_[kBlock];  // ECB/CBC: input bytes not yet a whole block (or held back)
  size_t buffered_;
};

}  // namespace modes
}  // namespace ks

#endif  // KS_CIPHER_MODES_H_
