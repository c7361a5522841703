"""kuaisuo-grpcd, the native gRPC front end (serve/grpcd/), end to end over
loopback against direct library calls: the rows form of SM2 sign and
verify, lists of SM2 and Ed25519 items, SM3 Hash, refusals with the Python server's codes, backpressure, deadlines,
disconnecting clients, key files, reload, audit lines, TLS and drain.

The binary is found through KUAISUO_GRPCD (scripts/test sets it after
building it); the tests skip where it was not built (no gRPC C++)."""

import hashlib
import json
import os
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

grpc = pytest.importorskip("grpc")

import kuaisuo  # noqa: E402
from kuaisuo.ed25519 import Ed25519PrivateKey  # noqa: E402
from kuaisuo.keystore import token_digest  # noqa: E402
from kuaisuo.sm2 import SM2PrivateKey  # noqa: E402
from kuaisuo.sm4 import SM4Key  # noqa: E402
from kuaisuo_serve import kuaisuo_serve_pb2 as pb  # noqa: E402
from sigcheck import verifies  # noqa: E402

BINARY = os.environ.get("KUAISUO_GRPCD", "")
if not BINARY:
    pytest.skip("KUAISUO_GRPCD not set (kuaisuo-grpcd not built)", allow_module_level=True)

ALICE, BOB = "alice-token", "bob-token"
PASSWORD = "grpcd test"
OK, OVERLOADED, DEADLINE = 0, -60, -61
# RFC 8032 7.1, TEST 2: seed, public key, message, signature.
RFC8032_TEST2 = [bytes.fromhex(h) for h in (
    "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613"
    "d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")]
SERVICE = "/kuaisuo.serve.v1.Signer/"


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=2)


@pytest.fixture
def store(tmp_path):
    key = SM2PrivateKey.generate()
    kdir = tmp_path / "keys"
    kdir.mkdir()
    (kdir / "gov.pem").write_bytes(key.to_pem(PASSWORD.encode(), scheme="sm4-cbc",
                                              iterations=2048).encode())
    node = Ed25519PrivateKey.generate()
    (kdir / "node.der").write_bytes(node.to_der(PASSWORD.encode(), iterations=2048))
    (kdir / "rfc8032.pem").write_bytes(Ed25519PrivateKey.from_private_bytes(
        RFC8032_TEST2[0]).to_pem(PASSWORD.encode(), scheme="sm4-cbc", iterations=2048).encode())
    (kdir / "sym.pem").write_bytes(SM4Key.generate().to_pem(PASSWORD.encode(),
                                                           iterations=2048).encode())
    (kdir / "plain.pem").write_bytes(SM2PrivateKey.generate().to_pem().encode())
    access = tmp_path / "access.json"
    access.write_text(json.dumps({"tokens": {token_digest(ALICE): ["gov", "plain"],
                                             token_digest(BOB): ["node", "rfc8032"]}}))
    return {"dir": kdir, "access": access, "key": key, "node": node,
            "audit": tmp_path / "audit.log"}


class Server:
    """kuaisuo-grpcd on a free loopback port; stderr kept for the checks."""

    def __init__(self, store, *extra, listen="127.0.0.1:0", env=None):
        self.stderr_path = store["audit"].parent / "grpcd.err"
        self.proc = subprocess.Popen(
            [BINARY, "--keys", str(store["dir"]), "--access", str(store["access"]),
             "--passin", "env:KS_GRPCD_PASS", "--listen", listen, "--backend", "cpu",
             "--threads", "2", "--audit-log", str(store["audit"]), *extra],
            stderr=open(self.stderr_path, "w"), env={**os.environ, "KS_GRPCD_PASS": PASSWORD,
                                                     **(env or {})})
        self.port = self._wait_for_port()

    def _wait_for_port(self):
        for _ in range(300):
            text = self.stderr()
            if "listening" in text:
                return int(text.split("(port ")[1].split(",")[0])
            if self.proc.poll() is not None:
                raise AssertionError(f"kuaisuo-grpcd exited: {text}")
            time.sleep(0.05)
        raise AssertionError("kuaisuo-grpcd did not start")

    def stderr(self):
        return self.stderr_path.read_text()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


@pytest.fixture
def server(store):
    s = Server(store, "--max-delay-ms", "1")
    yield s
    s.stop()


