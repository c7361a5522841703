"""The README's Python examples type-check under mypy against the package's
stubs (py.typed, _native.pyi), with numpy inputs where the docs accept
them: what a user's CI running mypy on code copied from the README sees."""

import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("mypy")
README = pathlib.Path(__file__).resolve().parents[2] / "README.md"

# The names the README's snippets leave to the reader, with the types the
# docs give them (numpy arrays where they say numpy is accepted).
PREAMBLE = '''\
import numpy as np
from kuaisuo.ed25519 import Ed25519PrivateKey as _Ed
from kuaisuo.x25519 import X25519PrivateKey as _X

data = np.zeros(4096, dtype=np.uint8)
offsets = np.array([0, 100, 4096], dtype=np.uint64)
pem = b"-----BEGIN ENCRYPTED PRIVATE KEY-----..."
_eks = [_Ed.generate() for _ in range(2)]
pubs = [k.public_key() for k in _eks]
msgs = [b"a", b"b"]
private_keys = np.zeros((2, 32), dtype=np.uint8)
peers = [_X.generate().public_key() for _ in range(2)]
key16, iv16, nonce12, counter0 = bytes(16), bytes(16), bytes(12), bytes(16)
nonces = [bytes(12), bytes(12)]
tweakey32, tweaks, blocks = bytes(32), bytes(32), bytes(32)
aad = b""
'''

EXTRA = '''
digests = np.zeros((2, 32), dtype=np.uint8)
statuses: list[int] = ctx.sm2.verify_digests(key.public_key(), digests,
                                             ctx.sm2.sign_digests(key, digests))
flat_ok: list[int] = ctx.sm2.verify(key.public_key(), data, sigs, offsets=offsets)
ok_rows: np.ndarray = ctx.sm2.verify(key.public_key(), [b"a"], ctx.sm2.sign(key, [b"a"],
                                     encoding="raw", as_numpy=True), encoding="raw", as_numpy=True)
'''


def python_blocks(text):
    return "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))


def test_readme_examples_type_check(tmp_path):
    code = PREAMBLE + python_blocks(README.read_text()) + EXTRA
    src = tmp_path / "readme_examples.py"
    src.write_text(code)
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--python-version",
                        f"{sys.version_info.major}.{sys.version_info.minor}", str(src)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_package_type_checks(tmp_path):
    # Optional dependencies (matplotlib for --plot, the speed peers, the
    # serve extra) may be absent: the packages import them lazily, so mypy
    # may not find them. kuaisuo_serve ships in the same wheel.
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                        "--ignore-missing-imports", "-p", "kuaisuo", "-p", "kuaisuo_serve"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_strict_mypy_catches_a_mode_or_encoding_that_does_not_exist(tmp_path):
    """Modes, encodings, schemes and PRFs are Literal types: a user's
    `mypy --strict` flags mode="xts" where the library would raise."""
    good = ('from kuaisuo import sm2, sm4, skinny\n'
            'k = bytes(16)\n'
            'sm4.encrypt(k, b"x", mode="ctr", iv=k)\n'
            'skinny.encrypt(bytes(32), b"x", mode="ecb")\n'
            'key = sm2.SM2PrivateKey.generate()\n'
            'key.public_key().verify(key.sign(b"m", encoding="raw"), b"m", encoding="raw")\n'
            'key.to_pem("pw", scheme="sm4-cbc", prf="sha256")\n')
    bad = {'sm4.encrypt(k, b"x", mode="xts", iv=k)': "mode",
           'skinny.encrypt(bytes(32), b"x", mode="cbc")': "mode",
           'key.public_key().verify(b"", b"m", encoding="base64")': "encoding",
           'key.to_pem("pw", scheme="des-cbc")': "scheme",
           'key.to_pem("pw", prf="md5")': "prf"}
    # One mypy run over one file a case (a run costs seconds): the good
    # file type-checks, each bad one fails on its own argument.
    cases = [("", None), *bad.items()]
    for i, (extra, _) in enumerate(cases):
        (tmp_path / f"user{i}.py").write_text(good + extra + "\n")
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                        *[f"user{i}.py" for i in range(len(cases))]],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    for i, (extra, argument) in enumerate(cases):
        errors = [line for line in r.stdout.splitlines() if line.startswith(f"user{i}.py:")]
        if argument is None:
            assert errors == [], errors
        else:
            assert any(f'"{argument}"' in line for line in errors), (extra, r.stdout)


def test_device_array_calls_type_check(tmp_path):
    """With an array in GPU memory (what CuPy and PyTorch present: a
    __cuda_array_interface__), the batch methods' overloads accept stream=
    and out= and give the tuples the calls return; numpy inputs keep the
    host types."""
    code = '''\
from typing import Any, Dict, List, Tuple
import numpy as np
import kuaisuo
from kuaisuo.sm2 import SM2PrivateKey

class Dev:
    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        return {}

d = Dev()
ctx = kuaisuo.Context("gpu")
key = SM2PrivateKey.generate()
pair: Tuple[Any, Any] = ctx.sm3.hash(d, d, stream=0)
pair = ctx.sm2.sign(key, d, offsets=d, encoding="raw", stream=0)
pair = ctx.sm2.sign_digests(key, d, encoding="raw", out=d)
pair = ctx.x25519.derive(d, d, stream=0)
status: Any = ctx.sm2.verify(d, d, d, encoding="raw", offsets=d, stream=0)
status = ctx.sm2.verify_digests(d, d, d, encoding="raw", out=d)
status = ctx.ed25519.verify(d, d, d, offsets=d, stream=0)
host: List[bytes] = ctx.sm3.hash([b"a"])
rows: np.ndarray = ctx.sm3.hash(np.zeros(4, np.uint8), np.array([0, 4], np.uint64),
                                as_numpy=True)
'''
    src = tmp_path / "device_calls.py"
    src.write_text(code)
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", str(src)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
