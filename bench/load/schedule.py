"""Open-loop send times: fixed before a rate runs, every 1/R seconds or at
exponentially distributed gaps (a Poisson process)."""

from __future__ import annotations

import math
import random
from typing import List, Optional

from .workload import ARRIVALS, BenchError


def schedule(rate: float, seconds: float, arrivals: str = "poisson",
             seed: Optional[int] = None) -> List[float]:
    """Send offsets in [0, seconds): every 1/rate, or Poisson at rate."""
    if not rate > 0 or not seconds > 0:
        raise BenchError("rates and --seconds must be positive")
    if arrivals == "fixed":
        return [i / rate for i in range(math.ceil(rate * seconds - 1e-9))]
    if arrivals != "poisson":
        raise BenchError(f"--arrivals {arrivals!r}: {' or '.join(ARRIVALS)}")
    rng, t = random.Random(seed), 0.0
    out: List[float] = []
    while True:
        t += rng.expovariate(rate)
        if t >= seconds:
            return out
        out.append(t)
