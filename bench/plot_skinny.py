#!/usr/bin/env python3
"""One PNG of SKINNY-128-256 on the GPU (issue 12's figure) from
tools/skinny_gpu_bench's JSON: left, throughput against buffer size for
each kernel (kernel only, and CTR end to end from pinned buffers with the
copies overlapped, next to the copies alone); right, the speedup over the
one-thread table-based CPU code measured in the same run at 16 MiB, the
seed's comparison, beside its 671x (ECB) and 765x (CTR) on a GTX TITAN X.

Usage: python3 bench/plot_skinny.py SKINNY_KERNELS.json OUT.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SEED_SPEEDUP = {"ecb": 671, "ctr": 765}  # seed 003, 16 MB, GTX TITAN X
KERNELS = ("bitsliced", "circuit", "tables-shared", "tables-constant")


def throughput(ax, doc):
    series = {}
    for r in doc["results"]:
        if r["kernel"] == "-":
            if "overlapped" not in r["path"]:
                continue
            key = ("pinned copies alone (overlapped)", "k:")
        elif r["path"] == "kernel":
            key = (f"{r['kernel']} {r['mode']}, kernel only", "-o" if r["mode"] == "ctr" else "-^")
        elif r["mode"] == "ctr":
            key = (f"{r['kernel']} ctr, end to end (pinned)", "--s")
        else:
            continue
        series.setdefault(key, []).append((r["bytes"], r["gbit_per_s"]))
    for (label, style), pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label, markersize=4)
    ax.axhline(2000, color="grey", linewidth=0.8)  # issue 12's CTR target at >= 64 MiB
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("buffer size (bytes)")
    ax.set_ylabel("Gbit/s (grey: 2 Tbps)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=5.5, ncol=2)


def speedups(ax, doc):
    at = 16 << 20
    rows = {(r["kernel"], r["mode"], r["path"]): r["x_cpu_table_x1"]
            for r in doc["results"] if r["bytes"] == at}
    labels, values, colors = [], [], []
    for mode in ("ecb", "ctr"):
        labels.append(f"seed {mode} (TITAN X)")
        values.append(SEED_SPEEDUP[mode])
        colors.append("grey")
        for k in KERNELS:
            for path, short, color in (("kernel", "kernel", "tab:blue"),
                                       ("end to end, pinned, overlapped", "e2e", "tab:orange")):
                if (k, mode, path) in rows:
                    labels.append(f"{k} {mode} {short}")
                    values.append(rows[(k, mode, path)])
                    colors.append(color)
    ax.barh(labels, values, color=colors)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=6)
    ax.set_xlabel("x one CPU thread of table-based SKINNY (16 MiB, same run)")
    ax.grid(True, axis="x", which="both", alpha=0.3)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 6))
    throughput(left, doc)
    speedups(right, doc)
    base = doc["cpu_table_x1_gbit_per_s"]
    fig.suptitle(f"SKINNY-128-256 on {doc['device']}; one-thread table baseline "
                 f"{base['ecb'] * 125:.0f} MB/s ECB, {base['ctr'] * 125:.0f} MB/s CTR", fontsize=9)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"wrote {argv[2]}")


if __name__ == "__main__":
    main(sys.argv)
