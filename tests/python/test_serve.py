"""kuaisuo serve end to end over loopback (CPU backend): every call over
HTTP/JSON and gRPC with valid and invalid items, results against direct
library calls; refused tokens and key ids; malformed, oversized and
abandoned requests; drain on shutdown under load; the audit log; TLS."""

import asyncio
import base64
import json
import logging
import os
import signal
import subprocess
import sys

import pytest

aiohttp = pytest.importorskip("aiohttp")
grpc = pytest.importorskip("grpc")
try:
    from kuaisuo_serve import kuaisuo_serve_pb2  # noqa: F401  (needs protobuf >= its gencode)
except Exception as e:  # ImportError, or protobuf's VersionError
    pytest.skip(f"protobuf runtime unusable: {e}", allow_module_level=True)

import kuaisuo  # noqa: E402
from kuaisuo.ed25519 import Ed25519PrivateKey  # noqa: E402
from kuaisuo.keystore import token_digest  # noqa: E402
from kuaisuo.sm2 import SM2PrivateKey  # noqa: E402
from kuaisuo.sm4 import SM4GCM, SM4Key  # noqa: E402
from kuaisuo_serve import Config, Limits, Server  # noqa: E402
from kuaisuo_serve import grpc_api  # noqa: E402
from kuaisuo_serve import kuaisuo_serve_pb2 as pb  # noqa: E402
from sigcheck import verifies  # noqa: E402

PASSWORD = b"serve test"
FAST = 2048  # PBKDF2 iterations
ALICE, BOB, ROOT = "alice-token", "bob-token", "root-token"
NOT_VERIFIED, BAD_LENGTH = -44, -3


def b64(data):
    return base64.b64encode(data).decode()


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=2)


@pytest.fixture
def keys(tmp_path):
    sm2_key, ed_key = SM2PrivateKey.generate(), Ed25519PrivateKey.generate()
    kdir = tmp_path / "keys"
    kdir.mkdir()
    (kdir / "gov.pem").write_bytes(sm2_key.to_pem(PASSWORD, scheme="sm4-cbc",
                                                  iterations=FAST).encode())
    (kdir / "node.der").write_bytes(ed_key.to_der(PASSWORD, iterations=FAST))
    sm4_key = SM4Key.generate()
    (kdir / "vault.pem").write_bytes(sm4_key.to_pem(PASSWORD, scheme="sm4-cbc",
                                                    iterations=FAST).encode())
    access = tmp_path / "access.json"
    access.write_text(json.dumps({"tokens": {token_digest(ALICE): ["gov", "node", "vault"],
                                             token_digest(BOB): ["node"],
                                             token_digest(ROOT): ["*"]}}))
    return {"dir": str(kdir), "access": str(access), "sm2": sm2_key, "ed": ed_key,
            "sm4": sm4_key}


def config(keys, **kw):
    kw.setdefault("http", "127.0.0.1:0")
    kw.setdefault("grpc", "127.0.0.1:0")
    return Config(keys=keys["dir"], access=keys["access"], password=PASSWORD, **kw)


def serve(keys, ctx, scenario, **kw):
    """Runs scenario(server, http_session, grpc_calls) against a started server."""
    async def main():
        server = Server(config(keys, **kw), context=ctx)
        assert await server.start() == []
        try:
            async with aiohttp.ClientSession(f"http://127.0.0.1:{server.http_port}") as http:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
                    return await scenario(server, http, grpc_api.stub(ch))
        finally:
            await server.stop()
    return asyncio.run(main())


async def post(http, path, body, token=ALICE):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.post(path, json=body, headers=headers) as r:
        return r.status, await r.json()


def auth(token=ALICE):
    return (("authorization", f"Bearer {token}"),)


def test_sign_verify_hash_over_http_match_the_library(keys, ctx):
    sm2_key, ed_key = keys["sm2"], keys["ed"]
    msgs = [os.urandom(n) for n in (0, 1, 63, 64, 1000)]
    digests = [os.urandom(32) for _ in range(3)] + [b"short"]

    async def scenario(server, http, _):
        signed = await post(http, "/v1/sign", {"key_id": "gov", "items": [b64(m) for m in msgs]})
        by_digest = await post(http, "/v1/sign", {"key_id": "gov", "digests": True,
                                                  "items": [b64(d) for d in digests]})
        ed = await post(http, "/v1/sign", {"key_id": "node", "items": [b64(m) for m in msgs]})
        hashed = await post(http, "/v1/hash", {"algorithm": "sm3",
                                               "items": [b64(m) for m in msgs]})
        return signed, by_digest, ed, hashed

    signed, by_digest, ed, hashed = serve(keys, ctx, scenario)
    assert signed[0] == 200 and by_digest[0] == 200 and ed[0] == 200 and hashed[0] == 200
    for m, r in zip(msgs, signed[1]["results"]):
        assert r["status"] == 0 and verifies(sm2_key.public_key().verify, 
            base64.b64decode(r["signature"]), m)
    for d, r in zip(digests[:3], by_digest[1]["results"]):
        assert verifies(sm2_key.public_key().verify_digest, base64.b64decode(r["signature"]), d)
    assert by_digest[1]["results"][3]["status"] == BAD_LENGTH
    assert "error" in by_digest[1]["results"][3]
    assert [base64.b64decode(r["signature"]) for r in ed[1]["results"]] == [
        ed_key.sign(m) for m in msgs]  # Ed25519 is deterministic: equal bytes
    assert [base64.b64decode(r["digest"]) for r in hashed[1]["results"]] == [
        kuaisuo.sm3(m) for m in msgs]