def call(port, method, request, token=ALICE, timeout=30, credentials=None):
    target = f"127.0.0.1:{port}"
    channel = (grpc.secure_channel(target, credentials) if credentials
               else grpc.insecure_channel(target))
    with channel:
        stub = channel.unary_unary(SERVICE + method, request_serializer=lambda m: m
                                   if isinstance(m, bytes) else m.SerializeToString(),
                                   response_deserializer=pb.Reply.FromString)
        metadata = [("authorization", f"Bearer {token}")] if token else []
        return stub(request, metadata=metadata, timeout=timeout)


def statuses(reply):
    return list(memoryview(reply.statuses).cast("i"))


def rows_of(ctx, count):
    """count valid SM2 rows with distinct keys (04||x||y, e, r||s)."""
    pairs = ctx.sm2.keygen(count)
    digests = [os.urandom(32) for _ in range(count)]
    sigs = [ctx.sm2.sign_digests(SM2PrivateKey.from_private_bytes(d), [e], encoding="raw")[0]
            for (d, _), e in zip(pairs, digests)]
    return [p for _, p in pairs], digests, sigs


def test_sign_rows_verify_under_the_library(server, store, ctx):
    digests = os.urandom(32 * 300)
    reply = call(server.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=digests))
    assert statuses(reply) == [OK] * 300 and len(reply.value_rows) == 300 * 64
    public = store["key"].public_key().public_bytes_raw()
    assert ctx.sm2.verify_digests([public] * 300, digests, reply.value_rows,
                                  encoding="raw") == [OK] * 300
    # Fresh random nonces: the same digests signed again give other signatures.
    again = call(server.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=digests))
    assert again.value_rows != reply.value_rows


def test_verify_rows_give_the_library_status_per_row(server, ctx):
    keys, digests, sigs = rows_of(ctx, 40)
    sigs[3] = sigs[3][:63] + bytes([sigs[3][63] ^ 1])           # a wrong signature
    sigs[5] = b"\xff" * 64                                       # r, s out of range
    keys[7] = b"\x04" + b"\x01" * 64                             # off the curve
    digests[9] = bytes(32)                                       # another message
    reply = call(server.port, "Verify", pb.VerifyRequest(
        public_key_rows=b"".join(keys), digest_rows=b"".join(digests),
        signature_rows=b"".join(sigs)))
    expected = ctx.sm2.verify_digests(keys, b"".join(digests), b"".join(sigs), encoding="raw")
    assert statuses(reply) == expected
    assert [i for i, s in enumerate(expected) if s != OK] == [3, 5, 7, 9]


def test_verify_rows_with_one_key_for_every_row(server, store, ctx):
    digests = os.urandom(32 * 20)
    signed = call(server.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=digests))
    public = store["key"].public_key().public_bytes_raw()
    reply = call(server.port, "Verify", pb.VerifyRequest(
        public_key_rows=public, digest_rows=digests, signature_rows=signed.value_rows))
    assert statuses(reply) == [OK] * 20


def test_tokens_key_ids_and_malformed_rows_are_refused(server):
    code = lambda e: e.value.code()  # noqa: E731
    sign = pb.SignRequest(key_id="gov", digest_rows=bytes(64))
    for token in ("wrong", None):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, "Sign", sign, token=token)
        assert code(e) == grpc.StatusCode.UNAUTHENTICATED
    denied = []
    for token, key_id in ((BOB, "gov"), (ALICE, "nobody"), (ALICE, "sym"), (BOB, "plain")):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, "Sign", pb.SignRequest(key_id=key_id, digest_rows=bytes(32)),
                 token=token)
        assert code(e) == grpc.StatusCode.PERMISSION_DENIED  # sym: an SM4 file, not served
        denied.append(e.value.details().replace(key_id, "ID"))
    assert len(set(denied)) == 1  # "not yours" and "no such key" read the same
    for request in (pb.SignRequest(key_id="gov", digest_rows=bytes(33)),):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, "Sign", request)
        assert code(e) == grpc.StatusCode.INVALID_ARGUMENT and "32" in e.value.details()
    for request in (pb.VerifyRequest(public_key_rows=bytes(65), digest_rows=bytes(64),
                                     signature_rows=bytes(64)),
                    pb.VerifyRequest(public_key_rows=bytes(130), digest_rows=bytes(64),
                                     signature_rows=bytes(127))):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, "Verify", request)
        assert code(e) == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as e:
        call(server.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=bytes(32 * 4097)))
    assert code(e) == grpc.StatusCode.INVALID_ARGUMENT and "4096" in e.value.details()
    for method, request in (("Encrypt", pb.CipherRequest(key_id="gov", items=[b"abc"])),
                            ("Decrypt", pb.CipherRequest(key_id="gov", items=[b"abc"]))):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, method, request)
        assert code(e) == grpc.StatusCode.UNIMPLEMENTED and "kuaisuo serve" in e.value.details()
    with pytest.raises(grpc.RpcError) as e:
        call(server.port, "Sign", b"\xff\xff\xff garbage")
    assert code(e) != grpc.StatusCode.OK
    # Still serving.
    assert statuses(call(server.port, "Sign", sign)) == [OK, OK]


