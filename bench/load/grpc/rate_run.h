// One rate's bookkeeping, shared by the sender and the polling threads.
#ifndef KUAISUO_BENCH_LOAD_GRPC_RATE_RUN_H_
#define KUAISUO_BENCH_LOAD_GRPC_RATE_RUN_H_

#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util.h"

namespace kuaisuo::load {

// What happened to a rate's requests, as seen by one polling thread. Each
// thread has its own, merged after the rate: no lock on the reply path.
struct Tally {
  uint64_t ok = 0;
  uint64_t items_ok = 0;
  uint64_t timeouts = 0;
  std::map<std::string, uint64_t> refused;      // by gRPC code name
  std::map<int32_t, uint64_t> item_errors;      // by library status
  std::map<std::string, uint64_t> transport;    // by kind
  std::map<std::string, std::string> messages;  // an example message per code, for the notes
  std::vector<double> latencies;                // seconds, ok requests
  Clock::time_point last_ok = Clock::time_point::min();
};

// The reply kept for --check-key: the first ok reply of the rate.
struct Sample {
  bool taken = false;
  size_t request = 0;
  std::string statuses;
  std::string value_rows;
};

struct RateRun {
  RateRun(size_t threads, bool check) : tallies(threads), want_sample(check) {}

  // Drops one hold on the run; the last one wakes wait(). The replies'
  // writes to the tallies happen before (the counter's release sequence).
  void release() {
    if (outstanding.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    done.notify_all();
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [this] { return finished; });
  }

  std::vector<Tally> tallies;  // one per polling thread
  std::vector<double> lags;    // seconds, launch - scheduled; the sender's alone
  uint64_t sent = 0;           // the sender's alone
  uint64_t not_started = 0;    // the sender's alone: calls gRPC would not set up
  Clock::time_point start;
  Clock::time_point end;

  const bool want_sample;
  std::atomic<bool> sample_claimed{false};
  Sample sample;  // written by the thread that claimed it

  std::atomic<uint64_t> outstanding{1};  // calls in flight, plus the sender's hold
  std::mutex mu;
  std::condition_variable done;
  bool finished = false;
};

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_RATE_RUN_H_
