"""The two transports' clients: HTTP/JSON (aiohttp, a connection pool of
--concurrency) and gRPC (grpcio's asyncio API, --channels round robin).
Each sends one request and records its outcome in the current Tally;
failures are counted, never raised."""

from __future__ import annotations

import asyncio
import json
import ssl
from typing import Any, Callable

from .inputs import Inputs
from .stats import Tally
from .workload import GRACE, BenchError, Target


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
            async with asyncio.timeout_at(deadline + GRACE):
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

        from kuaisuo_serve import grpc_api
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
            async with asyncio.timeout_at(deadline + GRACE):
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
