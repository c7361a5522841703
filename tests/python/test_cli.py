"""The kuaisuo command line: sm3 digests, sm2/ed25519/x25519 keys, signatures and
shared secrets (with the openssl CLI both ways), speed (short runs) and errors."""

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
from kuaisuo.cli import _keys as cli_keys
from sigcheck import verifies


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


def test_sm3_check_as_sha256sum_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").write_bytes(b"abc")
    (tmp_path / "b c").write_bytes(b"")
    sums = run("sm3", "a", "b c").stdout
    (tmp_path / "SUMS").write_bytes(sums + b"not a checksum line\n")
    r = run("sm3", "--check", "SUMS")
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().splitlines() == ["a: OK", "b c: OK"]
    assert b"1 line(s) improperly formatted" in r.stderr
    (tmp_path / "a").write_bytes(b"abd")
    r = run("sm3", "-c", "SUMS")
    assert r.returncode == 1 and r.stdout.decode().splitlines()[0] == "a: FAILED"
    assert b"1 computed checksum(s) did NOT match" in r.stderr
    (tmp_path / "a").unlink()
    r = run("sm3", "-c", "-", stdin=sums)
    assert r.returncode == 1 and b"a: FAILED open or read" in r.stdout
    r = run("sm3", "-c", stdin=b"nothing here\n")
    assert r.returncode == 1 and b"no properly formatted" in r.stderr


def test_sm3_hmac_from_hex_or_file(tmp_path):
    f = tmp_path / "data"
    f.write_bytes(b"message")
    key = tmp_path / "key"
    key.write_bytes(b"\x00k\xff")
    want = kuaisuo.hmac_sm3(b"\x00k\xff", b"message").hex()
    for opts in (["--hmac-key-hex", "006bff"], ["--hmac-key-file", str(key)]):
        r = run("sm3", *opts, str(f))
        assert r.returncode == 0, r.stderr
        assert r.stdout.decode() == f"{want}  {f}\n"
    r = run("sm3", "--hmac-key-hex", "zz", str(f))
    assert r.returncode == 2 and b"not hexadecimal" in r.stderr


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


