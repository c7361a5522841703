"""`kuaisuo bench-serve`: an open-loop load generator for a running
`kuaisuo serve` (HTTP/JSON or gRPC).

Open loop. For each target rate R the send times are fixed before the run:
every 1/R seconds (--arrivals fixed) or at exponentially distributed gaps
of mean 1/R (--arrivals poisson, a Poisson process). A request goes out at
its time whether or not earlier ones have been answered, and its latency is
measured from its *scheduled* send time to the end of its reply. A closed
loop (send, wait, send again) slows down with the server and so never
records the queueing a real stream of clients would meet ("coordinated
omission"); here a stalled server, a full connection pool (--concurrency)
or a late generator all show up in the latencies.

Every request carries fresh inputs: random messages (sign, hash) or random
32-byte digests (sign-digests); verify takes consecutive, distinct
(public key, message, signature) triples from a pool made locally with
kuaisuo before the run (--pool of them, many keys, all valid).

The numbers, per rate (one row each):
  offered       the target rate R, requests/s; `sent` requests were scheduled
  achieved      replies with HTTP 200 / gRPC OK per second, over the time from
                the first scheduled send to the last such reply (a server
                that falls behind and drains its backlog late scores lower)
  items/s       items with status 0 per second, same time base
  ok            requests answered 200 / OK (their items may still have failed)
  refused       requests refused whole: HTTP non-200, or a gRPC status other
                than UNAVAILABLE and DEADLINE_EXCEEDED (`refused_by_code`)
  item errors   items of ok requests with a non-zero status, by status code
                (kuaisuo.strerror names them: -60 overloaded, -61 deadline)
  transport     connection failures and the like (`transport_by_kind`)
  timeouts      no reply within --timeout-ms of the scheduled send time (plus
                0.25 s, so that the server's own answer for items past their
                deadline, status -61, can arrive); --timeout-ms also goes to
                the server as the request's timeout_ms
  p50 ... max   latency of the ok requests in milliseconds (timed-out ones are
                not in them: read the timeouts column next to them)
  lag p99/max   how late the generator itself launched requests (ms); when it
                is large the client, not the server, was the bottleneck (the
                JSON's client_cpu_s, this process's CPU time for the rate, near
                elapsed_s says the same); on a small host the generator and the
                server share the CPUs, and other load on it skews every number

    kuaisuo bench-serve --op sign-digests --key-id gov --token-file tok \\
        --url http://127.0.0.1:8080 --rates 500,2000,8000 --items 8 --seconds 3 \\
        --json out.json --plot out.png
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import json
import math
import os
import platform
import random
import ssl
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

OPS = ("sign", "sign-digests", "verify", "hash", "encrypt", "sign-rows", "verify-rows",
       "encrypt-rows")
# One buffer per request: SM2 digests, SM4-GCM plaintexts of --message-bytes each.
ROW_OPS = ("sign-rows", "verify-rows", "encrypt-rows")
TRANSPORTS = ("http", "grpc")
ARRIVALS = ("poisson", "fixed")
PERCENTILES = (("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p99.9", 0.999))
TOOL = "kuaisuo bench-serve"
_GRACE = 0.25  # seconds past a request's deadline before the client gives up on it


class BenchError(Exception):
    """A usage or setup error: printed as `kuaisuo bench-serve: MESSAGE`, exit 2."""


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


# ---- inputs ----------------------------------------------------------------

def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _split_random(count: int, size: int) -> List[bytes]:
    blob = os.urandom(count * size)
    return [blob[i * size:(i + 1) * size] for i in range(count)]


def verify_pool(algorithm: str, count: int) -> List[Tuple[bytes, bytes, bytes]]:
    """count distinct valid (raw public key, 64-byte message, signature)
    triples: SM2 (65-byte keys, DER signatures, 16 messages a key) or
    Ed25519 (32-byte keys, one key each), made with kuaisuo's CPU backend."""
    import kuaisuo
    ctx = kuaisuo.Context("cpu")
    messages = _split_random(count, 64)
    if algorithm == "ed25519":
        pairs = ctx.ed25519.keygen(count)
        signatures = ctx.ed25519.sign([s for s, _ in pairs], messages)
        return [(p, m, s) for (_, p), m, s in zip(pairs, messages, signatures)]
    if algorithm != "sm2":
        raise BenchError(f"--algorithm {algorithm!r}: sm2 or ed25519")
    return _sm2_pool(ctx, messages)


