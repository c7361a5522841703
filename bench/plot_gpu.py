#!/usr/bin/env python3
"""PNG plots from bench/gpu_sweep.py's JSON: throughput and latency against
batch size, GPU (end to end) and CPU (all threads), one line per operation.

Usage: python3 bench/plot_gpu.py SWEEP.json OUT_PREFIX
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def series(rows, backend):
    out = {}
    for r in rows:
        where = r["backend"] + (" pinned" if r.get("host_memory") == "pinned" else "")
        if where != backend:
            continue
        label = f"{r['alg']} {r['op']}" + ("" if r["op"] == "keygen" or r["alg"] == "sm3"
                                            else f" ({r['input']})")
        out.setdefault(label, []).append((r["batch"], r["ops_per_s"], r["latency_ms"]))
    return {k: sorted(v) for k, v in out.items()}


def plot(doc, prefix):
    rows, gpu_name = doc["results"], (doc["machine"].get("gpu") or {}).get("name", "GPU")
    for metric, index, ylabel in (("throughput", 1, "operations / s"),
                                  ("latency", 2, "batch latency (ms)")):
        fig, ax = plt.subplots(figsize=(8, 5))
        for backend, style in (("gpu", "-o"), ("gpu pinned", ":s"), ("cpu", "--x")):
            for label, pts in series(rows, backend).items():
                ax.plot([p[0] for p in pts], [p[index] for p in pts], style,
                        label=f"{label}, {backend}", markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("batch size (items per call)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"kuaisuo {metric}, end to end: {gpu_name} vs "
                     f"{doc['machine'].get('online_cpus')} CPU threads")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(f"{prefix}-{metric}.png", dpi=110)
        plt.close(fig)
        print(f"wrote {prefix}-{metric}.png")


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        plot(json.load(f), sys.argv[2])