def test_sm2_encrypt_decrypt_cli_and_openssl_pkeyutl(tmp_path):
    key, pub, data, ct, back = (tmp_path / n for n in ("k.pem", "p.pem", "m", "c", "b"))
    data.write_bytes(os.urandom(5000))
    assert run("sm2", "keygen", "--out", str(key), "--pubout", str(pub)).returncode == 0
    for form in ("c1c3c2", "c1c2c3", "der"):
        assert run("sm2", "encrypt", "--pub", str(pub), "--format", form, str(data),
                   str(ct)).returncode == 0
        assert ct.stat().st_size >= 5000 + 97
        assert run("sm2", "decrypt", "--key", str(key), "--format", form, str(ct),
                   str(back)).returncode == 0
        assert back.read_bytes() == data.read_bytes()
        assert oct(back.stat().st_mode & 0o777) == "0o600"  # plaintext written like a secret
    # A damaged ciphertext: an error, and no output file.
    bad = bytearray(ct.read_bytes())
    bad[-1] ^= 1
    ct.write_bytes(bytes(bad))
    gone = tmp_path / "never"
    r = run("sm2", "decrypt", "--key", str(key), "--format", "der", str(ct), str(gone))
    assert r.returncode != 0 and b"does not match" in r.stderr and not gone.exists()
    # stdin to stdout.
    r = run("sm2", "encrypt", "--pub", str(pub), "-", "-", stdin=b"piped")
    assert r.returncode == 0
    r2 = run("sm2", "decrypt", "--key", str(key), "-", "-", stdin=r.stdout)
    assert r2.returncode == 0 and r2.stdout == b"piped"
    ssl = _openssl()
    if ssl is None:
        return
    # openssl pkeyutl reads and writes the DER form.
    assert run("sm2", "encrypt", "--pub", str(pub), "--format", "der", str(data),
               str(ct)).returncode == 0
    r = subprocess.run([ssl, "pkeyutl", "-decrypt", "-inkey", str(key), "-in", str(ct),
                        "-out", str(back)], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert back.read_bytes() == data.read_bytes()
    theirs = tmp_path / "theirs"
    r = subprocess.run([ssl, "pkeyutl", "-encrypt", "-pubin", "-inkey", str(pub), "-in",
                        str(data), "-out", str(theirs)], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert run("sm2", "decrypt", "--key", str(key), "--format", "der", str(theirs),
               str(back)).returncode == 0
    assert back.read_bytes() == data.read_bytes()


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

    monkeypatch.setattr(os, "fsync", full)
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
    assert verifies(private.public_key().verify, sig.read_bytes(), b"message", id=ident)


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


def test_encrypted_private_key_needs_passin(tmp_path):
    key, data = _encrypted_key(tmp_path), tmp_path / "data"
    data.write_bytes(b"message")
    from_openssl = shutil.which("openssl") is not None
    for args in (("sign", "--key", str(key), str(data)), ("pubkey", "--key", str(key)),
                 ("verify", "--pub", str(key), "--sig", str(data), str(data))):
        r = run("sm2", *args)
        err = r.stderr.decode()
        assert r.returncode == 2 and "encrypted" in err and "--passin" in err, err
        r = run("sm2", *args, "--passin", "pass:wrong")
        err = r.stderr.decode()
        assert r.returncode == 2 and ("wrong passphrase" in err or not from_openssl), err
        if from_openssl and args[0] != "verify":
            r = run("sm2", *args, "--passin", "pass:x")
            assert r.returncode == 0, r.stderr


def test_keygen_passout_round_trips_through_openssl(tmp_path, monkeypatch):
    monkeypatch.setenv("KS_TEST_PASS", "s3cret")
    for cipher in ("aes-256-cbc", "aes-128-cbc", "sm4-cbc"):
        key, pub = tmp_path / f"{cipher}.pem", tmp_path / f"{cipher}.pub"
        r = run("sm2", "keygen", "--out", str(key), "--pubout", str(pub), "--passout",
                "env:KS_TEST_PASS", "--cipher", cipher, "--iter", "1000")
        assert r.returncode == 0, r.stderr
        assert key.read_text().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        r = run("sm2", "pubkey", "--key", str(key), "--passin", "pass:s3cret")
        assert r.returncode == 0, r.stderr
        assert r.stdout == pub.read_bytes()
        ssl = shutil.which("openssl")
        if ssl and cipher != "sm4-cbc":  # OpenSSL 3.0 has no HMAC-SM3 PRF
            r = subprocess.run([ssl, "pkey", "-in", str(key), "-passin", "pass:s3cret",
                                "-pubout"], capture_output=True)
            assert r.returncode == 0, r.stderr
            assert r.stdout == pub.read_bytes()


def test_passphrase_sources(tmp_path):
    assert cli_keys.passphrase("pass:a b", "--passin") == b"a b"
    assert cli_keys.passphrase("pass:", "--passin") == b""
    f = tmp_path / "pw"
    f.write_bytes(b"from file\nsecond line\n")
    assert cli_keys.passphrase(f"file:{f}", "--passin") == b"from file"
    for bad in ("a", "env:", "env:KS_NO_SUCH_VARIABLE_SET", "pass"):
        with pytest.raises(cli.Failure, match="--passin"):
            cli_keys.passphrase(bad, "--passin")


# ---- Ed25519 and X25519 -------------------------------------------------------------

def _ssl(*args, **kw):
    return subprocess.run([_openssl(), *map(str, args)], capture_output=True, **kw)


def test_ed25519_cli_roundtrip_and_openssl_interop(tmp_path):
    from kuaisuo import ed25519

    key, pub, sig, data = (tmp_path / n for n in ("k.pem", "p.pem", "sig", "data.bin"))
    data.write_bytes(os.urandom(300000))
    r = run("ed25519", "keygen", "--out", str(key), "--pubout", str(pub))
    assert r.returncode == 0, r.stderr
    assert key.stat().st_mode & 0o777 == 0o600
    private = ed25519.Ed25519PrivateKey.from_pem(key.read_bytes())
    assert private.public_key() == ed25519.Ed25519PublicKey.from_pem(pub.read_bytes())
    r = run("ed25519", "pubkey", "--key", str(key))
    assert r.returncode == 0 and r.stdout == pub.read_bytes()
    assert run("ed25519", "sign", "--key", str(key), "--out", str(sig), str(data)).returncode == 0
    assert sig.read_bytes() == private.sign(data.read_bytes())  # raw 64 bytes
    r = run("ed25519", "verify", "--pub", str(pub), "--sig", str(sig), str(data))
    assert r.returncode == 0 and r.stdout.strip() == b"Verified OK"
    r = run("ed25519", "verify", "--pub", str(key), "--sig", str(sig), "-",
            stdin=data.read_bytes())  # a private key's public half; stdin
    assert r.returncode == 0 and r.stdout.strip() == b"Verified OK"
    r = run("ed25519", "sign", "--key", str(key), "-", stdin=b"from stdin")
    assert r.returncode == 0 and r.stdout == private.sign(b"from stdin")
    # DER files.
    kd, pd = tmp_path / "k.der", tmp_path / "p.der"
    assert run("ed25519", "keygen", "--der", "--out", str(kd), "--pubout", str(pd)).returncode == 0
    assert ed25519.Ed25519PrivateKey.from_der(kd.read_bytes()).public_key() == \
        ed25519.Ed25519PublicKey.from_der(pd.read_bytes())
    assert kd.read_bytes()[0] == 0x30 and len(kd.read_bytes()) == 48
    if _openssl() is None:
        return
    # Ours verified by openssl and openssl's by ours; the same signature bytes.
    r = _ssl("pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", data,
             "-sigfile", sig)
    assert r.returncode == 0, r.stderr
    theirs = tmp_path / "theirs.sig"
    r = _ssl("pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", data, "-out", theirs)
    assert r.returncode == 0, r.stderr
    assert theirs.read_bytes() == sig.read_bytes()
    assert run("ed25519", "verify", "--pub", str(pub), "--sig", str(theirs),
               str(data)).returncode == 0
    # Key files made by openssl work here, byte for byte the same as ours.
    okey, opub = tmp_path / "o.pem", tmp_path / "o.pub"
    assert _ssl("genpkey", "-algorithm", "ed25519", "-out", okey).returncode == 0
    assert _ssl("pkey", "-in", okey, "-pubout", "-out", opub).returncode == 0
    assert run("ed25519", "sign", "--key", str(okey), "--out", str(sig), str(data)).returncode == 0
    r = _ssl("pkeyutl", "-verify", "-pubin", "-inkey", opub, "-rawin", "-in", data,
             "-sigfile", sig)
    assert r.returncode == 0, r.stderr
    r = run("ed25519", "pubkey", "--key", str(okey))
    assert r.returncode == 0 and r.stdout == opub.read_bytes()
    assert _ssl("pkey", "-in", key, "-out", tmp_path / "again.pem").returncode == 0
    assert (tmp_path / "again.pem").read_bytes() == key.read_bytes()
    r = _ssl("pkey", "-in", kd, "-inform", "DER")
    assert r.returncode == 0 and b"BEGIN PRIVATE KEY" in r.stdout


def test_ed25519_verify_tells_malformed_signatures_from_failed_ones(tmp_path):
    from kuaisuo import ed25519

    key, pub, data, sig = (tmp_path / n for n in ("k.pem", "p.pem", "data", "sig"))
    private = ed25519.Ed25519PrivateKey.generate()
    key.write_text(private.to_pem())
    pub.write_text(private.public_key().to_pem())
    data.write_bytes(b"message")
    verify = ("ed25519", "verify", "--pub", str(pub), "--sig", str(sig), str(data))
    good = private.sign(b"message")
    for raw in (b"", good[:63], good + b"\n", good * 2):
        sig.write_bytes(raw)
        r = run(*verify)
        assert r.returncode == 2 and r.stdout == b""
        assert r.stderr.decode() == (f"kuaisuo ed25519: {sig}: an Ed25519 signature is 64 "
                                     f"bytes, not {len(raw)}\n")
    # 64 bytes that do not verify, malformed (S >= L) or not: a failure, exit 1.
    l_order = 2**252 + 27742317777372353535851937790883648493
    s_plus_l = (int.from_bytes(good[32:], "little") + l_order).to_bytes(32, "little")
    for raw in (private.sign(b"other"), good[:32] + s_plus_l, bytes(64), b"\xff" * 64):
        sig.write_bytes(raw)
        r = run(*verify)
        assert r.returncode == 1 and r.stdout.strip() == b"Verification failure", r.stderr
    sig.write_bytes(good)
    assert run(*verify).returncode == 0
    # Unreadable keys and files: exit 2 with the file named.
    r = run("ed25519", "verify", "--pub", str(data), "--sig", str(sig), str(data))
    assert r.returncode == 2 and f"kuaisuo ed25519: {data}: not a public key" in r.stderr.decode()
    r = run("ed25519", "sign", "--key", str(pub), str(data))
    assert r.returncode == 2 and r.stderr.decode().startswith(f"kuaisuo ed25519: {pub}: ")
    r = run("ed25519", "sign", "--key", str(key), str(tmp_path / "missing"))
    assert r.returncode == 2 and b"No such file" in r.stderr
    small_order = tmp_path / "small.pem"  # SPKI of the identity point: refused
    small_order.write_text("-----BEGIN PUBLIC KEY-----\n"
                           + base64.b64encode(bytes.fromhex("302a300506032b6570032100")
                                              + b"\x01" + bytes(31)).decode()
                           + "\n-----END PUBLIC KEY-----\n")
    r = run("ed25519", "verify", "--pub", str(small_order), "--sig", str(sig), str(data))
    assert r.returncode == 2 and b"small order" in r.stderr and b"Traceback" not in r.stderr


def test_ed25519_context_and_prehash(tmp_path):
    from kuaisuo import ed25519

    # RFC 8032 7.2, the "foo" context, through the command line.
    key, data, sig = tmp_path / "k.pem", tmp_path / "m", tmp_path / "sig"
    private = ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(
        "0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6"))
    key.write_text(private.to_pem())
    data.write_bytes(bytes.fromhex("f726936d19c800494e3fdaff20b276a8"))
    r = run("ed25519", "sign", "--key", str(key), "--context-hex", "666f6f", str(data))
    assert r.returncode == 0 and r.stdout.hex() == (
        "55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b95130022907a7f"
        "b7c4e9b2d5f6cca685a587b4b21f4b888e4e7edb0d")
    sig.write_bytes(r.stdout)
    verify = ("ed25519", "verify", "--pub", str(key), "--sig", str(sig))
    assert run(*verify, "--context-hex", "666f6f", str(data)).returncode == 0
    for other in (("--context-hex", "626172"), (), ("--ph",), ("--ph", "--context-hex", "666f6f")):
        r = run(*verify, *other, str(data))
        assert r.returncode == 1 and r.stdout.strip() == b"Verification failure"
    r = run("ed25519", "sign", "--key", str(key), "--ph", "--context-hex", "", "--out", str(sig),
            str(data))
    assert r.returncode == 0 and sig.read_bytes() == private.sign(data.read_bytes(),
                                                                  prehashed=True)
    assert run(*verify, "--ph", str(data)).returncode == 0
    for bad, why in (("xyz", "--context-hex: not hexadecimal"), ("", "context"),
                     ("00" * 256, "context")):
        r = run("ed25519", "sign", "--key", str(key), "--context-hex", bad, str(data))
        assert r.returncode == 2 and why in r.stderr.decode() and r.stdout == b""


def test_x25519_cli_derive_and_openssl_interop(tmp_path):
    from kuaisuo import x25519

    a, ap, b, bp = (tmp_path / n for n in ("a.pem", "ap.pem", "b.pem", "bp.pem"))
    assert run("x25519", "keygen", "--out", str(a), "--pubout", str(ap)).returncode == 0
    assert run("x25519", "keygen", "--out", str(b), "--pubout", str(bp)).returncode == 0
    assert a.stat().st_mode & 0o777 == 0o600
    secret = tmp_path / "secret"
    r = run("x25519", "derive", "--key", str(a), "--peer", str(bp), "--out", str(secret))
    assert r.returncode == 0, r.stderr
    assert secret.stat().st_mode & 0o777 == 0o600  # a secret, written as a key is
    r = run("x25519", "derive", "--key", str(b), "--peer", str(ap))
    assert r.returncode == 0 and r.stdout == secret.read_bytes() and len(r.stdout) == 32
    alice = x25519.X25519PrivateKey.from_pem(a.read_bytes())
    assert secret.read_bytes() == alice.exchange(x25519.X25519PublicKey.from_pem(bp.read_bytes()))
    r = run("x25519", "derive", "--key", str(a), "--peer", str(b))  # a private key as peer
    assert r.returncode == 0 and r.stdout == secret.read_bytes()
    r = run("x25519", "pubkey", "--key", str(a))
    assert r.returncode == 0 and r.stdout == ap.read_bytes()
    kd, pd = tmp_path / "k.der", tmp_path / "p.der"
    assert run("x25519", "keygen", "--der", "--out", str(kd), "--pubout", str(pd)).returncode == 0
    assert x25519.X25519PrivateKey.from_der(kd.read_bytes()).public_key() == \
        x25519.X25519PublicKey.from_der(pd.read_bytes())
    if _openssl() is None:
        return
    r = _ssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", bp)
    assert r.returncode == 0 and r.stdout == secret.read_bytes()
    oa, oap = tmp_path / "oa.pem", tmp_path / "oap.pem"
    assert _ssl("genpkey", "-algorithm", "x25519", "-out", oa).returncode == 0
    assert _ssl("pkey", "-in", oa, "-pubout", "-out", oap).returncode == 0
    r = run("x25519", "derive", "--key", str(oa), "--peer", str(ap))
    theirs = _ssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", oap)
    assert r.returncode == 0 and theirs.returncode == 0 and r.stdout == theirs.stdout
    r = run("x25519", "pubkey", "--key", str(oa))
    assert r.returncode == 0 and r.stdout == oap.read_bytes()
    assert _ssl("pkey", "-in", a, "-out", tmp_path / "again.pem").returncode == 0
    assert (tmp_path / "again.pem").read_bytes() == a.read_bytes()


def test_x25519_cli_errors(tmp_path):
    from kuaisuo import ed25519, x25519

    a, zero, ed = tmp_path / "a.pem", tmp_path / "zero.pem", tmp_path / "ed.pem"
    a.write_text(x25519.X25519PrivateKey.generate().to_pem())
    zero.write_text(x25519.X25519PublicKey.from_public_bytes(bytes(32)).to_pem())
    ed.write_text(ed25519.Ed25519PrivateKey.generate().to_pem())
    out = tmp_path / "secret"
    r = run("x25519", "derive", "--key", str(a), "--peer", str(zero), "--out", str(out))
    assert r.returncode == 2 and r.stdout == b"" and not out.exists()
    assert r.stderr.decode().startswith(f"kuaisuo x25519: {zero}: X25519: ") and \
        "small order" in r.stderr.decode()
    r = run("x25519", "derive", "--key", str(a), "--peer", str(ed))
    assert r.returncode == 2 and f"{ed}: not a public key" in r.stderr.decode()
    r = run("x25519", "derive", "--key", str(ed), "--peer", str(a))
    assert r.returncode == 2 and "another algorithm" in r.stderr.decode()
    r = run("x25519", "derive", "--key", str(a))
    assert r.returncode == 2 and b"--peer" in r.stderr
    r = run("x25519", "keygen", "--out", str(a), "--pubout", str(a))
    assert r.returncode == 2 and b"same file" in r.stderr


def test_curve25519_encrypted_keys_take_passin(tmp_path):
    from kuaisuo import ed25519, x25519

    if _openssl() is None:
        pytest.skip("openssl not on PATH")
    data = tmp_path / "data"
    data.write_bytes(b"m")
    for alg, key in (("ed25519", ed25519.Ed25519PrivateKey.generate()),
                     ("x25519", x25519.X25519PrivateKey.generate())):
        plain, enc = tmp_path / f"{alg}.pem", tmp_path / f"{alg} enc.pem"
        plain.write_text(key.to_pem())
        assert _ssl("pkey", "-in", plain, "-aes256", "-passout", "pass:x", "-out",
                    enc).returncode == 0
        args = (("sign", "--key", str(enc), str(data)) if alg == "ed25519"
                else ("derive", "--key", str(enc), "--peer", str(plain)))
        r = run(alg, *args)
        err = r.stderr.decode()
        assert r.returncode == 2 and "encrypted" in err and "--passin" in err, err
        r = run(alg, *args, "--passin", "pass:x")
        assert r.returncode == 0, r.stderr
        plain_args = [str(plain) if a == str(enc) else a for a in args]
        assert r.stdout == run(alg, *plain_args).stdout


def test_speed_ed25519_x25519_rows(tmp_path):
    out = tmp_path / "speed.json"
    r = run("speed", "ed25519", "x25519", "--backend", "cpu", "--seconds", "0.03",
            "--threads", "2", "--batch", "16", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert b"ratio" in r.stdout and b"n/a" not in r.stdout
    rows = json.loads(out.read_text())["results"]
    seen = {(row["alg"], row["op"], row["impl"], row["threads"], row["batch"]) for row in rows}
    for alg, ops in (("ed25519", ("keygen", "sign", "verify")), ("x25519", ("keygen", "derive"))):
        for op in ops:
            for threads, batch in ((1, 1), (1, 16), (2, 16)):
                assert (alg, op, "kuaisuo", threads, batch) in seen
            assert (alg, op, "openssl", 1, 1) in seen and (alg, op, "openssl", 2, 1) in seen
    for row in rows:
        assert row["ops_per_s"] > 0
        assert row["msg_bytes"] == (64 if row["op"] in ("sign", "verify") else 0)


SM4_KEY = "0123456789abcdeffedcba9876543210"


@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "ofb", "ctr"])
@pytest.mark.parametrize("length", [0, 1, 16, 33, 4096])
def test_sm4_cli_matches_openssl_enc(tmp_path, mode, length):
    """`kuaisuo sm4 enc` writes the bytes `openssl enc -sm4-MODE` writes
    (PKCS#7 padding for ECB/CBC), and each decrypts the other's."""
    iv = os.urandom(16).hex()
    data, ours, back = (tmp_path / n for n in ("in", "ours", "back"))
    data.write_bytes(os.urandom(length))
    iv_args = [] if mode == "ecb" else ["--iv-hex", iv]
    r = run("sm4", "enc", "--mode", mode, "--key-hex", SM4_KEY, *iv_args, str(data), str(ours))
    assert r.returncode == 0, r.stderr
    r = run("sm4", "dec", "--mode", mode, "--key-hex", SM4_KEY, *iv_args, str(ours), "-")
    assert r.returncode == 0 and r.stdout == data.read_bytes(), r.stderr
    if _openssl() is None:
        pytest.skip("no openssl CLI")
    ssl_iv = [] if mode == "ecb" else ["-iv", iv]
    theirs = _ssl("enc", f"-sm4-{mode}", "-K", SM4_KEY, *ssl_iv, "-in", data)
    if theirs.returncode != 0:
        pytest.skip(f"openssl enc -sm4-{mode} unavailable: {theirs.stderr[:80]!r}")
    assert theirs.stdout == ours.read_bytes()
    r = run("sm4", "dec", "--mode", mode, "--key-hex", SM4_KEY, *iv_args, "-", str(back),
            stdin=theirs.stdout)
    assert r.returncode == 0 and back.read_bytes() == data.read_bytes(), r.stderr
    assert oct(back.stat().st_mode & 0o077) == "0o0"  # plaintext written 0600