def test_lists_of_items_sign_and_verify_as_the_library(server, store, ctx):
    """kuaisuo serve's list form: SM2 digests and messages signed (DER, each
    verified by the library under the key's public half) and verified per
    item with the library's own statuses, defects included."""
    public = store["key"].public_key()
    LENGTH = -3
    digests = [os.urandom(32) for _ in range(5)] + [b"short"]
    reply = call(server.port, "Sign", pb.SignRequest(key_id="gov", items=digests, digests=True))
    assert [r.status for r in reply.results] == [OK] * 5 + [LENGTH]
    assert reply.results[5].value == b"" and reply.results[5].error == kuaisuo.strerror(LENGTH)
    assert all(verifies(public.verify_digest, r.value, e) for e, r in zip(digests, reply.results[:5]))
    messages = [b"", b"abc", os.urandom(3000)]
    signed = call(server.port, "Sign", pb.SignRequest(key_id="gov", items=messages))
    assert [r.status for r in signed.results] == [OK] * 3
    assert all(verifies(public.verify, r.value, m) for m, r in zip(messages, signed.results))
    audit = [json.loads(line) for line in store["audit"].read_text().splitlines()]
    assert [(a["digests"], a["items"], a["ok"]) for a in audit[-2:]] == [(True, 6, 5),
                                                                        (False, 3, 3)]

    key_bytes = public.public_bytes_raw()
    keys, data, sigs = [key_bytes] * 3, list(messages), [r.value for r in signed.results]
    data.append(b"another message"); keys.append(key_bytes); sigs.append(sigs[1])
    keys.append(b"\x04" + b"\x01" * 64); data.append(b"abc"); sigs.append(sigs[1])  # off the curve
    keys.append(key_bytes[:64]); data.append(b"abc"); sigs.append(sigs[1])          # short key
    keys.append(key_bytes); data.append(b"abc"); sigs.append(sigs[1] + b"\x00")     # trailing DER
    keys.append(key_bytes); data.append(b"abc"); sigs.append(b"")                   # empty DER
    items = [pb.VerifyItem(public_key=k, data=d, signature=g) for k, d, g in zip(keys, data, sigs)]
    reply = call(server.port, "Verify", pb.VerifyRequest(algorithm="sm2", items=items))
    got = [r.status for r in reply.results]
    expected = [LENGTH if len(k) != 65 else s for k, s in
                zip(keys, ctx.sm2.verify([k if len(k) == 65 else key_bytes for k in keys],
                                         data, sigs))]
    assert got == expected
    assert got[:3] == [OK] * 3 and all(s != OK for s in got[3:])
    assert all(r.error == kuaisuo.strerror(r.status) for r in reply.results[3:])

    e = [public.digest(m) for m in messages]
    reply = call(server.port, "Verify", pb.VerifyRequest(algorithm="sm2", digests=True, items=[
        pb.VerifyItem(public_key=key_bytes, data=d, signature=g) for d, g in
        zip(e + [b"\x00" * 31], sigs[:3] + [sigs[0]])]))
    assert [r.status for r in reply.results] == [OK] * 3 + [LENGTH]
    for algorithm, text in (("", "algorithm ''"), ("rsa", "'rsa'")):
        with pytest.raises(grpc.RpcError) as err:
            call(server.port, "Verify", pb.VerifyRequest(algorithm=algorithm, items=items[:1]))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert text in err.value.details()


