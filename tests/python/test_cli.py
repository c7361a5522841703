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


def _openssl():
    import shutil
    return shutil.which("openssl")


def test_sm2_cli_roundtrip_and_openssl_interop(tmp_path):
    key, pub, sig, data = (tmp_path / n for n in ("k.pem", "p.pem", "s.der", "data.bin"))
    data.write_bytes(os.urandom(200000))
    assert run("sm2", "keygen", "--out", str(key), "--pubout", str(pub)).returncode == 0
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert run("sm2", "sign", "--key", str(key), "--out", str(sig), str(data)).returncode == 0
    r = run("sm2", "verify", "--pub", str(pub), "--sig", str(sig), str(data))
    assert r.returncode == 0 and r.stdout.strip() == b"Verified OK"
    r = run("sm2", "verify", "--pub", str(pub), "--sig", str(sig), "--id", "other", str(data))
    assert r.returncode == 1 and b"failure" in r.stdout
    r = run("sm2", "verify", "--pub", str(pub), "--sig", str(data), str(data))
    assert r.returncode == 2 and b"DER" in r.stderr   # not a signature: a clear error
    ssl = _openssl()
    if ssl is None:
        return
    distid = "distid:1234567812345678"
    # Ours verified by the openssl CLI, and openssl's by ours.
    r = subprocess.run([ssl, "dgst", "-sm3", "-verify", str(pub), "-sigopt", distid,
                        "-signature", str(sig), str(data)], capture_output=True)
    assert r.returncode == 0, r.stderr
    theirs = tmp_path / "theirs.der"
    r = subprocess.run([ssl, "dgst", "-sm3", "-sign", str(key), "-sigopt", distid, "-out",
                        str(theirs), str(data)], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert run("sm2", "verify", "--pub", str(pub), "--sig", str(theirs), str(data)).returncode == 0
    # Keys made by openssl work here.
    okey = tmp_path / "o.pem"
    subprocess.run([ssl, "genpkey", "-algorithm", "SM2", "-out", str(okey)], check=True)
    assert run("sm2", "sign", "--key", str(okey), "--out", str(sig), str(data)).returncode == 0
    opub = tmp_path / "o.pub"
    subprocess.run([ssl, "pkey", "-in", str(okey), "-pubout", "-out", str(opub)], check=True)
    r = subprocess.run([ssl, "dgst", "-sm3", "-verify", str(opub), "-sigopt", distid,
                        "-signature", str(sig), str(data)], capture_output=True)
    assert r.returncode == 0, r.stderr
