// One-thread throughput of the 8-lane AVX-512 IFMA Curve25519 operations
// (curve25519/ed25519_mb.h) against the scalar ones (curve25519/ed25519_curve.h, the
// MULX/ADX field where the CPU has it), in the same process: [k]B encoded
// (keygen, signing's R), X25519 with a variable point and with the base
// point, and the cofactored verification equation. Each measurement runs
// ~0.25 s of this thread's CPU time; the two alternate, and the median of
// the repetitions is reported. Then the half-size scalars of verification
// (field/sc25519_lattice.h), per scalar.
//   ed25519_mb_micro [repetitions]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <vector>

#include "core/cpu_features.h"
#include "core/os_random.h"
#include "curve25519/ed25519_curve.h"
#include "curve25519/ed25519_mb.h"
#include "field/sc25519.h"
#include "field/sc25519_lattice.h"
#include "micro_timing.h"

namespace {

namespace ed = ks::curve::ed25519;
namespace mb = ks::curve::ed25519::mb;
using ks::field::Sc25519;
using ks::field::U256;
constexpr int kLanes = mb::kLanes;

void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "ed25519_mb_micro: %s failed\n", what);
    exit(1);
  }
}

U256 random_below_2_255() {
  U256 r;
  check(ks::os_random(reinterpret_cast<uint8_t*>(&r), sizeof r), "os_random");
  r.w[3] &= 0x7FFFFFFFFFFFFFFFull;
  return r;
}

// A valid verification input per lane: A = [a]B, R = [r]B, s = r + k a mod L.
struct Equations {
  U256 s[kLanes], k[kLanes];
  ed::Point a[kLanes], r[kLanes];

  Equations() {
    for (int l = 0; l < kLanes; ++l) {
      const U256 a_scalar = Sc25519::reduce_once(random_below_2_255());
      const U256 r_scalar = Sc25519::reduce_once(random_below_2_255());
      k[l] = Sc25519::reduce_once(random_below_2_255());
      a[l] = ed::mul_base(a_scalar);
      r[l] = ed::mul_base(r_scalar);
      s[l] = Sc25519::add(r_scalar, Sc25519::mul_plain_mont(k[l], Sc25519::to_mont(a_scalar)));
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  check(mb::available(), "AVX-512 IFMA (the 8-lane path cannot run here)");

  U256 k[kLanes], u[kLanes], out[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    k[l] = random_below_2_255();
    u[l] = ed::x25519_base(random_below_2_255());
  }
  const Equations eq;
  check(mb::verify_equation_x8(eq.s, eq.k, eq.a, eq.r, 0xFF) == 0xFF, "verify_equation_x8");
  uint8_t encoded[kLanes][32];
  mb::mul_base_encode_x8(encoded, k);
  uint8_t one[32];
  ed::encode(one, ed::mul_base(k[0]));
  check(memcmp(one, encoded[0], 32) == 0, "mul_base_encode_x8");

  struct Row {
    const char* name;
    std::function<void()> x8, scalar;
  };
  volatile bool sink = false;
  const Row rows[] = {
      {"[k]B + encode", [&] { mb::mul_base_encode_x8(encoded, k); },
       [&] { ed::encode(one, ed::mul_base(k[0])); }},
      {"x25519 (u)", [&] { mb::x25519_x8(out, k, u); }, [&] { out[0] = ed::x25519(k[0], u[0]); }},
      {"x25519 (base)", [&] { mb::x25519_base_x8(out, k); },
       [&] { out[0] = ed::x25519_base(k[0]); }},
      {"verify equation", [&] { sink = mb::verify_equation_x8(eq.s, eq.k, eq.a, eq.r, 0xFF); },
       [&] { sink = ed::verify_equation(eq.s[0], eq.k[0], eq.a[0], eq.r[0]); }},
  };
  printf("CPU: %s [%s], one thread, median of %d runs of 0.25 s CPU time, ops/s\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(), reps);
  printf("%-17s %11s %11s %9s\n", "op", "x8 (IFMA)", "scalar", "x8/scalar");
  for (const Row& row : rows) {
    std::vector<double> lanes, scalar;
    for (int i = 0; i < reps; ++i) {
      lanes.push_back(ks_micro::calls_per_second(row.x8, 0.25, 4) * kLanes);
      scalar.push_back(ks_micro::calls_per_second(row.scalar, 0.25, 8));
    }
    const double x8 = ks_micro::median(lanes), one_at_a_time = ks_micro::median(scalar);
    printf("%-17s %11.0f %11.0f %8.2fx\n", row.name, x8, one_at_a_time, x8 / one_at_a_time);
  }

  U256 scalars[64];  // below 2^252 < L, as hash values mod L are
  for (U256& s : scalars) {
    s = random_below_2_255();
    s.w[3] &= 0x0FFFFFFFFFFFFFFFull;
  }
  int next = 0;
  volatile uint64_t z_sink = 0;
  std::vector<double> rates;
  for (int i = 0; i < reps; ++i)
    rates.push_back(ks_micro::calls_per_second(
        [&] { z_sink = uint64_t(ks::field::half_scalars(scalars[next++ & 63]).z); }, 0.25, 64));
  printf("half_scalars      %.3f us per scalar\n", 1e6 / ks_micro::median(rates));
  return 0;
}
