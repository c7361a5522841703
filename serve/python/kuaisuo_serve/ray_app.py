"""`kuaisuo serve` scaled out on Ray: a Ray Serve deployment and a Ray Data
batch-verification job (`pip install '.[ray]'` from the checkout, i.e. ray[serve,data]
and pyarrow).

Serving. `KuaisuoDeployment` is one replica of the same server as
`kuaisuo serve`: its constructor takes the settings of
`kuaisuo_serve.Config` and builds, inside the replica process, the same
stack (kuaisuo.Context per device -> batching.Batcher -> KeyStore +
Access -> service.Service). HTTP requests that Ray Serve's proxy routes to
the replica go through `http_api.respond`, the transport-neutral core of
the aiohttp front end, so bodies, bearer tokens, per-item statuses and
refusals (400/401/403/404/413 with {"error", "message"}) are the same
bytes either way. Coalescing still happens in the replica's Batcher: Serve
spreads requests over replicas, each replica batches what it receives, so
`max_ongoing_requests` (how many requests Serve lets one replica hold) is
set high by default; a replica that held only a handful of requests would
never fill a batch.

    app = build_app(Config(keys="keys/", access="access.json", password=b"..."),
                    num_replicas=4, num_gpus_per_replica=1)
    serve.run(app, route_prefix="/kuaisuo")   # POST /kuaisuo/v1/sign ...

With num_gpus_per_replica > 0 each replica asks Ray for that many GPUs
(fractions share a card) and runs the GPU backend on the devices Ray gave
it (Ray sets CUDA_VISIBLE_DEVICES, so they are 0..n-1 in the replica).
Serve owns the listener, so Config's http/grpc/TLS fields do not apply:
terminate TLS at Serve's proxy or in front of it. Keys load in each
replica; the password travels in the deployment's arguments (kept in
Ray's control store, so restrict who can reach the cluster).
Deployment handles may call `respond(method, path, body, token)` directly.

Batch verification. `verify_parquet` reads a Parquet table with binary
columns public_key, message and signature, verifies it in `map_batches`
with `ParquetVerifier` actors (one kuaisuo.Context each; GPU actors when
num_gpus > 0) and writes the input columns plus an int32 `status` (0 =
valid, else the library's code) and `error` (kuaisuo.strerror of the
status, null where valid). Each row gets the status batching's own
SM2_VERIFY / ED25519_VERIFY operations give it (verify_rows), computed
without Python work per row (verify_table): their checks run as pyarrow
kernels on whole binary columns and the well-formed rows go to one batch
call on Arrow's flat buffers, falling back to one call per row if it
raises, as the Batcher does, so a wrong-length or null field is that
row's -3 (KS_ERR_LENGTH), never a failed batch.

    python -m kuaisuo_serve.ray_app verify-parquet in.parquet out/ --algorithm sm2
    python -m kuaisuo_serve.ray_app serve --keys keys/ --access access.json \\
        --passin env:KS_PASS --http 0.0.0.0:8000 --replicas 2 --gpus-per-replica 1
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from dataclasses import fields
from typing import Any, Coroutine, Dict, List, Optional, Sequence, Tuple, Union

from kuaisuo import batching, strerror

from . import Config, build_service, http_api

__all__ = ["KuaisuoDeployment", "build_app", "ParquetVerifier", "verify_parquet",
           "verify_rows", "verify_table", "main"]

log = logging.getLogger("kuaisuo.serve.ray")

# Config fields about the listeners, which Ray Serve replaces.
_TRANSPORT = {"http", "grpc", "tls_cert", "tls_key", "tls_client_ca", "allow_insecure"}
COLUMNS = ("public_key", "message", "signature")
_VERIFY = {"sm2": batching.SM2_VERIFY, "ed25519": batching.ED25519_VERIFY}
# What _VERIFY's checks require of bytes fields: (public key, signature)
# lengths, None where any length passes (SM2's DER signatures).
_LENGTHS: Dict[str, Tuple[int, Optional[int]]] = {"sm2": (65, None), "ed25519": (32, 64)}


# --- Ray Serve ----------------------------------------------------------------

class KuaisuoDeployment:
    """One Ray Serve replica answering http_api's calls (wrap with
    serve.deployment, or use build_app). settings: Config's fields."""

    def __init__(self, keys: str, access: str, **settings: Any) -> None:
        settings.update(http=None, grpc=None)
        self.config = Config(keys=keys, access=access, **settings)
        self.service, self.load_errors = build_service(self.config)
        for error in self.load_errors:
            log.warning("key file not loaded: %s", error)
        self._open = True

    async def respond(self, method: str, path: str, body: bytes,
                      token: Optional[str], peer: str = "") -> Tuple[int, Dict[str, Any]]:
        """One call through http_api (for deployment handles)."""
        return await http_api.respond(self.service, method, path, body, token, peer)

    async def __call__(self, request: Any) -> Any:
        """An HTTP request from Serve's proxy (a starlette Request)."""
        from starlette.responses import JSONResponse

        path, token = _route(request.scope), http_api.bearer(request.headers.get("authorization"))
        length = request.headers.get("content-length", "")
        # The token and a declared length are checked before any body is read.
        refused = http_api.refusal(self.service, request.method, path, token,
                                   int(length) if length.isdigit() else None)
        body = None if refused else await _read_body(request, self.service.limits.max_body_bytes)
        if refused:
            status, doc = refused
        elif body is None:
            status, doc = 413, {"error": "invalid_argument",
                                "message": "request body too large"}
        else:
            status, doc = await self.respond(request.method, path, body, token,
                                             request.client.host if request.client else "")
        return JSONResponse(doc, status_code=status)

    async def close(self) -> None:
        """Runs what is still queued and stops the batcher's threads."""
        await self.service.batcher.close()

    def __del__(self) -> Optional[Coroutine[Any, Any, None]]:
        """Replica shutdown: Serve, once requests in progress have finished,
        awaits the coroutine returned here (close). Only the first call
        returns one, so the garbage collector's later call is a no-op."""
        if not self.__dict__.get("_open", False):
            return None
        self._open = False
        return self.close()


