"""How many messages each SM4 key has sealed, against SP 800-38D 8.3.

With random 96-bit nonces, "the total number of invocations of the
authenticated encryption function shall not exceed 2^32" for a given key
(SP 800-38D 8.3). `kuaisuo serve` draws a fresh random nonce per seal, so
it counts seals per key in a ledger file that every worker process of a
server shares and that outlives restarts. A process reserves blocks of
seals under an exclusive lock and seals only within the blocks it holds,
so the reserved total, never less than the sealed total, stays within
the limit. The reservations a stopping process did not use are not given
back: the count errs on the safe side.

Keys are identified by a fingerprint (SHA-256 over a label and the key,
truncated to 128 bits), not by their id: a new key under an old id starts
at zero, and no key byte is stored. The ledger is written to a temporary
file and renamed into place, so a crash leaves the old count or the new
one; an unreadable ledger refuses every seal (fail closed)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from typing import Dict

LIMIT = 1 << 32  # SP 800-38D 8.3, random IVs
BLOCK = 1 << 20  # seals a process reserves at a time (one locked write each)


class LedgerError(Exception):
    """The ledger could not be read or written: no seal is allowed."""


def fingerprint(key: bytes) -> str:
    return hashlib.sha256(b"kuaisuo seal ledger\0" + key).hexdigest()[:32]


class SealLedger:
    def __init__(self, path: str, limit: int = LIMIT, block: int = BLOCK) -> None:
        if limit < 0 or block < 1:
            raise ValueError("limit >= 0 and block >= 1")
        self.path, self.limit, self.block = path, limit, block
        self._held: Dict[str, int] = {}  # fingerprint -> seals reserved, not yet used here

    def take(self, key: bytes, count: int) -> bool:
        """True if count more seals under key stay within the limit (and
        counts them); False if they would pass it. Raises LedgerError when
        the ledger cannot be read or written."""
        name = fingerprint(key)
        held = self._held.get(name, 0)
        if count > held:
            held += self._reserve(name, max(self.block, count - held))
        if count > held:
            self._held[name] = held
            return False
        self._held[name] = held - count
        return True

    def _reserve(self, name: str, want: int) -> int:
        """Up to want seals for name from the file, under its lock."""
        try:
            with open(self.path + ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                counts = self._read()
                got = max(0, min(want, self.limit - counts.get(name, 0)))
                if got:
                    counts[name] = counts.get(name, 0) + got
                    self._write(counts)
                return got
        except (OSError, ValueError) as e:
            raise LedgerError(f"seal ledger {self.path}: {e}") from None

    def _read(self) -> Dict[str, int]:
        try:
            with open(self.path) as f:
                counts = json.load(f)
        except FileNotFoundError:
            return {}
        if not (isinstance(counts, dict) and all(isinstance(v, int) for v in counts.values())):
            raise ValueError("not a ledger (a JSON object of counts)")
        return counts

    def _write(self, counts: Dict[str, int]) -> None:
        temp = f"{self.path}.{os.getpid()}.tmp"
        with open(temp, "w") as f:
            json.dump(counts, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, self.path)
