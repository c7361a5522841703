"""One shape across algorithms on the command line (issue 41): hex options
are named *-hex, every algorithm with a key has keygen, and the subcommands
describe and order their options alike."""

import argparse
import subprocess
import sys

from kuaisuo import cli, ed25519


def run(*args, stdin=b""):
    return subprocess.run([sys.executable, "-m", "kuaisuo", *map(str, args)], input=stdin,
                          capture_output=True, timeout=120)


def _parsers(parser=None, path=()):
    """(path, parser) for the tool and each of its subcommands, depth first."""
    parser = parser or cli.build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _options(parser):
    """The visible options of a parser (not --help), in --help's order."""
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS
            and not isinstance(a, argparse._HelpAction)]


def test_hex_options_are_named_hex_and_take_hex():
    """An option takes hex exactly when its name ends in -hex; its
    metavar is then HEX (a FILE may hold hex: skinny --key)."""
    for path, parser in _parsers():
        for action in _options(parser):
            says_hex = "hex" in (action.help or "").lower() and action.metavar != "FILE"
            for name in action.option_strings:
                assert name.endswith("-hex") == (action.metavar == "HEX"), (path, name)
                assert name.endswith("-hex") or not says_hex, (path, name)


RFC8032_FOO = ("55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b9513002"
               "2907a7fb7c4e9b2d5f6cca685a587b4b21f4b888e4e7edb0d")


def test_ed25519_context_hex_and_its_deprecated_alias(tmp_path):
    """--context-hex signs Ed25519ctx (RFC 8032 7.2, "foo"); --context
    still does, with one warning line, and is not in --help."""
    key, data, sig = tmp_path / "k.pem", tmp_path / "m", tmp_path / "sig"
    private = ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex(
        "0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6"))
    key.write_text(private.to_pem())
    data.write_bytes(bytes.fromhex("f726936d19c800494e3fdaff20b276a8"))
    r = run("ed25519", "sign", "--key", key, "--context-hex", "666f6f", data)
    assert r.returncode == 0 and r.stdout.hex() == RFC8032_FOO and r.stderr == b"", r.stderr
    r = run("ed25519", "sign", "--key", key, "--context", "666f6f", "--out", sig, data)
    assert r.returncode == 0 and sig.read_bytes().hex() == RFC8032_FOO
    assert r.stderr.decode().splitlines() == [
        "kuaisuo ed25519: --context is deprecated: use --context-hex"]
    for flag in ("--context-hex", "--context"):
        r = run("ed25519", "verify", "--pub", key, "--sig", sig, flag, "666f6f", data)
        assert r.returncode == 0 and r.stdout == b"Verified OK\n"
    r = run("ed25519", "sign", "--key", key, "--context", "xyzw", data)
    assert r.returncode == 2 and b"--context: not hexadecimal" in r.stderr
    assert b"xyzw" not in r.stderr
    r = run("ed25519", "sign", "--key", key, "--context", "66", "--context-hex", "66", data)
    assert r.returncode == 2 and b"not both" in r.stderr and r.stdout == b""
    for command in ("sign", "verify"):
        text = run("ed25519", command, "--help").stdout.decode()
        assert "--context-hex HEX" in text and "--context " not in text
