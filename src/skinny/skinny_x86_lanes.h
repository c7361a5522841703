// SKINNY-128-256 over vector lanes: each 32-bit lane of a vector holds one
// row of one block, four vectors the state of kLanes blocks, and the
// round function of skinny128_256_core.h runs on them unchanged (its row
// functions are templates; GCC/clang vector extensions apply the
// operators lane by lane). Included by one x86 file per instruction set,
// inside its target region (core/x86_target_begin.h), after defining the
// vector type.
#ifndef KS_CIPHER_SKINNY_X86_LANES_H_
#define KS_CIPHER_SKINNY_X86_LANES_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cipher/modes.h"
#include "skinny/skinny128_256_core.h"
#include "core/endian.h"
#include "core/secure.h"

namespace ks {
namespace skinny {

// SubCells with GFNI's gf2p8affineqb (any 8x8 bit matrix on every byte,
// then a constant XORed in: Affine::apply<c>(x, matrix)) doing the bit
// permutations between the circuit's steps and half of each step's
// operands, which the shift units would otherwise carry alone (shifts are
// the bottleneck of the plain circuit on vectors). Matrices: output bit i
// of a byte is the parity of the matrix's byte 7 - i and the input byte.
template <class V, class Affine>
struct AffinePermuteSbox {
  // (x7..x0) <- (x2, x1, x7, x6, x4, x0, x3, x5), as sbox_permute.
  static constexpr uint64_t kPermute = 0x2008011040800204ull;
  // x1 and x2 swapped, as sbox_swap12.
  static constexpr uint64_t kSwap12 = 0x0104020810204080ull;
  // bit 0 <- x3, bit 4 <- x7, the rest 0; with the constant 0x11: NOT x3, NOT x7.
  static constexpr uint64_t kPickX3X7 = 0x0800000080000000ull;

  // sbox_step: x0 ^= NOT x3 AND NOT x2, x4 ^= NOT x7 AND NOT x6. The
  // affine gives the NOT x3 / NOT x7 bits (zero elsewhere, so no mask is
  // needed), a shift lines x2 / x6 up under them: one ternary logic op.
  static V step(V w) {
    const V not_x3_x7 = Affine::template apply<0x11>(w, kPickX3X7);
    return w ^ (not_x3_x7 & ~(w >> 2));
  }
  V operator()(V w) const {
    for (int i = 0; i < 3; ++i) w = Affine::template apply<0>(step(w), kPermute);
    return Affine::template apply<0>(step(w), kSwap12);
  }
};

// V: a vector of kLanes uint32_t; Sbox: SubCells for encryption (the
// circuit, or AffinePermuteSbox where the CPU has GFNI).
template <class V, int kLanes, class Sbox = CircuitSbox>
struct Lanes {
  // Rows r of blocks 0..kLanes-1 into s[r]: a 4 x kLanes transpose of
  // little-endian words, through memory (a few operations per block
  // beside the ~1000 of its rounds).
  static void load(V s[4], const uint8_t* in) {
    alignas(64) uint32_t rows[4][kLanes];
    for (int j = 0; j < kLanes; ++j)
      for (int r = 0; r < 4; ++r) {
        const uint8_t* p = in + 16 * j + 4 * r;
        rows[r][j] = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
                     uint32_t(p[3]) << 24;
      }
    for (int r = 0; r < 4; ++r) memcpy(&s[r], rows[r], sizeof(V));
    secure_wipe(rows, sizeof rows);
  }

  // The inverse of load, XORed with `with` when it is not null (CTR).
  static void store(uint8_t* out, const V s[4], const uint8_t* with) {
    alignas(64) uint32_t rows[4][kLanes];
    for (int r = 0; r < 4; ++r) memcpy(rows[r], &s[r], sizeof(V));
    for (int j = 0; j < kLanes; ++j)
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          const size_t at = 16 * j + 4 * r + c;
          const uint8_t b = uint8_t(rows[r][j] >> (8 * c));
          out[at] = with != nullptr ? uint8_t(with[at] ^ b) : b;
        }
    secure_wipe(rows, sizeof rows);
  }

  static void encrypt(const RoundTweakeys& k, const uint8_t* in, uint8_t* out,
                      const uint8_t* with) {
    V s[4];
    load(s, in);
    for (int i = 0; i < kRounds; ++i) round(s, k.rows[i], Sbox());
    store(out, s, with);
  }

  // Two groups with their rounds side by side: a round's S-box is a chain
  // of dependent steps, and one group's four rows do not fill the pipes.
  static void encrypt2(const RoundTweakeys& k, const uint8_t* in, uint8_t* out,
                       const uint8_t* with) {
    V s[4], t[4];
    load(s, in);
    load(t, in + 16 * kLanes);
    for (int i = 0; i < kRounds; ++i) {
      round(s, k.rows[i], Sbox());
      round(t, k.rows[i], Sbox());
    }
    store(out, s, with);
    store(out + 16 * kLanes, t, with == nullptr ? nullptr : with + 16 * kLanes);
  }

