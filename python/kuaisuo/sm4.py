"""SM4 (GB/T 32907-2016): ECB, CBC, CFB-128, OFB, CTR and GCM.

Every path is constant time (AES-NI / GFNI S-box kernels where the CPU has
them, a bitsliced one elsewhere). The one-shot functions take and return
bytes; SM4GCM has the shape of the cryptography package's AESGCM::

    >>> from kuaisuo import sm4
    >>> ct = sm4.encrypt(key, data, mode="ctr", iv=counter0)
    >>> sm4.SM4GCM(key).encrypt(nonce, data, aad)   # ciphertext || tag

The mode is always named, and ECB and CBC always say whether they pad
(padding=True is PKCS#7, what the CLI and `openssl enc` do by default;
padding=False takes whole 16-byte blocks). CTR's IV is the first counter
block, a 128-bit big-endian integer that wraps modulo 2^128.
A wrong tag raises InvalidTag (a KuaisuoError, KS_ERR_TAG_MISMATCH) and
releases no plaintext.

SM4Key is a key that lives in a file (PKCS#8 with the sm4 OID, optionally
encrypted at rest; README "SM4 key files") and encrypts with its key
schedule kept across calls; ``ctx.sm4`` (SM4Batch) runs many messages at
once, GCM with a per-item nonce among them.
"""

from __future__ import annotations

import os
from typing import Any, List, Literal, Optional, Sequence, Tuple, Union

from . import _device, _native
from ._items import (Buffer, count_in, fixed, flat, messages_in, named_mode, split_at,
                     status_codes, statuses, view)
from ._pkcs8 import EncryptableKey, Password, load


_MODES = {
    "ecb": _native.SM4_ECB,
    "cbc": _native.SM4_CBC,
    "cfb": _native.SM4_CFB,
    "ofb": _native.SM4_OFB,
    "ctr": _native.SM4_CTR,
}

KEY_BYTES = 16
BLOCK_BYTES = 16
NONCE_BYTES = 12  # GCM's 96-bit IV (SP 800-38D 8.2), the one the GPU path takes
TAG_BYTES = 16
SEALED_OVERHEAD = NONCE_BYTES + TAG_BYTES  # a sealed box: nonce || ciphertext || tag
_ERR_LENGTH = -3  # KS_ERR_LENGTH


Mode = Literal["ecb", "cbc", "cfb", "ofb", "ctr"]
BufferMode = Literal["ecb", "ctr"]


def _mode(name: str) -> int:
    return named_mode(_MODES, name, "SM4")


def _one_shot_args(call: str, mode: str, iv: Optional[Buffer], padding: Optional[bool]
                   ) -> Tuple[int, bool]:
    """(native mode, padding) of sm4.encrypt/decrypt, with their rules
    said in the words of the call: an IV for every mode but ECB (none for
    ECB), padding chosen explicitly for ECB and CBC (the CLI and `openssl
    enc` pad with PKCS#7 by default; earlier releases of this module did
    not), and none for the stream modes."""
    code = _mode(mode)
    name = mode.lower()
    if name == "ecb" and iv is not None:
        raise ValueError(f"sm4.{call}: ECB takes no iv")
    if name != "ecb" and iv is None:
        raise TypeError(f"sm4.{call}: mode {name!r} needs iv= (16 bytes"
                        f"{', the first counter block' if name == 'ctr' else ''})")
    if name in ("ecb", "cbc"):
        if padding is None:
            raise TypeError(f"sm4.{call}: say padding=True (PKCS#7, as the CLI and openssl "
                            f"enc use) or padding=False (whole 16-byte blocks) for {name.upper()}")
    elif padding:
        raise ValueError(f"sm4.{call}: {name.upper()} is a stream mode: no padding")
    return code, bool(padding)


def encrypt(key: Buffer, data: Buffer, *, mode: Mode, iv: Optional[Buffer] = None,
            padding: Optional[bool] = None) -> bytes:
    """SM4 encryption of data in mode (ecb, cbc, cfb, ofb, ctr). iv: 16
    bytes for every mode but ECB. padding: True (PKCS#7) or False, to be
    given for ECB and CBC; the stream modes take none."""
    code, pad = _one_shot_args("encrypt", mode, iv, padding)
    return _native.sm4_encrypt(code, key, iv, data, pad)


