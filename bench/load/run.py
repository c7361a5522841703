"""Driving the load: one rate open loop (a request launched at each
scheduled time, whatever the replies), and every rate in turn over one
client."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any, Dict, List

from .clients import open_client
from .inputs import Inputs
from .schedule import schedule
from .stats import Tally, summarize
from .workload import TOOL, Target, Workload, check_workload


async def _drive(client: Any, tally: Tally, offsets: List[float], start: float,
                 timeout: float) -> List["asyncio.Task[None]"]:
    """Launches one request per offset at start + offset, never waiting for
    replies; returns the tasks."""
    loop = asyncio.get_running_loop()
    tasks: List["asyncio.Task[None]"] = []
    for offset in offsets:
        scheduled = start + offset
        await asyncio.sleep(max(0.0, scheduled - loop.time()))  # sleep(0) still yields
        tally.lags.append(max(0.0, loop.time() - scheduled))
        tally.sent += 1
        tasks.append(asyncio.ensure_future(client.send(scheduled, scheduled + timeout)))
    return tasks


async def run_rate(target: Target, workload: Workload, rate: float, seconds: float, *,
                   client: Any = None, lead: float = 0.05) -> Dict[str, Any]:
    """Offers `rate` requests/s for `seconds` (open loop), waits for every
    reply or timeout, and returns the row (summarize's dict). client: one
    from open_client, to keep its connections and inputs (the verify pool)
    across rates; by default a new one, closed at the end."""
    check_workload(workload)
    offsets = schedule(rate, seconds, workload.arrivals, workload.seed)
    own = client is None
    if own:
        client = open_client(target, Inputs(workload))
    tally = client.tally = Tally()
    loop = asyncio.get_running_loop()
    cpu = time.process_time()
    try:
        start = loop.time() + lead
        tasks = await _drive(client, tally, offsets, start, workload.timeout_ms / 1000.0)
        await asyncio.gather(*tasks)
        end = loop.time()
    finally:
        if own:
            await client.close()
    row = summarize(tally, rate, seconds, workload.items, start, end)
    row.update(op=workload.op, transport=target.transport,
               client_cpu_s=round(time.process_time() - cpu, 3))
    return row


async def run_all(target: Target, workload: Workload, rates: List[float], seconds: float,
                  warmup: float = 0.0) -> List[Dict[str, Any]]:
    """Every rate in turn over one client (after an unrecorded warm-up at
    the first rate, which also opens the connections); progress to stderr."""
    check_workload(workload)
    client = open_client(target, Inputs(workload))
    rows = []
    try:
        if warmup > 0:
            await run_rate(target, workload, rates[0], warmup, client=client)
        for rate in rates:
            print(f"{TOOL}: {rate:g} requests/s for {seconds:g} s ...", file=sys.stderr,
                  flush=True)
            rows.append(await run_rate(target, workload, rate, seconds, client=client))
    finally:
        await client.close()
    return rows
