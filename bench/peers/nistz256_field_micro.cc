// OpenSSL's P-256 field product and square (ecp_nistz256_mul_mont /
// sqr_mont from its perlasm, MULX/ADX path) timed like
// tools/sm2_field_micro.cc: one dependent chain and four independent ones,
// in cycles of the core clock (ks_micro::core_ghz). The
// reference point issue 13 names (it expected ~20-25 cycles a product;
// 44.3 on four chains on the Zen 4 EPYC, session 24).
// Built and run by sm2_native_peers.sh against the generated assembly.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "micro_timing.h"

extern "C" {
// What the assembly's capability test reads: word 2 bit 8 (BMI2) and bit 19
// (ADX) select the MULX/ADCX/ADOX code.
unsigned int OPENSSL_ia32cap_P[4] = {0, 0, (1u << 8) | (1u << 19), 0};
void ecp_nistz256_mul_mont(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void ecp_nistz256_sqr_mont(uint64_t r[4], const uint64_t a[4]);
}

namespace {

// Nanoseconds an operation over `chains` independent chains.
template <bool kSquare, int kChains>
double ns_per_op() {
  constexpr int kSteps = 256;
  static uint64_t state[kChains][4];
  static const uint64_t y[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull,
                                0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
  for (int c = 0; c < kChains; ++c) {
    state[c][0] = uint64_t(c + 2), state[c][1] = 3, state[c][2] = 5, state[c][3] = 7;
  }
  const double calls = ks_micro::calls_per_second(
      [&] {
        for (int s = 0; s < kSteps; ++s)
          for (int c = 0; c < kChains; ++c) {
            if (kSquare) {
              ecp_nistz256_sqr_mont(state[c], state[c]);
            } else {
              ecp_nistz256_mul_mont(state[c], state[c], y);
            }
          }
      },
      0.1, 64);
  return 1e9 / (calls * kSteps * kChains);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  std::vector<double> ghz, v[2][2];
  for (int r = 0; r < reps; ++r) {
    ghz.push_back(ks_micro::core_ghz());
    v[0][0].push_back(ns_per_op<false, 1>());
    v[0][1].push_back(ns_per_op<false, 4>());
    v[1][0].push_back(ns_per_op<true, 1>());
    v[1][1].push_back(ns_per_op<true, 4>());
  }
  using ks_micro::median;
  const double clock = median(ghz);
  printf("core clock %.2f GHz (dependent register additions); medians of %d runs\n", clock, reps);
  for (int op = 0; op < 2; ++op) {
    printf("ecp_nistz256 (P-256, mulx/adx) %s  1 chain %6.2f ns %5.1f cycles  4 chains %6.2f ns %5.1f cycles\n",
           op == 0 ? "mul" : "sqr", median(v[op][0]), median(v[op][0]) * clock, median(v[op][1]),
           median(v[op][1]) * clock);
  }
  return 0;
}
