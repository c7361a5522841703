// A statistical timing test (dudect: Reparaz, Balasch, Verbauwhede, "Dude,
// is my code constant time?", DATE 2017) for the code no checker
// instruments: the x86-64 inline assembly of the SM2 field (MULX/ADX
// products, Solinas and Montgomery reductions, modular add/sub/half) and of
// GF(2^255 - 19) (products with the reduction fused, add/sub), and the
// scalar multiplications built on them (SM2's comb, Ed25519's comb, the
// X25519 ladder), and SM4's one-block path and key schedule (GFNI or
// AES-NI, which valgrind cannot run and MemorySanitizer cannot read). Each
// operation is timed
// on two classes of inputs, interleaved at random: a fixed input (zero,
// where an early exit or a skipped carry would show) and fresh random
// inputs. Welch's t-test on the cycle counts, cropped at several
// percentiles as dudect does, must stay below the threshold: |t| > 10 is
// dudect's "definitely not constant time". A planted leak (an early exit
// on zero) must exceed it, which shows the harness can see a difference.
//
// Usage: dudect_fields [--leak] [--samples N]. Exit 0: no leak found (or,
// with --leak, the planted leak found); 1 otherwise; 77: not applicable
// (no x86-64 ADX).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>

#include "core/cpu_features.h"
#include "curve25519/ed25519_curve.h"
#include "sm2/sm2_curve.h"
#include "field/fe25519_adx.h"
#include "field/fp_mont.h"
#include "field/fp_mont_adx.h"
#include "field/mul_adx.h"
#include "sm4/sm4.h"