def verify_items(keys):
    """SM2 and Ed25519 triples with bad ones mixed in, and the library's statuses."""
    sm2_key, ed_key = keys["sm2"], keys["ed"]
    msgs = [os.urandom(40) for _ in range(6)]
    sm2_pub, ed_pub = sm2_key.public_key().public_bytes_raw(), ed_key.public_key().public_bytes_raw()
    sm2 = [(sm2_pub, m, sm2_key.sign(m)) for m in msgs]
    sm2[1] = (sm2_pub, b"other", sm2[1][2])
    sm2[2] = (sm2_pub, msgs[2], b"\x30\x00")          # malformed DER
    sm2[3] = (b"\x04" + b"\x01" * 64, msgs[3], sm2[3][2])  # off-curve key
    sm2[4] = (sm2_pub[:64], msgs[4], sm2[4][2])           # wrong-length key
    ed = [(ed_pub, m, ed_key.sign(m)) for m in msgs]
    ed[0] = (ed_pub, msgs[0] + b"!", ed[0][2])
    ed[5] = (ed_pub, msgs[5], ed[5][2][:63])              # short signature
    return sm2, ed


def expected_statuses(ctx, sm2, ed):
    def one(batch_verify, item, key_len, sig_len=None):
        if len(item[0]) != key_len or (sig_len and len(item[2]) != sig_len):
            return BAD_LENGTH
        return batch_verify([item[0]], [item[1]], [item[2]])[0]
    return ([one(ctx.sm2.verify, i, 65) for i in sm2],
            [one(ctx.ed25519.verify, i, 32, 64) for i in ed])


def test_verify_over_http_gives_the_library_status_per_item(keys, ctx):
    sm2, ed = verify_items(keys)

    async def scenario(server, http, _):
        replies = []
        for alg, items in (("sm2", sm2), ("ed25519", ed)):
            replies.append(await post(http, "/v1/verify", {"algorithm": alg, "items": [
                {"public_key": b64(k), "data": b64(m), "signature": b64(s)}
                for k, m, s in items]}, token=BOB))
        return replies

    (s1, r1), (s2, r2) = serve(keys, ctx, scenario)
    want_sm2, want_ed = expected_statuses(ctx, sm2, ed)
    assert s1 == s2 == 200
    assert [r["status"] for r in r1["results"]] == want_sm2
    assert [r["status"] for r in r2["results"]] == want_ed
    assert want_sm2[0] == 0 and want_sm2[1] == NOT_VERIFIED and want_sm2[4] == BAD_LENGTH
    assert all(s != 0 for s in want_sm2[1:5]) and want_ed[0] == NOT_VERIFIED


def test_grpc_answers_the_same_calls(keys, ctx):
    sm2, ed = verify_items(keys)
    msgs = [os.urandom(n) for n in (0, 5, 100)]

    async def scenario(server, http, calls):
        signed = await calls["Sign"](pb.SignRequest(key_id="gov", items=msgs), metadata=auth())
        ed_signed = await calls["Sign"](pb.SignRequest(key_id="node", items=msgs),
                                        metadata=auth(BOB))
        hashed = await calls["Hash"](pb.HashRequest(algorithm="sm3", items=msgs),
                                     metadata=auth())
        verified = [await calls["Verify"](pb.VerifyRequest(algorithm=alg, items=[
            pb.VerifyItem(public_key=k, data=m, signature=s) for k, m, s in items]),
            metadata=auth()) for alg, items in (("sm2", sm2), ("ed25519", ed))]
        return signed, ed_signed, hashed, verified

    signed, ed_signed, hashed, verified = serve(keys, ctx, scenario)
    for m, r in zip(msgs, signed.results):
        assert r.status == 0 and verifies(keys["sm2"].public_key().verify, r.value, m)
    assert [r.value for r in ed_signed.results] == [keys["ed"].sign(m) for m in msgs]
    assert [r.value for r in hashed.results] == [kuaisuo.sm3(m) for m in msgs]
    want_sm2, want_ed = expected_statuses(ctx, sm2, ed)
    assert [r.status for r in verified[0].results] == want_sm2
    assert [r.status for r in verified[1].results] == want_ed
    assert all(r.error for r in verified[0].results if r.status != 0)


