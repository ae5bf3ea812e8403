"""Per-job outcomes and summaries of finished episodes. Nothing is lost silently: every job of the
jobset is finished, unfinished (running, waiting or not yet arrived when a cap cut the episode) or
dropped (arrived to full slots and backlog)."""

from __future__ import annotations

import numpy as np

STATUSES = ("finished", "unfinished", "dropped")
# Bounded slowdown's threshold tau for generated jobsets, in time steps (a job is >= 1 step long, so
# with tau = 1 it equals the slowdown there). For SWF traces use tau = 10 s / quantum (swf_eval).
DEFAULT_BSLD_TAU_STEPS = 1.0


def bounded_slowdown(wait, run, tau: float):
    """max(1, (wait + run) / max(run, tau)) (Feitelson et al. 1997): short jobs no longer dominate
    the mean. ``wait``, ``run`` and ``tau`` in the same unit (here time steps)."""
    wait, run = np.asarray(wait, np.float64), np.asarray(run, np.float64)
    return np.maximum(1.0, (wait + run) / np.maximum(run, tau))


def job_table(result, bsld_tau: float = DEFAULT_BSLD_TAU_STEPS) -> dict[str, np.ndarray]:
    """Flattened per-job columns over all leading (jobset, rollout) axes of an ``EpisodeResult``.

    Columns: jobset, rollout, job, arrival, duration, start, finish, slowdown, bounded_slowdown
    (threshold ``bsld_tau`` steps), completion_time, status. start / finish are -1 and the
    slowdowns / completion_time NaN for jobs that never started / finished.
    """
    state = result.state
    jobs = state.jobset
    valid = np.asarray(jobs.valid)
    arrival = np.asarray(jobs.arrival)
    duration = np.asarray(jobs.duration)
    start = np.asarray(state.start)
    dropped = np.asarray(state.dropped)
    clock = np.asarray(state.clock)[..., None]
    finished = (start >= 0) & (start + duration <= clock)
    finish = np.where(start >= 0, start + duration, -1)
    finish = np.where(finished, finish, -1)
    status = np.where(dropped, 2, np.where(finished, 0, 1))
    lead = valid.shape[:-1]
    grids = np.meshgrid(*[np.arange(n) for n in lead], np.arange(valid.shape[-1]), indexing="ij")
    jobset_ix = grids[0]
    rollout_ix = grids[1] if len(lead) > 1 else np.zeros_like(grids[0])
    job_ix = grids[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        completion = np.where(finished, finish - arrival, np.nan)
        slowdown = completion / np.maximum(duration, 1)
        bounded = np.where(finished, bounded_slowdown(start - arrival, duration, bsld_tau), np.nan)
    m = valid
    return {
        "jobset": jobset_ix[m], "rollout": rollout_ix[m], "job": job_ix[m], "arrival": arrival[m],
        "duration": duration[m], "start": start[m], "finish": finish[m], "slowdown": slowdown[m],
        "bounded_slowdown": bounded[m], "completion_time": completion[m], "status": np.array(STATUSES)[status[m]],
    }


def summarize(table: dict[str, np.ndarray]) -> dict[str, float | int]:
    """Job-weighted means over finished jobs, with the counts that say what the means exclude."""
    done = table["status"] == "finished"
    mean = lambda x: float(np.mean(x[done])) if np.any(done) else float("nan")
    return {
        "mean_slowdown": mean(table["slowdown"]),
        **({"mean_bounded_slowdown": mean(table["bounded_slowdown"])} if "bounded_slowdown" in table else {}),
        "mean_completion_time": mean(table["completion_time"]),
        "jobs": int(done.size),
        "finished": int(np.sum(done)),
        "unfinished": int(np.sum(table["status"] == "unfinished")),
        "dropped": int(np.sum(table["status"] == "dropped")),
    }
