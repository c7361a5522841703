#!/usr/bin/env python3
"""Throughput and latency against batch size (seed 001 figures 7 and 8) for
SM2, SM3, Ed25519 and X25519 on the GPU, end to end (copies and host work included: every
batch call returns with its results in host memory), next to the CPU
backend on all threads at the sizes where it finishes in reasonable time.
SM2 digest-in, Ed25519 and X25519 rows come twice: with ordinary (pageable)
caller buffers and with pinned ones (ks_host_alloc), which the engine copies
directly.
The smallest batch at which the GPU beats the CPU is the AUTO crossover.

SM4-CTR and SKINNY-CTR rows sweep one buffer's size instead (64 KiB ..
1 GiB), then SM4 batches of 16 KiB messages with a key and IV each
(`--only sm4:batch`). Where CuPy is installed, the same calls on arrays
already in GPU memory follow (host_memory "device", `--only device`): SM3,
SM2 and Ed25519 verification and X25519 batches against their size, and
SM4-CTR, SM4-GCM and SKINNY-CTR against the buffer's size.

Usage: python3 bench/gpu_sweep.py OUT.json [--seconds S] [--only ALG[:OP] ...]
"""

import argparse
import json
import os
import sys
import time

from kuaisuo import _device_bench, _native

OPS = [("sm2", "keygen", "digest", 0), ("sm2", "sign", "digest", 32),
       ("sm2", "sign", "message", 64), ("sm2", "verify", "digest", 32),
       ("sm2", "verify", "message", 64), ("sm3", "hash", "message", 64),
       ("ed25519", "keygen", "message", 0), ("ed25519", "sign", "message", 64),
       ("ed25519", "verify", "message", 64), ("x25519", "keygen", "key", 0),
       ("x25519", "derive", "key", 0),
       # the GPU's wide fixed-base table (KS_GPU_WIDE_BASE_TABLE: secret-
       # dependent addresses, for a GPU no other tenant shares)
       ("ed25519", "keygen", "wide-table", 0), ("ed25519", "sign", "wide-table", 64),
       ("x25519", "keygen", "wide-table", 0)]
GPU_BATCHES = [1 << k for k in range(8, 23, 2)]   # 256 .. 4M
CPU_MAX_ITEMS_PER_S_SECOND = 2_000_000            # skip CPU rows that would crawl


def case(alg, op, backend, threads, batch, msg, kind, seconds, pinned=False):
    r = _native._bench_case(alg, op, "kuaisuo", backend, threads, batch, msg, seconds, kind,
                            pinned)
    if "error" in r:
        print(f"  {alg} {op} {kind} {backend} batch {batch}: {r['error']}", file=sys.stderr)
        return None
    return {"alg": alg, "op": op, "input": kind, "impl": "kuaisuo", "backend": backend,
            "threads": threads, "batch": batch, "msg_bytes": msg,
            "host_memory": "pinned" if pinned else "pageable",
            "ops_per_s": r["ops_per_s"], "bytes_per_s": r["bytes_per_s"],
            "latency_ms": 1e3 * batch / r["ops_per_s"]}


BUFFER_BYTES = [1 << k for k in range(16, 31, 2)]  # 64 KiB .. 1 GiB
# (backend, input, pinned) per cipher: the GPU from ordinary and pinned
# memory (SM4 also with its T-table kernel), and the CPU on every thread.
BUFFER_VARIANTS = {
    "sm4": (("gpu", "buffer", False), ("gpu", "buffer", True), ("gpu", "buffer-tables", True),
            ("cpu", "buffer", False)),
    "skinny128-256": (("gpu", "buffer", False), ("gpu", "buffer", True), ("cpu", "buffer", False)),
}


def sweep_buffers(rows, alg, threads, seconds):
    """CTR over one buffer (ks_sm4_crypt_buffer, ks_skinny128_256_crypt_buffer)
    against its size, in each of the cipher's BUFFER_VARIANTS."""
    for size in BUFFER_BYTES:
        first = len(rows)
        for backend, kind, pinned in BUFFER_VARIANTS[alg]:
            r = case(alg, "ctr", backend, threads, 1, size, kind, seconds, pinned)
            if r:
                r["latency_ms"] = 1e3 / r["ops_per_s"]
                rows.append(r)
        line = [f"{alg} ctr buffer {size:>11} B"]
        for r in rows[first:]:
            where = f"{r['backend']} {r['input']}" + (" pinned" if r["host_memory"] == "pinned" else "")
            line.append(f"{where} {r['bytes_per_s'] / 1e9:.2f} GB/s")
        print("  ".join(line), flush=True)


# Rows on CuPy arrays already in GPU memory (host_memory "device",
# kuaisuo/_device_bench.py): batches against their size, and one buffer
# against its size.
DEVICE_BATCH_OPS = [("sm3", "hash", "message", 64), ("sm2", "verify", "digest", 32),
                    ("sm2", "verify", "message", 64), ("ed25519", "verify", "message", 64),
                    ("x25519", "derive", "key", 0)]
DEVICE_BUFFER_OPS = [("sm4", "ctr"), ("sm4", "gcm"), ("skinny128-256", "ctr")]


