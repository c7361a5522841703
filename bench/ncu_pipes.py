#!/usr/bin/env python3
"""Per-kernel pipe use from an Nsight Compute run (`ncu --csv --page raw`
with the metrics of scripts/gpu-profile): how much of the FP64 pipe's
peak, of the integer multiply-add pipe's (IMAD issues to the "fmaheavy"
pipe on Hopper), of the ALU's and of the issue slots each kernel reaches,
with its occupancy, local-memory traffic and the warp stalls that explain
the rest. One row per kernel and grid size (the last launch profiled).

Usage: python3 bench/ncu_pipes.py NCU.csv [OUT.json]
       python3 bench/ncu_pipes.py --metrics   (the list for ncu --metrics)
"""

import csv
import json
import math
import re
import sys

# Column -> ncu metric. Percentages are of the peak sustained while the SMs
# are active; stalls are cycles per issued instruction (a warp's gaps).
METRICS = {
    "fp64_pct": "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    "fmaheavy_pct": "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active",
    "fma_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "alu_pct": "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "lsu_pct": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "issue_pct": "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "warps_active_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "registers": "launch__registers_per_thread",
    "local_load_bytes": "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum",
    "local_store_bytes": "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
    "l1_pct": "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "dfma_thread_inst": "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "integer_thread_inst": "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
    "duration_ns": "gpu__time_duration.sum",
}
STALLS = ("long_scoreboard", "short_scoreboard", "wait", "math_pipe_throttle", "lg_throttle",
          "mio_throttle", "not_selected", "selected", "dispatch_stall", "no_instruction",
          "branch_resolving", "barrier")
for s in STALLS:
    METRICS[f"stall_{s}"] = f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"

TABLE = ("fp64_pct", "fmaheavy_pct", "alu_pct", "issue_pct", "warps_active_pct", "registers",
         "stall_wait", "stall_long_scoreboard")


def short_name(name):
    name = re.sub(r"\(anonymous namespace\)::|<unnamed>::|void ", "", name)
    name = re.sub(r"\b(?:[A-Za-z_]\w*::)+", "", name)  # namespaces
    return re.sub(r"\(.*\)$", "", name.replace("OutOfLineProducts<", "calls<")).strip()


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return math.nan


def read(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    launches = [dict(zip(header, r)) for r in rows[2:] if len(r) == len(header)]  # [1]: units
    kernels = {}
    for launch in launches:
        key = (short_name(launch["Kernel Name"]), launch["Grid Size"])
        kernels[key] = {"kernel": key[0], "grid": key[1],
                        **{col: number(launch.get(m, "")) for col, m in METRICS.items()}}
    return [kernels[k] for k in sorted(kernels)]


def ncu_metric_list():
    """The comma-separated --metrics argument for ncu: every metric but the
    launch__ attributes, which come with every raw page anyway."""
    return ",".join(m for m in METRICS.values() if not m.startswith("launch__"))


def main():
    if sys.argv[1:] == ["--metrics"]:
        print(ncu_metric_list())
        return
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    rows = read(sys.argv[1])
    if len(sys.argv) == 3:
        strict = [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
                  for r in rows]  # JSON has no NaN: a metric not collected is null
        with open(sys.argv[2], "w") as f:
            json.dump({"metrics": METRICS, "kernels": strict}, f, indent=1)
    print(f"{'kernel':52} {'grid':13}" + "".join(f"{c[:10]:>11}" for c in TABLE))
    for r in rows:
        print(f"{r['kernel'][:52]:52} {r['grid']:13}" + "".join(f"{r[c]:11.1f}" for c in TABLE))


if __name__ == "__main__":
    main()
