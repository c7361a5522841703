"""bench/ncu_pipes.py (scripts/gpu-profile's summary) on a raw Nsight Compute
CSV in the layout `ncu --csv --page raw` writes: profiler lines first, a
header, a units row, then one row per profiled launch."""

import csv
import importlib.util
import io
import json
import math
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "ncu_pipes.py"
spec = importlib.util.spec_from_file_location("ncu_pipes", SCRIPT)
ncu_pipes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_pipes)

FP64 = ncu_pipes.METRICS["fp64_pct"]
IMAD = ncu_pipes.METRICS["fmaheavy_pct"]
LOCAL = ncu_pipes.METRICS["local_load_bytes"]
VERIFY = ("void ks::curve25519::gpu::(anonymous namespace)::ed25519_verify_kernel"
          "<ks::field::OutOfLineProducts<ks::field::Fe25519Dpf>, 4>(const unsigned char *, int *)")
X25519 = "void <unnamed>::x25519_kernel<ks::field::Fe25519Gpu>(const unsigned char *)"


def raw_csv(launches):
    out = io.StringIO()
    out.write("==PROF== Connected to process 1 (curve25519_gpu_bench)\n")
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["ID", "Kernel Name", "Grid Size", FP64, IMAD, LOCAL])
    w.writerow(["", "", "", "%", "%", "byte"])
    for i, (name, grid, fp64, imad, local) in enumerate(launches):
        w.writerow([i, name, grid, fp64, imad, local])
    return out.getvalue()


LAUNCHES = [
    (VERIFY, "(512, 1, 1)", "30.0", "20.0", "1,000"),
    (VERIFY, "(512, 1, 1)", "36.5", "30.7", "3,918,000,000"),  # the last launch counts
    (VERIFY, "(2048, 1, 1)", "37.0", "31.0", "n/a"),
    (X25519, "(128, 1, 1)", "0", "79.2", "33,000"),
]


def test_one_row_per_kernel_and_grid_from_the_last_launch(tmp_path):
    path = tmp_path / "ncu.csv"
    path.write_text(raw_csv(LAUNCHES))
    rows = ncu_pipes.read(str(path))
    assert [(r["kernel"], r["grid"]) for r in rows] == [
        ("ed25519_verify_kernel<calls<Fe25519Dpf>, 4>", "(2048, 1, 1)"),
        ("ed25519_verify_kernel<calls<Fe25519Dpf>, 4>", "(512, 1, 1)"),
        ("x25519_kernel<Fe25519Gpu>", "(128, 1, 1)"),
    ]
    small = rows[1]
    assert (small["fp64_pct"], small["fmaheavy_pct"]) == (36.5, 30.7)
    assert small["local_load_bytes"] == 3.918e9
    assert math.isnan(rows[0]["local_load_bytes"])  # "n/a"
    assert math.isnan(small["issue_pct"])  # not collected
    assert rows[2]["fp64_pct"] == 0.0


def test_command_line_writes_json_and_a_table(tmp_path):
    path, out = tmp_path / "ncu.csv", tmp_path / "pipes.json"
    path.write_text(raw_csv(LAUNCHES))
    r = subprocess.run([sys.executable, str(SCRIPT), str(path), str(out)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["metrics"]["fp64_pct"] == FP64
    assert len(doc["kernels"]) == 3
    assert doc["kernels"][0]["local_load_bytes"] is None  # strict JSON: no NaN
    assert doc["kernels"][1]["local_load_bytes"] == 3.918e9
    assert "x25519_kernel<Fe25519Gpu>" in r.stdout
    bad = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "Usage" in bad.stderr


def test_metric_list_for_ncu_leaves_out_launch_attributes():
    out = subprocess.run([sys.executable, str(SCRIPT), "--metrics"], check=True,
                         capture_output=True, text=True).stdout.strip()
    names = out.split(",")
    assert FP64 in names and IMAD in names and LOCAL in names
    assert names == [m for m in ncu_pipes.METRICS.values() if not m.startswith("launch__")]
    assert any(m.startswith("launch__") for m in ncu_pipes.METRICS.values())
