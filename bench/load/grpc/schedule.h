// Open-loop send times, drawn before a rate runs.
#ifndef KUAISUO_BENCH_LOAD_GRPC_SCHEDULE_H_
#define KUAISUO_BENCH_LOAD_GRPC_SCHEDULE_H_

#include <stdint.h>

#include <random>
#include <vector>

namespace kuaisuo::load {

// Send offsets in [0, seconds): every 1/rate, or a Poisson process at rate.
std::vector<double> schedule(double rate, double seconds, bool poisson, std::mt19937_64* rng);

// A generator per run: the same --seed gives the same schedules.
std::mt19937_64 schedule_rng(uint64_t base_seed, uint64_t run_index);

// A random base seed where --seed was not given.
uint64_t draw_seed();

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_SCHEDULE_H_
