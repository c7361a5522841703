"""`kuaisuo sm4 keygen|enc|dec`: SM4 key files (PKCS#8) and encryption in
ECB, CBC, CFB, OFB, CTR (the bytes `openssl enc -sm4-*` writes) and GCM."""

from __future__ import annotations

import argparse

from .. import KuaisuoError
from ._cipher import cipher_command, cipher_operands, mode_iv, secret_keygen
from ._common import Failure, hex_option, input_name
from ._keys import key_file, passin_option, passout_options, private_key
from ._output import out_option


def _sm4_run(args: argparse.Namespace, data: bytes) -> bytes:
    """The output of `kuaisuo sm4 enc|dec` for the whole input."""
    from .. import sm4

    encrypt = args.sm4_command == "enc"
    if args.key is not None:
        key = private_key(args.key, sm4.SM4Key, args).to_bytes()
    else:
        key = hex_option(args.key_hex, "--key-hex", (sm4.KEY_BYTES,))
    assert key is not None  # argparse requires --key-hex or --key
    iv = mode_iv(args, None if args.mode == "gcm" else (16,))
    if args.aad_hex is not None and args.mode != "gcm":
        raise Failure("--aad-hex: only GCM takes associated data")
    if args.mode == "gcm":
        if not iv:
            raise Failure("--iv-hex: GCM needs a non-empty IV (12 bytes recommended)")
        aad = hex_option(args.aad_hex, "--aad-hex") or b""
        gcm = sm4.SM4GCM(key)
        if encrypt:
            return gcm.encrypt(iv, data, aad)
        if len(data) < 16:
            raise Failure(f"{input_name(args.input)}: shorter than the 16-byte GCM tag")
        try:
            return gcm.decrypt(iv, data, aad)
        except KuaisuoError:
            raise Failure(f"{input_name(args.input)}: GCM tag mismatch (wrong key, IV, AAD, "
                          "or altered data): nothing written") from None
    padding = args.mode in ("ecb", "cbc") and not args.no_pad
    run = sm4.encrypt if encrypt else sm4.decrypt
    try:
        return run(key, data, mode=args.mode, iv=iv, padding=padding)
    except KuaisuoError as e:
        raise Failure(f"{input_name(args.input)}: {e.message or e}") from None


def run(args: argparse.Namespace) -> int:
    if args.sm4_command == "keygen":
        from ..sm4 import SM4Key

        return secret_keygen("sm4", args, lambda: key_file(SM4Key.generate(), args.der, args))
    return cipher_command("sm4", _sm4_run, args.sm4_command == "dec", args)


def add_parser(sub) -> None:
    p = sub.add_parser("sm4", help="SM4 key files, encryption and decryption (GB/T 32907)",
                       description="SM4 in ECB, CBC, CFB-128, OFB, CTR (128-bit big-endian "
                       "counter) or GCM. ECB and CBC add and strip PKCS#7 padding unless "
                       "--no-pad, as `openssl enc -sm4-cbc -K KEY -iv IV` does, whose output "
                       "is the same bytes; GCM writes the ciphertext followed by the 16-byte "
                       "tag, and on a tag mismatch exits 2 and writes nothing.")
    p.set_defaults(func=run)
    ops = p.add_subparsers(dest="sm4_command", required=True, metavar="COMMAND")
    q = ops.add_parser("keygen", help="new SM4 key file (PKCS#8 with the sm4 OID, as "
                       "`kuaisuo serve` key stores take: serve/README.md)")
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
