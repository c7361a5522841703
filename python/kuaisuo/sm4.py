"""SM4 (GB/T 32907-2016): ECB, CBC, CFB-128, OFB, CTR and GCM.

Every path is constant time (AES-NI / GFNI S-box kernels where the CPU has
them, a bitsliced one elsewhere). The one-shot functions take and return
bytes; SM4GCM has the shape of the cryptography package's AESGCM::

    >>> from kuaisuo import sm4
    >>> ct = sm4.encrypt(key, data, mode="ctr", iv=counter0)
    >>> sm4.SM4GCM(key).encrypt(nonce, data, aad)   # ciphertext || tag

CTR's IV is the first counter block, a 128-bit big-endian integer that
wraps modulo 2^128. ECB/CBC take PKCS#7 padding on request (padding=True,
as `openssl enc` does); without it lengths must be multiples of 16.
A wrong tag raises KuaisuoError (KS_ERR_TAG_MISMATCH) and releases no
plaintext.
"""

from __future__ import annotations

from typing import Optional, Union

from . import _native
from ._items import Buffer, view


_MODES = {
    "ecb": _native.SM4_ECB,
    "cbc": _native.SM4_CBC,
    "cfb": _native.SM4_CFB,
    "ofb": _native.SM4_OFB,
    "ctr": _native.SM4_CTR,
}

KEY_BYTES = 16
BLOCK_BYTES = 16


def _mode(name: str) -> int:
    try:
        return _MODES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown SM4 mode {name!r} (one of {', '.join(_MODES)})") from None


def encrypt(key: Buffer, data: Buffer, *, mode: str = "ctr", iv: Optional[Buffer] = None,
            padding: bool = False) -> bytes:
    """SM4 encryption of data in mode (ecb, cbc, cfb, ofb, ctr)."""
    return _native.sm4_encrypt(_mode(mode), key, iv, data, padding)


def decrypt(key: Buffer, data: Buffer, *, mode: str = "ctr", iv: Optional[Buffer] = None,
            padding: bool = False) -> bytes:
    """SM4 decryption of data in mode (ecb, cbc, cfb, ofb, ctr)."""
    return _native.sm4_decrypt(_mode(mode), key, iv, data, padding)


class SM4GCM:
    """SM4-GCM (NIST SP 800-38D; RFC 8998's TLS_SM4_GCM_SM3) under one key."""

    def __init__(self, key: Buffer) -> None:
        if view(key).nbytes != KEY_BYTES:
            raise ValueError("SM4 keys are 16 bytes")
        self._key = bytes(view(key))

    def encrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer] = None,
                tag_length: int = 16) -> bytes:
        """ciphertext || tag (tag_length 4..16; 12..16 unless you know SP 800-38D appendix C)."""
        ct, tag = _native.sm4_gcm_seal(self._key, nonce, data, associated_data or b"", tag_length)
        return ct + tag

    def decrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer] = None,
                tag_length: int = 16) -> bytes:
        """The plaintext of ciphertext || tag; KuaisuoError on a wrong tag."""
        whole = view(data)
        if not 0 < tag_length <= whole.nbytes:
            raise ValueError("data shorter than the tag")
        return _native.sm4_gcm_open(self._key, nonce, whole[:-tag_length], whole[-tag_length:],
                                    associated_data or b"")


class SM4Batch:
    """SM4 on a Context (``ctx.sm4``): one large buffer in ECB or CTR, on
    the GPU of a GPU context (AUTO: from 4 MiB) through the chunked pipeline
    with overlapped copies, else split over the context's CPU threads."""

    def __init__(self, ctx) -> None:
        self._ctx = ctx

    def encrypt_buffer(self, key: Buffer, data: Buffer, *, mode: str = "ctr",
                       iv: Optional[Buffer] = None, tables: bool = False) -> bytes:
        """ECB (whole blocks) or CTR (iv: the first counter block) of data.
        tables=True lets the GPU use its T-table kernel: faster, but its
        memory addresses depend on the key and data, which another tenant
        of the same GPU may observe; the default kernel is constant time."""
        return self._ctx.sm4_crypt_buffer(_mode(mode), True, key, iv, data, tables)

    def decrypt_buffer(self, key: Buffer, data: Buffer, *, mode: str = "ctr",
                       iv: Optional[Buffer] = None, tables: bool = False) -> bytes:
        """The inverse of encrypt_buffer."""
        return self._ctx.sm4_crypt_buffer(_mode(mode), False, key, iv, data, tables)
