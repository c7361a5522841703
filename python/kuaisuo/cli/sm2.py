"""`kuaisuo sm2 keygen|pubkey|sign|verify|encrypt|decrypt`: SM2 keys,
signatures and encryption in the files OpenSSL reads and writes (PKCS#8/SPKI
keys, DER signatures, DER ciphertexts with --format der)."""

from __future__ import annotations

import argparse
import os

from .. import SM3, KuaisuoError
from ._cipher import cipher_command, cipher_operands
from ._common import CHUNK, Failure, guarded, hex_option, input_name
from ._keys import (PUBLIC_KEY_HELP, key_parsers, keygen, passin_option, private_key,
                    public_key, pubkey, report_verification)
from ._output import PUBLIC, out_option, read_input, stdin, write_outputs


def _sm2_e(pub, id_: bytes, name: str) -> bytes:
    """e = SM3(Z_A || M), streaming the file so that any size fits."""
    h = SM3(pub.za(id_))
    if name == "-":
        stream = stdin()
        for chunk in iter(lambda: stream.read(CHUNK), b""):
            h.update(chunk)
    else:
        with open(name, "rb") as f:
            for chunk in iter(lambda: f.read(CHUNK), b""):
                h.update(chunk)
    return h.digest()


def _sm2_id(args: argparse.Namespace) -> bytes:
    if args.id_hex is not None:
        return hex_option(args.id_hex, "--id-hex")
    # The exact bytes given: argv that is not UTF-8 arrives as surrogate
    # escapes, which fsencode turns back into those bytes.
    return os.fsencode(args.id)


def _raw_signature(data: bytes, name: str, raw: bool) -> bytes:
    """r||s from a signature file. A malformed one is an error (exit 2);
    only a well-formed signature that does not verify is a failure (1)."""
    from ..sm2 import signature_from_der

    if raw:
        if len(data) != 64:
            raise Failure(f"{input_name(name)}: a raw signature (r||s) is 64 bytes, "
                          f"not {len(data)}")
        return data
    try:
        return signature_from_der(data)
    except KuaisuoError as e:
        raise Failure(f"{input_name(name)}: not a DER signature: {e.message}") from None


def _crypt(args: argparse.Namespace, data: bytes) -> bytes:
    """encrypt: to --pub; decrypt: with --key. A ciphertext that does not
    decrypt is reported and nothing is written."""
    from ..sm2 import SM2PrivateKey, SM2PublicKey

    if args.sm2_command == "encrypt":
        return public_key(args.pub, SM2PublicKey, SM2PrivateKey, args).encrypt(data, args.format)
    key = private_key(args.key, SM2PrivateKey, args)
    try:
        return key.decrypt(data, args.format)
    except KuaisuoError as e:
        raise Failure(f"{input_name(args.input)}: {e.message}") from None


def run(args: argparse.Namespace) -> int:
    from ..sm2 import SM2PrivateKey, SM2PublicKey

    if args.sm2_command in ("encrypt", "decrypt"):
        decrypting = args.sm2_command == "decrypt"
        return cipher_command("sm2", _crypt, decrypting, args, "key" if decrypting else "pub")

    def body() -> int:
        if args.sm2_command == "keygen":
            return keygen(args, SM2PrivateKey.generate)
        if args.sm2_command == "pubkey":
            return pubkey(args, SM2PrivateKey)
        if args.sm2_command == "sign":
            key = private_key(args.key, SM2PrivateKey, args)
            e = _sm2_e(key.public_key(), _sm2_id(args), args.file)
            sig = key.sign_digest(e, deterministic=args.deterministic,
                                  encoding="raw" if args.raw else "der")
            write_outputs([(args.out, sig, PUBLIC)])
            return 0
        # verify
        pub = public_key(args.pub, SM2PublicKey, SM2PrivateKey, args)
        sig = _raw_signature(read_input(args.sig), args.sig, args.raw)
        e = _sm2_e(pub, _sm2_id(args), args.file)
        return report_verification(lambda: pub.verify_digest(sig, e, encoding="raw"))

    return guarded("sm2", body)


def add_parser(sub) -> None:
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

    key_parsers(sm2, "SM2", "private key (PKCS#8/SEC1, PEM or DER)")

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

    formats = dict(choices=("c1c3c2", "c1c2c3", "der"), default="c1c3c2",
                   help="ciphertext format: C1||C3||C2 (GB/T 32918.4-2016, the default), "
                   "C1||C2||C3 (the 2012 order), or DER SM2Cipher (GM/T 0009; what "
                   "openssl pkeyutl -encrypt writes)")
    q = sm2.add_parser("encrypt", help="encrypt a file to a public key (GB/T 32918.4)")
    q.add_argument("--pub", required=True, metavar="FILE", help=PUBLIC_KEY_HELP)
    passin_option(q)
    q.add_argument("--format", **formats)
    cipher_operands(q, "enc")
    q = sm2.add_parser("decrypt", help="decrypt a file with a private key (no output on failure)")
    q.add_argument("--key", required=True, metavar="FILE",
                   help="private key (PKCS#8/SEC1, PEM or DER)")
    passin_option(q)
    q.add_argument("--format", **formats)
    cipher_operands(q, "dec")
    p.set_defaults(func=run)
