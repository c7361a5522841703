"""`kuaisuo info`: version, CPU features, GPUs and OpenSSL seen."""

from __future__ import annotations

import argparse

from .. import __version__, _native, cpu_features, gpu_built, gpu_device_count


def run(_: argparse.Namespace) -> int:
    print(f"kuaisuo {__version__}")
    print(f"cpu: {_native._cpu_model()} [{cpu_features()}]")
    print(f"cuda backend: {'built' if gpu_built() else 'not built'}")
    for i in range(gpu_device_count()):
        g = _native._gpu_info(i)
        print(f"gpu {i}: {g['name']} (sm_{g['compute_capability'].replace('.', '')}, "
              f"{g['multiprocessors']} SMs, {g['memory_bytes'] >> 30} GiB)")
    print(f"openssl: {_native._openssl_version() or 'not found'}")
    return 0


def add_parser(sub) -> None:
    s = sub.add_parser("info", help="show version, CPU features and GPUs")
    s.set_defaults(func=run)
