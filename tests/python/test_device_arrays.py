"""Arrays already in GPU memory (kuaisuo._device; README "Data on the
GPU"): SM4 ECB/CTR/GCM buffers and batches of every mode, SKINNY buffers
and batches, Ed25519 signing and verification, SM2 keygen, signing,
digests with per-item IDs, encryption and decryption, Ed25519/X25519 key batches on CuPy arrays and
PyTorch CUDA tensors against the CPU context byte for byte on fresh random
inputs, in place and on user streams; the PyTorch state_dict round trip
of the README; clear errors for non-contiguous, wrong-dtype, mixed host
and device arguments and CPU contexts. The first tests need no GPU (the
package works without CuPy and PyTorch); the rest skip without a GPU and
the array library they use."""

import os
import sys

import numpy as np
import pytest

import kuaisuo
from kuaisuo import _device
from conftest import requires_gpu


class _HostInterface:
    """An object that claims __cuda_array_interface__ (over host memory,
    never dereferenced): what the Python layer sees of a device array."""

    def __init__(self, nbytes):
        self._buf = np.zeros(nbytes, np.uint8)
        self.__cuda_array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "data": (self._buf.ctypes.data, False),
            "version": 3, "strides": None, "stream": None}


def test_host_data_keeps_working_and_imports_no_array_library():
    ctx = kuaisuo.Context("cpu", threads=2)
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(1000)
    ct = ctx.sm4.encrypt_buffer(key, data, mode="ctr", iv=iv)
    assert ct == kuaisuo.sm4.encrypt(key, data, mode="ctr", iv=iv)
    sealed, tag = ctx.sm4.gcm_seal_buffer(key, iv[:12], data, b"aad")
    assert sealed + tag == kuaisuo.sm4.SM4GCM(key).encrypt(iv[:12], data, b"aad")
    assert ctx.sm4.gcm_open_buffer(key, iv[:12], sealed, tag, b"aad") == data
    with pytest.raises(kuaisuo.InvalidTag):
        ctx.sm4.gcm_open_buffer(key, iv[:12], sealed, bytes(16), b"aad")
    assert not _device.is_device(data) and not _device.is_device(np.zeros(4, np.uint8))
    if "torch" not in sys.modules:
        assert "cupy" not in sys.modules


def test_device_only_arguments_are_refused_for_host_data():
    ctx = kuaisuo.Context("cpu", threads=1)
    with pytest.raises(TypeError, match="GPU memory"):
        ctx.sm4.encrypt_buffer(bytes(16), bytes(32), mode="ecb", out=bytearray(32))
    with pytest.raises(TypeError, match="GPU memory"):
        ctx.skinny.encrypt_buffer(bytes(32), bytes(16), mode="ecb", stream=0)


def test_device_arrays_need_a_gpu_context():
    ctx = kuaisuo.Context("cpu", threads=1)
    fake = _HostInterface(64)
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.sm4.encrypt_buffer(bytes(16), fake, mode="ecb", out=_HostInterface(64))
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.ed25519.verify(_HostInterface(32), fake, _HostInterface(64),
                           offsets=_HostInterface(16))
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.sm4.encrypt(_HostInterface(16), fake, mode="ctr", ivs=_HostInterface(16),
                        offsets=_HostInterface(16))
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.sm4.gcm_decrypt(_HostInterface(16), _HostInterface(12), fake,
                            offsets=_HostInterface(16), tags=_HostInterface(16))
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.ed25519.sign(_HostInterface(32), fake, offsets=_HostInterface(16))
    key = kuaisuo.sm2.SM2PrivateKey.generate()
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.sm2.sign(key, fake, offsets=_HostInterface(16), encoding="raw")
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.sm2.encrypt(fake, key.public_key(), offsets=_HostInterface(16))
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.sm2.keygen(2, out=(_HostInterface(64), _HostInterface(130)))
    with pytest.raises(kuaisuo.BackendUnavailableError, match="context with a GPU"):
        ctx.x25519.public_keys(fake)


def test_strided_interfaces_are_refused():
    fake = _HostInterface(64)
    fake.__cuda_array_interface__ = dict(fake.__cuda_array_interface__, shape=(32,),
                                         strides=(2,))
    with pytest.raises(ValueError, match="C-contiguous"):
        _device.view(fake, "data", 0)


# --- On a GPU --------------------------------------------------------------


