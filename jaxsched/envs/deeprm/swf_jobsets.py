"""An SWF trace cut into DeepRM jobsets: fixed-size windows of consecutive jobs on a time grid of
``quantum`` seconds (the trace itself: :mod:`jaxsched.workloads.swf`)."""

from __future__ import annotations

import warnings

import numpy as np

from jaxsched.envs.deeprm.types import Jobset, from_arrays, stack
from jaxsched.workloads.swf import SwfTrace, memory_units, to_steps

OVERSIZED_POLICIES = ("error", "clamp", "drop")


def _list_ids(ids: np.ndarray, limit: int = 10) -> str:
    shown = ", ".join(str(int(i)) for i in ids[:limit])
    return shown + (f", ... ({len(ids)} jobs)" if len(ids) > limit else "")


def to_jobsets(trace: SwfTrace, *, num_procs: int, quantum: float, window: int,
               horizon: int | None = None, max_jobs: int | None = None,
               num_windows: int | None = None, oversized: str = "error",
               memory_unit_kb: float | None = None) -> Jobset:
    """Cuts the trace into jobsets of ``window`` consecutive jobs on a time grid of ``quantum`` s.

    Each window's arrivals are (submit - first submit of the window) // quantum, durations
    ceil(run_time / quantum) (>= 1), and its resource is processors, plus memory as a second one
    when ``memory_unit_kb`` is given (see :func:`~jaxsched.workloads.swf.memory_units`; pick the
    machine's memory divided by ``num_procs`` so that both resources have ``num_procs`` units, as the
    environment assumes).
    Jobs that cannot run on the modelled cluster (procs or memory units > num_procs, or duration >
    horizon when a horizon is given) are handled by ``oversized``: "error" raises naming them,
    "clamp" caps them at num_procs / horizon, "drop" removes them (with a warning) before the
    windows are cut. Only full windows are used, the first ``num_windows`` of them (all when None).
    Padded to ``max_jobs`` (default ``window``).
    """
    if oversized not in OVERSIZED_POLICIES:
        raise ValueError(f"oversized must be one of {OVERSIZED_POLICIES}, got {oversized!r}")
    if num_procs < 1 or window < 1 or not quantum > 0:
        raise ValueError(f"need num_procs >= 1, window >= 1 and quantum > 0; "
                         f"got {num_procs}, {window}, {quantum}")
    if horizon is not None and horizon < 1:
        raise ValueError(f"horizon must be >= 1, got {horizon}")
    max_jobs = window if max_jobs is None else max_jobs
    if max_jobs < window:
        raise ValueError(f"max_jobs={max_jobs} cannot hold a window of {window} jobs")

    demand = trace.procs[:, None]
    if memory_unit_kb is not None:
        demand = np.stack([trace.procs, memory_units(trace, memory_unit_kb)], axis=-1)
    duration = np.maximum(to_steps(trace.run_time, quantum, round_up=True), 1)
    too_wide = demand[:, 0] > num_procs
    too_big = demand[:, 1:].max(axis=-1, initial=0) > num_procs
    too_long = duration > horizon if horizon is not None else np.zeros_like(too_wide)
    misfit = too_wide | too_big | too_long
    keep = np.ones_like(misfit)
    if misfit.any():
        why = " and ".join(
            what for what, bad in ((f"more than num_procs={num_procs} processors", too_wide),
                                   (f"more than num_procs={num_procs} memory units", too_big),
                                   (f"a duration above horizon={horizon} steps", too_long)) if bad.any())
        if oversized == "error":
            raise ValueError(f"{trace.path}: jobs {_list_ids(trace.job_id[misfit])} need {why}; "
                             "pass oversized='clamp' or 'drop'")
        if oversized == "clamp":
            demand = np.minimum(demand, num_procs)
            duration = np.minimum(duration, horizon) if horizon is not None else duration
        else:
            keep = ~misfit
            warnings.warn(f"{trace.path}: dropped {int(misfit.sum())} jobs that need {why}",
                          stacklevel=2)

    submit, duration, demand = trace.submit[keep], duration[keep], demand[keep]
    available = submit.shape[0] // window
    num_windows = available if num_windows is None else num_windows
    if num_windows < 1 or num_windows > available:
        raise ValueError(f"{trace.path}: {submit.shape[0]} jobs make {available} full windows of "
                         f"{window} jobs; cannot cut {num_windows}")
    jobsets = []
    for w in range(num_windows):
        part = slice(w * window, (w + 1) * window)
        arrival = to_steps(submit[part] - submit[part][0], quantum, round_up=False)
        if arrival[-1] > np.iinfo(np.int32).max or duration[part].max() > np.iinfo(np.int32).max:
            raise ValueError(f"{trace.path}: window {w} spans more time steps than int32 holds; "
                             "use a larger quantum")
        jobsets.append(from_arrays(arrival, duration[part], demand[part], max_jobs=max_jobs))
    return stack(jobsets)
