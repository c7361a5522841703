"""The CLI and the Python objects under hostile or unusual surroundings:
--out over special files (made by each test in its own directory, never the
machine's /dev), stdout on a full device, a closed stdin, secrets kept out
of error text, streaming objects shared by threads, misleading messages."""

import os
import stat
import subprocess
import sys
import threading

import pytest

from kuaisuo import sm2, sm4, skinny

RUN = [sys.executable, "-m", "kuaisuo"]


def run(*args, stdin=b"", **kwargs):
    kwargs.setdefault("capture_output", True)
    return subprocess.run([*RUN, *args], input=stdin, timeout=120, **kwargs)


def _device(path, minor):
    """A character device like /dev/null (minor 3) or /dev/full (minor 7),
    made in the test's directory; skipped where mknod is not allowed."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, OSError) as e:
        pytest.skip(f"mknod: {e}")
    return str(path)


def _no_traceback(r):
    assert b"Traceback" not in r.stderr and b"Exception ignored" not in r.stderr, r.stderr


@pytest.fixture
def key_and_message(tmp_path):
    key, msg = tmp_path / "k.pem", tmp_path / "m"
    assert run("sm2", "keygen", "--out", str(key)).returncode == 0
    msg.write_bytes(b"message")
    return str(key), str(msg)


def test_out_into_a_device_keeps_the_device(tmp_path, key_and_message):
    key, msg = key_and_message
    null, full = _device(tmp_path / "null", 3), _device(tmp_path / "full", 7)
    r = run("sm2", "sign", "--key", key, "--out", null, msg)
    assert r.returncode == 0, r.stderr
    r = run("sm2", "keygen", "--out", null)
    assert r.returncode == 0, r.stderr
    for args in (["sm2", "sign", "--key", key, "--out", full, msg],
                 ["sm2", "keygen", "--out", full]):
        r = run(*args)
        assert r.returncode == 2 and b"No space left on device" in r.stderr, r.stderr
        _no_traceback(r)
    for dev in (null, full):
        assert stat.S_ISCHR(os.lstat(dev).st_mode), f"{dev} was replaced by a regular file"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_out_into_a_fifo_and_through_symlinks(tmp_path, key_and_message):
    key, msg = key_and_message
    pub = sm2.SM2PrivateKey.from_pem(open(key).read()).public_key()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    r = run("sm2", "sign", "--key", key, "--out", str(fifo), msg)
    reader.join(30)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    pub.verify(got[0], b"message")
    # A symlink to a device is written through and stays a symlink.
    link = tmp_path / "to-null"
    link.symlink_to(_device(tmp_path / "null", 3))
    assert run("sm2", "sign", "--key", key, "--out", str(link), msg).returncode == 0
    assert os.path.islink(link)
    # A symlink to a regular file: written through (the link is not renamed over).
    target, sig_link = tmp_path / "sig", tmp_path / "sig-link"
    target.write_bytes(b"old contents, longer than a signature " * 4)
    sig_link.symlink_to(target)
    assert run("sm2", "sign", "--key", key, "--out", str(sig_link), msg).returncode == 0
    assert os.path.islink(sig_link)
    pub.verify(target.read_bytes(), b"message")
    # A private key is not written through a link into a file others can read.
    readable, key_link = tmp_path / "readable", tmp_path / "key-link"
    readable.write_bytes(b"")
    readable.chmod(0o644)
    key_link.symlink_to(readable)
    r = run("sm2", "keygen", "--out", str(key_link))
    assert r.returncode == 2 and b"others can read" in r.stderr
    assert readable.read_bytes() == b""
    readable.chmod(0o600)
    assert run("sm2", "keygen", "--out", str(key_link)).returncode == 0
    assert sm2.SM2PrivateKey.from_pem(readable.read_bytes())
    # "-" is standard output, as before.
    r = run("sm2", "sign", "--key", key, "--out", "-", msg)
    assert r.returncode == 0
    pub.verify(r.stdout, b"message")


def test_sm3_to_a_full_device_and_from_a_closed_stdin(tmp_path):
    full = _device(tmp_path / "full", 7)
    with open(full, "wb") as out:
        r = run("sm3", "-", stdin=b"abc", stdout=out, stderr=subprocess.PIPE,
                capture_output=False)
    assert r.returncode == 2 and b"No space left on device" in r.stderr, r.stderr
    _no_traceback(r)
    r = subprocess.run([*RUN, "sm3", "-"], stdin=subprocess.DEVNULL, capture_output=True,
                       preexec_fn=lambda: os.close(0), timeout=120)
    assert r.returncode == 1 and b"-: Bad file descriptor" in r.stderr, r.stderr
    _no_traceback(r)


SECRET_HEX = "00112233445566778899aabbccddeefx"


@pytest.mark.parametrize("tool,key", [("sm4", SECRET_HEX), ("skinny", SECRET_HEX * 2)])
def test_a_bad_hex_key_is_not_echoed(tmp_path, tool, key):
    (tmp_path / "m").write_bytes(b"x" * 16)
    r = run(tool, "enc", "--mode", "ctr", "--key-hex", key, "--iv-hex", "00" * 16,
            str(tmp_path / "m"), str(tmp_path / "c"))
    assert r.returncode == 2 and b"not hexadecimal" in r.stderr
    assert b"00112233445566" not in r.stderr and b"eefx" not in r.stderr, r.stderr
    assert not (tmp_path / "c").exists()


def test_a_passphrase_without_its_prefix_is_not_echoed(tmp_path):
    r = run("sm2", "keygen", "--passout", "my-secret-words", "--out", str(tmp_path / "k"))
    assert r.returncode == 2 and b"my-secret-words" not in r.stderr, r.stderr
    key = tmp_path / "plain.pem"
    assert run("sm2", "keygen", "--out", str(key)).returncode == 0
    r = run("sm2", "pubkey", "--key", str(key), "--passin", "my-secret-words")
    assert b"my-secret-words" not in r.stderr, r.stderr


def test_an_empty_passout_needs_allow_empty_password(tmp_path):
    key = tmp_path / "k.pem"
    r = run("sm2", "keygen", "--passout", "pass:", "--out", str(key))
    assert r.returncode == 2 and b"--allow-empty-password" in r.stderr
    assert not key.exists()
    r = run("sm2", "keygen", "--passout", "pass:", "--allow-empty-password", "--iter", "10",
            "--out", str(key))
    assert r.returncode == 0, r.stderr
    assert sm2.SM2PrivateKey.from_pem(key.read_bytes(), password=b"")


def test_mode_given_as_a_number_is_a_type_error():
    with pytest.raises(TypeError, match="mode must be a name"):
        sm4.encrypt(bytes(16), bytes(16), mode=5, iv=bytes(16))
    with pytest.raises(TypeError, match="mode must be a name"):
        skinny.encrypt(bytes(32), bytes(16), mode=1, iv=bytes(16))
    with pytest.raises(ValueError, match="unknown SM4 mode 'xts'"):
        sm4.encrypt(bytes(16), bytes(16), mode="xts")


def test_a_truncated_encrypted_pem_says_so():
    pem = sm2.SM2PrivateKey.generate().to_pem(password="pw", iterations=10)
    cut = pem[: len(pem) // 2]
    with pytest.raises(Exception) as info:
        sm2.SM2PrivateKey.from_pem(cut, password="pw")
    message = str(info.value)
    assert "END line" in message and "no passphrase" not in message, message


def test_skinny_ctr_shared_by_threads_never_reuses_keystream():
    """Updates from several threads on one stream: each block of keystream
    is used once (zeros in, keystream out), and together they are exactly
    the keystream of the whole length."""
    tweakey, iv = os.urandom(32), os.urandom(16)
    stream = skinny.SkinnyCTR(tweakey, iv)
    chunk, rounds, threads = 1 << 15, 24, 4  # above the size that releases the GIL
    outputs = []
    lock = threading.Lock()

    def work():
        for _ in range(rounds):
            out = stream.update(bytes(chunk))
            with lock:
                outputs.append(out)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    blocks = [o[i:i + 16] for o in outputs for i in range(0, len(o), 16)]
    assert len(set(blocks)) == len(blocks), "keystream blocks used twice"
    whole = skinny.encrypt(tweakey, bytes(chunk * rounds * threads), mode="ctr", iv=iv)
    assert sorted(blocks) == sorted(whole[i:i + 16] for i in range(0, len(whole), 16))


def test_pbkdf2_iteration_maximum(tmp_path):
    """A key file's PBKDF2 iteration count is work its author makes the
    reader do: bounded by max_iterations (default 600,000), refused with
    KS_ERR_PBES2_ITERATIONS (-52) before any derivation."""
    from kuaisuo import KuaisuoError, ed25519
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.to_pem(password="pw", iterations=2000)
    with pytest.raises(KuaisuoError) as info:
        ed25519.Ed25519PrivateKey.from_pem(pem, password="pw", max_iterations=1999)
    assert info.value.code == -52
    again = ed25519.Ed25519PrivateKey.from_pem(pem, password="pw", max_iterations=2000)
    assert again.public_key().public_bytes_raw() == key.public_key().public_bytes_raw()
    with pytest.raises(ValueError):
        ed25519.Ed25519PrivateKey.from_pem(pem, password="pw", max_iterations=0)
    over = sm2.SM2PrivateKey.generate().to_pem(password="pw", iterations=600_001)
    with pytest.raises(KuaisuoError) as info:
        sm2.SM2PrivateKey.from_pem(over, password="pw")
    assert info.value.code == -52
    assert sm2.SM2PrivateKey.from_pem(over, password="pw", max_iterations=600_001)
    # The CLI: --max-iter, and a message that says how to allow more.
    path = tmp_path / "k.pem"
    path.write_text(pem)
    r = run("ed25519", "pubkey", "--key", str(path), "--passin", "pass:pw", "--max-iter", "100")
    assert r.returncode == 2 and b"--max-iter" in r.stderr, r.stderr
    r = run("ed25519", "pubkey", "--key", str(path), "--passin", "pass:pw")
    assert r.returncode == 0, r.stderr


def test_a_short_seed_is_named_as_such_not_as_an_sm2_scalar():
    from kuaisuo import KuaisuoError, ed25519, x25519
    for make, words in ((ed25519.Ed25519PrivateKey.from_private_bytes, "32-byte seed"),
                        (x25519.X25519PrivateKey.from_private_bytes, "32 bytes")):
        with pytest.raises(KuaisuoError) as info:
            make(bytes(31))
        assert words in str(info.value) and "SM2" not in str(info.value)