def _sm2_pool(ctx: Any, messages: List[bytes]) -> List[Tuple[bytes, bytes, bytes]]:
    from kuaisuo.sm2 import SM2PrivateKey
    per_key = 16
    out: List[Tuple[bytes, bytes, bytes]] = []
    for n, (d, public) in enumerate(ctx.sm2.keygen(math.ceil(len(messages) / per_key))):
        chunk = messages[n * per_key:(n + 1) * per_key]
        signatures = ctx.sm2.sign(SM2PrivateKey.from_private_bytes(d), chunk)
        out.extend((public, m, s) for m, s in zip(chunk, signatures))
    return out


def row_pool(count: int) -> Tuple[bytes, bytes, bytes]:
    """count distinct valid SM2 rows: 04||x||y keys (16 digests a key),
    random digests e and r||s signatures, each column one buffer."""
    import kuaisuo
    from kuaisuo.sm2 import SM2PrivateKey
    ctx = kuaisuo.Context("cpu")
    per_key = 16
    digests = os.urandom(32 * count)
    keys, signatures = [], []
    for n, (d, public) in enumerate(ctx.sm2.keygen(math.ceil(count / per_key))):
        chunk = digests[n * per_key * 32:min(count, (n + 1) * per_key) * 32]
        keys.append(public * (len(chunk) // 32))
        signatures.append(ctx.sm2.sign_digests(SM2PrivateKey.from_private_bytes(d), chunk,
                                               encoding="raw", as_numpy=True).tobytes())
    return b"".join(keys), digests, b"".join(signatures)


class Inputs:
    """Request payloads, fresh each call: JSON bodies (HTTP) or protobuf
    messages (gRPC). Verify takes the next `items` triples of the pool."""

    def __init__(self, workload: Workload,
                 pool: Optional[Sequence[Tuple[bytes, bytes, bytes]]] = None) -> None:
        self.w = workload
        self.pool = list(pool) if pool is not None else []
        if workload.op == "verify" and not self.pool:
            self.pool = verify_pool(workload.algorithm, max(workload.pool, workload.items))
        if workload.op == "verify" and len(self.pool) < workload.items:
            raise BenchError(f"verify pool of {len(self.pool)} triples is smaller than "
                             f"--items {workload.items}")
        self._cursor = random.randrange(len(self.pool)) if self.pool else 0
        self._b64_pool: Optional[List[Dict[str, str]]] = None
        self._rows: Optional[Tuple[bytes, bytes, bytes]] = None
        self._pb_pool: Optional[List[Any]] = None

    def _data(self) -> List[bytes]:
        size = 32 if self.w.op == "sign-digests" else self.w.message_bytes
        return _split_random(self.w.items, size)

    def _row_slices(self) -> Tuple[bytes, bytes, bytes]:
        """The next `items` rows of the pool as (keys, digests, r||s) buffers."""
        if self._rows is None:
            self._rows = row_pool(max(self.w.pool, self.w.items))
        n = len(self._rows[1]) // 32
        start = self._cursor % n
        self._cursor = (start + self.w.items) % n
        picks = [(start + i) % n for i in range(self.w.items)] if start + self.w.items > n \
            else None
        out = []
        for column, width in zip(self._rows, (65, 32, 64)):
            if picks is None:
                out.append(column[start * width:(start + self.w.items) * width])
            else:
                out.append(b"".join(column[i * width:(i + 1) * width] for i in picks))
        return out[0], out[1], out[2]

    def _indices(self) -> List[int]:
        start, n = self._cursor, len(self.pool)
        self._cursor = (start + self.w.items) % n
        return [(start + i) % n for i in range(self.w.items)]

    def http(self) -> Tuple[str, bytes]:
        """(path, JSON body) of a new request."""
        w = self.w
        if w.op in ROW_OPS:
            return self._http_rows()
        if w.op == "verify":
            if self._b64_pool is None:
                self._b64_pool = [{"public_key": _b64(k), "data": _b64(m), "signature": _b64(s)}
                                  for k, m, s in self.pool]
            body: Dict[str, Any] = {"algorithm": w.algorithm,
                                    "items": [self._b64_pool[i] for i in self._indices()]}
            path = "/v1/verify"
        elif w.op == "hash":
            body, path = {"algorithm": "sm3", "items": [_b64(d) for d in self._data()]}, "/v1/hash"
        elif w.op == "encrypt":
            body = {"key_id": w.key_id, "items": [_b64(d) for d in self._data()]}
            path = "/v1/encrypt"
        else:
            body = {"key_id": w.key_id, "digests": w.op == "sign-digests",
                    "items": [_b64(d) for d in self._data()]}
            path = "/v1/sign"
        body["timeout_ms"] = w.timeout_ms
        return path, json.dumps(body).encode()

    def _http_rows(self) -> Tuple[str, bytes]:
        w = self.w
        if w.op == "encrypt-rows":
            body: Dict[str, Any] = {"key_id": w.key_id, "row_bytes": w.message_bytes,
                                    "plaintext_rows": _b64(os.urandom(w.message_bytes * w.items)),
                                    "timeout_ms": w.timeout_ms}
            return "/v1/encrypt", json.dumps(body).encode()
        if w.op == "sign-rows":
            body = {"key_id": w.key_id, "digest_rows": _b64(os.urandom(32 * w.items))}
        else:
            keys, digests, signatures = self._row_slices()
            body = {"public_key_rows": _b64(keys), "digest_rows": _b64(digests),
                    "signature_rows": _b64(signatures)}
        body["timeout_ms"] = w.timeout_ms
        return "/v1/sign" if w.op == "sign-rows" else "/v1/verify", json.dumps(body).encode()

    def grpc(self) -> Tuple[str, Any]:
        """(method name, protobuf request) of a new request."""
        from . import kuaisuo_serve_pb2 as pb
        w = self.w
        if w.op == "encrypt-rows":
            return "Encrypt", pb.CipherRequest(key_id=w.key_id or "", row_bytes=w.message_bytes,
                                               rows=os.urandom(w.message_bytes * w.items),
                                               timeout_ms=w.timeout_ms)
        if w.op == "sign-rows":
            return "Sign", pb.SignRequest(key_id=w.key_id or "", timeout_ms=w.timeout_ms,
                                          digest_rows=os.urandom(32 * w.items))
        if w.op == "verify-rows":
            keys, digests, signatures = self._row_slices()
            return "Verify", pb.VerifyRequest(public_key_rows=keys, digest_rows=digests,
                                              signature_rows=signatures,
                                              timeout_ms=w.timeout_ms)
        if w.op == "verify":
            if self._pb_pool is None:
                self._pb_pool = [pb.VerifyItem(public_key=k, data=m, signature=s)
                                 for k, m, s in self.pool]
            return "Verify", pb.VerifyRequest(
                algorithm=w.algorithm, timeout_ms=w.timeout_ms,
                items=[self._pb_pool[i] for i in self._indices()])
        if w.op == "hash":
            return "Hash", pb.HashRequest(algorithm="sm3", items=self._data(),
                                          timeout_ms=w.timeout_ms)
        if w.op == "encrypt":
            return "Encrypt", pb.CipherRequest(key_id=w.key_id or "", items=self._data(),
                                               timeout_ms=w.timeout_ms)
        return "Sign", pb.SignRequest(key_id=w.key_id or "", items=self._data(),
                                      digests=w.op == "sign-digests", timeout_ms=w.timeout_ms)


# ---- schedule and tally ----------------------------------------------------

def schedule(rate: float, seconds: float, arrivals: str = "poisson",
             seed: Optional[int] = None) -> List[float]:
    """Send offsets in [0, seconds): every 1/rate, or Poisson at rate."""
    if not rate > 0 or not seconds > 0:
        raise BenchError("rates and --seconds must be positive")
    if arrivals == "fixed":
        return [i / rate for i in range(math.ceil(rate * seconds - 1e-9))]
    if arrivals != "poisson":
        raise BenchError(f"--arrivals {arrivals!r}: {' or '.join(ARRIVALS)}")
    rng, t = random.Random(seed), 0.0
    out: List[float] = []
    while True:
        t += rng.expovariate(rate)
        if t >= seconds:
            return out
        out.append(t)


@dataclass
class Tally:
    """What happened to the requests of one rate."""
    sent: int = 0
    ok: int = 0
    items_ok: int = 0
    refused: Counter = field(default_factory=Counter)
    item_errors: Counter = field(default_factory=Counter)
    transport: Counter = field(default_factory=Counter)
    timeouts: int = 0
    latencies: List[float] = field(default_factory=list)   # seconds, ok requests
    lags: List[float] = field(default_factory=list)        # seconds, launch - scheduled
    last_reply: float = 0.0                                # loop time of the last ok reply

    def reply(self, scheduled: float, now: float, statuses: Sequence[int]) -> None:
        self.ok += 1
        self.latencies.append(now - scheduled)
        self.last_reply = max(self.last_reply, now)
        if isinstance(statuses, bytes):  # the rows form: little-endian int32s
            self._count_rows(statuses)
            return
        for status in statuses:
            if status == 0:
                self.items_ok += 1
            else:
                self.item_errors[status] += 1


    def _count_rows(self, statuses: bytes) -> None:
        import numpy as np
        codes, counts = np.unique(np.frombuffer(statuses, "<i4"), return_counts=True)
        for code, count in zip(codes.tolist(), counts.tolist()):
            if code == 0:
                self.items_ok += count
            else:
                self.item_errors[code] += count


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (nan when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def _ms(value: float) -> Optional[float]:
    return None if math.isnan(value) else round(value * 1000.0, 3)


def _latency_ms(latencies: List[float]) -> Dict[str, Optional[float]]:
    values = sorted(latencies)
    out = {name: _ms(percentile(values, q)) for name, q in PERCENTILES}
    out["max"] = _ms(values[-1] if values else math.nan)
    out["mean"] = _ms(sum(values) / len(values) if values else math.nan)
    return out


def summarize(tally: Tally, rate: float, seconds: float, items: int, start: float,
              end: float) -> Dict[str, Any]:
    """The row for one rate (see the module docstring for each number)."""
    elapsed = max(seconds, (tally.last_reply or end) - start)
    lags = sorted(tally.lags)
    names = _status_names(tally.item_errors)
    return {
        "offered_rps": rate, "seconds": seconds, "items_per_request": items,
        "sent": tally.sent, "elapsed_s": round(elapsed, 4),
        "achieved_rps": round(tally.ok / elapsed, 2),
        "achieved_items_per_s": round(tally.items_ok / elapsed, 2),
        "ok": tally.ok, "items_ok": tally.items_ok,
        "refused": sum(tally.refused.values()),
        "refused_by_code": {str(k): v for k, v in sorted(tally.refused.items())},
        "item_errors": sum(tally.item_errors.values()),
        "item_errors_by_status": {str(k): v for k, v in sorted(tally.item_errors.items())},
        "item_error_names": names,
        "transport_errors": sum(tally.transport.values()),
        "transport_by_kind": dict(sorted(tally.transport.items())),
        "timeouts": tally.timeouts,
        "latency_ms": _latency_ms(tally.latencies),
        "lag_ms": {"p99": _ms(percentile(lags, 0.99)), "max": _ms(lags[-1] if lags else math.nan)},
    }


def _status_names(statuses: Counter) -> Dict[str, str]:
    try:
        from .._native import strerror
    except ImportError:  # pragma: no cover - the library always has it
        return {}
    return {str(s): strerror(s) for s in sorted(statuses)}


# ---- clients ---------------------------------------------------------------

Send = Callable[[float], Any]  # an awaitable sender: takes the request's deadline (loop time)


class _HttpClient:
    def __init__(self, target: Target, inputs: Inputs) -> None:
        import aiohttp
        self.inputs, self.tally, self.base = inputs, Tally(), target.url.rstrip("/")
        ssl_ctx: Any = ssl.create_default_context(cafile=target.cafile) if target.cafile else None
        connector = aiohttp.TCPConnector(limit=target.concurrency, ssl=ssl_ctx
                                         if ssl_ctx is not None else True)
        self.session = aiohttp.ClientSession(connector=connector, headers={
            "Authorization": f"Bearer {target.token}", "Content-Type": "application/json"})

    async def send(self, scheduled: float, deadline: float) -> None:
        path, body = self.inputs.http()
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(deadline + _GRACE):
                async with self.session.post(self.base + path, data=body) as r:
                    payload = await r.read()
                    status = r.status
        except TimeoutError:
            self.tally.timeouts += 1
            return
        except Exception as e:  # aiohttp.ClientError, OSError, ...: counted, never fatal
            self.tally.transport[type(e).__name__] += 1
            return
        if status != 200:
            self.tally.refused[str(status)] += 1
            return
        self._reply(scheduled, loop.time(), payload)

    def _reply(self, scheduled: float, now: float, payload: bytes) -> None:
        try:
            doc = json.loads(payload)
            statuses = ([int(s) for s in doc["statuses"]] if "statuses" in doc
                        else [int(r["status"]) for r in doc["results"]])
        except (ValueError, KeyError, TypeError):
            self.tally.transport["bad reply"] += 1
            return
        self.tally.reply(scheduled, now, statuses)

    async def close(self) -> None:
        await self.session.close()


class _GrpcClient:
    def __init__(self, target: Target, inputs: Inputs) -> None:
        import grpc

        from . import grpc_api
        if not target.address:
            raise BenchError("--transport grpc needs --address HOST:PORT")
        self._grpc, self.inputs, self.tally = grpc, inputs, Tally()
        self.metadata = (("authorization", f"Bearer {target.token}"),)
        self.channels = [self._channel(target) for _ in range(max(1, target.channels))]
        self.stubs = [grpc_api.stub(ch) for ch in self.channels]
        self._next = 0

    def _channel(self, target: Target) -> Any:
        grpc = self._grpc
        if target.cafile is None:
            return grpc.aio.insecure_channel(target.address)
        with open(target.cafile, "rb") as f:
            creds = grpc.ssl_channel_credentials(root_certificates=f.read())
        return grpc.aio.secure_channel(target.address, creds)

    async def send(self, scheduled: float, deadline: float) -> None:
        method, request = self.inputs.grpc()
        self._next = (self._next + 1) % len(self.stubs)
        call = self.stubs[self._next][method]
        loop = asyncio.get_running_loop()
        remaining = max(0.001, deadline - loop.time())
        try:
            async with asyncio.timeout_at(deadline + _GRACE):
                reply = await call(request, metadata=self.metadata, timeout=remaining)
        except TimeoutError:
            self.tally.timeouts += 1
            return
        except self._grpc.aio.AioRpcError as e:
            self._error(e.code())
            return
        except Exception as e:  # counted, never fatal
            self.tally.transport[type(e).__name__] += 1
            return
        statuses = reply.statuses if reply.statuses else [r.status for r in reply.results]
        self.tally.reply(scheduled, loop.time(), statuses)

    def _error(self, code: Any) -> None:
        grpc = self._grpc
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            self.tally.timeouts += 1
        elif code == grpc.StatusCode.UNAVAILABLE:
            self.tally.transport["UNAVAILABLE"] += 1
        else:
            self.tally.refused[code.name] += 1

    async def close(self) -> None:
        await asyncio.gather(*(ch.close() for ch in self.channels))


def open_client(target: Target, inputs: Inputs) -> Any:
    """A client (its connections kept across rates): `await c.close()`."""
    if target.transport == "http":
        return _HttpClient(target, inputs)
    if target.transport == "grpc":
        return _GrpcClient(target, inputs)
    raise BenchError(f"--transport {target.transport!r}: http or grpc")


# ---- one rate --------------------------------------------------------------

async def _drive(client: Any, tally: Tally, offsets: List[float], start: float,
                 timeout: float) -> List["asyncio.Task[None]"]:
    """Launches one request per offset at start + offset, never waiting for
    replies; returns the tasks."""
    loop = asyncio.get_running_loop()
    tasks: List["asyncio.Task[None]"] = []
    for offset in offsets:
        scheduled = start + offset
        await asyncio.sleep(max(0.0, scheduled - loop.time()))  # sleep(0) still yields
        tally.lags.append(max(0.0, loop.time() - scheduled))
        tally.sent += 1
        tasks.append(asyncio.ensure_future(client.send(scheduled, scheduled + timeout)))
    return tasks


async def run_rate(target: Target, workload: Workload, rate: float, seconds: float, *,
                   client: Any = None, lead: float = 0.05) -> Dict[str, Any]:
    """Offers `rate` requests/s for `seconds` (open loop), waits for every
    reply or timeout, and returns the row (summarize's dict). client: one
    from open_client, to keep its connections and inputs (the verify pool)
    across rates; by default a new one, closed at the end."""
    _check_workload(workload)
    offsets = schedule(rate, seconds, workload.arrivals, workload.seed)
    own = client is None
    if own:
        client = open_client(target, Inputs(workload))
    tally = client.tally = Tally()
    loop = asyncio.get_running_loop()
    cpu = time.process_time()
    try:
        start = loop.time() + lead
        tasks = await _drive(client, tally, offsets, start, workload.timeout_ms / 1000.0)
        await asyncio.gather(*tasks)
        end = loop.time()
    finally:
        if own:
            await client.close()
    row = summarize(tally, rate, seconds, workload.items, start, end)
    row.update(op=workload.op, transport=target.transport,
               client_cpu_s=round(time.process_time() - cpu, 3))
    return row


def _check_workload(w: Workload) -> None:
    if w.op not in OPS:
        raise BenchError(f"--op {w.op!r}: one of {', '.join(OPS)}")
    if w.op in ("sign", "sign-digests", "sign-rows", "encrypt", "encrypt-rows") and not w.key_id:
        raise BenchError(f"--op {w.op} needs --key-id")
    if w.items < 1 or w.timeout_ms < 1 or w.message_bytes < 0:
        raise BenchError("--items and --timeout-ms must be positive")
    if w.op == "encrypt-rows" and w.message_bytes < 1:
        raise BenchError("--op encrypt-rows needs --message-bytes of at least 1")


# ---- report ----------------------------------------------------------------

_COLUMNS = (("offered", "offered_rps", "{:.0f}"), ("achieved", "achieved_rps", "{:.0f}"),
            ("items/s", "achieved_items_per_s", "{:.0f}"), ("ok", "ok", "{}"),
            ("refused", "refused", "{}"), ("item err", "item_errors", "{}"),
            ("transport", "transport_errors", "{}"), ("timeouts", "timeouts", "{}"))


def _cell(fmt: str, value: Any) -> str:
    return "-" if value is None else fmt.format(value)


def table(rows: List[Dict[str, Any]]) -> str:
    """The rows as a fixed-width text table (latencies in ms)."""
    heads = [c[0] for c in _COLUMNS] + [n for n, _ in PERCENTILES] + ["max", "lag p99"]
    lines = []
    for row in rows:
        lat = row["latency_ms"]
        cells = [_cell(fmt, row[key]) for _, key, fmt in _COLUMNS]
        cells += [_cell("{:.2f}", lat[n]) for n, _ in PERCENTILES]
        cells += [_cell("{:.2f}", lat["max"]), _cell("{:.2f}", row["lag_ms"]["p99"])]
        lines.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in lines)) if lines else len(h)
              for i, h in enumerate(heads)]
    out = ["  ".join(h.rjust(w) for h, w in zip(heads, widths))]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in lines]
    out += _error_notes(rows)
    return "\n".join(out)


