"""X25519 key agreement (RFC 7748), in the manner of the ``cryptography``
package's x25519 module.

    >>> from kuaisuo import x25519
    >>> a, b = x25519.X25519PrivateKey.generate(), x25519.X25519PrivateKey.generate()
    >>> a.exchange(b.public_key()) == b.exchange(a.public_key())
    True

Private keys are any 32 bytes (clamped when used), public keys and shared
secrets 32-byte u-coordinates. A peer's u is used as RFC 7748 section 5
says: its top bit is ignored and values of p and above are taken mod p.
A peer value of small order makes the shared secret all zero: ``exchange``
raises KuaisuoError (code -46) then, as ``cryptography`` raises ValueError
(RFC 7748 section 6.1; OpenSSL refuses it too). Keys read and write PKCS#8
and SubjectPublicKeyInfo (RFC 8410), DER or PEM, byte for byte as OpenSSL
does; ``from_pem`` and ``from_der`` both accept either form.
"""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Tuple, Union, overload

from . import _device, _native
from ._items import Buffer, ByteRows, StatusArray, count_of, fixed, output, rows, split
from ._items import CudaArray, statuses, view
from ._pkcs8 import EncryptableKey, Password, load


KEY_BYTES = 32

__all__ = ["KEY_BYTES", "X25519Batch", "X25519PrivateKey", "X25519PublicKey"]


def _as_bytes(data: Union[str, Buffer]) -> Buffer:
    return data.encode("ascii") if isinstance(data, str) else data


