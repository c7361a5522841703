"""Password-encrypted PKCS#8 for every private-key class: `password=` on
``from_der``/``from_pem`` as in pyca/cryptography's load_pem_private_key,
and on ``to_der``/``to_pem`` (PBES2; see ks_pkcs8_encrypt in kuaisuo.h)."""

from typing import Any, Callable, Literal, Optional, Union

from . import _native
from ._native import KuaisuoError
from ._items import Buffer

Password = Union[str, Buffer]

# The PBES2 schemes by name: OpenSSL 3's default, AES-128, and GmSSL's
# (PBKDF2-HMAC-SM3 with SM4-CBC, as `gmssl sm2keygen -pass` writes).
SCHEMES = {"aes-256-cbc": 0, "aes-128-cbc": 1, "sm4-cbc": 2}
_DEFAULT_PRF = {"aes-256-cbc": "sha256", "aes-128-cbc": "sha256", "sm4-cbc": "sm3"}
_SM4_SHA256 = 3  # KS_PBES2_SM4_SHA256
PRFS = ("sm3", "sha256")
Scheme = Literal["aes-256-cbc", "aes-128-cbc", "sm4-cbc"]
Prf = Literal["sm3", "sha256"]
DEFAULT_ITERATIONS = 600_000


def _password_bytes(password: Password) -> bytes:
    return password.encode("utf-8") if isinstance(password, str) else bytes(password)


# Reading stops at this many PBKDF2 iterations unless the caller sets
# another maximum (KS_PBES2_DEFAULT_MAX_ITERATIONS): a hostile file cannot
# cost more than what kuaisuo itself writes by default.
DEFAULT_MAX_ITERATIONS = 600_000
ITERATIONS_LIMIT = 10_000_000


_PEM_ENCRYPTED = -31  # KS_ERR_PEM_ENCRYPTED: the decoders' "this key is encrypted"
# KS_ERR_WRONG_PASSPHRASE, _PBES2_UNSUPPORTED, _PBES2_ITERATIONS: an encrypted key
_DECRYPTION_ERRORS = (-50, -51, -52)


class KeyIsEncrypted(TypeError):
    """The private key is encrypted and no password was given (a TypeError,
    as pyca/cryptography raises)."""


class KeyNotEncrypted(TypeError):
    """A password was given but the private key is not encrypted (a
    TypeError, as pyca/cryptography raises)."""


def load(decode: Callable[[Buffer], Any], data: Buffer, password: Optional[Password],
         max_iterations: Optional[int] = None) -> Any:
    """decode (a native private-key decoder) applied to data, decrypted
    first when a password is given. The native decoders tell an encrypted
    key (PKCS#8 EncryptedPrivateKeyInfo, DER or PEM) from any other input,
    so nothing here sniffs the bytes. As in pyca/cryptography, no password
    for an encrypted key and one for a plain key are TypeErrors
    (KeyIsEncrypted, KeyNotEncrypted); a wrong one raises KuaisuoError
    (code -50). max_iterations bounds the file's PBKDF2 iteration count
    (None: DEFAULT_MAX_ITERATIONS; at most ITERATIONS_LIMIT)."""
    if max_iterations is not None and not 1 <= max_iterations <= ITERATIONS_LIMIT:
        raise ValueError(f"max_iterations must be from 1 to {ITERATIONS_LIMIT:,}, "
                         f"not {max_iterations}")
    if password is None:
        try:
            return decode(data)
        except KuaisuoError as e:
            if e.code == _PEM_ENCRYPTED:
                raise KeyIsEncrypted(f"{e.message}: pass its password (password=...)") from None
            raise
    try:
        plain = _native.pkcs8_decrypt(data, _password_bytes(password), max_iterations or 0)
    except KuaisuoError as e:
        if e.code in _DECRYPTION_ERRORS:
            raise
        encrypted_error = e
    else:
        return decode(plain)
    # Not an encrypted key that could be read: a plain one, or neither?
    try:
        decode(data)
    except KuaisuoError as e:
        raise (encrypted_error if e.code == _PEM_ENCRYPTED else e) from None
    raise KeyNotEncrypted("a password was given but the private key is not encrypted")


def scheme_code(scheme: str, prf: Optional[str]) -> int:
    """The ks_pbes2_scheme of a cipher and PRF by name. prf None is the
    cipher's usual one: HMAC-SHA256 for AES, HMAC-SM3 for SM4 (GmSSL's;
    OpenSSL 3.0 and Tongsuo cannot read it: "unsupported prf"); "sha256"
    with SM4 is read by all three."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
    code = SCHEMES[scheme]
    if prf is None or prf == _DEFAULT_PRF[scheme]:
        return code
    if scheme == "sm4-cbc" and prf == "sha256":
        return _SM4_SHA256
    allowed = "sm3 or sha256" if scheme == "sm4-cbc" else "sha256"
    raise ValueError(f"prf for {scheme} must be {allowed}, not {prf!r}")


def lock(der: bytes, password: Password, pem: bool, scheme: str, iterations: int,
         prf: Optional[str] = None) -> bytes:
    """EncryptedPrivateKeyInfo around a PrivateKeyInfo DER."""
    code = scheme_code(scheme, prf)
    if not 1 <= iterations <= ITERATIONS_LIMIT:
        raise ValueError(f"iterations must be from 1 to {ITERATIONS_LIMIT:,}, not {iterations}")
    return _native.pkcs8_encrypt(der, _password_bytes(password), code, iterations, pem)


class EncryptableKey:
    """to_der and to_pem of a private-key class whose native object has
    encode(pem): PKCS#8 as OpenSSL writes it, encrypted under password when
    one is given (scheme: aes-256-cbc, OpenSSL's default; aes-128-cbc; or
    sm4-cbc, with prf "sm3" (GmSSL's, the default for SM4) or "sha256"
    (which OpenSSL 3 and Tongsuo also read); see scheme_code)."""

    _k: Any  # the native key object: Sm2Key, Ed25519Key or X25519Key

    def to_der(self, password: Optional[Password] = None, *, scheme: Scheme = "aes-256-cbc",
               iterations: int = DEFAULT_ITERATIONS, prf: Optional[Prf] = None) -> bytes:
        """PKCS#8 DER; EncryptedPrivateKeyInfo (PBES2) under password when one is given."""
        der = self._k.encode(False)
        return der if password is None else lock(der, password, False, scheme, iterations, prf)

    def to_pem(self, password: Optional[Password] = None, *, scheme: Scheme = "aes-256-cbc",
               iterations: int = DEFAULT_ITERATIONS, prf: Optional[Prf] = None) -> str:
        """PKCS#8 PEM ("PRIVATE KEY", or "ENCRYPTED PRIVATE KEY" under password)."""
        if password is None:
            return self._k.encode(True).decode("ascii")
        return lock(self._k.encode(False), password, True, scheme, iterations,
                    prf).decode("ascii")
