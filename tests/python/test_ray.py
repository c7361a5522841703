"""kuaisuo on Ray (kuaisuo_serve.ray_app), on a local two-CPU Ray started
once for the module: the Serve deployment answers sign/verify/hash over
HTTP and through a deployment handle as the library does, refuses unknown
tokens and foreign key ids; the Ray Data job gives each Parquet row the
status a direct ctx.sm2.verify / ctx.ed25519.verify call gives it."""

import base64
import json
import os
import socket
import urllib.error
import urllib.request

import pytest

ray = pytest.importorskip("ray")
serve = pytest.importorskip("ray.serve")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("aiohttp")

import kuaisuo  # noqa: E402
from kuaisuo.ed25519 import Ed25519PrivateKey  # noqa: E402
from kuaisuo.keystore import token_digest  # noqa: E402
from kuaisuo.sm2 import SM2PrivateKey  # noqa: E402
from kuaisuo_serve import Config  # noqa: E402
from kuaisuo_serve import ray_app  # noqa: E402
from sigcheck import verifies  # noqa: E402

PASSWORD = b"ray test"
ALICE, BOB = "alice-token", "bob-token"
NOT_VERIFIED, BAD_LENGTH = -44, -3


def b64(data):
    return base64.b64encode(data).decode()


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=1)


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        ray.init(address="local", num_cpus=2, include_dashboard=False,
                 _node_ip_address="127.0.0.1", log_to_driver=False)
    except Exception as e:  # no shared memory, no ports, a sandbox...
        pytest.skip(f"ray cannot start here: {e}")
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ray_keys")
    sm2_key, ed_key = SM2PrivateKey.generate(), Ed25519PrivateKey.generate()
    kdir = tmp / "keys"
    kdir.mkdir()
    (kdir / "gov.pem").write_bytes(sm2_key.to_pem(PASSWORD, iterations=2048).encode())
    (kdir / "node.der").write_bytes(ed_key.to_der(PASSWORD, iterations=2048))
    access = tmp / "access.json"
    access.write_text(json.dumps({"tokens": {token_digest(ALICE): ["gov", "node"],
                                             token_digest(BOB): ["node"]}}))
    return {"dir": str(kdir), "access": str(access), "sm2": sm2_key, "ed": ed_key}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app(local_ray, keys):
    """(base URL, handle) of the deployment under route prefix /ks."""
    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    config = Config(keys=keys["dir"], access=keys["access"], password=PASSWORD,
                    backend="cpu", threads=1, max_delay=0.001)
    handle = serve.run(ray_app.build_app(config, num_cpus_per_replica=0),
                       name="kuaisuo", route_prefix="/ks")
    yield f"http://127.0.0.1:{port}/ks", handle
    serve.shutdown()


def post(base, path, body, token=ALICE):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def verify_triples(keys):
    sm2_key, ed_key = keys["sm2"], keys["ed"]
    msgs = [os.urandom(40) for _ in range(5)]
    pub, ed_pub = sm2_key.public_key().public_bytes_raw(), ed_key.public_key().public_bytes_raw()
    sm2 = [(pub, m, sm2_key.sign(m)) for m in msgs]
    sm2[1] = (pub, b"other", sm2[1][2])
    sm2[2] = (pub, msgs[2], b"\x30\x00")
    sm2[3] = (pub[:64], msgs[3], sm2[3][2])
    ed = [(ed_pub, m, ed_key.sign(m)) for m in msgs]
    ed[0] = (ed_pub, msgs[0] + b"!", ed[0][2])
    ed[4] = (ed_pub, msgs[4], ed[4][2][:63])
    return sm2, ed


def direct(batch_verify, triples, key_len, sig_len=None):
    """The library's status of each triple, one call each."""
    def one(k, m, s):
        if len(k) != key_len or (sig_len and len(s) != sig_len):
            return BAD_LENGTH
        return batch_verify([k], [m], [s])[0]
    return [one(*t) for t in triples]


