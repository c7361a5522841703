"""Ed25519 signatures (RFC 8032), with Ed25519ctx and Ed25519ph, in the
manner of the ``cryptography`` package's ed25519 module.

    >>> from kuaisuo import ed25519
    >>> key = ed25519.Ed25519PrivateKey.generate()
    >>> sig = key.sign(b"hello")                     # 64 bytes, R || S
    >>> key.public_key().verify(sig, b"hello")      # None, or raises InvalidSignature

A private key is its 32-byte seed (RFC 8032, OpenSSL, PKCS#8 of RFC 8410);
signatures are deterministic. Keys read and write PKCS#8 and
SubjectPublicKeyInfo (RFC 8410), DER or PEM, byte for byte as OpenSSL does;
``from_pem`` and ``from_der`` both accept either form.

Instances: ``sign(data)`` is pure Ed25519; ``sign(data, context=c)`` is
Ed25519ctx (c of 1 to 255 bytes); ``sign(data, prehashed=True)`` is
Ed25519ph with an optional context of 0 to 255 bytes: the message is
hashed with SHA-512 here and the digest signed, so pass the message, not a
digest. A context the instance does not allow raises KuaisuoError (code -47).

Verification rules (the same for single and batch calls): S must be below
L; the public key A and R must be canonical encodings of points of large
order; the equation is the cofactored [8][S]B = [8]R + [8][k]A. Two
differences from ``cryptography`` (OpenSSL) follow: a public key of small
order or in non-canonical form is refused when it is loaded
(``from_public_bytes`` raises KuaisuoError, code -41), and a signature whose
R carries a small-order component verifies here and not there.

As in ``cryptography``, ``verify`` returns None for a valid signature and
raises InvalidSignature (a KuaisuoError) for every other one: malformed
ones (S >= L, R not a point) and those that are not 64 bytes included.
TypeError is for arguments that are not bytes-like. Batch verification
returns a status per item instead.
"""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Tuple, Union, overload

from . import _device, _native
from ._native import InvalidSignature
from ._items import Buffer, ByteRows, CudaArray, StatusArray, count_in, count_of, fixed
from ._items import messages_in
from ._items import deprecated, output, require_valid, rows, split, status_output, statuses, view
from ._pkcs8 import EncryptableKey, Password, load


SEED_BYTES = 32
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
MAX_CONTEXT_BYTES = 255
_ERR_LENGTH = -3  # KS_ERR_LENGTH


def _as_bytes(data: Union[str, Buffer]) -> Buffer:
    return data.encode("ascii") if isinstance(data, str) else data


def _domain(context: Optional[Buffer], prehashed: bool) -> Tuple[int, Buffer]:
    """(flavor, context) of the RFC 8032 instance asked for."""
    if prehashed:
        return _native.ED25519_PH, b"" if context is None else context
    if context is None:
        return _native.ED25519_PURE, b""
    return _native.ED25519_CTX, context


class Ed25519PublicKey:
    """A validated Ed25519 public key (canonical, of large order). Immutable."""

    def __init__(self, native: _native.Ed25519Pub) -> None:
        self._k = native

    @classmethod
    def from_public_bytes(cls, data: Buffer) -> "Ed25519PublicKey":
        """The 32-byte encoding. KuaisuoError (code -41) for another length,
        a non-canonical encoding, a value off the curve or a point of small
        order."""
        return cls(_native.Ed25519Pub.from_bytes(data))

    @classmethod
    def from_der(cls, data: Union[str, Buffer]) -> "Ed25519PublicKey":
        """SubjectPublicKeyInfo (RFC 8410), DER or PEM."""
        return cls(_native.Ed25519Pub.decode(_as_bytes(data)))

    from_pem = from_der

    def public_bytes_raw(self) -> bytes:
        """The 32-byte encoding (RFC 8032 / RFC 7748)."""
        return self._k.to_bytes()

    def to_der(self) -> bytes:
        """SubjectPublicKeyInfo DER (RFC 8410), byte for byte as OpenSSL writes it."""
        return self._k.encode(False)

    def to_pem(self) -> str:
        """SubjectPublicKeyInfo PEM ("PUBLIC KEY"), as OpenSSL writes it."""
        return self._k.encode(True).decode("ascii")

    def verify(self, signature: Buffer, data: Buffer, context: Optional[Buffer] = None,
               prehashed: bool = False) -> None:
        """Returns None for a valid signature of data under the instance
        that context and prehashed select (as for sign); raises
        InvalidSignature (a KuaisuoError) for any other signature, those of
        another length included, as pyca/cryptography's verify does.
        KuaisuoError for a context the instance does not allow."""
        flavor, ctx = _domain(context, prehashed)
        length = view(signature).nbytes
        if length != 64:
            raise InvalidSignature(_ERR_LENGTH, f"an Ed25519 signature is 64 bytes, not {length}")
        require_valid(self._k.verify(flavor, ctx, data, signature))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Ed25519PublicKey)
                and self.public_bytes_raw() == other.public_bytes_raw())

    def __hash__(self) -> int:
        return hash(self.public_bytes_raw())

    def __repr__(self) -> str:
        return f"Ed25519PublicKey({self.public_bytes_raw().hex()})"