def _route(scope: Dict[str, Any]) -> str:
    """The request path below the application's route prefix."""
    path, root = str(scope.get("path", "")), str(scope.get("root_path", ""))
    return path[len(root):] if root and path.startswith(root) else path


async def _read_body(request: Any, limit: int) -> Optional[bytes]:
    """The body, or None once it passes limit bytes (not read further)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _settings(config: Config, num_gpus: float) -> Dict[str, Any]:
    settings = {f.name: getattr(config, f.name) for f in fields(Config)
                if f.name not in _TRANSPORT}
    if num_gpus > 0:  # the devices Ray assigned: 0..n-1 under its CUDA_VISIBLE_DEVICES
        settings.update(backend="gpu", devices=tuple(range(max(1, int(num_gpus)))))
    return settings


def build_app(config: Config, *, num_replicas: int = 1, num_gpus_per_replica: float = 0,
              num_cpus_per_replica: float = 1, max_ongoing_requests: int = 1024,
              name: str = "kuaisuo") -> Any:
    """A bound Serve application of KuaisuoDeployment replicas for config;
    pass it to serve.run(app, route_prefix=...)."""
    from ray import serve

    options: Dict[str, Any] = {"num_cpus": num_cpus_per_replica}
    if num_gpus_per_replica > 0:
        options["num_gpus"] = num_gpus_per_replica
    settings = _settings(config, num_gpus_per_replica)
    deployment = serve.deployment(
        name=name, num_replicas=num_replicas, ray_actor_options=options,
        max_ongoing_requests=max_ongoing_requests,
        graceful_shutdown_timeout_s=config.drain_seconds)(KuaisuoDeployment)
    return deployment.bind(**settings)


# --- Ray Data -----------------------------------------------------------------

def _checked(op: batching.Operation, row: Tuple[Any, ...]) -> int:
    if any(v is None for v in row):
        return batching.ERR_LENGTH
    return op.check(row)


def verify_rows(ctx: Any, algorithm: str, public_keys: Sequence[Any], messages: Sequence[Any],
                signatures: Sequence[Any]) -> List[int]:
    """A status per row: the batch call on the well-formed rows, -3
    (KS_ERR_LENGTH) for a wrong-length or missing field."""
    op = _VERIFY[algorithm]
    rows = list(zip(public_keys, messages, signatures))
    statuses = [_checked(op, row) for row in rows]
    good = [i for i, s in enumerate(statuses) if s == batching.OK]
    for i, status in zip(good, _run(ctx, op, [rows[i] for i in good])):
        statuses[i] = status
    return statuses


def _run(ctx: Any, op: batching.Operation, rows: List[Tuple[Any, ...]]) -> List[int]:
    return [status for status, _ in batching.run_items(ctx, op, None, rows)] if rows else []


def verify_table(ctx: Any, algorithm: str, table: Any) -> Any:
    """verify_rows on a pyarrow Table's public_key, message and signature
    columns, as an int32 numpy array, without Python work per row where
    the columns are binary or large_binary: the checks run as pyarrow
    compute kernels on whole columns and the well-formed rows go to one
    batch call as Arrow's flat data and offsets. Other column types go
    through verify_rows (its checks define what those rows get)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = [table.column(c) for c in COLUMNS]
    if not all(pa.types.is_binary(c.type) or pa.types.is_large_binary(c.type)
               for c in columns):
        return np.asarray(verify_rows(ctx, algorithm, *(c.to_pylist() for c in columns)),
                          np.int32)
    keys, messages, signatures = columns
    key_bytes, sig_bytes = _LENGTHS[algorithm]
    # _checked: a null field, or a length the operation's check refuses.
    ok = pc.and_(pc.equal(pc.binary_length(keys), key_bytes), pc.is_valid(messages))
    ok = pc.and_(ok, pc.is_valid(signatures) if sig_bytes is None
                 else pc.equal(pc.binary_length(signatures), sig_bytes))
    ok = pc.fill_null(ok, False)
    good = ok.to_numpy(zero_copy_only=False)
    statuses = np.where(good, batching.OK, batching.ERR_LENGTH).astype(np.int32)
    if not good.any():
        return statuses
    rows = [c.filter(ok).combine_chunks() for c in columns]
    try:
        statuses[good] = _flat_verify(ctx, algorithm, *rows)
    except Exception:  # as the Batcher does: each row alone gets its own status
        op = _VERIFY[algorithm]
        statuses[good] = _run(ctx, op, list(zip(*(r.to_pylist() for r in rows))))
    return statuses