TAG_MISMATCH = -49


def test_encrypt_and_decrypt_under_a_key_id_over_http_and_grpc(keys, ctx, caplog):
    """SM4-GCM sealed boxes (nonce || ciphertext || tag) that the key opens
    directly, fresh nonces, a status per altered / short / wrong-AAD box,
    the same over gRPC, and one audit line per request."""
    gcm = SM4GCM(keys["sm4"].to_bytes())
    msgs = [os.urandom(n) for n in (0, 1, 16, 100, 5000)]
    aads = [os.urandom(n % 7) for n in range(len(msgs))]

    async def scenario(server, http, calls):
        sealed = await post(http, "/v1/encrypt", {"key_id": "vault",
                                                  "items": [b64(m) for m in msgs],
                                                  "associated_data": [b64(a) for a in aads]})
        boxes = [base64.b64decode(r["sealed"]) for r in sealed[1]["results"]]
        tampered = boxes[3][:20] + bytes([boxes[3][20] ^ 1]) + boxes[3][21:]
        opened = await post(http, "/v1/decrypt", {
            "key_id": "vault", "items": [b64(b) for b in boxes + [tampered, boxes[0][:27],
                                                                   boxes[1]]],
            "associated_data": [b64(a) for a in aads + [aads[3], aads[0], b"not it"]]})
        g_sealed = await calls["Encrypt"](pb.CipherRequest(key_id="vault", items=msgs),
                                          metadata=auth())
        g_opened = await calls["Decrypt"](pb.CipherRequest(
            key_id="vault", items=[r.value for r in g_sealed.results]), metadata=auth())
        refusals = [
            (await post(http, "/v1/sign", {"key_id": "vault", "items": [b64(b"m")]}))[0],
            (await post(http, "/v1/encrypt", {"key_id": "gov", "items": [b64(b"m")]}))[0],
            (await post(http, "/v1/encrypt", {"key_id": "vault", "items": [b64(b"m")]},
                        token=BOB))[0],
            (await post(http, "/v1/encrypt", {"key_id": "vault", "items": [b64(b"m")],
                                              "associated_data": []}))[0],
            (await post(http, "/v1/decrypt", {"key_id": "vault", "items": "AA=="}))[0]]
        return sealed, boxes, opened, g_sealed, g_opened, refusals

    with caplog.at_level(logging.INFO, logger="kuaisuo.audit"):
        sealed, boxes, opened, g_sealed, g_opened, refusals = serve(keys, ctx, scenario)
    assert sealed[0] == 200 and [r["status"] for r in sealed[1]["results"]] == [0] * 5
    for m, a, box in zip(msgs, aads, boxes):
        assert len(box) == 12 + len(m) + 16 and gcm.decrypt(box[:12], box[12:], a) == m
    assert len({box[:12] for box in boxes}) == len(boxes)  # a fresh nonce per item
    assert opened[0] == 200
    assert [r["status"] for r in opened[1]["results"]] == [0] * 5 + [TAG_MISMATCH, BAD_LENGTH,
                                                                     TAG_MISMATCH]
    assert [base64.b64decode(r["plaintext"]) for r in opened[1]["results"][:5]] == msgs
    assert all("plaintext" not in r and r["error"] for r in opened[1]["results"][5:])
    assert [r.value for r in g_opened.results] == msgs
    assert all(gcm.decrypt(r.value[:12], r.value[12:]) == m
               for r, m in zip(g_sealed.results, msgs))
    assert refusals == [400, 400, 403, 400, 400]
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "kuaisuo.audit"]
    assert [(x["event"], x["key_id"], x["items"], x["ok"]) for x in lines] == [
        ("encrypt", "vault", 5, 5), ("decrypt", "vault", 8, 5), ("encrypt", "vault", 5, 5),
        ("decrypt", "vault", 5, 5)]
    assert keys["sm4"].to_bytes().hex() not in caplog.text


