// kuaisuo-grpc-load: an open-loop load generator for the gRPC form of
// `kuaisuo serve` and kuaisuo-grpcd (service kuaisuo.serve.v1.Signer of
// serve/proto/kuaisuo_serve.proto), SM2 in the rows form and Ed25519 as
// lists of items:
//   sign-rows       Sign{key_id, digest_rows}: count * 32 bytes of digests e;
//                   the reply: count int32 statuses, count * 64 bytes of r||s
//   verify-rows     Verify{public_key_rows, digest_rows, signature_rows};
//                   the reply: count int32 statuses
//   ed25519-sign    Sign{key_id (an Ed25519 key), items: --message-bytes
//                   messages}; the reply: a result (status, signature) each
//   ed25519-verify  Verify{algorithm ed25519, items: (key, message,
//                   signature)}; the reply: a result (status) each
// It is the native counterpart of bench/load (`python -m bench.load
// --transport grpc`: one Python process tops out at a few thousand
// requests/s), and its
// --json document has the same rows, which bench/serve_bench.sh aggregates,
// plus the generator's own CPU per rate (generator_cpu_s and _us_per_request):
// over loopback the generators and the server share the host's cores.
//
// Open loop: the send times of a rate are drawn before it runs (Poisson, or
// every 1/rate); the sender issues each request at its time whether or not
// earlier ones were answered, and latency runs from the SCHEDULED time to
// the reply. A closed loop slows down with the server and never sees the
// queueing a real stream of clients meets ("coordinated omission"); here a
// stalled server or a late sender shows up in the latencies (and the lag
// column says how late the sender itself was).
//
// Honest inputs: a pool of --pool distinct valid items made with the
// library before the run (digests or messages from the OS; for the verify
// ops a key per 16 items and their signatures), cut into windows of
// --items and serialized once. Requests take the windows round robin and
// go out as those bytes (a generic stub over a static slice), so the
// generator copies nothing per request while the server does the work of
// every item.
//
//   kuaisuo-grpc-load --address 127.0.0.1:50051 --token-file tok --op verify-rows
//       --items 1024 --rates 500,2000,8000 --seconds 3 --json out.json
//
// Exit status: 0 when the run completed (refusals and errors are data), 2 on
// bad flags or unreadable flag files, 1 when the pool cannot be built or the
// server cannot be reached.
//
// Files: flags (options, --help), pool (inputs and prebuilt requests),
// keys (--check-key, --new-key), schedule (send times), client (channels,
// queues, launches and replies; rate_run.h the per-rate bookkeeping), stats
// (rows, percentiles, the --check-key check), report (table, notes, JSON
// through json_writer.h), library_run (--library), util, and this main.
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "client.h"
#include "flags.h"
#include "keys.h"
#include "library_run.h"
#include "mutex_mode.h"
#include "pool.h"
#include "report.h"
#include "schedule.h"
#include "stats.h"
#include "util.h"

