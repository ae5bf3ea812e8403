"""Per-job outcomes of DeepRM-family episodes: one definition (:func:`job_outcomes`), used inside
``jit`` by the learners and, in float64 numpy, by the evaluation tables (:func:`job_table`).

Nothing is lost silently: every job of the jobset is finished, unfinished (running, waiting or not
yet arrived when a cap cut the episode) or dropped (arrived to full slots and backlog)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
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


def job_outcomes(final_state, xp=jnp, dtype=jnp.float32) -> dict:
    """Per-job arrays over any leading axes of a final env state: ``finished``, ``unfinished`` and
    ``dropped`` masks (padding rows are none of them), ``finish`` (-1 until finished) and the
    ``completion_time`` and ``slowdown`` of finished jobs (0 elsewhere). ``xp=jnp`` inside ``jit``;
    ``xp=np, dtype=np.float64`` for exact tables."""
    jobs = final_state.jobset
    valid, arrival = xp.asarray(jobs.valid), xp.asarray(jobs.arrival)
    duration, start = xp.asarray(jobs.duration), xp.asarray(final_state.start)
    dropped = xp.asarray(final_state.dropped)
    finish = start + duration
    finished = valid & (start >= 0) & (finish <= xp.asarray(final_state.clock)[..., None])
    completion = xp.where(finished, finish - arrival, 0).astype(dtype)
    return {"finished": finished, "unfinished": valid & ~finished & ~dropped, "dropped": dropped,
            "finish": xp.where(finished, finish, -1), "completion_time": completion,
            "slowdown": completion / xp.maximum(duration, 1).astype(dtype)}


def episode_statistics(final_state) -> dict[str, jax.Array]:
    """Per-episode sums (over the jobs axis) that :func:`summarize_statistics` turns into means."""
    jobs = job_outcomes(final_state)
    return {"finished": jnp.sum(jobs["finished"], axis=-1), "unfinished": jnp.sum(jobs["unfinished"], axis=-1),
            "dropped": jnp.sum(jobs["dropped"], axis=-1), "slowdown": jnp.sum(jobs["slowdown"], axis=-1),
            "completion_time": jnp.sum(jobs["completion_time"], axis=-1)}


def summarize_statistics(stats: dict[str, jax.Array], weight: jax.Array) -> dict[str, jax.Array]:
    """Job-weighted means over the finished jobs of the episodes where ``weight`` is True."""
    total = {k: jnp.sum(jnp.where(weight, v, 0)) for k, v in stats.items()}
    finished = total["finished"]
    per_job = lambda x: jnp.where(finished > 0, x / jnp.maximum(finished, 1), jnp.nan)  # noqa: E731
    return {"mean_slowdown": per_job(total["slowdown"]), "mean_completion_time": per_job(total["completion_time"]),
            "finished_jobs": finished.astype(jnp.int32), "unfinished_jobs": total["unfinished"].astype(jnp.int32),
            "dropped_jobs": total["dropped"].astype(jnp.int32)}


def job_table(result, bsld_tau: float = DEFAULT_BSLD_TAU_STEPS) -> dict[str, np.ndarray]:
    """Flattened per-job columns over all leading (jobset, rollout) axes of an ``EpisodeResult``.

    Columns: jobset, rollout, job, arrival, duration, start, finish, slowdown, bounded_slowdown
    (threshold ``bsld_tau`` steps), completion_time, status, episode_end (the episode's final clock).
    start / finish are -1 and the slowdowns / completion_time NaN for jobs that never started / finished.
    """
    state = result.state
    outcomes = job_outcomes(state, np, np.float64)
    valid = np.asarray(state.jobset.valid)
    arrival, duration = np.asarray(state.jobset.arrival), np.asarray(state.jobset.duration)
    start, finished, finish = np.asarray(state.start), outcomes["finished"], outcomes["finish"]
    status = np.where(outcomes["dropped"], 2, np.where(finished, 0, 1))
    lead = valid.shape[:-1]
    grids = np.meshgrid(*[np.arange(n) for n in lead], np.arange(valid.shape[-1]), indexing="ij")
    jobset_ix = grids[0]
    rollout_ix = grids[1] if len(lead) > 1 else np.zeros_like(grids[0])
    job_ix = grids[-1]
    completion = np.where(finished, outcomes["completion_time"], np.nan)
    slowdown = np.where(finished, outcomes["slowdown"], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):  # padding rows with tau = 0
        bounded = np.where(finished, bounded_slowdown(start - arrival, duration, bsld_tau), np.nan)
    m = valid
    episode_end = np.broadcast_to(np.asarray(state.clock)[..., None], valid.shape)
    return {
        "jobset": jobset_ix[m], "rollout": rollout_ix[m], "job": job_ix[m], "arrival": arrival[m],
        "duration": duration[m], "start": start[m], "finish": finish[m], "slowdown": slowdown[m],
        "bounded_slowdown": bounded[m], "completion_time": completion[m], "status": np.array(STATUSES)[status[m]],
        "episode_end": episode_end[m],
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


UNFINISHED_PENALTY = ("a job not finished by the episode's end is counted as finishing at the earliest time it "
                      "could: a started job at start + duration, a waiting (or dropped) job as if it started at "
                      "the episode's end (the clock cap); its slowdown is thus a lower bound on the true one, and "
                      "the penalised mean a lower bound on the policy's mean over all jobs")


def penalised_means(table: dict[str, np.ndarray], bsld_tau: float = DEFAULT_BSLD_TAU_STEPS) -> dict[str, float]:
    """Mean slowdown and bounded slowdown over *all* jobs of a :func:`job_table`, unfinished ones
    included as :data:`UNFINISHED_PENALTY` says: unlike the finished-only means they cannot drop
    when a policy leaves the hard jobs undone, and they equal them when every job finished."""
    start, arrival = table["start"].astype(np.float64), table["arrival"].astype(np.float64)
    duration, end = table["duration"].astype(np.float64), table["episode_end"].astype(np.float64)
    started = (start >= 0) & (table["status"] != "dropped")
    first_start = np.where(started, start, np.maximum(end, arrival))
    finish = first_start + duration
    if not finish.size:
        return {"mean_slowdown_penalised": float("nan"), "mean_bounded_slowdown_penalised": float("nan")}
    with np.errstate(divide="ignore", invalid="ignore"):
        bounded = bounded_slowdown(first_start - arrival, duration, bsld_tau)
    return {"mean_slowdown_penalised": float(np.mean((finish - arrival) / np.maximum(duration, 1))),
            "mean_bounded_slowdown_penalised": float(np.mean(bounded))}
