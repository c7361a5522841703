"""`kuaisuo speed` reports the spread of its rounds beside each median, shows
progress with an estimate of the time left when not on a terminal, and
draws its ratios with --plot."""

import importlib.util
import io
import json
import subprocess
import sys

import pytest

from kuaisuo import speed


def run_speed(tmp_path, *extra):
    out = tmp_path / "speed.json"
    r = subprocess.run([sys.executable, "-m", "kuaisuo", "speed", "sm3", "--backend", "cpu",
                        "--seconds", "0.02", "--threads", "1", "--batch", "8",
                        "--json", str(out), *extra], capture_output=True, timeout=600)
    return r, out


def test_rows_carry_the_rounds_range(tmp_path):
    r, out = run_speed(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "±".encode() in r.stdout
    rows = json.loads(out.read_text())["results"]
    assert rows
    for row in rows:
        assert 0 < row["ops_per_s_min"] <= row["ops_per_s"] <= row["ops_per_s_max"]


def test_progress_off_a_terminal_prints_lines_with_time_left(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    case = speed.Case("sm3", "hash", "kuaisuo", "cpu", 1, 1, 64)
    p = speed.Progress(4, every=0.0)
    assert not p.live
    for _ in range(4):
        p.step(case)
    p.close()
    lines = err.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("[1/4 ") and "left]" in lines[0] and "sm3" in lines[0]
    assert "\r" not in err.getvalue()


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="no matplotlib")
def test_plot_writes_a_png(tmp_path):
    png = tmp_path / "speed.png"
    r, _ = run_speed(tmp_path, "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None,
                    reason="matplotlib is installed")
def test_plot_without_matplotlib_says_so_before_measuring(tmp_path):
    r, out = run_speed(tmp_path, "--plot", str(tmp_path / "speed.png"))
    assert r.returncode == 2
    assert b"needs matplotlib" in r.stderr
    assert not out.exists()
