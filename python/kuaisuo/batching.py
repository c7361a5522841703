"""Dynamic batching: the items of concurrent requests coalesced into the
library's batch calls under a latency bound (the core of `kuaisuo serve`,
issue 15; any asyncio service can use it).

A GPU signs or verifies at its full rate only in large batches, while a
service receives requests one at a time with one or a few items each.
`Batcher.submit(op, key, items)` queues the items of one request; items of
the same operation and key (the batch key: the signing key, or None where
each item carries its own public key) are run together as one batch call
when `max_batch` items are waiting or the oldest has waited `max_delay`
seconds, whichever comes first. The context's AUTO backend then sends
large batches to the GPU and keeps small ones on the CPU (its measured
crossovers). Every item gets a status in the library's codes (0 = done,
else a negative code `kuaisuo.strerror` explains) and, when done, its
value:

    batcher = Batcher(kuaisuo.Context(), max_batch=4096, max_delay=0.002)
    [(status, signature)] = await batcher.submit(SM2_SIGN_DIGESTS, key, [digest])
    await batcher.close()   # drains: every accepted item is run

Backpressure: at most `max_queued` items are accepted and not yet
finished (waiting for their batch, or in a batch waiting for the worker);
a request that would pass that gets KS_ERR_OVERLOADED for each of its
items at once, and never unbounded memory. A request may carry a timeout: items
whose deadline has passed when their batch is formed get KS_ERR_DEADLINE
without running. After close() starts, new requests get
KS_ERR_SHUTTING_DOWN. A malformed item (a wrong-length digest, say) gets
its own status before it is queued and never fails a batch; if a batch
call still raises, its items are run one at a time so that each gets its
own status.

Batch calls run on one worker thread per context (the native calls
release the GIL), so the event loop keeps accepting requests meanwhile.
Given several contexts (one per GPU of a host, say), each batch goes to
the context with the fewest items in flight, so the devices share the
load and each runs one batch at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple, Union

from . import sm4 as _sm4
from ._native import KuaisuoError

OK = 0
ERR_LENGTH = -3
ERR_INTERNAL = -12
ERR_OVERLOADED = -60
ERR_DEADLINE = -61
ERR_SHUTTING_DOWN = -62

Result = Tuple[int, Any]  # (status, value); value is None unless status is OK


@dataclass(frozen=True)
class Operation:
    """One kind of batched work. run(ctx, key, items) returns one Result
    per item; check(item) returns a status (OK to queue the item)."""
    name: str
    run: Callable[[Any, Any, Sequence[Any]], List[Result]]
    check: Callable[[Any], int]


def _sized(n: int) -> Callable[[Any], int]:
    def check(item: Any) -> int:
        try:
            return OK if len(memoryview(item)) == n else ERR_LENGTH
        except TypeError:
            return ERR_LENGTH
    return check


def _bytes_like(item: Any) -> int:
    try:
        memoryview(item)
        return OK
    except TypeError:
        return ERR_LENGTH


def _triples(key_bytes: int, signature_bytes: Optional[int], *,
             data_bytes: Optional[int] = None) -> Callable[[Any], int]:
    """(public key, data, signature) with a raw public key of key_bytes and,
    where the scheme fixes them, data of data_bytes (a digest) and a
    signature of signature_bytes."""
    key_ok = _sized(key_bytes)
    data_ok = _bytes_like if data_bytes is None else _sized(data_bytes)
    sig_ok = _bytes_like if signature_bytes is None else _sized(signature_bytes)

    def check(item: Any) -> int:
        if not (isinstance(item, tuple) and len(item) == 3):
            return ERR_LENGTH
        public_key, data, signature = item
        key_status = key_ok(public_key) if isinstance(public_key, (bytes, bytearray,
                                                                   memoryview)) else OK
        return key_status or data_ok(data) or sig_ok(signature)
    return check


def _values(values: Sequence[Any]) -> List[Result]:
    return [(OK, v) for v in values]


def _statuses(statuses: Sequence[int]) -> List[Result]:
    return [(int(s), None) for s in statuses]


def _columns(items: Sequence[Any]) -> Tuple[list, list, list]:
    keys, data, signatures = zip(*items)
    return list(keys), list(data), list(signatures)


# key: an SM2PrivateKey; items: 32-byte digests e; values: DER signatures.
SM2_SIGN_DIGESTS = Operation(
    "sm2.sign_digests",
    lambda ctx, key, items: _values(ctx.sm2.sign_digests(key, list(items))),
    _sized(32))
# key: an SM2PrivateKey; items: messages (default ID); values: DER signatures.
SM2_SIGN = Operation(
    "sm2.sign", lambda ctx, key, items: _values(ctx.sm2.sign(key, list(items))), _bytes_like)
# key: None; items: (public key, message, DER signature), the public key an
# SM2PublicKey or 65 bytes 04||x||y; statuses only.
SM2_VERIFY = Operation(
    "sm2.verify", lambda ctx, key, items: _statuses(ctx.sm2.verify(*_columns(items))),
    _triples(65, None))
# key: None; items: (public key, 32-byte digest, DER signature).
SM2_VERIFY_DIGESTS = Operation(
    "sm2.verify_digests",
    lambda ctx, key, items: _statuses(ctx.sm2.verify_digests(*_columns(items))),
    _triples(65, None, data_bytes=32))
# key: None; items: messages; values: 32-byte SM3 digests.
SM3_HASH = Operation(
    "sm3", lambda ctx, key, items: _values(ctx.sm3.hash(list(items))), _bytes_like)
# key: an Ed25519PrivateKey; items: messages; values: 64-byte signatures.
ED25519_SIGN = Operation(
    "ed25519.sign", lambda ctx, key, items: _values(ctx.ed25519.sign(key, list(items))),
    _bytes_like)
# key: None; items: (public key, message, signature), the public key an
# Ed25519PublicKey or its 32 bytes, the signature 64 bytes.
ED25519_VERIFY = Operation(
    "ed25519.verify",
    lambda ctx, key, items: _statuses(ctx.ed25519.verify(*_columns(items))),
    _triples(32, 64))


def _pairs(min_bytes: int) -> Callable[[Any], int]:
    """(data, associated data) with data of at least min_bytes."""
    def check(item: Any) -> int:
        if not (isinstance(item, tuple) and len(item) == 2):
            return ERR_LENGTH
        data, aad = item
        if _bytes_like(data) or _bytes_like(aad):
            return ERR_LENGTH
        return OK if memoryview(data).nbytes >= min_bytes else ERR_LENGTH
    return check


def _gcm_seal(ctx: Any, key: Any, items: Sequence[Any]) -> List[Result]:
    # A fresh random 96-bit nonce per item (SP 800-38D 8.2.2): at most 2^32
    # messages under one key this way (8.3), which serve's seal ledger counts.
    n = _sm4.NONCE_BYTES
    nonces = os.urandom(n * len(items))
    sealed, statuses = ctx.sm4.gcm_encrypt(key, nonces, [m for m, _ in items],
                                           [aad for _, aad in items])
    return [(s, nonces[n * i:n * (i + 1)] + c if s == OK else None)
            for i, (s, c) in enumerate(zip(statuses, sealed))]


def _gcm_open(ctx: Any, key: Any, items: Sequence[Any]) -> List[Result]:
    boxes = [memoryview(box) for box, _ in items]
    nonces = b"".join(bytes(box[:_sm4.NONCE_BYTES]) for box in boxes)
    plain, statuses = ctx.sm4.gcm_decrypt(key, nonces, [box[_sm4.NONCE_BYTES:] for box in boxes],
                                          [aad for _, aad in items])
    return [(s, p) for s, p in zip(statuses, plain)]


# key: an SM4Key; items: (plaintext, associated data); values: the sealed
# box nonce (12) || ciphertext || tag (16), the nonce fresh from the OS.
SM4_GCM_SEAL = Operation("sm4.gcm_seal", _gcm_seal, _pairs(0))
# key: an SM4Key; items: (sealed box, associated data); values: plaintexts;
# a box that does not authenticate gets KS_ERR_TAG_MISMATCH and no value.
SM4_GCM_OPEN = Operation("sm4.gcm_open", _gcm_open,
                         _pairs(_sm4.SEALED_OVERHEAD))

# Rows: fixed-size items as the rows of uint8 arrays, one array per column,
# so that a request of any size costs the event loop a few numpy calls
# instead of Python work per item (what carries a service past ~1e5
# items/s). run(ctx, key, columns) returns (statuses, values or None).
RowsResult = Tuple[Any, Any]


@dataclass(frozen=True)
class RowOperation:
    """Batched work on fixed-size items: columns of (count, width) uint8
    rows in, an int32 status per item and (count, value_bytes) rows out."""
    name: str
    widths: Tuple[int, ...]
    value_bytes: int  # 0: statuses only
    run: Callable[[Any, Any, Sequence[Any]], RowsResult]


def _sign_digest_rows(ctx: Any, key: Any, columns: Sequence[Any]) -> RowsResult:
    rows = ctx.sm2.sign_digests(key, columns[0], encoding="raw", as_numpy=True)
    return _np().zeros(len(rows), _np().int32), rows


def _verify_digest_rows(ctx: Any, key: Any, columns: Sequence[Any]) -> RowsResult:
    keys, digests, signatures = columns
    return ctx.sm2.verify_digests(keys, digests, signatures, encoding="raw",
                                  as_numpy=True).astype(_np().int32), None


# key: an SM2PrivateKey; columns: digests e (32); values: r||s (64).
SM2_SIGN_DIGEST_ROWS = RowOperation("sm2.sign_digests.rows", (32,), 64, _sign_digest_rows)
# key: None; columns: public keys 04||x||y (65), digests (32), r||s (64).
SM2_VERIFY_DIGEST_ROWS = RowOperation("sm2.verify_digests.rows", (65, 32, 64), 0,
                                      _verify_digest_rows)


def _gcm_seal_rows(ctx: Any, key: Any, columns: Sequence[Any]) -> RowsResult:
    sealed, statuses = ctx.sm4.gcm_seal_rows(key, columns[0])
    return statuses, sealed


def _gcm_open_rows(ctx: Any, key: Any, columns: Sequence[Any]) -> RowsResult:
    plain, statuses = ctx.sm4.gcm_open_rows(key, columns[0])
    return statuses, plain


def sm4_gcm_rows(seal: bool, width: int) -> RowOperation:
    """SM4-GCM rows of one plaintext width (each width its own operation,
    so its own queue and batches). key: an SM4Key. seal: plaintext rows
    (width) in, sealed rows nonce || ciphertext || tag (width + 28) out,
    each nonce fresh from the OS; open: the inverse, a row that does not
    authenticate KS_ERR_TAG_MISMATCH and zeros."""
    width = operator.index(width)  # 16.0 must not stand in the cache for 16
    if width < 1:
        raise ValueError("SM4-GCM rows: a width of at least 1 byte")
    return _sm4_gcm_rows(bool(seal), width)


@functools.lru_cache(maxsize=64)
def _sm4_gcm_rows(seal: bool, width: int) -> RowOperation:
    sealed = width + _sm4.SEALED_OVERHEAD
    if seal:
        return RowOperation(f"sm4.gcm_seal.rows{width}", (width,), sealed, _gcm_seal_rows)
    return RowOperation(f"sm4.gcm_open.rows{width}", (sealed,), width, _gcm_open_rows)


def _np() -> Any:
    import numpy
    return numpy


class _ItemStore:
    """A list request's accepted items and its per-item results."""

    def __init__(self, results: List[Optional[Result]], accepted: List[int],
                 items: List[Any]) -> None:
        self.results, self.accepted, self.items = results, accepted, items

    def take(self, start: int, count: int) -> List[Any]:
        return self.items[start:start + count]

    def put(self, start: int, count: int, results: Sequence[Result]) -> None:
        for k in range(count):
            self.results[self.accepted[start + k]] = results[k]

    def fail(self, start: int, count: int, status: int) -> None:
        self.put(start, count, [(status, None)] * count)

    def reply(self) -> Any:
        return self.results


