"""Grid outcomes: per-job tables of final states and the paper's summary numbers (Tables 2-5).

The first and last ``exclude`` jobs of each episode (submit order) are left out of the summary, as
the paper drops its first and last 500 (ramp-up and draining); ``jobs`` and ``finished`` count the
jobs kept. W = run / (run + wait).

Fairness (``fairness``) is the paper's fairness utility F_j of Eq. (2), "associated to the election of
job j": F_j = 1 − D_j / max_k w_k with D_j = max_k (w_k − S_kj)+ and S_kj VO k's fraction of the
service up to job j's election (the env's ``EnvState.fairness``, the same F the rigid reward pays;
service = runtime of the jobs dispatched before the election). ``fairness`` is its mean over the kept
jobs, the level of the paper's Fig. 6 curve (F_j against the simulated time, there as a difference
from the native scheduler's). A policy that holds one VO's jobs back lowers S of that VO at the
elections meanwhile, so F drops; ``final_fairness`` (the service delivered by the episode's end)
cannot see this, since every job is served by the end, and is kept for comparison only.
"""

from __future__ import annotations

import numpy as np

from jaxsched.envs.grid.types import BATCH, INTERACTIVE

PER_JOB_COLUMNS = ("episode", "job", "class", "vo", "submit", "start", "finish", "wait", "W")


def job_table(final_state, exclude: int = 0) -> dict[str, np.ndarray]:
    """One row per valid job of final states with any leading axes (flattened to episodes)."""
    jobs = final_state.jobs
    length = jobs.submit.shape[-1]
    flat = lambda x: np.asarray(x).reshape(-1, length)
    submit, runtime, klass, vo, valid = (flat(x) for x in (jobs.submit, jobs.runtime, jobs.klass, jobs.vo, jobs.valid))
    start, pool = flat(final_state.start), flat(final_state.pool_at_start)
    fairness = flat(final_state.fairness) if hasattr(final_state, "fairness") else np.full_like(start, np.nan, float)
    clock = np.asarray(final_state.clock).reshape(-1)
    episodes, index = np.nonzero(valid)
    count = valid.sum(axis=1)
    kept = (index >= exclude) & (index < count[episodes] - exclude)
    s, r, st = (x[episodes, index].astype(np.int64) for x in (submit, runtime, start))
    started = st >= 0
    finish = np.where(started, st + r, -1)
    finished = started & (finish <= clock[episodes])
    wait = np.where(started, st - s, clock[episodes] - s)
    W = np.where(finished, r / np.maximum(r + wait, 1), np.nan)
    table = {"episode": episodes, "job": index, "class": klass[episodes, index], "vo": vo[episodes, index],
             "submit": s, "start": st, "finish": finish, "wait": wait, "W": W, "runtime": r,
             "finished": finished, "kept": kept, "pool": pool[episodes, index],
             "F": np.where(started, fairness[episodes, index], np.nan)}
    if hasattr(final_state, "provisioned"):  # the episode's own core-second counters, on each of its rows
        for name in ("provisioned", "completed_work", "queue_peak", "hidden"):
            if not hasattr(final_state, name):
                continue
            table[name] = np.asarray(getattr(final_state, name), np.float64).reshape(-1)[episodes]
    return table


def _stats(x: np.ndarray, prefix: str) -> dict:
    if x.size == 0:
        return {f"{prefix}_mean": float("nan"), f"{prefix}_std": float("nan")}
    return {f"{prefix}_mean": float(np.mean(x)), f"{prefix}_std": float(np.std(x))}


def utilisation(table: dict) -> float:
    """Core-seconds used / core-seconds provisioned over the episodes' spans (all jobs).

    From the env's own counters where the table has them; else rebuilt from the jobs' starts and
    pools, which is exact with a fixed pool but not when the pool changed at a second where several
    jobs started out of submit order (the table does not say which decision came last)."""
    if "provisioned" in table:
        first = np.unique(table["episode"], return_index=True)[1]
        provisioned = float(np.sum(table["provisioned"][first]))
        return float(np.sum(table["completed_work"][first])) / provisioned if provisioned > 0 else float("nan")
    used = provisioned = 0.0
    for episode in np.unique(table["episode"]):
        mine = table["episode"] == episode
        start, finish, pool = table["start"][mine], table["finish"][mine], table["pool"][mine]
        ok = start >= 0
        if not ok.any():
            continue
        used += float(np.sum(finish[ok] - start[ok]))
        order = np.argsort(start[ok], kind="stable")
        times, pools = start[ok][order], pool[ok][order]
        end = float(finish[ok].max())
        spans = np.diff(np.append(times, end))
        provisioned += float(np.sum(spans * pools)) + float(times[0] - 0) * float(pools[0])
    return used / provisioned if provisioned > 0 else float("nan")


