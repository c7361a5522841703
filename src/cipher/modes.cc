// The modes of modes.h over any BlockCipher.
#include "cipher/modes.h"

#include <string.h>

#include "core/secure.h"

namespace ks {
namespace modes {
namespace {

// Work in chunks that stay in L1 next to their temporaries, and are long
// enough for the widest kernel's 128 blocks in flight.
constexpr size_t kChunkBlocks = 256;

void xor_bytes(const uint8_t* a, const uint8_t* b, uint8_t* out, size_t len) {
  for (size_t i = 0; i < len; ++i) out[i] = a[i] ^ b[i];
}

}  // namespace

void ecb_encrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                 size_t len) {
  bc.encrypt(key, in, out, len / kBlock);
}

void ecb_decrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                 size_t len) {
  bc.decrypt(key, in, out, len / kBlock);
}

// C_i = E(P_i ^ C_{i-1}): one block at a time, by definition.
void cbc_encrypt(const BlockCipher& bc, const void* key, uint8_t iv[16], const uint8_t* in,
                 uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  if (bc.chain != nullptr) return bc.chain(key, ChainMode::kCbc, iv, in, out, len / kBlock);
  for (size_t off = 0; off + kBlock <= len; off += kBlock) {
    xor_bytes(in + off, iv, iv, kBlock);
    bc.encrypt(key, iv, iv, 1);
    memcpy(out + off, iv, kBlock);
  }
}

// P_i = D(C_i) ^ C_{i-1}: the decryptions are independent, so a chunk is
// decrypted at once into tmp. Chaining runs backwards through the chunk so
// that in-place operation reads C_{i-1} before P_{i-1} overwrites it.
void cbc_decrypt(const BlockCipher& bc, const void* key, uint8_t iv[16], const uint8_t* in,
                 uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  uint8_t tmp[kChunkBlocks * kBlock], next_iv[kBlock];
  // Only what was used is wiped: a short message does not pay for 4 KiB.
  const size_t used = len / kBlock < kChunkBlocks ? len / kBlock * kBlock : sizeof tmp;
  for (size_t blocks = len / kBlock; blocks > 0;) {
    const size_t n = blocks < kChunkBlocks ? blocks : kChunkBlocks;
    bc.decrypt(key, in, tmp, n);
    memcpy(next_iv, in + (n - 1) * kBlock, kBlock);
    for (size_t i = n - 1; i > 0; --i)
      xor_bytes(tmp + i * kBlock, in + (i - 1) * kBlock, out + i * kBlock, kBlock);
    xor_bytes(tmp, iv, out, kBlock);
    memcpy(iv, next_iv, kBlock);
    in += n * kBlock;
    out += n * kBlock;
    blocks -= n;
  }
  secure_wipe(tmp, used);
}

void stream_init(StreamState* s, const uint8_t iv[16]) {
  memcpy(s->iv, iv, kBlock);
  memset(s->pad, 0, kBlock);
  s->used = 0;
}

namespace {

// The whole blocks of a CFB or OFB call that starts at a block boundary,
// through the cipher's chain (the state then stays at a boundary, s->iv
// the last C or O); returns the bytes done.
size_t chain_whole_blocks(const BlockCipher& bc, const void* key, ChainMode mode, StreamState* s,
                          const uint8_t* in, uint8_t* out, size_t len) {
  if (bc.chain == nullptr || s->used != 0 || len < kBlock) return 0;
  bc.chain(key, mode, s->iv, in, out, len / kBlock);
  return len / kBlock * kBlock;
}

}  // namespace

// CFB-128 encryption: C_i = P_i ^ E(C_{i-1}), serial. pad holds E(C_{i-1})
// XORed with the plaintext so far, i.e. the ciphertext block being built.
void cfb_encrypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
                 uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  size_t i = 0;
  auto bytewise_to = [&](size_t end) {
    for (; i < end; ++i) {
      if (s->used == 0) bc.encrypt(key, s->iv, s->pad, 1);
      out[i] = s->pad[s->used] ^= in[i];
      if (++s->used == kBlock) {
        memcpy(s->iv, s->pad, kBlock);
        s->used = 0;
      }
    }
  };
  if (s->used != 0) bytewise_to(len < kBlock - s->used ? len : kBlock - s->used);
  i += chain_whole_blocks(bc, key, ChainMode::kCfb, s, in + i, out + i, len - i);
  bytewise_to(len);
}

