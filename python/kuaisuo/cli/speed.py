"""`kuaisuo speed [ALG...]`: throughput next to OpenSSL's (and GmSSL's,
libsodium's where installed), measured in one run (kuaisuo.speed)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import List

from ._common import BACKEND_HELP, MAX_THREADS, positive_seconds, whole_number


_SIZE_UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
               "g": 1 << 30, "gib": 1 << 30}


def byte_size(text: str) -> int:
    """An argparse type: a byte count, bare or with K/M/G (KiB/MiB/GiB,
    powers of 1024), from 1 MiB to 1 GiB."""
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    unit = _SIZE_UNITS.get(m.group(2).lower()) if m else None
    value = int(m.group(1)) * unit if m and unit else 0
    if not (1 << 20) <= value <= (1 << 30):
        raise argparse.ArgumentTypeError(
            f"must be a size from 1MiB to 1GiB (e.g. 64M, 1GiB), not {text}")
    return value


NUMBER_OPTIONS = ("--threads", "--batch", "--seconds", "--max-bytes")


def attach_values(argv: List[str]) -> List[str]:
    """`--seconds -1e3` as `--seconds=-1e3`: argparse takes a value that
    starts with "-" for an option unless it looks like a plain negative
    number ("-1", "-.5"), and would answer "expected one argument" where
    the value's own error (naming the accepted range) is wanted."""
    out: List[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":  # the rest are operands
            return out + argv[i:]
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if argv[i] in NUMBER_OPTIONS and value.startswith("-") and not value.startswith("--"):
            out.append(f"{argv[i]}={value}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def run(args: argparse.Namespace) -> int:
    from .. import speed

    algs = args.algs or list(speed.ALGORITHMS)
    unknown = [a for a in algs if a not in speed.PLANS]
    if unknown:
        print(f"kuaisuo speed: unknown algorithm {', '.join(unknown)} "
              f"(known: {', '.join(speed.ALGORITHMS)})", file=sys.stderr)
        return 2
    threads = args.threads or os.cpu_count() or 1
    return speed.run(algs, args.backend, threads, args.batch, args.seconds, args.json,
                     args.plot, args.max_bytes)


def add_parser(sub) -> None:
    from .. import speed as _speed

    s = sub.add_parser("speed", help="measure throughput next to OpenSSL's (and GmSSL's, "
                       "libsodium's where installed)",
                       description=_speed.help_description(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("algs", nargs="*", metavar="ALG",
                   help=f"algorithms: {', '.join(_speed.ALGORITHMS)} (default: all)")
    s.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto", help=BACKEND_HELP)
    s.add_argument("--threads", type=whole_number("threads", 1, MAX_THREADS), default=None,
                   metavar="N",
                   help="CPU threads for the all-threads rows, 1 to 4096 (default: every CPU)")
    s.add_argument("--batch", type=whole_number("items", 1), default=None, metavar="N",
                   help="items per batch call (default: 4096 on the CPU, 2^20 on the GPU)")
    s.add_argument("--seconds", type=positive_seconds, default=1.0, metavar="SECONDS",
                   help="timing budget per case, in seconds (default 1)")
    s.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    s.add_argument("--plot", metavar="FILE.png",
                   help="also draw the ratios to OpenSSL and to each peer measured as a "
                        "PNG (needs matplotlib)")
    s.add_argument("--max-bytes", type=byte_size, default=4 << 20, metavar="SIZE",
                   help="largest SM4 buffer, 1MiB to 1GiB (default 4MiB; 1GiB makes each "
                        "OpenSSL row take minutes)")
    s.set_defaults(func=run)