def summarize(table: dict, vo_shares=None) -> dict:
    """The paper's numbers over the kept jobs: W by class, queue delays, interactive jobs served within
    2 minutes and with W > 0.9, and counts (``finished / jobs``)."""
    kept = table["kept"]
    done = kept & table["finished"]
    interactive = done & (table["class"] == INTERACTIVE)
    batch = done & (table["class"] == BATCH)
    W, wait = table["W"], table["wait"]
    out = {**_stats(W[interactive], "interactive_W"), **_stats(W[batch], "batch_W")}
    n_inter = max(int(interactive.sum()), 1)
    out["interactive_wait_under_120s"] = float(np.sum(wait[interactive] < 120) / n_inter)
    out["interactive_W_over_0.9"] = float(np.sum(W[interactive] > 0.9) / n_inter)
    out["batch_W_over_0.9"] = float(np.sum(W[batch] > 0.9) / max(int(batch.sum()), 1))
    out["mean_wait"] = float(np.mean(wait[done])) if done.any() else float("nan")
    for name, rows in (("interactive", interactive), ("batch", batch)):
        w = wait[rows]
        out[f"{name}_wait_mean"] = float(np.mean(w)) if w.size else float("nan")
        out[f"{name}_wait_std"] = float(np.std(w)) if w.size else float("nan")
        out[f"{name}_wait_median"] = float(np.median(w)) if w.size else float("nan")
    out["jobs"] = int(kept.sum())
    out["finished"] = int(done.sum())
    out["episodes"] = int(np.unique(table["episode"]).size)
    out["utilisation"] = utilisation(table)
    out["mean_pool"] = float(np.mean(table["pool"][table["start"] >= 0])) if np.any(table["start"] >= 0) else float("nan")
    elected = kept & (table["start"] >= 0)
    out["fairness"] = float(np.nanmean(table["F"][elected])) if "F" in table and elected.any() else float("nan")
    if "queue_peak" in table:
        first = np.unique(table["episode"], return_index=True)[1]
        out["queue_peak"] = int(np.max(table["queue_peak"][first]))
        out["hidden_decisions"] = int(np.sum(table["hidden"][first]))
    if vo_shares is not None:
        out["final_fairness"] = final_fairness(table, vo_shares)
    return out


def delivered_shares(table: dict, num_vos: int) -> tuple[np.ndarray, np.ndarray]:
    """``(times, shares[T, V])``: each VO's share of the runtime dispatched so far, at each dispatch
    (episode 0), for the fair-share-over-time plot."""
    mine = (table["episode"] == table["episode"].min()) & (table["start"] >= 0)
    order = np.argsort(table["start"][mine], kind="stable")
    start, vo, run = table["start"][mine][order], table["vo"][mine][order], table["runtime"][mine][order]
    service = np.cumsum(np.eye(num_vos)[vo] * run[:, None], axis=0)
    return start, service / np.maximum(service.sum(axis=1, keepdims=True), 1e-30)


def final_fairness(table: dict, vo_shares) -> float:
    """F of the service delivered by the episodes' ends, averaged over episodes."""
    shares = np.asarray(vo_shares, np.float64)
    values = []
    for episode in np.unique(table["episode"]):
        mine = (table["episode"] == episode) & (table["start"] >= 0)
        service = np.bincount(table["vo"][mine], weights=table["runtime"][mine], minlength=shares.size)
        delivered = service / max(service.sum(), 1e-30)
        values.append(1.0 - np.max(np.maximum(shares - delivered, 0.0)) / shares.max())
    return float(np.mean(values)) if values else float("nan")