// CFB-128 decryption: P_i = C_i ^ E(C_{i-1}); the inputs of E are all
// ciphertext, so whole blocks go through the cipher a chunk at a time.
void cfb_decrypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
                 uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  auto bytewise = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (s->used == 0) bc.encrypt(key, s->iv, s->pad, 1);
      const uint8_t c = in[i];
      out[i] = s->pad[s->used] ^ c;
      s->pad[s->used] = c;
      if (++s->used == kBlock) {
        memcpy(s->iv, s->pad, kBlock);
        s->used = 0;
      }
    }
    in += n;
    out += n;
    len -= n;
  };
  if (s->used != 0) bytewise(len < kBlock - s->used ? len : kBlock - s->used);
  uint8_t feed[kChunkBlocks * kBlock];
  const size_t used = len / kBlock < kChunkBlocks ? len / kBlock * kBlock : sizeof feed;
  while (len >= kBlock) {
    const size_t n = len / kBlock < kChunkBlocks ? len / kBlock : kChunkBlocks;
    // E's inputs: the feedback block, then this chunk's ciphertext but the
    // last, copied before any output can overwrite them.
    memcpy(feed, s->iv, kBlock);
    memcpy(feed + kBlock, in, (n - 1) * kBlock);
    memcpy(s->iv, in + (n - 1) * kBlock, kBlock);
    bc.encrypt(key, feed, feed, n);
    xor_bytes(in, feed, out, n * kBlock);
    in += n * kBlock;
    out += n * kBlock;
    len -= n * kBlock;
  }
  secure_wipe(feed, used);
  bytewise(len);
}

// OFB: O_i = E(O_{i-1}), serial; pad is the current O.
void ofb_crypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
               uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  size_t i = 0;
  auto bytewise_to = [&](size_t end) {
    for (; i < end; ++i) {
      if (s->used == 0) {
        bc.encrypt(key, s->iv, s->iv, 1);
        memcpy(s->pad, s->iv, kBlock);
      }
      out[i] = in[i] ^ s->pad[s->used];
      s->used = (s->used + 1) % kBlock;
    }
  };
  if (s->used != 0) bytewise_to(len < kBlock - s->used ? len : kBlock - s->used);
  i += chain_whole_blocks(bc, key, ChainMode::kOfb, s, in + i, out + i, len - i);
  bytewise_to(len);
}

void ctr128_add(uint8_t counter[16], uint64_t n) {
  // Byte-wise from the end: the counter is public, its carries too.
  unsigned carry = 0;
  for (int i = 15; i >= 0; --i) {
    const unsigned sum = counter[i] + unsigned(n & 0xff) + carry;
    counter[i] = uint8_t(sum);
    carry = sum >> 8;
    n >>= 8;
  }
}

void ctr_crypt(const BlockCipher& bc, const void* key, StreamState* s, const uint8_t* in,
               uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  // The rest of a block begun by the previous call.
  for (; s->used != 0 && len > 0; --len) {
    *out++ = *in++ ^ s->pad[s->used];
    s->used = (s->used + 1) % kBlock;
  }
  const size_t whole = len / kBlock;
  if (whole != 0) bc.ctr(key, s->iv, in, out, whole);
  in += whole * kBlock;
  out += whole * kBlock;
  len -= whole * kBlock;
  if (len == 0) return;
  memset(s->pad, 0, kBlock);
  bc.ctr(key, s->iv, s->pad, s->pad, 1);  // the keystream block itself
  xor_bytes(in, s->pad, out, len);
  s->used = unsigned(len);
}

void pkcs7_last_block(const uint8_t* tail, size_t tail_len, uint8_t block[16]) {
  memcpy(block, tail, tail_len);
  memset(block + tail_len, int(kBlock - tail_len), kBlock - tail_len);
}

size_t pkcs7_padding_length(const uint8_t block[16]) {
  // Branch-free, so that the time taken tells nothing about the padding
  // (a CBC padding oracle through timing).
  const uint32_t n = block[15];
  uint32_t bad = (((n - 1) >> 8) | ((16 - n) >> 8)) & 1;  // n == 0 or n > 16
  for (uint32_t i = 0; i < kBlock; ++i) {
    const uint32_t in_pad = (15 - i - n) >> 31;         // i >= 16 - n
    bad |= in_pad & (((block[i] ^ n) + 0xff) >> 8);     // and block[i] != n
  }
  return size_t(n & (bad - 1));
}

// --- Stream -----------------------------------------------------------------