def _flat(array: Any) -> Tuple[Any, Any]:
    """(data, uint64 offsets from 0) of a binary or large_binary Array,
    read in place from its Arrow buffers."""
    import numpy as np
    import pyarrow as pa

    _, offsets_buffer, data_buffer = array.buffers()
    width = np.int64 if pa.types.is_large_binary(array.type) else np.int32
    offsets = np.frombuffer(offsets_buffer, width)[array.offset:array.offset + len(array) + 1]
    data = memoryview(data_buffer or b"")[offsets[0]:offsets[-1]]
    return data, (offsets - offsets[0]).astype(np.uint64)


def _flat_verify(ctx: Any, algorithm: str, keys: Any, messages: Any, signatures: Any) -> Any:
    """One batch call on rows that passed the checks. Keys (and Ed25519
    signatures) have one length, so their data is the flat buffer the call
    takes; SM2's DER signatures vary in length and the call takes them as
    a list."""
    data, offsets = _flat(messages)
    if algorithm == "sm2":
        statuses = ctx.sm2.verify(_flat(keys)[0], data, signatures.to_pylist(),
                                  offsets=offsets, as_numpy=True)
    else:
        statuses = ctx.ed25519.verify(_flat(keys)[0], data, _flat(signatures)[0],
                                      offsets=offsets, as_numpy=True)
    if len(statuses) != len(keys):
        raise ValueError(f"{len(statuses)} statuses for {len(keys)} rows")
    return statuses


