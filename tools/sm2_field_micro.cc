// One-thread cost of the SM2 prime field's product and square (issue 13's
// instrument): every FpField variant built in, each as one dependent chain
// (latency: x = x * y) and as four independent chains (throughput, what a
// point formula's independent products can reach), in nanoseconds and in
// core cycles. The core clock is measured, not assumed
// (ks_micro::core_ghz, tools/micro_timing.h).
//
// The reference point is OpenSSL's P-256 assembly (ecp_nistz256): on the
// Zen 4 EPYC it takes 44.3 cycles a product on four chains and 48.8-50.6 on
// one (bench/peers/sm2_native_peers.sh runs it beside this tool);
// `openssl speed -seconds 3 ecdsap256` on the same core gives its sign and
// verify rates.
//
//   cmake --build build --target sm2_field_micro && build/sm2_field_micro [repetitions=5]
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "field/fp.h"
#include "field/fp_mont.h"
#include "field/fp_mont_adx.h"
#include "field/mul_adx.h"
#include "micro_timing.h"

namespace {

using ks::field::U256;
using ks_micro::median;

// Field operations per second: `chains` independent chains of kSteps
// operations per call.
template <class F, bool kSquare, int kChains>
double ops_per_second() {
  constexpr int kSteps = 256;
  static U256 state[kChains];
  const U256 y = {{0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                   0x082efa98ec4e6c89ull}};
  for (int c = 0; c < kChains; ++c) state[c] = U256{{uint64_t(c + 2), 3, 5, 7}};
  const double calls = ks_micro::calls_per_second(
      [&] {
        U256 x[kChains];
        for (int c = 0; c < kChains; ++c) x[c] = state[c];
        for (int s = 0; s < kSteps; ++s)
          for (int c = 0; c < kChains; ++c) x[c] = kSquare ? F::sqr(x[c]) : F::mul(x[c], y);
        for (int c = 0; c < kChains; ++c) state[c] = x[c];
      },
      0.1, 64);
  return calls * kSteps * kChains;
}

struct Row {
  std::string field;
  double rate[2][2];  // [mul, sqr][one chain, four chains]
};

template <class F>
Row measure(const char* name) {
  return {name,
          {{ops_per_second<F, false, 1>(), ops_per_second<F, false, 4>()},
           {ops_per_second<F, true, 1>(), ops_per_second<F, true, 4>()}}};
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
  const ks::CpuFeatures& cpu = ks::cpu_features();
  const bool adx = cpu.bmi2 && cpu.adx;
  std::vector<double> ghz;
  std::vector<std::vector<Row>> runs;
  for (int r = 0; r < reps; ++r) {
    ghz.push_back(ks_micro::core_ghz());
    std::vector<Row> rows;
    namespace f = ks::field;
    rows.push_back(measure<f::Fp>("portable, Solinas"));
    rows.push_back(measure<f::FpMontField<f::fp_detail::MulPortable>>("portable, Montgomery"));
#if defined(KS_HAVE_MUL_ADX)
    if (adx) {
      rows.push_back(measure<f::FpAdx>("mulx/adx, Solinas"));
      rows.push_back(measure<f::FpMontField<f::MulAdx>>("mulx/adx, Montgomery, two passes"));
      rows.push_back(measure<f::FpMontField<f::MontAdx>>("mulx/adx, Montgomery fused (default)"));
    }
#endif
    runs.push_back(rows);
  }
  const double clock = median(ghz);
  printf("CPU: %s [%s]; core clock %.2f GHz (dependent register additions); medians of %d runs\n\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(cpu).c_str(), clock, reps);
  printf("%-36s %-4s %14s %14s %14s %14s\n", "field", "op", "1 chain ns", "cycles",
         "4 chains ns", "cycles");
  for (size_t i = 0; i < runs[0].size(); ++i) {
    for (int op = 0; op < 2; ++op) {
      double ns[2];
      for (int k = 0; k < 2; ++k) {
        std::vector<double> v;
        for (const auto& rows : runs) v.push_back(1e9 / rows[i].rate[op][k]);
        ns[k] = median(v);
      }
      printf("%-36s %-4s %14.2f %14.1f %14.2f %14.1f\n", runs[0][i].field.c_str(),
             op == 0 ? "mul" : "sqr", ns[0], ns[0] * clock, ns[1], ns[1] * clock);
    }
  }
  return 0;
}