def decrypt(key: Buffer, data: Buffer, *, mode: Mode, iv: Optional[Buffer] = None,
            padding: Optional[bool] = None) -> bytes:
    """The inverse of encrypt, with the same mode, iv and padding."""
    code, pad = _one_shot_args("decrypt", mode, iv, padding)
    return _native.sm4_decrypt(code, key, iv, data, pad)


class SM4GCM:
    """SM4-GCM (NIST SP 800-38D; RFC 8998's TLS_SM4_GCM_SM3) under one key."""

    def __init__(self, key: Buffer) -> None:
        if view(key).nbytes != KEY_BYTES:
            raise ValueError("SM4 keys are 16 bytes")
        self._key = bytes(view(key))

    def encrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer] = None,
                tag_length: int = 16) -> bytes:
        """ciphertext || tag (tag_length 4..16; 12..16 unless you know SP 800-38D appendix C)."""
        return _native.sm4_gcm_seal(self._key, nonce, data, associated_data or b"", tag_length)

    def decrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer] = None,
                tag_length: int = 16) -> bytes:
        """The plaintext of ciphertext || tag; InvalidTag (a KuaisuoError) on a
        wrong tag, before anything is decrypted."""
        whole = view(data)
        if not 0 < tag_length <= whole.nbytes:
            raise ValueError("data shorter than the tag")
        return _native.sm4_gcm_open(self._key, nonce, whole[:-tag_length], whole[-tag_length:],
                                    associated_data or b"")


class SM4Key(EncryptableKey):
    """An SM4 key that can be kept in a file: to_der / to_pem write PKCS#8
    with the sm4 OID (1.2.156.10197.1.104), encrypted under a password when
    one is given (PBES2, as for the private keys); from_der / from_pem read
    it back. The format is kuaisuo's own (no standard names one for a
    symmetric key); README "SM4 key files" describes it. encrypt / decrypt
    run sm4.encrypt / decrypt with the key schedule made once per key."""

    def __init__(self, key: Buffer) -> None:
        raw = bytes(view(key))
        if len(raw) != KEY_BYTES:
            raise ValueError("SM4 keys are 16 bytes")
        self._key = raw
        self._k = self  # EncryptableKey encodes through self.encode(pem)

    @classmethod
    def generate(cls) -> "SM4Key":
        """A fresh key from the OS CSPRNG (getrandom)."""
        return cls(os.urandom(KEY_BYTES))

    @classmethod
    def from_der(cls, data: Union[str, Buffer], password: Optional[Password] = None,
                 *, max_iterations: Optional[int] = None) -> "SM4Key":
        """The key of a DER or PEM key file; password= for an encrypted one
        (TypeError for a password without encryption or the reverse,
        KuaisuoError code -50 for a wrong one, -33 for a file of another
        algorithm)."""
        raw = data.encode("ascii") if isinstance(data, str) else data
        return cls(load(_native.sm4_key_decode, raw, password, max_iterations))

    from_pem = from_der

    def encode(self, pem: bool) -> bytes:
        """The plain PKCS#8, DER or PEM (to_der / to_pem add encryption)."""
        return _native.sm4_key_encode(self._key, pem)

    def to_bytes(self) -> bytes:
        """The 16 key bytes."""
        return self._key

    def encrypt(self, data: Buffer, *, mode: Mode, iv: Optional[Buffer] = None,
                padding: Optional[bool] = None) -> bytes:
        """sm4.encrypt under this key, its key schedule made once (on first
        use) and reused by every call: what short messages want."""
        code, pad = _one_shot_args("encrypt", mode, iv, padding)
        return self._expanded().crypt(True, code, iv, data, pad)

    def decrypt(self, data: Buffer, *, mode: Mode, iv: Optional[Buffer] = None,
                padding: Optional[bool] = None) -> bytes:
        """sm4.decrypt under this key, with the key schedule reused."""
        code, pad = _one_shot_args("decrypt", mode, iv, padding)
        return self._expanded().crypt(False, code, iv, data, pad)

    def _expanded(self) -> Any:
        schedule = getattr(self, "_schedule", None)
        if schedule is None:
            schedule = self._schedule = _native.Sm4Schedule(self._key)
        return schedule

    def gcm(self) -> SM4GCM:
        """SM4-GCM under this key."""
        return SM4GCM(self._key)

    def __repr__(self) -> str:
        return "SM4Key(<secret>)"

    def __reduce__(self) -> Any:
        # Never serialise a key by accident (pickle, multiprocessing): to_der
        # / to_pem with a password are the way to move one.
        raise TypeError("SM4Key is not picklable; use to_pem(password) or to_der(password)")


