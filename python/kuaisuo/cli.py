"""The `kuaisuo` command line tool.

  kuaisuo sm3 FILE...      SM3 digests in sha256sum format ("-" is stdin)
  kuaisuo sm2 keygen|pubkey|sign|verify   SM2 keys and signatures (OpenSSL formats)
  kuaisuo ed25519 keygen|pubkey|sign|verify   Ed25519 keys and signatures (OpenSSL formats)
  kuaisuo x25519 keygen|pubkey|derive   X25519 keys and shared secrets (OpenSSL formats)
  kuaisuo sm4 keygen|enc|dec   SM4 key files and encryption (the bytes `openssl enc -sm4-*`
                           writes; GCM too)
  kuaisuo skinny keygen|enc|dec   SKINNY-128-256 tweakey files, ECB and CTR
  kuaisuo speed [ALG...]   throughput next to OpenSSL's, measured in one run
  kuaisuo info             version, CPU features and GPUs seen
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import getpass
import math
import os
import re
import secrets
import shlex
import stat
import string
import sys
from typing import Any, BinaryIO, Callable, List, Optional, Tuple, overload

from . import (SM3, HmacSM3, InvalidSignature, KuaisuoError, __version__, _native,
               cpu_features, gpu_built, gpu_device_count)
from ._pkcs8 import (DEFAULT_ITERATIONS, DEFAULT_MAX_ITERATIONS, ITERATIONS_LIMIT, PRFS,
                     SCHEMES, KeyIsEncrypted, KeyNotEncrypted, scheme_code)

CHUNK = 1 << 20
PRIVATE, PUBLIC = 0o600, 0o644  # modes of created files (less the umask)
MAX_THREADS = 4096  # ks_ctx_new's limit


class Failure(Exception):
    """An error for the user, without a traceback: `kuaisuo sm2: MESSAGE`, exit 2."""


def _whole_number(what: str, low: int, high: Optional[int] = None):
    """An argparse type: an integer in [low, high]; errors name the range
    (argparse puts the option's name in front)."""
    accepted = f"from {low} to {high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"must be a whole number of {what}, {accepted}, not {text}")
        return value

    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


_SIZE_UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
               "g": 1 << 30, "gib": 1 << 30}


def _byte_size(text: str) -> int:
    """An argparse type: a byte count, bare or with K/M/G (KiB/MiB/GiB,
    powers of 1024), from 1 MiB to 1 GiB."""
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    unit = _SIZE_UNITS.get(m.group(2).lower()) if m else None
    value = int(m.group(1)) * unit if m and unit else 0
    if not (1 << 20) <= value <= (1 << 30):
        raise argparse.ArgumentTypeError(
            f"must be a size from 1MiB to 1GiB (e.g. 64M, 1GiB), not {text}")
    return value


