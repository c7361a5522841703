"""The `kuaisuo` command line tool.

  kuaisuo sm3 FILE...      SM3 digests in sha256sum format ("-" is stdin)
  kuaisuo sm2 keygen|pubkey|sign|verify   SM2 keys and signatures (OpenSSL formats)
  kuaisuo speed [ALG...]   throughput next to OpenSSL's, measured in one run
  kuaisuo info             version, CPU features and GPUs seen
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import BinaryIO, List, Optional

from . import SM3, KuaisuoError, __version__, _native, cpu_features, gpu_built, gpu_device_count

CHUNK = 1 << 20


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _hash_stream(stream: BinaryIO) -> str:
    h = SM3()
    for chunk in iter(lambda: stream.read(CHUNK), b""):
        h.update(chunk)
    return h.hexdigest()


def cmd_sm3(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files or ["-"]:
        try:
            if name == "-":
                digest = _hash_stream(sys.stdin.buffer)
            else:
                with open(name, "rb") as f:
                    digest = _hash_stream(f)
        except OSError as e:
            print(f"kuaisuo sm3: {name}: {e.strerror or e}", file=sys.stderr)
            status = 1
            continue
        print(f"{digest}  {name}")
    return status


def _read_input(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as f:
        return f.read()


def _write_output(name: Optional[str], data: bytes) -> None:
    if name is None or name == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _sm2_e(pub, id_: bytes, name: str) -> bytes:
    """e = SM3(Z_A || M), streaming the file so that any size fits."""
    h = SM3(pub.za(id_))
    if name == "-":
        stream = sys.stdin.buffer
        for chunk in iter(lambda: stream.read(CHUNK), b""):
            h.update(chunk)
    else:
        with open(name, "rb") as f:
            for chunk in iter(lambda: f.read(CHUNK), b""):
                h.update(chunk)
    return h.digest()


def _sm2_id(args: argparse.Namespace) -> bytes:
    if args.id_hex is not None:
        try:
            return bytes.fromhex(args.id_hex)
        except ValueError:
            raise SystemExit("kuaisuo sm2: --id-hex is not hexadecimal")
    return args.id.encode("utf-8")


def cmd_sm2(args: argparse.Namespace) -> int:
    from .sm2 import SM2PrivateKey, SM2PublicKey

    try:
        if args.sm2_command == "keygen":
            key = SM2PrivateKey.generate()
            _write_output(args.out, key.to_der() if args.der else key.to_pem().encode())
            if args.pubout:
                pub = key.public_key()
                _write_output(args.pubout, pub.to_der() if args.der else pub.to_pem().encode())
            return 0
        if args.sm2_command == "pubkey":
            pub = SM2PrivateKey.from_der(_read_input(args.key)).public_key()
            _write_output(args.out, pub.to_der() if args.der else pub.to_pem().encode())
            return 0
        if args.sm2_command == "sign":
            key = SM2PrivateKey.from_der(_read_input(args.key))
            e = _sm2_e(key.public_key(), _sm2_id(args), args.file)
            sig = key.sign_digest(e, deterministic=args.deterministic,
                                  encoding="raw" if args.raw else "der")
            _write_output(args.out, sig)
            return 0
        # verify
        data = _read_input(args.pub)
        try:
            pub = SM2PublicKey.from_der(data)
        except KuaisuoError:  # also accept a private key, as openssl -prverify does
            pub = SM2PrivateKey.from_der(data).public_key()
        sig = _read_input(args.sig)
        e = _sm2_e(pub, _sm2_id(args), args.file)
        ok = pub.verify_digest(sig, e, encoding="raw" if args.raw else "der")
        print("Verified OK" if ok else "Verification failure")
        return 0 if ok else 1
    except OSError as e:
        print(f"kuaisuo sm2: {e.filename}: {e.strerror or e}", file=sys.stderr)
    except KuaisuoError as e:
        print(f"kuaisuo sm2: {e.args[1] if len(e.args) > 1 else e}", file=sys.stderr)
    return 2


def cmd_speed(args: argparse.Namespace) -> int:
    from . import speed

    algs = args.algs or list(speed.ALGORITHMS)
    unknown = [a for a in algs if a not in speed.PLANS]
    if unknown:
        print(f"kuaisuo speed: unknown algorithm {', '.join(unknown)} "
              f"(known: {', '.join(speed.ALGORITHMS)})", file=sys.stderr)
        return 2
    threads = args.threads or os.cpu_count() or 1
    return speed.run(algs, args.backend, threads, args.batch, args.seconds, args.json)


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
        q.add_argument("--id", default="1234567812345678",
                       help="distinguishing ID (UTF-8; default 1234567812345678)")
        q.add_argument("--id-hex", default=None, help="distinguishing ID as hex bytes")

    q = sm2.add_parser("keygen", help="new private key (PKCS#8 PEM)")
    q.add_argument("--out", help="private key file (default stdout; created 0600)")
    q.add_argument("--pubout", help="also write the public key (SubjectPublicKeyInfo)")
    q.add_argument("--der", action="store_true", help="DER instead of PEM")

    q = sm2.add_parser("pubkey", help="public key of a private key")
    q.add_argument("--key", required=True, help="private key (PKCS#8/SEC1, PEM or DER)")
    q.add_argument("--out", help="output file (default stdout)")
    q.add_argument("--der", action="store_true", help="DER instead of PEM")

    q = sm2.add_parser("sign", help="sign a file (DER signature)")
    q.add_argument("--key", required=True, help="private key (PKCS#8/SEC1, PEM or DER)")
    id_options(q)
    q.add_argument("--out", help="signature file (default stdout)")
    q.add_argument("--raw", action="store_true", help="64-byte r||s instead of DER")
    q.add_argument("--deterministic", action="store_true",
                   help="derive k from key and digest (RFC 6979 over HMAC-SM3)")
    q.add_argument("file", metavar="FILE", help='file to sign ("-" for stdin)')

    q = sm2.add_parser("verify", help="verify a file's signature")
    q.add_argument("--pub", required=True, help="public key (SPKI PEM/DER) or private key")
    q.add_argument("--sig", required=True, help="signature file (DER, or r||s with --raw)")
    id_options(q)
    q.add_argument("--raw", action="store_true", help="signature is 64-byte r||s")
    q.add_argument("file", metavar="FILE", help='signed file ("-" for stdin)')
    p.set_defaults(func=cmd_sm2)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kuaisuo", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"kuaisuo {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("sm3", help="print SM3 digests of files (sha256sum format)")
    s.add_argument("files", nargs="*", metavar="FILE", help='files to hash; "-" is stdin')
    s.set_defaults(func=cmd_sm3)

    add_sm2_parser(sub)

    s = sub.add_parser("speed", help="measure throughput next to OpenSSL's")
    s.add_argument("algs", nargs="*", metavar="ALG", help="algorithms (default: all)")
    s.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto")
    s.add_argument("--threads", type=_positive_int, default=None,
                   help="CPU threads for the all-threads rows (default: every CPU)")
    s.add_argument("--batch", type=_positive_int, default=None,
                   help="items per batch call (default: 4096 on the CPU, 2^20 on the GPU)")
    s.add_argument("--seconds", type=_positive_float, default=1.0,
                   help="timing budget per case (default 1)")
    s.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    s.set_defaults(func=cmd_speed)

    s = sub.add_parser("info", help="show version, CPU features and GPUs")
    s.set_defaults(func=cmd_info)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 141


if __name__ == "__main__":
    sys.exit(main())
