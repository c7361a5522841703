// Timing for the one-thread micro-benchmarks (tools/*_micro.cc): rates
// measured in this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that
// other processes on a shared machine do not count against either side.
#ifndef KS_TOOLS_MICRO_TIMING_H_
#define KS_TOOLS_MICRO_TIMING_H_

#include <time.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace ks_micro {

inline double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Calls of op per second over at least min_seconds, reading the clock
// every calls_per_read calls.
inline double calls_per_second(const std::function<void()>& op, double min_seconds,
                               int calls_per_read) {
  const double start = thread_seconds();
  long calls = 0;
  double elapsed = 0;
  do {
    for (int i = 0; i < calls_per_read; ++i) op();
    calls += calls_per_read;
    elapsed = thread_seconds() - start;
  } while (elapsed < min_seconds);
  return double(calls) / elapsed;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace ks_micro

#endif  // KS_TOOLS_MICRO_TIMING_H_
