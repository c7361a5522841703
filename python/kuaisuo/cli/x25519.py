"""`kuaisuo x25519 keygen|pubkey|derive`: X25519 keys (RFC 8410) and the
shared secret with a peer."""

from __future__ import annotations

import argparse

from .. import KuaisuoError
from ._common import Failure, guarded, input_name
from ._keys import PUBLIC_KEY_HELP, key_parsers, keygen, passin_option, private_key, public_key, pubkey
from ._output import PRIVATE, out_option, write_outputs


def run(args: argparse.Namespace) -> int:
    from ..x25519 import X25519PrivateKey, X25519PublicKey

    def body() -> int:
        if args.x25519_command == "keygen":
            return keygen(args, X25519PrivateKey.generate)
        if args.x25519_command == "pubkey":
            return pubkey(args, X25519PrivateKey)
        # derive: the shared secret is a secret, written 0600 like a key
        key = private_key(args.key, X25519PrivateKey, args)
        peer = public_key(args.peer, X25519PublicKey, X25519PrivateKey, args)
        try:
            secret = key.exchange(peer)
        except KuaisuoError as e:
            raise Failure(f"{input_name(args.peer)}: {e.message or e}") from None
        write_outputs([(args.out, secret, PRIVATE)])
        return 0

    return guarded("x25519", body)


def add_parser(sub) -> None:
    p = sub.add_parser("x25519", help="X25519 keys and key agreement (files OpenSSL reads and "
                       "writes)",
                       description="X25519 (RFC 7748) with PKCS#8/SPKI keys (RFC 8410); derive "
                       "writes the 32-byte shared secret, as openssl pkeyutl -derive does.")
    x = p.add_subparsers(dest="x25519_command", required=True, metavar="COMMAND")
    key_parsers(x, "X25519", "private key (PKCS#8, PEM or DER)")

    q = x.add_parser("derive", help="shared secret with a peer (32 raw bytes)")
    q.add_argument("--key", required=True, metavar="FILE", help="private key (PKCS#8, PEM or DER)")
    passin_option(q)
    q.add_argument("--peer", required=True, metavar="FILE", help="the peer's " + PUBLIC_KEY_HELP)
    out_option(q, "shared secret", secret=True)
    p.set_defaults(func=run)
