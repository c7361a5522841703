"""kuaisuo serve against the hardening review of issue 42, over loopback
(CPU backend): idle, slow and oversized HTTP clients are bounded in
connections and time; the token is checked before a body is read or
parsed; health details need a token; malformed protobuf is
INVALID_ARGUMENT; a client that disconnects costs one log line; SIGTERM
answers every accepted request; a SIGHUP reload does not stall requests.
Servers run in this process or as `kuaisuo serve` subprocesses (stopped by
their handle), with short timeouts and bounded request loops."""

import asyncio
import base64
import json
import logging
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from test_serve import ALICE, PASSWORD, auth, b64, ctx, keys, post, serve  # noqa: F401

aiohttp = pytest.importorskip("aiohttp")
grpc = pytest.importorskip("grpc")

import kuaisuo  # noqa: E402
from kuaisuo.keystore import KeyStore  # noqa: E402
from kuaisuo.sm2 import SM2PrivateKey  # noqa: E402
from kuaisuo_serve import grpc_api  # noqa: E402
from kuaisuo_serve import kuaisuo_serve_pb2 as pb  # noqa: E402


class Cli:
    """`kuaisuo serve` in a subprocess on ports of its choosing; stderr
    collected by a thread (so the server never blocks on it)."""

    def __init__(self, keys, *options, nofile=None):
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) \
            if nofile else None
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kuaisuo", "serve", "--keys", keys["dir"], "--access",
             keys["access"], "--passin", "env:KS_TEST_PASS", "--http", "127.0.0.1:0",
             "--backend", "cpu", "--threads", "1", *options],
            env=dict(os.environ, KS_TEST_PASS=PASSWORD.decode()), stderr=subprocess.PIPE,
            text=True, preexec_fn=limit)
        self.before = []  # lines before "listening on" (keys not loaded)
        first = self.proc.stderr.readline()
        while first.startswith("kuaisuo serve: key not loaded"):
            self.before.append(first)
            first = self.proc.stderr.readline()
        assert "listening on" in first, first
        self.http = int(re.search(r"http://[^ ,]+:(\d+)", first).group(1))
        self.grpc = int((re.search(r"grpc [^ ,]+:(\d+)", first) or ["", 0])[1])
        self.lines, self.signalled = [], False
        self._reader = threading.Thread(target=lambda: self.lines.extend(self.proc.stderr))
        self._reader.start()

    def fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def terminate(self):
        self.proc.send_signal(signal.SIGTERM)
        self.signalled = True

    def stop(self, timeout=30):
        """SIGTERM (once); the exit status and what it wrote to stderr after its first line."""
        if not self.signalled:
            self.terminate()
        try:
            rc = self.proc.wait(timeout=timeout)
        finally:
            self.proc.kill()
            self._reader.join(5)
        return rc, "".join(self.lines)


def raw_request(port, head, body=b"", timeout=3.0):
    """Sends head + body on a fresh connection; (HTTP status or None, seconds taken)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head + body)
        try:
            reply = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            reply = b""
    return (int(reply.split(b" ")[1]) if reply.startswith(b"HTTP/1.1 ") else None,
            time.monotonic() - start)


def head(path="/v1/sign", length=None, token=ALICE):
    lines = [f"POST {path} HTTP/1.1", "Host: x", "Content-Type: application/json"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def closed_by_server(sock, timeout):
    """Whether the server closes sock (EOF or reset) within timeout."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def sign_over_http(port, message=b"hi", timeout=5.0):
    async def call():
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
            return await post(http, f"http://127.0.0.1:{port}/v1/sign",
                              {"key_id": "gov", "items": [b64(message)]})
    return asyncio.run(call())


def test_idle_connections_are_bounded_and_timed_out(keys):
    """300 idle connections against a process allowed 256 files: the
    server keeps its open connections under the limit (closing the rest
    as they are accepted), closes the idle ones after the header timeout,
    logs the refusals in one line without a traceback, and signs for a
    client that comes after. (Before: every descriptor held, accept()
    failing with a traceback each time, the valid request timing out.)"""
    cli = Cli(keys, "--header-timeout", "1.5", nofile=256)  # longer than opening 300 takes
    try:
        base = cli.fds()
        idle = [socket.create_connection(("127.0.0.1", cli.http), timeout=2)
                for _ in range(300)]
        time.sleep(0.2)
        held = cli.fds() - base
        assert held <= 256 - 64, held  # the limit: 64 files kept for keys, logs, gRPC
        assert all(closed_by_server(s, 3.0) for s in idle)  # refused, or timed out idle
        status, reply = sign_over_http(cli.http)
        assert status == 200 and reply["results"][0]["status"] == 0
        for s in idle:
            s.close()
    finally:
        rc, err = cli.stop()
    assert rc == 0
    assert "Traceback" not in err and len(err) < 1000, err[-2000:]
    assert err.count("refused") == 1 and "over the limit of 192" in err, err


