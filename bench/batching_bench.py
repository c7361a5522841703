#!/usr/bin/env python3
"""Throughput and latency of kuaisuo.batching in one process: C concurrent
clients (asyncio tasks), each sending requests of K items one after the
other for S seconds (closed loop), SM2 signing of random 32-byte digests
under one key; next to the same digests signed one call per item on the
calling thread (what a service without batching does). Reports items/s and
request latency p50/p99/p99.9, as a table and as JSON.

The figures bound what a server built on this core can do before its
transport adds its own costs: the Python event loop's per-request work
against the library's batch rate.

Usage: python3 bench/batching_bench.py [--backend auto] [--seconds 2]
           [--clients 1,16,256,1024] [--items 1,16] [--max-delay 0.002] [--json OUT]
"""

import argparse
import asyncio
import json
import os
import platform
import statistics
import time

import kuaisuo
from kuaisuo import batching
from kuaisuo.sm2 import SM2PrivateKey


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def closed_loop(ctx, key, clients, items, seconds, max_delay):
    batcher = batching.Batcher(ctx, max_batch=4096, max_delay=max_delay)
    digests = [os.urandom(32) for _ in range(4096)]
    latencies = []
    done_items = 0
    stop = time.perf_counter() + seconds

    async def client(seed):
        nonlocal done_items
        i = seed
        while time.perf_counter() < stop:
            request = [digests[(i + j) % len(digests)] for j in range(items)]
            i += items
            t = time.perf_counter()
            reply = await batcher.submit(batching.SM2_SIGN_DIGESTS, key, request)
            latencies.append(time.perf_counter() - t)
            if any(status != 0 for status, _ in reply):
                raise RuntimeError(f"status {reply[0][0]}")
            done_items += items

    start = time.perf_counter()
    await asyncio.gather(*(client(c * 97) for c in range(clients)))
    elapsed = time.perf_counter() - start
    await batcher.close()
    latencies.sort()
    stats = batcher.stats
    return {
        "clients": clients, "items_per_request": items, "seconds": elapsed,
        "items_per_s": done_items / elapsed, "requests": len(latencies),
        "p50_ms": 1e3 * percentile(latencies, 0.5), "p99_ms": 1e3 * percentile(latencies, 0.99),
        "p999_ms": 1e3 * percentile(latencies, 0.999),
        "mean_batch": stats.items / max(1, stats.batches), "largest_batch": stats.largest_batch,
    }


def one_call_per_item(key, seconds):
    digests = [os.urandom(32) for _ in range(1024)]
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for d in digests[:64]:
            key.sign_digest(d)
        n += 64
    return n / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--clients", default="1,16,256,1024")
    ap.add_argument("--items", default="1,16")
    ap.add_argument("--max-delay", type=float, default=0.002)
    ap.add_argument("--json")
    args = ap.parse_args()
    ctx = kuaisuo.Context(backend=args.backend)
    key = SM2PrivateKey.generate()
    single = one_call_per_item(key, args.seconds)
    print(f"SM2 sign (digest), backend {ctx.backend}, {ctx.threads} CPU threads, "
          f"max_delay {args.max_delay * 1e3:g} ms")
    print(f"one call per item on the calling thread: {single:,.0f} items/s")
    print(f"{'clients':>8} {'items/req':>9} {'items/s':>12} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'p99.9 ms':>9} {'mean batch':>10}")
    rows = []
    for items in [int(x) for x in args.items.split(",")]:
        for clients in [int(x) for x in args.clients.split(",")]:
            r = asyncio.run(closed_loop(ctx, key, clients, items, args.seconds, args.max_delay))
            rows.append(r)
            print(f"{clients:>8} {items:>9} {r['items_per_s']:>12,.0f} {r['p50_ms']:>8.2f} "
                  f"{r['p99_ms']:>8.2f} {r['p999_ms']:>9.2f} {r['mean_batch']:>10.1f}")
    if args.json:
        doc = {"benchmark": "batching_bench", "machine": {
                   "cpu": platform.processor() or platform.machine(), "online_cpus": os.cpu_count(),
                   "backend": ctx.backend, "threads": ctx.threads,
                   "kuaisuo_version": kuaisuo.__version__ if hasattr(kuaisuo, "__version__")
                   else None},
               "op": "sm2.sign_digests", "max_delay_s": args.max_delay,
               "one_call_per_item_per_s": single, "results": rows}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
