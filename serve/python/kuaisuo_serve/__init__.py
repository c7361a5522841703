"""`kuaisuo serve`: signing, verification and hashing behind HTTP/JSON and
gRPC, items of concurrent requests batched onto the CPU threads or the GPU
(issue 15). Layers: `kuaisuo.batching` (coalescing, backpressure,
deadlines, drain), `kuaisuo.keystore` (keys by id, bearer tokens),
`service` (the calls, limits, audit log), `http_api` and `grpc_api` (the
transports: aiohttp and grpcio, installed with `pip install '.[serve]'`
from the kuaisuo checkout; serve/README.md).

    server = Server(Config(keys="keys/", access="access.json", password=b"...",
                           http="0.0.0.0:8443", tls_cert="c.pem", tls_key="k.pem"))
    await server.start()
    await server.stop()       # stops listening, finishes every accepted request

Plain (non-TLS) listeners are refused on addresses other than loopback
unless Config.allow_insecure is set.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import signal
import ssl
from dataclasses import dataclass, field, replace
from typing import Any, List, Optional, Tuple

from kuaisuo import Context
from kuaisuo.batching import Batcher
from kuaisuo.keystore import Access, KeyStore

from .seal_ledger import LIMIT, SealLedger
from .service import Limits, Service

__all__ = ["Config", "Limits", "Server", "Service", "build_service", "contexts",
           "device_share", "start_workers", "stop_workers"]


@dataclass
class Config:
    keys: str                        # the key store directory
    access: str                      # the Access JSON file (token digests -> key ids)
    password: Optional[bytes] = None  # of the encrypted key files
    allow_plain: bool = False        # accept unencrypted key files
    http: Optional[str] = "127.0.0.1:8080"   # "host:port" or None
    grpc: Optional[str] = None       # "host:port" or None
    tls_cert: Optional[str] = None   # PEM certificate chain; with tls_key, both listeners use TLS
    tls_key: Optional[str] = None
    tls_client_ca: Optional[str] = None  # PEM CAs: clients must present a certificate (mutual TLS)
    allow_insecure: bool = False     # plain listeners on non-loopback addresses
    backend: str = "auto"
    devices: Tuple[int, ...] = (0,)  # GPUs: one engine (Context) each, batches spread over them
    threads: int = 0
    max_batch: int = 4096
    max_delay: float = 0.002
    max_queued: int = 1 << 20
    limits: Limits = field(default_factory=Limits)
    drain_seconds: float = 30.0      # how long stop() waits for requests in progress
    # HTTP connections (issue 42): what an idle or slow client may hold.
    max_connections: int = 4096      # open at once (kept under the process's file limit)
    header_timeout: float = 10.0     # accept -> first request's headers
    read_timeout: float = 30.0       # a request's body, whole
    idle_timeout: float = 60.0       # keep-alive between requests (also gRPC's idle limit)
    max_pbkdf2_iterations: Optional[int] = None  # key files asking for more are refused
    reuse_port: bool = False         # SO_REUSEPORT: several processes share the listeners
    seal_ledger: Optional[str] = None  # SM4 seals per key (default KEYS/.kuaisuo-seals.json)
    seal_limit: int = LIMIT          # seals per key under random nonces (SP 800-38D 8.3)


GRPC_LINGER = 0.1  # seconds after gRPC's stop before the process may exit


def _split(address: str) -> Tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"address {address!r}: expected host:port")
    return host.strip("[]") or "127.0.0.1", int(port)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def contexts(config: Config) -> List[Any]:
    """One Context per GPU of config.devices (one CPU context for "cpu")."""
    if config.backend == "cpu":
        return [Context("cpu", 0, config.threads)]
    if not config.devices:
        raise ValueError("devices: at least one GPU index")
    return [Context(config.backend, device, config.threads) for device in config.devices]


def build_service(config: Config, context: Any = None) -> Tuple[Service, List[str]]:
    """The Service for config, without listeners (Server and the Ray Serve
    deployment both run one), and the key files that did not load, each
    named with its reason. context: a Context (or list) to use instead of
    config's backend and devices."""
    keys = KeyStore(config.keys, config.password, allow_plain=config.allow_plain,
                    max_iterations=config.max_pbkdf2_iterations)
    errors = keys.load()
    access = Access.from_file(config.access)
    batcher = Batcher(context or contexts(config), max_batch=config.max_batch,
                      max_delay=config.max_delay, max_queued=config.max_queued)
    ledger = SealLedger(config.seal_ledger or os.path.join(config.keys, ".kuaisuo-seals.json"),
                        config.seal_limit)
    service = Service(batcher, keys, access, limits=config.limits, seal_ledger=ledger)
    return service, [f"{e.file}: {e.reason}" for e in errors]