def _stdin() -> BinaryIO:
    """Standard input as bytes; an OSError (EBADF) where it is closed, as
    coreutils report it, instead of an AttributeError on None."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF), "-")
    return sys.stdin.buffer


def _hash_stream(stream: BinaryIO, make: Callable[[], Any] = SM3) -> str:
    h = make()
    for chunk in iter(lambda: stream.read(CHUNK), b""):
        h.update(chunk)
    return h.hexdigest()


def _sm3_factory(args: argparse.Namespace) -> Callable[[], Any]:
    """SM3, or HMAC-SM3 under --hmac-key-hex / --hmac-key-file."""
    if args.hmac_key_hex is not None:
        key = _hex_option(args.hmac_key_hex, "--hmac-key-hex")
        return lambda: HmacSM3(key)
    if args.hmac_key_file is not None:
        key = _read_input(args.hmac_key_file)
        return lambda: HmacSM3(key)
    return SM3


def _digest_file(name: str, make: Callable[[], Any]) -> str:
    if name == "-":
        return _hash_stream(_stdin(), make)
    with open(name, "rb") as f:
        return _hash_stream(f, make)


_CHECK_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")


def _check(lists: List[str], make: Callable[[], Any]) -> int:
    """sha256sum -c over SM3: each line "DIGEST  NAME" (or "DIGEST *NAME");
    NAME: OK or NAME: FAILED; exit 1 if any failed, could not be read or
    no line was well formed."""
    failed = unreadable = malformed = checked = 0
    for listing in lists or ["-"]:
        try:
            text = _read_input(listing).decode("utf-8", "surrogateescape")
        except OSError as e:
            print(f"kuaisuo sm3: {listing}: {e.strerror or e}", file=sys.stderr)
            unreadable += 1
            continue
        for line in text.splitlines():
            m = _CHECK_LINE.fullmatch(line)
            if m is None:
                malformed += line.strip() != ""
                continue
            want, name = m.group(1).lower(), m.group(2)
            checked += 1
            try:
                ok = _digest_file(name, make) == want
            except OSError as e:
                print(f"kuaisuo sm3: {name}: {e.strerror or e}", file=sys.stderr)
                print(f"{name}: FAILED open or read")
                unreadable += 1
                continue
            print(f"{name}: {'OK' if ok else 'FAILED'}")
            failed += not ok
    if malformed:
        print(f"kuaisuo sm3: WARNING: {malformed} line(s) improperly formatted", file=sys.stderr)
    if failed:
        print(f"kuaisuo sm3: WARNING: {failed} computed checksum(s) did NOT match",
              file=sys.stderr)
    if checked == 0 and not unreadable:
        print("kuaisuo sm3: no properly formatted checksum lines found", file=sys.stderr)
        return 1
    return 1 if failed or unreadable else 0


def cmd_sm3(args: argparse.Namespace) -> int:
    try:
        make = _sm3_factory(args)
    except (Failure, OSError) as e:
        print(f"kuaisuo sm3: {e}", file=sys.stderr)
        return 2
    if args.check:
        return _check(args.files, make)
    status = 0
    for name in args.files or ["-"]:
        try:
            digest = _digest_file(name, make)
        except OSError as e:
            print(f"kuaisuo sm3: {name}: {e.strerror or e}", file=sys.stderr)
            status = 1
            continue
        print(f"{digest}  {name}")
    return status


def _read_input(name: str) -> bytes:
    if name == "-":
        return _stdin().read()
    with open(name, "rb") as f:
        return f.read()


def _silence_stdout() -> None:
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
        _silence_stdout()
        if isinstance(e, BrokenPipeError):
            raise
        raise Failure(f"stdout: {e.strerror or e}") from None


def _write_stdout(data: bytes) -> None:
    if sys.stdout is None:
        raise Failure("stdout: Bad file descriptor (standard output is closed)")
    with _stdout_errors():
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def _flush_stdout() -> None:
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


def _write_outputs(outputs: List[Tuple[Optional[str], bytes, int]]) -> None:
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
            _write_stdout(data)


def _sm2_e(pub, id_: bytes, name: str) -> bytes:
    """e = SM3(Z_A || M), streaming the file so that any size fits."""
    h = SM3(pub.za(id_))
    if name == "-":
        stream = _stdin()
        for chunk in iter(lambda: stream.read(CHUNK), b""):
            h.update(chunk)
    else:
        with open(name, "rb") as f:
            for chunk in iter(lambda: f.read(CHUNK), b""):
                h.update(chunk)
    return h.digest()


def _sm2_id(args: argparse.Namespace) -> bytes:
    if args.id_hex is not None:
        return _hex_option(args.id_hex, "--id-hex")
    # The exact bytes given: argv that is not UTF-8 arrives as surrogate
    # escapes, which fsencode turns back into those bytes.
    return os.fsencode(args.id)


def _input_name(name: str) -> str:
    return "stdin" if name == "-" else name


WRONG_PASSPHRASE = -50  # KS_ERR_WRONG_PASSPHRASE
ITERATIONS_OVER_MAXIMUM = -52  # KS_ERR_PBES2_ITERATIONS


def _passphrase(spec: Optional[str], option: str) -> Optional[bytes]:
    """A passphrase as OpenSSL's -passin/-passout spell it: pass:TEXT,
    env:VARIABLE, file:PATH (its first line) or stdin (one line)."""
    if spec is None:
        return None
    kind, sep, value = spec.partition(":")
    if kind == "pass" and sep:
        return os.fsencode(value)
    if kind == "env" and value:
        if value not in os.environ:
            raise Failure(f"{option} env:{value}: no such environment variable")
        return os.fsencode(os.environ[value])
    if kind == "file" and value:
        with open(value, "rb") as f:
            return f.readline().rstrip(b"\r\n")
    if spec == "stdin":
        return _stdin().readline().rstrip(b"\r\n")
    # The value is not echoed: it may be the passphrase itself.
    raise Failure(f"{option}: expected pass:TEXT, env:VARIABLE, file:PATH or stdin")


def _key_error(name: str, e: KuaisuoError) -> Failure:
    if e.code == WRONG_PASSPHRASE:
        return Failure(f"{_input_name(name)}: wrong passphrase for the encrypted private key")
    return Failure(f"{_input_name(name)}: {e.message or e}")


def _private_key(name: str, cls: Any, args: argparse.Namespace, data: Optional[bytes] = None
                 ) -> Any:
    """A private key of class cls (SM2PrivateKey, ...) from a file (or its
    bytes, data), decrypted with the --passin passphrase when it is
    encrypted (asked for on the terminal when there is one and no --passin,
    as openssl does), its PBKDF2 iteration count bounded by --max-iter."""
    if data is None:
        data = _read_input(name)
    password = _passphrase(args.passin, "--passin")
    try:
        try:
            return cls.from_der(data, password=password, max_iterations=args.max_iter)
        except KeyNotEncrypted:  # as openssl does: -passin on a plain key is harmless
            return cls.from_der(data)
        except KeyIsEncrypted:
            return cls.from_der(data, password=_ask_passphrase(name),
                                max_iterations=args.max_iter)
    except KuaisuoError as e:
        if e.code == ITERATIONS_OVER_MAXIMUM:
            raise Failure(f"{_input_name(name)}: {e.message}; allow more with --max-iter N "
                          "if the file is trusted") from None
        raise _key_error(name, e) from None


def _ask_passphrase(name: str) -> bytes:
    """The passphrase of an encrypted key, from the terminal; never read
    from a standard input that is not one (a pipe holds the data)."""
    if name == "-" or sys.stdin is None or not sys.stdin.isatty():
        raise Failure(f"{_input_name(name)}: the private key is encrypted: give its passphrase "
                      f"with --passin pass:TEXT, env:VARIABLE, file:PATH or stdin")
    try:
        return os.fsencode(getpass.getpass(f"Enter pass phrase for {name}: "))
    except EOFError:
        raise Failure(f"{name}: no passphrase was entered") from None


def _public_key(name: str, cls: Any, private_cls: Any, args: argparse.Namespace) -> Any:
    """A public key of class cls (SubjectPublicKeyInfo or a certificate,
    DER or PEM), or the public half of a private key of private_cls (as
    openssl -prverify takes; encrypted ones with --passin); an unreadable
    one is reported as a public key."""
    data = _read_input(name)
    try:
        return cls.from_der(data)
    except KuaisuoError as e:
        public_error = e
    try:
        return private_cls.from_der(data).public_key()
    except KeyIsEncrypted:
        return _private_key(name, private_cls, args, data).public_key()
    except KuaisuoError:
        pass
    raise Failure(f"{_input_name(name)}: not a public key: {public_error.message}")


def _raw_signature(data: bytes, name: str, raw: bool) -> bytes:
    """r||s from a signature file. A malformed one is an error (exit 2);
    only a well-formed signature that does not verify is a failure (1)."""
    from .sm2 import signature_from_der

    if raw:
        if len(data) != 64:
            raise Failure(f"{_input_name(name)}: a raw signature (r||s) is 64 bytes, "
                          f"not {len(data)}")
        return data
    try:
        return signature_from_der(data)
    except KuaisuoError as e:
        raise Failure(f"{_input_name(name)}: not a DER signature: {e.message}") from None


def _report_verification(verify: Callable[[], None]) -> int:
    """openssl's words and exit codes: 0 "Verified OK", 1 "Verification
    failure" for a well-formed signature that does not verify."""
    try:
        verify()
    except InvalidSignature:
        print("Verification failure")
        return 1
    print("Verified OK")
    return 0


