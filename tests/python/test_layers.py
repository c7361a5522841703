"""The folders of src/ include only folders below them (scripts/layers)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_include_between_folders_points_down():
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "layers"), "--quiet"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_an_include_that_points_up_is_reported(tmp_path):
    # The check itself on a copy of the script over a tree with one upward include.
    src = tmp_path / "src"
    (src / "core").mkdir(parents=True)
    (src / "sm4").mkdir()
    (src / "core" / "bad.h").write_text('#include "sm4/sm4.h"\n')
    (src / "sm4" / "sm4.h").write_text('#include "core/bad.h"\n')
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "layers"
    script.write_text((ROOT / "scripts" / "layers").read_text())
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert run.returncode == 1
    assert "src/core includes src/sm4" in run.stdout