def test_ed25519_lists_sign_and_verify_as_the_library(server, store, ctx):
    """Ed25519 through kuaisuo serve's list form: messages signed by a key
    from the store (RFC 8032 7.1 TEST 2's key and vector; a random key's
    signatures equal to the library's own, Ed25519 being deterministic,
    and verified by OpenSSL through `cryptography` where installed), from
    concurrent requests sharing batches; verified per item with the
    library's statuses, defects included; digests refused."""
    seed, public_raw, message, signature = RFC8032_TEST2
    reply = call(server.port, "Sign", pb.SignRequest(key_id="rfc8032", items=[message]),
                 token=BOB)
    assert [(r.status, r.value) for r in reply.results] == [(OK, signature)]
    node = store["node"]
    lists = [[os.urandom(n) for n in (0, 1, 64, 3000)[:1 + i % 4]] + [b"x" * i]
             for i in range(24)]
    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda items: call(server.port, "Sign", pb.SignRequest(
            key_id="node", items=items), token=BOB), lists))
    for items, reply in zip(lists, replies):
        assert [(r.status, r.value) for r in reply.results] == [(OK, node.sign(m))
                                                                for m in items]
    audit = json.loads(store["audit"].read_text().splitlines()[-1])
    assert (audit["algorithm"], audit["digests"]) == ("ed25519", False)
    messages = lists[3]
    sigs = [r.value for r in replies[3].results]
    node_raw = node.public_key().public_bytes_raw()
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        peer = Ed25519PublicKey.from_public_bytes(node_raw)
        for m, sig in zip(messages, sigs):
            peer.verify(sig, m)  # raises InvalidSignature otherwise
    except ImportError:
        pass

    L = (2 ** 252 + 27742317777372353535851937790883648493).to_bytes(32, "little")
    small_order = bytes([1]) + bytes(31)                   # the neutral point
    non_canonical = b"\xee" + b"\xff" * 30 + b"\x7f"       # y = p + 1 > p
    keys = [node_raw] * len(messages) + [public_raw]
    data = list(messages) + [message]
    sigs = list(sigs) + [signature]
    for k, d, g in ((node_raw, b"another message", sigs[1]),  # wrong message
                    (node_raw, messages[1], sigs[1][:32] + L),  # S = L
                    (node_raw, messages[1], sigs[1][:-1] + bytes([sigs[1][-1] ^ 1])),
                    (small_order, messages[1], sigs[1]), (non_canonical, messages[1], sigs[1]),
                    (node_raw[:31], messages[1], sigs[1]), (node_raw, messages[1], sigs[1][:63]),
                    (node_raw, messages[1], b"")):
        keys.append(k); data.append(d); sigs.append(g)
    items = [pb.VerifyItem(public_key=k, data=d, signature=g) for k, d, g in zip(keys, data, sigs)]
    reply = call(server.port, "Verify", pb.VerifyRequest(algorithm="ed25519", items=items))
    got = [r.status for r in reply.results]
    LENGTH = -3
    whole = [len(k) == 32 and len(g) == 64 for k, g in zip(keys, sigs)]
    library = ctx.ed25519.verify([k for k, w in zip(keys, whole) if w],
                                 [d for d, w in zip(data, whole) if w],
                                 [g for g, w in zip(sigs, whole) if w])
    library = iter(library)
    assert got == [next(library) if w else LENGTH for w in whole]
    n = len(messages) + 1
    assert got[:n] == [OK] * n and got[n:] == [-44, -43, -44, -41, -41, LENGTH, LENGTH, LENGTH]
    assert all(r.error == kuaisuo.strerror(r.status) for r in reply.results[n:])

    code = lambda e: e.value.code()  # noqa: E731
    for method, request, token, text in (
            ("Sign", pb.SignRequest(key_id="node", items=[bytes(32)], digests=True), BOB,
             "not digests"),
            ("Sign", pb.SignRequest(key_id="node", digest_rows=bytes(32)), BOB, "SM2 keys only"),
            ("Verify", pb.VerifyRequest(algorithm="ed25519", digests=True, items=items[:1]), BOB,
             "'ed25519' on digests"),
            ("Sign", pb.SignRequest(key_id="node", items=[b"m"] * 4097), BOB, "4096")):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, method, request, token=token)
        assert code(e) == grpc.StatusCode.INVALID_ARGUMENT and text in e.value.details()