def _key_file(key, der: bool, args: Optional[argparse.Namespace] = None) -> bytes:
    """A key's file: PKCS#8 / SPKI, PEM or DER; a private key encrypted
    when args carries --passout."""
    password = _passphrase(getattr(args, "passout", None), "--passout")
    if password is None or args is None:
        return key.to_der() if der else key.to_pem().encode()
    try:
        scheme_code(args.cipher, args.prf)
    except ValueError as e:
        raise Failure(f"--prf: {e}") from None
    if not password and not args.allow_empty_password:
        raise Failure("--passout: the passphrase is empty (anyone could decrypt the key): "
                      "give one, or --allow-empty-password to write it so on purpose")
    options = {"scheme": args.cipher, "iterations": args.iter, "prf": args.prf}
    return key.to_der(password, **options) if der else key.to_pem(password, **options).encode()


def _guarded(command: str, body: Callable[[], int]) -> int:
    """Runs a key or signature command: errors for the user are printed as
    `kuaisuo COMMAND: MESSAGE` without a traceback, exit 2."""
    try:
        return body()
    except Failure as e:
        print(f"kuaisuo {command}: {e}", file=sys.stderr)
    except BrokenPipeError:
        raise
    except OSError as e:
        print(f"kuaisuo {command}: {e.filename or 'stdin'}: {e.strerror or e}", file=sys.stderr)
    except KuaisuoError as e:
        print(f"kuaisuo {command}: {e.message or e}", file=sys.stderr)
    return 2


def _keygen(args: argparse.Namespace, generate: Callable[[], Any]) -> int:
    """keygen: the private key (0600) and, with --pubout, its public key."""
    out, pubout = args.out, args.pubout
    if (out not in (None, "-") and pubout not in (None, "-")
            and os.path.abspath(out) == os.path.abspath(pubout)):
        raise Failure("--out and --pubout name the same file")
    key = generate()
    outputs = [(out, _key_file(key, args.der, args), PRIVATE)]
    if pubout:
        outputs.append((pubout, _key_file(key.public_key(), args.der), PUBLIC))
    _write_outputs(outputs)
    return 0


def _pubkey(args: argparse.Namespace, private_cls: Any) -> int:
    pub = _private_key(args.key, private_cls, args).public_key()
    _write_outputs([(args.out, _key_file(pub, args.der), PUBLIC)])
    return 0


def cmd_sm2(args: argparse.Namespace) -> int:
    from .sm2 import SM2PrivateKey, SM2PublicKey

    def body() -> int:
        if args.sm2_command == "keygen":
            return _keygen(args, SM2PrivateKey.generate)
        if args.sm2_command == "pubkey":
            return _pubkey(args, SM2PrivateKey)
        if args.sm2_command == "sign":
            key = _private_key(args.key, SM2PrivateKey, args)
            e = _sm2_e(key.public_key(), _sm2_id(args), args.file)
            sig = key.sign_digest(e, deterministic=args.deterministic,
                                  encoding="raw" if args.raw else "der")
            _write_outputs([(args.out, sig, PUBLIC)])
            return 0
        # verify
        pub = _public_key(args.pub, SM2PublicKey, SM2PrivateKey, args)
        sig = _raw_signature(_read_input(args.sig), args.sig, args.raw)
        e = _sm2_e(pub, _sm2_id(args), args.file)
        return _report_verification(lambda: pub.verify_digest(sig, e, encoding="raw"))

    return _guarded("sm2", body)


def _ed25519_domain(args: argparse.Namespace) -> Tuple[Optional[bytes], bool]:
    """(context, prehashed) from --context-hex HEX (or its deprecated
    alias --context, with a warning) and --ph."""
    if args.context is None:
        return _hex_option(args.context_hex, "--context-hex"), args.ph
    print("kuaisuo ed25519: --context is deprecated: use --context-hex", file=sys.stderr)
    if args.context_hex is not None:
        raise Failure("give --context-hex or --context, not both")
    return _hex_option(args.context, "--context"), args.ph


def cmd_ed25519(args: argparse.Namespace) -> int:
    from .ed25519 import SIGNATURE_BYTES, Ed25519PrivateKey, Ed25519PublicKey

    def body() -> int:
        if args.ed25519_command == "keygen":
            return _keygen(args, Ed25519PrivateKey.generate)
        if args.ed25519_command == "pubkey":
            return _pubkey(args, Ed25519PrivateKey)
        context, prehashed = _ed25519_domain(args)
        if args.ed25519_command == "sign":
            key = _private_key(args.key, Ed25519PrivateKey, args)
            sig = key.sign(_read_input(args.file), context, prehashed)
            _write_outputs([(args.out, sig, PUBLIC)])
            return 0
        # verify: a signature that is not 64 bytes is an error (exit 2);
        # one of 64 bytes that does not verify, malformed or not, a failure (1).
        pub = _public_key(args.pub, Ed25519PublicKey, Ed25519PrivateKey, args)
        sig = _read_input(args.sig)
        if len(sig) != SIGNATURE_BYTES:
            raise Failure(f"{_input_name(args.sig)}: an Ed25519 signature is "
                          f"{SIGNATURE_BYTES} bytes, not {len(sig)}")
        message = _read_input(args.file)
        return _report_verification(lambda: pub.verify(sig, message, context, prehashed))

    return _guarded("ed25519", body)


def cmd_x25519(args: argparse.Namespace) -> int:
    from .x25519 import X25519PrivateKey, X25519PublicKey

    def body() -> int:
        if args.x25519_command == "keygen":
            return _keygen(args, X25519PrivateKey.generate)
        if args.x25519_command == "pubkey":
            return _pubkey(args, X25519PrivateKey)
        # derive: the shared secret is a secret, written 0600 like a key
        key = _private_key(args.key, X25519PrivateKey, args)
        peer = _public_key(args.peer, X25519PublicKey, X25519PrivateKey, args)
        try:
            secret = key.exchange(peer)
        except KuaisuoError as e:
            raise Failure(f"{_input_name(args.peer)}: {e.message or e}") from None
        _write_outputs([(args.out, secret, PRIVATE)])
        return 0

    return _guarded("x25519", body)


def _hex_fault(text: str) -> str:
    """Where a hexadecimal string goes wrong, without quoting it."""
    digits = "".join(text.split())
    bad = next((i for i, c in enumerate(digits) if c not in string.hexdigits), None)
    if bad is not None:
        return f"a character that is not a hex digit at position {bad + 1}"
    return f"an odd number of hex digits ({len(digits)})"


@overload
def _hex_option(text: str, option: str, lengths: Optional[Tuple[int, ...]] = None) -> bytes: ...
@overload
def _hex_option(text: None, option: str, lengths: Optional[Tuple[int, ...]] = None) -> None: ...