def test_slow_partial_and_oversized_requests_are_cut_short(keys):
    """Headers that trickle in are cut at the header timeout, a body that
    stops halfway gets 408 at the read timeout, and a Content-Length over
    the body limit 413 at once (401 first without a token), each closing
    the connection; an idle keep-alive connection is closed after the idle
    timeout. (Before: each held its connection open indefinitely.)"""
    cli = Cli(keys, "--header-timeout", "0.5", "--read-timeout", "0.5", "--idle-timeout", "0.5",
              "--max-connections", "8")
    try:
        with socket.create_connection(("127.0.0.1", cli.http)) as s:
            start = time.monotonic()
            s.sendall(b"POST /v1/sign HTTP/1.1\r\n")
            for i in range(20):  # a header line every 0.1 s, never the blank line
                try:
                    s.sendall(b"X-Slow-%d: 1\r\n" % i)
                except OSError:
                    break
                time.sleep(0.1)
            assert closed_by_server(s, 2.0) and time.monotonic() - start < 1.5
        assert raw_request(cli.http, head(length=100), b'{"key_id": ')[0] == 408
        status, took = raw_request(cli.http, head(length=99999999999999), b"{")
        assert status == 413 and took < 0.4
        assert raw_request(cli.http, head(length=99999999999999, token=None))[0] == 401
        with socket.create_connection(("127.0.0.1", cli.http)) as s:
            body = json.dumps({"items": [b64(b"abc")]}).encode()
            s.sendall(head("/v1/hash", len(body)) + body)
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
            assert closed_by_server(s, 2.0)  # keep-alive, then idle past 0.5 s
        assert sign_over_http(cli.http)[0] == 200
    finally:
        rc, err = cli.stop()
    assert rc == 0 and "Traceback" not in err, err[-2000:]


DEEP = b"[" * 100_000 + b"]" * 100_000


def test_the_token_is_checked_before_the_body_is_parsed(keys, ctx, caplog):
    """Without a (known) token: 401 whatever the body, deep nesting and
    malformed JSON included, and no body parsed; with one, JSON nested
    100,000 deep is a clean 400. (Before: 500 with a traceback, and 400
    for malformed JSON without a token.)"""
    async def raw(http, data, token):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        async with http.post("/v1/sign", data=data, headers=headers) as r:
            return r.status, await r.json()

    async def scenario(server, http, calls):
        return [await raw(http, body, token) for body, token in (
            (DEEP, None), (b"{not json", None), (DEEP, "nobody"), (b"{not json", "nobody"),
            (DEEP, ALICE), (b'{"items": ' * 50_000, ALICE))]

    with caplog.at_level(logging.INFO):
        replies = serve(keys, ctx, scenario)
    assert [status for status, _ in replies] == [401] * 4 + [400] * 2
    assert all(doc["error"] == "unauthenticated" for _, doc in replies[:4])
    assert "nested too deeply" in replies[4][1]["message"]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_health_details_need_a_token(keys, ctx):
    async def scenario(server, http, calls):
        out = []
        for token in (None, "nobody", ALICE):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            async with http.get("/v1/health", headers=headers) as r:
                out.append((r.status, await r.json()))
        return out

    anonymous, unknown, known = serve(keys, ctx, scenario)
    assert anonymous == unknown == (200, {"status": "ok"})
    assert known == (200, {"status": "ok", "keys": 3, "queued": 0})


