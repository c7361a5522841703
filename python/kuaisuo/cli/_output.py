"""Input files and standard input; outputs: stdout, and files written whole
to a temporary and renamed over their target (--out handling), secrets
created 0600."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
from typing import BinaryIO, List, Optional, Tuple

from ._common import Failure


PRIVATE, PUBLIC = 0o600, 0o644  # modes of created files (less the umask)


def stdin() -> BinaryIO:
    """Standard input as bytes; an OSError (EBADF) where it is closed, as
    coreutils report it, instead of an AttributeError on None."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF), "-")
    return sys.stdin.buffer


def read_input(name: str) -> bytes:
    if name == "-":
        return stdin().read()
    with open(name, "rb") as f:
        return f.read()


def silence_stdout() -> None:
    """After a failed write to stdout: point it at /dev/null, so that the
    flush at exit does not fail (and print) a second time."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def _stdout_errors():
    """A failed write to stdout as a Failure ("stdout: No space left on
    device"); a closed pipe stays BrokenPipeError (main exits 141)."""
    try:
        yield
    except OSError as e:
        silence_stdout()
        if isinstance(e, BrokenPipeError):
            raise
        raise Failure(f"stdout: {e.strerror or e}") from None


def write_stdout(data: bytes) -> None:
    if sys.stdout is None:
        raise Failure("stdout: Bad file descriptor (standard output is closed)")
    with _stdout_errors():
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def flush_stdout() -> None:
    """Flushes what print() buffered, so that a failed write (ENOSPC) is
    reported by main, not as a traceback from the interpreter's exit."""
    if sys.stdout is not None:
        with _stdout_errors():
            sys.stdout.flush()


def _create_beside(path: str, mode: int) -> Tuple[int, str]:
    """A new file next to path, opened for writing: O_EXCL (never an
    existing file or a symlink an attacker placed) and created with mode,
    so that a private key is never readable by others, not even briefly."""
    directory, name = os.path.split(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp, flags, mode), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def _write_temp(path: str, data: bytes, mode: int) -> str:
    """data in a new temporary file beside path, on disk; returns its name.
    On failure the temporary is gone and the error names path."""
    if os.path.isdir(path):
        raise Failure(f"{path}: Is a directory")
    try:
        fd, temp = _create_beside(path, mode)
    except OSError as e:
        raise Failure(f"{path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(e, OSError):  # e.g. a full disk
            raise Failure(f"{path}: {e.strerror or e}") from None
        raise
    return temp


def _sync_directory(path: str) -> None:
    """Makes a rename in path's directory durable (where the OS allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _replaceable(path: str) -> bool:
    """True where path is absent or a regular file (not a symlink): the
    targets that a temporary file may be renamed over. Anything else (a
    device such as /dev/null or /dev/full, a FIFO, a socket, a symlink such
    as /dev/stdout) is written into directly: renaming over it would turn
    a device into a regular file holding the output, or replace a link."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError as e:
        raise Failure(f"{path}: {e.strerror or e}") from None
    return stat.S_ISREG(st.st_mode)


def _write_into(path: str, data: bytes, mode: int) -> None:
    """Writes data into an existing non-regular target (see _replaceable)
    in place. A private key or secret goes only where others cannot read
    it: a regular file reached through a symlink must not be readable by
    group or others."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise Failure(f"{path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            if mode == PRIVATE and st.st_mode & 0o077:
                raise Failure(f"{path}: a link to a file that others can read: "
                              "not writing a secret there")
            os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        raise Failure(f"{path}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def write_outputs(outputs: List[Tuple[Optional[str], bytes, int]]) -> None:
    """Writes each (path, data, mode); a path of None or "-" is stdout.
    Regular files are written whole to temporaries first; then the
    outputs that cannot be replaced atomically (devices, FIFOs, symlinks:
    _replaceable) are written in place; only when all of that succeeded
    are the temporaries renamed over their targets, private keys last. A
    failure leaves each regular target as it was (never a partial file,
    never a private key without the rest) and removes the temporaries.
    Then stdout."""
    files = [(path, data, mode) for path, data, mode in outputs
             if path is not None and path != "-"]
    files.sort(key=lambda o: o[2] == PRIVATE)  # stable: private keys last
    replaceable = [_replaceable(path) for path, _, _ in files]
    pending: List[Tuple[str, str]] = []
    try:
        for (path, data, mode), atomic in zip(files, replaceable):
            if atomic:
                pending.append((_write_temp(path, data, mode), path))
        in_place = [o for o, atomic in zip(files, replaceable) if not atomic]
        for path, data, mode in in_place:
            _write_into(path, data, mode)
        while pending:
            temp, path = pending[0]
            try:
                os.replace(temp, path)
            except OSError as e:
                raise Failure(f"{path}: {e.strerror or e}") from None
            pending.pop(0)
            _sync_directory(path)
    finally:
        for temp, _ in pending:
            with contextlib.suppress(OSError):
                os.unlink(temp)
    for target, data, _ in outputs:
        if target in (None, "-"):
            write_stdout(data)


def out_option(q, what: str, secret: bool = False) -> None:
    """--out FILE, in the same words in every subcommand."""
    q.add_argument("--out", metavar="FILE", help=f"{what} file (default stdout; "
                   f"{'created 0600, ' if secret else ''}replaced atomically)")