def _hex_option(text: Optional[str], option: str, lengths: Optional[Tuple[int, ...]] = None
                ) -> Optional[bytes]:
    """The bytes of a hexadecimal option; lengths, where given, are those
    allowed (in bytes)."""
    if text is None:
        return None
    try:
        value = bytes.fromhex(text)
    except ValueError:
        # The value is never echoed: it may be a key.
        raise Failure(f"{option}: not hexadecimal ({_hex_fault(text)})") from None
    if lengths is not None and len(value) not in lengths:
        allowed = " or ".join(f"{n} bytes ({2 * n} hex digits)" for n in lengths)
        raise Failure(f"{option}: {allowed} expected, not {len(value)} bytes")
    return value


def _mode_iv(args: argparse.Namespace, lengths: Optional[Tuple[int, ...]]) -> Optional[bytes]:
    """A cipher command's --iv-hex: none in ECB mode, required in the others."""
    if args.mode == "ecb":
        if args.iv_hex is not None:
            raise Failure("--iv-hex: ECB takes no IV")
        return None
    if args.iv_hex is None:
        raise Failure(f"--iv-hex is required in {args.mode.upper()} mode")
    return _hex_option(args.iv_hex, "--iv-hex", lengths)


# A SKINNY tweakey file: there is no standard one, so `kuaisuo skinny
# keygen` writes the 32 bytes as 64 lowercase hex digits and a newline,
# and `enc|dec --key FILE` reads exactly that, white space around it allowed.
TWEAKEY_FILE = re.compile(rb"\s*([0-9a-f]{64})\s*")


def _tweakey_file(name: str) -> bytes:
    """The tweakey in a file that `kuaisuo skinny keygen` wrote."""
    m = TWEAKEY_FILE.fullmatch(_read_input(name))
    if m is None:  # the content is never echoed: it is a secret
        raise Failure(f"{_input_name(name)}: not a SKINNY tweakey file (64 lowercase hex "
                      "digits and a newline, as `kuaisuo skinny keygen` writes)")
    return bytes.fromhex(m.group(1).decode())


def _skinny_run(args: argparse.Namespace, data: bytes) -> bytes:
    """The output of `kuaisuo skinny enc|dec` for the whole input."""
    from . import skinny

    if args.key is not None:
        tweakey = _tweakey_file(args.key)
    else:
        tweakey = _hex_option(args.key_hex, "--key-hex", (skinny.TWEAKEY_BYTES,))
    assert tweakey is not None  # argparse requires --key-hex or --key
    iv = _mode_iv(args, (16,))
    run = skinny.encrypt if args.skinny_command == "enc" else skinny.decrypt
    try:
        return run(tweakey, data, mode=args.mode, iv=iv)
    except KuaisuoError as e:
        raise Failure(f"{_input_name(args.input)}: {e.message or e}") from None


def _cipher_command(tool: str, run: Callable[[argparse.Namespace, bytes], bytes],
                    decrypting: bool, args: argparse.Namespace) -> int:
    """`kuaisuo sm4|skinny enc|dec IN OUT`: the whole output is computed
    (and a GCM tag checked) before anything is written; plaintext is
    written like a secret (0600)."""
    def body() -> int:
        if args.key == "-" and args.input == "-":
            raise Failure("--key and IN cannot both be stdin")
        out = run(args, _read_input(args.input))
        _write_outputs([(args.output, out, PRIVATE if decrypting else PUBLIC)])
        return 0

    return _guarded(tool, body)


def _secret_keygen(tool: str, args: argparse.Namespace, make: Callable[[], bytes]) -> int:
    """`kuaisuo sm4|skinny keygen`: make()'s key file to --out, 0600."""
    def body() -> int:
        _write_outputs([(args.out, make(), PRIVATE)])
        return 0

    return _guarded(tool, body)


def cmd_skinny(args: argparse.Namespace) -> int:
    if args.skinny_command == "keygen":
        from .skinny import TWEAKEY_BYTES

        # secrets: the OS CSPRNG (os.urandom)
        return _secret_keygen("skinny", args, lambda: secrets.token_bytes(
            TWEAKEY_BYTES).hex().encode() + b"\n")
    return _cipher_command("skinny", _skinny_run, args.skinny_command == "dec", args)


def _sm4_run(args: argparse.Namespace, data: bytes) -> bytes:
    """The output of `kuaisuo sm4 enc|dec` for the whole input."""
    from . import sm4

    encrypt = args.sm4_command == "enc"
    if args.key is not None:
        key = _private_key(args.key, sm4.SM4Key, args).to_bytes()
    else:
        key = _hex_option(args.key_hex, "--key-hex", (sm4.KEY_BYTES,))
    assert key is not None  # argparse requires --key-hex or --key
    iv = _mode_iv(args, None if args.mode == "gcm" else (16,))
    if args.aad_hex is not None and args.mode != "gcm":
        raise Failure("--aad-hex: only GCM takes associated data")
    if args.mode == "gcm":
        if not iv:
            raise Failure("--iv-hex: GCM needs a non-empty IV (12 bytes recommended)")
        aad = _hex_option(args.aad_hex, "--aad-hex") or b""
        gcm = sm4.SM4GCM(key)
        if encrypt:
            return gcm.encrypt(iv, data, aad)
        if len(data) < 16:
            raise Failure(f"{_input_name(args.input)}: shorter than the 16-byte GCM tag")
        try:
            return gcm.decrypt(iv, data, aad)
        except KuaisuoError:
            raise Failure(f"{_input_name(args.input)}: GCM tag mismatch (wrong key, IV, AAD, "
                          "or altered data): nothing written") from None
    padding = args.mode in ("ecb", "cbc") and not args.no_pad
    run = sm4.encrypt if encrypt else sm4.decrypt
    try:
        return run(key, data, mode=args.mode, iv=iv, padding=padding)
    except KuaisuoError as e:
        raise Failure(f"{_input_name(args.input)}: {e.message or e}") from None


def cmd_sm4(args: argparse.Namespace) -> int:
    if args.sm4_command == "keygen":
        from .sm4 import SM4Key

        return _secret_keygen("sm4", args, lambda: _key_file(SM4Key.generate(), args.der, args))
    return _cipher_command("sm4", _sm4_run, args.sm4_command == "dec", args)


