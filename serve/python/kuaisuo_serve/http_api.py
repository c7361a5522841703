"""The HTTP/JSON form of `kuaisuo serve` (aiohttp). Binary fields are
standard base64; every call takes `Authorization: Bearer <token>`.

    POST /v1/sign    {"key_id": "k", "items": [b64...], "digests": false, "timeout_ms": 50}
                  -> {"results": [{"status": 0, "signature": b64}, {"status": -3, "error": "..."}]}
    POST /v1/verify  {"algorithm": "sm2" | "ed25519", "digests": false,
                      "items": [{"public_key": b64, "data": b64, "signature": b64}]}
                  -> {"results": [{"status": 0}, {"status": -44, "error": "..."}]}
    POST /v1/hash    {"algorithm": "sm3", "items": [b64...]}
                  -> {"results": [{"status": 0, "digest": b64}]}
    POST /v1/encrypt {"key_id": "k", "items": [b64...], "associated_data": [b64...]}
                  -> {"results": [{"status": 0, "sealed": b64(nonce || ciphertext || tag)}]}
    POST /v1/decrypt {"key_id": "k", "items": [b64 sealed...], "associated_data": [b64...]}
                  -> {"results": [{"status": 0, "plaintext": b64}, {"status": -49, ...}]}
    GET  /v1/health  -> {"status": "ok"}; with a known token also
                        {"keys": 3, "queued": 0}

The rows form of SM2 on digests (one buffer per column, O(1) work per
request on the server; what carries high item rates)

    POST /v1/sign    {"key_id": "k", "digest_rows": b64(count * 32 bytes)}
                  -> {"statuses": [0, ...], "signature_rows": b64(count * 64 bytes of r||s)}
    POST /v1/verify  {"public_key_rows": b64(count * 65, or one 65-byte key),
                      "digest_rows": b64(count * 32), "signature_rows": b64(count * 64)}
                  -> {"statuses": [0, -44, ...]}

and of SM4-GCM on plaintexts of one size (row_bytes, the plaintext's):

    POST /v1/encrypt {"key_id": "k", "row_bytes": 64, "plaintext_rows": b64(count * 64)}
                  -> {"statuses": [0, ...], "sealed_rows": b64(count * (12 + 64 + 16))}
    POST /v1/decrypt {"key_id": "k", "row_bytes": 64, "sealed_rows": b64(count * 92)}
                  -> {"statuses": [0, -49, ...], "plaintext_rows": b64(count * 64)}

Per-item statuses are the library's codes (`kuaisuo.strerror`). A request
refused whole gets {"error": kind, "message": text} with 400 (malformed),
401 (no or unknown token: checked before the body is read or parsed),
403 (key id not available to the client), 408 (body not received within
the read timeout), 409 (an SM4 key that has sealed the 2^32 messages its
random nonces allow, or a seal ledger that cannot be kept), 413 (body, or
its declared Content-Length, over the limit) or 503 (the server is
draining for shutdown). A refusal sent before the body was read closes
the connection.

`respond()` is the transport-neutral core (method, path, raw body, token
-> HTTP status and JSON document); the aiohttp application here and the
Ray Serve deployment in `ray_app` are thin adapters around it."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
from typing import Any, Callable, Dict, List, Optional, Tuple

from aiohttp import web

from .service import (FAILED_PRECONDITION, INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED,
                      UNAUTHENTICATED, RequestError, Result, Service, bearer, describe)

_HTTP_STATUS = {INVALID_ARGUMENT: 400, UNAUTHENTICATED: 401, PERMISSION_DENIED: 403,
                NOT_FOUND: 404, FAILED_PRECONDITION: 409}
SERVICE_KEY = web.AppKey("service", Service)
log = logging.getLogger("kuaisuo.serve")


def _token(request: web.Request) -> Optional[str]:
    return bearer(request.headers.get("Authorization"))


def _b64(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise RequestError(INVALID_ARGUMENT, f"{what}: expected a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise RequestError(INVALID_ARGUMENT, f"{what}: not valid base64") from None


def _field(body: Dict[str, Any], name: str, kind: type, default: Any = None) -> Any:
    value = body.get(name, default)
    if value is None and default is None:
        raise RequestError(INVALID_ARGUMENT, f"missing field {name!r}")
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError(INVALID_ARGUMENT, f"field {name!r}: expected {kind.__name__}")
    return value


def _timeout(body: Dict[str, Any]) -> Optional[float]:
    if body.get("timeout_ms") is None:
        return None
    return _field(body, "timeout_ms", int) / 1000.0


def _results(results: List[Result], value_name: Optional[str]) -> Dict[str, Any]:
    out = []
    for status, value in results:
        item: Dict[str, Any] = {"status": status}
        if status != 0:
            item["error"] = describe(status)
        elif value_name is not None:
            item[value_name] = base64.b64encode(value).decode("ascii")
        out.append(item)
    return {"results": out}


def _decode(raw: bytes) -> Dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError as e:
        raise RequestError(INVALID_ARGUMENT, f"the body is not JSON ({e})") from None
    except RecursionError:  # arrays or objects nested past the parser's depth
        raise RequestError(INVALID_ARGUMENT, "the body is nested too deeply") from None
    if not isinstance(body, dict):
        raise RequestError(INVALID_ARGUMENT, "the body must be a JSON object")
    return body


def _items(body: Dict[str, Any]) -> List[Any]:
    return _field(body, "items", list)


def _b64_field(body: Dict[str, Any], name: str) -> bytes:
    return _b64(body.get(name), name)


def _statuses(statuses: Any) -> Dict[str, Any]:
    return {"statuses": statuses.tolist()}


async def _sign(service: Service, body: Dict[str, Any], token: Optional[str],
                peer: str) -> Dict[str, Any]:
    if "digest_rows" in body:
        statuses, values = await service.sign_digest_rows(
            token, _field(body, "key_id", str), _b64_field(body, "digest_rows"),
            timeout=_timeout(body), peer=peer)
        return dict(_statuses(statuses),
                    signature_rows=base64.b64encode(values.tobytes()).decode("ascii"))
    items = [_b64(v, f"items[{i}]") for i, v in enumerate(_items(body))]
    results = await service.sign(
        token, _field(body, "key_id", str), items,
        digests=_field(body, "digests", bool, False), timeout=_timeout(body), peer=peer)
    return _results(results, "signature")


def _triple(item: Any, i: int) -> tuple:
    if not isinstance(item, dict):
        raise RequestError(INVALID_ARGUMENT, f"items[{i}]: expected an object")
    return tuple(_b64(item.get(name), f"items[{i}].{name}")
                 for name in ("public_key", "data", "signature"))


async def _verify(service: Service, body: Dict[str, Any], token: Optional[str],
                  peer: str) -> Dict[str, Any]:
    if "digest_rows" in body:
        return _statuses(await service.verify_digest_rows(
            token, *(_b64_field(body, name)
                     for name in ("public_key_rows", "digest_rows", "signature_rows")),
            timeout=_timeout(body)))
    items = [_triple(v, i) for i, v in enumerate(_items(body))]
    results = await service.verify(
        token, _field(body, "algorithm", str), items,  # type: ignore[arg-type]
        digests=_field(body, "digests", bool, False), timeout=_timeout(body))
    return _results(results, None)


async def _hash(service: Service, body: Dict[str, Any], token: Optional[str],
                peer: str) -> Dict[str, Any]:
    items = [_b64(v, f"items[{i}]") for i, v in enumerate(_items(body))]
    results = await service.hash(
        token, _field(body, "algorithm", str, "sm3"), items, timeout=_timeout(body))
    return _results(results, "digest")


def _b64_list(body: Dict[str, Any], name: str) -> Optional[List[bytes]]:
    values = body.get(name)
    if values is None:
        return None
    if not isinstance(values, list):
        raise RequestError(INVALID_ARGUMENT, f"field {name!r}: expected list")
    return [_b64(v, f"{name}[{i}]") for i, v in enumerate(values)]


def _crypt(direction: str, value_name: str) -> Any:
    """/v1/encrypt and /v1/decrypt: SM4-GCM under a key id (service.crypt),
    or its rows form (service.crypt_rows)."""
    rows_in, rows_out = (("plaintext_rows", "sealed_rows") if direction == "encrypt"
                         else ("sealed_rows", "plaintext_rows"))

    async def call(service: Service, body: Dict[str, Any], token: Optional[str],
                   peer: str) -> Dict[str, Any]:
        if rows_in in body:
            statuses, values = await service.crypt_rows(
                token, direction, _field(body, "key_id", str), _b64_field(body, rows_in),
                _field(body, "row_bytes", int), timeout=_timeout(body), peer=peer)
            return dict(_statuses(statuses),
                        **{rows_out: base64.b64encode(values.tobytes()).decode("ascii")})
        if rows_out in body:
            raise RequestError(INVALID_ARGUMENT, f"field {rows_out!r}: not one of this call's")
        results = await service.crypt(
            token, direction, _field(body, "key_id", str),
            [_b64(v, f"items[{i}]") for i, v in enumerate(_items(body))],
            _b64_list(body, "associated_data"), timeout=_timeout(body), peer=peer)
        return _results(results, value_name)
    return call


def health(service: Service, token: Optional[str] = None) -> Dict[str, Any]:
    """Liveness for anyone; the key count and queue depth only for a known
    token (they tell an outsider what the server holds and how loaded it is)."""
    if not service.authenticated(token):
        return {"status": "ok"}
    return {"status": "ok", "keys": len(service.keys), "queued": service.batcher.queued}


_CALLS = {"/v1/sign": _sign, "/v1/verify": _verify, "/v1/hash": _hash,
          "/v1/encrypt": _crypt("encrypt", "sealed"),
          "/v1/decrypt": _crypt("decrypt", "plaintext")}


Answer = Tuple[int, Dict[str, Any]]


def refusal(service: Service, method: str, path: str, token: Optional[str],
            length: Optional[int]) -> Optional[Answer]:
    """The answer to a request refused on its method, path, token or
    (declared) body length alone, else None: all known before the body is
    read, so a client without a valid token never has a body read or
    parsed, and a huge Content-Length is refused without waiting for it."""
    if path == "/v1/health" and method.upper() in ("GET", "HEAD"):
        return None
    if path not in _CALLS:
        return 404, {"error": NOT_FOUND, "message": f"no such call: {path[:128]}"}
    if method.upper() != "POST":
        return 405, {"error": "method_not_allowed", "message": f"{path} takes POST"}
    if not service.authenticated(token):
        service.counters.refused += 1
        return 401, {"error": UNAUTHENTICATED,
                     "message": "a bearer token this server knows is required"}
    if length is not None and length > service.limits.max_body_bytes:
        return 413, {"error": INVALID_ARGUMENT, "message": "request body too large"}
    return None


async def respond(service: Service, method: str, path: str, body: bytes,
                  token: Optional[str], peer: str = "") -> Answer:
    """One HTTP/JSON call apart from any HTTP server: the request's method,
    path (from /v1 on), raw body and bearer token -> (HTTP status, JSON
    document). The aiohttp application and the Ray Serve deployment
    (`kuaisuo_serve.ray_app`) both answer through here."""
    refused = refusal(service, method, path, token, len(body))
    if refused is not None:
        return refused
    if path == "/v1/health":
        return 200, health(service, token)
    try:
        return 200, await _CALLS[path](service, _decode(body), token, peer)
    except RequestError as e:
        return _HTTP_STATUS[e.kind], {"error": e.kind, "message": str(e)}


class Connections:
    """The HTTP listener's connections and requests in progress. It wraps
    aiohttp's protocol factory: a connection accepted past `limit` open ones
    is closed at once (the process keeps file descriptors for those it
    serves), and one that has not delivered its first request's headers
    within header_timeout is closed (aiohttp's keep-alive timeout bounds the
    wait between later requests). Refused connections are logged once per
    log_interval with their count, not one line (or traceback) each.
    drain() waits for the requests in progress, while new ones get 503."""

    def __init__(self, limit: int, header_timeout: float, read_timeout: float,
                 log_interval: float = 10.0) -> None:
        self.limit, self.header_timeout, self.read_timeout = limit, header_timeout, read_timeout
        self.log_interval = log_interval
        self.open: Dict[Any, Optional[asyncio.TimerHandle]] = {}  # transport -> header timer
        self.refused = 0            # refused since the last log line
        self._logged_at = float("-inf")
        self.in_flight = 0
        self.draining = False
        self._idle = asyncio.Event()
        self._idle.set()

    def wrap(self, factory: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        return lambda: _Guarded(self, factory())

    def admit(self, transport: Any) -> bool:
        loop = asyncio.get_running_loop()
        if len(self.open) >= self.limit or self.draining:
            self.refused += 1
            if loop.time() - self._logged_at >= self.log_interval:
                log.warning("refused %d connection(s) over the limit of %d open (logged at "
                            "most every %g s)", self.refused, self.limit, self.log_interval)
                self.refused, self._logged_at = 0, loop.time()
            return False
        self.open[transport] = loop.call_later(self.header_timeout, transport.abort)
        return True

    def started(self, transport: Any) -> None:
        """A request's headers are in: the connection's header timer stops."""
        timer = self.open.get(transport)
        if timer is not None:
            timer.cancel()
            self.open[transport] = None

    def closed(self, transport: Any) -> None:
        timer = self.open.pop(transport, None)
        if timer is not None:
            timer.cancel()

    def begin(self) -> None:
        self.in_flight += 1
        self._idle.clear()

    def end(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()

    async def drain(self, timeout: float) -> None:
        """Refuses new requests (503) and connections, and waits up to
        timeout for the requests in progress to be answered."""
        self.draining = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except asyncio.TimeoutError:
            log.warning("drain: %d HTTP request(s) still in progress after %g s",
                        self.in_flight, timeout)


class _Guarded(asyncio.Protocol):
    """aiohttp's protocol for one connection behind Connections' checks."""

    def __init__(self, owner: Connections, inner: Any) -> None:
        self._owner, self._inner, self._admitted = owner, inner, False

    def connection_made(self, transport: Any) -> None:
        self._admitted = self._owner.admit(transport)
        if self._admitted:
            self._transport = transport
            self._inner.connection_made(transport)
        else:
            transport.abort()

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if self._admitted:
            self._owner.closed(self._transport)
            self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._admitted:
            self._inner.data_received(data)

    def eof_received(self) -> Optional[bool]:
        return self._inner.eof_received() if self._admitted else None

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


CONNECTIONS_KEY = web.AppKey("connections", Connections)


def _closing(status: int, doc: Dict[str, Any]) -> web.Response:
    """A refusal sent before (all of) the body was read: the connection
    cannot carry another request, so it closes after this answer."""
    response = web.json_response(doc, status=status)
    response.force_close()
    return response


async def _handle(request: web.Request) -> web.StreamResponse:
    service, connections = request.app[SERVICE_KEY], request.app[CONNECTIONS_KEY]
    connections.started(request.transport)
    if connections.draining:
        return _closing(503, {"error": "unavailable", "message": "the server is shutting down"})
    token = _token(request)
    refused = refusal(service, request.method, request.path, token, request.content_length)
    if refused is not None:
        return _closing(*refused)
    connections.begin()
    try:
        try:
            body = await asyncio.wait_for(request.read(), connections.read_timeout)
        except asyncio.TimeoutError:
            return _closing(408, {"error": INVALID_ARGUMENT, "message": "the request body did "
                                  f"not arrive within {connections.read_timeout:g} s"})
        except ConnectionError as e:
            # The client went away mid-body: nobody to answer, one line to log.
            log.info("client %s disconnected mid-request: %s", request.remote, e)
            raise web.HTTPBadRequest() from None
        status, doc = await respond(service, request.method, request.path, body, token,
                                    request.remote or "")
        response = web.json_response(doc, status=status)
        if connections.draining:  # no next request on this connection: say so, and close
            response.force_close()
        return response
    finally:
        connections.end()


@web.middleware
async def _refusals(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge as e:
        return _closing(413, {"error": INVALID_ARGUMENT,
                              "message": e.text or "request body too large"})


def application(service: Service, connections: Connections) -> web.Application:
    """The aiohttp application for service (bodies bounded by its limits;
    connections, timeouts and drain by connections, whose wrap() must
    wrap the runner's protocol factory)."""
    app = web.Application(client_max_size=service.limits.max_body_bytes,
                          middlewares=[_refusals])
    app[SERVICE_KEY] = service
    app[CONNECTIONS_KEY] = connections
    app.add_routes([web.post(path, _handle) for path in _CALLS]
                   + [web.get("/v1/health", _handle)])
    return app