def test_ed25519_messages_past_the_batch_byte_budget(store):
    """--max-batch-mib bounds the bytes of messages a batch gathers: lists
    of large and small messages are cut into several batches, and a
    message larger than the budget runs alone; every signature as the
    library makes it."""
    s = Server(store, "--max-batch-mib", "1", "--max-items", "65536")
    try:
        node = store["node"]
        items = [os.urandom(3 << 20), b"a", os.urandom(700 << 10), os.urandom(700 << 10), b""]
        reply = call(s.port, "Sign", pb.SignRequest(key_id="node", items=items), token=BOB)
        assert [(r.status, r.value) for r in reply.results] == [(OK, node.sign(m))
                                                                for m in items]
    finally:
        assert s.stop() == 0


def test_hash_is_sm3_of_each_item(server):
    """Hash answers as kuaisuo serve does: a digest per item, checked against
    the library and OpenSSL (hashlib) where it has SM3, and GB/T 32905 A.1."""
    items = [b"", b"abc", b"abcd" * 16, os.urandom(1000), os.urandom(70000)]
    reply = call(server.port, "Hash", pb.HashRequest(algorithm="sm3", items=items))
    assert [r.status for r in reply.results] == [OK] * len(items)
    assert [r.value for r in reply.results] == [kuaisuo.sm3(i) for i in items]
    if "sm3" in hashlib.algorithms_available:
        assert [r.value for r in reply.results] == [hashlib.new("sm3", i).digest() for i in items]
    assert reply.results[1].value.hex() == (
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
    # The algorithm defaults to sm3; no items, no results.
    assert call(server.port, "Hash", pb.HashRequest(items=[b"abc"])).results[0].value == (
        reply.results[1].value)
    assert list(call(server.port, "Hash", pb.HashRequest()).results) == []
    code = lambda e: e.value.code()  # noqa: E731
    for request, token, expected, text in (
            (pb.HashRequest(algorithm="md5", items=[b"x"]), ALICE,
             grpc.StatusCode.INVALID_ARGUMENT, "sm3 is served"),
            (pb.HashRequest(items=[b"x"] * 4097), ALICE, grpc.StatusCode.INVALID_ARGUMENT, "4096"),
            (pb.HashRequest(items=[b"x"]), "wrong", grpc.StatusCode.UNAUTHENTICATED, "token"),
            (pb.HashRequest(items=[b"x"]), None, grpc.StatusCode.UNAUTHENTICATED, "token")):
        with pytest.raises(grpc.RpcError) as e:
            call(server.port, "Hash", request, token=token)
        assert code(e) == expected and text in e.value.details()


def test_key_files_are_reported_and_reloaded_on_sighup(server, store):
    text = server.stderr()
    assert "sym.pem: not an SM2 or Ed25519 key" in text
    assert "plain.pem: not encrypted" in text and "3 keys" in text
    assert PASSWORD not in text
    (store["dir"] / "late.pem").write_bytes(SM2PrivateKey.generate().to_pem(
        PASSWORD.encode(), iterations=2048).encode())
    (store["dir"] / "bad.pem").write_bytes(b"-----BEGIN PRIVATE KEY-----\nAAAA\n")
    server.proc.send_signal(signal.SIGHUP)
    for _ in range(100):
        if "reloaded" in server.stderr():
            break
        time.sleep(0.05)
    assert "reloaded, 4 keys" in server.stderr() and "bad.pem" in server.stderr()


def test_plain_files_with_allow_plain(store):
    s = Server(store, "--allow-plain")
    try:
        reply = call(s.port, "Sign", pb.SignRequest(key_id="plain", digest_rows=bytes(32)))
        assert statuses(reply) == [OK]
    finally:
        assert s.stop() == 0


def test_a_request_past_the_queue_bound_is_overloaded_per_row(store):
    s = Server(store, "--max-queued", "100", "--max-delay-ms", "1")
    try:
        reply = call(s.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=bytes(32 * 101)))
        assert statuses(reply) == [OVERLOADED] * 101 and reply.value_rows == bytes(101 * 64)
        assert statuses(call(s.port, "Sign", pb.SignRequest(
            key_id="gov", digest_rows=bytes(32 * 100)))) == [OK] * 100
    finally:
        s.stop()