def cmd_speed(args: argparse.Namespace) -> int:
    from . import speed

    algs = args.algs or list(speed.ALGORITHMS)
    unknown = [a for a in algs if a not in speed.PLANS]
    if unknown:
        print(f"kuaisuo speed: unknown algorithm {', '.join(unknown)} "
              f"(known: {', '.join(speed.ALGORITHMS)})", file=sys.stderr)
        return 2
    threads = args.threads or os.cpu_count() or 1
    return speed.run(algs, args.backend, threads, args.batch, args.seconds, args.json,
                     args.plot, args.max_bytes)


def cmd_info(_: argparse.Namespace) -> int:
    print(f"kuaisuo {__version__}")
    print(f"cpu: {_native._cpu_model()} [{cpu_features()}]")
    print(f"cuda backend: {'built' if gpu_built() else 'not built'}")
    for i in range(gpu_device_count()):
        g = _native._gpu_info(i)
        print(f"gpu {i}: {g['name']} (sm_{g['compute_capability'].replace('.', '')}, "
              f"{g['multiprocessors']} SMs, {g['memory_bytes'] >> 30} GiB)")
    print(f"openssl: {_native._openssl_version() or 'not found'}")
    return 0


def add_sm2_parser(sub) -> None:
    p = sub.add_parser("sm2", help="SM2 keys and signatures (files OpenSSL reads and writes)",
                       description="SM2 (GB/T 32918) with PKCS#8/SPKI PEM keys and DER "
                       "signatures. The ID defaults to 1234567812345678 (GM/T 0009); OpenSSL "
                       "uses an empty ID unless given -sigopt distid:..., so pass the same "
                       "ID to both tools.")
    sm2 = p.add_subparsers(dest="sm2_command", required=True, metavar="COMMAND")

    def id_options(q):
        q.add_argument("--id", default="1234567812345678", metavar="ID",
                       help="distinguishing ID, its bytes as given (default 1234567812345678)")
        q.add_argument("--id-hex", metavar="HEX", default=None,
                       help="distinguishing ID as hex bytes")

    _key_parsers(sm2, "SM2", "private key (PKCS#8/SEC1, PEM or DER)")

    q = sm2.add_parser("sign", help="sign a file (DER signature)")
    q.add_argument("--key", required=True, metavar="FILE",
                   help="private key (PKCS#8/SEC1, PEM or DER)")
    passin_option(q)
    out_option(q, "signature")
    id_options(q)
    q.add_argument("--raw", action="store_true", help="the signature is 64-byte r||s, not DER")
    q.add_argument("--deterministic", action="store_true",
                   help="derive k from key and digest (RFC 6979 over HMAC-SM3)")
    q.add_argument("file", metavar="FILE", help='file to sign ("-" for stdin)')

    q = sm2.add_parser("verify", help="verify a file's signature")
    q.add_argument("--pub", required=True, metavar="FILE", help=PUBLIC_KEY_HELP)
    passin_option(q)
    q.add_argument("--sig", required=True, metavar="FILE",
                   help="signature file (DER, or r||s with --raw)")
    id_options(q)
    q.add_argument("--raw", action="store_true", help="the signature is 64-byte r||s, not DER")
    q.add_argument("file", metavar="FILE", help='signed file ("-" for stdin)')
    p.set_defaults(func=cmd_sm2)


PASS_SPEC = "pass:TEXT, env:VARIABLE, file:PATH or stdin (as openssl -pass{})"
PUBLIC_KEY_HELP = "public key (SPKI or X.509 certificate, PEM or DER) or private key"
BACKEND_HELP = "cpu, gpu, or auto: the library chooses (default auto)"


def out_option(q, what: str, secret: bool = False) -> None:
    """--out FILE, in the same words in every subcommand."""
    q.add_argument("--out", metavar="FILE", help=f"{what} file (default stdout; "
                   f"{'created 0600, ' if secret else ''}replaced atomically)")


def passin_option(q) -> None:
    q.add_argument("--passin", metavar="SPEC",
                   help="passphrase of an encrypted key file: " + PASS_SPEC.format("in"))
    q.add_argument("--max-iter", metavar="N", type=_whole_number("iterations", 1, ITERATIONS_LIMIT),
                   help="refuse an encrypted key with more PBKDF2 iterations than N (default "
                   f"{DEFAULT_MAX_ITERATIONS:,}: a hostile file cannot cost more than that)")


def passout_options(q) -> None:
    q.add_argument("--passout", metavar="SPEC",
                   help="encrypt the key file (PKCS#8 PBES2) under this passphrase: "
                   + PASS_SPEC.format("out"))
    q.add_argument("--cipher", choices=sorted(SCHEMES), default="aes-256-cbc",
                   help="with --passout: aes-256-cbc (PBKDF2-HMAC-SHA256, OpenSSL's default), "
                   "aes-128-cbc, or sm4-cbc (PBKDF2-HMAC-SM3 by default, as GmSSL writes: "
                   "OpenSSL 3.0 and Tongsuo cannot read that PRF; add --prf sha256 for a file "
                   "all three read)")
    q.add_argument("--prf", choices=PRFS,
                   help="with --passout: PBKDF2's HMAC (default: sha256 for AES, sm3 for "
                   "sm4-cbc); sha256 with sm4-cbc is read by OpenSSL 3, Tongsuo and GmSSL")
    q.add_argument("--iter", type=_whole_number("iterations", 1, ITERATIONS_LIMIT),
                   default=DEFAULT_ITERATIONS, metavar="N",
                   help=f"with --passout: PBKDF2 iterations (default {DEFAULT_ITERATIONS:,})")
    q.add_argument("--allow-empty-password", action="store_true",
                   help="with --passout: accept an empty passphrase (refused otherwise)")


def _key_parsers(keys, what: str, pubkey_help: str) -> None:
    """The keygen and pubkey subcommands every key algorithm has."""
    q = keys.add_parser("keygen", help=f"new {what} private key file (PKCS#8, PEM or DER)")
    out_option(q, "private key", secret=True)
    q.add_argument("--pubout", metavar="FILE", help="also write the public key "
                   "(SubjectPublicKeyInfo) to FILE (replaced atomically)")
    q.add_argument("--der", action="store_true", help="DER instead of PEM")
    passout_options(q)

    q = keys.add_parser("pubkey", help="public key of a private key")
    q.add_argument("--key", required=True, metavar="FILE", help=pubkey_help)
    passin_option(q)
    out_option(q, "public key")
    q.add_argument("--der", action="store_true", help="DER instead of PEM")


