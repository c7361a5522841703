"""Key files and passphrases, shared by the key commands (sm2, ed25519,
x25519, sm4 keygen): OpenSSL's passphrase forms, reading private and
public keys (asking for a passphrase on a terminal), writing PKCS#8 files
(encrypted with --passout), keygen and pubkey, their options."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any, Callable, Optional

from .. import InvalidSignature, KuaisuoError
from .._pkcs8 import (DEFAULT_ITERATIONS, DEFAULT_MAX_ITERATIONS, ITERATIONS_LIMIT, PRFS,
                      SCHEMES, KeyIsEncrypted, KeyNotEncrypted, scheme_code)
from ._common import Failure, input_name, whole_number
from ._output import PRIVATE, PUBLIC, out_option, read_input, stdin, write_outputs


WRONG_PASSPHRASE = -50  # KS_ERR_WRONG_PASSPHRASE
ITERATIONS_OVER_MAXIMUM = -52  # KS_ERR_PBES2_ITERATIONS
PASS_SPEC = "pass:TEXT, env:VARIABLE, file:PATH or stdin (as openssl -pass{})"
PUBLIC_KEY_HELP = "public key (SPKI or X.509 certificate, PEM or DER) or private key"


def passphrase(spec: Optional[str], option: str) -> Optional[bytes]:
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
        return stdin().readline().rstrip(b"\r\n")
    # The value is not echoed: it may be the passphrase itself.
    raise Failure(f"{option}: expected pass:TEXT, env:VARIABLE, file:PATH or stdin")


def _key_error(name: str, e: KuaisuoError) -> Failure:
    if e.code == WRONG_PASSPHRASE:
        return Failure(f"{input_name(name)}: wrong passphrase for the encrypted private key")
    return Failure(f"{input_name(name)}: {e.message or e}")


def private_key(name: str, cls: Any, args: argparse.Namespace, data: Optional[bytes] = None
                 ) -> Any:
    """A private key of class cls (SM2PrivateKey, ...) from a file (or its
    bytes, data), decrypted with the --passin passphrase when it is
    encrypted (asked for on the terminal when there is one and no --passin,
    as openssl does), its PBKDF2 iteration count bounded by --max-iter."""
    if data is None:
        data = read_input(name)
    password = passphrase(args.passin, "--passin")
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
            raise Failure(f"{input_name(name)}: {e.message}; allow more with --max-iter N "
                          "if the file is trusted") from None
        raise _key_error(name, e) from None


def _ask_passphrase(name: str) -> bytes:
    """The passphrase of an encrypted key, from the terminal; never read
    from a standard input that is not one (a pipe holds the data)."""
    if name == "-" or sys.stdin is None or not sys.stdin.isatty():
        raise Failure(f"{input_name(name)}: the private key is encrypted: give its passphrase "
                      f"with --passin pass:TEXT, env:VARIABLE, file:PATH or stdin")
    try:
        return os.fsencode(getpass.getpass(f"Enter pass phrase for {name}: "))
    except EOFError:
        raise Failure(f"{name}: no passphrase was entered") from None


def public_key(name: str, cls: Any, private_cls: Any, args: argparse.Namespace) -> Any:
    """A public key of class cls (SubjectPublicKeyInfo or a certificate,
    DER or PEM), or the public half of a private key of private_cls (as
    openssl -prverify takes; encrypted ones with --passin); an unreadable
    one is reported as a public key."""
    data = read_input(name)
    try:
        return cls.from_der(data)
    except KuaisuoError as e:
        public_error = e
    try:
        return private_cls.from_der(data).public_key()
    except KeyIsEncrypted:
        return private_key(name, private_cls, args, data).public_key()
    except KuaisuoError:
        pass
    raise Failure(f"{input_name(name)}: not a public key: {public_error.message}")


def report_verification(verify: Callable[[], None]) -> int:
    """openssl's words and exit codes: 0 "Verified OK", 1 "Verification
    failure" for a well-formed signature that does not verify."""
    try:
        verify()
    except InvalidSignature:
        print("Verification failure")
        return 1
    print("Verified OK")
    return 0


def key_file(key, der: bool, args: Optional[argparse.Namespace] = None) -> bytes:
    """A key's file: PKCS#8 / SPKI, PEM or DER; a private key encrypted
    when args carries --passout."""
    password = passphrase(getattr(args, "passout", None), "--passout")
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


def keygen(args: argparse.Namespace, generate: Callable[[], Any]) -> int:
    """keygen: the private key (0600) and, with --pubout, its public key."""
    out, pubout = args.out, args.pubout
    if (out not in (None, "-") and pubout not in (None, "-")
            and os.path.abspath(out) == os.path.abspath(pubout)):
        raise Failure("--out and --pubout name the same file")
    key = generate()
    outputs = [(out, key_file(key, args.der, args), PRIVATE)]
    if pubout:
        outputs.append((pubout, key_file(key.public_key(), args.der), PUBLIC))
    write_outputs(outputs)
    return 0


def pubkey(args: argparse.Namespace, private_cls: Any) -> int:
    pub = private_key(args.key, private_cls, args).public_key()
    write_outputs([(args.out, key_file(pub, args.der), PUBLIC)])
    return 0


def passin_option(q) -> None:
    q.add_argument("--passin", metavar="SPEC",
                   help="passphrase of an encrypted key file: " + PASS_SPEC.format("in"))
    q.add_argument("--max-iter", metavar="N", type=whole_number("iterations", 1, ITERATIONS_LIMIT),
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
    q.add_argument("--iter", type=whole_number("iterations", 1, ITERATIONS_LIMIT),
                   default=DEFAULT_ITERATIONS, metavar="N",
                   help=f"with --passout: PBKDF2 iterations (default {DEFAULT_ITERATIONS:,})")
    q.add_argument("--allow-empty-password", action="store_true",
                   help="with --passout: accept an empty passphrase (refused otherwise)")


def key_parsers(keys, what: str, pubkey_help: str) -> None:
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
