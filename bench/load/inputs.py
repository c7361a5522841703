"""Request payloads: fresh random messages and digests per request, and
pools of valid (public key, message, signature) items made with kuaisuo
before the run for the verify ops."""

from __future__ import annotations

import base64
import json
import math
import os
import random
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .workload import ROW_OPS, BenchError, Workload


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
        from kuaisuo_serve import kuaisuo_serve_pb2 as pb
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