def test_encrypt_and_decrypt_rows_over_http_and_grpc(keys, ctx, caplog):
    """The rows form of SM4-GCM: 100 plaintexts of 48 bytes in one buffer
    sealed over HTTP and 30 over gRPC, each row opening with the key
    directly; rows decrypted over both transports, a tampered row -49 and
    zeros; row_bytes 0 or negative, a misaligned buffer and an SM2 key id
    refused whole; audit lines as for the list form."""
    import numpy as np

    gcm = SM4GCM(keys["sm4"].to_bytes())
    width = 48
    plain = os.urandom(width * 100)

    async def scenario(server, http, calls):
        sealed = await post(http, "/v1/encrypt", {"key_id": "vault", "row_bytes": width,
                                                  "plaintext_rows": b64(plain)})
        rows = bytearray(base64.b64decode(sealed[1]["sealed_rows"]))
        rows[7 * (width + 28) + 30] ^= 1  # row 7's ciphertext
        opened = await post(http, "/v1/decrypt", {"key_id": "vault", "row_bytes": width,
                                                  "sealed_rows": b64(bytes(rows))})
        g_sealed = await calls["Encrypt"](pb.CipherRequest(
            key_id="vault", row_bytes=width, rows=plain[:30 * width]), metadata=auth())
        g_opened = await calls["Decrypt"](pb.CipherRequest(
            key_id="vault", row_bytes=width, rows=g_sealed.value_rows), metadata=auth())
        bad = [("vault", 0, plain), ("vault", -4, plain), ("vault", 7, plain[:50]),
               ("vault", "48", plain), ("gov", width, plain), ("vault", 1 << 80, b"")]
        refusals = [(await post(http, "/v1/encrypt", {"key_id": key_id, "row_bytes": size,
                                                      "plaintext_rows": b64(data)}))[0]
                    for key_id, size, data in bad]
        for body in ({"key_id": "vault"},  # neither items nor rows
                     {"key_id": "vault", "row_bytes": width, "sealed_rows": b64(plain)}):
            refusals.append((await post(http, "/v1/encrypt", body))[0])
        for request in (pb.CipherRequest(key_id="vault", rows=plain),  # no row_bytes
                        pb.CipherRequest(key_id="vault", row_bytes=width, rows=plain,
                                         items=[b"m"])):
            try:
                await calls["Encrypt"](request, metadata=auth())
                refusals.append(grpc.StatusCode.OK)
            except grpc.aio.AioRpcError as e:
                refusals.append(e.code())
        return sealed, opened, g_sealed, g_opened, refusals

    with caplog.at_level(logging.INFO, logger="kuaisuo.audit"):
        sealed, opened, g_sealed, g_opened, refusals = serve(keys, ctx, scenario)
    assert sealed[0] == 200 and sealed[1]["statuses"] == [0] * 100
    rows = base64.b64decode(sealed[1]["sealed_rows"])
    boxes = [rows[i * (width + 28):(i + 1) * (width + 28)] for i in range(100)]
    assert [gcm.decrypt(x[:12], x[12:], b"") for x in boxes] == \
        [plain[i * width:(i + 1) * width] for i in range(100)]
    assert len({x[:12] for x in boxes}) == 100
    assert opened[0] == 200 and opened[1]["statuses"] == [0] * 7 + [TAG_MISMATCH] + [0] * 92
    opened_rows = np.frombuffer(base64.b64decode(opened[1]["plaintext_rows"]),
                                np.uint8).reshape(100, width)
    expected = np.frombuffer(plain, np.uint8).reshape(100, width).copy()
    expected[7] = 0
    assert (opened_rows == expected).all()
    assert np.frombuffer(g_sealed.statuses, "<i4").tolist() == [0] * 30
    assert np.frombuffer(g_opened.statuses, "<i4").tolist() == [0] * 30
    assert g_opened.value_rows == plain[:30 * width]
    assert refusals == [400] * 8 + [grpc.StatusCode.INVALID_ARGUMENT] * 2
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "kuaisuo.audit"]
    assert [(x["event"], x["items"], x["ok"]) for x in lines] == [
        ("encrypt", 100, 100), ("decrypt", 100, 99), ("encrypt", 30, 30), ("decrypt", 30, 30)]


def test_seals_stop_at_the_key_limit_and_without_a_ledger(keys, ctx, tmp_path):
    """A key may seal seal_limit messages (SP 800-38D 8.3's 2^32 in
    production), counted in the ledger over items and rows alike; past it,
    409 / FAILED_PRECONDITION while decrypt still works; a ledger that
    cannot be written refuses every seal."""
    ledger = tmp_path / "seals.json"

    async def scenario(server, http, calls):
        codes = [(await post(http, "/v1/encrypt", {"key_id": "vault",
                                                   "items": [b64(b"m")] * 6}))[0],
                 (await post(http, "/v1/encrypt", {"key_id": "vault", "row_bytes": 2,
                                                   "plaintext_rows": b64(b"r" * 8)}))[0]]
        refused = await post(http, "/v1/encrypt", {"key_id": "vault", "items": [b64(b"m")]})
        try:
            await calls["Encrypt"](pb.CipherRequest(key_id="vault", items=[b"m"]),
                                   metadata=auth())
            codes.append(grpc.StatusCode.OK)
        except grpc.aio.AioRpcError as e:
            codes.append(e.code())
        return codes, refused

    codes, refused = serve(keys, ctx, scenario, seal_ledger=str(ledger), seal_limit=10)
    assert codes == [200, 200, grpc.StatusCode.FAILED_PRECONDITION]
    assert refused[0] == 409 and "rotate" in refused[1]["message"]
    assert list(json.loads(ledger.read_text()).values()) == [10]
    assert keys["sm4"].to_bytes().hex() not in ledger.read_text()

    async def no_ledger(server, http, calls):
        return await post(http, "/v1/encrypt", {"key_id": "vault", "items": [b64(b"m")]})
    status, doc = serve(keys, ctx, no_ledger, seal_ledger=str(tmp_path / "no" / "seals.json"))
    assert status == 409 and "seal ledger" in doc["message"]


