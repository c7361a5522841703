"""SKINNY-128-256 (Beierle et al., CRYPTO 2016), a tweakable block cipher:
ECB and CTR under a 32-byte tweakey TK1 || TK2, and blocks with a tweak of
their own (TK1 per block, TK2 the key) as Romulus and Deoxys-style modes
use them. Constant time: the S-box is computed by its circuit.

    >>> from kuaisuo import skinny
    >>> ct = skinny.encrypt(tweakey32, data, mode="ctr", iv=counter0)
    >>> skinny.decrypt(tweakey32, ct, mode="ctr", iv=counter0) == data
    True

CTR's iv is the first counter block, a 128-bit big-endian integer
incremented by one per block, wrapping modulo 2^128; CTR takes any length,
ECB whole 16-byte blocks (no padding).
"""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Tuple

from . import _device, _native
from ._items import Buffer, fixed, messages_in, named_mode, split_at, statuses, view

TWEAKEY_BYTES = 32
BLOCK_BYTES = 16
_MODES = {"ecb": _native.SKINNY_ECB, "ctr": _native.SKINNY_CTR}


Mode = Literal["ecb", "ctr"]


def _mode(name: str) -> int:
    return named_mode(_MODES, name, "SKINNY")


def encrypt(tweakey: Buffer, data: Buffer, *, mode: Mode,
            iv: Optional[Buffer] = None) -> bytes:
    """ECB or CTR encryption of data under the 32-byte tweakey."""
    return _native.skinny_crypt(_mode(mode), True, tweakey, iv, data)


def decrypt(tweakey: Buffer, data: Buffer, *, mode: Mode,
            iv: Optional[Buffer] = None) -> bytes:
    """The inverse of encrypt."""
    return _native.skinny_crypt(_mode(mode), False, tweakey, iv, data)


def encrypt_tweaked(key: Buffer, tweaks: Buffer, data: Buffer) -> bytes:
    """Block i of data under TK1 = tweaks[16i:16i+16], TK2 = key (16 bytes)."""
    return _native.skinny_tweaked_blocks(True, key, tweaks, data)


def decrypt_tweaked(key: Buffer, tweaks: Buffer, data: Buffer) -> bytes:
    """The inverse of encrypt_tweaked."""
    return _native.skinny_tweaked_blocks(False, key, tweaks, data)


class SkinnyCTR:
    """Streaming CTR: update() any number of times, len(out) == len(in)."""

    def __init__(self, tweakey: Buffer, iv: Buffer) -> None:
        self._s = _native.SkinnyCtr(tweakey, iv)

    def update(self, data: Buffer) -> bytes:
        """The next len(data) bytes of data XOR the keystream (thread-safe)."""
        return self._s.update(data)


class SkinnyBatch:
    """SKINNY on a Context (``ctx.skinny``), on its CPU threads."""

    def __init__(self, ctx: _native.Context) -> None:
        self._ctx = ctx

    def encrypt_buffer(self, tweakey: Buffer, data: Any, *, mode: Mode,
                       iv: Optional[Buffer] = None, out: Any = None, stream: Any = None) -> Any:
        """One large buffer, split over the context's threads; bytes in,
        bytes out. data in GPU memory (a CuPy array, a PyTorch CUDA tensor,
        any DLPack object: kuaisuo._device) on a GPU context runs there in
        place of host copies, queued on `stream` (default: the array
        library's current stream), and returns an array of its library
        (out=, which may be data itself, or a new one)."""
        return self._buffer(True, tweakey, data, mode, iv, out, stream)

    def decrypt_buffer(self, tweakey: Buffer, data: Any, *, mode: Mode,
                       iv: Optional[Buffer] = None, out: Any = None, stream: Any = None) -> Any:
        """The inverse of encrypt_buffer."""
        return self._buffer(False, tweakey, data, mode, iv, out, stream)

    def _buffer(self, encrypt: bool, tweakey: Buffer, data: Any, mode: str,
                iv: Optional[Buffer], out: Any, stream: Any) -> Any:
        code = _mode(mode)
        if _device.is_device(data):
            return _device.crypt(self._ctx, lambda src, dst, n, s: self._ctx.skinny_crypt_device(
                code, encrypt, tweakey, iv, src, dst, n, s), data, out, stream)
        _device.host_only(out, stream)
        return self._ctx.skinny_crypt_buffer(code, encrypt, tweakey, iv, data)

    def encrypt(self, tweakeys: Any, messages: Any, *, mode: Mode, ivs: Any = None,
                offsets: Any = None, out: Any = None, stream: Any = None) -> Tuple[Any, Any]:
        """Many items, each under its own tweakey (and iv for CTR): the
        outputs and per-item statuses (0, or kuaisuo.strerror's code: an
        ECB item that is not whole blocks fails alone).

        In GPU memory (flat uint8 messages with offsets=, (n, 32) tweakeys
        and (n, 16) ivs there): returns (out, statuses) on that device, out=
        (which may be messages itself) or a new array."""
        return self._batch(True, tweakeys, messages, mode, ivs, offsets, out, stream)

    def decrypt(self, tweakeys: Any, messages: Any, *, mode: Mode, ivs: Any = None,
                offsets: Any = None, out: Any = None, stream: Any = None) -> Tuple[Any, Any]:
        """The inverse of encrypt, with the same tweakeys, mode and ivs."""
        return self._batch(False, tweakeys, messages, mode, ivs, offsets, out, stream)

    def _batch(self, encrypt: bool, tweakeys: Any, messages: Any, mode: str, ivs: Any,
               offsets: Any, out: Any, stream: Any) -> Tuple[Any, Any]:
        if _device.any_device(messages, tweakeys, ivs, offsets):
            return _device.skinny_batch(self._ctx, _mode(mode), encrypt, tweakeys, ivs, messages,
                                        offsets, out, stream)
        _device.host_only(out, stream)
        data, offs = messages_in(messages, offsets)
        keys = fixed(tweakeys, TWEAKEY_BYTES, "tweakeys")
        flat_ivs = None if ivs is None else fixed(ivs, BLOCK_BYTES, "ivs")
        out, status = self._ctx.skinny_batch(_mode(mode), encrypt, keys, flat_ivs, data, offs)
        return split_at(out, offs), statuses(status, False)


__all__ = ["BLOCK_BYTES", "SkinnyBatch", "SkinnyCTR", "TWEAKEY_BYTES", "decrypt",
           "decrypt_tweaked", "encrypt", "encrypt_tweaked"]
