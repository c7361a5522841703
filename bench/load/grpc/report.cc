#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "json_writer.h"

namespace kuaisuo::load {
namespace {

void write_optional_string(JsonWriter* w, const std::string& key, const std::string& value) {
  w->key(key);
  if (value.empty()) {
    w->null();
  } else {
    w->string(value);
  }
}

// Every flag but the token (its file's path is there).
void write_parameters(JsonWriter* w, const Options& o) {
  w->key("parameters");
  w->begin_object();
  w->member("address", o.address);
  w->member("token_file", o.token_file);
  w->member("op", o.op);
  write_optional_string(w, "key_id", o.sign() ? o.key_id : "");
  w->member("items", o.items);
  if (o.ed25519()) w->member("message_bytes", o.message_bytes);
  w->key("rates");
  w->begin_array();
  for (double r : o.rates) w->number(r);
  w->end_array();
  w->member("seconds", o.seconds);
  w->member("warmup", o.warmup);
  w->member("channels", o.channels);
  w->member("threads", o.threads);
  w->member("pool", o.pool);
  w->member("timeout_ms", o.timeout_ms);
  w->member("arrivals", o.arrivals);
  w->key("seed");
  if (o.has_seed) {
    w->uint(o.seed);
  } else {
    w->null();
  }
  write_optional_string(w, "cacert", o.cacert);
  write_optional_string(w, "check_key", o.check_key);
  write_optional_string(w, "json", o.json);
  w->end_object();
}

void write_host(JsonWriter* w, const Host& host) {
  w->key("host");
  w->begin_object();
  w->member("cpu_count", static_cast<uint64_t>(std::max(0L, host.cpu_count)));
  write_optional_string(w, "cpu_model", host.cpu_model);
  w->key("loadavg_at_start");
  w->begin_array();
  for (double l : host.loadavg) w->number(l);
  w->end_array();
  w->member("datetime_utc", host.datetime_utc);
  w->end_object();
}

template <typename K>
void write_counts(JsonWriter* w, const std::string& key, const std::map<K, uint64_t>& counts) {
  w->key(key);
  w->begin_object();
  for (const auto& entry : counts) {
    if constexpr (std::is_same<K, std::string>::value) {
      w->member(entry.first, entry.second);
    } else {
      w->member(std::to_string(entry.first), entry.second);
    }
  }
  w->end_object();
}

void write_latencies(JsonWriter* w, const std::vector<double>& sorted) {
  w->key("latency_ms");
  w->begin_object();
  const std::pair<const char*, double> quantiles[] = {
      {"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"p99.9", 0.999}};
  for (const auto& q : quantiles) w->member(q.first, ms(percentile(sorted, q.second)));
  w->member("max", ms(sorted.empty() ? NAN : sorted.back()));
  w->member("mean", ms(mean(sorted)));
  w->end_object();
}

// The row as bench/load writes it (the keys bench/serve_bench.sh reads).
void write_row(JsonWriter* w, const Row& r) {
  w->begin_object();
  w->member("offered_rps", r.offered_rps);
  w->member("seconds", r.seconds);
  w->member("items_per_request", r.items_per_request);
  w->member("sent", r.sent);
  w->member("elapsed_s", round_to(r.elapsed_s, 1e4));
  w->member("achieved_rps", round_to(static_cast<double>(r.ok) / r.elapsed_s, 100.0));
  w->member("achieved_items_per_s",
            round_to(static_cast<double>(r.items_ok) / r.elapsed_s, 100.0));
  w->member("ok", r.ok);
  w->member("items_ok", r.items_ok);
  w->member("refused", total(r.refused_by_code));
  write_counts(w, "refused_by_code", r.refused_by_code);
  w->member("item_errors", total(r.item_errors_by_status));
  write_counts(w, "item_errors_by_status", r.item_errors_by_status);
  w->member("transport_errors", total(r.transport_by_kind));
  w->member("timeouts", r.timeouts);
  w->member("check_failures", r.check_failures);
  w->member("generator_cpu_s", round_to(r.cpu_s, 1e4));
  w->member("generator_cpu_us_per_request", round_to(cpu_us_per_request(r), 100.0));
  write_latencies(w, r.latencies);
  w->key("lag_ms");
  w->begin_object();
  w->member("p99", ms(percentile(r.lags, 0.99)));
  w->member("max", ms(r.lags.empty() ? NAN : r.lags.back()));
  w->end_object();
  w->end_object();
}

std::string cell(const char* format, double value) {
  if (!std::isfinite(value)) return "-";
  char buf[48];
  snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string cell(uint64_t value) { return std::to_string(value); }

}  // namespace

Host host_info() {
  Host host;
  host.cpu_count = sysconf(_SC_NPROCESSORS_ONLN);
  std::string cpuinfo;
  if (read_file("/proc/cpuinfo", &cpuinfo)) {
    const size_t at = cpuinfo.find("model name");
    const size_t colon = at == std::string::npos ? at : cpuinfo.find(':', at);
    if (colon != std::string::npos) {
      const size_t eol = cpuinfo.find('\n', colon);
      std::string model = cpuinfo.substr(colon + 1, eol == std::string::npos ? eol
                                                                             : eol - colon - 1);
      const size_t b = model.find_first_not_of(" \t");
      const size_t e = model.find_last_not_of(" \t");
      if (b != std::string::npos) host.cpu_model = model.substr(b, e - b + 1);
    }
  }
  // Other load on the host skews every number measured.
  double load[3];
  if (getloadavg(load, 3) == 3) {
    for (double l : load) host.loadavg.push_back(round_to(l, 100.0));
  }
  const time_t now = time(nullptr);
  tm utc;
  gmtime_r(&now, &utc);
  char buf[40];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  host.datetime_utc = buf;
  return host;
}

std::string report_json(const Options& o, const Host& host, const std::vector<Row>& rows) {
  JsonWriter w;
  w.begin_object();
  w.member("tool", kTool);
  write_parameters(&w, o);
  write_host(&w, host);
  w.key("rows");
  w.begin_array();
  for (const Row& row : rows) write_row(&w, row);
  w.end_array();
  w.end_object();
  return w.text() + "\n";
}

void print_table(const std::vector<Row>& rows, bool with_check) {
  std::vector<std::string> heads = {"offered", "achieved", "items/s", "ok", "refused",
                                    "item err", "transport", "timeouts"};
  if (with_check) heads.push_back("check");
  for (const char* h : {"p50", "p99", "p99.9", "max", "lag p99", "cpu us/req"}) {
    heads.push_back(h);
  }
  std::vector<std::vector<std::string>> lines;
  for (const Row& r : rows) {
    std::vector<std::string> c = {
        cell("%.0f", r.offered_rps),
        cell("%.0f", static_cast<double>(r.ok) / r.elapsed_s),
        cell("%.0f", static_cast<double>(r.items_ok) / r.elapsed_s),
        cell(r.ok),
        cell(total(r.refused_by_code)),
        cell(total(r.item_errors_by_status)),
        cell(total(r.transport_by_kind)),
        cell(r.timeouts)};
    if (with_check) c.push_back(r.checked ? cell(r.check_failures) : "-");
    for (double q : {0.50, 0.99, 0.999}) c.push_back(cell("%.2f", ms(percentile(r.latencies, q))));
    c.push_back(cell("%.2f", ms(r.latencies.empty() ? NAN : r.latencies.back())));
    c.push_back(cell("%.2f", ms(percentile(r.lags, 0.99))));
    c.push_back(cell("%.1f", cpu_us_per_request(r)));
    lines.push_back(std::move(c));
  }
  std::vector<size_t> widths;
  for (size_t i = 0; i < heads.size(); ++i) {
    size_t width = heads[i].size();
    for (const auto& line : lines) width = std::max(width, line[i].size());
    widths.push_back(width);
  }
  auto print_line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      printf("%s%*s", i ? "  " : "", static_cast<int>(widths[i]), cells[i].c_str());
    }
    printf("\n");
  };
  print_line(heads);
  for (const auto& line : lines) print_line(line);
}

void print_notes(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    std::string parts;
    auto add = [&parts](const std::string& part) { parts += (parts.empty() ? "" : "; ") + part; };
    for (const auto& e : r.item_errors_by_status) {
      add("item status " + std::to_string(e.first) + " (" + ks_strerror(e.first) +
          "): " + std::to_string(e.second));
    }
    for (const auto& e : r.refused_by_code) {
      add("refused " + e.first + ": " + std::to_string(e.second));
    }
    for (const auto& e : r.transport_by_kind) {
      add("transport " + e.first + ": " + std::to_string(e.second));
    }
    if (r.timeouts) add("DEADLINE_EXCEEDED: " + std::to_string(r.timeouts));
    for (const auto& m : r.messages) {
      if (!m.second.empty()) add(m.first + " says '" + m.second + "'");
    }
    if (!parts.empty()) printf("  at %.0f/s: %s\n", r.offered_rps, parts.c_str());
  }
}

void print_check_summary(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    if (!r.checked) {
      printf("  check at %.0f/s: no ok reply to check\n", r.offered_rps);
      continue;
    }
    printf("  check at %.0f/s: %llu of the first ok reply's %llu signatures did not verify\n",
           r.offered_rps, static_cast<unsigned long long>(r.check_failures),
           static_cast<unsigned long long>(r.check_rows));
    for (const std::string& line : r.check_reports) printf("    %s\n", line.c_str());
  }
}

}  // namespace kuaisuo::load
