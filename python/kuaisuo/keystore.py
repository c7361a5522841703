"""A directory of keys by id (signing keys and SM4 keys), for a service in front of the library
(`kuaisuo.batching` takes the keys it returns).

Each file `<id>.pem` or `<id>.der` in the directory holds one SM2 or
Ed25519 private key as PKCS#8 (or SEC1 for SM2), DER or PEM, as OpenSSL,
GmSSL and `kuaisuo sm2 keygen` / `kuaisuo ed25519 keygen` write them, or one SM4 key (PKCS#8 with the sm4
OID, as `kuaisuo sm4 keygen` writes it); the file's name without its suffix
is the key id (letters, digits, '.', '_' and '-'). Files may be encrypted
at rest with one passphrase for the directory: PBES2 as `kuaisuo sm2 keygen
--passout`, `openssl genpkey -aes256` (PBKDF2-HMAC-SHA256, AES-256-CBC)
or `gmssl sm2keygen -pass` (PBKDF2-HMAC-SM3, SM4-CBC) write it. A
directory may mix encrypted and plain files; a plain file is accepted
only when `allow_plain=True`.

load() reads them all: the keys that load replace the store's set at once
(a request never sees half a reload), and each file that does not load is
reported by name with the library's reason, never with its bytes. reload()
does the same again; load_async() does it with the files read and their
passphrase derivations (PBKDF2, slow on purpose) run on a thread, which is
what the service runs on SIGHUP (reload_on_signal), so that requests are
answered meanwhile; a reload that fails (the directory cannot be read)
keeps the set it had. max_iterations bounds the PBKDF2 iteration count a
file may ask for (None: the library's default bound), so that a planted
file cannot stall a (re)load. Keys never leave the process through this
module: the store's repr and reports carry ids, algorithms and file names
only.

Access maps clients' bearer tokens to the key ids each may use, from a
JSON file that holds SHA-256 digests of the tokens, never the tokens:

    {"tokens": {"<sha256 hex of a token>": ["gov-signer", "node_7"],
                "<sha256 hex of another>": ["*"]}}

("*": every key). `kuaisuo.keystore.token_digest(token)` gives the hex.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import signal
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Tuple, Union

from ._native import KuaisuoError
from ._pkcs8 import KeyNotEncrypted, Password
from .ed25519 import Ed25519PrivateKey
from .sm2 import SM2PrivateKey
from .sm4 import SM4Key

PrivateKey = Union[SM2PrivateKey, Ed25519PrivateKey, SM4Key]

_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
_SUFFIXES = (".pem", ".der")
_KEY_ALGORITHM = -33  # KS_ERR_KEY_ALGORITHM: a key of another algorithm


@dataclass(frozen=True)
class LoadError:
    """One file that did not load: its name and the reason."""
    file: str
    reason: str


_DECODERS = (SM2PrivateKey.from_der, Ed25519PrivateKey.from_der, SM4Key.from_der)
_ALGORITHMS = {SM2PrivateKey: "sm2", Ed25519PrivateKey: "ed25519", SM4Key: "sm4"}


def _decode(data: bytes, password: Optional[Password], **bounds: Any) -> PrivateKey:
    """SM2, else Ed25519, else SM4 (each decoder names a key of another
    algorithm with KS_ERR_KEY_ALGORITHM). bounds: max_iterations, when set."""
    for decode in _DECODERS[:-1]:
        try:
            return decode(data, password, **bounds)
        except KuaisuoError as e:
            if e.code != _KEY_ALGORITHM:
                raise
    return _DECODERS[-1](data, password, **bounds)


class KeyStore:
    """Keys by id from one directory."""

    def __init__(self, directory: Union[str, os.PathLike], password: Optional[Password] = None,
                 *, allow_plain: bool = False, max_iterations: Optional[int] = None) -> None:
        self.directory = os.fspath(directory)
        self._password = password
        self._allow_plain = allow_plain
        # Passed only when set: None is the decoders' own default bound.
        self._bounds = {} if max_iterations is None else {"max_iterations": max_iterations}
        self._keys: Dict[str, PrivateKey] = {}
        self.errors: List[LoadError] = []
        self._reloads: Optional[asyncio.Lock] = None

    def load(self) -> List[LoadError]:
        """Reads the directory; returns (and keeps in .errors) the files
        that did not load. Raises OSError if the directory cannot be read
        (the set is then unchanged)."""
        return self._swap(*self._read_all())

    reload = load

    async def load_async(self) -> List[LoadError]:
        """load() with the reading and key derivation on the loop's default
        executor; the set is swapped on the loop's thread, at once, after
        every file has been read. Reloads run one at a time, in order."""
        if self._reloads is None:
            self._reloads = asyncio.Lock()
        async with self._reloads:
            read = await asyncio.get_running_loop().run_in_executor(None, self._read_all)
            return self._swap(*read)

    def _swap(self, keys: Dict[str, PrivateKey], errors: List[LoadError]) -> List[LoadError]:
        self._keys, self.errors = keys, errors
        return errors

    def _read_all(self) -> Tuple[Dict[str, PrivateKey], List[LoadError]]:
        keys: Dict[str, PrivateKey] = {}
        errors: List[LoadError] = []
        for name in sorted(os.listdir(self.directory)):
            stem, suffix = os.path.splitext(name)
            if suffix not in _SUFFIXES:
                continue
            if not _ID.match(stem):
                errors.append(LoadError(name, "the key id (the name without its suffix) must be "
                                              "1-128 letters, digits, '.', '_' or '-'"))
                continue
            if stem in keys:
                errors.append(LoadError(name, f"a second file for key id {stem!r}"))
                continue
            try:
                keys[stem] = self._read(os.path.join(self.directory, name))
            except (KuaisuoError, TypeError, ValueError, OSError) as e:
                errors.append(LoadError(name, str(e)))
        return keys, errors

    def _read(self, path: str) -> PrivateKey:
        with open(path, "rb") as f:
            data = f.read()
        # The decoders tell an encrypted key from a plain one (no sniffing here).
        if self._password is None:
            key = _decode(data, None)  # KeyIsEncrypted for an encrypted one
        else:
            try:
                return _decode(data, self._password, **self._bounds)
            except KeyNotEncrypted:
                key = _decode(data, None)
        if not self._allow_plain:
            raise ValueError("the key is not encrypted and the store takes encrypted keys "
                             "only (allow_plain=True accepts plain ones)")
        return key

    def get(self, key_id: str) -> Optional[PrivateKey]:
        """The key of that id, or None."""
        return self._keys.get(key_id)

    def ids(self) -> List[str]:
        """The ids of the loaded keys, sorted."""
        return sorted(self._keys)

    def algorithm(self, key_id: str) -> Optional[str]:
        """"sm2", "ed25519" or "sm4" for a loaded id, else None."""
        key = self._keys.get(key_id)
        return None if key is None else _ALGORITHMS[type(key)]

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"KeyStore({self.directory!r}, {len(self._keys)} keys, {len(self.errors)} errors)"

    def reload_on_signal(self, loop: asyncio.AbstractEventLoop,
                         signum: int = signal.SIGHUP) -> None:
        """Reloads the directory (load_async) when the process gets signum
        (POSIX); the files that do not load, or why the reload failed, are
        logged one line each (logger kuaisuo.keystore)."""
        loop.add_signal_handler(signum, lambda: loop.create_task(self._logged_reload()))

    async def _logged_reload(self) -> None:
        log = logging.getLogger("kuaisuo.keystore")
        try:
            errors = await self.load_async()
        except OSError as e:
            log.error("key reload failed, keeping the %d keys loaded before: %s",
                      len(self), e)
            return
        for error in errors:
            log.warning("key not loaded: %s: %s", error.file, error.reason)
        log.info("keys reloaded: %d", len(self))


def token_digest(token: Union[str, bytes]) -> str:
    """The SHA-256 hex of a bearer token, as an Access file holds it."""
    raw = token.encode("utf-8") if isinstance(token, str) else bytes(token)
    return hashlib.sha256(raw).hexdigest()


class Access:
    """Which key ids each bearer token may use. Tokens are looked up by
    their SHA-256 digest, so the file (and this object) never hold a token
    and a lookup's timing depends on a digest the caller cannot steer."""

    def __init__(self, grants: Dict[str, List[str]]) -> None:
        self._grants: Dict[str, FrozenSet[str]] = {}
        for digest, ids in grants.items():
            if not re.fullmatch(r"[0-9a-f]{64}", digest):
                raise ValueError(f"access: {digest[:16]!r}... is not a SHA-256 hex digest")
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ValueError(f"access: the grant of {digest[:16]}... must be a list of key ids")
            self._grants[digest] = frozenset(ids)

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]) -> "Access":
        """The grants of a JSON access file, {"tokens": {"<sha256 hex of a
        token>": ["key id", ...]}}; ValueError says what is wrong with it."""
        with open(path, "rb") as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                raise ValueError(f"access file {os.fspath(path)!r}: not JSON ({e})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("tokens"), dict):
            raise ValueError(f"access file {os.fspath(path)!r}: expected "
                             '{"tokens": {"<sha256 hex>": ["key id", ...]}}')
        return cls(doc["tokens"])

    def known(self, token: Union[str, bytes]) -> bool:
        """Whether the token is granted anything (an authenticated client)."""
        return token_digest(token) in self._grants

    def allowed(self, token: Union[str, bytes], key_id: str) -> bool:
        """Whether the token may use key_id."""
        ids = self._grants.get(token_digest(token))
        return ids is not None and ("*" in ids or key_id in ids)

    def __repr__(self) -> str:
        return f"Access({len(self._grants)} tokens)"


__all__ = ["Access", "KeyStore", "LoadError", "token_digest"]
