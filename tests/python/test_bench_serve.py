"""The load generator (bench/load, `python -m bench.load`) against an
in-process kuaisuo serve on loopback (CPU backend): sign and verify over
HTTP, SM4-GCM encrypt over both, hash over gRPC at a low open-loop rate, every item ok and the rate
met; refused tokens counted, not fatal; the command line's table, JSON and
plot; schedules and fresh inputs."""

import asyncio
import json
import math
import os
import sys

import pytest

aiohttp = pytest.importorskip("aiohttp")
grpc = pytest.importorskip("grpc")

import kuaisuo  # noqa: E402
from kuaisuo.ed25519 import Ed25519PrivateKey  # noqa: E402
from kuaisuo.keystore import token_digest  # noqa: E402
from kuaisuo.sm2 import SM2PrivateKey  # noqa: E402
from kuaisuo.sm4 import SM4Key  # noqa: E402
from kuaisuo_serve import Config, Server  # noqa: E402

# bench/ is the checkout's, not the installed package's.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from bench import load as bench  # noqa: E402

PASSWORD = b"bench test"
FAST = 2048  # PBKDF2 iterations
TOKEN = "bench-token"
RATE, SECONDS = 200.0, 1.0


@pytest.fixture(scope="module")
def ctx():
    return kuaisuo.Context(backend="cpu", threads=2)


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench")
    kdir = tmp / "keys"
    kdir.mkdir()
    (kdir / "gov.pem").write_bytes(SM2PrivateKey.generate().to_pem(
        PASSWORD, scheme="sm4-cbc", iterations=FAST).encode())
    (kdir / "node.der").write_bytes(Ed25519PrivateKey.generate().to_der(PASSWORD,
                                                                        iterations=FAST))
    (kdir / "vault.pem").write_bytes(SM4Key.generate().to_pem(PASSWORD, iterations=FAST)
                                     .encode())
    access = tmp / "access.json"
    access.write_text(json.dumps({"tokens": {token_digest(TOKEN): ["*"]}}))
    return {"dir": str(kdir), "access": str(access)}


def serve(keys, ctx, scenario):
    """Runs scenario(http_url, grpc_address) against a started server."""
    async def main():
        server = Server(Config(keys=keys["dir"], access=keys["access"], password=PASSWORD,
                               http="127.0.0.1:0", grpc="127.0.0.1:0"), context=ctx)
        assert await server.start() == []
        try:
            return await scenario(f"http://127.0.0.1:{server.http_port}",
                                  f"127.0.0.1:{server.grpc_port}")
        finally:
            await server.stop()
    return asyncio.run(main())


def check_all_ok(row, items, rate=RATE):
    assert row["refused"] == row["transport_errors"] == row["timeouts"] == 0, row
    assert row["item_errors"] == 0, row["item_errors_by_status"]
    assert row["ok"] == row["sent"] and row["items_ok"] == row["sent"] * items
    # The schedule (open loop): every request of rate x seconds sent, never
    # faster than offered. How close the achieved rate comes depends on the
    # machine's load (a loaded 2-core CI runner reached half), so it is a
    # benchmark's figure, not checked here.
    assert row["sent"] == round(rate * row["seconds"]), row
    assert 0 < row["achieved_rps"] < 1.15 * rate, row
    assert abs(row["achieved_items_per_s"] - row["achieved_rps"] * items) <= 0.01 * (items + 1)
    lat = row["latency_ms"]
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99.9"] <= lat["max"]
    assert lat["max"] < 5000


def test_sign_and_verify_over_http_meet_the_rate(keys, ctx):
    target = bench.Target(transport="http", token=TOKEN, concurrency=16)
    sign = bench.Workload(op="sign", items=4, key_id="gov", arrivals="fixed")
    digests = bench.Workload(op="sign-digests", items=4, key_id="gov", arrivals="fixed")
    verify = bench.Workload(op="verify", items=4, algorithm="sm2", seed=7)

    async def scenario(url, _):
        target.url = url
        return [await bench.run_rate(target, w, RATE, SECONDS) for w in (sign, digests, verify)]

    signed, by_digest, verified = serve(keys, ctx, scenario)
    assert signed["sent"] == by_digest["sent"] == RATE * SECONDS  # fixed arrivals
    check_all_ok(signed, 4)
    check_all_ok(by_digest, 4)
    assert verified["sent"] == len(bench.schedule(RATE, SECONDS, "poisson", seed=7))
    check_all_ok(verified, 4, rate=verified["sent"] / SECONDS)
    assert signed["op"] == "sign" and verified["transport"] == "http"


