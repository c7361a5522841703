"""`kuaisuo ed25519 keygen|pubkey|sign|verify`: Ed25519 keys (RFC 8410) and
raw 64-byte signatures, Ed25519ctx and Ed25519ph included."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Tuple

from ._common import Failure, guarded, hex_option, input_name
from ._keys import (PUBLIC_KEY_HELP, key_parsers, keygen, passin_option, private_key,
                    public_key, pubkey, report_verification)
from ._output import PUBLIC, out_option, read_input, write_outputs


def _ed25519_domain(args: argparse.Namespace) -> Tuple[Optional[bytes], bool]:
    """(context, prehashed) from --context-hex HEX (or its deprecated
    alias --context, with a warning) and --ph."""
    if args.context is None:
        return hex_option(args.context_hex, "--context-hex"), args.ph
    print("kuaisuo ed25519: --context is deprecated: use --context-hex", file=sys.stderr)
    if args.context_hex is not None:
        raise Failure("give --context-hex or --context, not both")
    return hex_option(args.context, "--context"), args.ph


def run(args: argparse.Namespace) -> int:
    from ..ed25519 import SIGNATURE_BYTES, Ed25519PrivateKey, Ed25519PublicKey

    def body() -> int:
        if args.ed25519_command == "keygen":
            return keygen(args, Ed25519PrivateKey.generate)
        if args.ed25519_command == "pubkey":
            return pubkey(args, Ed25519PrivateKey)
        context, prehashed = _ed25519_domain(args)
        if args.ed25519_command == "sign":
            key = private_key(args.key, Ed25519PrivateKey, args)
            sig = key.sign(read_input(args.file), context, prehashed)
            write_outputs([(args.out, sig, PUBLIC)])
            return 0
        # verify: a signature that is not 64 bytes is an error (exit 2);
        # one of 64 bytes that does not verify, malformed or not, a failure (1).
        pub = public_key(args.pub, Ed25519PublicKey, Ed25519PrivateKey, args)
        sig = read_input(args.sig)
        if len(sig) != SIGNATURE_BYTES:
            raise Failure(f"{input_name(args.sig)}: an Ed25519 signature is "
                          f"{SIGNATURE_BYTES} bytes, not {len(sig)}")
        message = read_input(args.file)
        return report_verification(lambda: pub.verify(sig, message, context, prehashed))

    return guarded("ed25519", body)


def add_parser(sub) -> None:
    p = sub.add_parser("ed25519", help="Ed25519 keys and signatures (files OpenSSL reads and "
                       "writes)",
                       description="Ed25519 (RFC 8032) with PKCS#8/SPKI keys (RFC 8410) and "
                       "raw 64-byte signatures, as openssl pkeyutl -rawin writes and reads "
                       "them. --context-hex selects Ed25519ctx, --ph Ed25519ph.")
    ed = p.add_subparsers(dest="ed25519_command", required=True, metavar="COMMAND")
    key_parsers(ed, "Ed25519", "private key (PKCS#8, PEM or DER)")

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
    p.set_defaults(func=run)