bool Stream::consistent() const {
  uint8_t flags[2];
  memcpy(&flags[0], &encrypt_, 1);
  memcpy(&flags[1], &pad_, 1);
  const int mode = int(mode_);
  return mode >= int(Mode::kEcb) && mode <= int(Mode::kCtr) && flags[0] <= 1 && flags[1] <= 1 &&
         buffered_ <= kBlock && stream_consistent(state_);
}

void Stream::init(Mode mode, bool encrypt, bool pad, const uint8_t iv[16]) {
  mode_ = mode;
  encrypt_ = encrypt;
  pad_ = pad && (mode == Mode::kEcb || mode == Mode::kCbc);
  static const uint8_t kZero[kBlock] = {};
  stream_init(&state_, mode != Mode::kEcb && iv != nullptr ? iv : kZero);  // ECB has no IV
  buffered_ = 0;
}

void Stream::crypt_whole(const BlockCipher& bc, const void* key, const uint8_t* in,
                         uint8_t* out, size_t len) {
  if (mode_ == Mode::kEcb) {
    encrypt_ ? ecb_encrypt(bc, key, in, out, len) : ecb_decrypt(bc, key, in, out, len);
  } else {
    encrypt_ ? cbc_encrypt(bc, key, state_.iv, in, out, len)
             : cbc_decrypt(bc, key, state_.iv, in, out, len);
  }
}

// ECB/CBC: whole blocks go through at once; a partial block waits in buf_.
// Decrypting with padding, the last whole block also waits: it may be the
// padded one, which only finish can tell.
size_t Stream::update_blocks(const BlockCipher& bc, const void* key, const uint8_t* in,
                             size_t len, uint8_t* out) {
  if (len == 0) return 0;
  const size_t hold = (pad_ && !encrypt_) ? 1 : 0;
  size_t written = 0;
  if (buffered_ != 0 && buffered_ < kBlock) {
    const size_t take = len < kBlock - buffered_ ? len : kBlock - buffered_;
    memcpy(buf_ + buffered_, in, take);
    buffered_ += take;
    in += take;
    len -= take;
  }
  if (buffered_ == kBlock && (len > 0 || hold == 0)) {
    crypt_whole(bc, key, buf_, out, kBlock);
    written += kBlock;
    buffered_ = 0;
  }
  // Whole blocks straight from in to out, keeping back what must wait.
  size_t whole = len / kBlock * kBlock;
  if (hold != 0 && whole == len && whole != 0) whole -= kBlock;
  crypt_whole(bc, key, in, out + written, whole);
  written += whole;
  memcpy(buf_ + buffered_, in + whole, len - whole);
  buffered_ += len - whole;
  return written;
}

size_t Stream::update(const BlockCipher& bc, const void* key, const uint8_t* in, size_t len,
                      uint8_t* out) {
  switch (mode_) {
    case Mode::kEcb:
    case Mode::kCbc:
      return update_blocks(bc, key, in, len, out);
    case Mode::kCfb:
      encrypt_ ? cfb_encrypt(bc, key, &state_, in, out, len)
               : cfb_decrypt(bc, key, &state_, in, out, len);
      return len;
    case Mode::kOfb:
      ofb_crypt(bc, key, &state_, in, out, len);
      return len;
    case Mode::kCtr:
      ctr_crypt(bc, key, &state_, in, out, len);
      return len;
  }
  return 0;
}

Status Stream::finish(const BlockCipher& bc, const void* key, uint8_t* out, size_t* out_len) {
  *out_len = 0;
  if (mode_ != Mode::kEcb && mode_ != Mode::kCbc) return Status::kOk;
  Status st = Status::kOk;
  if (!pad_) {
    st = buffered_ == 0 ? Status::kOk : Status::kPartialBlock;
  } else if (encrypt_) {
    uint8_t last[kBlock];
    pkcs7_last_block(buf_, buffered_, last);
    crypt_whole(bc, key, last, out, kBlock);
    *out_len = kBlock;
  } else if (buffered_ != kBlock) {
    st = Status::kPartialBlock;
  } else {
    uint8_t last[kBlock];
    crypt_whole(bc, key, buf_, last, kBlock);
    size_t pad = pkcs7_padding_length(last);
    // The verdict and the length it implies are what the call returns.
    ct_declassify(&pad, sizeof pad);
    if (pad == 0) {
      st = Status::kBadPadding;
    } else {
      memcpy(out, last, kBlock - pad);
      *out_len = kBlock - pad;
    }
    secure_wipe(last, sizeof last);
  }
  secure_wipe(buf_, sizeof buf_);
  buffered_ = 0;
  return st;
}

}  // namespace modes
}  // namespace ks