def add_ed25519_parser(sub) -> None:
    p = sub.add_parser("ed25519", help="Ed25519 keys and signatures (files OpenSSL reads and "
                       "writes)",
                       description="Ed25519 (RFC 8032) with PKCS#8/SPKI keys (RFC 8410) and "
                       "raw 64-byte signatures, as openssl pkeyutl -rawin writes and reads "
                       "them. --context-hex selects Ed25519ctx, --ph Ed25519ph.")
    ed = p.add_subparsers(dest="ed25519_command", required=True, metavar="COMMAND")
    _key_parsers(ed, "Ed25519", "private key (PKCS#8, PEM or DER)")

    def domain_options(q):
        q.add_argument("--context-hex", metavar="HEX", default=None,
                       help="context as hex bytes: Ed25519ctx (1 to 255 bytes), or the "
                       "context of Ed25519ph with --ph")
        # The name before --context-hex, kept for one release (issue 41).
        q.add_argument("--context", metavar="HEX", default=None, help=argparse.SUPPRESS)
        q.add_argument("--ph", action="store_true",
                       help="Ed25519ph: sign SHA-512 of the file (computed here)")

    q = ed.add_parser("sign", help="sign a file (raw 64-byte signature)")
    q.add_argument("--key", required=True, metavar="FILE", help="private key (PKCS#8, PEM or DER)")
    passin_option(q)
    out_option(q, "signature")
    domain_options(q)
    q.add_argument("file", metavar="FILE", help='file to sign ("-" for stdin)')

    q = ed.add_parser("verify", help="verify a file's signature")
    q.add_argument("--pub", required=True, metavar="FILE", help=PUBLIC_KEY_HELP)
    passin_option(q)
    q.add_argument("--sig", required=True, metavar="FILE", help="signature file (64 bytes, R || S)")
    domain_options(q)
    q.add_argument("file", metavar="FILE", help='signed file ("-" for stdin)')
    p.set_defaults(func=cmd_ed25519)


def add_x25519_parser(sub) -> None:
    p = sub.add_parser("x25519", help="X25519 keys and key agreement (files OpenSSL reads and "
                       "writes)",
                       description="X25519 (RFC 7748) with PKCS#8/SPKI keys (RFC 8410); derive "
                       "writes the 32-byte shared secret, as openssl pkeyutl -derive does.")
    x = p.add_subparsers(dest="x25519_command", required=True, metavar="COMMAND")
    _key_parsers(x, "X25519", "private key (PKCS#8, PEM or DER)")

    q = x.add_parser("derive", help="shared secret with a peer (32 raw bytes)")
    q.add_argument("--key", required=True, metavar="FILE", help="private key (PKCS#8, PEM or DER)")
    passin_option(q)
    q.add_argument("--peer", required=True, metavar="FILE", help="the peer's " + PUBLIC_KEY_HELP)
    out_option(q, "shared secret", secret=True)
    p.set_defaults(func=cmd_x25519)


def add_sm4_parser(sub) -> None:
    p = sub.add_parser("sm4", help="SM4 key files, encryption and decryption (GB/T 32907)",
                       description="SM4 in ECB, CBC, CFB-128, OFB, CTR (128-bit big-endian "
                       "counter) or GCM. ECB and CBC add and strip PKCS#7 padding unless "
                       "--no-pad, as `openssl enc -sm4-cbc -K KEY -iv IV` does, whose output "
                       "is the same bytes; GCM writes the ciphertext followed by the 16-byte "
                       "tag, and on a tag mismatch exits 2 and writes nothing.")
    p.set_defaults(func=cmd_sm4)
    ops = p.add_subparsers(dest="sm4_command", required=True, metavar="COMMAND")
    q = ops.add_parser("keygen", help="new SM4 key file (PKCS#8 with the sm4 OID, as "
                       "`kuaisuo serve` key stores take; README: SM4 key files)")
    out_option(q, "key", secret=True)
    q.add_argument("--der", action="store_true", help="DER instead of PEM")
    passout_options(q)
    for name, what in (("enc", "encrypt"), ("dec", "decrypt")):
        q = ops.add_parser(name, help=f"{what} a file")
        q.add_argument("--mode", required=True, choices=("ecb", "cbc", "cfb", "ofb", "ctr", "gcm"),
                       help="cipher mode")
        key = q.add_mutually_exclusive_group(required=True)
        key.add_argument("--key-hex", metavar="HEX", help="16-byte key, hex")
        key.add_argument("--key", metavar="FILE", help="key file (kuaisuo sm4 keygen)")
        passin_option(q)
        q.add_argument("--iv-hex", metavar="HEX", help="IV (16 bytes; GCM: 12 recommended) or "
                       "CTR's first counter block, hex")
        q.add_argument("--aad-hex", metavar="HEX", help="GCM associated data, hex")
        q.add_argument("--no-pad", action="store_true",
                       help="ECB/CBC: no PKCS#7 padding (lengths must be multiples of 16)")
        cipher_operands(q, name)


def cipher_operands(q, command: str) -> None:
    """IN and OUT of enc|dec; decrypted output is written like a secret."""
    text, other = ("plaintext", "ciphertext") if command == "enc" else ("ciphertext", "plaintext")
    q.add_argument("input", metavar="IN", help=f'{text} file ("-" for stdin)')
    q.add_argument("output", metavar="OUT", help=f'{other} file ("-" for stdout; '
                   f'{"created 0600, " if command == "dec" else ""}replaced atomically)')