class _RowStore:
    """A rows request's columns and its status and value arrays."""

    def __init__(self, op: RowOperation, columns: Sequence[Any]) -> None:
        np = _np()
        n = len(columns[0])
        self.columns = columns
        self.statuses = np.zeros(n, np.int32)
        self.values = np.zeros((n, op.value_bytes), np.uint8) if op.value_bytes else None

    def take(self, start: int, count: int) -> List[Any]:
        return [c[start:start + count] for c in self.columns]

    def put(self, start: int, count: int, results: RowsResult) -> None:
        statuses, values = results
        self.statuses[start:start + count] = statuses
        if self.values is not None:
            self.values[start:start + count] = values

    def fail(self, start: int, count: int, status: int) -> None:
        self.statuses[start:start + count] = status

    def reply(self) -> Any:
        return self.statuses, self.values


@dataclass
class _Request:
    store: Any  # _ItemStore or _RowStore
    left: int
    deadline: Optional[float]
    done: asyncio.Future


_Chunk = Tuple[_Request, int, int]  # a request's accepted items [start, start + count)


@dataclass
class _Queue:
    chunks: List[_Chunk] = field(default_factory=list)
    items: int = 0
    timer: Optional[asyncio.TimerHandle] = None
    due: bool = False  # its oldest items waited max_delay: run as soon as a context is free


