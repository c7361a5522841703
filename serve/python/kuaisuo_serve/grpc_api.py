"""The gRPC form of `kuaisuo serve` (grpcio's asyncio server; schema in
kuaisuo_serve.proto). The service is registered through grpcio's generic
handlers, so no generated service stubs are needed; clients may use stubs
from the .proto or `channel.unary_unary` with the same messages. Requests
arrive as bytes and are parsed in the handler, so that a malformed one is
answered INVALID_ARGUMENT (a deserializer that raises gives UNKNOWN)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Optional

import grpc
from google.protobuf.message import DecodeError

from . import kuaisuo_serve_pb2 as pb
from .service import (FAILED_PRECONDITION, INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED,
                      UNAUTHENTICATED, RequestError, Service, bearer, describe)

SERVICE_NAME = "kuaisuo.serve.v1.Signer"
_CODES = {INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
          UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
          PERMISSION_DENIED: grpc.StatusCode.PERMISSION_DENIED,
          NOT_FOUND: grpc.StatusCode.NOT_FOUND,
          FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION}


def _token(context: grpc.aio.ServicerContext) -> Optional[str]:
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            return bearer(str(value))
    return None


def _timeout(ms: int) -> Optional[float]:
    return ms / 1000.0 if ms else None


def _le32(statuses: Any) -> bytes:
    return statuses.astype("<i4").tobytes()


def _reply(results: list) -> pb.Reply:
    return pb.Reply(results=[
        pb.ItemResult(status=s, value=v if s == 0 and v is not None else b"",
                      error="" if s == 0 else describe(s)) for s, v in results])


class _Calls:
    def __init__(self, service: Service) -> None:
        self.service = service

    async def sign(self, request: pb.SignRequest, context: Any) -> pb.Reply:
        if request.digest_rows:
            statuses, values = await self.service.sign_digest_rows(
                _token(context), request.key_id, request.digest_rows,
                timeout=_timeout(request.timeout_ms), peer=context.peer() or "")
            return pb.Reply(statuses=_le32(statuses), value_rows=values.tobytes())
        return _reply(await self.service.sign(
            _token(context), request.key_id, list(request.items), digests=request.digests,
            timeout=_timeout(request.timeout_ms), peer=context.peer() or ""))

    async def verify(self, request: pb.VerifyRequest, context: Any) -> pb.Reply:
        if request.digest_rows:
            statuses = await self.service.verify_digest_rows(
                _token(context), request.public_key_rows, request.digest_rows,
                request.signature_rows, timeout=_timeout(request.timeout_ms))
            return pb.Reply(statuses=_le32(statuses))
        items = [(i.public_key, i.data, i.signature) for i in request.items]
        return _reply(await self.service.verify(
            _token(context), request.algorithm, items, digests=request.digests,
            timeout=_timeout(request.timeout_ms)))

    async def hash(self, request: pb.HashRequest, context: Any) -> pb.Reply:
        return _reply(await self.service.hash(
            _token(context), request.algorithm or "sm3", list(request.items),
            timeout=_timeout(request.timeout_ms)))

    async def encrypt(self, request: pb.CipherRequest, context: Any) -> pb.Reply:
        return await self._crypt("encrypt", request, context)

    async def decrypt(self, request: pb.CipherRequest, context: Any) -> pb.Reply:
        return await self._crypt("decrypt", request, context)

    async def _crypt(self, direction: str, request: pb.CipherRequest, context: Any) -> pb.Reply:
        if request.rows and not request.row_bytes:
            raise RequestError(INVALID_ARGUMENT, "rows need row_bytes")
        if request.row_bytes and (request.items or request.associated_data):
            raise RequestError(INVALID_ARGUMENT, "the rows form takes no items or "
                                                 "associated_data")
        if request.row_bytes:
            statuses, values = await self.service.crypt_rows(
                _token(context), direction, request.key_id, request.rows, request.row_bytes,
                timeout=_timeout(request.timeout_ms), peer=context.peer() or "")
            return pb.Reply(statuses=_le32(statuses), value_rows=values.tobytes())
        return _reply(await self.service.crypt(
            _token(context), direction, request.key_id, list(request.items),
            list(request.associated_data) or None, timeout=_timeout(request.timeout_ms),
            peer=context.peer() or ""))


def _handler(call: Callable[[Any, Any], Awaitable[pb.Reply]],
             request_type: Any) -> grpc.RpcMethodHandler:
    async def handle(raw: bytes, context: grpc.aio.ServicerContext) -> pb.Reply:
        try:
            try:
                request = request_type.FromString(raw)
            except DecodeError:
                raise RequestError(INVALID_ARGUMENT, "the request is not a valid "
                                                     f"{request_type.DESCRIPTOR.name}") from None
            return await call(request, context)
        except RequestError as e:
            await context.abort(_CODES[e.kind], str(e))
            raise  # abort raises; this line is not reached
    return grpc.unary_unary_rpc_method_handler(
        handle, response_serializer=pb.Reply.SerializeToString)


def server(service: Service, address: str,
           credentials: Optional[grpc.ServerCredentials] = None, *,
           reuse_port: bool = False, idle_timeout: float = 60.0) -> tuple:
    """A grpc.aio server for service bound to address ("host:port"), and
    the port it got. Call `await srv.start()`; `await srv.stop(grace)`
    finishes the calls in progress and refuses new ones. A connection
    without calls for idle_timeout seconds is closed."""
    limit = service.limits.max_body_bytes
    srv = grpc.aio.server(options=[("grpc.so_reuseport", int(reuse_port)),
                                   ("grpc.max_receive_message_length", limit),
                                   ("grpc.max_send_message_length", 4 * limit),
                                   ("grpc.max_connection_idle_ms", int(idle_timeout * 1000))])
    calls = _Calls(service)
    srv.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE_NAME, {
        "Sign": _handler(calls.sign, pb.SignRequest),
        "Verify": _handler(calls.verify, pb.VerifyRequest),
        "Hash": _handler(calls.hash, pb.HashRequest),
        "Encrypt": _handler(calls.encrypt, pb.CipherRequest),
        "Decrypt": _handler(calls.decrypt, pb.CipherRequest)})])
    port = (srv.add_secure_port(address, credentials) if credentials is not None
            else srv.add_insecure_port(address))
    return srv, port


def stub(channel: grpc.aio.Channel) -> dict:
    """Callables for the calls on a grpc.aio channel (a client without
    generated stubs): stub(ch)["Sign"](request, metadata=...)."""
    types: Dict[str, Any] = {"Sign": pb.SignRequest, "Verify": pb.VerifyRequest,
                             "Hash": pb.HashRequest, "Encrypt": pb.CipherRequest,
                             "Decrypt": pb.CipherRequest}
    return {name: channel.unary_unary(f"/{SERVICE_NAME}/{name}",
                                      request_serializer=t.SerializeToString,
                                      response_deserializer=pb.Reply.FromString)
            for name, t in types.items()}
