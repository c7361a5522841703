#include "schedule.h"

#include <cmath>

#include "util.h"

namespace kuaisuo::load {

std::vector<double> schedule(double rate, double seconds, bool poisson, std::mt19937_64* rng) {
  std::vector<double> out;
  if (!poisson) {
    const auto n = static_cast<size_t>(std::ceil(rate * seconds - 1e-9));
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<double>(i) / rate);
    return out;
  }
  std::exponential_distribution<double> gap(rate);
  out.reserve(static_cast<size_t>(rate * seconds * 1.1) + 16);
  for (double t = gap(*rng); t < seconds; t += gap(*rng)) out.push_back(t);
  return out;
}

std::mt19937_64 schedule_rng(uint64_t base_seed, uint64_t run_index) {
  std::seed_seq seq{static_cast<uint32_t>(base_seed), static_cast<uint32_t>(base_seed >> 32),
                    static_cast<uint32_t>(run_index)};
  return std::mt19937_64(seq);
}

uint64_t draw_seed() {
  uint64_t seed = 0;
  if (!fill_random(reinterpret_cast<uint8_t*>(&seed), sizeof seed)) {
    seed = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  }
  return seed;
}

}  // namespace kuaisuo::load
