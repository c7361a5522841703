// Timing for the one-thread micro-benchmarks (tools/*_micro.cc): rates
// measured in this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that
// other processes on a shared machine do not count against either side.
#ifndef KS_TOOLS_MICRO_TIMING_H_
#define KS_TOOLS_MICRO_TIMING_H_

#include <stdint.h>
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

// The core clock in GHz while this thread runs (the TSC ticks at a fixed
// rate that may differ from it): 1,000 dependent register-to-register
// additions a call, one a cycle on every x86-64 core. Not additions of an
// immediate: the lent H200 machine's Xeon ran chains of those at ~5 a
// cycle (it reported 13-14 GHz; register additions and IMUL/3 gave 2.54).
inline double core_ghz() {
  uint64_t x = 0, one = 1;
  const double calls = calls_per_second(
      [&] {
#if defined(__x86_64__)
        __asm__ volatile(".rept 1000\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#else
        for (int i = 0; i < 1000; ++i) {
          x += one;
          __asm__ volatile("" : "+r"(x));
        }
#endif
      },
      0.2, 1000);
  return calls * 1000 / 1e9;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace ks_micro

#endif  // KS_TOOLS_MICRO_TIMING_H_
