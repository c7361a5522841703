"""What the generator sends and where: the ops, Target (the server and how
to reach it), Workload (what each request asks for) and their checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

OPS = ("sign", "sign-digests", "verify", "hash", "encrypt", "sign-rows", "verify-rows",
       "encrypt-rows")
# One buffer per request: SM2 digests, SM4-GCM plaintexts of --message-bytes each.
ROW_OPS = ("sign-rows", "verify-rows", "encrypt-rows")
TRANSPORTS = ("http", "grpc")
ARRIVALS = ("poisson", "fixed")
PERCENTILES = (("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p99.9", 0.999))
TOOL = "bench/load"  # the prefix of its messages and its JSON's "tool"
GRACE = 0.25  # seconds past a request's deadline before the client gives up on it


class BenchError(Exception):
    """A usage or setup error: printed as `bench/load: MESSAGE`, exit 2."""


@dataclass
class Target:
    """Where the server is and how to reach it."""
    transport: str = "http"            # "http" or "grpc"
    url: str = "http://127.0.0.1:8080"  # HTTP base URL (https:// for TLS)
    address: Optional[str] = None      # gRPC host:port
    token: str = ""
    cafile: Optional[str] = None       # PEM CAs: TLS (https URL; gRPC secure channel)
    concurrency: int = 64              # HTTP: most open connections at once
    channels: int = 1                  # gRPC: channels (HTTP/2 connections), round robin


@dataclass
class Workload:
    """What each request asks for."""
    op: str = "sign-digests"           # one of OPS
    items: int = 8                     # items per request
    key_id: Optional[str] = None       # sign, sign-digests; encrypt (an SM4 key)
    algorithm: str = "sm2"             # verify: "sm2" or "ed25519"
    message_bytes: int = 64            # sign, hash, encrypt: bytes per message
    timeout_ms: int = 5000
    arrivals: str = "poisson"          # one of ARRIVALS
    pool: int = 4096                   # verify: distinct triples made beforehand
    seed: Optional[int] = None         # of the schedule (inputs are always fresh)


def check_workload(w: Workload) -> None:
    """Raises BenchError for a workload the server would refuse whole."""
    if w.op not in OPS:
        raise BenchError(f"--op {w.op!r}: one of {', '.join(OPS)}")
    if w.op in ("sign", "sign-digests", "sign-rows", "encrypt", "encrypt-rows") and not w.key_id:
        raise BenchError(f"--op {w.op} needs --key-id")
    if w.items < 1 or w.timeout_ms < 1 or w.message_bytes < 0:
        raise BenchError("--items and --timeout-ms must be positive")
    if w.op == "encrypt-rows" and w.message_bytes < 1:
        raise BenchError("--op encrypt-rows needs --message-bytes of at least 1")