def _key_rows(keys: Any, count: int) -> Any:
    """One 16-byte key per item: keys is one key (an SM4Key or 16 bytes)
    for every item, or a sequence of them."""
    if isinstance(keys, SM4Key):
        return keys.to_bytes() * count
    if isinstance(keys, (bytes, bytearray, memoryview)) and view(keys).nbytes == KEY_BYTES:
        return bytes(view(keys)) * count
    return fixed(keys, KEY_BYTES, "keys",
                 lambda k: k.to_bytes() if isinstance(k, SM4Key) else None)


def _uint8_rows(rows: Any, what: str) -> Any:
    import numpy as np

    if not (isinstance(rows, np.ndarray) and rows.dtype == np.uint8 and rows.ndim == 2):
        raise TypeError(f"{what}: a 2-D uint8 numpy array, one item per row")
    return rows


def _aad_in(associated_data: Optional[Sequence[Buffer]], count: int) -> Tuple[bytes, Any]:
    if associated_data is None:
        return b"", None
    if len(associated_data) != count:
        raise ValueError("associated_data: one item (b'' for none) per message")
    return flat(associated_data)


class SM4Batch:
    """SM4 on a Context (``ctx.sm4``): one large buffer in ECB or CTR, on
    the GPU of a GPU context (AUTO: from 4 MiB) through the chunked pipeline
    with overlapped copies, else split over the context's CPU threads."""

    def __init__(self, ctx) -> None:
        self._ctx = ctx

    def encrypt_buffer(self, key: Buffer, data: Any, *, mode: BufferMode,
                       iv: Optional[Buffer] = None, tables: bool = False, out: Any = None,
                       stream: Any = None) -> Any:
        """ECB (whole blocks) or CTR (iv: the first counter block) of data.
        tables=True lets the GPU use its T-table kernel: faster, but its
        memory addresses depend on the key and data, which another tenant
        of the same GPU may observe; the default kernel is constant time.
        data in GPU memory (a CuPy array, a PyTorch CUDA tensor, any DLPack
        object) on a GPU context is encrypted there with no host copies,
        queued on `stream` (default: the array library's current stream):
        the result is an array of its library, out= (data itself to work
        in place) or a new one like data."""
        return self._buffer(True, key, data, mode, iv, tables, out, stream)

    def decrypt_buffer(self, key: Buffer, data: Any, *, mode: BufferMode,
                       iv: Optional[Buffer] = None, tables: bool = False, out: Any = None,
                       stream: Any = None) -> Any:
        """The inverse of encrypt_buffer."""
        return self._buffer(False, key, data, mode, iv, tables, out, stream)

    def _buffer(self, encrypt: bool, key: Buffer, data: Any, mode: str, iv: Optional[Buffer],
                tables: bool, out: Any, stream: Any) -> Any:
        code = _mode(mode)
        if _device.is_device(data):
            return _device.crypt(self._ctx, lambda src, dst, n, s: self._ctx.sm4_crypt_device(
                code, encrypt, key, iv, src, dst, n, s, tables), data, out, stream)
        _device.host_only(out, stream)
        return self._ctx.sm4_crypt_buffer(code, encrypt, key, iv, data, tables)

    def gcm_seal_buffer(self, key: Buffer, nonce: Buffer, data: Any,
                        associated_data: Optional[Buffer] = None, *,
                        tag_length: int = TAG_BYTES, tables: bool = False, out: Any = None,
                        tag_out: Any = None, stream: Any = None) -> Tuple[Any, Any]:
        """SM4-GCM of one large buffer on the context (its GPU for a GPU
        context): (ciphertext, tag). Host data gives bytes. data in GPU
        memory stays there (12-byte nonces): the ciphertext goes to out=
        (data itself to seal in place) or a new array like data, and the
        tag to tag_out= or a new uint8 array of tag_length on the same
        device, both queued on `stream`. The AAD is host bytes."""
        aad = b"" if associated_data is None else associated_data
        if not _device.is_device(data):
            _device.host_only(out, stream, tag_out)
            ct, tag = self._ctx.sm4_gcm_buffer(True, key, nonce, aad, data, b"", tag_length,
                                               tables)
            return ct, tag
        _device.require_gpu_context(self._ctx)
        s = _device.stream_of(data, stream)
        src = _device.view(data, "data", s)
        dst = _device.output(out, src, s)
        tag_obj = tag_out if tag_out is not None else _device.empty(data, (tag_length,), "u1")
        tag = _device.view(tag_obj, "tag_out", s)
        if tag.nbytes != tag_length:
            raise ValueError(f"tag_out must hold tag_length ({tag_length}) bytes")
        self._ctx.sm4_gcm_device(True, key, nonce, aad, src.ptr, dst.ptr, src.nbytes, tag.ptr,
                                 tag_length, s, tables)
        return dst.obj, tag_obj

    def gcm_open_buffer(self, key: Buffer, nonce: Buffer, data: Any, tag: Any,
                        associated_data: Optional[Buffer] = None, *, tables: bool = False,
                        out: Any = None, stream: Any = None) -> Any:
        """The inverse of gcm_seal_buffer: the plaintext, or InvalidTag
        with nothing written. In GPU memory, data and tag are arrays on the
        same device; the call waits on `stream` for the tag's verdict,
        which is checked before any plaintext is written (out=, which may
        be data itself, or a new array like data)."""
        aad = b"" if associated_data is None else associated_data
        if not _device.is_device(data):
            _device.host_only(out, stream)
            plain, _ = self._ctx.sm4_gcm_buffer(False, key, nonce, aad, data, tag, 0, tables)
            return plain
        _device.require_gpu_context(self._ctx)
        s = _device.stream_of(data, stream)
        src = _device.view(data, "data", s)
        t = _device.view(tag, "tag", s)
        dst = _device.output(out, src, s)
        self._ctx.sm4_gcm_device(False, key, nonce, aad, src.ptr, dst.ptr, src.nbytes, t.ptr,
                                 t.nbytes, s, tables)
        return dst.obj

    def encrypt(self, keys: Any, messages: Any, *, mode: Mode, ivs: Any = None,
                offsets: Any = None, out: Any = None, stream: Any = None) -> Tuple[Any, Any]:
        """Many messages in ECB, CBC, CFB, OFB or CTR (GCM: gcm_encrypt),
        each under its own key (or one key for all) and IV (16 bytes per
        item; none for ECB): the outputs and a status per item (0, or a
        kuaisuo.strerror code: an ECB/CBC item that is not whole blocks
        fails alone; batches take no padding). messages: a list, or one
        buffer with offsets. On the context's CPU threads, or its GPU on a
        GPU context. In GPU memory (README "Data on the GPU"): messages a
        flat uint8 array with offsets (count + 1, uint64 or int64), keys
        (count, 16) and ivs (count, 16) uint8 arrays on the same device;
        returns (out, int32 statuses) as arrays there (out=: an array of
        messages' size, which may be messages itself), an item whose
        offsets fall outside the messages failing alone."""
        return self._batch(True, keys, messages, mode, ivs, offsets, out, stream)

    def decrypt(self, keys: Any, messages: Any, *, mode: Mode, ivs: Any = None,
                offsets: Any = None, out: Any = None, stream: Any = None) -> Tuple[Any, Any]:
        """The inverse of encrypt, with the same keys, mode and IVs."""
        return self._batch(False, keys, messages, mode, ivs, offsets, out, stream)

    def _batch(self, encrypt: bool, keys: Any, messages: Any, mode: str, ivs: Any,
               offsets: Any, out: Any, stream: Any) -> Tuple[Any, Any]:
        code = _mode(mode)
        if (mode.lower() == "ecb") != (ivs is None):
            raise ValueError("ivs: one 16-byte IV per item, except in ECB (none)")
        if _device.any_device(messages, keys, ivs, offsets):
            how = _device.Sm4Batch(code, encrypt, 0 if ivs is None else BLOCK_BYTES)
            result, _, status = _device.sm4_batch(self._ctx, how, keys, ivs, messages, offsets,
                                                  None, None, None, out, stream)
            return result, status
        _device.host_only(out, stream)
        data, offs = messages_in(messages, offsets)
        count = count_in(offs)
        flat_ivs = b"" if ivs is None else fixed(ivs, BLOCK_BYTES, "ivs")
        out, _, status = self._ctx.sm4_batch(
            code, encrypt, _key_rows(keys, count), flat_ivs, 0 if ivs is None else BLOCK_BYTES,
            data, offs, b"", None, b"", 0)
        return split_at(out, offs), statuses(status, False)

    def gcm_encrypt(self, keys: Any, nonces: Any, messages: Any,
                    associated_data: Any = None, *, tag_length: int = TAG_BYTES,
                    offsets: Any = None, aad_offsets: Any = None, out: Any = None,
                    stream: Any = None) -> Tuple[Any, ...]:
        """SM4-GCM of many messages, each under its own nonce (12 bytes;
        never reuse one under a key) and key (one key for all, or one per
        item), with optional per-item AAD: ciphertext || tag per item and a
        status per item (0, else a kuaisuo.strerror code). On the context's
        CPU threads, or its GPU for a GPU context. In GPU memory (README
        "Data on the GPU"): messages a flat uint8 array with offsets, keys
        (count, 16) and nonces (count, 12) uint8 arrays, associated_data a
        flat uint8 array with aad_offsets (or None); returns (ciphertexts,
        tags (count, tag_length), int32 statuses) as arrays there."""
        if _device.any_device(messages, keys, nonces, offsets):
            how = _device.Sm4Batch(_native.SM4_GCM, True, NONCE_BYTES, tag_length)
            return _device.sm4_batch(self._ctx, how, keys, nonces, messages, offsets,
                                     associated_data, aad_offsets, None, out, stream)
        _device.host_only(out, stream)
        count = len(messages)
        data, offsets = flat(messages)
        aad, aad_offsets = _aad_in(associated_data, count)
        out, tags, status = self._ctx.sm4_batch(
            _native.SM4_GCM, True, _key_rows(keys, count), fixed(nonces, NONCE_BYTES, "nonces"),
            NONCE_BYTES, data, offsets, aad, aad_offsets, b"", tag_length)
        return [out[offsets[i]:offsets[i + 1]] + tags[tag_length * i:tag_length * (i + 1)]
                for i in range(count)], statuses(status, False)

    def gcm_decrypt(self, keys: Any, nonces: Any, sealed: Any,
                    associated_data: Any = None, *, tag_length: int = TAG_BYTES,
                    offsets: Any = None, aad_offsets: Any = None, tags: Any = None,
                    out: Any = None, stream: Any = None) -> Tuple[Any, Any]:
        """The inverse of gcm_encrypt: the plaintext of each ciphertext ||
        tag, or None with its status (KS_ERR_TAG_MISMATCH for one that does
        not authenticate, KS_ERR_LENGTH for one shorter than the tag); no
        plaintext of an item that fails is released. In GPU memory: sealed
        the flat ciphertexts with offsets, tags= the (count, tag_length)
        tags; returns (plaintexts, int32 statuses) as arrays there, an item
        that fails not written."""
        if _device.any_device(sealed, keys, nonces, offsets, tags):
            if tags is None:
                raise ValueError("ciphertexts in GPU memory need tags= (count, tag_length)")
            how = _device.Sm4Batch(_native.SM4_GCM, False, NONCE_BYTES, tag_length)
            plain, _, status = _device.sm4_batch(self._ctx, how, keys, nonces, sealed, offsets,
                                                 associated_data, aad_offsets, tags, out,
                                                 stream)
            return plain, status
        _device.host_only(out, stream)
        if tags is not None:
            raise TypeError("tags= is for ciphertexts in GPU memory; host items end with "
                            "their tags")
        count = len(sealed)
        views = [view(item) for item in sealed]
        short = [v.nbytes < tag_length for v in views]
        bodies = [b"" if s else v[:v.nbytes - tag_length] for v, s in zip(views, short)]
        tags = b"".join(bytes(tag_length) if s else bytes(v[v.nbytes - tag_length:])
                        for v, s in zip(views, short))
        data, offsets = flat(bodies)
        aad, aad_offsets = _aad_in(associated_data, count)
        out, _, status = self._ctx.sm4_batch(
            _native.SM4_GCM, False, _key_rows(keys, count), fixed(nonces, NONCE_BYTES, "nonces"),
            NONCE_BYTES, data, offsets, aad, aad_offsets, tags, tag_length)
        status = [_ERR_LENGTH if s else st for s, st in zip(short, status_codes(status))]
        return [out[offsets[i]:offsets[i + 1]] if status[i] == 0 else None
                for i in range(count)], status

    def gcm_seal_rows(self, key: Any, rows: Any) -> Tuple[Any, Any]:
        """SM4-GCM of fixed-size plaintexts, the rows of a (count, width)
        uint8 numpy array, each under a fresh random 96-bit nonce from the
        OS (SP 800-38D 8.2.2; keep to 2^32 per key, 8.3): (count, 12 +
        width + 16) rows nonce || ciphertext || tag and an int32 status per
        row, the row zero where its status is not 0. No Python work per
        row: what a server's rows form needs."""
        import numpy as np

        rows = _uint8_rows(rows, "rows")
        count, width = rows.shape
        nonces = np.frombuffer(os.urandom(NONCE_BYTES * count), np.uint8)
        nonces = nonces.reshape(count, NONCE_BYTES)
        out, tags, statuses = self._rows_call(True, key, nonces, rows, b"")
        sealed = np.concatenate([nonces, out, tags.reshape(count, TAG_BYTES)], axis=1)
        sealed[statuses != 0] = 0
        return sealed, statuses

    def gcm_open_rows(self, key: Any, sealed: Any) -> Tuple[Any, Any]:
        """The inverse of gcm_seal_rows: (count, 12 + width + 16) rows in,
        (count, width) plaintext rows and a status per row out; a row that
        does not authenticate gets KS_ERR_TAG_MISMATCH and zeros."""
        sealed = _uint8_rows(sealed, "sealed")
        width = sealed.shape[1] - SEALED_OVERHEAD
        if width < 0:
            raise ValueError(f"sealed rows hold at least {SEALED_OVERHEAD} bytes")
        out, _, statuses = self._rows_call(False, key, sealed[:, :NONCE_BYTES],
                                           sealed[:, NONCE_BYTES:NONCE_BYTES + width],
                                           sealed[:, NONCE_BYTES + width:])
        plain = out.copy()
        plain[statuses != 0] = 0
        return plain, statuses

    def _rows_call(self, encrypt: bool, key: Any, nonces: Any, data: Any,
                   tags: Any) -> Tuple[Any, Any, Any]:
        """One ks_sm4_batch GCM call on rows: (out rows, tag bytes as uint8,
        int32 statuses)."""
        import numpy as np

        count, width = data.shape
        if count == 0:
            return (np.zeros((0, width), np.uint8), np.zeros(0, np.uint8),
                    np.zeros(0, np.int32))
        offsets = np.arange(count + 1, dtype=np.uint64) * np.uint64(width)
        out, tags_out, status = self._ctx.sm4_batch(
            _native.SM4_GCM, encrypt, _key_rows(key, count), np.ascontiguousarray(nonces),
            NONCE_BYTES, np.ascontiguousarray(data), offsets, b"", None,
            np.ascontiguousarray(tags) if len(tags) else b"", TAG_BYTES)
        return (np.frombuffer(out, np.uint8).reshape(count, width),
                np.frombuffer(tags_out, np.uint8), statuses(status, True))


__all__ = ["BLOCK_BYTES", "BufferMode", "KEY_BYTES", "Mode", "NONCE_BYTES", "SEALED_OVERHEAD",
           "SM4Batch", "SM4GCM", "SM4Key", "TAG_BYTES", "decrypt", "encrypt"]
