"""The command line: options, the run, its table, JSON and plot."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from typing import Any, Callable, List, Optional, Tuple

from .report import host_info, plot, report, table
from .run import run_all
from .workload import ARRIVALS, OPS, TOOL, TRANSPORTS, BenchError, Target, Workload

PROG = "python -m bench.load"


def _rates(text: str) -> List[float]:
    try:
        rates = [float(r) for r in text.split(",") if r.strip()]
    except ValueError:
        rates = []
    if not rates or not all(r > 0 and math.isfinite(r) for r in rates):
        raise argparse.ArgumentTypeError(f"expected positive rates such as 1000,5000, not {text}")
    return rates


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    """The command line: `python -m bench.load [options]`."""
    from . import __doc__ as doc
    open_loop = next(p for p in (doc or "").split("\n\n") if p.startswith("Open loop."))
    p = argparse.ArgumentParser(prog=PROG, description=open_loop.replace("\n", " "))
    p.add_argument("--op", choices=OPS, default="sign-digests")
    p.add_argument("--rates", type=_rates, default=[1000.0], metavar="R1,R2,...",
                   help="offered requests/s, one run each (default 1000)")
    p.add_argument("--seconds", type=_positive(float), default=5.0, help="per rate (default 5)")
    p.add_argument("--warmup", type=float, default=1.0, metavar="SECONDS",
                   help="unrecorded run at the first rate before measuring (default 1; 0: none)")
    p.add_argument("--items", type=_positive(int), default=8, help="items per request (default 8)")
    p.add_argument("--key-id", help="key id (sign, sign-digests, sign-rows; encrypt: an SM4 key)")
    p.add_argument("--algorithm", choices=("sm2", "ed25519"), default="sm2",
                   help="verify: the signatures' algorithm (default sm2)")
    p.add_argument("--message-bytes", type=int, default=64,
                   help="sign, hash, encrypt, encrypt-rows (default 64)")
    p.add_argument("--pool", type=_positive(int), default=4096,
                   help="verify: distinct triples made beforehand (default 4096)")
    p.add_argument("--arrivals", choices=ARRIVALS, default="poisson",
                   help="inter-arrival times: exponential (default) or fixed")
    p.add_argument("--seed", type=int, help="of the arrival schedule")
    _add_target_options(p)
    p.add_argument("--json", metavar="FILE", help="write the parameters, host and rows as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="latency against throughput (matplotlib)")
    return p


def _add_target_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--transport", choices=TRANSPORTS, default="http")
    p.add_argument("--url", default="http://127.0.0.1:8080",
                   help="HTTP base URL (default http://127.0.0.1:8080; https:// for TLS)")
    p.add_argument("--address", metavar="HOST:PORT", help="gRPC address")
    token = p.add_mutually_exclusive_group(required=True)
    token.add_argument("--token", help="bearer token (visible to ps; prefer --token-file)")
    token.add_argument("--token-file", metavar="FILE", help="file holding the bearer token")
    p.add_argument("--cafile", metavar="PEM", help="CAs to verify the server's TLS certificate")
    p.add_argument("--concurrency", type=_positive(int), default=64,
                   help="HTTP: most open connections (default 64)")
    p.add_argument("--channels", type=_positive(int), default=1,
                   help="gRPC: channels used round robin (default 1)")
    p.add_argument("--timeout-ms", type=_positive(int), default=5000,
                   help="per request, from its scheduled send time (default 5000)")


def _token(args: argparse.Namespace) -> str:
    if args.token is not None:
        return args.token
    with open(args.token_file) as f:
        token = f.read().strip()
    if not token:
        raise BenchError(f"{args.token_file}: empty token file")
    return token


def _from_args(args: argparse.Namespace) -> Tuple[Target, Workload]:
    target = Target(transport=args.transport, url=args.url, address=args.address,
                    token=_token(args), cafile=args.cafile, concurrency=args.concurrency,
                    channels=args.channels)
    workload = Workload(op=args.op, items=args.items, key_id=args.key_id,
                        algorithm=args.algorithm, message_bytes=args.message_bytes,
                        timeout_ms=args.timeout_ms, arrivals=args.arrivals, pool=args.pool,
                        seed=args.seed)
    return target, workload


def _title(target: Target, workload: Workload) -> str:
    where = target.url if target.transport == "http" else target.address
    return (f"kuaisuo serve, {workload.op} over {target.transport} ({where}), "
            f"{workload.items} items/request, {workload.arrivals} arrivals")


def run_cli(args: argparse.Namespace) -> int:
    """The command: 0 when some request succeeded, 1 when none
    did (wrong token, key id, address...), 2 on usage errors."""
    try:
        target, workload = _from_args(args)
        host = host_info()
        rows = asyncio.run(run_all(target, workload, args.rates, args.seconds, args.warmup))
    except (BenchError, OSError) as e:
        print(f"{TOOL}: {e}", file=sys.stderr)
        return 2
    print(_title(target, workload))
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report(target, workload, args.rates, args.seconds, rows, host), f, indent=1)
            f.write("\n")
    if args.plot:
        plot(rows, args.plot, _title(target, workload))
    if not any(r["ok"] for r in rows):
        print(f"{TOOL}: no request succeeded", file=sys.stderr)
        return 1
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """`python -m bench.load ARGS` (from the checkout's root)."""
    return run_cli(build_parser().parse_args(argv))
