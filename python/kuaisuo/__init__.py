"""kuaisuo (快锁): high-throughput cryptography for GPUs and CPUs.

Hashing::

    >>> import kuaisuo
    >>> kuaisuo.sm3(b"abc").hex()[:16]
    '66c7f0f462eeedd9'
    >>> h = kuaisuo.SM3(); h.update(b"ab"); h.update(b"c"); h.hexdigest()[:8]
    '66c7f0f4'

Batches run on every CPU core, or on the GPU when there is one::

    >>> ctx = kuaisuo.Context(backend="cpu")
    >>> [d.hex()[:8] for d in ctx.sm3.hash([b"abc", b""])]
    ['66c7f0f4', '1ab21d83']

Signatures and key agreement: kuaisuo.sm2, kuaisuo.ed25519 and
kuaisuo.x25519 (keys in the formats OpenSSL writes), with batches on a
Context as ctx.sm2, ctx.ed25519 and ctx.x25519::

    >>> key = kuaisuo.Ed25519PrivateKey.generate()
    >>> key.public_key().verify(key.sign(b"hello"), b"hello")   # raises if it does not verify
    >>> ctx.ed25519.verify([key.public_key()], [b"hello"], [key.sign(b"hello")])
    [0]

Inputs may be bytes, bytearray, memoryview or numpy arrays (C-contiguous);
they are read in place, not copied. Errors raise KuaisuoError (a
ValueError) with the library's .code and .message (str() gives "message
(code N)"; args are (code, message)), TypeError for wrong types. A
signature that does not verify raises InvalidSignature and a GCM tag that
does not match InvalidTag, both KuaisuoErrors, as pyca/cryptography's
exceptions of those names; batch calls report a status per item instead.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Literal, Optional, Tuple, Union, overload

from . import _device, _native, ed25519, skinny, sm2, sm4, x25519
from ._items import (Buffer, ByteRows, CudaArray, count_in, deprecated, messages_in, output,
                     rows, split)
from ._native import BackendUnavailableError, InvalidSignature, InvalidTag, KuaisuoError
from .ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from .sm2 import SM2KeyExchange, SM2PrivateKey, SM2PublicKey
from .x25519 import X25519PrivateKey, X25519PublicKey

__all__ = [
    "BackendUnavailableError",
    "Context",
    "Ed25519PrivateKey",
    "Ed25519PublicKey",
    "HmacSM3",
    "InvalidSignature",
    "InvalidTag",
    "KuaisuoError",
    "SM2KeyExchange",
    "SM2PrivateKey",
    "SM2PublicKey",
    "SM3",
    "SM3Batch",
    "X25519PrivateKey",
    "X25519PublicKey",
    "__version__",
    "cpu_features",
    "ed25519",
    "gpu_built",
    "gpu_device_count",
    "hmac_sm3",
    "skinny",
    "sm2",
    "sm3",
    "sm3_kdf",
    "strerror",
    "sm4",
    "x25519",
]

__version__: str = _native.version()


gpu_built = _native.gpu_built
gpu_device_count = _native.gpu_device_count
cpu_features = _native.cpu_features
strerror = _native.strerror


def sm3(data: Buffer) -> bytes:
    """SM3 digest (GB/T 32905-2016) of data: 32 bytes."""
    return _native.sm3(data)


def sm3_kdf(z: Buffer, length: int) -> bytes:
    """The SM3 key derivation function of GB/T 32918.4-2016 clause 5.4.3
    (SM2 encryption and key exchange): length bytes of SM3(z || 00000001) ||
    SM3(z || 00000002) || ..."""
    return _native.sm3_kdf(z, length)


def hmac_sm3(key: Buffer, data: Buffer) -> bytes:
    """HMAC-SM3 (RFC 2104) of data under key: 32 bytes."""
    return _native.hmac_sm3(key, data)


class _HashlibStyle:
    """digest()/hexdigest()/copy() in the manner of hashlib objects. Like
    them, an object may be shared by threads: each call takes the object's
    lock (large updates release the GIL while they hold it)."""

    digest_size = 32
    block_size = 64

    def __init__(self, impl) -> None:
        self._impl = impl

    def update(self, data: Buffer) -> None:
        self._impl.update(data)

    def digest(self) -> bytes:
        return self._impl.digest()

    def hexdigest(self) -> str:
        return self._impl.digest().hex()

    def copy(self):
        clone = object.__new__(type(self))
        clone._impl = self._impl.copy()
        return clone


class SM3(_HashlibStyle):
    """Streaming SM3, hashlib-compatible: update(), digest(), hexdigest(), copy()."""

    name = "sm3"

    def __init__(self, data: Optional[Buffer] = None) -> None:
        super().__init__(_native.SM3(data))


class HmacSM3(_HashlibStyle):
    """Streaming HMAC-SM3 under a key of any length."""

    name = "hmac-sm3"

    def __init__(self, key: Buffer, data: Optional[Buffer] = None) -> None:
        super().__init__(_native.HmacSM3(key, data))


class SM3Batch:
    """SM3 on a Context (``ctx.sm3``): many messages at once, on the
    context's CPU threads (x16 AVX-512 lanes) or its GPU."""

    def __init__(self, ctx: _native.Context) -> None:
        self._ctx = ctx

    @overload
    def hash(self, messages: CudaArray, offsets: Any = ..., *, out: Any = ...,
             stream: Any = ...) -> Tuple[Any, Any]: ...
    @overload
    def hash(self, messages: Any, offsets: Any = ..., *,
             as_numpy: Literal[False] = ..., stream: Any = ...) -> List[bytes]: ...
    @overload
    def hash(self, messages: Any, offsets: Any = ..., *, as_numpy: Literal[True],
             out: Any = ..., stream: Any = ...) -> ByteRows: ...

    def hash(self, messages: Any, offsets: Any = None, *, as_numpy: bool = False,
             out: Any = None, stream: Any = None) -> Any:
        """SM3 of each message: a list of 32-byte digests, or with
        as_numpy=True a (count, 32) uint8 array (into out when given).
        messages: a sequence of bytes-like objects, or one flat buffer with
        offsets (count + 1 uint64 entries; read in place, not copied).

        A flat uint8 array in GPU memory (CuPy, PyTorch CUDA, DLPack) with
        offsets there too, on a GPU context, is hashed there with no host
        copies, queued on `stream` (default: the array library's current
        stream): the result is (digests, statuses), a (count, 32) uint8
        array (out= or a new one) and int32 statuses of the same library,
        a status being 0, or -5 (KS_ERR_OFFSETS) with a zero digest for an
        item whose offsets fall outside messages."""
        if _device.any_device(messages, offsets, out):
            return _device.sm3_batch(self._ctx, messages, offsets, out, stream)
        _device.host_only(stream)
        if offsets is None and not as_numpy:
            return self._ctx.sm3_batch(messages)
        data, offs = messages_in(messages, offsets)
        if as_numpy:
            out = output(count_in(offs), 32, True, out)
            return rows(self._ctx.sm3_batch_flat(data, offs, out), 32, True)
        return split(self._ctx.sm3_batch_flat(data, offs), 32)