def test_rows_past_their_deadline_do_not_run(store):
    s = Server(store, "--max-delay-ms", "800")
    try:
        reply = call(s.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=bytes(64),
                                                     timeout_ms=50))
        assert statuses(reply) == [DEADLINE] * 2 and reply.value_rows == bytes(128)
    finally:
        s.stop()


def test_concurrent_requests_share_batches_and_clients_may_vanish(store, ctx):
    s = Server(store, "--max-delay-ms", "300", "--max-batch", "1000")
    try:
        with pytest.raises(grpc.RpcError) as e:  # gives up before its batch runs
            call(s.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=bytes(32)),
                 timeout=0.05)
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        results, started = {}, time.monotonic()

        def one(i):
            digests = os.urandom(32 * 10)
            results[i] = (digests, call(s.port, "Sign", pb.SignRequest(key_id="gov",
                                                                       digest_rows=digests)))
        threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # One 300 ms wait for all eight, not eight waits one after another.
        assert time.monotonic() - started < 2.0
        public = store["key"].public_key().public_bytes_raw()
        for digests, reply in results.values():
            assert ctx.sm2.verify_digests([public] * 10, digests, reply.value_rows,
                                          encoding="raw") == [OK] * 10
    finally:
        s.stop()


def test_drain_on_sigterm_answers_every_accepted_request(store):
    s = Server(store, "--max-delay-ms", "500")
    replies, errors = [], []

    def one():
        try:
            replies.append(call(s.port, "Sign", pb.SignRequest(key_id="gov",
                                                               digest_rows=bytes(32 * 4))))
        except grpc.RpcError as e:  # pragma: no cover - a lost request fails the test
            errors.append(e)
    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.2)  # accepted, waiting for their batch
    assert s.stop() == 0
    for t in threads:
        t.join()
    assert not errors and [statuses(r) for r in replies] == [[OK] * 4] * 6
    assert "stopped" in s.stderr()


def test_audit_log_has_one_line_per_signing_request_and_no_secrets(server, store):
    for n in (1, 3):
        call(server.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=bytes(32 * n)))
    call(server.port, "Verify", pb.VerifyRequest(public_key_rows=bytes(65),
                                                 digest_rows=bytes(32), signature_rows=bytes(64)))
    lines = [json.loads(line) for line in store["audit"].read_text().splitlines()]
    assert [(x["event"], x["key_id"], x["items"], x["ok"]) for x in lines] == [
        ("sign", "gov", 1, 1), ("sign", "gov", 3, 3)]
    assert all(x["client"] == token_digest(ALICE)[:16] for x in lines)
    secret = store["key"].private_bytes_raw().hex()
    assert secret not in store["audit"].read_text() and ALICE not in store["audit"].read_text()


