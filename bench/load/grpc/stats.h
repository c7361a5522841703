// A rate's row: the pollers' tallies merged, percentiles, and the CPU
// check of a sample reply's signatures.
#ifndef KUAISUO_BENCH_LOAD_GRPC_STATS_H_
#define KUAISUO_BENCH_LOAD_GRPC_STATS_H_

#include <stddef.h>
#include <stdint.h>

#include <map>
#include <string>
#include <vector>

#include "pool.h"
#include "rate_run.h"

namespace kuaisuo::load {

// A rate's result: the JSON report's row and the printed table's line.
struct Row {
  double offered_rps = 0;
  double seconds = 0;
  uint64_t items_per_request = 0;
  uint64_t sent = 0;
  double elapsed_s = 0;
  uint64_t ok = 0;
  uint64_t items_ok = 0;
  uint64_t timeouts = 0;
  uint64_t check_failures = 0;
  std::map<std::string, uint64_t> refused_by_code;
  std::map<int32_t, uint64_t> item_errors_by_status;
  std::map<std::string, uint64_t> transport_by_kind;
  std::map<std::string, std::string> messages;
  std::vector<double> latencies;  // seconds, ascending
  std::vector<double> lags;       // seconds, ascending
  double cpu_s = 0;               // this process's CPU over the rate's run (every thread)
  bool checked = false;           // --check-key found a reply to verify
  uint64_t check_rows = 0;        // the rows of it verified
  std::vector<std::string> check_reports;
};

// The sum of a map's counts.
template <typename K>
uint64_t total(const std::map<K, uint64_t>& counts) {
  uint64_t sum = 0;
  for (const auto& entry : counts) sum += entry.second;
  return sum;
}

// Adds from's counts into into's.
template <typename K, typename V>
void merge_counts(const std::map<K, V>& from, std::map<K, V>* into) {
  for (const auto& entry : from) (*into)[entry.first] += entry.second;
}

// The row of a finished rate: the pollers' tallies merged, latencies and
// lags sorted.
Row summarize(RateRun* run, double rate, double seconds, uint64_t items);

// Nearest rank of an ascending sequence; NaN (written as null) when empty.
double percentile(const std::vector<double>& sorted, double q);

// NaN when empty.
double mean(const std::vector<double>& values);

// value rounded to 1/scale.
double round_to(double value, double scale);

// Seconds to milliseconds, 3 decimals; NaN stays NaN.
double ms(double seconds);

// Verifies the signatures of the rate's sample reply on the CPU against the
// server key: the count of rows (status 0) whose signature does not verify,
// the rows verified, and a line for each of the first few failures.
uint64_t check_sample(const Sample& sample, const Pool& pool, const ks_sm2_pubkey* key,
                      size_t items, uint64_t* verified, std::vector<std::string>* reports);

// The generator's own CPU a request in microseconds (NaN: none sent).
double cpu_us_per_request(const Row& r);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_STATS_H_
