"""The kuaisuo command line: sm3 digests, speed (short runs) and errors."""

import base64
import errno
import json
import os
import shutil
import subprocess
import sys

import pytest

import kuaisuo
from kuaisuo import cli, sm2


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
    # Each error names the argument and what it accepts; negative numbers
    # are values, not options, whichever way they are attached.
    for args, accepted in [
        (("--seconds", "-1"), "positive number of seconds, not -1"),
        (("--seconds=-1",), "positive number of seconds, not -1"),
        (("--seconds", "-1e3"), "positive number of seconds, not -1e3"),
        (("--seconds", "inf"), "positive number of seconds, not inf"),
        (("--seconds", "abc"), "positive number of seconds, not abc"),
        (("--threads", "0"), "from 1 to 4096, not 0"),
        (("--threads", "-2"), "from 1 to 4096, not -2"),
        (("--threads", "5000"), "from 1 to 4096, not 5000"),
        (("--batch", "0"), "1 or more, not 0"),
        (("--batch", "abc"), "1 or more, not abc"),
    ]:
        r = run("speed", *args)
        err = r.stderr.decode()
        assert r.returncode == 2, args
        assert f"argument {args[0].split('=')[0]}: must be" in err and accepted in err, err
        assert "Traceback" not in err
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


def _keygen_files(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir())


def test_keygen_replaces_a_readable_file_with_a_0600_key(tmp_path):
    key, pub = tmp_path / "k.pem", tmp_path / "p.pem"
    key.write_text("old, world-readable\n")
    key.chmod(0o644)
    r = run("sm2", "keygen", "--out", str(key), "--pubout", str(pub))
    assert r.returncode == 0, r.stderr
    assert key.stat().st_mode & 0o777 == 0o600  # a new file, never the old one's mode
    umask = os.umask(0)
    os.umask(umask)
    assert pub.stat().st_mode & 0o777 == 0o644 & ~umask
    private = sm2.SM2PrivateKey.from_pem(key.read_bytes())
    assert private.public_key() == sm2.SM2PublicKey.from_pem(pub.read_bytes())
    assert _keygen_files(tmp_path) == ["k.pem", "p.pem"]  # no temporaries left


def test_keygen_leaves_no_private_key_when_pubout_fails(tmp_path):
    key, pub = tmp_path / "k.pem", tmp_path / "missing" / "p.pem"
    r = run("sm2", "keygen", "--out", str(key), "--pubout", str(pub))
    assert r.returncode == 2
    assert r.stderr.decode().strip() == f"kuaisuo sm2: {pub}: No such file or directory"
    assert _keygen_files(tmp_path) == []
    key.write_text("kept")  # an existing target stays as it was
    assert run("sm2", "keygen", "--out", str(key), "--pubout", str(pub)).returncode == 2
    assert key.read_text() == "kept" and _keygen_files(tmp_path) == ["k.pem"]


def test_write_errors_name_the_file_without_a_traceback(tmp_path):
    missing = tmp_path / "no" / "k.pem"
    r = run("sm2", "keygen", "--out", str(missing))
    assert r.returncode == 2
    assert r.stderr.decode() == f"kuaisuo sm2: {missing}: No such file or directory\n"
    r = run("sm2", "keygen", "--out", str(tmp_path))
    assert r.returncode == 2 and r.stderr.decode() == f"kuaisuo sm2: {tmp_path}: Is a directory\n"
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        r = run("sm2", "keygen", "--out", str(locked / "k.pem"))
        assert r.returncode == 2
        assert r.stderr.decode() == f"kuaisuo sm2: {locked / 'k.pem'}: Permission denied\n"
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            r = subprocess.run([sys.executable, "-m", "kuaisuo", "sm2", "keygen"], stdout=full,
                               stderr=subprocess.PIPE, timeout=60)
        assert r.returncode == 2
        assert r.stderr.decode() == "kuaisuo sm2: stdout: No space left on device\n"


