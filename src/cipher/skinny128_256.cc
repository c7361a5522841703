// SKINNY-128-256 on the CPU, portable: one block at a time through the
// shared round function (the rows' S-box circuit is constant time). The
// table-based baseline sits beside it, sharing everything but SubCells.
#include "cipher/skinny128_256.h"

#include <string.h>

#include "core/secure.h"

namespace ks {
namespace skinny {

void set_key(Key* k, const uint8_t tweakey[kTweakeyBytes]) { expand_tweakey(k->rtk, tweakey); }

void wipe_key(Key* k) { secure_wipe(k, sizeof *k); }

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) encrypt_block(k.rtk, in + 16 * i, out + 16 * i);
}

void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) decrypt_block(k.rtk, in + 16 * i, out + 16 * i);
}

namespace {

// CTR over a one-block encryption: counter blocks, encrypted, XORed in.
template <void (*Encrypt)(const Key&, const uint8_t*, uint8_t*, size_t)>
void ctr_with(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
              size_t nblocks) {
  uint8_t pad[16];
  for (size_t i = 0; i < nblocks; ++i) {
    Encrypt(k, counter, pad, 1);
    modes::ctr128_add(counter, 1);
    for (int j = 0; j < 16; ++j) out[16 * i + j] = uint8_t(in[16 * i + j] ^ pad[j]);
  }
  secure_wipe(pad, sizeof pad);
}

// S8 as a table, made from the circuit once.
struct SboxTable {
  uint8_t s[256];
  SboxTable() {
    for (uint32_t x = 0; x < 256; ++x) s[x] = uint8_t(sub_cells(x));
  }
};

// SubCells through the table: the baseline's only difference.
struct TableSbox {
  const uint8_t* s;
  uint32_t operator()(uint32_t w) const {
    return uint32_t(s[w & 0xFF]) | uint32_t(s[(w >> 8) & 0xFF]) << 8 |
           uint32_t(s[(w >> 16) & 0xFF]) << 16 | uint32_t(s[w >> 24]) << 24;
  }
};

}  // namespace

void ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                size_t nblocks) {
  ctr_with<encrypt_blocks>(k, counter, in, out, nblocks);
}

const BlockCipher& block_cipher() {
  return block_cipher_of<Key, encrypt_blocks, decrypt_blocks, ctr_blocks>();
}

void table_encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  static const SboxTable kTable;
  for (size_t i = 0; i < nblocks; ++i)
    encrypt_block(k.rtk, in + 16 * i, out + 16 * i, TableSbox{kTable.s});
}

void table_ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                      size_t nblocks) {
  ctr_with<table_encrypt_blocks>(k, counter, in, out, nblocks);
}

}  // namespace skinny
}  // namespace ks