def _error_notes(rows: List[Dict[str, Any]]) -> List[str]:
    notes = []
    for row in rows:
        parts = [f"item status {s} ({row['item_error_names'].get(s, '?')}): {n}"
                 for s, n in row["item_errors_by_status"].items()]
        parts += [f"refused {c}: {n}" for c, n in row["refused_by_code"].items()]
        parts += [f"transport {k}: {n}" for k, n in row["transport_by_kind"].items()]
        if parts:
            notes.append(f"  at {row['offered_rps']:.0f}/s: " + "; ".join(parts))
    return notes


def host_info() -> Dict[str, Any]:
    info: Dict[str, Any] = {
        "platform": platform.platform(), "machine": platform.machine(),
        "python": platform.python_version(), "cpu_count": os.cpu_count(),
        "datetime_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")}
    if hasattr(os, "getloadavg"):  # other load on the host skews what is measured
        info["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu_model"] = next((line.split(":", 1)[1].strip() for line in f
                                      if line.startswith("model name")), None)
    except OSError:
        pass
    return info


def report(target: Target, workload: Workload, rates: List[float], seconds: float,
           rows: List[Dict[str, Any]], host: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The JSON document: tool, parameters (never the token), host (as
    host_info() gave it before the run), rows."""
    from .. import __version__
    params: Dict[str, Any] = {**asdict(workload), **asdict(target), "rates": rates,
                              "seconds": seconds}
    params.pop("token")
    return {"tool": TOOL, "kuaisuo_version": __version__, "parameters": params,
            "host": host or host_info(), "rows": rows}


def plot(rows: List[Dict[str, Any]], path: str, title: str) -> bool:
    """Latency p50/p99/p99.9 against achieved items/s as a PNG; False
    (with a message) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{TOOL}: matplotlib is not installed; no plot "
              "(pip install matplotlib)", file=sys.stderr)
        return False
    x = [r["achieved_items_per_s"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, marker in (("p50", "o"), ("p99", "s"), ("p99.9", "^")):
        y = [math.nan if r["latency_ms"][name] is None else r["latency_ms"][name] for r in rows]
        ax.plot(x, y, marker=marker, label=name)
    for r, xv in zip(rows, x):
        ax.annotate(f"{r['offered_rps']:.0f}/s", (xv, r["latency_ms"]["p50"] or 0),
                    textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.set_xlabel("achieved items/s (status 0)")
    ax.set_ylabel("latency from scheduled send (ms)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# ---- command line ----------------------------------------------------------

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


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Registers `bench-serve` on an argparse subparsers object."""
    p = sub.add_parser("bench-serve", help="open-loop load generator for a running "
                                           "kuaisuo serve (latency percentiles per rate)",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
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
    p.set_defaults(func=run_cli)
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


async def run_all(target: Target, workload: Workload, rates: List[float], seconds: float,
                  warmup: float = 0.0) -> List[Dict[str, Any]]:
    """Every rate in turn over one client (after an unrecorded warm-up at
    the first rate, which also opens the connections); progress to stderr."""
    _check_workload(workload)
    client = open_client(target, Inputs(workload))
    rows = []
    try:
        if warmup > 0:
            await run_rate(target, workload, rates[0], warmup, client=client)
        for rate in rates:
            print(f"{TOOL}: {rate:g} requests/s for {seconds:g} s ...", file=sys.stderr,
                  flush=True)
            rows.append(await run_rate(target, workload, rate, seconds, client=client))
    finally:
        await client.close()
    return rows


def _title(target: Target, workload: Workload) -> str:
    where = target.url if target.transport == "http" else target.address
    return (f"kuaisuo serve, {workload.op} over {target.transport} ({where}), "
            f"{workload.items} items/request, {workload.arrivals} arrivals")


def run_cli(args: argparse.Namespace) -> int:
    """`kuaisuo bench-serve`: 0 when some request succeeded, 1 when none
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
    """Stand-alone entry (`python -m kuaisuo.serve.bench ...`) until the
    subcommand is wired into kuaisuo.cli."""
    parser = argparse.ArgumentParser(prog="kuaisuo")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bench-serve", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