class Server:
    def __init__(self, config: Config, *, context: Any = None) -> None:
        self.config = config
        self._context = context
        self.service: Optional[Service] = None
        self.http_port: Optional[int] = None
        self.grpc_port: Optional[int] = None
        self._runner: Any = None
        self._connections: Any = None
        self._site: Any = None
        self._grpc: Any = None
        self._stopped = asyncio.Event()
        self._stopping = False

    def _check_transport(self) -> None:
        c = self.config
        if (c.tls_cert is None) != (c.tls_key is None):
            raise ValueError("tls_cert and tls_key come together")
        if c.tls_client_ca and c.tls_cert is None:
            raise ValueError("mutual TLS (tls_client_ca) needs tls_cert and tls_key")
        if c.http is None and c.grpc is None:
            raise ValueError("nothing to listen on: give http and/or grpc")
        for address in filter(None, (c.http, c.grpc)):
            host, _ = _split(address)
            if c.tls_cert is None and not c.allow_insecure and not _loopback(host):
                raise ValueError(f"{address}: plain listeners only on loopback; give "
                                 "tls_cert/tls_key (or allow_insecure)")

    def _ssl_context(self) -> Optional[ssl.SSLContext]:
        c = self.config
        if c.tls_cert is None:
            return None
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            ctx.load_cert_chain(c.tls_cert, c.tls_key)
            if c.tls_client_ca:
                ctx.load_verify_locations(c.tls_client_ca)
        except OSError as e:  # ssl names neither the file nor, for a bad PEM, the problem
            files = ", ".join(filter(None, (c.tls_cert, c.tls_key, c.tls_client_ca)))
            raise ValueError(f"TLS files {files}: {e.strerror or e}") from None
        if c.tls_client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
        return ctx

    def _grpc_credentials(self) -> Any:
        c = self.config
        if c.tls_cert is None:
            return None
        import grpc

        def read(path: str) -> bytes:
            with open(path, "rb") as f:
                return f.read()
        ca = read(c.tls_client_ca) if c.tls_client_ca else None
        return grpc.ssl_server_credentials([(read(c.tls_key), read(c.tls_cert))],  # type: ignore[arg-type]
                                           root_certificates=ca,
                                           require_client_auth=ca is not None)

    async def start(self) -> List[str]:
        """Loads the keys and starts the listeners; returns the key files
        that did not load (named with their reason; the server runs with
        the others)."""
        c = self.config
        self._check_transport()
        self._ssl_context()  # bad TLS files said as such, before gRPC's "Failed to bind"
        self.service, errors = build_service(c, self._context)
        if c.http is not None:
            await self._start_http(*_split(c.http))
        if c.grpc is not None:
            from . import grpc_api
            self._grpc, self.grpc_port = grpc_api.server(self.service, c.grpc,
                                                         self._grpc_credentials(),
                                                         reuse_port=c.reuse_port,
                                                         idle_timeout=c.idle_timeout)
            await self._grpc.start()
        return errors

    async def _start_http(self, host: str, port: int) -> None:
        from aiohttp import web

        from . import http_api
        c = self.config
        self._connections = http_api.Connections(_connection_limit(c.max_connections),
                                                 c.header_timeout, c.read_timeout)
        self._runner = web.AppRunner(http_api.application(self.service,  # type: ignore[arg-type]
                                                          self._connections),
                                     keepalive_timeout=c.idle_timeout, access_log=None)
        await self._runner.setup()
        _quiet_accept_errors(asyncio.get_running_loop(), self._connections.log_interval)
        # The listener itself (not aiohttp's TCPSite): its protocol factory
        # goes through Connections' limit and header timer.
        ssl_context = self._ssl_context()
        self._site = await asyncio.get_running_loop().create_server(
            self._connections.wrap(self._runner.server), host, port, ssl=ssl_context,
            ssl_handshake_timeout=c.header_timeout if ssl_context else None,
            reuse_port=c.reuse_port or None)
        self.http_port = self._site.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Graceful drain: stop accepting connections and requests, let every
        accepted request finish (up to drain_seconds), run what is queued."""
        if self._stopping:
            await self._stopped.wait()
            return
        self._stopping = True
        drain = self.config.drain_seconds
        waits = []
        if self._grpc is not None:
            waits.append(self._stop_grpc(drain))
        if self._runner is not None:
            waits.append(self._stop_http(drain))
        await asyncio.gather(*waits)
        if self.service is not None:
            await self.service.batcher.close()
        self._stopped.set()

    async def _stop_grpc(self, drain: float) -> None:
        await self._grpc.stop(drain)
        # grpcio's stop returns once the last call is complete in its core,
        # before the peers have read the replies; a process that exits at
        # once resets those connections and the replies are lost (issue 42:
        # CANCELLED / UNAVAILABLE calls). A moment lets them be delivered.
        await asyncio.sleep(GRPC_LINGER)

    async def _stop_http(self, drain: float) -> None:
        # aiohttp's own shutdown (runner.cleanup) drops the bytes that arrive
        # after it starts, so a request whose body was still arriving would
        # never finish: it runs only once every accepted request is answered.
        self._site.close()
        await self._connections.drain(drain)
        await self._runner.cleanup()

    def handle_signals(self, loop: asyncio.AbstractEventLoop) -> None:
        """SIGTERM and SIGINT drain and stop; SIGHUP reloads the keys."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, lambda: asyncio.ensure_future(self.stop()))
        if self.service is not None:
            self.service.keys.reload_on_signal(loop)

    async def wait_stopped(self) -> None:
        await self._stopped.wait()