class Ed25519PrivateKey(EncryptableKey):
    """An Ed25519 private key, expanded for signing; wiped when collected."""

    def __init__(self, native: _native.Ed25519Key) -> None:
        self._k = native

    @classmethod
    def generate(cls) -> "Ed25519PrivateKey":
        """A fresh seed from the OS CSPRNG."""
        return cls(_native.Ed25519Key.generate())

    @classmethod
    def from_private_bytes(cls, data: Buffer) -> "Ed25519PrivateKey":
        """The 32-byte seed (any 32 bytes); KuaisuoError (code -40) for
        another length."""
        return cls(_native.Ed25519Key.from_seed(data))

    @classmethod
    def from_der(cls, data: Union[str, Buffer],
                 password: Optional[Password] = None,
                 *, max_iterations: Optional[int] = None) -> "Ed25519PrivateKey":
        """PKCS#8 (RFC 8410), DER or PEM; a version 1 key's embedded public
        key must match. Encrypted PKCS#8 (PBES2) with password=
        (str or bytes); TypeError for a password without encryption or the
        reverse, KuaisuoError code -50 for a wrong one."""
        return cls(load(_native.Ed25519Key.decode, _as_bytes(data), password, max_iterations))

    from_pem = from_der

    def private_bytes_raw(self) -> bytes:
        """The 32-byte seed."""
        return self._k.to_seed()

    def public_key(self) -> Ed25519PublicKey:
        """The public key (32 bytes: public_bytes_raw)."""
        return Ed25519PublicKey(self._k.public_key())

    def sign(self, data: Buffer, context: Optional[Buffer] = None,
             prehashed: bool = False) -> bytes:
        """The 64-byte signature R || S of data: pure Ed25519 by default,
        Ed25519ctx with a context, Ed25519ph with prehashed=True (SHA-512 of
        data is computed here)."""
        flavor, ctx = _domain(context, prehashed)
        return self._k.sign(flavor, ctx, data)

    def __repr__(self) -> str:
        return f"Ed25519PrivateKey(public={self.public_key().public_bytes_raw().hex()})"


def _seed_of(item: Any) -> Optional[bytes]:
    return item.private_bytes_raw() if isinstance(item, Ed25519PrivateKey) else None


def _public_of(item: Any) -> Optional[bytes]:
    return item.public_bytes_raw() if isinstance(item, Ed25519PublicKey) else None


