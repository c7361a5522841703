"""The `kuaisuo` command line tool.

  kuaisuo sm3 FILE...      SM3 digests in sha256sum format ("-" is stdin)
  kuaisuo sm2 keygen|pubkey|sign|verify   SM2 keys and signatures (OpenSSL formats)
  kuaisuo ed25519 keygen|pubkey|sign|verify   Ed25519 keys and signatures (OpenSSL formats)
  kuaisuo x25519 keygen|pubkey|derive   X25519 keys and shared secrets (OpenSSL formats)
  kuaisuo sm4 keygen|enc|dec   SM4 key files and encryption (the bytes `openssl enc -sm4-*`
                           writes; GCM too)
  kuaisuo skinny keygen|enc|dec   SKINNY-128-256 tweakey files, ECB and CTR
  kuaisuo speed [ALG...]   throughput next to OpenSSL's, measured in one run
  kuaisuo info             version, CPU features and GPUs seen
  kuaisuo serve ...        the HTTP/JSON and gRPC server (the serve extra; serve/README.md)

One module per command, each with add_parser(sub) and the run(args) it
sets as the command's func; what they share: _common (errors, argument
types, hex options), _output (inputs, stdout, files replaced atomically),
_keys (passphrases, key files, keygen and pubkey), _cipher (sm4 and skinny).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .. import __version__
from . import ed25519, info, serve, skinny, sm2, sm3, sm4, speed, x25519
from ._common import Failure
from ._output import flush_stdout, silence_stdout

__all__ = ["Failure", "build_parser", "main"]

# In `kuaisuo --help`'s order.
COMMANDS = (sm3, sm2, ed25519, x25519, sm4, skinny, speed, info, serve)


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The tool's parser. command: the one about to run, where known; the
    server's options are then built only for serve itself."""
    p = argparse.ArgumentParser(prog="kuaisuo", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"kuaisuo {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        if module is serve:
            serve.add_parser(sub, options=command in (None, "serve"))
        else:
            module.add_parser(sub)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["speed"]:
        argv = argv[:1] + speed.attach_values(argv[1:])
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    try:
        status = args.func(args)
        flush_stdout()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        silence_stdout()
        return 141
    except Failure as e:  # stdout could not be written (a full disk, /dev/full)
        print(f"kuaisuo: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # one a command did not word itself, e.g. print() to a full disk
        silence_stdout()
        where = f"{e.filename}: " if e.filename else ""
        print(f"kuaisuo: {where}{e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
