"""SM2 digital signatures (GB/T 32918.2-2016), public-key encryption
(GB/T 32918.4-2016) and key exchange (GB/T 32918.3-2016, SM2KeyExchange)
on the recommended curve.

    >>> from kuaisuo import sm2
    >>> key = sm2.SM2PrivateKey.generate()
    >>> sig = key.sign(b"hello")                  # DER, default ID
    >>> key.public_key().verify(sig, b"hello")   # None, or raises InvalidSignature

The distinguishing ID defaults to GM/T 0009's b"1234567812345678". OpenSSL 3
uses an EMPTY ID unless told otherwise, so pass ``id=b""`` to interoperate
with its defaults. Signatures are DER SEQUENCE{r, s} by default (as OpenSSL,
GmSSL and BouncyCastle exchange them); ``encoding="raw"`` gives r||s
(64 bytes). Keys read and write PKCS#8 / SubjectPublicKeyInfo, DER or PEM,
as OpenSSL does.

    >>> ct = key.public_key().encrypt(b"a document key")   # C1 || C3 || C2
    >>> key.decrypt(ct)                                    # or raises KuaisuoError

Ciphertext formats: "c1c3c2" (the 2016 standard's order, the default),
"c1c2c3" (the 2012 order still deployed) and "der" (GM/T 0009's SM2Cipher,
what OpenSSL's ``pkeyutl -encrypt`` writes).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

from . import _device, _native
from ._native import InvalidSignature, KuaisuoError
from ._items import Buffer, count_of as _count_of, fixed as _fixed, flat as _flat
from ._items import ByteRows, CudaArray, StatusArray, ids_in as _ids_in, rows as _rows
from ._items import messages_in as _messages_in, split as _split, statuses as _statuses
from ._items import count_in as _count_in, output as _output, status_codes as _status_codes
from ._items import deprecated, require_valid, status_output as _status_output
from ._pkcs8 import EncryptableKey, Password, load


DEFAULT_ID = b"1234567812345678"

CipherFormat = Literal["c1c3c2", "c1c2c3", "der"]
_FORMATS = {"c1c3c2": _native.SM2_C1C3C2, "c1c2c3": _native.SM2_C1C2C3,
            "der": _native.SM2_CIPHER_DER}


def _format(name: str) -> int:
    try:
        return _FORMATS[name.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"SM2 ciphertext format: one of {', '.join(_FORMATS)}, not {name!r}") \
            from None
_NONCES = {False: 0, True: 1}  # KS_SM2_NONCE_RANDOM / _DETERMINISTIC
_ENCODINGS = ("der", "raw")
Encoding = Literal["der", "raw"]
_ERR_LENGTH = -3  # KS_ERR_LENGTH


def _check_encoding(encoding: str) -> None:
    if encoding not in _ENCODINGS:
        raise ValueError(f"encoding must be 'der' or 'raw', not {encoding!r}")


# One ID for every item, or a sequence of one ID per item.
Ids = Union[Buffer, Sequence[Buffer]]


def _one_id(id: Any) -> bool:
    return isinstance(id, (bytes, bytearray, memoryview)) or hasattr(id, "__array__")


def _check_out(encoding: str, as_numpy: bool) -> None:
    _check_encoding(encoding)
    if as_numpy and encoding != "raw":
        raise ValueError("as_numpy=True gives (count, 64) rows of r||s: pass encoding='raw'")


def _with_codes(statuses: Any, codes: Dict[int, int]) -> Any:
    """statuses (a list or an int32 array) with the items in codes given
    their codes (signatures that failed to decode, bad IDs): a loop over
    those items only, through an int view where statuses is a buffer."""
    view = statuses if isinstance(statuses, list) else memoryview(statuses).cast("B").cast("i")
    for i, code in codes.items():
        view[i] = code
    return statuses


def _signatures_out(raw: bytes, encoding: str, as_numpy: bool) -> Any:
    if as_numpy:
        return _rows(raw, 64, True)
    return [_out(s, encoding) for s in _split(raw, 64)]


def _out(raw: bytes, encoding: str) -> bytes:
    _check_encoding(encoding)
    return _native.sm2_signature_to_der(raw) if encoding == "der" else raw


def _in(sig: Buffer, encoding: str) -> bytes:
    _check_encoding(encoding)
    return _native.sm2_signature_from_der(sig) if encoding == "der" else bytes(sig)


def _in_checked(sig: Buffer, encoding: str) -> bytes:
    """r||s of a signature to verify: a malformed one raises
    InvalidSignature (with what is wrong), as a wrong one does."""
    _check_encoding(encoding)
    if encoding == "raw":
        raw = bytes(sig)
        if len(raw) != 64:
            raise InvalidSignature(_ERR_LENGTH, f"a raw SM2 signature (r||s) is 64 bytes, "
                                                f"not {len(raw)}")
        return raw
    try:
        return _native.sm2_signature_from_der(sig)
    except KuaisuoError as e:
        raise InvalidSignature(e.code, f"not a DER signature: {e.message}") from None


def _as_bytes(data: Union[str, Buffer]) -> Buffer:
    return data.encode("ascii") if isinstance(data, str) else data


def signature_to_der(raw: Buffer) -> bytes:
    """r||s (64 bytes) -> DER SEQUENCE{INTEGER r, INTEGER s}."""
    return _native.sm2_signature_to_der(raw)


def signature_from_der(der: Buffer) -> bytes:
    """Strict DER -> r||s; KuaisuoError says what is wrong with bad input."""
    return _native.sm2_signature_from_der(der)


class SM2PublicKey:
    """A validated SM2 public key (on the curve, not the point at infinity)."""

    def __init__(self, native) -> None:
        self._k = native

    @classmethod
    def from_public_bytes(cls, data: Buffer) -> "SM2PublicKey":
        """04||x||y (65 bytes), x||y (64) or compressed 02/03||x (33)."""
        return cls(_native.Sm2Pub.from_bytes(data))

    @classmethod
    def from_der(cls, data: Union[str, Buffer]) -> "SM2PublicKey":
        """SubjectPublicKeyInfo or an X.509 certificate (its subject's key),
        DER or PEM (str or bytes, as to_pem returns)."""
        return cls(_native.Sm2Pub.decode(_as_bytes(data)))

    from_pem = from_der

    def public_bytes_raw(self, compressed: bool = False) -> bytes:
        """The point: 04||x||y (65 bytes), or 02/03||x (33) when compressed."""
        return self._k.to_bytes(compressed)

    # The names before public_bytes_raw / from_public_bytes (pyca's, which
    # the Ed25519 and X25519 keys have), kept for one release.
    from_bytes = classmethod(deprecated(lambda cls, data: cls.from_public_bytes(data),
                                        "SM2PublicKey.from_bytes",
                                        "SM2PublicKey.from_public_bytes"))
    to_bytes = deprecated(public_bytes_raw, "SM2PublicKey.to_bytes",
                          "SM2PublicKey.public_bytes_raw")

    def to_der(self) -> bytes:
        """SubjectPublicKeyInfo DER (id-ecPublicKey with the SM2 curve), as OpenSSL writes it."""
        return self._k.encode(False)

    def to_pem(self) -> str:
        """SubjectPublicKeyInfo PEM ("PUBLIC KEY"), as OpenSSL writes it."""
        return self._k.encode(True).decode("ascii")

    def za(self, id: Buffer = DEFAULT_ID) -> bytes:
        """Z_A = SM3(ENTL || ID || a || b || xG || yG || xA || yA)."""
        return self._k.za(id)

    def digest(self, message: Buffer, id: Buffer = DEFAULT_ID) -> bytes:
        """e = SM3(Z_A || M), what sign_digest/verify_digest take."""
        return self._k.digest(id, message)

    def verify(self, signature: Buffer, message: Buffer, id: Buffer = DEFAULT_ID,
               encoding: Encoding = "der") -> None:
        """Returns None for a valid signature of message under id; raises
        InvalidSignature (a KuaisuoError) for any other, malformed DER and
        raw signatures of another length included, as pyca/cryptography's
        verify does. ValueError for an encoding other than "der" or "raw"."""
        require_valid(self._k.verify(id, message, _in_checked(signature, encoding)))

    def verify_digest(self, signature: Buffer, digest: Buffer,
                      encoding: Encoding = "der") -> None:
        """As verify, on a 32-byte digest e (ValueError for another length)."""
        require_valid(self._k.verify_digest(digest, _in_checked(signature, encoding)))

    def encrypt(self, data: Buffer, format: CipherFormat = "c1c3c2") -> bytes:
        """SM2 encryption of data (any length) to this key, a fresh random k
        each call: C1 = [k]G, C2 = data ^ KDF([k]P), C3 = SM3(x2 || data || y2)."""
        return self._k.encrypt(data, _format(format))

    def precompute(self) -> "SM2PublicKey":
        """Builds this key's fixed-base table (148 KiB, about a millisecond),
        for a key used many times: encryption to it then costs two
        fixed-base multiplications, and verification under it two combs
        instead of a double-scalar chain (about 2.5x and 4x faster). Safe to
        call at any time; returns the key."""
        self._k.precompute()
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SM2PublicKey) and self.public_bytes_raw() == other.public_bytes_raw()

    def __hash__(self) -> int:
        return hash(self.public_bytes_raw())

    def __repr__(self) -> str:
        return f"SM2PublicKey({self.public_bytes_raw(True).hex()})"


class SM2PrivateKey(EncryptableKey):
    """An SM2 private key, prepared for signing; wiped when collected."""

    def __init__(self, native) -> None:
        self._k = native

    @classmethod
    def generate(cls) -> "SM2PrivateKey":
        """d uniform in [1, n-2] from the OS CSPRNG."""
        return cls(_native.Sm2Key.generate())

    @classmethod
    def from_private_bytes(cls, d: Buffer) -> "SM2PrivateKey":
        """d as 32 big-endian bytes in [1, n-2]."""
        return cls(_native.Sm2Key.from_bytes(d))

    @classmethod
    def from_der(cls, data: Union[str, Buffer],
                 password: Optional[Password] = None,
                 *, max_iterations: Optional[int] = None) -> "SM2PrivateKey":
        """PKCS#8 or SEC1 ECPrivateKey, DER or PEM. Encrypted PKCS#8 (PBES2) with password=
        (str or bytes); TypeError for a password without encryption or the
        reverse, KuaisuoError code -50 for a wrong one."""
        return cls(load(_native.Sm2Key.decode, _as_bytes(data), password, max_iterations))

    from_pem = from_der

    def private_bytes_raw(self) -> bytes:
        """d as 32 big-endian bytes (a secret: wipe copies you make)."""
        return self._k.to_bytes()

    from_bytes = classmethod(deprecated(lambda cls, d: cls.from_private_bytes(d),
                                        "SM2PrivateKey.from_bytes",
                                        "SM2PrivateKey.from_private_bytes"))
    to_bytes = deprecated(private_bytes_raw, "SM2PrivateKey.to_bytes",
                          "SM2PrivateKey.private_bytes_raw")

    def public_key(self) -> SM2PublicKey:
        """The public key [d]G."""
        return SM2PublicKey(self._k.public_key())

    def sign(self, message: Buffer, id: Buffer = DEFAULT_ID, *, deterministic: bool = False,
             encoding: Encoding = "der") -> bytes:
        """Signs SM3(Z_A || message). deterministic=True derives k from the
        key and digest (RFC 6979 over HMAC-SM3) instead of the OS RNG."""
        return _out(self._k.sign(id, message, _NONCES[bool(deterministic)]), encoding)

    def sign_digest(self, digest: Buffer, *, deterministic: bool = False,
                    encoding: Encoding = "der") -> bytes:
        """Signs a caller-computed e (32 bytes), for KMS/HSM-style flows."""
        return _out(self._k.sign_digest(digest, _NONCES[bool(deterministic)]), encoding)

    def decrypt(self, ciphertext: Buffer, format: CipherFormat = "c1c3c2") -> bytes:
        """The plaintext of an SM2 ciphertext to this key. KuaisuoError -53
        for a malformed one (or C1 off the curve), -54 when its C3 does not
        match (a wrong key or damaged data); nothing is released then."""
        return self._k.decrypt(ciphertext, _format(format))

    def __repr__(self) -> str:
        return f"SM2PrivateKey(public={self.public_key().public_bytes_raw(True).hex()})"


class SM2KeyExchange:
    """One side of an SM2 key exchange (GB/T 32918.3-2016), between this
    party's static key and the peer's static public key:

        >>> a = SM2KeyExchange(key_a, key_b.public_key(), initiator=True, confirm=True)
        >>> b = SM2KeyExchange(key_b, key_a.public_key(), initiator=False, confirm=True)
        >>> r_a = a.start()
        >>> r_b, s_b, _ = b.respond(r_a)
        >>> k_a, s_a = a.finish(r_b, s_b)        # checks S_B before releasing K
        >>> k_b = b.confirm(s_a)                  # checks S_A before releasing K

    Without confirmation, ``b.respond(r_a)`` gives (R_B, None, K) and
    ``a.finish(r_b)`` gives (K, None). The steps run in this order only;
    any failure (KuaisuoError: -41 for an R that is not a point of the
    curve, -56 for a tag that does not match, -55 for a step out of order)
    leaves the exchange failed for good. ``length`` is the key's length in
    bytes, the same on both sides; ``id`` and ``peer_id`` the two parties'
    distinguishing IDs."""

    def __init__(self, key: "SM2PrivateKey", peer: "SM2PublicKey", *, initiator: bool,
                 id: Buffer = DEFAULT_ID, peer_id: Buffer = DEFAULT_ID,
                 confirm: bool = False) -> None:
        self._confirm = bool(confirm)
        self._x = _native.Sm2Exchange(0 if initiator else 1, key._k, id, peer._k, peer_id,
                                      self._confirm)

    @property
    def confirming(self) -> bool:
        """Whether this exchange runs the confirmation steps."""
        return self._confirm

    def start(self) -> bytes:
        """Initiator: R_A (65 bytes, 04||x||y), to send to the responder."""
        return self._x.start()

    def respond(self, peer_r: Buffer, length: int = 16
                ) -> Tuple[bytes, Optional[bytes], Optional[bytes]]:
        """Responder: (R_B, S_B, None) with confirmation (the key comes from
        confirm()), (R_B, None, K) without."""
        r, second = self._x.respond(peer_r, self._confirm, _key_length(length))
        return (r, second, None) if self._confirm else (r, None, second)

    def finish(self, peer_r: Buffer, peer_tag: Optional[Buffer] = None, length: int = 16
               ) -> Tuple[bytes, Optional[bytes]]:
        """Initiator: (K, S_A) from R_B and S_B with confirmation, (K, None)
        from R_B without."""
        if (peer_tag is None) == self._confirm:
            raise ValueError("peer_tag (S_B) is required with confirmation and only then")
        key, tag = self._x.finish(peer_r, peer_tag, _key_length(length))
        return key, (tag if self._confirm else None)

    def confirm(self, peer_tag: Buffer, length: int = 16) -> bytes:
        """Responder with confirmation: K, once S_A has checked."""
        return self._x.confirm(peer_tag, _key_length(length))


def _key_length(length: int) -> int:
    if not isinstance(length, int) or not 1 <= length <= 0xffffffff * 32:
        raise ValueError(f"key length: 1 to {0xffffffff * 32} bytes, not {length!r}")
    return length


class SM2Batch:
    """SM2 batch operations of a kuaisuo.Context (ctx.sm2).

    id is one distinguishing ID for every item (bytes-like) or a sequence
    of one ID per item (signers with IDs of their own; their digests are
    then computed by ks_sm2_digest_batch). With as_numpy=True results come
    as numpy arrays, without a Python object per item: statuses as int32,
    keys and raw signatures as (count, size) uint8 rows (DER signatures
    vary in length, so as_numpy needs encoding="raw"), filled in place by
    the library; out= (with as_numpy=True) gives it the array to fill
    instead, e.g. one reused from call to call, and returns it."""

    def __init__(self, native_ctx) -> None:
        self._ctx = native_ctx

    def encrypt(self, messages: Any, public_key: Any, *, format: CipherFormat = "c1c3c2",
                offsets: Any = None, out: Any = None, stream: Any = None) -> Any:
        """The SM2 ciphertexts of many messages, eight at a time on the
        context's threads: to one recipient (an SM2PublicKey; its table,
        SM2PublicKey.precompute, is built for large batches) or to one
        65-byte public key per message (None for an item whose key is not a
        point of the curve).

        In GPU memory (flat uint8 messages with offsets=, per-item keys a
        (count, 65) uint8 array there): returns (out, lengths, statuses) as
        arrays on that device, item i's ciphertext at out[offsets[i] + i *
        sm2_ciphertext_bound(0)] for lengths[i] (int64) bytes; out= (at
        least len(messages) + count * that bound bytes) or a new one."""
        if _device.any_device(messages, offsets, out) or _device.is_device(public_key):
            one = public_key if isinstance(public_key, SM2PublicKey) else None
            return self._crypt_device(True, one, public_key if one is None else None, None,
                                      messages, offsets, format, out, stream)
        _device.host_only(out, stream)
        if isinstance(public_key, SM2PublicKey):
            return self._crypt(True, public_key._k, None, None, messages, format)
        keys = b"".join(bytes(k) for k in public_key)
        return self._crypt(True, None, keys, None, messages, format)

    def decrypt(self, key: SM2PrivateKey, ciphertexts: Any, *, format: CipherFormat = "c1c3c2",
                offsets: Any = None, out: Any = None, stream: Any = None) -> Any:
        """The plaintexts of many ciphertexts to key, eight at a time on the
        context's threads; None for one that is malformed or does not check
        (nothing of it is released).

        In GPU memory (flat uint8 ciphertexts with offsets=): returns (out,
        lengths, statuses) on that device, item i's plaintext at
        out[offsets[i]] for lengths[i] bytes, the rest of its slot zeroed."""
        if _device.any_device(ciphertexts, offsets, out):
            return self._crypt_device(False, None, None, key, ciphertexts, offsets, format, out,
                                      stream)
        _device.host_only(out, stream)
        return self._crypt(False, None, None, key._k, ciphertexts, format)

    def _crypt_device(self, encrypting: bool, pub: Optional[SM2PublicKey], keys: Any,
                      key: Optional[SM2PrivateKey], items: Any, offsets: Any,
                      format: CipherFormat, out: Any, stream: Any) -> Tuple[Any, Any, Any]:
        s = _device.stream_of(items, stream)
        data, offs, n = _device.flat_messages(self._ctx, items, offsets, s)
        form = _format(format)
        extra = _native.sm2_ciphertext_bound(0, form) if encrypting else 0
        size = data.nbytes + n * extra
        dst_obj = out if out is not None else _device.empty(items, (size,), "u1")
        dst = _device.view(dst_obj, "out", s)
        _device.require(dst, "out", ("u1",))
        if dst.nbytes < size:
            raise ValueError(f"out must hold at least {size} bytes")
        k = _device.fixed_items(keys, "public_keys", 65, n, s) if keys is not None else None
        lengths_obj = _device.empty(items, (n,), "i8")
        lengths = _device.view(lengths_obj, "lengths", s)
        status_obj, status = _device.status_output(items, None, n, s)
        self._ctx.sm2_crypt_device(encrypting, pub._k if pub else None, k.ptr if k else 0,
                                   key._k if key else None, form, data.ptr, data.nbytes,
                                   offs.ptr, n, dst.ptr, dst.nbytes, lengths.ptr, status.ptr, s)
        return dst_obj, lengths_obj, status_obj

    def _crypt(self, encrypting: bool, pub: Any, keys: Optional[bytes], key: Any,
               items: Sequence[Buffer], format: CipherFormat) -> List[Optional[bytes]]:
        data, offsets = _messages_in(items)
        form = _format(format)
        out, lengths, status = self._ctx.sm2_crypt_batch(encrypting, pub, keys, key, form, data,
                                                        offsets)
        extra = _native.sm2_ciphertext_bound(0, form) if encrypting else 0
        lens = memoryview(lengths).cast("Q")
        codes = _status_codes(status)
        bounds = list(offsets)
        return [out[bounds[i] + i * extra:bounds[i] + i * extra + lens[i]] if codes[i] == 0
                else None for i in range(len(lens))]

    @overload
    def keygen(self, count: int, *, as_numpy: Literal[False] = ...) -> List[Tuple[bytes, bytes]]: ...
    @overload
    def keygen(self, count: int, *, as_numpy: Literal[True]) -> Tuple[ByteRows, ByteRows]: ...
    @overload
    def keygen(self, count: int, *, out: Tuple[Any, Any], stream: Any = ...) -> Tuple[Any, Any, Any]: ...

    def keygen(self, count: int, *, as_numpy: bool = False, out: Any = None,
               stream: Any = None) -> Any:
        """count fresh (private 32-byte d, public 65-byte 04||x||y) pairs;
        as_numpy: (d rows (count, 32), public rows (count, 65)). With out=
        (d rows, public rows) arrays in GPU memory, the keys are drawn and
        written there: returns (d rows, public rows, statuses)."""
        if count < 0:
            raise ValueError("count must not be negative")
        if out is not None:
            d_obj, pub_obj = out
            _device.require_gpu_context(self._ctx)
            s = _device.stream_of(d_obj, stream)
            d = _device.fixed_items(d_obj, "private keys", 32, count, s)
            pub = _device.fixed_items(pub_obj, "public keys", 65, count, s)
            status_obj, status = _device.status_output(d_obj, None, count, s)
            self._ctx.sm2_keygen_device(count, d.ptr, pub.ptr, status.ptr, s)
            return d_obj, pub_obj, status_obj
        _device.host_only(stream)
        priv, pub = self._ctx.sm2_keygen(count, _output(count, 32, as_numpy),
                                         _output(count, 65, as_numpy))
        if as_numpy:
            return priv, pub
        return list(zip(_split(priv, 32), _split(pub, 65)))

    @overload
    def sign(self, key: SM2PrivateKey, messages: CudaArray, id: Ids = ..., *,
             encoding: Literal["raw"], offsets: Any = ..., out: Any = ...,
             stream: Any = ...) -> Tuple[Any, Any]: ...
    @overload
    def sign(self, key: SM2PrivateKey, messages: Any, id: Ids = ..., *,
             deterministic: bool = ..., encoding: Encoding = ..., offsets: Any = ...,
             as_numpy: Literal[False] = ...) -> List[bytes]: ...
    @overload
    def sign(self, key: SM2PrivateKey, messages: Any, id: Ids = ..., *,
             deterministic: bool = ..., encoding: Encoding = ..., offsets: Any = ...,
             as_numpy: Literal[True], out: Any = ...) -> ByteRows: ...

    def sign(self, key: SM2PrivateKey, messages: Any, id: Ids = DEFAULT_ID, *,
             deterministic: bool = False, encoding: Encoding = "der", offsets: Any = None,
             as_numpy: bool = False, out: Any = None, stream: Any = None) -> Any:
        """Signatures of many messages (a sequence, or flat data with
        offsets=) under one key.

        In GPU memory (flat uint8 messages with offsets=, one ID, random
        nonces, encoding="raw"): returns ((count, 64) r||s rows, int32
        statuses) on that device, an item whose offsets fall outside the
        messages getting -5 and 64 zero bytes."""
        if _device.any_device(messages, offsets, out):
            s = _device.stream_of(messages, stream)
            data, offs, n = _device.flat_messages(self._ctx, messages, offsets, s)
            if not _one_id(id):
                raise ValueError("a batch in GPU memory takes one ID for every item")
            return self._sign_device(key, encoding, deterministic, messages, out, n, s,
                                     id=id, data=data, offsets=offs)
        _device.host_only(stream)
        data, offs = _messages_in(messages, offsets)
        nonce = _NONCES[bool(deterministic)]
        _check_out(encoding, as_numpy)
        n = _count_in(offs)
        out = _output(n, 64, as_numpy, out)
        if _one_id(id):
            raw = self._ctx.sm2_sign_batch(key._k, id, data, offs, nonce, out)
        else:
            digests = self._digests(key.public_key().public_bytes_raw() * n, id, data, offs, n)
            raw = self._ctx.sm2_sign_digest_batch(key._k, digests, nonce, out)
        return _signatures_out(raw, encoding, as_numpy)

    @overload
    def sign_digests(self, key: SM2PrivateKey, digests: CudaArray, *, encoding: Literal["raw"],
                     out: Any = ..., stream: Any = ...) -> Tuple[Any, Any]: ...
    @overload
    def sign_digests(self, key: SM2PrivateKey, digests: Any, *, deterministic: bool = ...,
                     encoding: Encoding = ..., as_numpy: Literal[False] = ...) -> List[bytes]: ...
    @overload
    def sign_digests(self, key: SM2PrivateKey, digests: Any, *, deterministic: bool = ...,
                     encoding: Encoding = ..., as_numpy: Literal[True],
                     out: Any = ...) -> ByteRows: ...

    def sign_digests(self, key: SM2PrivateKey, digests: Any, *,
                     deterministic: bool = False, encoding: Encoding = "der",
                     as_numpy: bool = False, out: Any = None, stream: Any = None) -> Any:
        """digests: 32-byte items as a sequence, or one flat buffer / numpy
        array of count * 32 bytes (read in place); in GPU memory as sign
        takes messages there."""
        if _device.any_device(digests, out):
            _device.require_gpu_context(self._ctx)
            s = _device.stream_of(digests, stream)
            e = _device.view(digests, "digests", s)
            n = e.nbytes // 32
            _device.items_of(e, "digests", 32, n)
            return self._sign_device(key, encoding, deterministic, digests, out, n, s, digests=e)
        _device.host_only(stream)
        _check_out(encoding, as_numpy)
        flat = _fixed(digests, 32, "digests")
        out = _output(_count_of(flat, 32), 64, as_numpy, out)
        raw = self._ctx.sm2_sign_digest_batch(key._k, flat, _NONCES[bool(deterministic)], out)
        return _signatures_out(raw, encoding, as_numpy)

    @overload
    def verify(self, public_keys: Any, messages: CudaArray, signatures: Any, id: Ids = ...,
               encoding: Encoding = ..., *, offsets: Any = ..., out: Any = ...,
               stream: Any = ...) -> Any: ...
    @overload
    def verify(self, public_keys: Any, messages: Any, signatures: Any, id: Ids = ...,
               encoding: Encoding = ..., *, offsets: Any = ...,
               as_numpy: Literal[False] = ..., stream: Any = ...) -> List[int]: ...
    @overload
    def verify(self, public_keys: Any, messages: Any, signatures: Any, id: Ids = ...,
               encoding: Encoding = ..., *, offsets: Any = ...,
               as_numpy: Literal[True], out: Any = ..., stream: Any = ...) -> StatusArray: ...

    def verify(self, public_keys: Any, messages: Any, signatures: Any,
               id: Ids = DEFAULT_ID, encoding: Encoding = "der", *,
               offsets: Any = None, as_numpy: bool = False, out: Any = None,
               stream: Any = None) -> Any:
        """Per-item status: 0 for valid, else a kuaisuo error code
        (kuaisuo.strerror(code) says which; a malformed DER signature gets
        its decoding error). public_keys: one SM2PublicKey for the whole
        batch (checked over its table: precompute() builds it, and so does
        a large batch, from 256 items with AVX-512 IFMA or 32 a thread
        without, for later calls to reuse), or one per item (SM2PublicKey
        objects or 65-byte 04||x||y, as a sequence or one flat buffer).
        messages: a sequence of buffers,
        or flat data with offsets=. Raw signatures may be one flat buffer
        too.

        With arrays in GPU memory (CuPy, PyTorch CUDA, DLPack: uint8 keys of
        65 bytes an item or one SM2PublicKey, checked over its table kept on
        the device; flat messages with offsets=, raw r||s signatures with
        encoding="raw", one ID) on a GPU context, the batch runs there
        with no host copies, queued on `stream` (default: the array
        library's current stream), and the statuses are an int32 array of
        the same library on the device (out= or a new one); an item whose
        offsets fall outside messages gets -5 (KS_ERR_OFFSETS)."""
        if _device.any_device(public_keys, messages, signatures, offsets, out):
            s = _device.stream_of(messages, stream)
            data, offs, n = _device.flat_messages(self._ctx, messages, offsets, s)
            if not _one_id(id):
                raise ValueError("a batch in GPU memory takes one ID for every item")
            status_obj, status = _device.status_output(messages, out, n, s)
            if isinstance(public_keys, SM2PublicKey):  # over its device table
                sigs = self._device_signatures(signatures, encoding, n, s)
                self._ctx.sm2_verify_key_device(public_keys._k, id, 0, data.ptr, data.nbytes,
                                                offs.ptr, n, sigs.ptr, status.ptr, s)
                return status_obj
            keys, sigs = self._device_items(public_keys, signatures, encoding, n, s)
            self._ctx.sm2_verify_device(keys.ptr, id, data.ptr, data.nbytes, offs.ptr, n,
                                        sigs.ptr, status.ptr, s)
            return status_obj
        _device.host_only(stream)
        data, offs = _messages_in(messages, offsets)
        n = len(offs) - 1
        keys = self._verify_keys(public_keys, n)
        raw, bad = self._raw_signatures(signatures, encoding, n)
        out = _status_output(as_numpy, out)
        if _one_id(id):
            status = self._ctx.sm2_verify_batch(keys, id, data, offs, raw, out)
        else:
            digests, bad_id = self._ctx.sm2_digest_batch(self._keys(public_keys, n),
                                                         *_ids_in(id, n), data, offs)
            status = self._ctx.sm2_verify_digest_batch(keys, digests, raw, out)
            bad = {**{i: b for i, b in enumerate(_status_codes(bad_id)) if b}, **bad}
        return _with_codes(_statuses(status, as_numpy, out), bad)

    @overload
    def verify_digests(self, public_keys: Any, digests: CudaArray, signatures: Any,
                       encoding: Encoding = ..., *, out: Any = ...,
                       stream: Any = ...) -> Any: ...
    @overload
    def verify_digests(self, public_keys: Any, digests: Any, signatures: Any,
                       encoding: Encoding = ..., *, as_numpy: Literal[False] = ...,
                       stream: Any = ...) -> List[int]: ...
    @overload
    def verify_digests(self, public_keys: Any, digests: Any, signatures: Any,
                       encoding: Encoding = ..., *, as_numpy: Literal[True],
                       out: Any = ..., stream: Any = ...) -> StatusArray: ...

    def verify_digests(self, public_keys: Any, digests: Any, signatures: Any,
                       encoding: Encoding = "der", *, as_numpy: bool = False,
                       out: Any = None, stream: Any = None) -> Any:
        """As verify, on 32-byte digests e (a sequence, or one flat buffer
        or numpy array of count * 32 bytes); arrays in GPU memory as
        verify takes them."""
        if _device.any_device(public_keys, digests, signatures, out):
            _device.require_gpu_context(self._ctx)
            s = _device.stream_of(digests, stream)
            e = _device.view(digests, "digests", s)
            n = e.nbytes // 32
            _device.items_of(e, "digests", 32, n)
            status_obj, status = _device.status_output(digests, out, n, s)
            if isinstance(public_keys, SM2PublicKey):  # over its device table
                sigs = self._device_signatures(signatures, encoding, n, s)
                self._ctx.sm2_verify_key_device(public_keys._k, b"", e.ptr, 0, 0, 0, n,
                                                sigs.ptr, status.ptr, s)
                return status_obj
            keys, sigs = self._device_items(public_keys, signatures, encoding, n, s)
            self._ctx.sm2_verify_digest_device(keys.ptr, e.ptr, n, sigs.ptr, status.ptr, s)
            return status_obj
        _device.host_only(stream)
        flat = _fixed(digests, 32, "digests")
        n = _count_of(flat, 32)
        keys = self._verify_keys(public_keys, n)
        raw, bad = self._raw_signatures(signatures, encoding, n)
        out = _status_output(as_numpy, out)
        status = self._ctx.sm2_verify_digest_batch(keys, flat, raw, out)
        return _with_codes(_statuses(status, as_numpy, out), bad)

    def _sign_device(self, key: SM2PrivateKey, encoding: str, deterministic: bool, like: Any,
                     out: Any, n: int, s: int, id: Any = b"", data: Any = None,
                     offsets: Any = None, digests: Any = None) -> Tuple[Any, Any]:
        """A signing batch in GPU memory: (r||s rows, statuses)."""
        if encoding != "raw":
            raise ValueError("signatures in GPU memory are raw r||s: pass encoding='raw'")
        if deterministic:
            raise ValueError("signing in GPU memory draws random nonces (RFC 6979's are "
                             "derived on the CPU only)")
        sigs = _device.new_items(like, out, "out", 64, n, s)
        status_obj, status = _device.status_output(like, None, n, s)
        self._ctx.sm2_sign_device(key._k, 0, id, digests.ptr if digests else 0,
                                  data.ptr if data else 0, data.nbytes if data else 0,
                                  offsets.ptr if offsets else 0, n, sigs.ptr, status.ptr, s)
        return sigs.obj, status_obj

    @staticmethod
    def _device_items(public_keys: Any, signatures: Any, encoding: str, n: int,
                      s: int) -> Tuple[Any, Any]:
        """A device batch's 65-byte keys and raw 64-byte signatures."""
        return (_device.fixed_items(public_keys, "public_keys", 65, n, s),
                SM2Batch._device_signatures(signatures, encoding, n, s))

    @staticmethod
    def _device_signatures(signatures: Any, encoding: str, n: int, s: int) -> Any:
        """A device batch's raw 64-byte signatures."""
        if encoding != "raw":
            raise ValueError("signatures in GPU memory are raw r||s: pass encoding='raw'")
        return _device.fixed_items(signatures, "signatures", 64, n, s)

    def digests(self, public_keys: Any, messages: Any, id: Ids = DEFAULT_ID, *,
                offsets: Any = None, id_offsets: Any = None, out: Any = None,
                stream: Any = None) -> Tuple[Any, Any]:
        """e_i = SM3(Z_A(P_i, ID_i) || M_i) for each item and its status (0,
        or the error of a bad public key or overlong ID): what sign_digests
        and verify_digests take, for callers that hash apart from signing.

        In GPU memory ((n, 65) uint8 keys, flat uint8 messages with
        offsets=, the IDs flat uint8 with id_offsets=, all there): returns
        ((n, 32) digests, statuses) on that device; a range outside its
        data is -5 (KS_ERR_OFFSETS) for its item alone."""
        if _device.any_device(public_keys, messages, offsets, id, id_offsets, out):
            return _device.sm2_digests(self._ctx, public_keys, id, id_offsets, messages,
                                       offsets, out, stream)
        _device.host_only(out, stream)
        if id_offsets is not None:
            raise TypeError("id_offsets= is for IDs in GPU memory; on the host pass a list of IDs")
        data, offs = _messages_in(messages, offsets)
        n = len(offs) - 1
        keys = self._keys(public_keys, n)
        ids = [id] * n if _one_id(id) else id
        digests, status = self._ctx.sm2_digest_batch(keys, *_ids_in(ids, n), data, offs)
        return _split(digests, 32), _statuses(status, False)

    def _digests(self, keys: Any, ids: Any, data: Any, offs: Any, n: int) -> bytes:
        """Digests of a signing batch with per-item IDs (an overlong ID is
        a ValueError naming its item)."""
        digests, status = self._ctx.sm2_digest_batch(keys, *_ids_in(ids, n), data, offs)
        for i, code in enumerate(_status_codes(status)):
            if code:
                raise ValueError(f"id[{i}]: {_native.strerror(code)}")
        return digests

    @classmethod
    def _verify_keys(cls, public_keys: Any, n: int) -> Any:
        """A verify batch's keys: one SM2PublicKey's native key, which the
        native calls take for every item (ks_sm2_verify_batch_key: its
        table built once, its 65 bytes not repeated), or 65-byte keys for
        n items as _keys gives them."""
        if isinstance(public_keys, SM2PublicKey):
            return public_keys._k
        return cls._keys(public_keys, n)

    @staticmethod
    def _keys(public_keys: Any, n: int) -> Any:
        """65-byte keys for n items: one SM2PublicKey repeated, or one per
        item (a wrong count is a ValueError)."""
        if isinstance(public_keys, SM2PublicKey):
            return public_keys.public_bytes_raw() * n
        keys = _fixed(public_keys, 65, "public_keys",
                      lambda k: k.public_bytes_raw() if isinstance(k, SM2PublicKey) else None)
        if _count_of(keys, 65) != n:
            raise ValueError(f"{_count_of(keys, 65)} public keys for {n} items")
        return keys

    @staticmethod
    def _raw_signatures(signatures: Any, encoding: Encoding, n: int):
        """r||s for every item; undecodable DER becomes a zero signature whose
        status is replaced by the decoding error. Raw signatures may come as
        one flat buffer."""
        _check_encoding(encoding)
        if encoding == "raw":
            raw = _fixed(signatures, 64, "signatures")
            if _count_of(raw, 64) != n:
                raise ValueError(f"{_count_of(raw, 64)} signatures for {n} items")
            return raw, {}
        if len(signatures) != n:
            raise ValueError(f"{len(signatures)} signatures for {n} items")
        raws, bad = [], {}
        for i, sig in enumerate(signatures):
            try:
                raws.append(_native.sm2_signature_from_der(sig))
            except KuaisuoError as e:
                raws.append(bytes(64))
                bad[i] = e.code
        return b"".join(raws), bad


__all__ = ["DEFAULT_ID", "Encoding", "SM2Batch", "SM2PrivateKey", "SM2PublicKey",
           "signature_from_der", "signature_to_der"]
