"""The calls `kuaisuo serve` answers, apart from any transport: who may
do what (bearer tokens from `keystore.Access`), which key (the
`keystore.KeyStore`), request limits, the audit log, and the items handed
to the `batching.Batcher`. The HTTP/JSON and gRPC front ends decode their
requests into these calls and encode the per-item results; both give the
same answers because both go through here."""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Awaitable, List, NoReturn, Optional, Sequence, Tuple

from kuaisuo import batching, strerror
from kuaisuo.keystore import Access, KeyStore, token_digest

from .seal_ledger import LedgerError, SealLedger

Result = batching.Result

# A refused request: kind names the class of error (the front ends map it
# to an HTTP status and a gRPC code), message says what was wrong.
UNAUTHENTICATED = "unauthenticated"
PERMISSION_DENIED = "permission_denied"
NOT_FOUND = "not_found"
INVALID_ARGUMENT = "invalid_argument"
FAILED_PRECONDITION = "failed_precondition"  # e.g. a key that has sealed all it may


class RequestError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Limits:
    """Per-request bounds; a request past them is refused whole."""
    max_items: int = 4096             # items in one request
    max_body_bytes: int = 16 << 20    # encoded request size (the transports enforce it)
    max_timeout: float = 60.0         # a client's timeout is capped here


@dataclass
class Counters:
    requests: int = 0   # requests accepted (authorised, well formed, handed to the batcher)
    replies: int = 0    # requests whose every item got its status
    refused: int = 0    # requests refused whole (RequestError)


_SIGN = {("sm2", False): batching.SM2_SIGN, ("sm2", True): batching.SM2_SIGN_DIGESTS,
         ("ed25519", False): batching.ED25519_SIGN}
_VERIFY = {("sm2", False): batching.SM2_VERIFY, ("sm2", True): batching.SM2_VERIFY_DIGESTS,
           ("ed25519", False): batching.ED25519_VERIFY}
_HASH = {"sm3": batching.SM3_HASH}
_CIPHER = {"encrypt": batching.SM4_GCM_SEAL, "decrypt": batching.SM4_GCM_OPEN}


def bearer(authorization: Optional[str]) -> Optional[str]:
    """The token of an `Authorization: Bearer <token>` header (or gRPC
    metadata) value, else None."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def describe(status: int) -> str:
    """The library's text for a per-item status."""
    return "ok" if status == batching.OK else strerror(status)