class X25519PublicKey:
    """A peer's 32-byte u-coordinate, kept exactly as given. Immutable."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw

    @classmethod
    def from_public_bytes(cls, data: Buffer) -> "X25519PublicKey":
        """Any 32 bytes; KuaisuoError (code -41) for another length."""
        raw = bytes(view(data))
        if len(raw) != KEY_BYTES:
            raise _native.KuaisuoError(-41, _native.strerror(-41))
        return cls(raw)

    @classmethod
    def from_der(cls, data: Union[str, Buffer]) -> "X25519PublicKey":
        """SubjectPublicKeyInfo (RFC 8410), DER or PEM."""
        return cls(_native.x25519_public_key_decode(_as_bytes(data)))

    from_pem = from_der

    def public_bytes_raw(self) -> bytes:
        """The 32-byte encoding (RFC 8032 / RFC 7748)."""
        return self._raw

    def to_der(self) -> bytes:
        """SubjectPublicKeyInfo DER (RFC 8410), byte for byte as OpenSSL writes it."""
        return _native.x25519_public_key_encode(self._raw, False)

    def to_pem(self) -> str:
        """SubjectPublicKeyInfo PEM ("PUBLIC KEY"), as OpenSSL writes it."""
        return _native.x25519_public_key_encode(self._raw, True).decode("ascii")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, X25519PublicKey) and self._raw == other._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __repr__(self) -> str:
        return f"X25519PublicKey({self._raw.hex()})"


class X25519PrivateKey(EncryptableKey):
    """An X25519 private key, held in memory wiped when collected."""

    def __init__(self, native: _native.X25519Key) -> None:
        self._k = native

    @classmethod
    def generate(cls) -> "X25519PrivateKey":
        """32 bytes from the OS CSPRNG."""
        return cls(_native.X25519Key.generate())

    @classmethod
    def from_private_bytes(cls, data: Buffer) -> "X25519PrivateKey":
        """Any 32 bytes; KuaisuoError (code -40) for another length."""
        return cls(_native.X25519Key.from_bytes(data))

    @classmethod
    def from_der(cls, data: Union[str, Buffer],
                 password: Optional[Password] = None,
                 *, max_iterations: Optional[int] = None) -> "X25519PrivateKey":
        """PKCS#8 (RFC 8410), DER or PEM; a version 1 key's embedded public
        key must match. Encrypted PKCS#8 (PBES2) with password=
        (str or bytes); TypeError for a password without encryption or the
        reverse, KuaisuoError code -50 for a wrong one."""
        return cls(load(_native.X25519Key.decode, _as_bytes(data), password, max_iterations))

    from_pem = from_der

    def private_bytes_raw(self) -> bytes:
        """The 32-byte private key (a secret: wipe copies you make)."""
        return self._k.to_bytes()

    def public_key(self) -> X25519PublicKey:
        """The public key (32 bytes: public_bytes_raw)."""
        return X25519PublicKey(self._k.public_key())

    def exchange(self, peer_public_key: Union[X25519PublicKey, Buffer]) -> bytes:
        """The 32-byte shared secret with the peer (an X25519PublicKey, or
        its 32 raw bytes). KuaisuoError (code -46) when the peer's value has
        small order (the secret would be all zero); code -41 for raw bytes
        that are not 32."""
        raw = (peer_public_key.public_bytes_raw()
               if isinstance(peer_public_key, X25519PublicKey) else peer_public_key)
        return self._k.exchange(raw)

    def __repr__(self) -> str:
        return f"X25519PrivateKey(public={self.public_key().public_bytes_raw().hex()})"


def _private_of(item: Any) -> Optional[bytes]:
    return item.private_bytes_raw() if isinstance(item, X25519PrivateKey) else None


def _public_of(item: Any) -> Optional[bytes]:
    return item.public_bytes_raw() if isinstance(item, X25519PublicKey) else None


class X25519Batch:
    """X25519 batch operations of a kuaisuo.Context (ctx.x25519), on the
    context's CPU threads. Keys are a sequence of items (key objects or 32
    raw bytes each) or one flat bytes-like object or numpy array of
    count * 32 bytes, read in place. Results are lists, or with
    as_numpy=True numpy arrays: (count, 32) uint8 rows, int32 statuses,
    filled in place by the library (out=, with as_numpy=True: the array to
    fill instead, e.g. one reused from call to call)."""

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
        """count fresh (32-byte private key, 32-byte public key) pairs;
        as_numpy: (private rows, public rows), each (count, 32). With out=
        (private rows, public rows) uint8 arrays in GPU memory, the keys
        are drawn and written there: returns (private keys, public keys,
        int32 statuses, all 0)."""
        if count < 0:
            raise ValueError("count must not be negative")
        if out is not None:
            return _device.curve25519_keys(self._ctx, False, count, out[0], out[1], stream)
        _device.host_only(stream)
        priv, pub = self._ctx.x25519_keygen(count, output(count, KEY_BYTES, as_numpy),
                                            output(count, KEY_BYTES, as_numpy))
        if as_numpy:
            return priv, pub
        return list(zip(split(priv, KEY_BYTES), split(pub, KEY_BYTES)))

    @overload
    def public_keys(self, private_keys: Any, *, as_numpy: Literal[False] = ...) -> List[bytes]: ...
    @overload
    def public_keys(self, private_keys: Any, *, as_numpy: Literal[True],
                    out: Any = ...) -> ByteRows: ...

    def public_keys(self, private_keys: Any, *, as_numpy: bool = False, out: Any = None,
                    stream: Any = None) -> Any:
        """The public keys of private keys; of a (count, 32) uint8 array in
        GPU memory, (public keys, int32 statuses, all 0) there (out= or a
        new array)."""
        if _device.any_device(private_keys, out):
            return _device.curve25519_keys(self._ctx, False, None, private_keys, out, stream)[1:]
        _device.host_only(stream)
        flat = fixed(private_keys, KEY_BYTES, "private_keys", _private_of)
        out = output(count_of(flat, KEY_BYTES), KEY_BYTES, as_numpy, out)
        return rows(self._ctx.x25519_public_keys(flat, out), KEY_BYTES, as_numpy)

    @overload
    def derive(self, private_keys: Any, peer_public_keys: CudaArray, *, out: Any = ...,
               stream: Any = ...) -> Tuple[Any, Any]: ...
    @overload
    def derive(self, private_keys: Any, peer_public_keys: Any, *,
               as_numpy: Literal[False] = ..., stream: Any = ...) -> Tuple[List[bytes], List[int]]: ...
    @overload
    def derive(self, private_keys: Any, peer_public_keys: Any, *,
               as_numpy: Literal[True], out: Any = ...,
               stream: Any = ...) -> Tuple[ByteRows, StatusArray]: ...

    def derive(self, private_keys: Any, peer_public_keys: Any, *, as_numpy: bool = False,
               out: Any = None, stream: Any = None) -> Any:
        """Shared secrets with many peers, and their per-item status: 0, or
        -46 (kuaisuo.strerror(-46)) where the peer's value has small order,
        whose secret is then all zero. private_keys is one key for every
        peer (an X25519PrivateKey, or 32 raw bytes) or one key per peer (a
        sequence of keys, or a flat buffer of count * 32 bytes). out= (with
        as_numpy=True) receives the secrets: a writable (count, 32) uint8
        array, returned.

        With uint8 arrays in GPU memory (CuPy, PyTorch CUDA, DLPack: the
        peers, and the private key or keys: 32 bytes, or 32 for each peer)
        on a GPU context, the secrets are derived there with no host
        copies, queued on `stream` (default: the array library's current
        stream): (secrets, statuses), a (count, 32) uint8 array (out= or a
        new one) and int32 statuses of the same library on the device."""
        if _device.any_device(private_keys, peer_public_keys, out):
            return self._derive_device(private_keys, peer_public_keys, out, stream)
        _device.host_only(stream)
        peers = fixed(peer_public_keys, KEY_BYTES, "peer_public_keys", _public_of)
        out = output(count_of(peers, KEY_BYTES), KEY_BYTES, as_numpy, out)
        if isinstance(private_keys, X25519PrivateKey):
            shared, status = self._ctx.x25519_batch_key(private_keys._k, peers, out)
        elif _nbytes(private_keys) == KEY_BYTES:  # one raw key for every peer
            shared, status = self._ctx.x25519_batch(private_keys, False, peers, out)
        else:
            keys = fixed(private_keys, KEY_BYTES, "private_keys", _private_of)
            shared, status = self._ctx.x25519_batch(keys, True, peers, out)
        return rows(shared, KEY_BYTES, as_numpy), statuses(status, as_numpy)

    def _derive_device(self, private_keys: Any, peer_public_keys: Any, out: Any,
                       stream: Any) -> Tuple[Any, Any]:
        _device.require_gpu_context(self._ctx)
        s = _device.stream_of(peer_public_keys, stream)
        peers = _device.view(peer_public_keys, "peer_public_keys", s)
        n = peers.nbytes // KEY_BYTES
        _device.items_of(peers, "peer_public_keys", KEY_BYTES, n)
        keys = _device.view(private_keys, "private_keys", s)
        per_item = keys.nbytes != KEY_BYTES or n == 1
        _device.items_of(keys, "private_keys", KEY_BYTES, n if per_item else 1)
        shared_obj = out if out is not None else _device.empty(peer_public_keys, (n, KEY_BYTES),
                                                               "u1")
        shared = _device.fixed_items(shared_obj, "out", KEY_BYTES, n, s)
        status_obj, status = _device.status_output(peer_public_keys, None, n, s)
        self._ctx.x25519_derive_device(keys.ptr, per_item, peers.ptr, n, shared.ptr, status.ptr,
                                       s)
        return shared_obj, status_obj


def _nbytes(obj: Any) -> Optional[int]:
    """The byte length of a bytes-like object, None for anything else."""
    try:
        return memoryview(obj).nbytes
    except TypeError:
        return None
