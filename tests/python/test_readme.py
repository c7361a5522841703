"""Every code block in README.md runs as written.

- ```python blocks run in a fresh interpreter;
- ```sh blocks run under bash in an empty directory, `kuaisuo` being this
  interpreter's command;
- the ```c block is a complete program: tests/consumer/run.sh builds and
  runs it against the installed library with the README's own commands
  (the sh block marked "run by tests/consumer/run.sh");
- blocks marked "not run" (they install or build) are checked instead:
  the scripts and commands they name exist, their CMake options are
  options of CMakeLists.txt and their pip extras are in pyproject.toml.

A marker is an HTML comment on the line before the block:
<!-- test: not run -->, <!-- test: run by tests/consumer/run.sh -->.
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
NOT_RUN = "<!-- test: not run -->"
CONSUMER = "<!-- test: run by tests/consumer/run.sh -->"


def blocks():
    """(language, code, marker) for every fenced block, in order."""
    lines = README.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        marker = lines[j].strip() if j >= 0 and lines[j].strip().startswith("<!--") else ""
        end = i + 1
        while not lines[end].startswith("```"):
            end += 1
        out.append((m.group(1), "\n".join(lines[i + 1:end]) + "\n", marker))
        i = end + 1
    return out


def kuaisuo_path(tmp_path):
    """PATH with this interpreter's bin directory, and a `kuaisuo` that runs
    `python -m kuaisuo` where the entry-point script is not installed."""
    bindir = os.path.dirname(sys.executable)
    path = bindir + os.pathsep + os.environ.get("PATH", "")
    if shutil.which("kuaisuo", path=path) is None:
        shim = tmp_path / "bin"
        shim.mkdir()
        (shim / "kuaisuo").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kuaisuo "$@"\n')
        (shim / "kuaisuo").chmod(0o755)
        path = str(shim) + os.pathsep + path
    return path


def test_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


def test_every_block_is_run_or_checked():
    seen = {"c": 0, "consumer": 0}
    for lang, _, marker in blocks():
        assert lang in ("c", "python", "sh"), f"a ```{lang} block: no test runs it"
        if lang == "c":
            seen["c"] += 1
        if marker == CONSUMER:
            assert lang == "sh"
            seen["consumer"] += 1
        else:
            assert marker in ("", NOT_RUN) or lang == "c", marker
    assert seen == {"c": 1, "consumer": 1}, seen
    run_sh = (ROOT / "tests" / "consumer" / "run.sh").read_text()
    assert "README.md" in run_sh and CONSUMER in run_sh


@pytest.mark.parametrize("index", [i for i, b in enumerate(blocks()) if b[0] == "python"])
def test_python_block_runs(tmp_path, index):
    code = blocks()[index][1]
    src = tmp_path / "readme_example.py"
    src.write_text(code)
    r = subprocess.run([sys.executable, str(src)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("index", [i for i, b in enumerate(blocks())
                                   if b[0] == "sh" and not b[2]])
def test_shell_block_runs(tmp_path, index):
    code = blocks()[index][1]
    env = dict(os.environ, PATH=kuaisuo_path(tmp_path))
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=work, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def cmake_options():
    text = "".join(p.read_text() for p in ROOT.glob("**/CMakeLists.txt")
                   if "build" not in p.relative_to(ROOT).parts)
    return set(re.findall(r"option\((\w+)", text))


def pip_extras():
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^(\w[\w-]*)\s*=", section, re.M))


def test_blocks_not_run_name_what_exists(tmp_path):
    path = kuaisuo_path(tmp_path)
    options, extras = cmake_options(), pip_extras()
    checked = 0
    for lang, code, marker in blocks():
        if marker != NOT_RUN:
            continue
        for line in code.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            while words and re.match(r"^\w+=", words[0]):  # VAR=value before a command
                words = words[1:]
            if not words:
                continue
            cmd = words[0]
            if cmd in (".", "source"):
                target = words[1]
                made_by_scripts = target.startswith(".venv/") and \
                    ".venv" in (ROOT / "scripts" / "env.sh").read_text()
                assert made_by_scripts or (ROOT / target).exists(), line
            elif "/" in cmd:
                assert os.access(ROOT / cmd, os.X_OK), f"{cmd} is not an executable file"
            else:
                assert shutil.which(cmd, path=path), f"{cmd}: no such command ({line})"
            for name in re.findall(r"-D(\w+)=", line):
                assert name.startswith("CMAKE_") or name in options, f"-D{name}: not an option"
            for extra in re.findall(r"\.\[([\w,-]+)\]", line):
                for e in extra.split(","):
                    assert e in extras, f"pip extra [{e}] is not in pyproject.toml"
            checked += 1
    assert checked >= 5


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_resolve():
    text = README.read_text()
    for target in re.findall(r"\]\(([^)]+)\)", text):
        if re.match(r"^[a-z]+://", target):
            continue
        file, _, anchor = target.partition("#")
        dest = ROOT / file
        assert dest.exists(), f"README links to {file}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", dest.read_text(), re.M)
            assert anchor in {slug(h) for h in headings}, f"{target}: no such heading"
