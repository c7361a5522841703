"""Latency against throughput for bench/serve_bench.sh's JSON: one PNG per
file and op, drawn by the load generator's own plot() (bench/load/report.py:
p50 / p99 / p99.9 against achieved items/s; the latencies are the worst
generator's).

    python bench/plot_serve.py bench/results/X.json [Y.json ...]

writes X-<op>.png beside each file.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench.load.report import plot  # noqa: E402  (the checkout's bench/, not a package)


def curve(rows):
    """serve_bench.sh's summed rows in the load generator's row shape."""
    return [{"offered_rps": r["offered_rps"], "achieved_items_per_s": r["items_per_s"],
             "latency_ms": r["latency_ms_max_of_processes"]} for r in rows]


def main(paths):
    for path in paths:
        doc = json.load(open(path))
        for op, rows in doc["ops"].items():
            device = doc.get("device", "").split(" (")[0]
            title = (f"{doc.get('server', 'serve')} {op}, {doc['items_per_request']} items/request, "
                     f"{doc.get('server_processes', 1)} server process(es), "
                     f"{doc.get('generator_processes', 1)} generators\n{device}")
            out = f"{os.path.splitext(path)[0]}-{op}.png"
            if plot(curve(rows), out, title):
                print(out)


if __name__ == "__main__":
    main(sys.argv[1:])
