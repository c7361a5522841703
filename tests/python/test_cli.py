"""The kuaisuo command line: sm3 digests, speed (short runs) and errors."""

import json
import os
import subprocess
import sys

import kuaisuo


def run(*args, stdin=b""):
    return subprocess.run([sys.executable, "-m", "kuaisuo", *args], input=stdin,
                          capture_output=True, timeout=300)


def test_sm3_files_and_stdin(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b b.txt"
    a.write_bytes(os.urandom(100000))
    b.write_bytes(b"abc")
    r = run("sm3", str(a), str(b), "-", stdin=b"abc")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    assert lines == [f"{kuaisuo.sm3(a.read_bytes()).hex()}  {a}",
                     f"{kuaisuo.sm3(b'abc').hex()}  {b}",
                     f"{kuaisuo.sm3(b'abc').hex()}  -"]


def test_sm3_missing_file_is_reported_and_others_still_hashed(tmp_path):
    ok = tmp_path / "ok"
    ok.write_bytes(b"")
    r = run("sm3", str(tmp_path / "missing"), str(ok))
    assert r.returncode == 1
    assert b"missing: No such file" in r.stderr
    assert r.stdout.decode().startswith(kuaisuo.sm3(b"").hex())


def test_speed_json_schema(tmp_path):
    out = tmp_path / "speed.json"
    r = run("speed", "sm3", "--backend", "cpu", "--seconds", "0.05", "--threads", "2",
            "--batch", "64", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert b"ratio" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["machine"]["cpu_features"] and doc["machine"]["kuaisuo_version"]
    rows = doc["results"]
    impls = {row["impl"] for row in rows}
    assert "kuaisuo" in impls
    keys = {"alg", "op", "impl", "backend", "threads", "batch", "msg_bytes", "ops_per_s",
            "bytes_per_s"}
    for row in rows:
        assert keys <= row.keys()
        assert row["alg"] == "sm3" and row["op"] == "hash"
        assert row["ops_per_s"] > 0
        assert abs(row["bytes_per_s"] - row["ops_per_s"] * row["msg_bytes"]) <= 1e-6 * row["bytes_per_s"] + 1e-9
    assert {r["msg_bytes"] for r in rows if r["threads"] == 1} == {64, 1024, 1 << 20}


def test_speed_rejects_bad_arguments():
    assert run("speed", "md5").returncode == 2
    assert run("speed", "--threads", "0").returncode == 2
    assert run("speed", "--seconds", "-1").returncode == 2
    if kuaisuo.gpu_device_count() == 0:
        r = run("speed", "sm3", "--backend", "gpu")
        assert r.returncode == 2 and b"--backend gpu" in r.stderr


def test_info_and_version():
    r = run("--version")
    assert r.returncode == 0 and kuaisuo.__version__ in r.stdout.decode()
    r = run("info")
    assert r.returncode == 0 and b"cpu:" in r.stdout