def _quiet_accept_errors(loop: asyncio.AbstractEventLoop, interval: float) -> None:
    """asyncio reports every accept() that fails (EMFILE: a burst of
    connections can outrun the connection limit, which applies once they
    are accepted) with a traceback; one line per interval instead."""
    previous = loop.get_exception_handler()
    logged_at = [float("-inf")]

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        if not context.get("message", "").startswith("socket.accept() out of system resource"):
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)
        elif loop.time() - logged_at[0] >= interval:
            logged_at[0] = loop.time()
            logging.getLogger("kuaisuo.serve").warning(
                "accept() failed: %s (logged at most every %g s)", context.get("exception"),
                interval)
    loop.set_exception_handler(handler)


def _connection_limit(wanted: int) -> int:
    """wanted, kept 64 under the process's open-file limit (key files, the
    gRPC listener and logs need some): past that, accept() fails instead."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(1, min(wanted, soft - 64)) if soft != resource.RLIM_INFINITY else wanted


def audit_to(path: Optional[str]) -> None:
    """Audit lines (logger kuaisuo.audit) to a file, else to stderr."""
    handler: logging.Handler = (logging.FileHandler(path) if path
                                else logging.StreamHandler())
    handler.setFormatter(logging.Formatter("%(message)s"))
    audit = logging.getLogger("kuaisuo.audit")
    audit.addHandler(handler)
    audit.setLevel(logging.INFO)
    audit.propagate = False


# --- several processes ----------------------------------------------------------
# One Python process answers a few thousand requests a second (grpcio's and
# aiohttp's per-request work, measured in bench/results), far below what one
# GPU signs; worker processes sharing the listeners (SO_REUSEPORT: the kernel
# spreads connections over them), each with its own event loop, batcher and
# engines, multiply that.

def _worker(config: Config, audit_log: Optional[str], ready: Any) -> None:
    audit_to(audit_log)

    async def run() -> None:
        server = Server(config)
        try:
            await server.start()
        except Exception as e:  # reported to the parent, which stops everything
            ready.put(f"{type(e).__name__}: {e}")
            return
        server.handle_signals(asyncio.get_running_loop())
        ready.put("")
        await server.wait_stopped()
    asyncio.run(run())


def device_share(devices: Tuple[int, ...], processes: int, index: int) -> Tuple[int, ...]:
    """The GPUs that process index of processes drives: one each, round
    robin, where there are at least as many processes as GPUs, else every
    processes-th. Each GPU then gets the batches of fewer processes, as
    large as they would be with one GPU, and fewer CUDA contexts share a
    GPU, instead of every process halving its batches across all of them
    (docs/design/0010, bench/results/h200x2-2026-11-27-s13-serve-*-12workers.json:
    2 GPUs shared by 12 processes once signed slower than 1; split, ahead
    of shared in the same run)."""
    if not devices or processes < 1:
        raise ValueError("device_share: at least one device and one process")
    if processes >= len(devices):
        return (devices[index % len(devices)],)
    return devices[index::processes]


def start_workers(config: Config, count: int, audit_log: Optional[str],
                  timeout: float = 300.0, split_devices: bool = False) -> List[Any]:
    """count more processes serving config's fixed ports (reuse_port on),
    once each has started; raises RuntimeError (and stops them) if one
    cannot. Stop them with stop_workers. split_devices: worker i (the
    caller is process 0 of count + 1) drives device_share(...) of
    config.devices, not all of them."""
    import multiprocessing
    if count < 1:
        return []
    for address in filter(None, (config.http, config.grpc)):
        if _split(address)[1] == 0:
            raise ValueError(f"{address}: several workers need a fixed port")
    mp = multiprocessing.get_context("spawn")  # no fork of a process with threads or CUDA
    ready = mp.Queue()
    procs = [mp.Process(target=_worker, args=(replace(
                 config, devices=device_share(config.devices, count + 1, i))
                 if split_devices else config, audit_log, ready), daemon=True)
             for i in range(1, count + 1)]
    for proc in procs:
        proc.start()
    try:
        for _ in procs:
            error = ready.get(timeout=timeout)
            if error:
                raise RuntimeError(f"a worker process did not start: {error}")
    except BaseException:
        stop_workers(procs)
        raise
    return procs


def stop_workers(procs: List[Any], timeout: float = 60.0) -> None:
    """SIGTERM (each drains as one server does), then wait."""
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout)