class Service:
    """sign / verify / hash / encrypt / decrypt for authenticated clients.
    audit: a logger that gets one JSON line per request that uses a key
    (never key bytes or data)."""

    def __init__(self, batcher: batching.Batcher, keys: KeyStore, access: Access, *,
                 limits: Limits = Limits(), audit: Optional[logging.Logger] = None,
                 seal_ledger: Optional[SealLedger] = None) -> None:
        self.batcher, self.keys, self.access, self.limits = batcher, keys, access, limits
        self.seal_ledger = seal_ledger  # counts encrypt's random nonces per key (None: no count)
        self.audit = audit or logging.getLogger("kuaisuo.audit")
        self.counters = Counters()

    async def sign(self, token: Optional[str], key_id: str, items: Sequence[Any], *,
                   digests: bool = False, timeout: Optional[float] = None,
                   peer: str = "") -> List[Result]:
        """Signatures by key_id: of messages, or of 32-byte SM2 digests e."""
        client, key, algorithm = self._key(token, key_id)
        op = _SIGN.get((algorithm, digests))
        if op is None:
            self._refuse(INVALID_ARGUMENT, f"{algorithm} keys sign messages, not digests"
                         if (algorithm, False) in _SIGN else f"key id {key_id!r} does not sign "
                                                            f"(an {algorithm} key)")
        self._admit(len(items), timeout)
        results = await self._run(self.batcher.submit(op, key, items, timeout=self._cap(timeout)))
        self._audit("sign", client, peer, key_id, algorithm, len(results),
                    sum(1 for s, _ in results if s == batching.OK), digests=digests)
        return results

    async def crypt(self, token: Optional[str], direction: str, key_id: str,
                    items: Sequence[Any], associated_data: Optional[Sequence[Any]] = None, *,
                    timeout: Optional[float] = None, peer: str = "") -> List[Result]:
        """SM4-GCM under key_id. direction "encrypt": a sealed box nonce ||
        ciphertext || tag per plaintext, the nonce fresh and random;
        "decrypt": the plaintext per box, KS_ERR_TAG_MISMATCH for one that
        does not authenticate. associated_data: None or one per item."""
        client, key = self._cipher_key(token, direction, key_id)
        op = _CIPHER[direction]
        if associated_data is not None and len(associated_data) != len(items):
            self._refuse(INVALID_ARGUMENT, "associated data: one per item, or none")
        self._admit(len(items), timeout)
        if direction == "encrypt":
            self._count_seals(key_id, key, len(items))
        pairs = list(zip(items, associated_data if associated_data is not None
                         else [b""] * len(items)))
        results = await self._run(self.batcher.submit(op, key, pairs, timeout=self._cap(timeout)))
        self._audit(direction, client, peer, key_id, "sm4", len(results),
                    sum(1 for s, _ in results if s == batching.OK))
        return results

    async def crypt_rows(self, token: Optional[str], direction: str, key_id: str, rows: Any,
                         row_bytes: int, *, timeout: Optional[float] = None,
                         peer: str = "") -> Tuple[Any, Any]:
        """crypt's rows form, O(1) Python work per request: plaintexts of
        row_bytes each in one buffer; encrypt answers int32 statuses and
        rows of row_bytes + 28 (nonce || ciphertext || tag), decrypt takes
        those rows and answers the plaintext rows (zero where a row does
        not authenticate)."""
        client, key = self._cipher_key(token, direction, key_id)
        if not (isinstance(row_bytes, int) and 1 <= row_bytes <= self.limits.max_body_bytes):
            self._refuse(INVALID_ARGUMENT, f"row_bytes: from 1 to {self.limits.max_body_bytes}")
        op = batching.sm4_gcm_rows(direction == "encrypt", row_bytes)
        columns = self._columns(op, [rows], timeout)
        if direction == "encrypt":
            self._count_seals(key_id, key, len(columns[0]))
        statuses, values = await self._run(self.batcher.submit_rows(
            op, key, columns, timeout=self._cap(timeout)))
        self._audit(direction, client, peer, key_id, "sm4", len(statuses),
                    int((statuses == batching.OK).sum()))
        return statuses, values

    def _count_seals(self, key_id: str, key: Any, count: int) -> None:
        """Refuses a request whose seals would take key past the random-
        nonce limit (SP 800-38D 8.3; seal_ledger.py), or any seal when the
        ledger cannot be kept."""
        if self.seal_ledger is None:
            return
        try:
            allowed = self.seal_ledger.take(key.to_bytes(), count)
        except LedgerError as e:
            self._refuse(FAILED_PRECONDITION, f"{e}: no seal is counted, so none is made")
        if not allowed:
            self._refuse(FAILED_PRECONDITION, f"key id {key_id!r} has sealed the "
                                              f"{self.seal_ledger.limit} messages its random "
                                              "nonces allow (SP 800-38D 8.3): rotate it")

    def _cipher_key(self, token: Optional[str], direction: str, key_id: str) -> Tuple[str, Any]:
        """(client, SM4 key) for an encrypt or decrypt call, else refused."""
        client, key, algorithm = self._key(token, key_id)
        if direction not in _CIPHER:
            self._refuse(INVALID_ARGUMENT, f"no cipher call {direction!r}")
        if algorithm != "sm4":
            self._refuse(INVALID_ARGUMENT, f"key id {key_id!r} does not {direction} "
                                           f"(an {algorithm} key; SM4 keys do)")
        return client, key

    async def sign_digest_rows(self, token: Optional[str], key_id: str, digests: Any, *,
                               timeout: Optional[float] = None, peer: str = "") -> Tuple[Any, Any]:
        """SM2 signatures (r||s rows) of count * 32 bytes of digests e: the
        rows form, O(1) Python work per request."""
        client, key, algorithm = self._key(token, key_id)
        if algorithm != "sm2":
            self._refuse(INVALID_ARGUMENT, "digest rows are signed by SM2 keys only")
        columns = self._columns(batching.SM2_SIGN_DIGEST_ROWS, [digests], timeout)
        statuses, values = await self._run(self.batcher.submit_rows(
            batching.SM2_SIGN_DIGEST_ROWS, key, columns, timeout=self._cap(timeout)))
        self._audit("sign", client, peer, key_id, algorithm, len(statuses),
                    int((statuses == batching.OK).sum()), digests=True)
        return statuses, values

    async def verify_digest_rows(self, token: Optional[str], public_keys: Any, digests: Any,
                                 signatures: Any, *,
                                 timeout: Optional[float] = None) -> Any:
        """A status per SM2 (04||x||y, e, r||s) row, the columns as count *
        65, 32 and 64 bytes (one 65-byte key stands for every row)."""
        self._authenticate(token)
        if len(public_keys) == 65 and len(digests) != 32:
            public_keys = bytes(public_keys) * (len(digests) // 32)
        columns = self._columns(batching.SM2_VERIFY_DIGEST_ROWS,
                                [public_keys, digests, signatures], timeout)
        statuses, _ = await self._run(self.batcher.submit_rows(
            batching.SM2_VERIFY_DIGEST_ROWS, None, columns, timeout=self._cap(timeout)))
        return statuses

    async def verify(self, token: Optional[str], algorithm: str,
                     items: Sequence[Tuple[bytes, bytes, bytes]], *, digests: bool = False,
                     timeout: Optional[float] = None) -> List[Result]:
        """A status per (raw public key, message or digest, signature)."""
        self._authenticate(token)
        op = _VERIFY.get((algorithm, digests))
        if op is None:
            self._refuse(INVALID_ARGUMENT, f"no verification for algorithm {algorithm!r}"
                                           + (" on digests" if digests else ""))
        return await self._submit(op, None, items, timeout)

    async def hash(self, token: Optional[str], algorithm: str, items: Sequence[bytes], *,
                   timeout: Optional[float] = None) -> List[Result]:
        self._authenticate(token)
        op = _HASH.get(algorithm)
        if op is None:
            self._refuse(INVALID_ARGUMENT, f"no hash {algorithm!r} (sm3 is served)")
        return await self._submit(op, None, items, timeout)

    def authenticated(self, token: Optional[str]) -> bool:
        """Whether token is one this server knows (a header check the
        transports make before they read or parse a body)."""
        return bool(token) and self.access.known(token)  # type: ignore[arg-type]

    def _authenticate(self, token: Optional[str]) -> str:
        if not self.authenticated(token):
            self._refuse(UNAUTHENTICATED, "a bearer token this server knows is required")
        return token  # type: ignore[return-value]

    def _refuse(self, kind: str, message: str) -> NoReturn:
        self.counters.refused += 1
        raise RequestError(kind, message)

    def _key(self, token: Optional[str], key_id: str) -> Tuple[str, Any, str]:
        """(client token, key, algorithm) of a key the client may use."""
        client = self._authenticate(token)
        key = self.keys.get(key_id) if isinstance(key_id, str) else None
        if key is None or not self.access.allowed(client, key_id):
            # One answer for "no such key" and "not yours": ids are not probed.
            self._refuse(PERMISSION_DENIED, f"key id {str(key_id)[:128]!r} is not available "
                                            "to this client")
        return client, key, self.keys.algorithm(key_id) or ""

    def _audit(self, event: str, client: str, peer: str, key_id: str, algorithm: str,
               items: int, ok: int, *, digests: bool = False) -> None:
        """One line per request that used a key (sign, encrypt, decrypt)."""
        self.audit.info(json.dumps({
            "time": round(time.time(), 3), "event": event, "pid": os.getpid(),
            "client": token_digest(client)[:16],
            "peer": peer, "key_id": key_id, "algorithm": algorithm, "digests": digests,
            "items": items, "ok": ok}))

    def _admit(self, count: int, timeout: Optional[float]) -> None:
        if count > self.limits.max_items:
            self._refuse(INVALID_ARGUMENT, f"{count} items; a request carries at most "
                                           f"{self.limits.max_items}")
        if timeout is not None and not timeout > 0:
            self._refuse(INVALID_ARGUMENT, "timeout must be positive")

    def _cap(self, timeout: Optional[float]) -> float:
        return min(timeout or self.limits.max_timeout, self.limits.max_timeout)

    def _columns(self, op: batching.RowOperation, columns: List[Any],
                 timeout: Optional[float]) -> List[Any]:
        try:
            rows = batching.as_rows(op, columns)
        except (TypeError, ValueError) as e:
            self._refuse(INVALID_ARGUMENT, str(e))
        self._admit(len(rows[0]), timeout)
        return rows

    async def _run(self, submitted: Awaitable[Any]) -> Any:
        self.counters.requests += 1
        results = await submitted
        self.counters.replies += 1
        return results

    async def _submit(self, op: batching.Operation, key: Any, items: Sequence[Any],
                      timeout: Optional[float]) -> List[Result]:
        self._admit(len(items), timeout)
        return await self._run(self.batcher.submit(op, key, items, timeout=self._cap(timeout)))