def test_hash_and_ed25519_verify_over_grpc(keys, ctx):
    target = bench.Target(transport="grpc", token=TOKEN)
    hashing = bench.Workload(op="hash", items=8, arrivals="fixed")
    verify = bench.Workload(op="verify", items=2, algorithm="ed25519", arrivals="fixed",
                            pool=2048)

    async def scenario(_, address):
        target.address = address
        return [await bench.run_rate(target, w, RATE, s) for w, s in
                ((hashing, SECONDS), (verify, 0.5))]

    hashed, verified = serve(keys, ctx, scenario)
    check_all_ok(hashed, 8)
    check_all_ok(verified, 2)
    assert hashed["transport"] == "grpc" and verified["sent"] == RATE * 0.5


def over_both_transports(keys, ctx, workloads, seconds=0.5):
    """The rows of each workload at RATE, over HTTP and then gRPC."""
    async def scenario(url, address):
        rows = []
        for transport in ("http", "grpc"):
            target = bench.Target(transport=transport, url=url, address=address, token=TOKEN)
            rows += [await bench.run_rate(target, w, RATE, seconds) for w in workloads]
        return rows
    return serve(keys, ctx, scenario)


def test_rows_form_over_both_transports(keys, ctx):
    """sign-rows and verify-rows (SM2 digests, one buffer a column): every
    item ok over HTTP and gRPC; the verify pool's rows wrap around."""
    sign = bench.Workload(op="sign-rows", items=64, key_id="gov", arrivals="fixed")
    verify = bench.Workload(op="verify-rows", items=64, arrivals="fixed", pool=100)
    for row in over_both_transports(keys, ctx, (sign, verify)):
        check_all_ok(row, 64)


def test_sm4_encrypt_over_both_transports(keys, ctx):
    """encrypt and encrypt-rows (SM4-GCM seals under the vault key id,
    100-byte messages): every item ok over HTTP and gRPC."""
    seal, seal_rows = (bench.Workload(op=op, items=16, key_id="vault", message_bytes=100,
                                      arrivals="fixed") for op in ("encrypt", "encrypt-rows"))
    rows = over_both_transports(keys, ctx, (seal, seal_rows))
    for row in rows:
        check_all_ok(row, 16)
    assert [row["op"] for row in rows] == ["encrypt", "encrypt-rows"] * 2


def test_a_wrong_token_is_counted_as_refused(keys, ctx):
    sign = bench.Workload(op="sign-digests", items=2, key_id="gov", arrivals="fixed")

    async def scenario(url, address):
        http = bench.Target(transport="http", url=url, token="not-a-token")
        rpc = bench.Target(transport="grpc", address=address, token="not-a-token")
        return [await bench.run_rate(t, sign, 100, 0.3) for t in (http, rpc)]

    for row, code in zip(serve(keys, ctx, scenario), ("401", "UNAUTHENTICATED")):
        assert row["sent"] == 30 and row["ok"] == 0 and row["items_ok"] == 0
        assert row["refused"] == 30 and row["refused_by_code"] == {code: 30}
        assert row["achieved_rps"] == 0 and row["latency_ms"]["p50"] is None
        assert "-" in bench.table([row])


def test_an_unreachable_server_is_counted_as_transport_errors():
    async def scenario():
        target = bench.Target(transport="http", url="http://127.0.0.1:9", token=TOKEN)
        return await bench.run_rate(target, bench.Workload(op="hash", items=1), 50, 0.2)

    row = asyncio.run(scenario())
    assert row["ok"] == 0 and row["transport_errors"] + row["timeouts"] == row["sent"] > 0


