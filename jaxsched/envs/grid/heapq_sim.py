"""A plain-Python discrete-event simulator of the rigid grid site under FIFO: the reference the JAX
env (:class:`jaxsched.envs.grid.env.GridSite`) is checked against, and the "pure-Python simulator"
baseline that ``python -m jaxsched.bench grid`` compares its speed with.

Same rules as the env (``env.py``'s docstring): ``num_cores`` identical cores, one queue, one core
per job; events are submissions and terminations, in int seconds. At each event time the
terminations are processed first, then the submissions; then, while a core is free and a job
waits, the oldest waiting job (the lowest index: jobs come in submit order) starts at once. Each
start is one decision, so a window of n jobs takes exactly n decisions.

Written the way a researcher would write such a simulator, neither tuned nor handicapped: a
``heapq`` of termination events, a ``deque`` for the queue, plain Python ints. It computes start
times only (no observation, no reward), so per decision it does less work than the env does.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np


def simulate_fifo(submit, runtime, klass=None, vo=None, num_cores: int = 81) -> tuple[list[int], int]:
    """``(start, decisions)``: each job's start time (seconds) under FIFO, and the number of
    decisions (jobs started). ``submit`` (non-decreasing) and ``runtime`` (>= 1) are int seconds;
    ``klass`` and ``vo`` are accepted for the env's column layout but FIFO never reads them."""
    submit = np.asarray(submit).astype(np.int64).tolist()
    runtime = np.asarray(runtime).astype(np.int64).tolist()
    n = len(submit)
    if len(runtime) != n:
        raise ValueError(f"{n} submit times but {len(runtime)} runtimes")
    if num_cores < 1:
        raise ValueError(f"num_cores must be >= 1, got {num_cores}")

    start = [-1] * n
    running: list[tuple[int, int]] = []  # heap of (finish time, job)
    queue: deque[int] = deque()  # waiting jobs, oldest first
    free = num_cores
    arrived = 0  # jobs [0, arrived) have been submitted
    decisions = 0
    while arrived < n or running:
        next_submit = submit[arrived] if arrived < n else None
        if running and (next_submit is None or running[0][0] <= next_submit):
            now = running[0][0]
        else:
            now = next_submit
        while running and running[0][0] <= now:  # terminations first
            heapq.heappop(running)
            free += 1
        while arrived < n and submit[arrived] <= now:  # then submissions
            queue.append(arrived)
            arrived += 1
        while free > 0 and queue:  # FIFO: the oldest waiting job starts at once
            job = queue.popleft()
            start[job] = now
            heapq.heappush(running, (now + runtime[job], job))
            free -= 1
            decisions += 1
    return start, decisions