  static void decrypt(const RoundTweakeys& k, const uint8_t* in, uint8_t* out) {
    V s[4];
    load(s, in);
    for (int i = kRounds - 1; i >= 0; --i) inv_round(s, k.rows[i]);
    store(out, s, nullptr);
  }

  static void crypt_group(const RoundTweakeys& k, bool enc, const uint8_t* in, uint8_t* out) {
    if (enc) {
      encrypt(k, in, out, nullptr);
    } else {
      decrypt(k, in, out);
    }
  }

  // Every block: two groups side by side, then one, then the last few in
  // a zero-padded group (one group costs less than a few blocks through
  // the one-block code). Returns nblocks.
  static size_t crypt_blocks(const RoundTweakeys& k, bool enc, const uint8_t* in, uint8_t* out,
                             size_t nblocks) {
    size_t done = 0;
    if (enc)
      for (; nblocks - done >= 2 * kLanes; done += 2 * kLanes)
        encrypt2(k, in + 16 * done, out + 16 * done, nullptr);
    for (; nblocks - done >= kLanes; done += kLanes)
      crypt_group(k, enc, in + 16 * done, out + 16 * done);
    if (done < nblocks) {
      alignas(64) uint8_t buf[16 * kLanes] = {};
      const size_t rest = 16 * (nblocks - done);
      memcpy(buf, in + 16 * done, rest);
      crypt_group(k, enc, buf, buf);
      memcpy(out + 16 * done, buf, rest);
      secure_wipe(buf, sizeof buf);
    }
    return nblocks;
  }

  // One group under a tweak per block: TK1 of block j is tweaks[16 j ..
  // 16 j + 16), the round tweakeys per lane from TK2's schedule k2.
  static void tweaked_group(const RoundTweakeys& k2, bool enc, const uint8_t* tweaks,
                            const uint8_t* in, uint8_t* out) {
    V tk1[4], rows[kRounds][2], s[4];
    load(tk1, tweaks);
    add_tk1(rows, k2, tk1);
    load(s, in);
    if (enc) {
      for (int i = 0; i < kRounds; ++i) round(s, rows[i], Sbox());
    } else {
      for (int i = kRounds - 1; i >= 0; --i) inv_round(s, rows[i]);
    }
    store(out, s, nullptr);
    secure_wipe(rows, sizeof rows);
    secure_wipe(tk1, sizeof tk1);
  }

  // Every block under its own tweak, a last partial group zero-padded.
  // Returns nblocks.
  static size_t tweaked_blocks(const RoundTweakeys& k2, bool enc, const uint8_t* tweaks,
                               const uint8_t* in, uint8_t* out, size_t nblocks) {
    size_t done = 0;
    for (; nblocks - done >= kLanes; done += kLanes)
      tweaked_group(k2, enc, tweaks + 16 * done, in + 16 * done, out + 16 * done);
    if (done < nblocks) {
      alignas(64) uint8_t t[16 * kLanes] = {}, buf[16 * kLanes] = {};
      const size_t rest = 16 * (nblocks - done);
      memcpy(t, tweaks + 16 * done, rest);
      memcpy(buf, in + 16 * done, rest);
      tweaked_group(k2, enc, t, buf, buf);
      memcpy(out + 16 * done, buf, rest);
      secure_wipe(t, sizeof t);
      secure_wipe(buf, sizeof buf);
    }
    return nblocks;
  }

  // n counter blocks from the 128-bit counter (as two 64-bit halves),
  // which then advances by n.
  static void counter_blocks(uint8_t counter[16], uint8_t* blocks, size_t n) {
    const uint64_t hi = load_be64(counter), lo = load_be64(counter + 8);
    for (size_t j = 0; j < n; ++j) {
      store_be64(blocks + 16 * j, hi + (lo + j < lo));
      store_be64(blocks + 16 * j + 8, lo + j);
    }
    modes::ctr128_add(counter, n);
  }

  // CTR two groups at a time, then one, then a last partial group (its
  // keystream XORed into the few blocks left). Returns nblocks.
  static size_t ctr_blocks(const RoundTweakeys& k, uint8_t counter[16], const uint8_t* in,
                           uint8_t* out, size_t nblocks) {
    alignas(64) uint8_t counters[2 * 16 * kLanes] = {};
    size_t done = 0;
    for (; nblocks - done >= 2 * kLanes; done += 2 * kLanes) {
      counter_blocks(counter, counters, 2 * kLanes);
      encrypt2(k, counters, out + 16 * done, in + 16 * done);
    }
    for (; nblocks - done >= kLanes; done += kLanes) {
      counter_blocks(counter, counters, kLanes);
      encrypt(k, counters, out + 16 * done, in + 16 * done);
    }
    if (done < nblocks) {
      const size_t rest = nblocks - done;
      counter_blocks(counter, counters, rest);
      encrypt(k, counters, counters, nullptr);  // the keystream; unused lanes are spare
      for (size_t i = 0; i < 16 * rest; ++i) out[16 * done + i] = in[16 * done + i] ^ counters[i];
    }
    secure_wipe(counters, sizeof counters);
    return nblocks;
  }
};

}  // namespace skinny
}  // namespace ks

#endif  // KS_CIPHER_SKINNY_X86_LANES_H_
