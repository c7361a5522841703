"""SM3 / HMAC-SM3 from Python: standard vectors, the `cryptography` package
(and hashlib's OpenSSL, where it has SM3) as independent oracles, buffer
types, and errors."""

import hashlib
import hmac as std_hmac
import os
import pickle
import subprocess
import sys
import textwrap
import threading
from array import array

import pytest

import kuaisuo
from conftest import requires_gpu

np = pytest.importorskip("numpy")

ABC = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
ABCD16 = "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"


def oracle_sm3(data: bytes) -> bytes:
    hashes = pytest.importorskip("cryptography.hazmat.primitives.hashes")
    h = hashes.Hash(hashes.SM3())
    h.update(data)
    return h.finalize()


def oracle_hmac_sm3(key: bytes, data: bytes) -> bytes:
    hashes = pytest.importorskip("cryptography.hazmat.primitives.hashes")
    hmac_mod = pytest.importorskip("cryptography.hazmat.primitives.hmac")
    h = hmac_mod.HMAC(key, hashes.SM3())
    h.update(data)
    return h.finalize()


def test_standard_vectors():  # GB/T 32905-2016 appendix A
    assert kuaisuo.sm3(b"abc").hex() == ABC
    assert kuaisuo.sm3(b"abcd" * 16).hex() == ABCD16
    assert kuaisuo.SM3(b"abc").hexdigest() == ABC


def test_every_length_against_cryptography():
    data = os.urandom(4097)
    for n in range(len(data)):
        assert kuaisuo.sm3(data[:n]) == oracle_sm3(data[:n]), n


@pytest.mark.skipif("sm3" not in hashlib.algorithms_available, reason="hashlib lacks sm3")
def test_against_hashlib_openssl():
    for n in (0, 1, 63, 64, 65, 1000, 3 << 20):
        data = os.urandom(n)
        assert kuaisuo.sm3(data) == hashlib.new("sm3", data).digest()


def test_mebibytes_against_cryptography():
    data = os.urandom((2 << 20) + 5)
    assert kuaisuo.sm3(data) == oracle_sm3(data)


def test_streaming_every_split_and_copy():
    data = os.urandom(200)
    want = oracle_sm3(data)
    for cut in range(len(data) + 1):
        h = kuaisuo.SM3()
        h.update(data[:cut])
        fork = h.copy()
        h.update(data[cut:])
        assert h.digest() == want
        assert h.digest() == want  # digest() does not end the hash
        fork.update(data[cut:])
        assert fork.digest() == want


@pytest.mark.parametrize("make, oneshot", [
    (lambda: kuaisuo.SM3(), kuaisuo.sm3),
    (lambda: kuaisuo.HmacSM3(b"key"), lambda data: kuaisuo.hmac_sm3(b"key", data)),
], ids=["sm3", "hmac-sm3"])
def test_threads_sharing_one_streaming_object(make, oneshot):
    # Large updates release the GIL; the object's lock keeps them whole.
    # Every thread feeds the same chunk, so any interleaving of whole
    # updates gives the same digest, and a torn one (two threads inside
    # one state) almost surely does not. digest() and copy() run meanwhile.
    chunk = os.urandom((1 << 16) + 13)
    feeders, per_feeder = 4, 100
    want = oneshot(chunk * (feeders * per_feeder))
    for _ in range(3):
        h = make()
        start = threading.Barrier(feeders + 1)

        def feed():
            start.wait()
            for _ in range(per_feeder):
                h.update(chunk)

        def read():
            start.wait()
            for _ in range(50):
                h.copy().digest()
                h.digest()

        workers = [threading.Thread(target=feed) for _ in range(feeders)]
        workers.append(threading.Thread(target=read))
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert h.digest() == want


