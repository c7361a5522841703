#include "stats.h"

#include <math.h>
#include <stdio.h>

#include <algorithm>
#include <cmath>

namespace kuaisuo::load {
namespace {

// The signature rows printed per --check-key mismatch report.
constexpr uint64_t kMaxCheckReports = 5;

}  // namespace

Row summarize(RateRun* run, double rate, double seconds, uint64_t items) {
  Row row;
  row.offered_rps = rate;
  row.seconds = seconds;
  row.items_per_request = items;
  row.sent = run->sent;
  if (run->not_started > 0) row.transport_by_kind["call not started"] = run->not_started;
  Clock::time_point last_ok = Clock::time_point::min();
  for (Tally& t : run->tallies) {
    row.ok += t.ok;
    row.items_ok += t.items_ok;
    row.timeouts += t.timeouts;
    merge_counts(t.refused, &row.refused_by_code);
    merge_counts(t.item_errors, &row.item_errors_by_status);
    merge_counts(t.transport, &row.transport_by_kind);
    row.messages.insert(t.messages.begin(), t.messages.end());
    row.latencies.insert(row.latencies.end(), t.latencies.begin(), t.latencies.end());
    last_ok = std::max(last_ok, t.last_ok);
  }
  // A server that drains its backlog late is charged for it; without any
  // ok reply, the time until the last answer of any kind.
  const Clock::time_point last = last_ok == Clock::time_point::min() ? run->end : last_ok;
  row.elapsed_s = std::max(seconds, seconds_between(run->start, last));
  std::sort(row.latencies.begin(), row.latencies.end());
  row.lags = std::move(run->lags);
  std::sort(row.lags.begin(), row.lags.end());
  return row;
}

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * sorted.size())));
  return sorted[std::min(rank, sorted.size()) - 1];
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return NAN;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double round_to(double value, double scale) { return std::round(value * scale) / scale; }

double ms(double seconds) { return round_to(seconds * 1000.0, 1000.0); }

uint64_t check_sample(const Sample& sample, const Pool& pool, const ks_sm2_pubkey* key,
                      size_t items, uint64_t* verified, std::vector<std::string>* reports) {
  char line[160];
  if (sample.value_rows.size() != items * kSignatureBytes) {
    snprintf(line, sizeof line, "value_rows of %zu bytes, not %zu", sample.value_rows.size(),
             items * kSignatureBytes);
    reports->push_back(line);
    return items;
  }
  uint64_t failures = 0;
  for (size_t t = 0; t < items; ++t) {
    if (load_le32(&sample.statuses[4 * t]) != 0) continue;  // an item error, counted already
    ++*verified;
    const size_t item = pool_item(pool, items, sample.request, t);
    const auto* sig = reinterpret_cast<const uint8_t*>(&sample.value_rows[t * kSignatureBytes]);
    const int rc = ks_sm2_verify_digest(key, &pool.digests[item * kDigestBytes], sig);
    if (rc == KS_OK) continue;
    if (++failures <= kMaxCheckReports) {
      snprintf(line, sizeof line, "request window %zu row %zu (pool item %zu): %s (%d)",
               sample.request, t, item, ks_strerror(rc), rc);
      reports->push_back(line);
    }
  }
  return failures;
}

double cpu_us_per_request(const Row& r) {
  return r.sent ? r.cpu_s / static_cast<double>(r.sent) * 1e6 : NAN;
}

}  // namespace kuaisuo::load