@dataclass
class Stats:
    """Counters since the batcher was made."""
    batches: int = 0          # batch calls run
    items: int = 0            # items run in them
    largest_batch: int = 0
    per_context: List[int] = field(default_factory=list)  # items run on each context
    overloaded: int = 0       # items refused with KS_ERR_OVERLOADED
    expired: int = 0          # items that got KS_ERR_DEADLINE


AnyOperation = Union[Operation, RowOperation]


class Batcher:
    """Coalesces items of concurrent submit() calls into batch calls on
    ctx: a kuaisuo.Context, or a sequence of them (one per device) that
    batches are spread over. Use from one asyncio event loop."""

    def __init__(self, ctx: Any, *, max_batch: int = 4096, max_delay: float = 0.002,
                 max_queued: int = 1 << 20, in_flight: int = 1) -> None:
        if max_batch < 1 or max_queued < 1 or max_delay < 0 or in_flight < 1:
            raise ValueError("max_batch, max_queued and in_flight must be positive, "
                             "max_delay >= 0")
        self._contexts = list(ctx) if isinstance(ctx, (list, tuple)) else [ctx]
        if not self._contexts:
            raise ValueError("at least one context")
        self.max_batch, self.max_delay, self.max_queued = max_batch, max_delay, max_queued
        self._queues: Dict[Tuple[AnyOperation, Hashable], _Queue] = {}
        self._queued = 0        # items waiting in the queues
        self._outstanding = 0   # items accepted and not finished: what max_queued bounds
        self._closing = False
        self._running: set = set()
        self._workers = [concurrent.futures.ThreadPoolExecutor(1, f"kuaisuo-batch-{i}")
                         for i in range(len(self._contexts))]
        self._in_flight = [0] * len(self._contexts)  # items in batch calls, per context
        self._slots = in_flight * len(self._contexts)  # batch calls formed and not finished
        self._ready: Dict[Tuple[AnyOperation, Hashable], None] = {}  # FIFO of queues to run
        self.stats = Stats(per_context=[0] * len(self._contexts))

    @property
    def queued(self) -> int:
        """Items accepted and not yet handed to a batch call."""
        return self._queued

    async def submit(self, op: Operation, key: Hashable, items: Sequence[Any], *,
                     timeout: Optional[float] = None) -> List[Result]:
        """One request: a Result per item, in order, once all have run."""
        items = list(items)
        if self._closing:
            return [(ERR_SHUTTING_DOWN, None)] * len(items)
        checks = [op.check(item) for item in items]
        accepted = [i for i, c in enumerate(checks) if c == OK]
        if self._outstanding + len(accepted) > self.max_queued:
            self.stats.overloaded += len(items)
            return [(ERR_OVERLOADED, None)] * len(items)
        store = _ItemStore([None if c == OK else (c, None) for c in checks], accepted,
                           [items[i] for i in accepted])
        return await self._enqueue(op, key, store, len(accepted), timeout)

    async def submit_rows(self, op: RowOperation, key: Hashable, columns: Sequence[Any], *,
                          timeout: Optional[float] = None) -> Tuple[Any, Any]:
        """One request of fixed-size items: columns are (count, width)
        uint8 arrays (or flat buffers of count * width bytes), one per
        op.widths. Returns an int32 status per item and, where the
        operation makes values, (count, op.value_bytes) uint8 rows (zero
        where the status is not OK)."""
        columns = as_rows(op, columns)
        n = len(columns[0])
        store = _RowStore(op, columns)
        if self._closing or self._outstanding + n > self.max_queued:
            if not self._closing:
                self.stats.overloaded += n
            store.fail(0, n, ERR_SHUTTING_DOWN if self._closing else ERR_OVERLOADED)
            return store.reply()
        return await self._enqueue(op, key, store, n, timeout)

    async def _enqueue(self, op: AnyOperation, key: Hashable, store: Any, n: int,
                       timeout: Optional[float]) -> Any:
        loop = asyncio.get_running_loop()
        request = _Request(store, n, None if timeout is None else loop.time() + timeout,
                           loop.create_future())
        if n == 0:
            return store.reply()
        queue = self._queues.setdefault((op, key), _Queue())
        queue.chunks.append((request, 0, n))
        queue.items += n
        self._queued += n
        self._outstanding += n
        if queue.items and queue.timer is None and not queue.due:
            queue.timer = loop.call_later(self.max_delay, self._on_timer, op, key)
        if self._is_ready(queue):
            self._mark_ready(op, key)
        return await request.done

    async def close(self) -> None:
        """Refuses new requests, runs every queued item and waits for all
        batch calls; then releases the worker threads."""
        self._closing = True
        for op_key in list(self._queues):
            self._mark_ready(*op_key)
        while self._running:
            # Forget the awaited tasks here: a finished task leaves the set
            # only when its done callback runs, and gather over finished
            # tasks may return without yielding to the loop (Python 3.12).
            running = list(self._running)
            await asyncio.gather(*running, return_exceptions=True)
            self._running.difference_update(running)
        for worker in self._workers:
            worker.shutdown(wait=True)

    def _on_timer(self, op: AnyOperation, key: Hashable) -> None:
        queue = self._queues.get((op, key))
        if queue is None:
            return
        queue.timer, queue.due = None, True
        self._mark_ready(op, key)

    def _is_ready(self, queue: _Queue) -> bool:
        return queue.due or queue.items >= self.max_batch or self._closing

    def _mark_ready(self, op: AnyOperation, key: Hashable) -> None:
        self._ready[(op, key)] = None
        self._dispatch()

    def _dispatch(self) -> None:
        """Starts batches from the ready queues, oldest first, while a
        context has room. While every context is busy, items keep
        collecting, so batches grow with the load (as Triton's dynamic
        batcher does) instead of queueing up small ones."""
        while self._ready and self._slots:
            op_key = next(iter(self._ready))
            del self._ready[op_key]
            queue = self._queues.get(op_key)
            if queue is None or not self._is_ready(queue):
                continue
            self._start(*op_key, queue)
            if op_key in self._queues and self._is_ready(queue):
                self._ready[op_key] = None  # to the back: ready queues take turns

    def _start(self, op: AnyOperation, key: Hashable, queue: _Queue) -> None:
        """Hands up to max_batch queued items (whole chunks, the last one
        split if it must be) to a batch call."""
        batch: List[_Chunk] = []
        room = self.max_batch
        while room and queue.chunks:
            request, start, count = queue.chunks[0]
            take = min(count, room)
            batch.append((request, start, take))
            if take == count:
                queue.chunks.pop(0)
            else:
                queue.chunks[0] = (request, start + take, count - take)
            room -= take
        taken = self.max_batch - room
        queue.items -= taken
        self._queued -= taken
        if not queue.items:
            if queue.timer is not None:
                queue.timer.cancel()
            del self._queues[(op, key)]
        self._slots -= 1
        task = asyncio.ensure_future(self._run(op, key, batch))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, op: AnyOperation, key: Hashable, batch: List[_Chunk]) -> None:
        try:
            await self._run_batch(op, key, batch)
        finally:
            self._slots += 1
            self._dispatch()

    async def _run_batch(self, op: AnyOperation, key: Hashable, batch: List[_Chunk]) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        live = []
        for chunk in batch:
            deadline = chunk[0].deadline
            if deadline is not None and now > deadline:
                self.stats.expired += chunk[2]
                chunk[0].store.fail(chunk[1], chunk[2], ERR_DEADLINE)
                self._finished(chunk)
            else:
                live.append(chunk)
        if not live:
            return
        parts = [request.store.take(start, count) for request, start, count in live]
        n = sum(count for _, _, count in live)
        device = min(range(len(self._contexts)), key=self._in_flight.__getitem__)
        self._in_flight[device] += n
        try:
            results = await loop.run_in_executor(self._workers[device], _call,
                                                 self._contexts[device], op, key, parts, n)
        finally:
            self._in_flight[device] -= n
        self.stats.per_context[device] += n
        self.stats.batches += 1
        self.stats.items += n
        self.stats.largest_batch = max(self.stats.largest_batch, n)
        _scatter(op, live, results)
        for chunk in live:
            self._finished(chunk)

    def _finished(self, chunk: _Chunk) -> None:
        request, _, count = chunk
        self._outstanding -= count
        request.left -= count
        if request.left == 0 and not request.done.done():
            request.done.set_result(request.store.reply())