def test_tokens_and_key_ids_are_checked(keys, ctx):
    item = {"key_id": "gov", "items": [b64(b"m")]}

    async def scenario(server, http, calls):
        http_codes = [
            (await post(http, "/v1/sign", item, token=None))[0],
            (await post(http, "/v1/sign", item, token="nobody"))[0],
            (await post(http, "/v1/sign", item, token=BOB))[0],          # not granted
            (await post(http, "/v1/sign", dict(item, key_id="nope"), token=ROOT))[0],
            (await post(http, "/v1/hash", {"items": []}, token="nobody"))[0],
            (await post(http, "/v1/sign", item, token=ROOT))[0]]
        grpc_codes = []
        for md in ((), auth("nobody"), auth(BOB)):
            try:
                await calls["Sign"](pb.SignRequest(key_id="gov", items=[b"m"]), metadata=md)
                grpc_codes.append(grpc.StatusCode.OK)
            except grpc.aio.AioRpcError as e:
                grpc_codes.append(e.code())
        return http_codes, grpc_codes, server.service.counters.requests

    http_codes, grpc_codes, accepted = serve(keys, ctx, scenario)
    assert http_codes == [401, 401, 403, 403, 401, 200]
    assert grpc_codes == [grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.UNAUTHENTICATED,
                          grpc.StatusCode.PERMISSION_DENIED]
    assert accepted == 1


def test_malformed_and_oversized_requests_get_clear_errors(keys, ctx):
    async def raw(http, data):
        async with http.post("/v1/sign", data=data, headers={
                "Authorization": f"Bearer {ALICE}", "Content-Type": "application/json"}) as r:
            return r.status, await r.json()

    async def scenario(server, http, calls):
        out = {
            "not json": await raw(http, b"{not json"),
            "array": await raw(http, b"[1, 2]"),
            "bad base64": await post(http, "/v1/sign", {"key_id": "gov", "items": ["!!"]}),
            "items not list": await post(http, "/v1/sign", {"key_id": "gov", "items": "AA=="}),
            "no key id": await post(http, "/v1/sign", {"items": []}),
            "too many": await post(http, "/v1/hash", {"items": [b64(b"x")] * 9}),
            "digests of ed25519": await post(http, "/v1/sign", {
                "key_id": "node", "digests": True, "items": []}),
            "unknown algorithm": await post(http, "/v1/verify", {"algorithm": "rsa",
                                                                 "items": []}),
            "bad timeout": await post(http, "/v1/hash", {"items": [], "timeout_ms": -5}),
            "too large": await raw(http, b'{"items": ["' + b"A" * 5000 + b'"]}'),
        }
        codes = []
        try:
            await calls["Hash"](pb.HashRequest(items=[b"x" * 5000]), metadata=auth())
        except grpc.aio.AioRpcError as e:
            codes.append(e.code())
        out["still serving"] = await post(http, "/v1/hash", {"items": [b64(b"abc")]})
        return out, codes

    out, codes = serve(keys, ctx, scenario, limits=Limits(max_items=8, max_body_bytes=4096))
    for name in ("not json", "array", "bad base64", "items not list", "no key id", "too many",
                 "digests of ed25519", "unknown algorithm", "bad timeout"):
        status, body = out[name]
        assert status == 400 and body["error"] == "invalid_argument" and body["message"], name
    assert out["too large"][0] == 413
    assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert out["still serving"][1]["results"][0]["digest"] == b64(kuaisuo.sm3(b"abc"))


