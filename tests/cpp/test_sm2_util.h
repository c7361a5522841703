// Helpers shared by the SM2 field/curve/scheme tests: conversions between
// the library's 256-bit limbs and OpenSSL BIGNUMs (the independent oracle),
// and random inputs that favour carry-chain edge cases.
#ifndef KS_TESTS_TEST_SM2_UTIL_H_
#define KS_TESTS_TEST_SM2_UTIL_H_

#include <openssl/bn.h>
#include <stdint.h>

#include <memory>
#include <random>

#include "field/u256.h"
#include "test_util.h"

namespace ks_test {

using ks::field::U256;

struct BnFree {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

inline Bn to_bn(const U256& a) {
  uint8_t be[32];
  ks::field::to_be_bytes(be, a);
  return Bn(BN_bin2bn(be, 32, nullptr));
}

inline U256 from_bn(const BIGNUM* b) {
  uint8_t be[32];
  BN_bn2binpad(b, be, 32);
  return ks::field::from_be_bytes(be);
}

inline Bn bn_hex(const char* hex) {
  BIGNUM* b = nullptr;
  BN_hex2bn(&b, hex);
  return Bn(b);
}

inline U256 u256_hex(const char* hex) {
  Bn b = bn_hex(hex);
  return from_bn(b.get());
}

// Random 256-bit values whose 32-bit words are often 0, 1, or all ones, so
// that carries run the full length of the chains.
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t word() { return gen_(); }
  U256 any() {
    U256 r;
    for (auto& w : r.w) w = gen_();
    return r;
  }
  U256 edgy() {
    static const uint32_t kSpecial[] = {0, 1, 0xFFFFFFFF, 0xFFFFFFFE, 0x80000000};
    U256 r;
    for (auto& w : r.w) {
      uint64_t v = 0;
      for (int half = 0; half < 2; ++half) {
        const uint64_t h = (gen_() % 3 == 0) ? gen_() & 0xFFFFFFFF : kSpecial[gen_() % 5];
        v |= h << (32 * half);
      }
      w = v;
    }
    return r;
  }
  // Uniform-ish value below m (rejection from any()/edgy()).
  U256 below(const U256& m) {
    for (;;) {
      const U256 r = (gen_() & 1) ? any() : edgy();
      if (ks::field::lt_mask(r, m)) return r;
    }
  }

 private:
  std::mt19937_64 gen_;
};

}  // namespace ks_test

#endif  // KS_TESTS_TEST_SM2_UTIL_H_
