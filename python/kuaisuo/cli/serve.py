"""`kuaisuo serve`: the HTTP/JSON and gRPC server, which is the
kuaisuo_serve package (serve/README.md; its dependencies come with the
serve extra, `pip install '.[serve]'` from the checkout). This is the one
module of the library that imports kuaisuo_serve, and only when the
command runs (or its options are built for `kuaisuo serve ...`): other
commands neither import it nor pay for its start-up."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, Optional, Tuple

from .. import gpu_device_count
from ._common import BACKEND_HELP, MAX_THREADS, Failure, guarded, positive_seconds, whole_number
from ._keys import PASS_SPEC, passphrase


# What the serve extra installs, by the listener that needs it (the
# generated protobuf module checks the protobuf runtime's version).
EXTRA = {"http": ("aiohttp",), "grpc": ("grpc", "google.protobuf", "kuaisuo_serve.grpc_api")}
INSTALL = "pip install '.[serve]' from the kuaisuo checkout"


def add_parser(sub: Any, options: bool = True) -> None:
    """The serve subcommand; its options only where options is true (main
    builds them only when serve is the command: their defaults come from
    kuaisuo_serve.Config, and importing that package costs other commands
    a tenth of a second)."""
    s = sub.add_parser("serve", help="sign, verify and hash over HTTP/JSON and gRPC, "
                                     "requests batched onto the CPU or GPU",
                       description="Keys: KEYS/<id>.pem|.der (PKCS#8, encrypted unless "
                                   "--allow-plain). Clients: bearer tokens listed by SHA-256 "
                                   "in the --access JSON file. SIGTERM/SIGINT drain and stop, "
                                   "SIGHUP reloads the keys.")
    s.set_defaults(func=run)
    if options:
        _add_options(s)


def _config_defaults() -> Dict[str, Any]:
    """kuaisuo_serve.Config's defaults; none where the package is missing
    (the command then says so when it runs)."""
    import dataclasses
    try:
        from kuaisuo_serve import Config
    except ImportError:
        return {}
    return {f.name: f.default for f in dataclasses.fields(Config)}


def _add_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--keys", required=True, metavar="DIR", help="the key store directory")
    s.add_argument("--access", required=True, metavar="FILE",
                   help='{"tokens": {"<sha256 hex of a token>": ["key id", ... or "*"]}}')
    s.add_argument("--passin", metavar="SPEC",
                   help="passphrase of the encrypted key files: " + PASS_SPEC.format("in"))
    s.add_argument("--allow-plain", action="store_true", help="accept unencrypted key files")
    s.add_argument("--http", default="127.0.0.1:8080", metavar="HOST:PORT",
                   help="HTTP/JSON listener (default 127.0.0.1:8080; 'off' for none)")
    s.add_argument("--grpc", default=None, metavar="HOST:PORT", help="gRPC listener")
    s.add_argument("--tls-cert", metavar="PEM", help="certificate chain (TLS on both listeners)")
    s.add_argument("--tls-key", metavar="PEM", help="its private key")
    s.add_argument("--tls-client-ca", metavar="PEM", help="require client certificates from "
                                                          "these CAs (mutual TLS)")
    s.add_argument("--allow-insecure", action="store_true",
                   help="allow plain listeners on non-loopback addresses")
    s.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto", help=BACKEND_HELP)
    s.add_argument("--devices", default="0", metavar="LIST",
                   help="GPUs to serve from, one engine each: 'all' or indices such as 0,1 "
                        "(default 0)")
    s.add_argument("--threads", type=whole_number("threads", 0, MAX_THREADS), default=0,
                   metavar="N",
                   help="CPU threads (default 0: every CPU)")
    s.add_argument("--max-batch", type=whole_number("items", 1), default=4096, metavar="N",
                   help="most items in one batch call (default 4096)")
    s.add_argument("--max-delay-ms", type=float, default=2.0, metavar="MS",
                   help="longest an item waits for its batch to fill (default 2)")
    s.add_argument("--max-queued", type=whole_number("items", 1), default=1 << 20, metavar="N",
                   help="items accepted and unfinished before requests get 'overloaded'")
    s.add_argument("--max-items", type=whole_number("items", 1), default=4096, metavar="N",
                   help="items in one request (default 4096)")
    s.add_argument("--audit-log", metavar="FILE", help="audit lines here (default: stderr)")
    s.add_argument("--workers", type=whole_number("processes", 1, 256), default=1, metavar="N",
                   help="processes sharing the ports (SO_REUSEPORT), each with its own "
                        "event loop and engines (default 1; fixed ports only)")
    s.add_argument("--seal-ledger", metavar="FILE",
                   help="where SM4 seals are counted per key against SP 800-38D's 2^32 "
                        "random nonces, shared by the workers and kept across restarts "
                        "(default KEYS/.kuaisuo-seals.json)")
    s.add_argument("--share-devices", action="store_true",
                   help="with --workers: every process drives every GPU of --devices "
                        "(default: each process its own share, one GPU each where there "
                        "are enough processes)")
    default = _config_defaults()
    s.add_argument("--max-connections", type=whole_number("connections", 1),
                   default=default.get("max_connections"), metavar="N",
                   help="HTTP connections open at once per process; more are closed as "
                        "accepted (default %(default)s, kept under the open-file limit)")
    for name, what in (
            ("header_timeout", "an HTTP connection that has not sent a request's headers this "
                               "long after it was accepted is closed"),
            ("read_timeout", "a request body not received whole in this time gets 408"),
            ("idle_timeout", "idle keep-alive HTTP and gRPC connections are closed after this"),
            ("drain_seconds", "on SIGTERM/SIGINT, how long accepted requests may take to "
                              "finish")):
        s.add_argument("--" + name.replace("_", "-"), type=positive_seconds, default=default.get(name),
                       metavar="SECONDS", help=what + " (default %(default)g)")
    s.add_argument("--max-pbkdf2-iterations", type=whole_number("iterations", 1),
                   metavar="N", help="refuse key files whose PBKDF2 asks for more "
                                     "iterations (default: the library's bound, 600,000)")


def _devices(spec: str) -> Tuple[int, ...]:
    """--devices: 'all' (every GPU found; device 0 where none is) or a list."""
    if spec == "all":
        return tuple(range(max(1, gpu_device_count())))
    try:
        devices = tuple(int(d) for d in spec.split(","))
    except ValueError:
        raise Failure(f"--devices: expected 'all' or indices such as 0,1, not {spec!r}") from None
    if not devices or min(devices) < 0 or len(set(devices)) != len(devices):
        raise Failure(f"--devices {spec}: distinct non-negative indices")
    return devices


def run(args: argparse.Namespace) -> int:
    return guarded("serve", lambda: _serve(args))


def _imports(args: argparse.Namespace) -> Tuple[Any, ...]:
    """kuaisuo_serve's names that the command uses, once the modules its
    listeners need are known to import: else one line naming the extra."""
    import importlib

    needed = [m for listener in ("http", "grpc") if getattr(args, listener) not in (None, "off")
              for m in EXTRA[listener]]
    try:
        for module in needed:
            importlib.import_module(module)
        from kuaisuo_serve import (Config, Limits, Server, audit_to, device_share,
                                   start_workers, stop_workers)
    except Exception as e:  # ImportError, or protobuf's VersionError (a runtime too old)
        raise Failure(f"the serve extra is not installed ({e}): {INSTALL}") from None
    return Config, Limits, Server, audit_to, device_share, start_workers, stop_workers


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    from dataclasses import replace

    Config, Limits, Server, audit_to, device_share, start_workers, stop_workers = _imports(args)
    if not args.max_delay_ms >= 0:
        raise Failure("--max-delay-ms must not be negative")
    config = Config(keys=args.keys, access=args.access,
                    password=passphrase(args.passin, "--passin"), allow_plain=args.allow_plain,
                    http=None if args.http == "off" else args.http, grpc=args.grpc,
                    tls_cert=args.tls_cert, tls_key=args.tls_key,
                    tls_client_ca=args.tls_client_ca, allow_insecure=args.allow_insecure,
                    backend=args.backend, devices=_devices(args.devices),
                    threads=args.threads, max_batch=args.max_batch,
                    max_delay=args.max_delay_ms / 1000.0, max_queued=args.max_queued,
                    limits=Limits(max_items=args.max_items), reuse_port=args.workers > 1,
                    seal_ledger=args.seal_ledger, max_connections=args.max_connections,
                    header_timeout=args.header_timeout, read_timeout=args.read_timeout,
                    idle_timeout=args.idle_timeout, drain_seconds=args.drain_seconds,
                    max_pbkdf2_iterations=args.max_pbkdf2_iterations)
    audit_to(args.audit_log)
    split = not args.share_devices and config.backend != "cpu"
    try:
        workers = start_workers(config, args.workers - 1, args.audit_log, split_devices=split)
    except (ValueError, RuntimeError) as e:
        raise Failure(str(e)) from None

    mine = replace(config, devices=device_share(config.devices, args.workers, 0)) \
        if split else config

    async def serve_until_stopped() -> None:
        server = Server(mine)
        try:
            errors = await server.start()
        except OSError as e:
            if e.filename:
                raise  # guarded names the file
            raise Failure(e.strerror or str(e)) from None  # e.g. an HTTP address in use
        except (ValueError, RuntimeError) as e:  # RuntimeError: grpcio's "Failed to bind"
            raise Failure(str(e)) from None
        for line in errors:
            print(f"kuaisuo serve: key not loaded: {line}", file=sys.stderr)
        server.handle_signals(asyncio.get_running_loop())
        def at(address: str, port: Optional[int]) -> str:
            return f"{address.rpartition(':')[0]}:{port}"
        where = [f"grpc {at(config.grpc, server.grpc_port)}"] if config.grpc else []
        if config.http:
            where.append(f"http{'s' if config.tls_cert else ''}://"
                         f"{at(config.http, server.http_port)}")
        print(f"kuaisuo serve: {len(server.service.keys)} keys, listening on "  # type: ignore[union-attr]
              f"{', '.join(where)}" + (f" ({args.workers} processes)" if workers else ""),
              file=sys.stderr, flush=True)
        await server.wait_stopped()

    try:
        asyncio.run(serve_until_stopped())
    finally:
        stop_workers(workers)
    return 0