def test_garbage_protobuf_is_refused_and_the_server_keeps_serving(keys, ctx):
    async def scenario(server, http, calls):
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
            raw_call = ch.unary_unary(f"/{grpc_api.SERVICE_NAME}/Sign",
                                      request_serializer=lambda b: b,
                                      response_deserializer=lambda b: b)
            try:
                await raw_call(b"\xff\xff\xff\xff\x0f", metadata=auth())
                code = grpc.StatusCode.OK
            except grpc.aio.AioRpcError as e:
                code = e.code()
        reply = await calls["Hash"](pb.HashRequest(items=[b"abc"]), metadata=auth())
        return code, reply

    code, reply = serve(keys, ctx, scenario)
    assert code != grpc.StatusCode.OK
    assert reply.results[0].value == kuaisuo.sm3(b"abc")


def test_clients_that_disconnect_mid_request_do_not_hurt_the_server(keys, ctx):
    body = json.dumps({"key_id": "gov", "items": [b64(os.urandom(32))] * 64}).encode()

    async def scenario(server, http, calls):
        port = server.http_port
        head = (f"POST /v1/sign HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALICE}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        for payload in (head + body[:10], head + body):  # half a body; a whole one, no wait
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(payload)
            await writer.drain()
            writer.close()
        await asyncio.sleep(0.2)
        return await post(http, "/v1/hash", {"items": [b64(b"abc")]})

    status, reply = serve(keys, ctx, scenario)
    assert status == 200 and reply["results"][0]["status"] == 0


def test_shutdown_under_load_loses_no_accepted_request(keys, ctx):
    async def main():
        server = Server(config(keys, max_delay=0.02), context=ctx)
        await server.start()
        url = f"http://127.0.0.1:{server.http_port}/v1/sign"
        digests = [os.urandom(32) for _ in range(4)]
        completed = []

        async def client(session):
            try:
                async with session.post(url, headers={"Authorization": f"Bearer {ALICE}"},
                                        json={"key_id": "gov", "digests": True,
                                              "items": [b64(d) for d in digests]}) as r:
                    completed.append((r.status, await r.json()))
            except aiohttp.ClientError:
                pass  # refused before it was accepted: the server had stopped listening

        async with aiohttp.ClientSession() as session:
            tasks = [asyncio.ensure_future(client(session)) for _ in range(200)]
            for _ in range(1000):  # stop once requests are in flight (at most 10 s)
                if server.service.counters.requests:
                    break
                await asyncio.sleep(0.01)
            await server.stop()
            await asyncio.gather(*tasks)
        return server.service.counters, completed, digests

    counters, completed, digests = asyncio.run(main())
    ok = [reply for status, reply in completed if status == 200]
    assert counters.requests > 0 and counters.requests == counters.replies == len(ok)
    pub = keys["sm2"].public_key()
    for reply in ok:
        statuses = [r["status"] for r in reply["results"]]
        assert statuses == [0] * 4 or set(statuses) == {-62}  # signed, or refused at close
        if statuses == [0] * 4:
            assert all(verifies(pub.verify_digest, base64.b64decode(r["signature"]), d)
                       for r, d in zip(reply["results"], digests))


def test_audit_log_has_one_line_per_signing_request_and_no_secrets(keys, ctx, caplog):
    secret_message = b"the message itself stays out of the log"

    async def scenario(server, http, calls):
        await post(http, "/v1/sign", {"key_id": "gov", "items": [b64(secret_message)] * 3})
        await calls["Sign"](pb.SignRequest(key_id="node", items=[b"m"]), metadata=auth(BOB))
        await post(http, "/v1/hash", {"items": [b64(b"x")]})

    with caplog.at_level(logging.INFO, logger="kuaisuo.audit"):
        serve(keys, ctx, scenario)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "kuaisuo.audit"]
    assert [(x["event"], x["key_id"], x["items"], x["ok"]) for x in lines] == [
        ("sign", "gov", 3, 3), ("sign", "node", 1, 1)]
    assert lines[0]["client"] == token_digest(ALICE)[:16]
    text = caplog.text
    for secret in (ALICE, BOB, b64(secret_message), keys["sm2"].private_bytes_raw().hex()):
        assert secret not in text


def test_tls_on_both_listeners_and_plain_only_on_loopback(keys, ctx, tls_files):
    import ssl
    cert, key = tls_files
    with pytest.raises(ValueError, match="loopback"):
        asyncio.run(Server(config(keys, http="0.0.0.0:0", grpc=None), context=ctx).start())

    async def main():
        server = Server(config(keys, tls_cert=cert, tls_key=key), context=ctx)
        await server.start()
        try:
            client_ssl = ssl.create_default_context(cafile=cert)
            async with aiohttp.ClientSession() as http:
                async with http.post(f"https://127.0.0.1:{server.http_port}/v1/hash",
                                     ssl=client_ssl, headers={"Authorization": f"Bearer {ALICE}"},
                                     json={"items": [b64(b"abc")]}) as r:
                    https = await r.json()
            with open(cert, "rb") as f:
                creds = grpc.ssl_channel_credentials(root_certificates=f.read())
            async with grpc.aio.secure_channel(f"127.0.0.1:{server.grpc_port}", creds) as ch:
                reply = await grpc_api.stub(ch)["Hash"](pb.HashRequest(items=[b"abc"]),
                                                        metadata=auth())
            return https, reply
        finally:
            await server.stop()

    https, reply = asyncio.run(main())
    assert https["results"][0]["digest"] == b64(kuaisuo.sm3(b"abc"))
    assert reply.results[0].value == kuaisuo.sm3(b"abc")


