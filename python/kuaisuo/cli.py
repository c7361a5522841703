"""The `kuaisuo` command line tool.

  kuaisuo sm3 FILE...      SM3 digests in sha256sum format ("-" is stdin)
  kuaisuo speed [ALG...]   throughput next to OpenSSL's, measured in one run
  kuaisuo info             version, CPU features and GPUs seen
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import BinaryIO, List, Optional

from . import SM3, __version__, _native, cpu_features, gpu_built, gpu_device_count

CHUNK = 1 << 20


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _hash_stream(stream: BinaryIO) -> str:
    h = SM3()
    for chunk in iter(lambda: stream.read(CHUNK), b""):
        h.update(chunk)
    return h.hexdigest()


def cmd_sm3(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files or ["-"]:
        try:
            if name == "-":
                digest = _hash_stream(sys.stdin.buffer)
            else:
                with open(name, "rb") as f:
                    digest = _hash_stream(f)
        except OSError as e:
            print(f"kuaisuo sm3: {name}: {e.strerror or e}", file=sys.stderr)
            status = 1
            continue
        print(f"{digest}  {name}")
    return status


def cmd_speed(args: argparse.Namespace) -> int:
    from . import speed

    algs = args.algs or list(speed.ALGORITHMS)
    unknown = [a for a in algs if a not in speed.PLANS]
    if unknown:
        print(f"kuaisuo speed: unknown algorithm {', '.join(unknown)} "
              f"(known: {', '.join(speed.ALGORITHMS)})", file=sys.stderr)
        return 2
    threads = args.threads or os.cpu_count() or 1
    return speed.run(algs, args.backend, threads, args.batch, args.seconds, args.json)


def cmd_info(_: argparse.Namespace) -> int:
    print(f"kuaisuo {__version__}")
    print(f"cpu: {_native._cpu_model()} [{cpu_features()}]")
    print(f"cuda backend: {'built' if gpu_built() else 'not built'}")
    for i in range(gpu_device_count()):
        g = _native._gpu_info(i)
        print(f"gpu {i}: {g['name']} (sm_{g['compute_capability'].replace('.', '')}, "
              f"{g['multiprocessors']} SMs, {g['memory_bytes'] >> 30} GiB)")
    print(f"openssl: {_native._openssl_version() or 'not found'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kuaisuo", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"kuaisuo {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("sm3", help="print SM3 digests of files (sha256sum format)")
    s.add_argument("files", nargs="*", metavar="FILE", help='files to hash; "-" is stdin')
    s.set_defaults(func=cmd_sm3)

    s = sub.add_parser("speed", help="measure throughput next to OpenSSL's")
    s.add_argument("algs", nargs="*", metavar="ALG", help="algorithms (default: all)")
    s.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto")
    s.add_argument("--threads", type=_positive_int, default=None,
                   help="CPU threads for the all-threads rows (default: every CPU)")
    s.add_argument("--batch", type=_positive_int, default=None,
                   help="items per batch call (default: 4096 on the CPU, 2^20 on the GPU)")
    s.add_argument("--seconds", type=_positive_float, default=1.0,
                   help="timing budget per case (default 1)")
    s.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    s.set_defaults(func=cmd_speed)

    s = sub.add_parser("info", help="show version, CPU features and GPUs")
    s.set_defaults(func=cmd_info)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 141


if __name__ == "__main__":
    sys.exit(main())
