#!/usr/bin/env python3
"""One PNG of SM4 throughput against buffer size (issue 11's figure): the
GPU kernels (tools/sm4_gpu_bench's JSON: kernel-only, end to end from
pinned buffers with overlapped copies, and the bare copies in the same run)
and, when given, the CPU rows of `kuaisuo speed sm4` (one thread, ours and
OpenSSL's EVP SM4, from the same run).

Usage: python3 bench/plot_sm4.py SM4_KERNELS.json [SPEED.json] OUT.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def gpu_series(doc):
    out = {}
    for r in doc["results"]:
        if r["mode"] == "copy":
            if r["path"] != "pinned_overlap":
                continue
            label, style = "GPU copies in + out (pinned)", "k:"
        elif r["path"] == "kernel":
            label, style = f"GPU {r['kernel']} {r['mode']}, kernel only", \
                "-o" if r["kernel"] == "bitsliced" else "-^"
        elif r["path"] == "pinned_overlap" and r["mode"] == "ctr":
            label, style = f"GPU {r['kernel']} ctr, end to end (pinned)", "--s"
        else:
            continue
        out.setdefault((label, style), []).append((r["bytes"], r["gb_per_s"]))
    return out


def cpu_series(doc):
    out = {}
    for r in doc["results"]:
        if r.get("alg") != "sm4" or r["threads"] != 1 or r["batch"] != 1:
            continue
        if r["op"] not in ("ctr", "gcm", "cbc"):
            continue
        label = f"CPU 1 thread {r['impl']} {r['op']}"
        style = "-.x" if r["impl"] == "kuaisuo" else ":+"
        out.setdefault((label, style), []).append((r["msg_bytes"], r["bytes_per_s"] / 1e9))
    return out


def plot(gpu_doc, cpu_doc, path):
    fig, ax = plt.subplots(figsize=(9, 6))
    series = gpu_series(gpu_doc)
    if cpu_doc is not None:
        series.update(cpu_series(cpu_doc))
    for (label, style), pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label, markersize=4)
    ax.axhline(375, color="grey", linewidth=0.8)  # 3 Tbps: issue 11's CTR target
    ax.axhline(187.5, color="grey", linewidth=0.8, linestyle="--")  # 1.5 Tbps: GCM
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("buffer size (bytes)")
    ax.set_ylabel("GB/s of plaintext (1e9 bytes/s)")
    cpu = "" if cpu_doc is None else f" and {cpu_doc['machine'].get('cpu_model', 'CPU')}"
    ax.set_title(f"SM4: {gpu_doc['device']}{cpu}\n(grey lines: 3 Tbps CTR and 1.5 Tbps GCM)",
                 fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        gpu_doc = json.load(f)
    cpu_doc = None
    if len(argv) == 4:
        with open(argv[2], encoding="utf-8") as f:
            cpu_doc = json.load(f)
    plot(gpu_doc, cpu_doc, argv[-1])


if __name__ == "__main__":
    main(sys.argv)