def as_rows(op: RowOperation, columns: Sequence[Any]) -> List[Any]:
    """(count, width) uint8 views of the columns (no copy where possible)."""
    np = _np()
    if len(columns) != len(op.widths):
        raise ValueError(f"{op.name}: {len(op.widths)} columns, not {len(columns)}")
    rows = []
    for width, column in zip(op.widths, columns):
        a = np.frombuffer(column, np.uint8) if not isinstance(column, np.ndarray) else column
        if a.dtype != np.uint8 or a.size % width:
            raise ValueError(f"{op.name}: a column of {width}-byte items must be uint8 "
                             f"with a multiple of {width} bytes")
        rows.append(a.reshape(-1, width))
    if len({len(r) for r in rows}) != 1:
        raise ValueError(f"{op.name}: the columns hold different item counts")
    return rows


def _call(ctx: Any, op: AnyOperation, key: Hashable, parts: List[Any], n: int) -> Any:
    """One batch call on the worker thread; if it raises, each item alone
    (its own status)."""
    if isinstance(op, RowOperation):
        columns = [_np().concatenate(c) if len(parts) > 1 else c[0] for c in zip(*parts)]
        try:
            return op.run(ctx, key, columns)
        except Exception:
            np = _np()
            values = np.zeros((n, op.value_bytes), np.uint8) if op.value_bytes else None
            return np.full(n, ERR_INTERNAL, np.int32), values
    return run_items(ctx, op, key, [item for part in parts for item in part])


