"""`kuaisuo speed sm4`: a short run yields a row per mode and buffer size for
kuaisuo and OpenSSL (GCM only where the installed libcrypto has SM4-GCM),
each again with the key expanded once, the key schedule alone, the serial
modes over 16 messages at once, and the all-threads CTR/GCM/CBC batch
rows, in the JSON schema of the other algorithms."""

import json
import subprocess
import sys

from kuaisuo import _native, speed

OPS = ("ecb", "cbc", "cbc-dec", "cfb", "ofb", "ctr", "gcm")
SIZES = (16, 64, 1024, 16 << 10, 64 << 10, 1 << 20)


def test_plan_covers_every_mode_and_size():
    opt = speed.Options(backend="cpu", threads=4, batch=None, seconds=1.0, gpu=False)
    plan = speed.PLANS["sm4"](opt)
    singles = {(c.ours.op, c.ours.msg_bytes) for c in plan
               if c.ours.threads == 1 and c.ours.batch == 1 and c.ours.input == "message"}
    large = {(op, 4 << 20) for op in ("ecb", "ctr", "gcm")}  # up to --max-bytes (4 MiB)
    assert singles == {(op, size) for op in OPS for size in SIZES} | large | {("setkey", 16)}
    reused = {(c.ours.op, c.ours.msg_bytes) for c in plan if c.ours.input == "schedule"}
    assert reused == {(op, size) for op in OPS if op != "gcm" for size in SIZES}
    buffers = {(c.ours.op, c.ours.threads, c.ours.msg_bytes) for c in plan
               if c.ours.input == "buffer"}
    assert buffers == {("ecb", 4, 4 << 20), ("ctr", 4, 4 << 20)}
    for cmp in plan:  # same buffer size, threads and key use on both sides
        assert cmp.theirs.impl == "openssl" and cmp.theirs.batch == 1
        assert (cmp.theirs.op, cmp.theirs.msg_bytes, cmp.theirs.threads) == \
            (cmp.ours.op, cmp.ours.msg_bytes, cmp.ours.threads)
        assert (cmp.theirs.input == "schedule") == (cmp.ours.input == "schedule")
    batches = {(c.ours.op, c.ours.threads, c.ours.batch, c.ours.msg_bytes)
               for c in plan if c.ours.batch > 1}
    assert batches == {("ctr", 4, 4096, 16 << 10), ("gcm", 4, 4096, 16 << 10),
                       ("cbc", 4, 4096, 16 << 10), ("cbc", 1, 16, 1024), ("cfb", 1, 16, 1024),
                       ("ofb", 1, 16, 1024)}
    assert "sm4" in speed.ALGORITHMS


def test_speed_sm4_rows(tmp_path):
    out = tmp_path / "speed.json"
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "sm4", "--backend", "cpu",
                        "--seconds", "0.02", "--threads", "2", "--batch", "16",
                        "--max-bytes", "1M", "--json", str(out)], capture_output=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert b"ratio" in r.stdout
    rows = json.loads(out.read_text())["results"]
    seen = {(row["op"], row["impl"], row["threads"], row["batch"], row["msg_bytes"])
            for row in rows}
    have_gcm = any(row["op"] == "gcm" and row["impl"] == "openssl" for row in rows)
    for op in OPS:
        for size in SIZES:
            assert (op, "kuaisuo", 1, 1, size) in seen
            if op != "gcm" or have_gcm:
                assert (op, "openssl", 1, 1, size) in seen, (op, size)
    for op in ("ctr", "gcm", "cbc"):
        assert (op, "kuaisuo", 2, 16, 16 << 10) in seen
    for op in ("cbc", "cfb", "ofb"):
        assert (op, "kuaisuo", 1, 16, 1024) in seen
    reused = {(row["op"], row["impl"], row["msg_bytes"]) for row in rows
              if row["input"] == "schedule"}
    for op in OPS[:-1]:
        assert {(op, "kuaisuo", 16), (op, "openssl", 16)} <= reused
    assert ("setkey", "kuaisuo", 1, 1, 16) in seen and ("setkey", "openssl", 1, 1, 16) in seen
    assert ("ctr", "openssl", 2, 1, 16 << 10) in seen
    if not have_gcm:  # OpenSSL 3.0 has no SM4-GCM: said so, not hidden
        assert b"no SM4-GCM" in r.stdout
    for row in rows:
        assert row["alg"] == "sm4" and row["backend"] == "cpu" and row["ops_per_s"] > 0
        assert abs(row["bytes_per_s"] - row["ops_per_s"] * row["msg_bytes"]) <= \
            1e-6 * row["bytes_per_s"]


def test_bench_case_rejects_partial_blocks_and_unknown_modes():
    r = _native._bench_case("sm4", "cbc", "kuaisuo", "cpu", 1, 1, 17, 0.01)
    assert "whole blocks" in r["error"]
    r = _native._bench_case("sm4", "xts", "kuaisuo", "cpu", 1, 1, 16, 0.01)
    assert "no operation xts" in r["error"]
    r = _native._bench_case("sm4", "cfb", "kuaisuo", "cpu", 1, 1, 17, 0.01)  # a stream mode
    assert r["ops_per_s"] > 0 and r["bytes_per_s"] == r["ops_per_s"] * 17