def test_full_disk_leaves_nothing_behind(tmp_path, monkeypatch, capsys):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cli.os, "fsync", full)
    key, pub = tmp_path / "k.pem", tmp_path / "p.pem"
    assert cli.main(["sm2", "keygen", "--out", str(key), "--pubout", str(pub)]) == 2
    assert capsys.readouterr().err.startswith(f"kuaisuo sm2: {pub}: No space left on device")
    assert _keygen_files(tmp_path) == []


def test_non_utf8_id_is_taken_as_bytes(tmp_path):
    key, data, sig = tmp_path / "k.pem", tmp_path / "data", tmp_path / "s.der"
    private = sm2.SM2PrivateKey.generate()
    key.write_text(private.to_pem())
    data.write_bytes(b"message")
    ident = b"\xff\xfe id \x80"
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "sm2", "sign", "--key", str(key),
                        b"--id", ident, "--out", str(sig), str(data)], capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert private.public_key().verify(sig.read_bytes(), b"message", id=ident)


def test_verify_tells_malformed_signatures_from_failed_ones(tmp_path):
    key, pub, data, sig = (tmp_path / n for n in ("k.pem", "p.pem", "data", "sig"))
    private = sm2.SM2PrivateKey.generate()
    key.write_text(private.to_pem())
    pub.write_text(private.public_key().to_pem())
    data.write_bytes(b"message")
    verify = ("sm2", "verify", "--pub", str(pub), "--sig", str(sig))
    for raw in (b"", bytes(63), private.sign(b"message", encoding="raw") + b"\n"):
        sig.write_bytes(raw)
        r = run(*verify, "--raw", str(data))
        assert r.returncode == 2 and r.stdout == b""
        assert r.stderr.decode() == (f"kuaisuo sm2: {sig}: a raw signature (r||s) is 64 bytes, "
                                     f"not {len(raw)}\n")
    sig.write_bytes(private.sign(b"message") + b"\0")  # a trailing byte: not DER
    r = run(*verify, str(data))
    assert r.returncode == 2 and f"kuaisuo sm2: {sig}: not a DER signature" in r.stderr.decode()
    # Well-formed signatures that do not verify: a failure, status 1.
    for encoding, flags in (("raw", ("--raw",)), ("der", ())):
        sig.write_bytes(private.sign(b"other", encoding=encoding))
        r = run(*verify, *flags, str(data))
        assert r.returncode == 1 and r.stdout.strip() == b"Verification failure", r.stderr
        sig.write_bytes(private.sign(b"message", encoding=encoding))
        assert run(*verify, *flags, str(data)).returncode == 0


def _encrypted_key(tmp_path):
    """An encrypted PKCS#8 PEM: openssl's own where it is installed."""
    plain = tmp_path / "plain.pem"
    plain.write_text(sm2.SM2PrivateKey.generate().to_pem())
    out = tmp_path / "enc key.pem"
    ssl = shutil.which("openssl")
    if ssl and subprocess.run([ssl, "pkey", "-in", str(plain), "-aes256", "-passout", "pass:x",
                               "-out", str(out)], capture_output=True).returncode == 0:
        return out
    body = base64.encodebytes(os.urandom(230)).decode()
    out.write_text(f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{body}"
                   "-----END ENCRYPTED PRIVATE KEY-----\n")
    return out


def test_encrypted_private_key_says_how_to_decrypt_it(tmp_path):
    key, data = _encrypted_key(tmp_path), tmp_path / "data"
    data.write_bytes(b"message")
    advice = f"decrypt it first: openssl pkey -in '{key}' -out '{key}.plain'"
    for args in (("sign", "--key", str(key), str(data)), ("pubkey", "--key", str(key)),
                 ("verify", "--pub", str(key), "--sig", str(data), str(data))):
        r = run("sm2", *args)
        err = r.stderr.decode()
        assert r.returncode == 2 and "encrypted" in err and advice in err, err