def run_items(ctx: Any, op: Operation, key: Hashable, items: List[Any]) -> List[Result]:
    """op's batch call on items (already checked); if it raises, each item
    alone, so that a bad item gets its own status and fails no other."""
    try:
        results = op.run(ctx, key, items)
        if len(results) == len(items):
            return results
    except Exception:
        pass
    return [_call_one(ctx, op, key, item) for item in items]


def _call_one(ctx: Any, op: Operation, key: Hashable, item: Any) -> Result:
    try:
        return op.run(ctx, key, [item])[0]
    except KuaisuoError as e:
        return (e.code if e.code is not None else ERR_INTERNAL, None)
    except Exception:
        return (ERR_INTERNAL, None)


def _scatter(op: AnyOperation, chunks: List[_Chunk], results: Any) -> None:
    """Each chunk's share of a batch's results into its request."""
    pos = 0
    for request, start, count in chunks:
        if isinstance(op, RowOperation):
            statuses, values = results
            request.store.put(start, count, (statuses[pos:pos + count],
                                             None if values is None else values[pos:pos + count]))
        else:
            request.store.put(start, count, results[pos:pos + count])
        pos += count


__all__ = ["Batcher", "ED25519_SIGN", "ED25519_VERIFY", "ERR_DEADLINE", "ERR_INTERNAL",
           "ERR_LENGTH", "ERR_OVERLOADED", "ERR_SHUTTING_DOWN", "OK", "Operation", "RowOperation",
           "SM2_SIGN", "SM2_SIGN_DIGESTS", "SM2_SIGN_DIGEST_ROWS", "SM2_VERIFY",
           "SM2_VERIFY_DIGESTS", "SM2_VERIFY_DIGEST_ROWS", "SM3_HASH", "SM4_GCM_OPEN",
           "SM4_GCM_SEAL", "Stats", "as_rows", "run_items", "sm4_gcm_rows"]