def test_serve_signs_verifies_and_hashes_as_the_library(app, keys, ctx):
    base, _ = app
    msgs = [os.urandom(n) for n in (0, 1, 64, 500)]
    items = [b64(m) for m in msgs]
    signed = post(base, "/v1/sign", {"key_id": "gov", "items": items})
    ed = post(base, "/v1/sign", {"key_id": "node", "items": items})
    hashed = post(base, "/v1/hash", {"algorithm": "sm3", "items": items})
    assert signed[0] == ed[0] == hashed[0] == 200
    pub = keys["sm2"].public_key()
    assert all(r["status"] == 0 and verifies(pub.verify, base64.b64decode(r["signature"]), m)
               for m, r in zip(msgs, signed[1]["results"]))
    assert [base64.b64decode(r["signature"]) for r in ed[1]["results"]] == [
        keys["ed"].sign(m) for m in msgs]
    assert [base64.b64decode(r["digest"]) for r in hashed[1]["results"]] == [
        kuaisuo.sm3(m) for m in msgs]

    sm2, ed_items = verify_triples(keys)
    for alg, triples, want in (("sm2", sm2, direct(ctx.sm2.verify, sm2, 65)),
                               ("ed25519", ed_items,
                                direct(ctx.ed25519.verify, ed_items, 32, 64))):
        status, reply = post(base, "/v1/verify", {"algorithm": alg, "items": [
            {"public_key": b64(k), "data": b64(m), "signature": b64(s)}
            for k, m, s in triples]}, token=BOB)
        assert status == 200 and [r["status"] for r in reply["results"]] == want
        assert {0, NOT_VERIFIED, BAD_LENGTH} <= set(want)
        assert all(r["error"] for r in reply["results"] if r["status"] != 0)


def test_serve_refuses_as_the_aiohttp_server_does(app):
    base, _ = app
    item = {"key_id": "gov", "items": [b64(b"m")]}
    assert post(base, "/v1/sign", item, token=None)[0] == 401
    status, body = post(base, "/v1/sign", item, token="wrong-token")
    assert status == 401 and body["error"] == "unauthenticated" and body["message"]
    assert post(base, "/v1/sign", item, token=BOB)[0] == 403      # not granted
    assert post(base, "/v1/sign", b"{not json")[0] == 400
    deep = b"[" * 100_000 + b"]" * 100_000
    assert [post(base, "/v1/sign", body, token)[0] for body, token in (
        (b"{not json", None), (deep, "wrong-token"), (deep, ALICE))] == [401, 401, 400]
    assert post(base, "/v1/nope", {})[0] == 404
    assert post(base, "/v1/sign", item)[0] == 200


def test_serve_handle_calls_the_same_core(app):
    _, handle = app
    body = json.dumps({"items": [b64(b"abc")]}).encode()
    status, doc = handle.respond.remote("POST", "/v1/hash", body, ALICE).result()
    assert status == 200 and doc["results"][0]["digest"] == b64(kuaisuo.sm3(b"abc"))
    assert handle.respond.remote("POST", "/v1/hash", body, "x").result()[0] == 401
    assert handle.respond.remote("GET", "/v1/health", b"", None).result() == (
        200, {"status": "ok"})
    status, doc = handle.respond.remote("GET", "/v1/health", b"", ALICE).result()
    assert status == 200 and doc["keys"] == 2


def sm2_table(ctx, n=200):
    """n rows signed by 4 keys; some with a wrong message, a malformed or
    empty signature, or a wrong-length key."""
    keys = [SM2PrivateKey.generate() for _ in range(4)]
    msgs = [os.urandom(1 + i % 90) for i in range(n)]
    sigs = [None] * n
    for k, key in enumerate(keys):
        idx = list(range(k, n, 4))
        for i, sig in zip(idx, ctx.sm2.sign(key, [msgs[i] for i in idx])):
            sigs[i] = sig
    pubs = [keys[i % 4].public_key().public_bytes_raw() for i in range(n)]
    for i in range(0, n, 7):
        msgs[i] = msgs[i] + b"x"
    for i in range(3, n, 11):
        sigs[i] = sigs[i][:-3]
    for i in range(5, n, 13):
        pubs[i] = pubs[i][:64]
    sigs[6] = b""
    return pubs, msgs, sigs