def test_tls_and_plain_listeners_only_on_loopback(store, tls_files):
    cert, key = tls_files
    refused = subprocess.run([BINARY, "--keys", str(store["dir"]), "--access",
                              str(store["access"]), "--listen", "0.0.0.0:0"],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "--allow-insecure" in refused.stderr
    s = Server(store, "--tls-cert", cert, "--tls-key", key)
    try:
        with open(cert, "rb") as f:
            creds = grpc.ssl_channel_credentials(root_certificates=f.read())
        reply = call(s.port, "Sign", pb.SignRequest(key_id="gov", digest_rows=bytes(32)),
                     credentials=creds)
        assert statuses(reply) == [OK]
    finally:
        s.stop()


def test_workers_share_one_port_and_drain_together(store):
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(AssertionError, match="port 0"):
        Server(store, "--workers", "2")
    s = Server(store, "--workers", "2", listen=f"127.0.0.1:{port}")
    try:
        for _ in range(100):
            if s.stderr().count("listening") == 2:
                break
            time.sleep(0.05)
        assert s.stderr().count("listening") == 2
        for _ in range(6):  # a connection each: the kernel spreads them
            assert statuses(call(port, "Sign", pb.SignRequest(key_id="gov",
                                                             digest_rows=bytes(64)))) == [OK, OK]
    finally:
        assert s.stop() == 0
    assert s.stderr().count("stopped") == 2


LOAD = os.path.join(os.path.dirname(BINARY), "kuaisuo-grpc-load")


@pytest.mark.skipif(not os.path.exists(LOAD), reason="kuaisuo-grpc-load not built")
@pytest.mark.parametrize("op", ["sign-rows", "verify-rows", "ed25519-sign", "ed25519-verify"])
def test_load_generator_runs_against_the_server(store, tmp_path, op):
    """bench/serve_bench.sh's generator: every request answered with status
    0 items (rows, or Ed25519 lists), and for sign-rows a returned signature
    verified on the CPU. Its --new-key writes keys the server loads."""
    for algorithm in ("sm2", "ed25519"):
        subprocess.run([LOAD, "--new-key", str(store["dir"] / f"new-{algorithm}.pem"),
                        *(["ed25519"] if algorithm == "ed25519" else [])], check=True, timeout=60)
    s = Server(store, "--allow-plain", "--max-delay-ms", "1")
    try:
        assert "6 keys" in s.stderr()  # gov, node, rfc8032, plain and the two new ones
        ed25519 = op.startswith("ed25519")
        (tmp_path / "token").write_text(BOB if ed25519 else ALICE)
        key_id = "node" if ed25519 else "plain"
        out = tmp_path / "load.json"
        check = ["--check-key", str(store["dir"] / "plain.pem")] if op == "sign-rows" else []
        sizes = ["--message-bytes", "100"] if ed25519 else []
        subprocess.run([LOAD, "--address", f"127.0.0.1:{s.port}", "--token-file",
                        str(tmp_path / "token"), "--op", op, "--key-id", key_id, "--items", "16",
                        "--pool", "256", "--rates", "200", "--seconds", "0.5", "--warmup", "0",
                        "--json", str(out), *check, *sizes], check=True, capture_output=True,
                       timeout=120)
        (row,) = json.loads(out.read_text())["rows"]
        assert row["ok"] == row["sent"] > 0
        assert row["items_ok"] == 16 * row["sent"] and row["item_errors"] == 0
        # Its own CPU, which a server on the same host does not get.
        assert 0 < row["generator_cpu_s"] < 60
        assert row["generator_cpu_us_per_request"] == pytest.approx(
            row["generator_cpu_s"] / row["sent"] * 1e6, rel=0.01, abs=0.01)
        if check:
            assert row["check_failures"] == 0
    finally:
        assert s.stop() == 0


@pytest.mark.skipif(not os.path.exists(LOAD), reason="kuaisuo-grpc-load not built")
def test_load_generator_library_mode_needs_status_0_rows():
    """--library: the same pool straight into the library; it fails unless
    every row of every call got status 0."""
    done = subprocess.run([LOAD, "--library", "cpu", "--op", "verify-rows", "--items", "64",
                           "--pool", "256", "--threads", "2", "--seconds", "0.3"],
                          check=True, capture_output=True, text=True, timeout=120)
    line = json.loads(done.stdout)
    assert line["mode"] == "library" and line["threads"] == 2 and line["items_per_s"] > 0
    bad = subprocess.run([LOAD, "--library", "tpu"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--library: auto, cpu or gpu" in bad.stderr


def test_help_lists_every_option_and_exits_0():
    """`kuaisuo-grpcd --help` prints its options (every flag the parser
    takes) and exits 0; a wrong flag is exit 2 pointing at --help."""
    import re
    r = subprocess.run([BINARY, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("usage: kuaisuo-grpcd"), r.stderr
    source = os.path.join(os.path.dirname(__file__), "..", "..", "serve", "grpcd",
                          "server_main.cc")
    if os.path.exists(source):
        with open(source) as f:
            parsed = set(re.findall(r'"(--[a-z-]+)"', f.read().split("Options parse(")[1]))
        listed = set(re.findall(r"^  (?:-h, )?(--[a-z-]+)", r.stdout, re.M))
        assert parsed - {"--help"} <= listed, parsed - listed
    assert subprocess.run([BINARY, "-h"], capture_output=True).returncode == 0
    bad = subprocess.run([BINARY, "--no-such-flag", "1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--help" in bad.stderr and bad.stdout == ""
