"""One rate's tally (replies, refusals, item errors, timeouts, latencies
and the sender's lag) and the row summarizing it."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .workload import PERCENTILES


@dataclass
class Tally:
    """What happened to the requests of one rate."""
    sent: int = 0
    ok: int = 0
    items_ok: int = 0
    refused: Counter = field(default_factory=Counter)
    item_errors: Counter = field(default_factory=Counter)
    transport: Counter = field(default_factory=Counter)
    timeouts: int = 0
    latencies: List[float] = field(default_factory=list)   # seconds, ok requests
    lags: List[float] = field(default_factory=list)        # seconds, launch - scheduled
    last_reply: float = 0.0                                # loop time of the last ok reply

    def reply(self, scheduled: float, now: float, statuses: Sequence[int]) -> None:
        self.ok += 1
        self.latencies.append(now - scheduled)
        self.last_reply = max(self.last_reply, now)
        if isinstance(statuses, bytes):  # the rows form: little-endian int32s
            self._count_rows(statuses)
            return
        for status in statuses:
            if status == 0:
                self.items_ok += 1
            else:
                self.item_errors[status] += 1


    def _count_rows(self, statuses: bytes) -> None:
        import numpy as np
        codes, counts = np.unique(np.frombuffer(statuses, "<i4"), return_counts=True)
        for code, count in zip(codes.tolist(), counts.tolist()):
            if code == 0:
                self.items_ok += count
            else:
                self.item_errors[code] += count


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (nan when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def _ms(value: float) -> Optional[float]:
    return None if math.isnan(value) else round(value * 1000.0, 3)


def _latency_ms(latencies: List[float]) -> Dict[str, Optional[float]]:
    values = sorted(latencies)
    out = {name: _ms(percentile(values, q)) for name, q in PERCENTILES}
    out["max"] = _ms(values[-1] if values else math.nan)
    out["mean"] = _ms(sum(values) / len(values) if values else math.nan)
    return out


def summarize(tally: Tally, rate: float, seconds: float, items: int, start: float,
              end: float) -> Dict[str, Any]:
    """The row for one rate (the package docstring says what each number is)."""
    elapsed = max(seconds, (tally.last_reply or end) - start)
    lags = sorted(tally.lags)
    names = _status_names(tally.item_errors)
    return {
        "offered_rps": rate, "seconds": seconds, "items_per_request": items,
        "sent": tally.sent, "elapsed_s": round(elapsed, 4),
        "achieved_rps": round(tally.ok / elapsed, 2),
        "achieved_items_per_s": round(tally.items_ok / elapsed, 2),
        "ok": tally.ok, "items_ok": tally.items_ok,
        "refused": sum(tally.refused.values()),
        "refused_by_code": {str(k): v for k, v in sorted(tally.refused.items())},
        "item_errors": sum(tally.item_errors.values()),
        "item_errors_by_status": {str(k): v for k, v in sorted(tally.item_errors.items())},
        "item_error_names": names,
        "transport_errors": sum(tally.transport.values()),
        "transport_by_kind": dict(sorted(tally.transport.items())),
        "timeouts": tally.timeouts,
        "latency_ms": _latency_ms(tally.latencies),
        "lag_ms": {"p99": _ms(percentile(lags, 0.99)), "max": _ms(lags[-1] if lags else math.nan)},
    }


def _status_names(statuses: Counter) -> Dict[str, str]:
    from kuaisuo import strerror
    return {str(s): strerror(s) for s in sorted(statuses)}