class Ed25519Batch:
    """Pure-Ed25519 batch operations of a kuaisuo.Context (ctx.ed25519),
    on the context's CPU threads.

    Fixed-size inputs (seeds, public keys, signatures) are a sequence of
    items (bytes-like, or key objects where keys are taken) or one flat
    bytes-like object or numpy array of count * size bytes, read in place.
    Messages are a sequence of bytes-like objects, or flat data (read in
    place) with ``offsets=`` (numpy uint64/int64 or array('Q'), count + 1
    entries: item i is data[offsets[i]:offsets[i+1]]). Results are lists, or
    with as_numpy=True numpy arrays: (count, size) uint8 rows, int32 statuses,
    filled in place by the library; out= (with as_numpy=True) gives it the
    array to fill instead, e.g. one reused from call to call, and returns
    it."""

    def __init__(self, native_ctx: _native.Context) -> None:
        self._ctx = native_ctx

    @overload
    def keygen(self, count: int, *, as_numpy: Literal[False] = ...) -> List[Tuple[bytes, bytes]]: ...
    @overload
    def keygen(self, count: int, *, as_numpy: Literal[True]) -> Tuple[ByteRows, ByteRows]: ...
    @overload
    def keygen(self, count: int, *, out: Tuple[Any, Any],
               stream: Any = ...) -> Tuple[Any, Any, Any]: ...

    def keygen(self, count: int, *, as_numpy: bool = False, out: Any = None,
               stream: Any = None) -> Any:
        """count fresh (32-byte seed, 32-byte public key) pairs; as_numpy:
        (seed rows, public key rows), each (count, 32). With out= (seed
        rows, public key rows) uint8 arrays in GPU memory, the seeds are
        drawn and the keys written there: returns (seeds, public keys,
        int32 statuses, all 0)."""
        if count < 0:
            raise ValueError("count must not be negative")
        if out is not None:
            return _device.curve25519_keys(self._ctx, True, count, out[0], out[1], stream)
        _device.host_only(stream)
        seeds, pubs = self._ctx.ed25519_keygen(count, output(count, SEED_BYTES, as_numpy),
                                               output(count, PUBLIC_KEY_BYTES, as_numpy))
        if as_numpy:
            return seeds, pubs
        return list(zip(split(seeds, SEED_BYTES), split(pubs, PUBLIC_KEY_BYTES)))

    @overload
    def public_keys(self, seeds: Any, *, as_numpy: Literal[False] = ...) -> List[bytes]: ...
    @overload
    def public_keys(self, seeds: Any, *, as_numpy: Literal[True], out: Any = ...) -> ByteRows: ...

    def public_keys(self, seeds: Any, *, as_numpy: bool = False, out: Any = None,
                    stream: Any = None) -> Any:
        """The 32-byte public keys of seeds; of a (count, 32) uint8 array
        in GPU memory, (public keys, int32 statuses, all 0) there (out= or
        a new array)."""
        if _device.any_device(seeds, out):
            return _device.curve25519_keys(self._ctx, True, None, seeds, out, stream)[1:]
        _device.host_only(stream)
        flat = fixed(seeds, SEED_BYTES, "seeds", _seed_of)
        out = output(count_of(flat, SEED_BYTES), PUBLIC_KEY_BYTES, as_numpy, out)
        return rows(self._ctx.ed25519_public_keys(flat, out), PUBLIC_KEY_BYTES, as_numpy)

    @overload
    def sign(self, keys: Any, messages: Any, *, offsets: Any = ...,
             as_numpy: Literal[False] = ...) -> List[bytes]: ...
    @overload
    def sign(self, keys: Any, messages: Any, *, offsets: Any = ...,
             as_numpy: Literal[True], out: Any = ...) -> ByteRows: ...

    def sign(self, keys: Any, messages: Any, *, offsets: Any = None,
             as_numpy: bool = False, out: Any = None, stream: Any = None) -> Any:
        """Signatures of many messages: under one key (an
        Ed25519PrivateKey), or message i under key i (32-byte seeds, a
        (count, 32) array or Ed25519PrivateKey objects), as every batch
        call takes one key or one per item. In GPU memory (README "Data on
        the GPU"): messages a flat uint8 array with offsets, per-item seeds
        a (count, 32) uint8 array there; returns ((count, 64) signatures,
        int32 statuses) as arrays on that device, an item whose offsets
        fall outside the messages getting no signature."""
        if _device.any_device(messages, offsets, keys, out):
            return self._sign_device(keys, messages, offsets, out, stream)
        _device.host_only(stream)
        data, offs = messages_in(messages, offsets)
        out = output(count_in(offs), SIGNATURE_BYTES, as_numpy, out)
        if isinstance(keys, Ed25519PrivateKey):
            signed = self._ctx.ed25519_sign_batch(keys._k, data, offs, out)
        else:
            flat = fixed(keys, SEED_BYTES, "keys", _seed_of)
            signed = self._ctx.ed25519_sign_batch_seeds(flat, data, offs, out)
        return rows(signed, SIGNATURE_BYTES, as_numpy)

    def _sign_device(self, keys: Any, messages: Any, offsets: Any, out: Any,
                     stream: Any) -> Tuple[Any, Any]:
        s = _device.stream_of(messages, stream)
        data, offs, n = _device.flat_messages(self._ctx, messages, offsets, s)
        one_key = isinstance(keys, Ed25519PrivateKey)
        seeds = None if one_key else _device.fixed_items(keys, "keys", SEED_BYTES, n, s)
        sigs = _device.new_items(messages, out, "out", SIGNATURE_BYTES, n, s)
        status_obj, status = _device.status_output(messages, None, n, s)
        self._ctx.ed25519_sign_device(keys._k if one_key else None, seeds.ptr if seeds else 0,
                                      data.ptr, data.nbytes, offs.ptr, n, sigs.ptr, status.ptr, s)
        return sigs.obj, status_obj

    # Per-item keys before sign took them, kept for one release.
    sign_seeds = deprecated(sign, "Ed25519Batch.sign_seeds", "ctx.ed25519.sign(keys, ...)")

    @overload
    def verify(self, public_keys: Any, messages: CudaArray, signatures: Any, *,
               offsets: Any = ..., out: Any = ..., stream: Any = ...) -> Any: ...
    @overload
    def verify(self, public_keys: Any, messages: Any, signatures: Any, *, offsets: Any = ...,
               as_numpy: Literal[False] = ..., stream: Any = ...) -> List[int]: ...
    @overload
    def verify(self, public_keys: Any, messages: Any, signatures: Any, *, offsets: Any = ...,
               as_numpy: Literal[True], out: Any = ..., stream: Any = ...) -> StatusArray: ...

    def verify(self, public_keys: Any, messages: Any, signatures: Any, *,
               offsets: Any = None, as_numpy: bool = False, out: Any = None,
               stream: Any = None) -> Any:
        """Per-item status of (public key, message, signature) triples: 0
        for valid, else a kuaisuo error code (kuaisuo.strerror(code) says
        which): -44 does not verify, -43 malformed signature (S >= L, bad
        R), -41 bad public key (non-canonical or of small order). Public
        keys are one Ed25519PublicKey for the whole batch, or one per item
        (key objects or 32 raw bytes); signatures must be 64 bytes each
        (ValueError otherwise).

        With arrays in GPU memory (CuPy, PyTorch CUDA, DLPack: flat uint8
        messages with offsets=, public_keys and signatures as uint8 arrays
        of 32 and 64 bytes an item) on a GPU context, the batch runs there
        with no host copies, queued on `stream` (default: the array
        library's current stream); the statuses are an int32 array of the
        same library on the device (out= or a new one), an item whose
        offsets fall outside messages getting -5 (KS_ERR_OFFSETS)."""
        if _device.any_device(public_keys, messages, signatures, offsets, out):
            return self._verify_device(public_keys, messages, signatures, offsets, out, stream)
        _device.host_only(stream)
        data, offs = messages_in(messages, offsets)
        n = len(offs) - 1
        if isinstance(public_keys, Ed25519PublicKey):
            public_keys = public_keys.public_bytes_raw() * n
        if not count_of(public_keys, PUBLIC_KEY_BYTES) == n == count_of(signatures,
                                                                        SIGNATURE_BYTES):
            raise ValueError("public_keys, messages and signatures must have the same count "
                             f"({n} messages)")
        keys = fixed(public_keys, PUBLIC_KEY_BYTES, "public_keys", _public_of)
        sigs = fixed(signatures, SIGNATURE_BYTES, "signatures")
        out = status_output(as_numpy, out)
        return statuses(self._ctx.ed25519_verify_batch(keys, data, offs, sigs, out), as_numpy,
                        out)

    def _verify_device(self, public_keys: Any, messages: Any, signatures: Any, offsets: Any,
                       out: Any, stream: Any) -> Any:
        s = _device.stream_of(messages, stream)
        data, offs, n = _device.flat_messages(self._ctx, messages, offsets, s)
        keys = _device.fixed_items(public_keys, "public_keys", PUBLIC_KEY_BYTES, n, s)
        sigs = _device.fixed_items(signatures, "signatures", SIGNATURE_BYTES, n, s)
        status_obj, status = _device.status_output(messages, out, n, s)
        self._ctx.ed25519_verify_device(keys.ptr, data.ptr, data.nbytes, offs.ptr, n, sigs.ptr,
                                        status.ptr, s)
        return status_obj


__all__ = ["Ed25519Batch", "Ed25519PrivateKey", "Ed25519PublicKey", "MAX_CONTEXT_BYTES",
           "PUBLIC_KEY_BYTES", "SEED_BYTES", "SIGNATURE_BYTES"]