def test_sm4_cli_gcm_tag_and_errors(tmp_path):
    from kuaisuo import sm4

    data, sealed, out = (tmp_path / n for n in ("in", "sealed", "out"))
    data.write_bytes(os.urandom(1000))
    iv, aad = "00001234567800000000abcd", "feedface"
    gcm = ["--mode", "gcm", "--key-hex", SM4_KEY, "--iv-hex", iv, "--aad-hex", aad]
    assert run("sm4", "enc", *gcm, str(data), str(sealed)).returncode == 0
    blob = sealed.read_bytes()
    assert blob == sm4.SM4GCM(bytes.fromhex(SM4_KEY)).encrypt(
        bytes.fromhex(iv), data.read_bytes(), bytes.fromhex(aad))  # ciphertext || 16-byte tag
    r = run("sm4", "dec", *gcm, str(sealed), str(out))
    assert r.returncode == 0 and out.read_bytes() == data.read_bytes(), r.stderr
    out.unlink()
    tampered = bytearray(blob)
    tampered[5] ^= 1
    r = run("sm4", "dec", *gcm, "-", str(out), stdin=bytes(tampered))
    assert r.returncode == 2 and b"tag mismatch" in r.stderr and not out.exists()
    r = run("sm4", "dec", *gcm, "-", "-", stdin=bytes(tampered))
    assert r.returncode == 2 and r.stdout == b""  # nothing released on stdout either
    bad = [
        (["--mode", "cbc", "--key-hex", "0011"], b"--key-hex: 16 bytes"),
        (["--mode", "cbc", "--key-hex", SM4_KEY], b"--iv-hex is required"),
        (["--mode", "ecb", "--key-hex", SM4_KEY, "--iv-hex", "00" * 16], b"ECB takes no IV"),
        (["--mode", "ctr", "--key-hex", "zz" * 16, "--iv-hex", "00" * 16], b"not hexadecimal"),
        (["--mode", "ctr", "--key-hex", SM4_KEY, "--iv-hex", "00" * 15], b"--iv-hex: 16 bytes"),
        (["--mode", "cbc", "--key-hex", SM4_KEY, "--iv-hex", "00" * 16, "--aad-hex", "00"],
         b"only GCM"),
    ]
    for args, message in bad:
        r = run("sm4", "enc", *args, str(data), "-")
        assert r.returncode == 2 and message in r.stderr and b"Traceback" not in r.stderr, args
    # Unpadded input of a wrong length, and bad padding on decryption.
    r = run("sm4", "enc", "--mode", "cbc", "--no-pad", "--key-hex", SM4_KEY, "--iv-hex",
            "00" * 16, "-", "-", stdin=b"x" * 17)
    assert r.returncode == 2 and b"stdin" in r.stderr and b"Traceback" not in r.stderr
    unpadded = sm4.encrypt(bytes.fromhex(SM4_KEY), b"y" * 15 + b"\0", mode="ecb",
                           padding=False)  # pad byte 0
    r = run("sm4", "dec", "--mode", "ecb", "--key-hex", SM4_KEY, "-", "-", stdin=unpadded)
    assert r.returncode == 2 and b"padding" in r.stderr and r.stdout == b"", r.stderr


