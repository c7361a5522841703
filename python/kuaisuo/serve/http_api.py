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
    GET  /v1/health  -> {"status": "ok", "keys": 3, "queued": 0}

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
401 (no or unknown token), 403 (key id not available to the client),
409 (an SM4 key that has sealed the 2^32 messages its random nonces allow,
or a seal ledger that cannot be kept) or 413 (body over the limit).

`respond()` is the transport-neutral core (method, path, raw body, token
-> HTTP status and JSON document); the aiohttp application here and the
Ray Serve deployment in `ray_app` are thin adapters around it."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Dict, List, Optional, Tuple

from aiohttp import web

from .service import (FAILED_PRECONDITION, INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED,
                      UNAUTHENTICATED, RequestError, Result, Service, bearer, describe)

_HTTP_STATUS = {INVALID_ARGUMENT: 400, UNAUTHENTICATED: 401, PERMISSION_DENIED: 403,
                NOT_FOUND: 404, FAILED_PRECONDITION: 409}
SERVICE_KEY = web.AppKey("service", Service)


def _error(kind: str, message: str, status: int) -> web.Response:
    return web.json_response({"error": kind, "message": message}, status=status)


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


def health(service: Service) -> Dict[str, Any]:
    return {"status": "ok", "keys": len(service.keys), "queued": service.batcher.queued}


_CALLS = {"/v1/sign": _sign, "/v1/verify": _verify, "/v1/hash": _hash,
          "/v1/encrypt": _crypt("encrypt", "sealed"),
          "/v1/decrypt": _crypt("decrypt", "plaintext")}


async def respond(service: Service, method: str, path: str, body: bytes,
                  token: Optional[str], peer: str = "") -> Tuple[int, Dict[str, Any]]:
    """One HTTP/JSON call apart from any HTTP server: the request's method,
    path (from /v1 on), raw body and bearer token -> (HTTP status, JSON
    document). The aiohttp application and the Ray Serve deployment
    (`kuaisuo.serve.ray_app`) both answer through here."""
    if path == "/v1/health" and method.upper() in ("GET", "HEAD"):
        return 200, health(service)
    if path not in _CALLS:
        return 404, {"error": NOT_FOUND, "message": f"no such call: {path[:128]}"}
    if method.upper() != "POST":
        return 405, {"error": "method_not_allowed", "message": f"{path} takes POST"}
    if len(body) > service.limits.max_body_bytes:
        return 413, {"error": INVALID_ARGUMENT, "message": "request body too large"}
    try:
        return 200, await _CALLS[path](service, _decode(body), token, peer)
    except RequestError as e:
        return _HTTP_STATUS[e.kind], {"error": e.kind, "message": str(e)}


async def _handle(request: web.Request) -> web.Response:
    status, doc = await respond(request.app[SERVICE_KEY], request.method, request.path,
                                await request.read(), _token(request), request.remote or "")
    return web.json_response(doc, status=status)


@web.middleware
async def _refusals(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge as e:
        return _error(INVALID_ARGUMENT, e.text or "request body too large", 413)


def application(service: Service) -> web.Application:
    """The aiohttp application for service (bodies bounded by its limits)."""
    app = web.Application(client_max_size=service.limits.max_body_bytes,
                          middlewares=[_refusals])
    app[SERVICE_KEY] = service
    app.add_routes([web.post(path, _handle) for path in _CALLS]
                   + [web.get("/v1/health", _handle)])
    return app