def ed25519_table(n=60):
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    msgs = [os.urandom(i % 50) for i in range(n)]
    pubs = [keys[i % 3].public_key().public_bytes_raw() for i in range(n)]
    sigs = [keys[i % 3].sign(m) for i, m in enumerate(msgs)]
    for i in range(0, n, 7):
        msgs[i] = msgs[i] + b"x"
    for i in range(2, n, 9):
        sigs[i] = sigs[i][:60]
    pubs[4] = pubs[4] + b"\x00"
    return pubs, msgs, sigs


def write_table(path, pubs, msgs, sigs):
    pq.write_table(pa.table({"row": list(range(len(pubs))),
                             "public_key": pa.array(pubs, pa.binary()),
                             "message": pa.array(msgs, pa.binary()),
                             "signature": pa.array(sigs, pa.binary())}), path)


def read_results(out_dir):
    table = pq.read_table(str(out_dir)).sort_by("row")
    assert table.schema.field("status").type == pa.int32()
    return table


def test_verify_parquet_gives_the_library_status_per_row(local_ray, ctx, tmp_path):
    pubs, msgs, sigs = sm2_table(ctx)
    write_table(tmp_path / "in.parquet", pubs, msgs, sigs)
    out = tmp_path / "out"
    ray_app.verify_parquet(str(tmp_path / "in.parquet"), str(out), "sm2", batch_size=64,
                           concurrency=1)
    table = read_results(out)
    want = direct(ctx.sm2.verify, list(zip(pubs, msgs, sigs)), 65)
    assert table.column("status").to_pylist() == want
    assert table.column("message").to_pylist() == msgs  # input columns kept
    assert {0, NOT_VERIFIED, BAD_LENGTH} <= set(want) and want[1] == 0
    assert want[6] != 0 and want[0] == NOT_VERIFIED and want[5] == BAD_LENGTH
    assert table.column("error").to_pylist() == [
        None if s == 0 else kuaisuo.strerror(s) for s in want]


def test_cli_verifies_ed25519(local_ray, ctx, tmp_path):
    pubs, msgs, sigs = ed25519_table()
    write_table(tmp_path / "in.parquet", pubs, msgs, sigs)
    out = tmp_path / "out"
    assert ray_app.main(["verify-parquet", str(tmp_path / "in.parquet"), str(out),
                         "--algorithm", "ed25519", "--concurrency", "1"]) == 0
    want = direct(ctx.ed25519.verify, list(zip(pubs, msgs, sigs)), 32, 64)
    assert read_results(out).column("status").to_pylist() == want
    assert want[1] == 0 and want[0] == NOT_VERIFIED and want[2] == want[4] == BAD_LENGTH


def test_verify_rows_without_ray_handles_nulls_and_lengths(ctx):
    key = SM2PrivateKey.generate()
    pub, sig = key.public_key().public_bytes_raw(), key.sign(b"m")
    assert ray_app.verify_rows(ctx, "sm2", [pub, None, pub[:10], pub],
                               [b"m", b"m", b"m", None], [sig, sig, sig, sig]) == [
        0, BAD_LENGTH, BAD_LENGTH, BAD_LENGTH]
    assert ray_app.verify_rows(ctx, "sm2", [], [], []) == []


def mixed_rows(ctx, algorithm, n=48):
    """(keys, messages, signatures) for algorithm: valid rows (empty
    messages among them) mixed with null fields, wrong-length keys and
    signatures, wrong messages and malformed signatures."""
    if algorithm == "sm2":
        pubs, msgs, sigs = sm2_table(ctx, n)
    else:
        pubs, msgs, sigs = ed25519_table(n)
        sigs[9] = sigs[9] + b"\x00"
    msgs[8] = b""
    if algorithm == "sm2":
        sigs[8] = SM2PrivateKey.generate().sign(b"")  # signed by another key
    pubs[10], msgs[11], sigs[12] = None, None, None
    pubs[13], sigs[14] = b"", b"\xff" * len(sigs[14])
    return pubs, msgs, sigs