def test_skinny_cli_paper_vector_round_trip_and_errors(tmp_path):
    tk = "009CEC81605D4AC1D2AE9E3085D7A1F31AC123EBFC00FDDCF01046CEEDDFCAB3"
    r = run("skinny", "enc", "--mode", "ecb", "--key-hex", tk, "-", "-",
            stdin=bytes.fromhex("3A0C47767A26A68DD382A695E7022E25"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.hex() == "b731d98a4bde147a7ed4a6f16b9b587f"
    src, enc, dec = tmp_path / "in", tmp_path / "enc", tmp_path / "dec"
    src.write_bytes(os.urandom(1001))
    iv = os.urandom(16).hex()
    assert run("skinny", "enc", "--mode", "ctr", "--key-hex", tk, "--iv-hex", iv, str(src),
               str(enc)).returncode == 0
    assert enc.read_bytes() == kuaisuo.skinny.encrypt(bytes.fromhex(tk), src.read_bytes(),
                                                      mode="ctr", iv=bytes.fromhex(iv))
    assert run("skinny", "dec", "--mode", "ctr", "--key-hex", tk, "--iv-hex", iv, str(enc),
               str(dec)).returncode == 0
    assert dec.read_bytes() == src.read_bytes() and (dec.stat().st_mode & 0o777) == 0o600
    for args, says in ((("--mode", "ctr", "--key-hex", tk), b"--iv-hex is required"),
                       (("--mode", "ecb", "--key-hex", tk[:-2]), b"32 bytes"),
                       (("--mode", "ecb", "--key-hex", tk), b"whole 16-byte blocks")):
        r = run("skinny", "enc", *args, str(src), str(tmp_path / "x"))
        assert r.returncode == 2 and says in r.stderr, r.stderr
        assert not (tmp_path / "x").exists()


def test_sm4_keygen_writes_a_key_file_that_enc_and_dec_take(tmp_path):
    """`kuaisuo sm4 keygen` (plain or encrypted, 0600) and `enc`/`dec
    --key FILE`, whose output is the hex key's; a key file of another
    algorithm and a missing passphrase are clear errors."""
    from kuaisuo import sm4

    key_file, locked, data, ct = (tmp_path / n for n in ("k.pem", "l.der", "in", "ct"))
    data.write_bytes(os.urandom(300))
    assert run("sm4", "keygen", "--out", str(key_file)).returncode == 0
    assert oct(key_file.stat().st_mode & 0o077) == "0o0"
    key = sm4.SM4Key.from_pem(key_file.read_bytes())
    r = run("sm4", "keygen", "--der", "--out", str(locked), "--passout", "pass:pw", "--cipher",
            "sm4-cbc", "--iter", "1000")
    assert r.returncode == 0, r.stderr
    locked_key = sm4.SM4Key.from_der(locked.read_bytes(), "pw")
    for path, extra, k in ((key_file, [], key), (locked, ["--passin", "pass:pw"], locked_key)):
        ctr = ["--mode", "ctr", "--iv-hex", "00" * 16, "--key", str(path), *extra]
        assert run("sm4", "enc", *ctr, str(data), str(ct)).returncode == 0
        assert ct.read_bytes() == sm4.encrypt(k.to_bytes(), data.read_bytes(), mode="ctr",
                                                  iv=bytes(16))
        r = run("sm4", "dec", *ctr, str(ct), "-")
        assert r.returncode == 0 and r.stdout == data.read_bytes(), r.stderr
    r = run("sm4", "enc", "--mode", "ctr", "--iv-hex", "00" * 16, "--key", str(locked),
            str(data), "-")
    assert r.returncode == 2 and b"--passin" in r.stderr
    sm2_file = tmp_path / "sm2.pem"
    assert run("sm2", "keygen", "--out", str(sm2_file)).returncode == 0
    r = run("sm4", "enc", "--mode", "ctr", "--iv-hex", "00" * 16, "--key", str(sm2_file),
            str(data), "-")
    assert r.returncode == 2 and b"Traceback" not in r.stderr and r.stdout == b""
    r = run("sm4", "enc", "--mode", "ctr", "--iv-hex", "00" * 16, "--key", str(key_file),
            "--key-hex", SM4_KEY, str(data), "-")
    assert r.returncode == 2 and b"not allowed with" in r.stderr
