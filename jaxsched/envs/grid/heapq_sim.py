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


def fifo_queue_peak(submit, runtime, num_cores: int = 81) -> int:
    """The most jobs waiting at a FIFO decision (an event time with a free core and a waiting job, after
    its terminations and submissions, the jobs about to start included): what the env's
    ``EnvState.queue_peak`` records under FIFO, the yardstick a queue capacity is chosen by."""
    submit = np.asarray(submit).astype(np.int64).tolist()
    runtime = np.asarray(runtime).astype(np.int64).tolist()
    n, running, waiting, free, arrived, peak = len(submit), [], 0, num_cores, 0, 0
    while arrived < n or running:
        next_submit = submit[arrived] if arrived < n else None
        now = running[0] if running and (next_submit is None or running[0] <= next_submit) else next_submit
        while running and running[0] <= now:
            heapq.heappop(running)
            free += 1
        while arrived < n and submit[arrived] <= now:
            waiting += 1
            arrived += 1
        if free > 0 and waiting > 0:
            peak = max(peak, waiting)
        while free > 0 and waiting > 0:  # FIFO order does not change the count: start any
            heapq.heappush(running, now + runtime[arrived - waiting])
            waiting -= 1
            free -= 1
    return peak


def sjf_on_observation(site: np.ndarray, per_job: np.ndarray, jobs: list[int]) -> int:
    """SJF reading the observation: the waiting job with the smallest log execution time (its column
    after class and the VO one-hot), ties to the oldest (``jobs`` are in submit order)."""
    return int(np.argmin(per_job[:, -2]))


def simulate_observed(submit, runtime, klass, vo, num_cores: int = 81, vo_shares=(1.0,), policy=sjf_on_observation,
                      time_scale: float = 3600.0, prior_runtime=(300.0, 3600.0)) -> tuple[list[int], int]:
    """``(start, decisions)`` of a Python RL loop over a Python simulator of the rigid site: the same
    events as :func:`simulate_fifo` (oracle runtimes), and at every decision the env's observation built
    (:meth:`GridSite.get_obs`: the site's 6 + V numbers, then class, VO one-hot, log execution time
    and log wait of *every* waiting job) and one ``policy(site, per_job, jobs) -> index`` call that
    picks the job to start. What the JAX env does per decision, the way a researcher would write it in
    Python (``heapq`` of terminations, a list for the queue, numpy for the observation)."""
    submit = np.asarray(submit).astype(np.int64).tolist()
    runtime = np.asarray(runtime).astype(np.int64).tolist()
    klass = np.asarray(klass).astype(np.int64).tolist()
    vo = np.asarray(vo).astype(np.int64).tolist()
    n, num_vos = len(submit), len(vo_shares)
    eye = np.eye(num_vos)
    prior = np.asarray(prior_runtime, np.float64)
    start = [-1] * n
    running: list[tuple[int, int]] = []  # heap of (finish, job)
    queue: list[int] = []  # waiting jobs in submit order
    free, arrived, decisions = num_cores, 0, 0
    done_work, done_count = np.zeros(2), np.zeros(2)
    log_time = lambda seconds: np.log1p(np.maximum(seconds, 0.0) / time_scale)
    while arrived < n or running:
        next_submit = submit[arrived] if arrived < n else None
        now = running[0][0] if running and (next_submit is None or running[0][0] <= next_submit) else next_submit
        while running and running[0][0] <= now:
            _, job = heapq.heappop(running)
            done_work[klass[job]] += runtime[job]
            done_count[klass[job]] += 1
            free += 1
        while arrived < n and submit[arrived] <= now:
            queue.append(arrived)
            arrived += 1
        while free > 0 and queue:
            # the observation
            finishes = np.array([f for f, _ in running], np.float64)
            waiting = np.asarray(queue)
            w_run = np.asarray(runtime)[waiting].astype(np.float64)
            w_class = np.asarray(klass)[waiting]
            w_vo = np.asarray(vo)[waiting]
            means = np.where(done_count > 0, done_work / np.maximum(done_count, 1), prior)
            site = np.concatenate([
                [log_time(np.sum(finishes - now) / num_cores), log_time(0.0 if free > 0 else finishes.min() - now),
                 log_time(w_run.sum() / num_cores), free / num_cores, log_time(means[0]), log_time(means[1])],
                np.bincount(w_vo, minlength=num_vos) / len(queue)])
            per_job = np.concatenate([w_class[:, None], eye[w_vo], log_time(w_run)[:, None],
                                      log_time(now - np.asarray(submit)[waiting])[:, None]], axis=1)
            # one policy call
            job = queue.pop(policy(site, per_job, queue))
            start[job] = now
            heapq.heappush(running, (now + runtime[job], job))
            free -= 1
            decisions += 1
    return start, decisions
