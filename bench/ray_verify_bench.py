"""Rows/s of the Ray Data verification job (kuaisuo_serve.ray_app.verify_parquet)
on a Parquet table of fresh SM2 (or Ed25519) rows, one in every 1,000 made
invalid, with the statuses checked against the library afterwards.

    python bench/ray_verify_bench.py --rows 1000000 [--algorithm sm2] [--num-gpus 0]
        [--json out.json]

Prints and writes: rows, seconds for the job (read, verify, write), rows/s,
and the table-making time apart."""

import argparse
import datetime
import json
import os
import platform
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq
import ray

import kuaisuo
from kuaisuo.sm2 import SM2PrivateKey
from kuaisuo_serve import ray_app

PER_KEY = 1000


def make_table(ctx, rows: int, algorithm: str):
    keys, messages, signatures = [], [], []
    for start in range(0, rows, PER_KEY):
        n = min(PER_KEY, rows - start)
        batch = [os.urandom(64) for _ in range(n)]
        if algorithm == "sm2":
            key = SM2PrivateKey.generate()
            keys += [key.public_key().public_bytes_raw()] * n
            signatures += ctx.sm2.sign(key, batch)
        else:
            [(seed, public)] = ctx.ed25519.keygen(1)
            keys += [public] * n
            signatures += ctx.ed25519.sign([seed] * n, batch)
        messages += batch
    for i in range(0, rows, 1000):  # one row in 1,000: another message
        messages[i] = os.urandom(64)
    return pa.table({"public_key": keys, "message": messages, "signature": signatures})


def gpu_names() -> list:
    """The names of the GPUs the library sees (none on a CPU-only build)."""
    from kuaisuo import _native
    return [_native._gpu_info(i)["name"] for i in range(kuaisuo.gpu_device_count())]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--algorithm", choices=("sm2", "ed25519"), default="sm2")
    p.add_argument("--num-gpus", type=float, default=0)
    p.add_argument("--batch-size", type=int, default=16384)
    p.add_argument("--json")
    args = p.parse_args()
    ctx = kuaisuo.Context("cpu")
    t = time.perf_counter()
    table = make_table(ctx, args.rows, args.algorithm)
    made = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        pq.write_table(table, f"{tmp}/in.parquet", row_group_size=65536)
        ray.init(include_dashboard=False, log_to_driver=False)
        t = time.perf_counter()
        ray_app.verify_parquet(f"{tmp}/in.parquet", f"{tmp}/out", args.algorithm,
                               batch_size=args.batch_size, num_gpus=args.num_gpus)
        seconds = time.perf_counter() - t
        out = pq.read_table(f"{tmp}/out")
        ray.shutdown()
    statuses = out.column("status").to_pylist()
    messages = out.column("message").to_pylist()
    bad = sum(1 for s in statuses if s != 0)
    verify = ctx.sm2.verify if args.algorithm == "sm2" else ctx.ed25519.verify
    sample = list(range(0, len(statuses), 997))[:2000]
    keys, sigs = out.column("public_key").to_pylist(), out.column("signature").to_pylist()
    want = verify([keys[i] for i in sample], [messages[i] for i in sample],
                  [sigs[i] for i in sample])
    assert [statuses[i] for i in sample] == list(want), "statuses differ from the library"
    assert len(statuses) == args.rows and bad == len(range(0, args.rows, 1000))
    result = {"tool": "bench/ray_verify_bench.py", "algorithm": args.algorithm,
              "rows": args.rows, "invalid_rows": bad, "num_gpus": args.num_gpus,
              "batch_size": args.batch_size, "job_seconds": round(seconds, 3),
              "rows_per_s": round(args.rows / seconds), "table_seconds": round(made, 3),
              "ray": ray.__version__, "host": {"platform": platform.platform(),
                                               "cpus": os.cpu_count(), "gpus": gpu_names()},
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