class Context:
    """Where batch work runs: backend "auto", "cpu" or "gpu", a CUDA device
    index, and the number of CPU threads (0 = all). A Context may be shared
    between threads.

    wide_base_table=True makes Ed25519/X25519 key and signing batches on the
    GPU read a 48 MiB fixed-base table at addresses that depend on the
    secret scalars (about 1.4-1.9x faster); only for a GPU that no other
    tenant shares (KS_GPU_WIDE_BASE_TABLE in kuaisuo.h). The default is the
    constant-time comb."""

    def __init__(self, backend: str = "auto", device: int = 0, threads: int = 0, *,
                 wide_base_table: bool = False) -> None:
        if not isinstance(backend, str):
            raise TypeError("backend must be a str")
        if device < 0 or threads < 0:
            raise ValueError("device and threads must not be negative")
        self._ctx = _native.Context(backend, device, threads, bool(wide_base_table))
        self.sm3 = SM3Batch(self._ctx)
        self.sm2 = sm2.SM2Batch(self._ctx)
        self.ed25519 = ed25519.Ed25519Batch(self._ctx)
        self.x25519 = x25519.X25519Batch(self._ctx)
        self.sm4 = sm4.SM4Batch(self._ctx)
        self.skinny = skinny.SkinnyBatch(self._ctx)

    @property
    def backend(self) -> str:
        """"gpu" if batches may run on a GPU, else "cpu"."""
        return self._ctx.backend

    @property
    def threads(self) -> int:
        """The number of CPU threads batch work runs on."""
        return self._ctx.threads

    # Before ctx.sm3 (SM3Batch), the one operation with no home of its own.
    sm3_batch = deprecated(lambda self, messages, *, as_numpy=False:
                           self.sm3.hash(messages, as_numpy=as_numpy),
                           "Context.sm3_batch", "ctx.sm3.hash")
    sm3_batch_flat = deprecated(lambda self, data, offsets: b"".join(self.sm3.hash(data, offsets)),
                                "Context.sm3_batch_flat", "ctx.sm3.hash(data, offsets)")

    def __repr__(self) -> str:
        return f"Context(backend={self.backend!r}, threads={self.threads})"