def add_skinny_parser(sub) -> None:
    p = sub.add_parser("skinny", help="SKINNY-128-256 tweakey files, encryption and decryption",
                       description="SKINNY-128-256 (the tweakable block cipher of the SKINNY "
                       "paper) in ECB (whole 16-byte blocks, no padding) or CTR (any length; "
                       "the IV is the first counter block, a 128-bit big-endian integer "
                       "incremented per block). There is no standard key file for SKINNY: "
                       "keygen writes the 32-byte tweakey as 64 lowercase hex digits and a "
                       "newline, which enc and dec --key read.")
    p.set_defaults(func=cmd_skinny)
    ops = p.add_subparsers(dest="skinny_command", required=True, metavar="COMMAND")
    q = ops.add_parser("keygen", help="new random tweakey file (64 lowercase hex digits and a "
                       "newline, from the OS CSPRNG)")
    out_option(q, "tweakey", secret=True)
    for name, what in (("enc", "encrypt"), ("dec", "decrypt")):
        q = ops.add_parser(name, help=f"{what} a file")
        q.add_argument("--mode", required=True, choices=("ecb", "ctr"), help="cipher mode")
        key = q.add_mutually_exclusive_group(required=True)
        key.add_argument("--key-hex", metavar="HEX",
                         help="32-byte tweakey TK1 || TK2, hex (as the paper's vector)")
        key.add_argument("--key", metavar="FILE", help="tweakey file: 64 lowercase hex digits "
                         "(kuaisuo skinny keygen)")
        q.add_argument("--iv-hex", metavar="HEX", help="CTR's first counter block (16 bytes), hex")
        cipher_operands(q, name)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kuaisuo", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"kuaisuo {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("sm3", help="print or check SM3 / HMAC-SM3 digests of files "
                       "(sha256sum format)")
    s.add_argument("files", nargs="*", metavar="FILE", help='files to hash ("-" for stdin)')
    s.add_argument("-c", "--check", action="store_true",
                   help="read digests from the FILEs and check them, as sha256sum -c")
    hmac_key = s.add_mutually_exclusive_group()
    hmac_key.add_argument("--hmac-key-hex", metavar="HEX", help="HMAC-SM3 under this key (hex)")
    hmac_key.add_argument("--hmac-key-file", metavar="FILE",
                          help="HMAC-SM3 under this file's bytes as the key")
    s.set_defaults(func=cmd_sm3)

    add_sm2_parser(sub)
    add_ed25519_parser(sub)
    add_x25519_parser(sub)
    add_sm4_parser(sub)
    add_skinny_parser(sub)

    from . import speed as _speed

    s = sub.add_parser("speed", help="measure throughput next to OpenSSL's (and GmSSL's, "
                       "libsodium's where installed)",
                       description=_speed.help_description(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("algs", nargs="*", metavar="ALG",
                   help=f"algorithms: {', '.join(_speed.ALGORITHMS)} (default: all)")
    s.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto", help=BACKEND_HELP)
    s.add_argument("--threads", type=_whole_number("threads", 1, MAX_THREADS), default=None,
                   metavar="N",
                   help="CPU threads for the all-threads rows, 1 to 4096 (default: every CPU)")
    s.add_argument("--batch", type=_whole_number("items", 1), default=None, metavar="N",
                   help="items per batch call (default: 4096 on the CPU, 2^20 on the GPU)")
    s.add_argument("--seconds", type=_seconds, default=1.0, metavar="SECONDS",
                   help="timing budget per case, in seconds (default 1)")
    s.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    s.add_argument("--plot", metavar="FILE.png",
                   help="also draw the ratios to OpenSSL and to each peer measured as a "
                        "PNG (needs matplotlib)")
    s.add_argument("--max-bytes", type=_byte_size, default=4 << 20, metavar="SIZE",
                   help="largest SM4 buffer, 1MiB to 1GiB (default 4MiB; 1GiB makes each "
                        "OpenSSL row take minutes)")
    s.set_defaults(func=cmd_speed)

    s = sub.add_parser("info", help="show version, CPU features and GPUs")
    s.set_defaults(func=cmd_info)
    _add_serve(sub)
    from .serve import bench  # imports aiohttp / grpcio only when it runs
    bench.add_parser(sub)
    return p


def _add_serve(sub: Any) -> None:
    import dataclasses

    from . import serve
    s = sub.add_parser("serve", help="sign, verify and hash over HTTP/JSON and gRPC, "
                                     "requests batched onto the CPU or GPU",
                       description="Keys: KEYS/<id>.pem|.der (PKCS#8, encrypted unless "
                                   "--allow-plain). Clients: bearer tokens listed by SHA-256 "
                                   "in the --access JSON file. SIGTERM/SIGINT drain and stop, "
                                   "SIGHUP reloads the keys.")
    s.add_argument("--keys", required=True, metavar="DIR", help="the key store directory")
    s.add_argument("--access", required=True, metavar="FILE",
                   help='{"tokens": {"<sha256 hex of a token>": ["key id", ... or "*"]}}')
    s.add_argument("--passin", metavar="SPEC",
                   help="passphrase of the encrypted key files: " + PASS_SPEC.format("in"))
    s.add_argument("--allow-plain", action="store_true", help="accept unencrypted key files")
    s.add_argument("--http", default="127.0.0.1:8080", metavar="HOST:PORT",
                   help="HTTP/JSON listener (default 127.0.0.1:8080; 'off' for none)")
    s.add_argument("--grpc", default=None, metavar="HOST:PORT", help="gRPC listener")
    s.add_argument("--tls-cert", metavar="PEM", help="certificate chain (TLS on both listeners)")
    s.add_argument("--tls-key", metavar="PEM", help="its private key")
    s.add_argument("--tls-client-ca", metavar="PEM", help="require client certificates from "
                                                          "these CAs (mutual TLS)")
    s.add_argument("--allow-insecure", action="store_true",
                   help="allow plain listeners on non-loopback addresses")
    s.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto", help=BACKEND_HELP)
    s.add_argument("--devices", default="0", metavar="LIST",
                   help="GPUs to serve from, one engine each: 'all' or indices such as 0,1 "
                        "(default 0)")
    s.add_argument("--threads", type=_whole_number("threads", 0, MAX_THREADS), default=0,
                   metavar="N",
                   help="CPU threads (default 0: every CPU)")
    s.add_argument("--max-batch", type=_whole_number("items", 1), default=4096, metavar="N",
                   help="most items in one batch call (default 4096)")
    s.add_argument("--max-delay-ms", type=float, default=2.0, metavar="MS",
                   help="longest an item waits for its batch to fill (default 2)")
    s.add_argument("--max-queued", type=_whole_number("items", 1), default=1 << 20, metavar="N",
                   help="items accepted and unfinished before requests get 'overloaded'")
    s.add_argument("--max-items", type=_whole_number("items", 1), default=4096, metavar="N",
                   help="items in one request (default 4096)")
    s.add_argument("--audit-log", metavar="FILE", help="audit lines here (default: stderr)")
    s.add_argument("--workers", type=_whole_number("processes", 1, 256), default=1, metavar="N",
                   help="processes sharing the ports (SO_REUSEPORT), each with its own "
                        "event loop and engines (default 1; fixed ports only)")
    s.add_argument("--seal-ledger", metavar="FILE",
                   help="where SM4 seals are counted per key against SP 800-38D's 2^32 "
                        "random nonces, shared by the workers and kept across restarts "
                        "(default KEYS/.kuaisuo-seals.json)")
    s.add_argument("--share-devices", action="store_true",
                   help="with --workers: every process drives every GPU of --devices "
                        "(default: each process its own share, one GPU each where there "
                        "are enough processes)")
    default = {f.name: f.default for f in dataclasses.fields(serve.Config)}
    s.add_argument("--max-connections", type=_whole_number("connections", 1),
                   default=default["max_connections"], metavar="N",
                   help="HTTP connections open at once per process; more are closed as "
                        "accepted (default %(default)s, kept under the open-file limit)")
    for name, what in (
            ("header_timeout", "an HTTP connection that has not sent a request's headers this "
                               "long after it was accepted is closed"),
            ("read_timeout", "a request body not received whole in this time gets 408"),
            ("idle_timeout", "idle keep-alive HTTP and gRPC connections are closed after this"),
            ("drain_seconds", "on SIGTERM/SIGINT, how long accepted requests may take to "
                              "finish")):
        s.add_argument("--" + name.replace("_", "-"), type=_seconds, default=default[name],
                       metavar="SECONDS", help=what + " (default %(default)g)")
    s.add_argument("--max-pbkdf2-iterations", type=_whole_number("iterations", 1),
                   metavar="N", help="refuse key files whose PBKDF2 asks for more "
                                     "iterations (default: the library's bound, 600,000)")
    s.set_defaults(func=cmd_serve)


def _devices(spec: str) -> Tuple[int, ...]:
    """--devices: 'all' (every GPU found; device 0 where none is) or a list."""
    if spec == "all":
        return tuple(range(max(1, gpu_device_count())))
    try:
        devices = tuple(int(d) for d in spec.split(","))
    except ValueError:
        raise Failure(f"--devices: expected 'all' or indices such as 0,1, not {spec!r}") from None
    if not devices or min(devices) < 0 or len(set(devices)) != len(devices):
        raise Failure(f"--devices {spec}: distinct non-negative indices")
    return devices


def cmd_serve(args: argparse.Namespace) -> int:
    return _guarded("serve", lambda: _serve(args))


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    from dataclasses import replace

    try:
        from .serve import (Config, Limits, Server, audit_to, device_share, start_workers,
                            stop_workers)
    except ImportError as e:
        raise Failure(f"serve needs aiohttp and grpcio (pip install 'kuaisuo[serve]'): {e}")
    if not args.max_delay_ms >= 0:
        raise Failure("--max-delay-ms must not be negative")
    config = Config(keys=args.keys, access=args.access,
                    password=_passphrase(args.passin, "--passin"), allow_plain=args.allow_plain,
                    http=None if args.http == "off" else args.http, grpc=args.grpc,
                    tls_cert=args.tls_cert, tls_key=args.tls_key,
                    tls_client_ca=args.tls_client_ca, allow_insecure=args.allow_insecure,
                    backend=args.backend, devices=_devices(args.devices),
                    threads=args.threads, max_batch=args.max_batch,
                    max_delay=args.max_delay_ms / 1000.0, max_queued=args.max_queued,
                    limits=Limits(max_items=args.max_items), reuse_port=args.workers > 1,
                    seal_ledger=args.seal_ledger, max_connections=args.max_connections,
                    header_timeout=args.header_timeout, read_timeout=args.read_timeout,
                    idle_timeout=args.idle_timeout, drain_seconds=args.drain_seconds,
                    max_pbkdf2_iterations=args.max_pbkdf2_iterations)
    audit_to(args.audit_log)
    split = not args.share_devices and config.backend != "cpu"
    try:
        workers = start_workers(config, args.workers - 1, args.audit_log, split_devices=split)
    except (ValueError, RuntimeError) as e:
        raise Failure(str(e)) from None

    mine = replace(config, devices=device_share(config.devices, args.workers, 0)) \
        if split else config

    async def run() -> None:
        server = Server(mine)
        try:
            errors = await server.start()
        except OSError as e:
            if e.filename:
                raise  # _guarded names the file
            raise Failure(e.strerror or str(e)) from None  # e.g. an HTTP address in use
        except (ValueError, RuntimeError) as e:  # RuntimeError: grpcio's "Failed to bind"
            raise Failure(str(e)) from None
        for line in errors:
            print(f"kuaisuo serve: key not loaded: {line}", file=sys.stderr)
        server.handle_signals(asyncio.get_running_loop())
        def at(address: str, port: Optional[int]) -> str:
            return f"{address.rpartition(':')[0]}:{port}"
        where = [f"grpc {at(config.grpc, server.grpc_port)}"] if config.grpc else []
        if config.http:
            where.append(f"http{'s' if config.tls_cert else ''}://"
                         f"{at(config.http, server.http_port)}")
        print(f"kuaisuo serve: {len(server.service.keys)} keys, listening on "  # type: ignore[union-attr]
              f"{', '.join(where)}" + (f" ({args.workers} processes)" if workers else ""),
              file=sys.stderr, flush=True)
        await server.wait_stopped()

    try:
        asyncio.run(run())
    finally:
        stop_workers(workers)
    return 0


NUMBER_OPTIONS = ("--threads", "--batch", "--seconds", "--max-bytes")


def _attach_values(argv: List[str]) -> List[str]:
    """`--seconds -1e3` as `--seconds=-1e3`: argparse takes a value that
    starts with "-" for an option unless it looks like a plain negative
    number ("-1", "-.5"), and would answer "expected one argument" where
    the value's own error (naming the accepted range) is wanted."""
    out: List[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":  # the rest are operands
            return out + argv[i:]
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if argv[i] in NUMBER_OPTIONS and value.startswith("-") and not value.startswith("--"):
            out.append(f"{argv[i]}={value}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["speed"]:
        argv = argv[:1] + _attach_values(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        status = args.func(args)
        _flush_stdout()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except Failure as e:  # stdout could not be written (a full disk, /dev/full)
        print(f"kuaisuo: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # one a command did not word itself, e.g. print() to a full disk
        _silence_stdout()
        where = f"{e.filename}: " if e.filename else ""
        print(f"kuaisuo: {where}{e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
