"""What the cipher commands (sm4, skinny) share: the IV option by mode,
enc|dec over whole files, and a secret key file's keygen."""

from __future__ import annotations

import argparse
from typing import Callable, Optional, Tuple

from ._common import Failure, guarded, hex_option
from ._output import PRIVATE, PUBLIC, read_input, write_outputs


def mode_iv(args: argparse.Namespace, lengths: Optional[Tuple[int, ...]]) -> Optional[bytes]:
    """A cipher command's --iv-hex: none in ECB mode, required in the others."""
    if args.mode == "ecb":
        if args.iv_hex is not None:
            raise Failure("--iv-hex: ECB takes no IV")
        return None
    if args.iv_hex is None:
        raise Failure(f"--iv-hex is required in {args.mode.upper()} mode")
    return hex_option(args.iv_hex, "--iv-hex", lengths)


def cipher_command(tool: str, run: Callable[[argparse.Namespace, bytes], bytes],
                    decrypting: bool, args: argparse.Namespace, key_option: str = "key") -> int:
    """`kuaisuo sm4|skinny enc|dec IN OUT`: the whole output is computed
    (and a GCM tag checked) before anything is written; plaintext is
    written like a secret (0600). key_option names the key's option
    (sm2 encrypt reads --pub)."""
    def body() -> int:
        if getattr(args, key_option) == "-" and args.input == "-":
            raise Failure(f"--{key_option} and IN cannot both be stdin")
        out = run(args, read_input(args.input))
        write_outputs([(args.output, out, PRIVATE if decrypting else PUBLIC)])
        return 0

    return guarded(tool, body)


def secret_keygen(tool: str, args: argparse.Namespace, make: Callable[[], bytes]) -> int:
    """`kuaisuo sm4|skinny keygen`: make()'s key file to --out, 0600."""
    def body() -> int:
        write_outputs([(args.out, make(), PRIVATE)])
        return 0

    return guarded(tool, body)


def cipher_operands(q, command: str) -> None:
    """IN and OUT of enc|dec; decrypted output is written like a secret."""
    text, other = ("plaintext", "ciphertext") if command == "enc" else ("ciphertext", "plaintext")
    q.add_argument("input", metavar="IN", help=f'{text} file ("-" for stdin)')
    q.add_argument("output", metavar="OUT", help=f'{other} file ("-" for stdout; '
                   f'{"created 0600, " if command == "dec" else ""}replaced atomically)')
