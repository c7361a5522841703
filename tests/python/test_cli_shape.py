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


def test_skinny_keygen_writes_a_tweakey_file_that_enc_and_dec_read(tmp_path):
    """`kuaisuo skinny keygen` (0600, 64 lowercase hex digits and a newline,
    fresh each time) and `enc`/`dec --key FILE`, whose output is the same
    as --key-hex's; a file of any other form is a clear error that does not
    echo it."""
    from kuaisuo import skinny

    key, data, ct = tmp_path / "tk", tmp_path / "in", tmp_path / "ct"
    data.write_bytes(bytes(range(256)) * 3)
    assert run("skinny", "keygen", "--out", key).returncode == 0
    text = key.read_text()
    assert len(text) == 65 and text[-1] == "\n" and text[:-1] == text[:-1].lower()
    assert (key.stat().st_mode & 0o777) == 0o600
    tweakey = bytes.fromhex(text)
    r = run("skinny", "keygen")
    assert r.returncode == 0 and len(r.stdout) == 65 and r.stdout.decode() != text
    ctr = ("--mode", "ctr", "--iv-hex", "00" * 15 + "ff")
    assert run("skinny", "enc", *ctr, "--key", key, data, ct).returncode == 0
    assert ct.read_bytes() == skinny.encrypt(tweakey, data.read_bytes(), mode="ctr",
                                             iv=bytes(15) + b"\xff")
    key.write_text(f"  \n{text.strip()}\r\n\t")  # white space around it is allowed
    r = run("skinny", "dec", *ctr, "--key", key, ct, "-")
    assert r.returncode == 0 and r.stdout == data.read_bytes(), r.stderr
    r = run("skinny", "enc", *ctr, "--key", "-", data, "-", stdin=text.encode())
    assert r.returncode == 0 and r.stdout == ct.read_bytes(), r.stderr
    r = run("skinny", "enc", *ctr, "--key", "-", "-", "-", stdin=text.encode())
    assert r.returncode == 2 and b"both be stdin" in r.stderr and r.stdout == b""
    secret = text.strip()
    for bad in (secret.upper(), secret[:-1], secret + "0", f"{secret[:32]} {secret[32:]}",
                f"-----BEGIN KEY-----\n{secret}\n-----END KEY-----\n", secret + "\nx", ""):
        key.write_text(bad)
        r = run("skinny", "enc", *ctr, "--key", key, data, tmp_path / "x")
        assert r.returncode == 2 and b"not a SKINNY tweakey file" in r.stderr, (bad, r.stderr)
        assert secret[:8].encode() not in r.stderr.lower() and b"Traceback" not in r.stderr
        assert not (tmp_path / "x").exists()
    r = run("skinny", "enc", *ctr, "--key", key, "--key-hex", secret, data, "-")
    assert r.returncode == 2 and b"not allowed with" in r.stderr and r.stdout == b""
    assert "keygen" in run("skinny", "--help").stdout.decode()
    assert "--key FILE" in run("skinny", "enc", "--help").stdout.decode()
