// SKINNY-128-256 on the CPU, portable: one block at a time through the
// shared round function (the rows' S-box circuit is constant time). The
// table-based baseline sits beside it, sharing everything but SubCells.
#include "skinny/skinny128_256.h"

#include <string.h>

#include "skinny/skinny_x86_kernels.h"
#include "core/cpu_features.h"
#include "core/secure.h"

namespace ks {
namespace skinny {

void set_key(Key* k, const uint8_t tweakey[kTweakeyBytes]) { expand_tweakey(k->rtk, tweakey); }

void wipe_key(Key* k) { secure_wipe(k, sizeof *k); }

namespace {

// The widest vector kernel the CPU has (KS_CPU_FEATURES masks it), or
// none: the rows of 16 or 8 blocks side by side in 32-bit lanes.
const KernelFns* vector_kernel() {
#if KS_SKINNY_X86
  const CpuFeatures& f = cpu_features();
  const bool avx512 = f.avx2 && f.avx512f && f.avx512bw && f.avx512vl;
  if (avx512 && f.gfni) return &kGfniAvx512;
  if (avx512) return &kAvx512;
  if (f.avx2 && f.gfni) return &kGfniAvx2;
  if (f.avx2) return &kAvx2;
#endif
  return nullptr;
}

const KernelFns* chosen_kernel() {
  static const KernelFns* const kChosen = vector_kernel();
  return kChosen;
}

}  // namespace

const char* kernel_name() {
#if KS_SKINNY_X86
  if (chosen_kernel() == &kGfniAvx512) return "gfni-avx512";
  if (chosen_kernel() == &kAvx512) return "avx512";
  if (chosen_kernel() == &kGfniAvx2) return "gfni-avx2";
  if (chosen_kernel() == &kAvx2) return "avx2";
#endif
  return "portable";
}

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  size_t i = 0;
  if (const KernelFns* v = chosen_kernel()) i = v->crypt_blocks(k.rtk, true, in, out, nblocks);
  for (; i < nblocks; ++i) encrypt_block(k.rtk, in + 16 * i, out + 16 * i);
}

void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  size_t i = 0;
  if (const KernelFns* v = chosen_kernel()) i = v->crypt_blocks(k.rtk, false, in, out, nblocks);
  for (; i < nblocks; ++i) decrypt_block(k.rtk, in + 16 * i, out + 16 * i);
}

void tweaked_blocks(const Key& k2, bool encrypt, const uint8_t* tweaks, const uint8_t* in,
                    uint8_t* out, size_t nblocks) {
  size_t i = 0;
  if (const KernelFns* v = chosen_kernel())
    i = v->tweaked_blocks(k2.rtk, encrypt, tweaks, in, out, nblocks);
  for (; i < nblocks; ++i) {
    uint32_t tk1[4];
    Key k;
    load_state(tk1, tweaks + 16 * i);
    add_tk1(k.rtk.rows, k2.rtk, tk1);
    (encrypt ? encrypt_blocks : decrypt_blocks)(k, in + 16 * i, out + 16 * i, 1);
    wipe_key(&k);
    secure_wipe(tk1, sizeof tk1);
  }
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
  size_t i = 0;
  if (const KernelFns* v = chosen_kernel()) i = v->ctr_blocks(k.rtk, counter, in, out, nblocks);
  ctr_with<encrypt_blocks>(k, counter, in + 16 * i, out + 16 * i, nblocks - i);
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
