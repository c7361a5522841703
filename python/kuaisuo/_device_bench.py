"""Rows of `kuaisuo speed` and bench/gpu_sweep.py on data already in GPU
memory (host_memory "device"): the Python API on CuPy arrays
(docs/DEVICE.md), on a GPU context, each call timed from the call to the
end of the work it queued (wall clock around the call and a
synchronisation of the stream), after a warm-up call whose results are
checked (every signature valid, SM3 against the CPU, ciphers decrypting
back). Inputs are fresh random bytes; valid signatures come from the
library's own signing batches under 16 keys, GCM nonces are fresh for every
call. Needs CuPy; without it every such row reports an error and is left
out."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Tuple

from . import _native

# (alg, op): what a row on device memory runs.
OPS = {("sm3", "hash"), ("sm2", "verify"), ("ed25519", "verify"), ("x25519", "derive"),
       ("sm4", "ctr"), ("sm4", "gcm"), ("skinny128-256", "ctr")}
KEYS = 16  # distinct signers in a verification batch

_contexts: Dict[int, Any] = {}


def _context() -> Any:
    import kuaisuo

    if 0 not in _contexts:
        _contexts[0] = kuaisuo.Context("gpu")
    return _contexts[0]


def _flat(cp: Any, count: int, size: int) -> Tuple[Any, Any, Any]:
    """count random messages of size bytes: host bytes, device bytes and
    device offsets."""
    import numpy as np

    host = np.frombuffer(os.urandom(count * size), np.uint8)
    offsets = np.arange(count + 1, dtype=np.uint64) * np.uint64(size)
    return host, cp.asarray(host), cp.asarray(offsets)


def _signed(ctx: Any, cp: Any, alg: str, count: int, size: int, kind: str) -> Callable[[], Any]:
    """A verification call over count valid signatures under KEYS keys,
    each key signing a contiguous run of the items."""
    import numpy as np

    import kuaisuo

    host, data, offsets = _flat(cp, count, size)
    key_type = kuaisuo.Ed25519PrivateKey if alg == "ed25519" else kuaisuo.SM2PrivateKey
    keys: List[Any] = [key_type.generate() for _ in range(KEYS)]
    pub = [k.public_key().public_bytes_raw() for k in keys]
    bounds = [count * w // KEYS for w in range(KEYS + 1)]
    pubs = np.zeros((count, len(pub[0])), np.uint8)
    sigs = np.zeros((count, 64), np.uint8)
    for w in range(KEYS):
        lo, hi = bounds[w], bounds[w + 1]
        run = host[lo * size:hi * size]
        run_offsets = np.arange(hi - lo + 1, dtype=np.uint64) * np.uint64(size)
        pubs[lo:hi] = np.frombuffer(pub[w], np.uint8)
        sigs[lo:hi] = (ctx.ed25519.sign(keys[w], run, offsets=run_offsets, as_numpy=True)
                       if alg == "ed25519" else
                       ctx.sm2.sign(keys[w], run, encoding="raw", offsets=run_offsets,
                                    as_numpy=True))
    d_pubs, d_sigs = cp.asarray(pubs), cp.asarray(sigs)
    if alg == "ed25519":
        return lambda: ctx.ed25519.verify(d_pubs, data, d_sigs, offsets=offsets)
    if kind == "digest":
        digests, _ = ctx.sm2.digests(pubs, host, offsets=offsets.get())
        d_digests = cp.asarray(np.frombuffer(b"".join(digests), np.uint8))
        return lambda: ctx.sm2.verify_digests(d_pubs, d_digests, d_sigs, encoding="raw")
    return lambda: ctx.sm2.verify(d_pubs, data, d_sigs, encoding="raw", offsets=offsets)


def _setup(ctx: Any, cp: Any, alg: str, op: str, count: int, size: int,
           kind: str) -> Callable[[], Any]:
    """The call a row times; its first run is checked here."""
    import numpy as np

    import kuaisuo

    if alg == "sm3":
        host, data, offsets = _flat(cp, count, size)
        call = lambda: ctx.sm3.hash(data, offsets)  # noqa: E731
        first = call()[0][0].get().tobytes()
        if first != kuaisuo.sm3(host[:size].tobytes()):
            raise RuntimeError("SM3 on device memory differs from the CPU's")
        return call
    if op == "verify":
        call = _signed(ctx, cp, alg, count, size, kind)
        if int((call() != 0).sum()) != 0:
            raise RuntimeError(f"{alg} verification on device memory refused valid signatures")
        return call
    if alg == "x25519":
        keys = cp.asarray(np.frombuffer(os.urandom(32 * count), np.uint8).reshape(count, 32))
        peers = cp.asarray(ctx.x25519.public_keys(os.urandom(32 * count), as_numpy=True))
        call = lambda: ctx.x25519.derive(keys, peers)  # noqa: E731
        if int((call()[1] != 0).sum()) != 0:
            raise RuntimeError("X25519 on device memory failed items")
        return call
    key, iv = os.urandom(32 if alg == "skinny128-256" else 16), os.urandom(16)
    data = cp.asarray(np.frombuffer(os.urandom(size), np.uint8))
    plain = data.copy()
    if op == "gcm":
        nonce = os.urandom(12)
        _, tag = ctx.sm4.gcm_seal_buffer(key, nonce, data, out=data)
        ctx.sm4.gcm_open_buffer(key, nonce, data, tag, out=data)
        if not bool((data == plain).all()):
            raise RuntimeError("SM4-GCM on device memory did not open back")
        return lambda: ctx.sm4.gcm_seal_buffer(key, os.urandom(12), data, out=data)
    batch = ctx.skinny if alg == "skinny128-256" else ctx.sm4
    call = lambda: batch.encrypt_buffer(key, data, mode="ctr", iv=iv, out=data)  # noqa: E731
    call()
    batch.decrypt_buffer(key, data, mode="ctr", iv=iv, out=data)
    if not bool((data == plain).all()):
        raise RuntimeError(f"{alg} CTR on device memory did not decrypt back")
    return call


def measure(alg: str, op: str, count: int, size: int, kind: str, seconds: float) -> dict:
    """ops_per_s and bytes_per_s of one row (count items of size bytes, or
    one buffer of size bytes for the ciphers), as _native._bench_case gives
    them, or {"error": ...}."""
    if (alg, op) not in OPS:
        return {"error": f"{alg} {op} has no device-memory row"}
    try:
        import cupy as cp
    except ImportError:
        return {"error": "CuPy is not installed (device-memory rows need it)"}
    if _native.gpu_device_count() == 0:
        return {"error": "no CUDA device"}
    ctx = _context()
    call = _setup(ctx, cp, alg, op, count, size, kind)
    stream = cp.cuda.get_current_stream()
    call()
    stream.synchronize()
    runs, start = 0, time.perf_counter()
    while True:
        call()
        stream.synchronize()
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and runs >= 3:
            break
    items = 1 if alg in ("sm4", "skinny128-256") else count
    return {"ops_per_s": items * runs / elapsed, "bytes_per_s": items * size * runs / elapsed,
            "runs": runs, "backend": "gpu"}
