// GCM (NIST SP 800-38D 7.1-7.2) over BlockCipher.
#include "cipher/gcm.h"

#include <string.h>

#include "core/cpu_features.h"
#include "core/secure.h"

namespace ks {
namespace gcm {
namespace {

// CTR and GHASH alternate over chunks that stay in L1: 384 blocks, a
// whole number of every CTR kernel's widest step (96 blocks for 6 groups
// of 16 on AVX-512, 64 or 48 on AVX2), so no chunk ends in the narrower,
// latency-bound steps (4096 bytes cost the 6-group kernel 5%).
constexpr size_t kChunkBytes = 6144;

void put_be64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}

uint32_t get_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// GCTR's counter blocks step with inc32 (SP 800-38D 6.2, 6.5): only the low
// 32 bits count, modulo 2^32. The policy's CTR counts 128 bits, so runs are
// cut where the low word wraps and the upper 96 bits put back. With a
// 96-bit IV the counter is public (IV || 2, 3, ...). With other IV lengths
// J0 = GHASH_H(IV) depends on the key, and where the cut falls (here and in
// the kernels' wrap path) follows its low word, as in OpenSSL and
// BoringSSL: one more reason to prefer 96-bit IVs (SP 800-38D 8.2).
void gctr_blocks(const BlockCipher& bc, const void* key, uint8_t counter[16], const uint8_t* in,
                 uint8_t* out, size_t nblocks) {
  while (nblocks > 0) {
    const uint64_t room = (uint64_t(1) << 32) - get_be32(counter + 12);
    const size_t n = nblocks < room ? nblocks : size_t(room);
    uint8_t upper[12];
    memcpy(upper, counter, 12);
    bc.ctr(key, counter, in, out, n);
    memcpy(counter, upper, 12);
    in += 16 * n;
    out += 16 * n;
    nblocks -= n;
  }
}

void inc32(uint8_t block[16]) {
  for (int i = 15; i >= 12 && ++block[i] == 0; --i) {
  }
}

}  // namespace

bool valid_iv_length(size_t iv_len) { return iv_len >= 1 && uint64_t(iv_len) <= kMaxIvBytes; }
bool valid_tag_length(size_t tag_len) { return tag_len >= kMinTagBytes && tag_len <= kTagBytes; }

bool Gcm::init(const BlockCipher& bc, const void* key, const uint8_t* iv, size_t iv_len,
               const ghash::Variant& ghash_variant) {
  if (!valid_iv_length(iv_len)) return false;
  uint8_t h[16] = {};
  bc.encrypt(key, h, h, 1);  // H = E(0^128)
  ghash::init(&hkey_, h, ghash_variant);
  secure_wipe(h, sizeof h);
  memset(y_, 0, sizeof y_);
  // J0 (7.1 step 2): IV || 0^31 || 1 for 96-bit IVs, else
  // GHASH(IV || 0^(s+64) || [len(IV)]_64).
  uint8_t j0[16] = {};
  if (iv_len == 12) {
    memcpy(j0, iv, 12);
    j0[15] = 1;
  } else {
    ghash::blocks(hkey_, j0, iv, iv_len / 16);
    uint8_t last[16] = {};
    memcpy(last, iv + iv_len / 16 * 16, iv_len % 16);
    if (iv_len % 16 != 0) ghash::blocks(hkey_, j0, last, 1);
    memset(last, 0, sizeof last);
    put_be64(last + 8, uint64_t(iv_len) * 8);
    ghash::blocks(hkey_, j0, last, 1);
  }
  memcpy(counter_, j0, 16);
  bc.encrypt(key, j0, ek_j0_, 1);
  inc32(counter_);
  ks_used_ = partial_len_ = 0;
  aad_len_ = text_len_ = 0;
  text_started_ = false;
  return true;
}

// GHASH over a byte string cut anywhere: whole blocks straight from data,
// the rest kept in partial_ until it fills or the section ends.
void Gcm::hash_bytes(const uint8_t* data, size_t len) {
  if (len == 0) return;  // data may be null then
  if (partial_len_ != 0) {
    const size_t take = len < 16 - partial_len_ ? len : 16 - partial_len_;
    memcpy(partial_ + partial_len_, data, take);
    partial_len_ += unsigned(take);
    data += take;
    len -= take;
    if (partial_len_ < 16) return;
    ghash::blocks(hkey_, y_, partial_, 1);
    partial_len_ = 0;
  }
  ghash::blocks(hkey_, y_, data, len / 16);
  memcpy(partial_, data + len / 16 * 16, len % 16);
  partial_len_ = unsigned(len % 16);
}

// The end of a section (AAD or text): zero-pad its last block.
void Gcm::flush_partial() {
  if (partial_len_ == 0) return;
  memset(partial_ + partial_len_, 0, 16 - partial_len_);
  ghash::blocks(hkey_, y_, partial_, 1);
  partial_len_ = 0;
}

bool Gcm::consistent() const {
  uint8_t started;
  memcpy(&started, &text_started_, 1);  // a bool of another value is UB to load
  return ks_used_ < 16 && partial_len_ < 16 && started <= 1 && aad_len_ <= kMaxAadBytes &&
         text_len_ <= kMaxTextBytes && is_usable_variant(hkey_.variant, ghash::variants);
}

bool Gcm::aad(const uint8_t* data, size_t len) {
  if (text_started_ || len > kMaxAadBytes - aad_len_) return false;
  aad_len_ += len;
  hash_bytes(data, len);
  return true;
}

bool Gcm::begin_text(size_t len) {
  if (len > kMaxTextBytes - text_len_) return false;
  if (!text_started_) {
    flush_partial();
    text_started_ = true;
  }
  text_len_ += len;
  return true;
}

void Gcm::keystream_xor(const BlockCipher& bc, const void* key, const uint8_t* in,
                        uint8_t* out, size_t len) {
  if (len == 0) return;  // in and out may be null then
  for (; ks_used_ != 0 && len > 0; --len) {
    *out++ = *in++ ^ ks_[ks_used_];
    ks_used_ = (ks_used_ + 1) % 16;
  }
  const size_t whole = len / 16;
  gctr_blocks(bc, key, counter_, in, out, whole);
  in += 16 * whole;
  out += 16 * whole;
  len -= 16 * whole;
  if (len == 0) return;
  memset(ks_, 0, 16);
  gctr_blocks(bc, key, counter_, ks_, ks_, 1);
  for (size_t i = 0; i < len; ++i) out[i] = in[i] ^ ks_[i];
  ks_used_ = unsigned(len);
}

bool Gcm::encrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                  size_t len) {
  if (!begin_text(len)) return false;
  for (size_t off = 0; off < len; off += kChunkBytes) {
    const size_t n = len - off < kChunkBytes ? len - off : kChunkBytes;
    keystream_xor(bc, key, in + off, out + off, n);
    hash_bytes(out + off, n);
  }
  return true;
}