def _gpu_ctx():
    ctx = kuaisuo.Context("gpu", threads=4)
    return ctx, kuaisuo.Context("cpu")


def _random_messages(rng, n):
    """n random messages of 0..199 bytes: (flat uint8 data, n + 1 uint64
    offsets)."""
    offsets = np.zeros(n + 1, np.uint64)
    offsets[1:] = np.cumsum(rng.integers(0, 200, n))
    return np.frombuffer(os.urandom(int(offsets[-1])), np.uint8).copy(), offsets


@pytest.fixture(scope="module")
def contexts():
    if kuaisuo.gpu_device_count() == 0:
        pytest.skip("no CUDA device")
    return _gpu_ctx()


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    return torch


SIZES = [1, 15, 16, 17, 1000, 16 * 1024 + 5, 1 << 20, (64 << 20) + 7]


@requires_gpu
@pytest.mark.parametrize("size", SIZES)
def test_sm4_ctr_and_ecb_on_cupy_match_the_cpu(contexts, cp, size):
    gpu, cpu = contexts
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(size)
    d = cp.asarray(np.frombuffer(data, np.uint8))
    ct = gpu.sm4.encrypt_buffer(key, d, mode="ctr", iv=iv)
    assert isinstance(ct, cp.ndarray) and ct.device == d.device
    assert ct.get().tobytes() == cpu.sm4.encrypt_buffer(key, data, mode="ctr", iv=iv)
    gpu.sm4.decrypt_buffer(key, ct, mode="ctr", iv=iv, out=ct)  # in place
    assert ct.get().tobytes() == data
    whole = size // 16 * 16
    e = gpu.sm4.encrypt_buffer(key, d[:whole], mode="ecb", tables=size % 2 == 1)
    assert e.get().tobytes() == cpu.sm4.encrypt_buffer(key, data[:whole], mode="ecb")


@requires_gpu
def test_one_gib_in_place_on_cupy(contexts, cp):
    gpu, cpu = contexts
    key, iv = os.urandom(16), os.urandom(16)
    d = cp.random.randint(0, 256, size=1 << 30, dtype=cp.uint8)
    want = cpu.sm4.encrypt_buffer(key, d.get(), mode="ctr", iv=iv)
    gpu.sm4.encrypt_buffer(key, d, mode="ctr", iv=iv, out=d)
    assert d.get().tobytes() == want


