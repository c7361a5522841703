"""`kuaisuo sm3 [-c] [--hmac-key-hex HEX | --hmac-key-file FILE] FILE...`:
SM3 (or HMAC-SM3) digests in sha256sum's format, and checking them."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, BinaryIO, Callable, List

from .. import SM3, HmacSM3
from ._common import CHUNK, Failure, hex_option
from ._output import read_input, stdin


def _hash_stream(stream: BinaryIO, make: Callable[[], Any] = SM3) -> str:
    h = make()
    for chunk in iter(lambda: stream.read(CHUNK), b""):
        h.update(chunk)
    return h.hexdigest()


def _sm3_factory(args: argparse.Namespace) -> Callable[[], Any]:
    """SM3, or HMAC-SM3 under --hmac-key-hex / --hmac-key-file."""
    if args.hmac_key_hex is not None:
        key = hex_option(args.hmac_key_hex, "--hmac-key-hex")
        return lambda: HmacSM3(key)
    if args.hmac_key_file is not None:
        key = read_input(args.hmac_key_file)
        return lambda: HmacSM3(key)
    return SM3


def _digest_file(name: str, make: Callable[[], Any]) -> str:
    if name == "-":
        return _hash_stream(stdin(), make)
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
            text = read_input(listing).decode("utf-8", "surrogateescape")
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


def run(args: argparse.Namespace) -> int:
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


def add_parser(sub) -> None:
    s = sub.add_parser("sm3", help="print or check SM3 / HMAC-SM3 digests of files "
                       "(sha256sum format)")
    s.add_argument("files", nargs="*", metavar="FILE", help='files to hash ("-" for stdin)')
    s.add_argument("-c", "--check", action="store_true",
                   help="read digests from the FILEs and check them, as sha256sum -c")
    hmac_key = s.add_mutually_exclusive_group()
    hmac_key.add_argument("--hmac-key-hex", metavar="HEX", help="HMAC-SM3 under this key (hex)")
    hmac_key.add_argument("--hmac-key-file", metavar="FILE",
                          help="HMAC-SM3 under this file's bytes as the key")
    s.set_defaults(func=run)
