// What a run reports: the host, the JSON document (the rows as
// bench/load writes them) and the printed table, notes and check summary.
#ifndef KUAISUO_BENCH_LOAD_GRPC_REPORT_H_
#define KUAISUO_BENCH_LOAD_GRPC_REPORT_H_

#include <string>
#include <vector>

#include "flags.h"
#include "stats.h"

namespace kuaisuo::load {

// The host the run was on, as the JSON report records it.
struct Host {
  long cpu_count = 0;
  std::string cpu_model;  // empty: unknown
  std::vector<double> loadavg;
  std::string datetime_utc;
};

// CPUs, model, load average and the time, taken before the pool is built.
Host host_info();

// The --json document: tool, parameters (never the token), host, rows.
std::string report_json(const Options& o, const Host& host, const std::vector<Row>& rows);

// The rows as a fixed-width table (latencies in ms); with_check: --check-key's column.
void print_table(const std::vector<Row>& rows, bool with_check);

// The errors behind the table's counts, per rate, with an example message.
void print_notes(const std::vector<Row>& rows);

// What --check-key found, per rate.
void print_check_summary(const std::vector<Row>& rows);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_REPORT_H_