bool Gcm::decrypt(const BlockCipher& bc, const void* key, const uint8_t* in, uint8_t* out,
                  size_t len) {
  if (!begin_text(len)) return false;
  for (size_t off = 0; off < len; off += kChunkBytes) {
    const size_t n = len - off < kChunkBytes ? len - off : kChunkBytes;
    hash_bytes(in + off, n);  // before an in-place decryption overwrites it
    keystream_xor(bc, key, in + off, out + off, n);
  }
  return true;
}

bool Gcm::absorb_ciphertext(const uint8_t* in, size_t len) {
  if (!begin_text(len)) return false;
  hash_bytes(in, len);
  return true;
}

void Gcm::tag(uint8_t out[kTagBytes]) {
  if (!text_started_) begin_text(0);
  flush_partial();
  uint8_t lengths[16];
  put_be64(lengths, aad_len_ * 8);
  put_be64(lengths + 8, text_len_ * 8);
  ghash::blocks(hkey_, y_, lengths, 1);
  for (int i = 0; i < 16; ++i) out[i] = y_[i] ^ ek_j0_[i];
}

bool Gcm::verify(const uint8_t* expected, size_t tag_len) {
  if (!valid_tag_length(tag_len)) return false;
  uint8_t t[kTagBytes];
  tag(t);
  uint8_t diff = 0;
  for (size_t i = 0; i < tag_len; ++i) diff |= t[i] ^ expected[i];
  secure_wipe(t, sizeof t);
  ct_declassify(&diff, sizeof diff);  // the verdict is the call's public result
  return diff == 0;
}

void Gcm::wipe() { secure_wipe(this, sizeof *this); }

bool seal(const BlockCipher& bc, const void* key, const uint8_t* iv, size_t iv_len,
          const uint8_t* aad, size_t aad_len, const uint8_t* in, size_t len, uint8_t* out,
          uint8_t* tag, size_t tag_len) {
  if (!valid_tag_length(tag_len) || uint64_t(len) > kMaxTextBytes) return false;
  Gcm g;
  bool ok = g.init(bc, key, iv, iv_len) && g.aad(aad, aad_len) && g.encrypt(bc, key, in, out, len);
  if (ok) {
    uint8_t full[kTagBytes];
    g.tag(full);
    memcpy(tag, full, tag_len);
  }
  g.wipe();
  return ok;
}

bool open(const BlockCipher& bc, const void* key, const uint8_t* iv, size_t iv_len,
          const uint8_t* aad, size_t aad_len, const uint8_t* in, size_t len,
          const uint8_t* tag, size_t tag_len, uint8_t* out) {
  if (!valid_tag_length(tag_len) || uint64_t(len) > kMaxTextBytes) return false;
  Gcm g;
  bool ok = g.init(bc, key, iv, iv_len) && g.aad(aad, aad_len);
  // Authenticate first, then decrypt (two passes over the ciphertext): no
  // plaintext exists unless the tag matched.
  Gcm keystream = g;  // the counter where the text begins
  ok = ok && g.absorb_ciphertext(in, len) && g.verify(tag, tag_len);
  if (ok) keystream.keystream_xor(bc, key, in, out, len);
  g.wipe();
  keystream.wipe();
  return ok;
}

}  // namespace gcm
}  // namespace ks