def tables(pubs, msgs, sigs):
    """The rows as tables of binary, large_binary, mixed, multi-chunk,
    sliced and string-typed columns."""
    def table(types):
        return pa.table({name: pa.array(values, t) for name, values, t in
                         zip(ray_app.COLUMNS, (pubs, msgs, sigs), types)})
    binary, large = table([pa.binary()] * 3), table([pa.large_binary()] * 3)
    half = len(pubs) // 2
    yield binary
    yield large
    yield table([pa.large_binary(), pa.binary(), pa.large_binary()])
    yield pa.concat_tables([binary.slice(0, half), binary.slice(half)])
    yield pa.concat_tables([large.slice(0, 5), large.slice(5)]).combine_chunks()
    for name in ray_app.COLUMNS:  # a string column: verify_rows decides
        yield binary.set_column(binary.schema.get_field_index(name), name, pa.array(
            [None if v is None else v.hex() for v in binary.column(name).to_pylist()],
            pa.string()))


def expected(ctx, algorithm, table):
    return ray_app.verify_rows(ctx, algorithm,
                               *(table.column(c).to_pylist() for c in ray_app.COLUMNS))


@pytest.mark.parametrize("algorithm", ["sm2", "ed25519"])
def test_verify_table_gives_verify_rows_statuses(ctx, algorithm, monkeypatch):
    pubs, msgs, sigs = mixed_rows(ctx, algorithm)
    for table in tables(pubs, msgs, sigs):
        want = expected(ctx, algorithm, table)
        with monkeypatch.context() as m:
            if all(pa.types.is_binary(t) or pa.types.is_large_binary(t)
                   for t in table.schema.types):  # the one flat call, no fallback
                m.setattr(ray_app, "_run", None)
            got = ray_app.verify_table(ctx, algorithm, table)
        assert got.dtype == "int32" and got.tolist() == want, table.schema
    want = expected(ctx, algorithm, next(tables(pubs, msgs, sigs)))
    assert want[1] == 0 and want[0] == NOT_VERIFIED and want[8] != 0
    assert want[10] == want[11] == want[12] == want[13] == BAD_LENGTH
    assert 0 in want[15:]
    # Sliced: Arrow offsets not starting at 0.
    table = next(tables(pubs, msgs, sigs)).slice(7, 30)
    assert ray_app.verify_table(ctx, algorithm, table).tolist() == expected(
        ctx, algorithm, table)


@pytest.mark.parametrize("algorithm", ["sm2", "ed25519"])
def test_verify_table_all_invalid_empty_and_failing_batch(ctx, algorithm):
    pubs, msgs, sigs = mixed_rows(ctx, algorithm)
    bad = next(tables(pubs, msgs, sigs)).take([10, 11, 12, 13])
    assert ray_app.verify_table(ctx, algorithm, bad).tolist() == [BAD_LENGTH] * 4
    empty = next(tables(pubs, msgs, sigs)).slice(0, 0)
    assert ray_app.verify_table(ctx, algorithm, empty).tolist() == []
    assert ray_app.verify_table(ctx, algorithm, pa.Table.from_batches(
        [], empty.schema)).tolist() == []

    class FlatFails:
        """ctx whose flat (offsets=) batch calls raise: the per-row path."""
        def __init__(self, inner):
            self.inner = inner

        def verify(self, *args, **kwargs):
            if "offsets" in kwargs:
                raise RuntimeError("flat batch failed")
            return self.inner.verify(*args, **kwargs)

    class Ctx:
        sm2, ed25519 = FlatFails(ctx.sm2), FlatFails(ctx.ed25519)

    table = next(tables(pubs, msgs, sigs))
    assert ray_app.verify_table(Ctx(), algorithm, table).tolist() == expected(
        ctx, algorithm, table)


def test_parquet_verifier_without_ray(ctx):
    pubs, msgs, sigs = mixed_rows(ctx, "ed25519")
    verifier = ray_app.ParquetVerifier("ed25519", "cpu", 1)
    table = next(tables(pubs, msgs, sigs))
    out = verifier(table.append_column("status", pa.array([7] * len(pubs), pa.int32())))
    want = expected(ctx, "ed25519", table)
    assert out.column_names == list(ray_app.COLUMNS) + ["status", "error"]
    assert out.column("status").to_pylist() == want
    assert out.column("error").to_pylist() == [
        None if s == 0 else kuaisuo.strerror(s) for s in want]
    assert verifier(table.slice(0, 0)).num_rows == 0
