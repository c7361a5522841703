"""An open-loop load generator for a running `kuaisuo serve` (HTTP/JSON or
gRPC), run from the checkout's root (it is not part of the installed
package; it needs kuaisuo and the serve extra, `pip install '.[serve]'`):

    python -m bench.load --op sign-digests --key-id gov --token-file tok \\
        --url http://127.0.0.1:8080 --rates 500,2000,8000 --items 8 --seconds 3 \\
        --json out.json --plot out.png

Modules: workload (ops, Target, Workload), inputs (payloads and pools),
schedule (send times), clients (HTTP and gRPC), run (one rate, every
rate), stats (tally and rows), report (table, JSON, plot), main (options).
bench/load/grpc is its native counterpart for gRPC, kuaisuo-grpc-load.

Open loop. For each target rate R the send times are fixed before the run:
every 1/R seconds (--arrivals fixed) or at exponentially distributed gaps
of mean 1/R (--arrivals poisson, a Poisson process). A request goes out at
its time whether or not earlier ones have been answered, and its latency is
measured from its *scheduled* send time to the end of its reply. A closed
loop (send, wait, send again) slows down with the server and so never
records the queueing a real stream of clients would meet ("coordinated
omission"); here a stalled server, a full connection pool (--concurrency)
or a late generator all show up in the latencies.

Every request carries fresh inputs: random messages (sign, hash) or random
32-byte digests (sign-digests); verify takes consecutive, distinct
(public key, message, signature) triples from a pool made locally with
kuaisuo before the run (--pool of them, many keys, all valid).

The numbers, per rate (one row each):
  offered       the target rate R, requests/s; `sent` requests were scheduled
  achieved      replies with HTTP 200 / gRPC OK per second, over the time from
                the first scheduled send to the last such reply (a server
                that falls behind and drains its backlog late scores lower)
  items/s       items with status 0 per second, same time base
  ok            requests answered 200 / OK (their items may still have failed)
  refused       requests refused whole: HTTP non-200, or a gRPC status other
                than UNAVAILABLE and DEADLINE_EXCEEDED (`refused_by_code`)
  item errors   items of ok requests with a non-zero status, by status code
                (kuaisuo.strerror names them: -60 overloaded, -61 deadline)
  transport     connection failures and the like (`transport_by_kind`)
  timeouts      no reply within --timeout-ms of the scheduled send time (plus
                0.25 s, so that the server's own answer for items past their
                deadline, status -61, can arrive); --timeout-ms also goes to
                the server as the request's timeout_ms
  p50 ... max   latency of the ok requests in milliseconds (timed-out ones are
                not in them: read the timeouts column next to them)
  lag p99/max   how late the generator itself launched requests (ms); when it
                is large the client, not the server, was the bottleneck (the
                JSON's client_cpu_s, this process's CPU time for the rate, near
                elapsed_s says the same); on a small host the generator and the
                server share the CPUs, and other load on it skews every number
"""

from .clients import open_client
from .inputs import Inputs, row_pool, verify_pool
from .main import build_parser, main, run_cli
from .report import host_info, plot, report, table
from .run import run_all, run_rate
from .schedule import schedule
from .stats import Tally, percentile, summarize
from .workload import (ARRIVALS, OPS, PERCENTILES, ROW_OPS, TOOL, TRANSPORTS, BenchError, Target,
                       Workload, check_workload)

__all__ = ["ARRIVALS", "OPS", "PERCENTILES", "ROW_OPS", "TOOL", "TRANSPORTS", "BenchError",
           "Inputs", "Tally", "Target", "Workload", "build_parser", "check_workload",
           "host_info", "main", "open_client", "percentile", "plot", "report", "row_pool",
           "run_all", "run_cli", "run_rate", "schedule", "summarize", "table", "verify_pool"]
