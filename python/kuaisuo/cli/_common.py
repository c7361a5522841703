"""What every command shares: the error type and how errors are printed,
argparse value types, hex options, and the words of shared help texts."""

from __future__ import annotations

import argparse
import math
import string
import sys
from typing import Callable, Optional, Tuple, overload

from .. import KuaisuoError


CHUNK = 1 << 20
MAX_THREADS = 4096  # ks_ctx_new's limit
BACKEND_HELP = "cpu, gpu, or auto: the library chooses (default auto)"


class Failure(Exception):
    """An error for the user, without a traceback: `kuaisuo sm2: MESSAGE`, exit 2."""


def whole_number(what: str, low: int, high: Optional[int] = None):
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


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def input_name(name: str) -> str:
    return "stdin" if name == "-" else name


def guarded(command: str, body: Callable[[], int]) -> int:
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


def _hex_fault(text: str) -> str:
    """Where a hexadecimal string goes wrong, without quoting it."""
    digits = "".join(text.split())
    bad = next((i for i, c in enumerate(digits) if c not in string.hexdigits), None)
    if bad is not None:
        return f"a character that is not a hex digit at position {bad + 1}"
    return f"an odd number of hex digits ({len(digits)})"


@overload
def hex_option(text: str, option: str, lengths: Optional[Tuple[int, ...]] = None) -> bytes: ...


@overload
def hex_option(text: None, option: str, lengths: Optional[Tuple[int, ...]] = None) -> None: ...


def hex_option(text: Optional[str], option: str, lengths: Optional[Tuple[int, ...]] = None
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
