"""Password-encrypted PKCS#8 for every private-key class: `password=` on
``from_der``/``from_pem`` as in pyca/cryptography's load_pem_private_key,
and on ``to_der``/``to_pem`` (PBES2; see ks_pkcs8_encrypt in kuaisuo.h)."""

from typing import Any, Optional, Union

from . import _native
from ._items import Buffer

Password = Union[str, Buffer]

# The PBES2 schemes by name: OpenSSL 3's default, AES-128, and GmSSL's
# (PBKDF2-HMAC-SM3 with SM4-CBC, as `gmssl sm2keygen -pass` writes).
SCHEMES = {"aes-256-cbc": 0, "aes-128-cbc": 1, "sm4-cbc": 2}
DEFAULT_ITERATIONS = 600_000


def _password_bytes(password: Password) -> bytes:
    return password.encode("utf-8") if isinstance(password, str) else bytes(password)


def is_encrypted(data: Buffer) -> bool:
    """An EncryptedPrivateKeyInfo (its SEQUENCE opens with the algorithm's
    SEQUENCE, a PrivateKeyInfo's with its version INTEGER), or PEM with the
    "ENCRYPTED PRIVATE KEY" label."""
    b = bytes(data)
    if b[:1] != b"\x30":
        return b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in b
    if len(b) < 2:
        return False
    head = 2 + (b[1] & 0x7F if b[1] & 0x80 else 0)
    return len(b) > head and b[head] == 0x30


# Reading stops at this many PBKDF2 iterations unless the caller sets
# another maximum (KS_PBES2_DEFAULT_MAX_ITERATIONS): a hostile file cannot
# cost more than what kuaisuo itself writes by default.
DEFAULT_MAX_ITERATIONS = 600_000
ITERATIONS_LIMIT = 10_000_000


def unlock(data: Buffer, password: Optional[Password],
           max_iterations: Optional[int] = None) -> Buffer:
    """The plain key inside data, decrypted with password when it is
    encrypted. As in pyca/cryptography, a password for a plain key and none
    for an encrypted one are TypeErrors; a wrong one raises KuaisuoError
    (code -50). max_iterations bounds the file's PBKDF2 iteration count
    (None: DEFAULT_MAX_ITERATIONS; at most ITERATIONS_LIMIT)."""
    if max_iterations is not None and not 1 <= max_iterations <= ITERATIONS_LIMIT:
        raise ValueError(f"max_iterations must be from 1 to {ITERATIONS_LIMIT:,}, "
                         f"not {max_iterations}")
    encrypted = is_encrypted(data)
    if password is None:
        if encrypted:
            raise TypeError("the private key is encrypted: pass its password (password=...)")
        return data
    if not encrypted:
        raise TypeError("a password was given but the private key is not encrypted")
    return _native.pkcs8_decrypt(data, _password_bytes(password), max_iterations or 0)


def lock(der: bytes, password: Password, pem: bool, scheme: str, iterations: int) -> bytes:
    """EncryptedPrivateKeyInfo around a PrivateKeyInfo DER."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
    if not 1 <= iterations <= ITERATIONS_LIMIT:
        raise ValueError(f"iterations must be from 1 to {ITERATIONS_LIMIT:,}, not {iterations}")
    return _native.pkcs8_encrypt(der, _password_bytes(password), SCHEMES[scheme], iterations,
                                 pem)


class EncryptableKey:
    """to_der and to_pem of a private-key class whose native object has
    encode(pem): PKCS#8 as OpenSSL writes it, encrypted under password when
    one is given (scheme: aes-256-cbc, OpenSSL's default; aes-128-cbc; or
    sm4-cbc, GmSSL's with PBKDF2-HMAC-SM3)."""

    _k: Any  # the native key object: Sm2Key, Ed25519Key or X25519Key

    def to_der(self, password: Optional[Password] = None, *, scheme: str = "aes-256-cbc",
               iterations: int = DEFAULT_ITERATIONS) -> bytes:
        der = self._k.encode(False)
        return der if password is None else lock(der, password, False, scheme, iterations)

    def to_pem(self, password: Optional[Password] = None, *, scheme: str = "aes-256-cbc",
               iterations: int = DEFAULT_ITERATIONS) -> str:
        if password is None:
            return self._k.encode(True).decode("ascii")
        return lock(self._k.encode(False), password, True, scheme, iterations).decode("ascii")