def test_malformed_protobuf_is_invalid_argument_on_every_call(keys, ctx):
    async def scenario(server, http, calls):
        codes = []
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
            for name in ("Sign", "Verify", "Hash", "Encrypt", "Decrypt"):
                call = ch.unary_unary(f"/{grpc_api.SERVICE_NAME}/{name}",
                                      request_serializer=lambda b: b,
                                      response_deserializer=lambda b: b)
                try:
                    await call(b"\xff\xff\xff\xff\x0f", metadata=auth())
                    codes.append(grpc.StatusCode.OK)
                except grpc.aio.AioRpcError as e:
                    codes.append((e.code(), e.details()))
        return codes

    codes = serve(keys, ctx, scenario)
    assert [c for c, _ in codes] == [grpc.StatusCode.INVALID_ARGUMENT] * 5
    assert "not a valid SignRequest" in codes[0][1]


def test_a_client_that_disconnects_mid_request_costs_one_line(keys, ctx, caplog):
    """Five clients that send half a body and go, five that send a whole
    request and go without reading: no traceback, at most a line each, and
    the server keeps serving. (Before: a 25-line traceback each.)"""
    body = json.dumps({"key_id": "gov", "items": [b64(os.urandom(32))] * 64}).encode()

    async def scenario(server, http, calls):
        request = head(length=len(body))
        for payload in [request + body[:10]] * 5 + [request + body] * 5:
            _, writer = await asyncio.open_connection("127.0.0.1", server.http_port)
            writer.write(payload)
            await writer.drain()
            await asyncio.sleep(0.05)  # the server is reading the body, or signing
            writer.transport.abort()   # a reset, as a client that crashed
        await asyncio.sleep(0.3)
        return await post(http, "/v1/hash", {"items": [b64(b"abc")]})

    with caplog.at_level(logging.DEBUG):
        status, reply = serve(keys, ctx, scenario)
    assert status == 200 and reply["results"][0]["status"] == 0
    records = [r for r in caplog.records if r.name.startswith(("aiohttp", "asyncio", "kuaisuo"))
               and r.name != "kuaisuo.audit"]
    assert not [r for r in records if r.exc_info], [r.getMessage() for r in records]
    assert len(records) <= 10 and all("\n" not in r.getMessage() for r in records)