namespace kuaisuo::load {
namespace {

// Runs every rate (after the warm-up) and returns the rows.
std::vector<Row> run_all(const Options& o, Client* client, const Pool& pool,
                         const ks_sm2_pubkey* check_key) {
  const uint64_t base_seed = o.has_seed ? o.seed : draw_seed();
  const bool poisson = o.arrivals == "poisson";
  // Fine-grained sleeps: the default 50 us timer slack would be lag. Best
  // effort: without it the sender is a little later, and the lag says so.
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  if (o.warmup > 0) {
    fprintf(stderr, "%s: warm-up at %g requests/s for %g s ...\n", kTool, o.rates[0], o.warmup);
    std::mt19937_64 rng = schedule_rng(base_seed, 0);
    RateRun warm(o.threads, false);
    client->run(&warm, schedule(o.rates[0], o.warmup, poisson, &rng));
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < o.rates.size(); ++i) {
    const double rate = o.rates[i];
    fprintf(stderr, "%s: %g requests/s for %g s ...\n", kTool, rate, o.seconds);
    std::mt19937_64 rng = schedule_rng(base_seed, i + 1);
    RateRun run(o.threads, check_key != nullptr);
    std::vector<double> offsets = schedule(rate, o.seconds, poisson, &rng);
    const double cpu_before = process_cpu_s();
    client->run(&run, offsets);
    Row row = summarize(&run, rate, o.seconds, o.items);
    row.cpu_s = process_cpu_s() - cpu_before;
    if (check_key != nullptr && run.sample.taken) {
      row.checked = true;
      row.check_failures = check_sample(run.sample, pool, check_key, o.items, &row.check_rows,
                                        &row.check_reports);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

int usage_error(const std::string& message) {
  fprintf(stderr, "%s: %s\n%s", kTool, message.c_str(), kUsage);
  return kExitFlags;
}

int load_main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  kuaisuo::serve::release_mode_mutexes();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("%s", kUsage);
      return 0;
    }
  }
  if ((argc == 3 || (argc == 4 && strcmp(argv[3], "ed25519") == 0)) &&
      strcmp(argv[1], "--new-key") == 0) {
    return write_new_key(argv[2], argc == 4);
  }
  Options o;
  const std::string error = parse_flags(argc, argv, &o);
  if (!error.empty()) return usage_error(error);

  if (!o.library.empty()) {
    Pool pool;
    if (!build_pool(o, std::max(o.pool, o.items), &pool)) return kExitSetup;
    return run_library(o, pool);
  }

  // Every file a flag names is read (or opened) before the long work.
  std::string token;
  if (!read_token(o.token_file, &token)) return kExitFlags;
  PubkeyPtr check_key;
  if (!o.check_key.empty() && !load_check_key(o.check_key, &check_key)) return kExitFlags;
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (!channel_credentials(o, &creds)) return kExitFlags;
  if (!o.json.empty() && !writable(o.json)) {
    fprintf(stderr, "%s: --json %s: %s\n", kTool, o.json.c_str(), strerror(errno));
    return kExitFlags;
  }

  const Host host = host_info();  // before the pool, as bench/load does
  // No item twice in one request: the pool holds at least a request's worth.
  const uint64_t pool_size = std::max(o.pool, o.items);
  const auto pool_start = Clock::now();
  Pool pool;
  std::vector<std::string> requests;
  if (!build_pool(o, pool_size, &pool) || !build_requests(o, pool, &requests)) {
    fprintf(stderr, "%s: cannot build the input pool\n", kTool);
    return kExitSetup;
  }
  fprintf(stderr, "%s: pool of %llu items, %zu requests of %llu, in %.2f s\n", kTool,
          static_cast<unsigned long long>(pool_size), requests.size(),
          static_cast<unsigned long long>(o.items), seconds_between(pool_start, Clock::now()));

  std::vector<Row> rows;
  {
    Client client(o, token, creds, std::move(requests));
    if (!client.connect()) return kExitSetup;
    rows = run_all(o, &client, pool, check_key.get());
  }

  printf("kuaisuo serve over gRPC (%s%s), %s, %llu items/request, %s arrivals, %llu channels\n",
         o.address.c_str(), o.cacert.empty() ? "" : ", TLS", o.op.c_str(),
         static_cast<unsigned long long>(o.items), o.arrivals.c_str(),
         static_cast<unsigned long long>(o.channels));
  print_table(rows, check_key != nullptr);
  print_notes(rows);
  if (check_key) print_check_summary(rows);

  if (!o.json.empty() && !write_file(o.json, report_json(o, host, rows))) {
    fprintf(stderr, "%s: --json %s: %s\n", kTool, o.json.c_str(), strerror(errno));
    return kExitSetup;
  }
  return 0;
}

}  // namespace
}  // namespace kuaisuo::load

int main(int argc, char** argv) { return kuaisuo::load::load_main(argc, argv); }
