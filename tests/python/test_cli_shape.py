"""One shape across algorithms on the command line (issue 41): hex options
are named *-hex, every algorithm with a key has keygen, and the subcommands
describe and order their options alike."""

import argparse
import os
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


KEY_ALGORITHMS = ("sm2", "ed25519", "x25519")
# The options the key commands share, in the order each lists them: the key
# and its passphrase, other inputs, outputs, then the output's form.
SHARED_ORDER = ("--key", "--pub", "--passin", "--max-iter", "--sig", "--peer", "--out",
                "--pubout", "--der", "--passout", "--cipher", "--prf", "--iter",
                "--allow-empty-password")
SPEC = ": pass:TEXT, env:VARIABLE, file:PATH or stdin (as openssl {})"
OUT_HELP = (r'[a-z][a-z ]* file \((default stdout|"-" for stdout); (created 0600, )?'
            r'replaced atomically\)')


def _crypto_parsers():
    """(path, parser) of every subcommand but serve, speed and info."""
    return [(path, parser) for path, parser in _parsers()
            if path and path[0] not in ("serve", "speed", "info")]


def test_key_commands_take_the_same_options_in_the_same_order():
    """keygen, pubkey, sign, verify and derive of sm2, ed25519 and x25519:
    the shared options first, in SHARED_ORDER, the same ones for the same
    subcommand whatever the algorithm; the algorithm's own after them."""
    by_command = {}
    for path, parser in _parsers():
        if len(path) != 2 or path[0] not in KEY_ALGORITHMS:
            continue
        names = [a.option_strings[-1] for a in _options(parser)]
        shared = [n for n in names if n in SHARED_ORDER]
        assert names[:len(shared)] == shared, path  # the shared ones come first
        assert shared == sorted(shared, key=SHARED_ORDER.index), path
        by_command.setdefault(path[1], set()).add(tuple(shared))
    assert set(by_command) == {"keygen", "pubkey", "sign", "verify", "derive", "encrypt",
                               "decrypt"}
    for command, shapes in by_command.items():
        assert len(shapes) == 1, (command, shapes)


def test_options_are_described_alike_everywhere():
    """The same option has the same words wherever it stands; --passin and
    --passout take openssl's SPEC; an output's help says where it goes by
    default, that it is replaced atomically and, for a secret, created 0600;
    files are FILE; every option and operand says what it is."""
    import re

    seen = {}
    for path, parser in _parsers():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(
                    action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help, (path, action.dest)
            takes_value = action.nargs != 0 and action.choices is None
            assert action.metavar or not (takes_value and action.option_strings), (path, action.dest)
            if not action.option_strings:
                continue
            name = action.option_strings[-1]
            if name in ("--passin", "--passout"):
                assert action.metavar == "SPEC" and action.help.endswith(SPEC.format(
                    "-" + name[2:])), (path, action.help)
            if name in ("--key", "--pub", "--sig", "--peer", "--out", "--pubout",
                        "--hmac-key-file"):
                assert action.metavar == "FILE", (path, name)
            if name not in ("--out", "--pubout", "--key", "--pub", "--sig", "--peer", "--key-hex",
                            "--iv-hex", "--mode", "--passin", "--backend", "--threads",
                            "--seconds"):  # those that differ by algorithm or command
                seen.setdefault(name, set()).add(action.help)
    for name, helps in seen.items():
        assert len(helps) == 1, (name, helps)
    secrets = {("sm2", "keygen"), ("ed25519", "keygen"), ("x25519", "keygen"),
               ("x25519", "derive"), ("sm4", "keygen"), ("skinny", "keygen"), ("sm4", "dec"),
               ("skinny", "dec"), ("sm2", "decrypt")}
    for path, parser in _crypto_parsers():
        for action in parser._actions:
            if action.dest in ("out", "output"):
                assert re.fullmatch(OUT_HELP, action.help), (path, action.help)
                assert ("created 0600" in action.help) == (path in secrets), (path, action.help)
            if action.dest == "pubout":
                assert action.help.endswith("(replaced atomically)"), (path, action.help)


def test_either_or_options_are_argparse_groups():
    """sm3's two HMAC key forms exclude each other as sm4's and skinny's
    --key / --key-hex do: in the usage line, and with argparse's error."""
    assert "[--hmac-key-hex HEX | --hmac-key-file FILE]" in run("sm3", "--help").stdout.decode()
    r = run("sm3", "--hmac-key-hex", "00", "--hmac-key-file", "x", "-")
    assert r.returncode == 2 and b"not allowed with" in r.stderr and r.stdout == b""


def test_only_serve_imports_the_server_package():
    """kuaisuo_serve (and asyncio under it) is imported for `kuaisuo serve`
    alone: no other command pays for it, and nothing in the library
    imports it."""
    code = ("import sys; from kuaisuo import cli; cli.main(sys.argv[1:]); "
            "print('kuaisuo_serve' in sys.modules)")
    for argv, imported in ((["info"], "False"), (["sm3", "-"], "False"),
                           (["serve", "--help"], "True")):
        r = subprocess.run([sys.executable, "-c", code, *argv], input=b"", capture_output=True,
                           timeout=120)
        if argv[-1] == "--help":  # argparse exits after printing the help
            assert r.returncode == 0 and b"--max-connections N" in r.stdout, r.stderr
            continue
        assert r.returncode == 0 and r.stdout.decode().splitlines()[-1] == imported, (argv, r)


def test_serve_without_its_extra_names_the_install_command(tmp_path):
    """A missing dependency of the serve extra is one line naming
    `pip install '.[serve]'`, not a traceback (aiohttp hidden here by a
    package of that name that fails to import)."""
    for module, listener in (("aiohttp", ()), ("grpc", ("--http", "off", "--grpc",
                                                          "127.0.0.1:0"))):
        blocker = tmp_path / module / module
        blocker.mkdir(parents=True)
        (blocker / "__init__.py").write_text(f"raise ImportError('no {module} here')\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(blocker.parent), os.environ.get("PYTHONPATH", "")]))
        r = subprocess.run([sys.executable, "-m", "kuaisuo", "serve", "--keys", str(tmp_path),
                            "--access", str(tmp_path / "access.json"), *listener],
                           capture_output=True, timeout=120, env=env)
        lines = r.stderr.decode().splitlines()
        assert r.returncode == 2 and len(lines) == 1, (module, r.stderr)
        assert lines[0].startswith("kuaisuo serve: the serve extra is not installed")
        assert f"no {module} here" in lines[0] and "pip install '.[serve]'" in lines[0]