def device_case(alg, op, batch, msg, kind, seconds):
    r = _device_bench.measure(alg, op, batch, msg, kind, seconds)
    if "error" in r:
        print(f"  {alg} {op} {kind} device batch {batch}: {r['error']}", file=sys.stderr)
        return None
    buffer = alg in ("sm4", "skinny128-256")
    return {"alg": alg, "op": op, "input": "buffer" if buffer else kind, "impl": "kuaisuo",
            "backend": "gpu", "threads": os.cpu_count() or 1, "batch": batch,
            "msg_bytes": msg, "host_memory": "device", "ops_per_s": r["ops_per_s"],
            "bytes_per_s": r["bytes_per_s"], "latency_ms": 1e3 * (1 if buffer else batch)
            / r["ops_per_s"]}


def sweep_device(rows, seconds, only):
    """The device-memory rows, where CuPy is installed."""
    for alg, op, kind, msg in DEVICE_BATCH_OPS:
        if only and alg not in only and f"{alg}:{op}" not in only and "device" not in only:
            continue
        for batch in GPU_BATCHES:
            r = device_case(alg, op, batch, msg, kind, seconds)
            if r is None:
                return
            rows.append(r)
            print(f"{alg} {op:6} {kind:7} batch {batch:>8}  device "
                  f"{r['ops_per_s']:.3e}/s {r['latency_ms']:.2f} ms", flush=True)
    for alg, op in DEVICE_BUFFER_OPS:
        if only and alg not in only and "device" not in only:
            continue
        for size in BUFFER_BYTES:
            r = device_case(alg, op, 1, size, "buffer", seconds)
            if r is None:
                return
            rows.append(r)
            print(f"{alg} {op} buffer {size:>11} B  device {r['bytes_per_s'] / 1e9:.2f} GB/s "
                  f"{r['latency_ms']:.3f} ms", flush=True)


SM4_BATCHES = [1 << k for k in range(6, 17, 2)]  # 64 .. 65536 messages of 16 KiB


def sweep_sm4_batches(rows, threads, seconds):
    """SM4-CTR and -GCM over many 16 KiB messages, each with its own key and IV
    (ks_sm4_batch), against the batch size: the GPU's many-message kernels
    on the pipeline from ordinary and from pinned caller memory, and the
    CPU on every thread."""
    for op in ("ctr", "gcm"):
        for batch in SM4_BATCHES:
            first = len(rows)
            for backend, pinned in (("gpu", False), ("gpu", True), ("cpu", False)):
                r = case("sm4", op, backend, threads, batch, 16 << 10, "message", seconds,
                         pinned)
                if r:
                    rows.append(r)
            print_batch_row(rows[first:], op, batch)


def print_batch_row(rows, op, batch):
    line = [f"sm4 {op} batch {batch:>6} x 16 KiB"]
    for r in rows:
        where = r["backend"] + (" pinned" if r["host_memory"] == "pinned" else "")
        line.append(f"{where} {r['bytes_per_s'] / 1e9:.2f} GB/s {r['latency_ms']:.2f} ms")
    print("  ".join(line), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--only", nargs="*", default=[],
                    help="rows to run, e.g. ed25519 or ed25519:sign (default: all)")
    args = ap.parse_args()
    threads = os.cpu_count() or 1
    rows = []
    started = time.monotonic()
    for alg, op, kind, msg in OPS:
        if args.only and alg not in args.only and f"{alg}:{op}" not in args.only:
            continue
        cpu_rate = None
        for batch in GPU_BATCHES:
            first = len(rows)
            gpu = case(alg, op, "gpu", threads, batch, msg, kind, args.seconds)
            if gpu:
                rows.append(gpu)
            if (alg, kind) == ("sm2", "digest") or alg in ("ed25519", "x25519"):  # also pinned
                pinned = case(alg, op, "gpu", threads, batch, msg, kind, args.seconds, True)
                if pinned:
                    rows.append(pinned)
            if kind != "wide-table" and (cpu_rate is None or batch / cpu_rate < 0.5):
                # the CPU, while its call takes under half a second
                cpu = case(alg, op, "cpu", threads, batch, msg, kind, args.seconds)
                if cpu:
                    rows.append(cpu)
                    cpu_rate = cpu["ops_per_s"]
            line = [f"{alg} {op:6} {kind:7} batch {batch:>8}"]
            for r in rows[first:]:
                where = r["backend"] + (" pinned" if r["host_memory"] == "pinned" else "")
                line.append(f"{where} {r['ops_per_s']:.3e}/s {r['latency_ms']:.2f} ms")
            print("  ".join(line), flush=True)
    for alg in BUFFER_VARIANTS:
        if not args.only or alg in args.only:
            sweep_buffers(rows, alg, threads, args.seconds)
    if not args.only or "sm4" in args.only or "sm4:batch" in args.only:
        sweep_sm4_batches(rows, threads, args.seconds)
    sweep_device(rows, args.seconds, args.only)
    machine = {"gpu": _native._gpu_info(0), "cpu_model": _native._cpu_model(),
               "online_cpus": threads, "seconds_per_case": args.seconds,
               "elapsed_s": time.monotonic() - started}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"machine": machine, "results": rows}, f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