def test_hmac_against_cryptography():
    for key_len in (0, 1, 32, 64, 65, 150):
        key = os.urandom(key_len)
        for n in (0, 3, 64, 1000):
            data = os.urandom(n)
            want = oracle_hmac_sm3(key, data)
            assert kuaisuo.hmac_sm3(key, data) == want
            h = kuaisuo.HmacSM3(key)
            h.update(data[: n // 2])
            h.update(data[n // 2:])
            assert h.digest() == want


def test_hmac_matches_stdlib_hmac_construction():
    # Python's hmac module over our hash: an independent HMAC construction.
    class Wrapped:
        digest_size, block_size = 32, 64

        def __init__(self, data=b""):
            self._h = kuaisuo.SM3(data)

        def update(self, d):
            self._h.update(d)

        def digest(self):
            return self._h.digest()

        def copy(self):
            c = Wrapped()
            c._h = self._h.copy()
            return c

    key, data = os.urandom(100), os.urandom(333)
    assert kuaisuo.hmac_sm3(key, data) == std_hmac.new(key, data, Wrapped).digest()


def test_buffer_types_are_read_in_place():
    data = os.urandom(1000)
    want = kuaisuo.sm3(data)
    assert kuaisuo.sm3(bytearray(data)) == want
    assert kuaisuo.sm3(memoryview(data)) == want
    assert kuaisuo.sm3(np.frombuffer(data, dtype=np.uint8)) == want
    assert kuaisuo.sm3(np.frombuffer(data, dtype=np.uint32)) == want  # bytes, not items
    assert kuaisuo.sm3(memoryview(data)[10:20]) == kuaisuo.sm3(data[10:20])


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="bytes-like"):
        kuaisuo.sm3("text")
    with pytest.raises(TypeError):
        kuaisuo.sm3(None)
    strided = np.arange(100, dtype=np.uint8)[::2]
    with pytest.raises(TypeError, match="C-contiguous"):
        kuaisuo.sm3(strided)
    with pytest.raises(TypeError):
        kuaisuo.hmac_sm3(1234, b"x")


def random_messages(count, max_len=500):
    return [os.urandom(0 if i % 5 == 0 else int.from_bytes(os.urandom(2), "little") % max_len)
            for i in range(count)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_cpu_batch(threads):
    ctx = kuaisuo.Context(backend="cpu", threads=threads)
    assert ctx.backend == "cpu" and ctx.threads == threads
    msgs = random_messages(2000)
    assert ctx.sm3.hash(msgs) == [oracle_sm3(m) for m in msgs]
    assert ctx.sm3.hash([]) == []


def test_flat_batch_with_numpy_offsets():
    ctx = kuaisuo.Context(backend="cpu")
    msgs = random_messages(300)
    data = b"".join(msgs)
    offsets = np.cumsum([0] + [len(m) for m in msgs]).astype(np.uint64)
    flat = b"".join(ctx.sm3.hash(data, offsets))
    assert [flat[32 * i: 32 * i + 32] for i in range(len(msgs))] == [oracle_sm3(m) for m in msgs]
    assert b"".join(ctx.sm3.hash(data, offsets.astype(np.int64))) == flat
    assert b"".join(ctx.sm3.hash(data, array("Q", offsets.tolist()))) == flat


def test_flat_batch_unaligned_offsets_and_empty_batch():
    """Offsets in an 8-byte buffer that is not 8-byte aligned (a memoryview
    one byte into a bytearray) give the same digests as a numpy array, and
    an empty batch gives empty bytes (the results' bytes object is made
    before the call fills it)."""
    ctx = kuaisuo.Context(backend="cpu")
    msgs = random_messages(200)
    data = b"".join(msgs)
    offsets = np.cumsum([0] + [len(m) for m in msgs]).astype(np.uint64)
    raw = bytearray(1) + bytearray(offsets.tobytes())
    unaligned = memoryview(raw)[1:].cast("Q")
    expected = b"".join(oracle_sm3(m) for m in msgs)
    assert b"".join(ctx.sm3.hash(data, offsets)) == expected
    assert b"".join(ctx.sm3.hash(data, unaligned)) == expected
    assert b"".join(ctx.sm3.hash(data, np.array([0], dtype=np.uint64))) == b""


def test_flat_batch_rejects_bad_offsets():
    ctx = kuaisuo.Context(backend="cpu")
    with pytest.raises(kuaisuo.KuaisuoError) as e:
        b"".join(ctx.sm3.hash(b"abc", np.array([0, 5], dtype=np.uint64)))
    assert e.value.args[0] == -5 and "offsets" in e.value.args[1]
    with pytest.raises(kuaisuo.KuaisuoError):
        b"".join(ctx.sm3.hash(b"abcdef", np.array([0, 4, 2], dtype=np.uint64)))
    with pytest.raises(ValueError, match="negative"):
        b"".join(ctx.sm3.hash(b"abc", np.array([0, -1], dtype=np.int64)))
    with pytest.raises(ValueError, match="negative"):
        b"".join(ctx.sm3.hash(b"abc", np.array([0, 1, 2, -3, 3], dtype=np.int64)))
    with pytest.raises(TypeError, match="8-byte"):
        b"".join(ctx.sm3.hash(b"abc", np.array([0, 3], dtype=np.uint32)))
    with pytest.raises(ValueError, match="count"):
        b"".join(ctx.sm3.hash(b"abc", np.array([], dtype=np.uint64)))


def test_context_arguments():
    with pytest.raises(ValueError, match="backend"):
        kuaisuo.Context(backend="tpu")
    with pytest.raises(ValueError):
        kuaisuo.Context(threads=-1)
    if kuaisuo.gpu_device_count() == 0:
        with pytest.raises(kuaisuo.BackendUnavailableError):
            kuaisuo.Context(backend="gpu")
        assert kuaisuo.Context(backend="auto").backend == "cpu"


CONTEXT_WITHOUT_THREADS = textwrap.dedent("""
    import resource
    import kuaisuo
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vm + (64 << 20), hard))
    try:
        kuaisuo.Context(backend="cpu", threads=256)  # 256 stacks of 8 MiB do not fit
    except kuaisuo.KuaisuoError as e:
        print("error", e.code)
    else:
        print("created")
""")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_context_whose_threads_cannot_start_raises():
    # It used to hang, holding the GIL; now the library says why it failed.
    try:
        r = subprocess.run([sys.executable, "-c", CONTEXT_WITHOUT_THREADS], capture_output=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("kuaisuo.Context() hung when its threads could not be created")
    assert r.returncode >= 0, f"crashed with signal {-r.returncode}: {r.stderr.decode()}"
    out = r.stdout.decode().strip()
    if out == "created":
        pytest.skip("the address-space limit did not stop the threads here")
    assert r.returncode == 0 and out.startswith("error "), r.stderr.decode()


def test_error_code_message_and_str():
    ctx = kuaisuo.Context(backend="cpu")
    with pytest.raises(kuaisuo.KuaisuoError) as info:
        b"".join(ctx.sm3.hash(b"abc", np.array([0, 5], dtype=np.uint64)))
    e = info.value
    assert e.code == -5 and e.message == kuaisuo.strerror(-5)
    assert e.args == (e.code, e.message)  # as before, for callers that unpack args
    assert str(e) == f"{e.message} (code -5)"
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is kuaisuo.KuaisuoError and str(again) == str(e) and again.code == -5
    if kuaisuo.gpu_device_count() == 0:
        with pytest.raises(kuaisuo.BackendUnavailableError) as info:
            kuaisuo.Context(backend="gpu")
        assert info.value.code == -7 and str(info.value).endswith("(code -7)")
    by_hand = kuaisuo.KuaisuoError("something else")
    assert str(by_hand) == "something else" and by_hand.code is None
    assert by_hand.message is None


@requires_gpu
def test_gpu_batch_matches_cpu():
    gpu, cpu = kuaisuo.Context(backend="gpu"), kuaisuo.Context(backend="cpu")
    msgs = random_messages(50000, 300)
    assert gpu.sm3.hash(msgs) == cpu.sm3.hash(msgs)