def test_the_cli_serves_and_drains_on_sigterm(keys, tmp_path):
    audit = tmp_path / "audit.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kuaisuo", "serve", "--keys", keys["dir"], "--access",
         keys["access"], "--passin", "env:KS_TEST_PASS", "--http", "127.0.0.1:0",
         "--backend", "cpu", "--threads", "1", "--audit-log", str(audit)],
        env=dict(os.environ, KS_TEST_PASS=PASSWORD.decode()), stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "3 keys" in line and "listening on http://127.0.0.1:" in line, line
        port = int(line.rsplit(":", 1)[1])

        async def call():
            async with aiohttp.ClientSession() as http:
                async with http.post(f"http://127.0.0.1:{port}/v1/sign",
                                     headers={"Authorization": f"Bearer {ALICE}"},
                                     json={"key_id": "gov", "items": [b64(b"hi")]}) as r:
                    return await r.json()
        reply = asyncio.run(call())
        assert verifies(keys["sm2"].public_key().verify, 
            base64.b64decode(reply["results"][0]["signature"]), b"hi")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    assert json.loads(audit.read_text())["key_id"] == "gov"


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_worker_processes_share_the_ports_and_all_drain(keys, tmp_path):
    """--workers 3: three processes on one port (SO_REUSEPORT); requests on
    fresh connections reach more than one (the audit lines' pids), and
    SIGTERM stops them all."""
    audit = tmp_path / "audit.log"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kuaisuo", "serve", "--keys", keys["dir"], "--access",
         keys["access"], "--passin", "env:KS_TEST_PASS", "--http", f"127.0.0.1:{port}",
         "--backend", "cpu", "--threads", "1", "--workers", "3", "--audit-log", str(audit)],
        env=dict(os.environ, KS_TEST_PASS=PASSWORD.decode()), stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "(3 processes)" in line, line

        async def calls():
            replies = []
            for i in range(40):
                async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(
                        force_close=True)) as http:
                    async with http.post(f"http://127.0.0.1:{port}/v1/sign",
                                         headers={"Authorization": f"Bearer {ALICE}"},
                                         json={"key_id": "gov", "items": [b64(b"%d" % i)]}) as r:
                        replies.append(await r.json())
            return replies
        replies = asyncio.run(calls())
        assert all(r["results"][0]["status"] == 0 for r in replies)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    lines = [json.loads(x) for x in audit.read_text().splitlines()]
    assert len(lines) == 40 and len({x["pid"] for x in lines}) > 1
    for pid in {x["pid"] for x in lines}:  # the parent joined every worker before exiting
        assert not os.path.exists(f"/proc/{pid}")
    with pytest.raises(subprocess.CalledProcessError):  # a port of 0 cannot be shared
        subprocess.run([sys.executable, "-m", "kuaisuo", "serve", "--keys", keys["dir"],
                        "--access", keys["access"], "--http", "127.0.0.1:0", "--workers", "2",
                        "--backend", "cpu"], check=True, capture_output=True, timeout=60)


def test_worker_processes_split_the_gpus():
    """device_share: one GPU each, round robin, with at least as many
    processes as GPUs; otherwise every processes-th; every GPU driven and,
    with fewer processes than GPUs, by exactly one process."""
    from kuaisuo_serve import device_share
    assert device_share((0,), 1, 0) == (0,)
    assert device_share((0, 1), 1, 0) == (0, 1)
    assert [device_share((0, 1), 12, i) for i in range(4)] == [(0,), (1,), (0,), (1,)]
    assert [device_share((2, 5, 7), 2, i) for i in range(2)] == [(2, 7), (5,)]
    with pytest.raises(ValueError):
        device_share((), 4, 0)
    for gpus in range(1, 9):
        devices = tuple(range(gpus))
        for processes in range(1, 13):
            shares = [device_share(devices, processes, i) for i in range(processes)]
            assert all(shares) and set(sum(shares, ())) == set(devices)
            if processes <= gpus:
                assert sorted(sum(shares, ())) == list(devices)
            else:  # each GPU has within one process of its fair share
                load = [sum(d in s for s in shares) for d in devices]
                assert max(load) - min(load) <= 1