@requires_gpu
def test_user_streams_order_the_work(contexts, cp):
    gpu, cpu = contexts
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(8 << 20)
    host = np.frombuffer(data, np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        d = cp.empty(len(data), cp.uint8)
        d.set(host, stream=stream)  # queued before the call, on the same stream
        ct = gpu.sm4.encrypt_buffer(key, d, mode="ctr", iv=iv)
        after = ct.copy()  # queued after it
    stream.synchronize()
    assert after.get().tobytes() == cpu.sm4.encrypt_buffer(key, data, mode="ctr", iv=iv)
    other = cp.cuda.Stream(non_blocking=True)
    out = cp.zeros_like(d)
    gpu.sm4.encrypt_buffer(key, d, mode="ctr", iv=iv, out=out, stream=other)
    other.synchronize()
    assert out.get().tobytes() == after.get().tobytes()


class _InterfaceOnly:
    """A device array seen only through __cuda_array_interface__, its
    "stream" the producer's (None: nothing to wait for)."""

    def __init__(self, array, stream):
        self.__cuda_array_interface__ = dict(array.__cuda_array_interface__, stream=stream)


_SPIN_COPY = r"""
extern "C" __global__ void spin_copy(const unsigned char* src, unsigned char* dst,
                                     unsigned long long n, long long cycles) {
  if (threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
  }
  __syncthreads();
  for (unsigned long long i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}
"""


@requires_gpu
def test_cuda_array_interface_producer_stream_is_waited_for(contexts, cp):
    """The data arrives on the producer's stream behind a kernel that spins
    ~0.1 s; the call on another stream must wait for it (an event), or it
    would encrypt the zeros that were there before."""
    gpu, cpu = contexts
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(1 << 20)
    src = cp.asarray(np.frombuffer(data, np.uint8))
    dst, out = cp.zeros(len(data), cp.uint8), cp.zeros(len(data), cp.uint8)
    cp.cuda.Device().synchronize()
    spin = cp.RawKernel(_SPIN_COPY, "spin_copy")
    producer, consumer = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    with producer:
        spin((1,), (1024,), (src, dst, np.uint64(len(data)), np.int64(200_000_000)))
    gpu.sm4.encrypt_buffer(key, _InterfaceOnly(dst, producer.ptr), mode="ctr", iv=iv,
                           out=_InterfaceOnly(out, None), stream=consumer)
    consumer.synchronize()
    assert out.get().tobytes() == cpu.sm4.encrypt_buffer(key, data, mode="ctr", iv=iv)


@requires_gpu
@pytest.mark.parametrize("size", [0, 1, 4097, (16 << 20) + 3])
def test_sm4_gcm_on_cupy_matches_the_cpu_and_refuses_a_wrong_tag(contexts, cp, size):
    gpu, cpu = contexts
    key, nonce, data, aad = os.urandom(16), os.urandom(12), os.urandom(size), os.urandom(20)
    d = cp.asarray(np.frombuffer(data, np.uint8)) if size else cp.empty(0, cp.uint8)
    ct, tag = gpu.sm4.gcm_seal_buffer(key, nonce, d, aad)
    want_ct, want_tag = cpu.sm4.gcm_seal_buffer(key, nonce, data, aad)
    assert ct.get().tobytes() == want_ct and tag.get().tobytes() == want_tag
    assert gpu.sm4.gcm_open_buffer(key, nonce, ct, tag, aad).get().tobytes() == data
    bad = tag.copy()
    bad[0] ^= 1
    out = cp.full(size, 7, cp.uint8)
    with pytest.raises(kuaisuo.InvalidTag):
        gpu.sm4.gcm_open_buffer(key, nonce, ct, bad, aad, out=out)
    assert bool((out == 7).all())  # nothing written


@requires_gpu
def test_skinny_ctr_on_cupy_matches_the_cpu(contexts, cp):
    gpu, cpu = contexts
    tk, iv, data = os.urandom(32), os.urandom(16), os.urandom((4 << 20) + 9)
    d = cp.asarray(np.frombuffer(data, np.uint8))
    ct = gpu.skinny.encrypt_buffer(tk, d, mode="ctr", iv=iv)
    assert ct.get().tobytes() == cpu.skinny.encrypt_buffer(tk, data, mode="ctr", iv=iv)


@requires_gpu
def test_bad_device_arguments_get_clear_errors(contexts, cp):
    gpu, _ = contexts
    key, iv = os.urandom(16), os.urandom(16)
    d = cp.zeros(4096, cp.uint8)
    with pytest.raises(ValueError, match="C-contiguous"):
        gpu.sm4.encrypt_buffer(key, d[::2], mode="ctr", iv=iv)
    with pytest.raises(TypeError, match="GPU memory"):
        gpu.sm4.encrypt_buffer(key, d, mode="ctr", iv=iv, out=np.zeros(4096, np.uint8))
    with pytest.raises(ValueError, match="4096 bytes"):
        gpu.sm4.encrypt_buffer(key, d, mode="ctr", iv=iv, out=cp.zeros(4095, cp.uint8))
    with pytest.raises(kuaisuo.KuaisuoError):  # KS_ERR_ALIGNMENT
        gpu.sm4.encrypt_buffer(key, d[1:], mode="ctr", iv=iv)
    with pytest.raises(kuaisuo.KuaisuoError):  # a 16-byte nonce: not on the device
        gpu.sm4.gcm_seal_buffer(key, os.urandom(16), d)
    with pytest.raises(TypeError, match="GPU memory"):  # a host tag beside device data
        gpu.sm4.gcm_open_buffer(key, os.urandom(12), d, bytes(16))


def _signed_items(ctx, n, rng):
    """n (key, message, signature) items under 64 keys, about a quarter
    altered (key, signature or message): flat arrays and offsets."""
    keys = [kuaisuo.ed25519.Ed25519PrivateKey.generate() for _ in range(64)]
    lens = rng.integers(0, 300, n)
    offsets = np.zeros(n + 1, np.uint64)
    offsets[1:] = np.cumsum(lens)
    data = np.frombuffer(os.urandom(int(offsets[-1])), np.uint8).copy()
    which = rng.integers(0, 64, n)
    pubs = np.stack([np.frombuffer(keys[w].public_key().public_bytes_raw(), np.uint8)
                     for w in which])
    sigs = np.zeros((n, 64), np.uint8)
    for w in range(64):
        idx = np.nonzero(which == w)[0]
        msgs = [data[offsets[i]:offsets[i + 1]].tobytes() for i in idx]
        sigs[idx] = ctx.ed25519.sign(keys[w], msgs, as_numpy=True)
    bad = rng.integers(0, 12, n)
    sigs[bad == 0, 5] ^= 1
    pubs[bad == 1, 3] ^= 4
    sigs[bad == 2, 63] |= 0x80
    return pubs, data, offsets, sigs


@requires_gpu
def test_ed25519_verify_on_cupy_matches_the_cpu(contexts, cp):
    gpu, cpu = contexts
    n = 100_003
    pubs, data, offsets, sigs = _signed_items(cpu, n, np.random.default_rng())
    want = cpu.ed25519.verify(pubs, data, sigs, offsets=offsets, as_numpy=True)
    assert (want != 0).any() and (want == 0).any()
    got = gpu.ed25519.verify(cp.asarray(pubs), cp.asarray(data), cp.asarray(sigs),
                             offsets=cp.asarray(offsets))
    assert isinstance(got, cp.ndarray) and got.dtype == cp.int32
    np.testing.assert_array_equal(got.get(), want)
    bad_offsets = offsets.copy()
    bad_offsets[10] = len(data) + 5  # items 9 and 10 fall outside the data
    got = gpu.ed25519.verify(cp.asarray(pubs), cp.asarray(data), cp.asarray(sigs),
                             offsets=cp.asarray(bad_offsets)).get()
    assert got[9] == got[10] == -5  # KS_ERR_OFFSETS
    np.testing.assert_array_equal(np.delete(got, [9, 10]), np.delete(want, [9, 10]))
    with pytest.raises(TypeError, match="dtype"):
        gpu.ed25519.verify(cp.asarray(pubs), cp.asarray(data), cp.asarray(sigs),
                           offsets=cp.asarray(offsets.astype(np.int32)))
    with pytest.raises(TypeError, match="GPU memory"):
        gpu.ed25519.verify(pubs, cp.asarray(data), cp.asarray(sigs),
                           offsets=cp.asarray(offsets))


@requires_gpu
def test_torch_tensors_and_the_state_dict_round_trip(contexts, torch):
    gpu, cpu = contexts
    model = torch.nn.Sequential(torch.nn.Linear(1000, 513), torch.nn.ReLU(),
                                torch.nn.Linear(513, 10)).cuda()
    state = model.state_dict()
    before = {name: t.clone() for name, t in state.items()}
    key = os.urandom(16)
    sealed = {}
    for name, t in state.items():  # README "Data on the GPU"
        raw = t.view(-1).view(torch.uint8)
        nonce = os.urandom(12)
        _, tag = gpu.sm4.gcm_seal_buffer(key, nonce, raw, name.encode(), out=raw)
        sealed[name] = (nonce, tag)
    torch.cuda.synchronize()
    for name, t in state.items():
        assert not torch.equal(t, before[name])
        nonce, tag = sealed[name]
        want_ct, want_tag = cpu.sm4.gcm_seal_buffer(
            key, nonce, before[name].view(-1).view(torch.uint8).cpu().numpy(), name.encode())
        assert t.view(-1).view(torch.uint8).cpu().numpy().tobytes() == want_ct
        assert tag.cpu().numpy().tobytes() == want_tag
    for name, t in state.items():
        raw = t.view(-1).view(torch.uint8)
        nonce, tag = sealed[name]
        gpu.sm4.gcm_open_buffer(key, nonce, raw, tag, name.encode(), out=raw)
    for name, t in state.items():
        assert torch.equal(t, before[name])  # bit for bit
    x = torch.randn(4096, device="cuda")
    y = gpu.sm4.encrypt_buffer(key, x, mode="ctr", iv=bytes(16))
    assert isinstance(y, torch.Tensor) and y.dtype == x.dtype and y.device == x.device
    with pytest.raises(ValueError, match="C-contiguous"):
        gpu.sm4.encrypt_buffer(key, x.view(64, 64).t(), mode="ctr", iv=bytes(16))


@requires_gpu
def test_sm3_on_cupy_matches_the_cpu_and_reports_bad_offsets(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 100_003
    data, offsets = _random_messages(rng, n)
    want = cpu.sm3.hash(data, offsets, as_numpy=True)
    digests, status = gpu.sm3.hash(cp.asarray(data), cp.asarray(offsets))
    assert isinstance(digests, cp.ndarray) and digests.shape == (n, 32)
    np.testing.assert_array_equal(digests.get(), want)
    assert not status.get().any()
    bad = offsets.copy()
    bad[7] = offsets[-1] + 1  # items 6 and 7 fall outside the data
    digests, status = gpu.sm3.hash(cp.asarray(data), cp.asarray(bad))
    status, digests = status.get(), digests.get()
    assert status[6] == status[7] == -5 and not digests[6:8].any()
    np.testing.assert_array_equal(np.delete(digests, [6, 7], axis=0),
                                  np.delete(want, [6, 7], axis=0))


def _sm2_verify_on_cupy(gpu, cpu, cp, keys, gpu_keys, data, offsets, sigs, want):
    """gpu.sm2.verify of the messages and verify_digests of their digests,
    on CuPy arrays (keys as the CPU takes them, gpu_keys as the GPU call
    does), both give `want`; returns the device (data, sigs, digests)."""
    d_data, d_sigs = cp.asarray(data), cp.asarray(sigs)
    got = gpu.sm2.verify(gpu_keys, d_data, d_sigs, encoding="raw", offsets=cp.asarray(offsets))
    np.testing.assert_array_equal(got.get(), want)
    digests, _ = cpu.sm2.digests(keys, data, offsets=offsets)
    d_digests = cp.asarray(np.frombuffer(b"".join(digests), np.uint8))
    got = gpu.sm2.verify_digests(gpu_keys, d_digests, d_sigs, encoding="raw")
    np.testing.assert_array_equal(got.get(), want)
    return d_data, d_sigs, d_digests


@requires_gpu
def test_sm2_verify_on_cupy_matches_the_cpu(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 20_011
    keys = [kuaisuo.sm2.SM2PrivateKey.generate() for _ in range(16)]
    data, offsets = _random_messages(rng, n)
    pubs = np.stack([np.frombuffer(keys[i % 16].public_key().public_bytes_raw(), np.uint8)
                     for i in range(n)])
    sigs = np.zeros((n, 64), np.uint8)
    for w in range(16):
        idx = np.arange(w, n, 16)
        msgs = [data[offsets[i]:offsets[i + 1]].tobytes() for i in idx]
        signed = cpu.sm2.sign(keys[w], msgs, encoding="raw")
        sigs[idx] = np.frombuffer(b"".join(signed), np.uint8).reshape(-1, 64)
    sigs[rng.integers(0, 10, n) == 0, 7] ^= 1
    pubs[rng.integers(0, 10, n) == 0, 30] ^= 1
    want = cpu.sm2.verify(pubs, data, sigs, encoding="raw", offsets=offsets, as_numpy=True)
    assert (want == 0).any() and (want != 0).any()
    d_pubs = cp.asarray(pubs)
    d_data, d_sigs, _ = _sm2_verify_on_cupy(gpu, cpu, cp, pubs, d_pubs, data, offsets, sigs, want)
    with pytest.raises(ValueError, match="raw"):
        gpu.sm2.verify(d_pubs, d_data, d_sigs, offsets=cp.asarray(offsets))


@requires_gpu
def test_sm2_verify_under_one_key_object_on_cupy_matches_the_cpu(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    key = kuaisuo.sm2.SM2PrivateKey.generate()
    pub = key.public_key()
    for n in (1, 1000, 20_011):  # below and above the device's one-key threshold
        data, offsets = _random_messages(rng, n)
        msgs = [data[offsets[i]:offsets[i + 1]].tobytes() for i in range(n)]
        sigs = np.frombuffer(b"".join(cpu.sm2.sign(key, msgs, encoding="raw")),
                             np.uint8).reshape(-1, 64).copy()
        sigs[rng.integers(0, 10, n) == 0, 7] ^= 1
        sigs[rng.integers(0, 50, n) == 0, 32:] = 0  # s = 0: out of range
        want = cpu.sm2.verify(pub, data, sigs, encoding="raw", offsets=offsets, as_numpy=True)
        if n > 1:
            assert (want == 0).any() and (want != 0).any()
        _, d_sigs, d_digests = _sm2_verify_on_cupy(gpu, cpu, cp, pub, pub, data, offsets, sigs,
                                                   want)
    with pytest.raises(ValueError, match="raw"):
        gpu.sm2.verify_digests(pub, d_digests, d_sigs)


@requires_gpu
def test_sm2_digests_with_per_item_ids_on_cupy_match_the_cpu(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 20_011
    keys = [kuaisuo.sm2.SM2PrivateKey.generate().public_key().public_bytes_raw()
            for _ in range(16)]
    pubs = np.stack([np.frombuffer(keys[i % 16], np.uint8) for i in range(n)])
    pubs[rng.integers(0, 10, n) == 0, 40] ^= 1  # off the curve
    data, offsets = _random_messages(rng, n)
    ids = [os.urandom(int(k)) for k in rng.integers(0, 40, n)]
    ids[5] = bytes(8192)  # past ENTL's 16 bits
    want, want_status = cpu.sm2.digests(pubs, data, ids, offsets=offsets)
    id_offsets = np.zeros(n + 1, np.uint64)
    id_offsets[1:] = np.cumsum([len(i) for i in ids])
    flat_ids = np.frombuffer(b"".join(ids), np.uint8)
    got, status = gpu.sm2.digests(cp.asarray(pubs), cp.asarray(data), cp.asarray(flat_ids),
                                  offsets=cp.asarray(offsets), id_offsets=cp.asarray(id_offsets))
    np.testing.assert_array_equal(status.get(), want_status)
    assert want_status[5] != 0 and sum(1 for s in want_status if s == 0) > n // 2
    ok = np.array(want_status) == 0
    assert got.shape == (n, 32)
    np.testing.assert_array_equal(got.get()[ok], np.frombuffer(b"".join(
        w for w, s in zip(want, want_status) if s == 0), np.uint8).reshape(-1, 32))
    assert not got.get()[~ok].any()
    with pytest.raises(ValueError, match="id_offsets"):
        gpu.sm2.digests(cp.asarray(pubs), cp.asarray(data), cp.asarray(flat_ids),
                        offsets=cp.asarray(offsets))


@requires_gpu
def test_x25519_derive_on_cupy_matches_the_cpu(contexts, cp):
    gpu, cpu = contexts
    n = 50_001
    keys = np.frombuffer(os.urandom(32 * n), np.uint8).reshape(n, 32)
    peers = np.frombuffer(os.urandom(32 * n), np.uint8).reshape(n, 32).copy()
    peers[::997] = 0  # small order: a zero secret, -46
    for private in (keys, keys[0]):
        want, want_status = cpu.x25519.derive(private.tobytes() if private.ndim == 1 else private,
                                              peers, as_numpy=True)
        shared, status = gpu.x25519.derive(cp.asarray(private), cp.asarray(peers))
        np.testing.assert_array_equal(shared.get(), want)
        np.testing.assert_array_equal(status.get(), want_status)


@requires_gpu
@pytest.mark.parametrize("alg,mode", [("sm4", m) for m in ("ecb", "cbc", "cfb", "ofb", "ctr")] +
                         [("skinny", "ecb"), ("skinny", "ctr")])
def test_cipher_batches_on_cupy_match_the_cpu(contexts, cp, alg, mode):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 20_011
    lengths = rng.integers(0, 1500, n)
    if mode in ("ecb", "cbc"):
        lengths -= lengths % 16
    offsets = np.zeros(n + 1, np.uint64)
    offsets[1:] = np.cumsum(lengths)
    data = np.frombuffer(os.urandom(int(offsets[-1])), np.uint8)
    key_len = 32 if alg == "skinny" else 16
    keys = np.frombuffer(os.urandom(key_len * n), np.uint8).reshape(n, key_len)
    ivs = None if mode == "ecb" else np.frombuffer(os.urandom(16 * n), np.uint8).reshape(n, 16)
    want, want_status = getattr(cpu, alg).encrypt(keys, data, mode=mode, ivs=ivs, offsets=offsets)
    d_ivs = None if ivs is None else cp.asarray(ivs)
    batch = getattr(gpu, alg)
    out, status = batch.encrypt(cp.asarray(keys), cp.asarray(data), mode=mode, ivs=d_ivs,
                                offsets=cp.asarray(offsets))
    assert isinstance(out, cp.ndarray) and not status.get().any() and not any(want_status)
    assert out.get().tobytes() == b"".join(want)
    back, status = batch.decrypt(cp.asarray(keys), out, mode=mode, ivs=d_ivs,
                                 offsets=cp.asarray(offsets), out=out)  # in place
    assert back is out and not status.get().any()
    assert out.get().tobytes() == data.tobytes()


@requires_gpu
def test_sm4_gcm_batches_on_cupy_match_the_cpu_and_fail_alone(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 5003
    messages = [os.urandom(int(k)) for k in rng.integers(0, 900, n)]
    aads = [os.urandom(int(k)) for k in rng.integers(0, 40, n)]
    keys = np.frombuffer(os.urandom(16 * n), np.uint8).reshape(n, 16)
    nonces = np.frombuffer(os.urandom(12 * n), np.uint8).reshape(n, 12)
    sealed, st = cpu.sm4.gcm_encrypt(keys, nonces, messages, aads)
    assert not any(st)

    def flat(items):
        offs = np.zeros(len(items) + 1, np.uint64)
        offs[1:] = np.cumsum([len(x) for x in items])
        return cp.asarray(np.frombuffer(b"".join(items) or b"\0", np.uint8)[:int(offs[-1])]), \
            cp.asarray(offs)

    data, offsets = flat(messages)
    aad, aad_offsets = flat(aads)
    ct, tags, status = gpu.sm4.gcm_encrypt(cp.asarray(keys), cp.asarray(nonces), data, aad,
                                           offsets=offsets, aad_offsets=aad_offsets)
    assert not status.get().any() and tags.shape == (n, 16)
    assert ct.get().tobytes() == b"".join(s[:-16] for s in sealed)
    assert tags.get().tobytes() == b"".join(s[-16:] for s in sealed)
    bad = tags.copy()
    bad[::9, 0] ^= 1
    plain, status = gpu.sm4.gcm_decrypt(cp.asarray(keys), cp.asarray(nonces), ct, aad,
                                        offsets=offsets, aad_offsets=aad_offsets, tags=bad,
                                        out=cp.zeros_like(ct))
    status, plain = status.get(), plain.get().tobytes()
    offs = offsets.get()
    for i in range(n):
        got = plain[offs[i]:offs[i + 1]]
        if i % 9 == 0:
            assert status[i] == -49  # KS_ERR_TAG_MISMATCH
            assert got == bytes(len(got)), f"item {i} released plaintext under a wrong tag"
        else:
            assert status[i] == 0 and got == messages[i]
    with pytest.raises(ValueError, match="tags="):
        gpu.sm4.gcm_decrypt(cp.asarray(keys), cp.asarray(nonces), ct, offsets=offsets)


@requires_gpu
def test_ed25519_sign_on_cupy_matches_the_cpu(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 30_001
    data, offsets = _random_messages(rng, n)
    key = kuaisuo.ed25519.Ed25519PrivateKey.generate()
    seeds = np.frombuffer(os.urandom(32 * n), np.uint8).reshape(n, 32)
    for keys, d_keys in ((key, key), (seeds, cp.asarray(seeds))):
        want = cpu.ed25519.sign(keys, data, offsets=offsets, as_numpy=True)
        sigs, status = gpu.ed25519.sign(d_keys, cp.asarray(data), offsets=cp.asarray(offsets))
        assert isinstance(sigs, cp.ndarray) and sigs.shape == (n, 64)
        assert not status.get().any()
        np.testing.assert_array_equal(sigs.get(), want)
    bad = offsets.copy()
    bad[5] = offsets[-1] + 1  # items 4 and 5 fall outside the messages
    out = cp.zeros((n, 64), cp.uint8)
    _, status = gpu.ed25519.sign(key, cp.asarray(data), offsets=cp.asarray(bad), out=out)
    status = status.get()
    assert status[4] == status[5] == -5 and not out[4:6].get().any()
    assert not np.delete(status, [4, 5]).any()


@requires_gpu
def test_sm2_keygen_and_signing_on_cupy_verify_on_the_cpu(contexts, cp):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    n = 20_011
    d, pubs = cp.empty((n, 32), cp.uint8), cp.empty((n, 65), cp.uint8)
    _, _, status = gpu.sm2.keygen(n, out=(d, pubs))
    assert not status.get().any()
    d_host, pubs_host = d.get(), pubs.get()
    for i in rng.integers(0, n, 50):  # [d]G on the CPU
        key = kuaisuo.sm2.SM2PrivateKey.from_private_bytes(d_host[i].tobytes())
        assert key.public_key().public_bytes_raw() == pubs_host[i].tobytes()
    key = kuaisuo.sm2.SM2PrivateKey.generate()
    one_pub = np.tile(np.frombuffer(key.public_key().public_bytes_raw(), np.uint8), (n, 1))
    data, offsets = _random_messages(rng, n)
    sigs, status = gpu.sm2.sign(key, cp.asarray(data), offsets=cp.asarray(offsets),
                                encoding="raw")
    assert isinstance(sigs, cp.ndarray) and sigs.shape == (n, 64) and not status.get().any()
    assert not cpu.sm2.verify(one_pub, data, sigs.get(), encoding="raw", offsets=offsets,
                              as_numpy=True).any()
    e = np.frombuffer(os.urandom(32 * n), np.uint8).reshape(n, 32)
    sigs, status = gpu.sm2.sign_digests(key, cp.asarray(e), encoding="raw")
    assert not status.get().any()
    assert not cpu.sm2.verify_digests(one_pub, e, sigs.get(), encoding="raw",
                                      as_numpy=True).any()
    empty_offsets = cp.zeros(5, cp.uint64)  # four empty messages: a data array of 0 bytes
    sigs, status = gpu.sm2.sign(key, cp.zeros(0, cp.uint8), offsets=empty_offsets,
                                encoding="raw")
    assert not status.get().any()
    assert not cpu.sm2.verify(one_pub[:4], b"", sigs.get(), encoding="raw",
                              offsets=np.zeros(5, np.uint64), as_numpy=True).any()
    with pytest.raises(ValueError, match="raw"):
        gpu.sm2.sign_digests(key, cp.asarray(e))
    with pytest.raises(ValueError, match="random nonces"):
        gpu.sm2.sign_digests(key, cp.asarray(e), encoding="raw", deterministic=True)


@requires_gpu
@pytest.mark.parametrize("form", ["c1c3c2", "c1c2c3", "der"])
def test_sm2_encryption_on_cupy_opens_on_the_cpu_and_back(contexts, cp, form):
    gpu, cpu = contexts
    rng = np.random.default_rng()
    key = kuaisuo.sm2.SM2PrivateKey.generate()
    msgs = [os.urandom(int(k)) for k in rng.integers(0, 300, 5_003)] + [os.urandom(1)] * 500
    n = len(msgs)
    offsets = np.zeros(n + 1, np.uint64)
    offsets[1:] = np.cumsum([len(m) for m in msgs])
    data = cp.asarray(np.frombuffer(b"".join(msgs), np.uint8))
    out, lengths, status = gpu.sm2.encrypt(data, key.public_key(), format=form,
                                           offsets=cp.asarray(offsets))
    assert not status.get().any()  # the 1-byte messages' all-zero t drawn again on the device
    extra = kuaisuo._native.sm2_ciphertext_bound(0, ["c1c3c2", "c1c2c3", "der"].index(form))
    out_h, lens = out.get(), lengths.get()
    cts = [out_h[int(offsets[i]) + i * extra:][:int(lens[i])].tobytes() for i in range(n)]
    assert cpu.sm2.decrypt(key, cts, format=form) == msgs
    ct_offsets = np.zeros(n + 1, np.uint64)
    ct_offsets[1:] = np.cumsum([len(c) for c in cts])
    plain, lengths, status = gpu.sm2.decrypt(key, cp.asarray(np.frombuffer(b"".join(cts),
                                                                           np.uint8)),
                                             format=form, offsets=cp.asarray(ct_offsets))
    assert not status.get().any()
    plain_h, lens = plain.get(), lengths.get()
    assert [plain_h[int(ct_offsets[i]):][:int(lens[i])].tobytes() for i in range(n)] == msgs


@requires_gpu
@pytest.mark.parametrize("alg", ["ed25519", "x25519"])
def test_curve25519_keys_on_cupy_match_the_cpu(contexts, cp, alg):
    gpu, cpu = contexts
    batch_gpu, batch_cpu = getattr(gpu, alg), getattr(cpu, alg)
    n = 30_001
    secrets, pubs = cp.empty((n, 32), cp.uint8), cp.empty((n, 32), cp.uint8)
    got_secrets, got_pubs, status = batch_gpu.keygen(n, out=(secrets, pubs))
    assert got_secrets is secrets and got_pubs is pubs and not status.get().any()
    want = batch_cpu.public_keys(secrets.get(), as_numpy=True)
    np.testing.assert_array_equal(pubs.get(), want)
    given = np.frombuffer(os.urandom(32 * n), np.uint8).reshape(n, 32)
    got, status = batch_gpu.public_keys(cp.asarray(given))
    assert not status.get().any()
    np.testing.assert_array_equal(got.get(), batch_cpu.public_keys(given, as_numpy=True))
