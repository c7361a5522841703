// Inputs shared by the GF(2^255 - 19) tests of every backend (the host
// emulation of the DPF field, both GPU fields): values at the fields'
// bounds and raw DPF limbs at the DPF invariant's maxima, with their
// values computed by the CPU field (the oracle).
#ifndef KS_TESTS_FE25519_TEST_VALUES_H_
#define KS_TESTS_FE25519_TEST_VALUES_H_

#include <stdint.h>

#include <random>
#include <vector>

#include "field/fe25519.h"

namespace ks_test {

// Values that stress every representation's bounds: near 0, p, 2^255 and
// 2^256, limbs of radix 2^51 and 2^32 at their maxima.
constexpr ks::field::U256 kFe25519Edges[] = {
    {{0, 0, 0, 0}},
    {{1, 0, 0, 0}},
    {{37, 0, 0, 0}},
    {{0xFFFFFFFFFFFFFFECull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}},  // p - 1
    {{0xFFFFFFFFFFFFFFEDull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}},  // p
    {{0xFFFFFFFFFFFFFFEEull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}},  // p + 1
    {{~0ull, ~0ull, ~0ull, 0x7FFFFFFFFFFFFFFFull}},                  // 2^255 - 1
    {{0, 0, 0, 0x8000000000000000ull}},                              // 2^255
    {{0xFFFFFFFFFFFFFFDAull, ~0ull, ~0ull, ~0ull}},                  // 2^256 - 38
    {{~0ull, ~0ull, ~0ull, ~0ull}},                                  // 2^256 - 1
    {{0x0007FFFFFFFFFFFFull, 0, 0, 0}},                              // radix-2^51 limb 0 full
    {{0xFFFFFFFFFFFFFFFFull, 0x3FFFFFFFFFFull, 0, 0}},               // limbs 0-1 full
    {{0, 0, 0, 0x7FFFF00000000000ull}},
};
constexpr size_t kFe25519EdgeCount = sizeof(kFe25519Edges) / sizeof(kFe25519Edges[0]);

// An edge value half the time, otherwise random 256 bits (some above 2^255).
inline ks::field::U256 edge_or_random(std::mt19937_64& rng) {
  const uint64_t pick = rng() % (2 * kFe25519EdgeCount);
  if (pick < kFe25519EdgeCount) return kFe25519Edges[pick];
  ks::field::U256 r{{rng(), rng(), rng(), rng()}};
  if (pick == kFe25519EdgeCount) r.w[3] |= 0x8000000000000000ull;  // above 2^255
  return r;
}

// The value mod p of five radix-2^51 limbs.
inline ks::field::U256 limbs_value(const uint64_t l[5]) {
  using ks::field::Fe25519;
  using ks::field::U256;
  const U256 radix{{uint64_t(1) << 51, 0, 0, 0}};
  U256 acc{{0, 0, 0, 0}};
  for (int i = 4; i >= 0; --i) acc = Fe25519::add(Fe25519::mul(acc, radix), U256{{l[i], 0, 0, 0}});
  return acc;
}

// `count` elements of the DPF field as raw limbs (five each) within its
// invariant (field/fe25519_dpf.cuh, (I): limb 0 up to 2^51 + 2^13 - 1, the
// others up to 2^51 - 1), which no value from from_words reaches: the
// first two items all at the maxima, then each limb at its maximum, one
// below, zero, one or random within the bound. Drives products to the
// anchoring's 2^103 edge, the carry round, the fold and sub's 4p offset.
inline std::vector<uint64_t> dpf_limbs_at_bounds(std::mt19937_64& rng, size_t count) {
  const uint64_t kTop = uint64_t(1) << 51;
  std::vector<uint64_t> l(5 * count);
  for (size_t i = 0; i < l.size(); ++i) {
    const uint64_t max = i % 5 == 0 ? kTop + (1 << 13) - 1 : kTop - 1;
    const uint64_t pick = i < 10 ? 0 : rng() % 6;
    l[i] = pick == 0   ? max
           : pick == 1 ? max - 1
           : pick == 2 ? 0
           : pick == 3 ? 1
                       : rng() % (max + 1);
  }
  return l;
}

}  // namespace ks_test

#endif  // KS_TESTS_FE25519_TEST_VALUES_H_