def test_sigterm_answers_every_accepted_request(keys):
    """Ten gRPC batches of 256 digests in flight and ten HTTP uploads
    half sent when SIGTERM comes: every one is answered with signatures
    that verify (the uploads' second halves sent after the signal), and
    the process exits 0. (Before: gRPC calls CANCELLED, uploads cut.)"""
    # Items wait up to 0.8 s for a batch to fill: the calls are in flight at the signal.
    cli = Cli(keys, "--grpc", "127.0.0.1:0", "--max-delay-ms", "800")
    digests = os.urandom(32 * 256)
    body = json.dumps({"key_id": "gov", "digests": True,
                       "items": [b64(os.urandom(32)) for _ in range(64)]}).encode()

    async def main():
        async with grpc.aio.insecure_channel(f"127.0.0.1:{cli.grpc}") as ch:
            sign = grpc_api.stub(ch)["Sign"]
            calls = [asyncio.ensure_future(sign(pb.SignRequest(key_id="gov", digest_rows=digests),
                                                metadata=auth(), timeout=60))
                     for _ in range(10)]
            uploads = []
            for _ in range(10):
                reader, writer = await asyncio.open_connection("127.0.0.1", cli.http)
                writer.write(head("/v1/sign", len(body)) + body[:len(body) // 2])
                uploads.append((reader, writer))
            await asyncio.sleep(0.3)
            assert not any(call.done() for call in calls)
            cli.terminate()
            await asyncio.sleep(0.3)
            for _, writer in uploads:
                writer.write(body[len(body) // 2:])
            answers = [await asyncio.wait_for(reader.read(), 10) for reader, _ in uploads]
            replies = await asyncio.gather(*calls, return_exceptions=True)
        return replies, answers

    try:
        replies, answers = asyncio.run(main())
    finally:
        rc, err = cli.stop()
    pub = keys["sm2"].public_key().public_bytes_raw()
    ctx = kuaisuo.Context(backend="cpu", threads=1)
    for reply in replies:
        assert isinstance(reply, pb.Reply), reply
        assert ctx.sm2.verify_digests(pub * 256, digests, reply.value_rows,
                                      encoding="raw") == [0] * 256
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        doc = json.loads(answer.split(b"\r\n\r\n", 1)[1])
        assert [r["status"] for r in doc["results"]] == [0] * 64
    assert rc == 0, err


def test_a_request_is_answered_during_a_slow_key_reload(keys, ctx):
    """SIGHUP with four keys at 300,000 PBKDF2 iterations to derive (about
    a second here): a request sent right after is answered in well under
    that, and the new keys arrive. (Before: the request waited for the
    whole reload.)"""
    slow = SM2PrivateKey.generate().to_pem(PASSWORD, iterations=300_000)

    async def scenario(server, http, calls):
        for i in range(4):
            with open(os.path.join(keys["dir"], f"slow{i}.pem"), "w") as f:
                f.write(slow)
        loop = asyncio.get_running_loop()
        server.service.keys.reload_on_signal(loop)
        try:
            os.kill(os.getpid(), signal.SIGHUP)
            start = loop.time()
            status, reply = await post(http, "/v1/hash", {"items": [b64(b"abc")]})
            took = loop.time() - start
            while len(server.service.keys) != 7 and loop.time() - start < 20:
                await asyncio.sleep(0.01)
            return status, took, len(server.service.keys), loop.time() - start
        finally:
            loop.remove_signal_handler(signal.SIGHUP)

    status, took, count, reload_time = serve(keys, ctx, scenario)
    assert status == 200 and count == 7
    assert took < 0.25 and reload_time > 2 * took, (took, reload_time)


def test_key_files_over_the_iteration_bound_are_refused(keys):
    """KeyStore(max_iterations=) and `kuaisuo serve --max-pbkdf2-iterations`:
    the fixture's files (2,048 PBKDF2 iterations) load under a bound of
    2,048, and under 1,000 are named with the library's reason (code -52)
    and not served, before any key derivation."""
    store = KeyStore(keys["dir"], PASSWORD, max_iterations=2048)
    assert store.load() == [] and len(store) == 3
    store = KeyStore(keys["dir"], PASSWORD, max_iterations=1000)
    errors = store.load()
    assert len(store) == 0 and len(errors) == 3 and all("-52" in e.reason for e in errors)

    cli = Cli(keys, "--max-pbkdf2-iterations", "1000")
    try:
        assert len(cli.before) == 3 and all("code -52" in line for line in cli.before)
        status, doc = sign_over_http(cli.http)
        assert status == 403
    finally:
        assert cli.stop()[0] == 0
    cli = Cli(keys, "--max-pbkdf2-iterations", "2048")
    try:
        assert cli.before == [] and sign_over_http(cli.http)[0] == 200
    finally:
        assert cli.stop()[0] == 0


@pytest.mark.parametrize("listener", ["--http", "--grpc"])
def test_a_port_in_use_is_one_line_not_a_traceback(keys, listener):
    """(Before: grpcio's bind failure left the CLI as a traceback, and an
    HTTP address in use was named as 'stdin'.)"""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        address = "127.0.0.1:%d" % busy.getsockname()[1]
        args = ["--http", "off", "--grpc", address] if listener == "--grpc" else \
            ["--http", address]
        run = subprocess.run(
            [sys.executable, "-m", "kuaisuo", "serve", "--keys", keys["dir"], "--access",
             keys["access"], "--passin", "env:KS_TEST_PASS", "--backend", "cpu", *args],
            env=dict(os.environ, KS_TEST_PASS=PASSWORD.decode(), GRPC_VERBOSITY="NONE"),
            capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("kuaisuo serve: ")
    assert "stdin" not in run.stderr


def test_bad_tls_files_are_named_in_one_line(keys, tmp_path):
    """(Before: gRPC said 'Failed to bind' with a traceback; HTTP 'No such
    file or directory' without the file.)"""
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    for cert, listeners in ((bad, ["--http", "off", "--grpc", "127.0.0.1:0"]),
                            (tmp_path / "absent.pem", [])):
        run = subprocess.run(
            [sys.executable, "-m", "kuaisuo", "serve", "--keys", keys["dir"], "--access",
             keys["access"], "--passin", "env:KS_TEST_PASS", "--backend", "cpu",
             "--tls-cert", str(cert), "--tls-key", str(bad), *listeners],
            env=dict(os.environ, KS_TEST_PASS=PASSWORD.decode(), GRPC_VERBOSITY="NONE"),
            capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
        assert run.stderr.startswith(f"kuaisuo serve: TLS files {cert}, {bad}: ")
