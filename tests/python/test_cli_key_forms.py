"""Every key and certificate form through the CLI, from files: private keys
(PKCS#8 PEM and DER, encrypted PEM and DER), public keys (SPKI PEM and DER)
and X.509 certificates (PEM and DER), written by OpenSSL and by kuaisuo
itself, for SM2, Ed25519 and X25519. The same forms through the Python
classes. Nothing sniffs the bytes before the native decoders do."""

import shutil
import subprocess
import sys

import pytest

from kuaisuo import KuaisuoError, ed25519, sm2, x25519
from kuaisuo._pkcs8 import KeyIsEncrypted, KeyNotEncrypted

OPENSSL = shutil.which("openssl")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="openssl not on PATH")
GENPKEY = {"sm2": "SM2", "ed25519": "ED25519", "x25519": "X25519"}


def kuaisuo(*args, stdin=b""):
    return subprocess.run([sys.executable, "-m", "kuaisuo", *map(str, args)], input=stdin,
                          capture_output=True, timeout=120)


def openssl(*args):
    r = subprocess.run([OPENSSL, *map(str, args)], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r


def _forms(d, alg):
    """{form: path} of one key pair of alg, made by openssl (a certificate
    too: X25519's is issued by an Ed25519 key, since X25519 cannot sign)."""
    key = d / f"{alg}.pem"
    openssl("genpkey", "-algorithm", GENPKEY[alg], "-out", key)
    f = {"private.pem": key, "private.der": d / f"{alg}.der", "public.pem": d / f"{alg}.pub.pem",
         "public.der": d / f"{alg}.pub.der", "encrypted.pem": d / f"{alg}.enc.pem",
         "encrypted.der": d / f"{alg}.enc.der", "cert.pem": d / f"{alg}.crt",
         "cert.der": d / f"{alg}.crt.der"}
    openssl("pkey", "-in", key, "-outform", "DER", "-out", f["private.der"])
    openssl("pkey", "-in", key, "-pubout", "-out", f["public.pem"])
    openssl("pkey", "-in", key, "-pubout", "-outform", "DER", "-out", f["public.der"])
    for form in ("PEM", "DER"):
        openssl("pkcs8", "-topk8", "-in", key, "-v2", "aes-256-cbc", "-passout", "pass:pw",
                "-outform", form, "-out", f[f"encrypted.{form.lower()}"])
    if alg == "x25519":
        ca = d / "ca.pem"
        openssl("genpkey", "-algorithm", "ED25519", "-out", ca)
        openssl("req", "-x509", "-new", "-key", ca, "-subj", "/CN=ca", "-days", "1",
                "-out", d / "ca.crt")
        openssl("req", "-new", "-key", ca, "-subj", "/CN=x", "-out", d / "x.csr")
        openssl("x509", "-req", "-in", d / "x.csr", "-force_pubkey", f["public.pem"],
                "-CA", d / "ca.crt", "-CAkey", ca, "-days", "1", "-out", f["cert.pem"])
    else:
        digest = ["-sm3"] if alg == "sm2" else []
        openssl("req", "-x509", "-new", "-key", key, *digest, "-subj", "/CN=t", "-days", "1",
                "-out", f["cert.pem"])
    openssl("x509", "-in", f["cert.pem"], "-outform", "DER", "-out", f["cert.der"])
    return f


def _own_forms(d, alg):
    """kuaisuo's own keygen --der --pubout files, plain and encrypted."""
    key, pub, enc = d / f"own-{alg}.der", d / f"own-{alg}.pub.der", d / f"own-{alg}.enc.der"
    r = kuaisuo(alg, "keygen", "--der", "--out", key, "--pubout", pub)
    assert r.returncode == 0, r.stderr
    r = kuaisuo(alg, "keygen", "--der", "--out", enc, "--passout", "pass:pw", "--iter", "100")
    assert r.returncode == 0, r.stderr
    return {"private.der": key, "public.der": pub, "encrypted.der": enc}


PRIVATE = ["private.pem", "private.der", "encrypted.pem", "encrypted.der"]
PUBLIC = ["public.pem", "public.der", "cert.pem", "cert.der"]


def _passin(form):
    return ["--passin", "pass:pw"] if form.startswith("encrypted") else []


@pytest.mark.parametrize("alg", ["sm2", "ed25519"])
def test_sign_and_verify_with_every_form(tmp_path, alg):
    forms = _forms(tmp_path, alg)
    msg = tmp_path / "msg"
    msg.write_bytes(b"the message")
    for form in PRIVATE:
        sig = tmp_path / f"{form}.sig"
        r = kuaisuo(alg, "sign", "--key", forms[form], *_passin(form), "--out", sig, msg)
        assert r.returncode == 0, (form, r.stderr)
        for pub_form in PUBLIC + ["private.pem", "encrypted.der"]:
            r = kuaisuo(alg, "verify", "--pub", forms[pub_form], *_passin(pub_form),
                        "--sig", sig, msg)
            assert r.returncode == 0 and b"Verified OK" in r.stdout, (form, pub_form, r.stderr)
        r = kuaisuo(alg, "verify", "--pub", forms["public.der"], "--sig", sig, tmp_path / f"{form}.sig")
        assert r.returncode == 1 and b"Verification failure" in r.stdout
    own = _own_forms(tmp_path, alg)
    sig = tmp_path / "own.sig"
    r = kuaisuo(alg, "sign", "--key", own["encrypted.der"], "--passin", "pass:pw", "--out", sig, msg)
    assert r.returncode == 0, r.stderr
    r = kuaisuo(alg, "sign", "--key", own["private.der"], "--out", sig, msg)
    assert r.returncode == 0, r.stderr
    r = kuaisuo(alg, "verify", "--pub", own["public.der"], "--sig", sig, msg)
    assert r.returncode == 0, r.stderr


def test_x25519_derive_with_every_form(tmp_path):
    ours, theirs = tmp_path / "a", tmp_path / "b"
    ours.mkdir()
    theirs.mkdir()
    a, b = _forms(ours, "x25519"), _forms(theirs, "x25519")
    want = openssl("pkeyutl", "-derive", "-inkey", a["private.pem"], "-peerkey",
                   b["public.pem"]).stdout
    for form in PRIVATE:
        for peer in PUBLIC:
            r = kuaisuo("x25519", "derive", "--key", a[form], *_passin(form), "--peer", b[peer],
                        "--out", "-")
            assert r.returncode == 0 and r.stdout == want, (form, peer, r.stderr)


def test_an_encrypted_key_without_passin_asks_for_it_off_a_terminal(tmp_path):
    forms = _forms(tmp_path, "ed25519")
    for form in ("encrypted.pem", "encrypted.der"):
        r = kuaisuo("ed25519", "pubkey", "--key", forms[form])
        assert r.returncode == 2 and b"give its passphrase" in r.stderr, r.stderr
        r = kuaisuo("ed25519", "pubkey", "--key", forms[form], "--passin", "pass:wrong")
        assert r.returncode == 2 and b"wrong passphrase" in r.stderr, r.stderr
    # --passin on a plain key is harmless, as in openssl.
    r = kuaisuo("ed25519", "pubkey", "--key", forms["private.der"], "--passin", "pass:x")
    assert r.returncode == 0 and r.stdout == forms["public.pem"].read_bytes()


@pytest.mark.parametrize("alg,module,cls", [("sm2", sm2, "SM2"), ("ed25519", ed25519, "Ed25519"),
                                            ("x25519", x25519, "X25519")])
def test_python_classes_read_every_form(tmp_path, alg, module, cls):
    forms = _forms(tmp_path, alg)
    private, public = getattr(module, f"{cls}PrivateKey"), getattr(module, f"{cls}PublicKey")
    want = public.from_der(forms["public.der"].read_bytes()).to_der()
    for form in PRIVATE:
        data = forms[form].read_bytes()
        password = "pw" if form.startswith("encrypted") else None
        assert private.from_der(data, password=password).public_key().to_der() == want
        if password:
            with pytest.raises(KeyIsEncrypted):
                private.from_der(data)
        else:
            with pytest.raises(KeyNotEncrypted):
                private.from_der(data, password="pw")
    for form in PUBLIC:
        assert public.from_der(forms[form].read_bytes()).to_der() == want
        # A public key or certificate is not a private key, and not "encrypted".
        with pytest.raises(KuaisuoError):
            private.from_der(forms[form].read_bytes())
        with pytest.raises(KuaisuoError):
            private.from_der(forms[form].read_bytes(), password="pw")


def test_a_terminal_is_asked_for_the_passphrase(tmp_path):
    """As openssl does: no --passin, an encrypted key and a terminal on
    standard input: the passphrase is read from the terminal."""
    import os
    import pty
    import select

    forms = _forms(tmp_path, "ed25519")
    pid, fd = pty.fork()
    if pid == 0:  # the child, on the pseudo-terminal
        os.execv(sys.executable, [sys.executable, "-m", "kuaisuo", "ed25519", "pubkey",
                                  "--key", str(forms["encrypted.pem"])])
    seen, answered = b"", False
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            os.kill(pid, 9)
            pytest.fail(f"no prompt: {seen!r}")
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"Enter pass phrase" in seen:
            os.write(fd, b"pw\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    assert answered and os.waitstatus_to_exitcode(status) == 0, seen
    assert forms["public.pem"].read_bytes().replace(b"\n", b"") in seen.replace(b"\r\n", b"")


def test_keygen_sm4_cbc_with_the_sha256_prf_is_read_by_openssl(tmp_path):
    key = tmp_path / "k.pem"
    r = kuaisuo("sm2", "keygen", "--passout", "pass:pw", "--cipher", "sm4-cbc", "--prf", "sha256",
                "--iter", "1000", "--out", key)
    assert r.returncode == 0, r.stderr
    pub = openssl("pkey", "-in", key, "-passin", "pass:pw", "-pubout").stdout
    assert sm2.SM2PrivateKey.from_pem(key.read_bytes(), password="pw").public_key().to_pem() \
        == pub.decode()
    # The default PRF for sm4-cbc is GmSSL's HMAC-SM3, which OpenSSL 3.0 cannot read: --help says so.
    r = kuaisuo("sm2", "keygen", "--help")
    assert b"--prf" in r.stdout and b"cannot read" in r.stdout
    r = kuaisuo("sm2", "keygen", "--passout", "pass:pw", "--cipher", "aes-256-cbc", "--prf", "sm3",
                "--out", tmp_path / "x.pem")
    assert r.returncode == 2 and b"--prf" in r.stderr and not (tmp_path / "x.pem").exists()