namespace {

using ks::field::U256;
using FpSolinas = ks::field::FpAdx;
using FpMont = ks::field::FpMontField<ks::field::MulAdx>;
using FpMontFused = ks::field::FpMontField<ks::field::MontAdx>;  // the default
using Fe25519 = ks::field::Fe25519Adx;

constexpr double kThreshold = 10.0;

uint64_t cycles() {
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

// Welch's t statistic between two samples.
double welch_t(const std::vector<double>& a, const std::vector<double>& b) {
  auto mean_var = [](const std::vector<double>& v, double* mean, double* var) {
    double m = 0, s = 0;
    for (double x : v) m += x;
    m /= double(v.size());
    for (double x : v) s += (x - m) * (x - m);
    *mean = m;
    *var = s / double(v.size() - 1);
  };
  double ma, va, mb, vb;
  mean_var(a, &ma, &va);
  mean_var(b, &mb, &vb);
  const double se = std::sqrt(va / double(a.size()) + vb / double(b.size()));
  return se == 0 ? 0 : (ma - mb) / se;
}

// The largest |t| over the crops: measurements below each percentile of
// the pooled sample (the tail is where interrupts and migrations land).
double max_abs_t(const std::vector<double>& fixed, const std::vector<double>& random) {
  std::vector<double> pooled(fixed);
  pooled.insert(pooled.end(), random.begin(), random.end());
  std::sort(pooled.begin(), pooled.end());
  double worst = 0;
  for (double p : {0.5, 0.75, 0.9, 0.95, 0.99}) {
    const double cut = pooled[size_t(p * double(pooled.size() - 1))];
    std::vector<double> f, r;
    for (double x : fixed)
      if (x <= cut) f.push_back(x);
    for (double x : random)
      if (x <= cut) r.push_back(x);
    if (f.size() > 100 && r.size() > 100) worst = std::max(worst, std::fabs(welch_t(f, r)));
  }
  return worst;
}

U256 random_below_p(std::mt19937_64& rng) {
  U256 x{{rng(), rng(), rng(), rng()}};
  x.w[3] &= 0x7fffffffffffffff;  // below p (p > 2^255)
  return x;
}

struct Case {
  const char* name;
  int reps;  // operations per measurement (a dependent chain)
  // Runs the chain from input x; returns a value that depends on it.
  std::function<uint64_t(const U256& x, const U256& y)> run;
};

// One case: `samples` measurements, each class chosen by a coin flip.
// Inputs are drawn before the timing starts, a block at a time, so that
// the code run between two measurements is the same for both classes.
double measure(const Case& c, int samples, std::mt19937_64& rng) {
  struct Input {
    bool fixed;
    U256 x, y;
  };
  constexpr int kBlock = 1000;
  std::vector<double> fixed, random;
  std::vector<Input> inputs(kBlock);
  volatile uint64_t sink = 0;
  for (int warm = 0; warm < 1000; ++warm) sink = sink + c.run(random_below_p(rng), random_below_p(rng));
  for (int done = 0; done < samples; done += kBlock) {
    for (Input& in : inputs) {
      in.fixed = rng() & 1;
      in.x = in.fixed ? U256{{0, 0, 0, 0}} : random_below_p(rng);
      in.y = random_below_p(rng);
    }
    for (const Input& in : inputs) {
      const uint64_t t0 = cycles();
      const uint64_t v = c.run(in.x, in.y);
      const uint64_t t1 = cycles();
      sink = sink + v;
      (in.fixed ? fixed : random).push_back(double(t1 - t0));
    }
  }
  return max_abs_t(fixed, random);
}

// The chains of one field: products, squares, and additions (with the
// halving where the field has one: the SM2 fields).
template <class F, bool kHalf>
std::vector<Case> field_cases(const char* prefix) {
  static char names[16][64];
  static int used = 0;
  auto name = [&](const char* op) {
    char* n = names[used++ % 16];
    snprintf(n, 64, "%s %s", prefix, op);
    return n;
  };
  return {
      {name("mul"), 64,
       [](const U256& x, const U256& y) {
         U256 a = x;
         for (int i = 0; i < 64; ++i) a = F::mul(a, y);
         return a.w[0];
       }},
      {name("sqr"), 64,
       [](const U256& x, const U256&) {
         U256 a = x;
         for (int i = 0; i < 64; ++i) a = F::sqr(a);
         return a.w[0];
       }},
      {name(kHalf ? "add/sub/half" : "add/sub"), 64,
       [](const U256& x, const U256& y) {
         U256 a = x;
         for (int i = 0; i < 64; ++i) {
           a = F::sub(F::add(a, y), y);
           if constexpr (kHalf) a = F::half(a);
         }
         return a.w[0];
       }},
  };
}

// The planted leak: an early exit for a zero operand, the kind of shortcut
// the test exists to catch.
uint64_t leaky_chain(const U256& x, const U256& y) {
  U256 a = x;
  for (int i = 0; i < 64; ++i) {
    if ((a.w[0] | a.w[1] | a.w[2] | a.w[3]) == 0) continue;
    a = FpMont::mul(a, y);
  }
  return a.w[0];
}

}  // namespace

int main(int argc, char** argv) {
  bool leak = false;
  int samples = 200000;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--leak") == 0) leak = true;
    if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) samples = atoi(argv[++i]);
  }
  const ks::CpuFeatures& f = ks::cpu_features();
  if (!(f.adx && f.bmi2)) {
    printf("dudect_fields: no ADX/BMI2 here: the assembly does not run (skipped)\n");
    return 77;
  }
  std::mt19937_64 rng(std::random_device{}());
  if (leak) {
    const double t = measure({"planted leak", 64, leaky_chain}, samples, rng);
    printf("planted leak: |t| = %.1f (must exceed %.0f)\n", t, kThreshold);
    return t > kThreshold ? 0 : 1;
  }
  std::vector<Case> cases = field_cases<FpMontFused, true>("sm2 montgomery fused");
  for (const Case& c : field_cases<FpMont, true>("sm2 montgomery")) cases.push_back(c);
  for (const Case& c : field_cases<FpSolinas, true>("sm2 solinas")) cases.push_back(c);
  for (const Case& c : field_cases<Fe25519, false>("2^255-19")) cases.push_back(c);
  cases.push_back({"sm2 [k]G comb", 1, [](const U256& x, const U256& y) {
                     U256 k = x;  // k = 1 (all windows but one zero) against random k
                     k.w[0] += 1;
                     (void)y;
                     return ks::curve::mul_base_affine(k).x.w[0];
                   }});
  cases.push_back({"ed25519 [k]B comb", 1, [](const U256& x, const U256&) {
                     U256 k = x;
                     k.w[0] += 1;
                     return ks::curve::ed25519::mul_base(k).x.w[0];
                   }});
  cases.push_back({"x25519 ladder", 1, [](const U256& x, const U256& y) {
                     U256 k = x;  // clamped: k = 2^254 against random k
                     k.w[0] &= ~uint64_t(7);
                     k.w[3] = (k.w[3] & 0x3FFFFFFFFFFFFFFFull) | 0x4000000000000000ull;
                     return ks::curve::ed25519::x25519(k, y).w[0];
                   }});
  // SM4 on the kernel this CPU uses: the key schedule of key x (all zero
  // against random), and CBC over the 4 blocks x || y under a random key
  // (the one-block path, one block waiting for the other).
  cases.push_back({"sm4 key schedule", 16, [](const U256& x, const U256&) {
                     ks::sm4::Key k;
                     uint8_t key[16];
                     memcpy(key, x.w, 16);
                     for (int i = 0; i < 16; ++i) ks::sm4::set_key(&k, key);
                     return uint64_t(k.enc[31]);
                   }});
  static ks::sm4::Key sm4_key;
  uint8_t sm4_raw[16];
  for (uint8_t& b : sm4_raw) b = uint8_t(rng());
  ks::sm4::set_key(&sm4_key, sm4_raw);
  cases.push_back({"sm4 cbc one block at a time", 8, [](const U256& x, const U256& y) {
                     uint8_t data[64], iv[16] = {};
                     memcpy(data, x.w, 32);
                     memcpy(data + 32, y.w, 32);
                     for (int i = 0; i < 8; ++i)
                       ks::sm4::chain_blocks(sm4_key, ks::ChainMode::kCbc, iv, data, data, 4);
                     return uint64_t(data[63]);
                   }});
  int failed = 0;
  for (const Case& c : cases) {
    const int n = c.reps == 1 ? samples / 4 : samples;
    const double t = measure(c, n, rng);
    printf("%-28s |t| = %5.1f over %d measurements %s\n", c.name, t, n,
           t > kThreshold ? "LEAK" : "ok");
    failed += t > kThreshold;
  }
  return failed == 0 ? 0 : 1;
}

#else
int main() {
  printf("dudect_fields: x86-64 only (skipped)\n");
  return 77;
}
#endif
