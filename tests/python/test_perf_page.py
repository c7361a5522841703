"""docs/PERFORMANCE.md is what scripts/perf-page writes from bench/results
(regenerate it whenever a result file is added or removed), and every file
it cites exists."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "perf-page"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_performance_page_is_current():
    r = run("--check")
    assert r.returncode == 0, r.stdout + r.stderr + "\n(run scripts/perf-page and commit the page)"


def test_check_fails_on_a_stale_page(tmp_path):
    stale = tmp_path / "PERFORMANCE.md"
    stale.write_text((ROOT / "docs" / "PERFORMANCE.md").read_text() + "\nedited by hand\n")
    r = run("--check", "--page", str(stale))
    assert r.returncode == 1 and "stale" in r.stderr


def test_every_row_names_a_file_that_exists_and_the_tables_are_all_there():
    page = (ROOT / "docs" / "PERFORMANCE.md").read_text()
    for table in ("SM2", "SM3", "SM4", "Ed25519 / X25519", "SKINNY-128-256"):
        assert f"\n## {table}\n" in page
    cited = re.findall(r"\]\(\.\./bench/results/([^)]+)\)", page)
    assert cited
    for name in cited:
        assert (ROOT / "bench" / "results" / name).is_file(), name
    rows = [line for line in page.splitlines() if line.startswith("| ") and "bench/results" in line]
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert len(cells) == 8, line
        assert cells[5] and cells[6].startswith("`"), line  # a device and a command