PROTO = os.path.join(os.path.dirname(__file__), "..", "..", "serve", "proto",
                     "kuaisuo_serve.proto")


def test_the_generated_protobuf_module_matches_the_schema(tmp_path):
    """The committed kuaisuo_serve_pb2.py and .pyi are what protoc makes of
    serve/proto/kuaisuo_serve.proto, the schema kuaisuo-grpcd is built
    from: the same serialized descriptor and the same fields."""
    protoc = pytest.importorskip("grpc_tools.protoc")
    if not os.path.exists(PROTO):
        pytest.skip("serve/proto/kuaisuo_serve.proto not here (not run from the checkout)")
    assert protoc.main(["protoc", f"-I{os.path.dirname(PROTO)}", f"--python_out={tmp_path}",
                        f"--pyi_out={tmp_path}", PROTO]) == 0

    def descriptor(text):
        return [line for line in text.splitlines() if "AddSerializedFile" in line]

    def fields(text):
        return [line.strip() for line in text.splitlines() if "_FIELD_NUMBER" in line]
    for suffix, part in ((".py", descriptor), (".pyi", fields)):
        with open(os.path.splitext(pb.__file__)[0] + suffix) as f, \
                open(tmp_path / f"kuaisuo_serve_pb2{suffix}") as g:
            assert part(f.read()) == part(g.read()) != [], suffix


def test_grpc_rows_form_signs_and_verifies_like_the_library(keys, ctx):
    """SM2 digests as one buffer per request (the form that carries
    high rates): signatures that verify, and verification statuses equal
    to the library's with bad rows mixed in."""
    import numpy as np
    n = 300
    digests = os.urandom(32 * n)
    pub = keys["sm2"].public_key().public_bytes_raw()

    async def scenario(server, http, calls):
        signed = await calls["Sign"](pb.SignRequest(key_id="gov", digest_rows=digests),
                                     metadata=auth())
        sigs = bytearray(signed.value_rows)
        sigs[64 * 3] ^= 1                                  # row 3: a changed r
        verified = await calls["Verify"](pb.VerifyRequest(
            public_key_rows=pub, digest_rows=digests, signature_rows=bytes(sigs)),
            metadata=auth(BOB))
        errors = []
        for request in (pb.SignRequest(key_id="gov", digest_rows=digests[:-1]),
                        pb.SignRequest(key_id="node", digest_rows=digests),
                        pb.VerifyRequest(public_key_rows=pub, digest_rows=digests,
                                         signature_rows=bytes(sigs[:-64]))):
            call = calls["Sign"] if isinstance(request, pb.SignRequest) else calls["Verify"]
            try:
                await call(request, metadata=auth())
            except grpc.aio.AioRpcError as e:
                errors.append(e.code())
        return signed, bytes(sigs), verified, errors

    signed, sigs, verified, errors = serve(keys, ctx, scenario)
    assert np.frombuffer(signed.statuses, "<i4").tolist() == [0] * n
    assert ctx.sm2.verify_digests(pub * n, digests, signed.value_rows, encoding="raw") == [0] * n
    want = ctx.sm2.verify_digests(pub * n, digests, sigs, encoding="raw")
    assert np.frombuffer(verified.statuses, "<i4").tolist() == want
    assert [i for i, s in enumerate(want) if s] == [3]
    assert errors == [grpc.StatusCode.INVALID_ARGUMENT] * 3


def test_http_rows_form_matches_grpc_and_the_library(keys, ctx):
    n = 50
    digests = os.urandom(32 * n)
    pub = keys["sm2"].public_key().public_bytes_raw()

    async def scenario(server, http, calls):
        status, signed = await post(http, "/v1/sign", {"key_id": "gov",
                                                        "digest_rows": b64(digests)})
        sigs = bytearray(base64.b64decode(signed["signature_rows"]))
        sigs[64 * 7 + 40] ^= 1                           # row 7: a changed s
        _, verified = await post(http, "/v1/verify", {
            "public_key_rows": b64(pub), "digest_rows": b64(digests),
            "signature_rows": b64(bytes(sigs))}, token=BOB)
        bad = await post(http, "/v1/verify", {"public_key_rows": b64(pub),
                                              "digest_rows": b64(digests[:33]),
                                              "signature_rows": b64(bytes(sigs))})
        return status, signed, bytes(sigs), verified, bad

    status, signed, sigs, verified, bad = serve(keys, ctx, scenario)
    assert status == 200 and signed["statuses"] == [0] * n
    want = ctx.sm2.verify_digests(pub * n, digests, sigs, encoding="raw")
    assert verified["statuses"] == want and [i for i, s in enumerate(want) if s] == [7]
    assert bad[0] == 400 and bad[1]["error"] == "invalid_argument"