class ParquetVerifier:
    """map_batches callable class: one Context per Ray actor; pyarrow
    Table in, the same plus status and error columns out."""

    def __init__(self, algorithm: str = "sm2", backend: str = "auto",
                 threads: int = 0) -> None:
        from kuaisuo import Context

        if algorithm not in _VERIFY:
            raise ValueError(f"algorithm {algorithm!r}: expected one of {sorted(_VERIFY)}")
        self.algorithm = algorithm
        self.ctx = Context(backend, 0, threads)

    def __call__(self, batch: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        statuses = verify_table(self.ctx, self.algorithm, batch)
        # strerror once per distinct status, not per row.
        codes, which = np.unique(statuses, return_inverse=True)
        texts = pa.array([None if c == 0 else strerror(int(c)) for c in codes], pa.string())
        errors = texts.take(pa.array(which.reshape(-1), pa.int64()))
        kept = [c for c in batch.column_names if c not in ("status", "error")]
        return (batch.select(kept)
                .append_column("status", pa.array(statuses, pa.int32()))
                .append_column("error", errors))


def _default_concurrency(num_gpus: float, threads: int) -> Union[int, Tuple[int, int]]:
    import ray

    resources = ray.cluster_resources()
    if num_gpus > 0:
        return max(1, int(resources.get("GPU", 0) / num_gpus))
    return (1, max(1, int(resources.get("CPU", 1) // max(1, threads))))


def verify_parquet(input_path: Union[str, List[str]], output_path: str, algorithm: str = "sm2",
                   batch_size: int = 4096, num_gpus: float = 0,
                   concurrency: Union[int, Tuple[int, int], None] = None,
                   threads: int = 1) -> None:
    """Verifies every row of the Parquet input (columns public_key,
    message, signature) and writes Parquet to output_path (a directory) with
    the input columns plus status (int32) and error. num_gpus: per actor
    (GPU backend when > 0); threads: CPU threads of each CPU actor's
    Context (and the CPUs it reserves); concurrency: actors, a number or
    (min, max) (default: what the cluster's GPUs, or CPUs, allow)."""
    import ray

    if algorithm not in _VERIFY:
        raise ValueError(f"algorithm {algorithm!r}: expected one of {sorted(_VERIFY)}")
    if not ray.is_initialized():
        ray.init()
    ds = ray.data.read_parquet(input_path)
    missing = set(COLUMNS) - set(ds.schema().names)
    if missing:
        raise ValueError(f"{input_path}: missing column(s) {sorted(missing)}")
    backend = "gpu" if num_gpus > 0 else "cpu"
    resources = {"num_gpus": num_gpus} if num_gpus > 0 else {"num_cpus": threads}
    ds.map_batches(
        ParquetVerifier, batch_size=batch_size, batch_format="pyarrow",
        fn_constructor_kwargs={"algorithm": algorithm, "backend": backend,
                               "threads": 0 if num_gpus > 0 else threads},
        concurrency=concurrency or _default_concurrency(num_gpus, threads),
        **resources).write_parquet(output_path)


# --- command line ---------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kuaisuo_serve.ray_app",
                                description="kuaisuo on Ray: batch verification and serving")
    p.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS, or a "
                                     "local Ray)")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify-parquet", help="verify a Parquet table of signatures")
    v.add_argument("input")
    v.add_argument("output", help="output directory of Parquet files")
    v.add_argument("--algorithm", choices=sorted(_VERIFY), default="sm2")
    v.add_argument("--batch-size", type=int, default=4096)
    v.add_argument("--gpus", type=float, default=0, help="GPUs per actor (0: CPU actors)")
    v.add_argument("--concurrency", type=int, help="actors (default: as resources allow)")
    v.add_argument("--threads", type=int, default=1, help="CPU threads per CPU actor")
    s = sub.add_parser("serve", help="run the HTTP/JSON server as a Ray Serve application")
    s.add_argument("--keys", required=True)
    s.add_argument("--access", required=True)
    s.add_argument("--passin", metavar="SPEC", help="pass:TEXT, env:VARIABLE or file:PATH")
    s.add_argument("--allow-plain-keys", action="store_true")
    s.add_argument("--http", default="127.0.0.1:8000", help="host:port of Serve's proxy")
    s.add_argument("--route-prefix", default="/")
    s.add_argument("--replicas", type=int, default=1)
    s.add_argument("--gpus-per-replica", type=float, default=0)
    s.add_argument("--backend", default="auto")
    s.add_argument("--threads", type=int, default=0)
    return p


def _serve(args: argparse.Namespace) -> int:
    from ray import serve

    from kuaisuo.cli._keys import passphrase

    from . import _split

    host, port = _split(args.http)
    config = Config(keys=args.keys, access=args.access,
                    password=passphrase(args.passin, "--passin"),
                    allow_plain=args.allow_plain_keys, backend=args.backend,
                    threads=args.threads)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):  # before Serve answers its first request
        signal.signal(signum, lambda *_: stop.set())
    serve.start(http_options={"host": host, "port": port})
    app = build_app(config, num_replicas=args.replicas,
                    num_gpus_per_replica=args.gpus_per_replica)
    serve.run(app, name="kuaisuo", route_prefix=args.route_prefix)
    print(f"kuaisuo on Ray Serve: http://{host}:{port}{args.route_prefix.rstrip('/')}/v1/",
          file=sys.stderr, flush=True)
    stop.wait()
    serve.delete("kuaisuo")  # replicas drain (graceful_shutdown_timeout_s), then stop
    serve.shutdown()
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    import ray

    if not ray.is_initialized():
        ray.init(address=args.address)
    if args.command == "serve":
        return _serve(args)
    verify_parquet(args.input, args.output, args.algorithm, args.batch_size, args.gpus,
                   args.concurrency, args.threads)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    # Through the package's own module, not __main__: Ray pickles the
    # classes of __main__ by value, with the library's functions they use,
    # which cannot be pickled ("cannot pickle nanobind.nb_func objects").
    from kuaisuo_serve import ray_app
    sys.exit(ray_app.main())
