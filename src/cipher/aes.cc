#include "cipher/aes.h"

#include <string.h>

#include "core/secure.h"

namespace ks {
namespace aes {
namespace {

// x * 2 in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 4.2.1), masks
// instead of a branch on the top bit.
inline uint8_t xtime(uint8_t a) { return uint8_t((a << 1) ^ (0x1b & -(a >> 7))); }

// a * b in GF(2^8): eight conditional additions under masks.
inline uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    r ^= uint8_t(a & -((b >> i) & 1));
    a = xtime(a);
  }
  return r;
}

// x^254 = x^-1 (and 0 for 0), by 4 multiplications and 7 squarings.
inline uint8_t gf_inverse(uint8_t x) {
  const uint8_t x2 = gf_mul(x, x), x3 = gf_mul(x2, x), x6 = gf_mul(x3, x3),
                x12 = gf_mul(x6, x6), x15 = gf_mul(x12, x3);
  uint8_t x240 = x15;
  for (int i = 0; i < 4; ++i) x240 = gf_mul(x240, x240);
  return gf_mul(gf_mul(x240, x12), x2);
}

inline uint8_t rotl8(uint8_t x, int n) { return uint8_t((x << n) | (x >> (8 - n))); }

// FIPS 197 5.1.1 and 5.3.2: the affine map after the inversion, and its
// inverse before it.
inline uint8_t sub_byte(uint8_t x) {
  const uint8_t b = gf_inverse(x);
  return uint8_t(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63);
}
inline uint8_t inv_sub_byte(uint8_t s) {
  return gf_inverse(uint8_t(rotl8(s, 1) ^ rotl8(s, 3) ^ rotl8(s, 6) ^ 0x05));
}

// The state as 16 bytes, column-major: s[r + 4c] (FIPS 197 3.4).
void add_round_key(uint8_t s[16], const uint8_t* rk) {
  for (int i = 0; i < 16; ++i) s[i] ^= rk[i];
}

// Row r rotated left by `dir * r` columns (dir 1: ShiftRows, 3: its inverse).
void shift_rows(uint8_t s[16], int dir) {
  uint8_t t[16];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) t[r + 4 * c] = s[r + 4 * ((c + dir * r) & 3)];
  memcpy(s, t, 16);
}

void mix_columns(uint8_t s[16]) {
  for (int c = 0; c < 4; ++c) {
    uint8_t* a = s + 4 * c;
    const uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], all = a0 ^ a1 ^ a2 ^ a3;
    a[0] = uint8_t(a0 ^ all ^ xtime(a0 ^ a1));
    a[1] = uint8_t(a1 ^ all ^ xtime(a1 ^ a2));
    a[2] = uint8_t(a2 ^ all ^ xtime(a2 ^ a3));
    a[3] = uint8_t(a3 ^ all ^ xtime(a3 ^ a0));
  }
}

// FIPS 197 5.3.3: each column times {0e, 0b, 0d, 09} circulant.
void inv_mix_columns(uint8_t s[16]) {
  for (int c = 0; c < 4; ++c) {
    uint8_t* a = s + 4 * c;
    uint8_t b[4];
    for (int r = 0; r < 4; ++r)
      b[r] = uint8_t(gf_mul(a[r], 0x0e) ^ gf_mul(a[(r + 1) & 3], 0x0b) ^
                     gf_mul(a[(r + 2) & 3], 0x0d) ^ gf_mul(a[(r + 3) & 3], 0x09));
    memcpy(a, b, 4);
  }
}

void encrypt_block(const Key& k, const uint8_t in[16], uint8_t out[16]) {
  uint8_t s[16];
  memcpy(s, in, 16);
  add_round_key(s, k.round_keys);
  for (int round = 1; round <= k.rounds; ++round) {
    for (uint8_t& b : s) b = sub_byte(b);
    shift_rows(s, 1);
    if (round != k.rounds) mix_columns(s);  // the round number is public
    add_round_key(s, k.round_keys + 16 * round);
  }
  memcpy(out, s, 16);
  secure_wipe(s, sizeof s);
}

void decrypt_block(const Key& k, const uint8_t in[16], uint8_t out[16]) {
  uint8_t s[16];
  memcpy(s, in, 16);
  add_round_key(s, k.round_keys + 16 * k.rounds);
  for (int round = k.rounds - 1; round >= 0; --round) {
    shift_rows(s, 3);
    for (uint8_t& b : s) b = inv_sub_byte(b);
    add_round_key(s, k.round_keys + 16 * round);
    if (round != 0) inv_mix_columns(s);
  }
  memcpy(out, s, 16);
  secure_wipe(s, sizeof s);
}

}  // namespace

// FIPS 197 5.2: w[i] = w[i - Nk] ^ f(w[i - 1]), f = SubWord(RotWord(.)) ^
// Rcon at multiples of Nk, SubWord at i = 4 mod 8 for 256-bit keys.
bool set_key(Key* k, const uint8_t* key, size_t key_len) {
  if (key_len != 16 && key_len != 24 && key_len != 32) return false;
  const int nk = int(key_len / 4);
  k->rounds = nk + 6;
  uint8_t* w = k->round_keys;
  memcpy(w, key, key_len);
  uint8_t rcon = 1;
  for (int i = nk; i < 4 * (k->rounds + 1); ++i) {
    uint8_t t[4];
    memcpy(t, w + 4 * (i - 1), 4);
    if (i % nk == 0) {
      const uint8_t t0 = t[0];
      t[0] = uint8_t(sub_byte(t[1]) ^ rcon);
      t[1] = sub_byte(t[2]);
      t[2] = sub_byte(t[3]);
      t[3] = sub_byte(t0);
      rcon = xtime(rcon);
    } else if (nk > 6 && i % nk == 4) {
      for (uint8_t& b : t) b = sub_byte(b);
    }
    for (int j = 0; j < 4; ++j) w[4 * i + j] = uint8_t(w[4 * (i - nk) + j] ^ t[j]);
    secure_wipe(t, sizeof t);
  }
  return true;
}

void wipe_key(Key* k) { secure_wipe(k, sizeof *k); }

void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) encrypt_block(k, in + 16 * i, out + 16 * i);
}

void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
  for (size_t i = 0; i < nblocks; ++i) decrypt_block(k, in + 16 * i, out + 16 * i);
}

// 128-bit big-endian counter blocks (modes.h's CTR), one at a time.
void ctr_blocks(const Key& k, uint8_t counter[16], const uint8_t* in, uint8_t* out,
                size_t nblocks) {
  uint8_t pad[16];
  for (size_t i = 0; i < nblocks; ++i) {
    encrypt_block(k, counter, pad);
    modes::ctr128_add(counter, 1);
    for (int j = 0; j < 16; ++j) out[16 * i + j] = uint8_t(in[16 * i + j] ^ pad[j]);
  }
  secure_wipe(pad, sizeof pad);
}

const BlockCipher& block_cipher() {
  return block_cipher_of<Key, encrypt_blocks, decrypt_blocks, ctr_blocks>();
}

}  // namespace aes
}  // namespace ks