def test_the_command_line_prints_and_writes_json_and_plot(keys, ctx, tmp_path, capsys):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    out_json, out_png = tmp_path / "out.json", tmp_path / "out.png"
    parser = bench.build_parser()

    async def scenario(url, _):
        args = parser.parse_args([
            "--op", "sign-digests", "--key-id", "gov", "--token-file",
            str(token_file), "--url", url, "--rates", "100,200", "--seconds", "0.5",
            "--warmup", "0", "--items", "8", "--arrivals", "fixed",
            "--json", str(out_json), "--plot", str(out_png)])
        return await asyncio.to_thread(bench.run_cli, args)  # run_cli runs its own loop

    assert serve(keys, ctx, scenario) == 0
    doc = json.loads(out_json.read_text())
    assert doc["tool"] == "bench/load" and len(doc["rows"]) == 2
    assert doc["parameters"]["op"] == "sign-digests" and doc["parameters"]["rates"] == [100, 200]
    assert {"platform", "cpu_count", "datetime_utc"} <= set(doc["host"])
    assert TOKEN not in out_json.read_text()
    assert [r["offered_rps"] for r in doc["rows"]] == [100, 200]
    assert all(r["items_ok"] == r["sent"] * 8 for r in doc["rows"])
    printed = capsys.readouterr().out
    assert "achieved" in printed and "p99.9" in printed
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not out_png.exists()
    else:
        assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_usage_errors():
    parser = bench.build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["--token", "t", "--rates", "0,100"])
    with pytest.raises(SystemExit):  # a token is required
        parser.parse_args([])
    args = parser.parse_args(["--token", "t", "--op", "sign"])
    assert bench.run_cli(args) == 2  # sign needs --key-id
    args = parser.parse_args(["--token", "t", "--op", "encrypt"])
    assert bench.run_cli(args) == 2  # so does encrypt
    args = parser.parse_args(["--token", "t", "--op", "encrypt-rows",
                              "--key-id", "k", "--message-bytes", "0"])
    assert bench.run_cli(args) == 2  # rows of 0 bytes
    args = parser.parse_args(["--token", "t", "--transport", "grpc", "--op",
                              "hash", "--warmup", "0"])
    assert bench.run_cli(args) == 2  # grpc needs --address


def test_schedules():
    fixed = bench.schedule(1000, 2, "fixed")
    assert len(fixed) == 2000 and fixed[1] - fixed[0] == pytest.approx(0.001)
    poisson = bench.schedule(1000, 2, "poisson", seed=1)
    assert abs(len(poisson) - 2000) < 200 and poisson == sorted(poisson)
    assert 0 < poisson[0] and poisson[-1] < 2
    gaps = [b - a for a, b in zip(poisson, poisson[1:])]
    assert 0.0008 < sum(gaps) / len(gaps) < 0.0012 and min(gaps) < 0.0002 < 0.003 < max(gaps)
    assert bench.percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0
    assert bench.percentile([1.0, 2.0, 3.0, 4.0], 0.999) == 4.0
    assert math.isnan(bench.percentile([], 0.5))


def test_inputs_are_fresh_and_the_verify_pool_is_valid(ctx):
    msgs = bench.Inputs(bench.Workload(op="sign", key_id="k", items=4, message_bytes=40))
    a, b = (json.loads(msgs.http()[1])["items"] for _ in range(2))
    assert len(set(a + b)) == 8
    for algorithm, key_bytes in (("sm2", 65), ("ed25519", 32)):
        pool = bench.verify_pool(algorithm, 3000)
        assert len(pool) == len(set(pool)) == 3000
        assert {len(k) for k, _, _ in pool} == {key_bytes}
        keys, data, sigs = zip(*pool[:300])
        check = ctx.sm2.verify if algorithm == "sm2" else ctx.ed25519.verify
        assert set(check(list(keys), list(data), list(sigs))) == {0}
    inputs = bench.Inputs(bench.Workload(op="verify", items=5, pool=16))
    seen = [tuple(i.data for i in inputs.grpc()[1].items) for _ in range(3)]
    assert all(len(set(s)) == 5 for s in seen) and len(set(sum(seen, ()))) == 15


def test_it_runs_as_python_m_bench_load_from_the_checkout():
    import subprocess
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    r = subprocess.run([sys.executable, "-m", "bench.load", "--token", "t", "--op", "sign"],
                       capture_output=True, text=True, cwd=root, timeout=120)
    assert r.returncode == 2 and r.stderr == "bench/load: --op sign needs --key-id\n", r.stderr
    r = subprocess.run([sys.executable, "-m", "bench.load", "--help"], capture_output=True,
                       text=True, cwd=root, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m bench.load")
