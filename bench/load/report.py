"""What a run reports: the text table and its error notes, the host, the
JSON document and the latency-throughput plot."""

from __future__ import annotations

import datetime
import math
import os
import platform
import sys
from dataclasses import asdict
from typing import Any, Dict, List, Optional

from .workload import PERCENTILES, TOOL, Target, Workload


_COLUMNS = (("offered", "offered_rps", "{:.0f}"), ("achieved", "achieved_rps", "{:.0f}"),
            ("items/s", "achieved_items_per_s", "{:.0f}"), ("ok", "ok", "{}"),
            ("refused", "refused", "{}"), ("item err", "item_errors", "{}"),
            ("transport", "transport_errors", "{}"), ("timeouts", "timeouts", "{}"))


def _cell(fmt: str, value: Any) -> str:
    return "-" if value is None else fmt.format(value)


def table(rows: List[Dict[str, Any]]) -> str:
    """The rows as a fixed-width text table (latencies in ms)."""
    heads = [c[0] for c in _COLUMNS] + [n for n, _ in PERCENTILES] + ["max", "lag p99"]
    lines = []
    for row in rows:
        lat = row["latency_ms"]
        cells = [_cell(fmt, row[key]) for _, key, fmt in _COLUMNS]
        cells += [_cell("{:.2f}", lat[n]) for n, _ in PERCENTILES]
        cells += [_cell("{:.2f}", lat["max"]), _cell("{:.2f}", row["lag_ms"]["p99"])]
        lines.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in lines)) if lines else len(h)
              for i, h in enumerate(heads)]
    out = ["  ".join(h.rjust(w) for h, w in zip(heads, widths))]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in lines]
    out += _error_notes(rows)
    return "\n".join(out)


def _error_notes(rows: List[Dict[str, Any]]) -> List[str]:
    notes = []
    for row in rows:
        parts = [f"item status {s} ({row['item_error_names'].get(s, '?')}): {n}"
                 for s, n in row["item_errors_by_status"].items()]
        parts += [f"refused {c}: {n}" for c, n in row["refused_by_code"].items()]
        parts += [f"transport {k}: {n}" for k, n in row["transport_by_kind"].items()]
        if parts:
            notes.append(f"  at {row['offered_rps']:.0f}/s: " + "; ".join(parts))
    return notes


def host_info() -> Dict[str, Any]:
    info: Dict[str, Any] = {
        "platform": platform.platform(), "machine": platform.machine(),
        "python": platform.python_version(), "cpu_count": os.cpu_count(),
        "datetime_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")}
    if hasattr(os, "getloadavg"):  # other load on the host skews what is measured
        info["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu_model"] = next((line.split(":", 1)[1].strip() for line in f
                                      if line.startswith("model name")), None)
    except OSError:
        pass
    return info


def report(target: Target, workload: Workload, rates: List[float], seconds: float,
           rows: List[Dict[str, Any]], host: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The JSON document: tool, parameters (never the token), host (as
    host_info() gave it before the run), rows."""
    from kuaisuo import __version__
    params: Dict[str, Any] = {**asdict(workload), **asdict(target), "rates": rates,
                              "seconds": seconds}
    params.pop("token")
    return {"tool": TOOL, "kuaisuo_version": __version__, "parameters": params,
            "host": host or host_info(), "rows": rows}


def plot(rows: List[Dict[str, Any]], path: str, title: str) -> bool:
    """Latency p50/p99/p99.9 against achieved items/s as a PNG; False
    (with a message) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{TOOL}: matplotlib is not installed; no plot "
              "(pip install matplotlib)", file=sys.stderr)
        return False
    x = [r["achieved_items_per_s"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, marker in (("p50", "o"), ("p99", "s"), ("p99.9", "^")):
        y = [math.nan if r["latency_ms"][name] is None else r["latency_ms"][name] for r in rows]
        ax.plot(x, y, marker=marker, label=name)
    for r, xv in zip(rows, x):
        ax.annotate(f"{r['offered_rps']:.0f}/s", (xv, r["latency_ms"]["p50"] or 0),
                    textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.set_xlabel("achieved items/s (status 0)")
    ax.set_ylabel("latency from scheduled send (ms)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
