"""`kuaisuo skinny keygen|enc|dec`: SKINNY-128-256 tweakey files and
encryption in ECB and CTR."""

from __future__ import annotations

import argparse
import re
import secrets

from .. import KuaisuoError
from ._cipher import cipher_command, cipher_operands, mode_iv, secret_keygen
from ._common import Failure, hex_option, input_name
from ._output import out_option, read_input


# A SKINNY tweakey file: there is no standard one, so `kuaisuo skinny
# keygen` writes the 32 bytes as 64 lowercase hex digits and a newline,
# and `enc|dec --key FILE` reads exactly that, white space around it allowed.
TWEAKEY_FILE = re.compile(rb"\s*([0-9a-f]{64})\s*")


def _tweakey_file(name: str) -> bytes:
    """The tweakey in a file that `kuaisuo skinny keygen` wrote."""
    m = TWEAKEY_FILE.fullmatch(read_input(name))
    if m is None:  # the content is never echoed: it is a secret
        raise Failure(f"{input_name(name)}: not a SKINNY tweakey file (64 lowercase hex "
                      "digits and a newline, as `kuaisuo skinny keygen` writes)")
    return bytes.fromhex(m.group(1).decode())


def _skinny_run(args: argparse.Namespace, data: bytes) -> bytes:
    """The output of `kuaisuo skinny enc|dec` for the whole input."""
    from .. import skinny

    if args.key is not None:
        tweakey = _tweakey_file(args.key)
    else:
        tweakey = hex_option(args.key_hex, "--key-hex", (skinny.TWEAKEY_BYTES,))
    assert tweakey is not None  # argparse requires --key-hex or --key
    iv = mode_iv(args, (16,))
    run = skinny.encrypt if args.skinny_command == "enc" else skinny.decrypt
    try:
        return run(tweakey, data, mode=args.mode, iv=iv)
    except KuaisuoError as e:
        raise Failure(f"{input_name(args.input)}: {e.message or e}") from None


def run(args: argparse.Namespace) -> int:
    if args.skinny_command == "keygen":
        from ..skinny import TWEAKEY_BYTES

        # secrets: the OS CSPRNG (os.urandom)
        return secret_keygen("skinny", args, lambda: secrets.token_bytes(
            TWEAKEY_BYTES).hex().encode() + b"\n")
    return cipher_command("skinny", _skinny_run, args.skinny_command == "dec", args)


def add_parser(sub) -> None:
    p = sub.add_parser("skinny", help="SKINNY-128-256 tweakey files, encryption and decryption",
                       description="SKINNY-128-256 (the tweakable block cipher of the SKINNY "
                       "paper) in ECB (whole 16-byte blocks, no padding) or CTR (any length; "
                       "the IV is the first counter block, a 128-bit big-endian integer "
                       "incremented per block). There is no standard key file for SKINNY: "
                       "keygen writes the 32-byte tweakey as 64 lowercase hex digits and a "
                       "newline, which enc and dec --key read.")
    p.set_defaults(func=run)
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
