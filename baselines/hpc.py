"""The priority rules HPC sites deploy, for the trace-window env (``jaxsched.envs.deeprm.trace_windows``).

Each rule scores the visible waiting jobs; **lower scores go first** (the papers' convention: the
queue is sorted ascending), ties to the older job. With ``w`` the seconds a job has waited, ``r``
its requested time (s), ``n`` its processors and ``s`` its submit time in the trace (s):

- ``fcfs``: submit order (jaxsched's :func:`~jaxsched.baselines.deeprm.fcfs`);
- ``sjf-requested``: ``r``; ``sjf-actual``: the real run time, an *oracle* no scheduler has;
- ``wfp3`` (Tang et al., IPDPS 2009): ``-(w / r)^3 * n``, favouring long-waiting, wide, short jobs;
- ``unicep`` (Tang et al. 2009): ``-w / (log2(n) * r)``; a one-processor job (log2 1 = 0) that has
  waited scores -inf (first), one that has not waited scores 0, as every job with ``w = 0``;
- ``f1`` (Carastan-Neto and Cordeiro, SC 2017, the learned closed form):
  ``log10(r) * n + 870 * log10(s)``, with ``s`` floored at 1 s (a log starting at 0).

A rule alone is *strict*: the best-scored job starts when it fits now, otherwise nothing starts
(the head waits, no job overtakes it). ``NAME+easy`` adds EASY backfilling in that order: the head
gets a reservation at its shadow time and lower-priority jobs may start now only where they do not
delay it (:func:`~jaxsched.baselines.deeprm.easy_backfilling`, given the priority order as its queue
order); ``easy`` is FCFS + EASY. Under ``runtime_model="requested"`` the env shows requested times
(job lengths, running jobs' expected ends), so EASY reserves on them, as a real one does.

The rules rank only the M visible slots (the FIFO backlog refills them), and read the per-slot facts
of :class:`~jaxsched.envs.deeprm.trace_windows.TraceObservation`. Every policy is ``policy(key, obs)
-> int32 action`` and jittable, like the DeepRM family's heuristics.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from jaxsched.baselines.deeprm import HEURISTICS, easy_backfilling, fcfs, make_heuristic

Policy = Callable[[jax.Array, object], jax.Array]
F1_SUBMIT_WEIGHT = 870.0  # Carastan-Neto and Cordeiro's F1 coefficient of log10(submit time)


def _slot_facts(obs) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """(wait s, requested s, processors, submit s) per slot; a clear error on another env's observation."""
    if getattr(obs, "slot_wait_s", None) is None:
        raise ValueError("the HPC priority rules read the trace env's observation (slot_wait_s, slot_requested_s, "
                         "slot_submit_s): use jaxsched.envs.deeprm.trace_windows")
    return (obs.slot_wait_s, jnp.maximum(obs.slot_requested_s, 1.0), obs.slot_demand[:, 0].astype(jnp.float32),
            obs.slot_submit_s)


def sjf_requested_score(obs) -> jax.Array:
    return _slot_facts(obs)[1]


def sjf_actual_score(obs) -> jax.Array:
    _slot_facts(obs)
    return obs.slot_run_s


def wfp3_score(obs) -> jax.Array:
    wait, requested, procs, _ = _slot_facts(obs)
    return -((wait / requested) ** 3) * procs


def unicep_score(obs) -> jax.Array:
    wait, requested, procs, _ = _slot_facts(obs)
    return jnp.where(wait > 0, -wait / (jnp.log2(procs) * requested), 0.0)


def f1_score(obs) -> jax.Array:
    _, requested, procs, submit = _slot_facts(obs)
    return jnp.log10(requested) * procs + F1_SUBMIT_WEIGHT * jnp.log10(jnp.maximum(submit, 1.0))


SCORES: dict[str, Callable] = {"sjf-requested": sjf_requested_score, "sjf-actual": sjf_actual_score,
                               "wfp3": wfp3_score, "unicep": unicep_score, "f1": f1_score}
LABELS = {"fcfs": "FCFS (strict)", "easy": "FCFS + EASY backfilling",
          "sjf-requested": "SJF by requested time (strict)",
          "sjf-actual": "SJF by actual run time (oracle: no scheduler knows it)",
          "wfp3": "WFP3 (strict)", "unicep": "UNICEP (strict)", "f1": "F1 (strict)"}


def priority_rank(obs, score: jax.Array) -> jax.Array:
    """int32[M]: each visible job's place in the queue ordered by ``score`` (lower first; ties to
    the older job, i.e. the smaller job index), -1 for an empty slot."""
    filled = obs.slot_job >= 0
    order = jnp.lexsort((jnp.where(filled, obs.slot_job, jnp.iinfo(jnp.int32).max),
                         jnp.where(filled, score, jnp.inf)))  # the last key is the primary one
    rank = jnp.zeros_like(order).at[order].set(jnp.arange(order.shape[0], dtype=order.dtype))
    return jnp.where(filled, rank, -1).astype(jnp.int32)


def strict_priority(score_fn: Callable) -> Policy:
    """The best-scored job starts if it fits now; else move on."""
    def policy(key, obs):
        return fcfs(key, obs.replace(slot_job=priority_rank(obs, score_fn(obs))))
    return policy


def easy_priority(score_fn: Callable) -> Policy:
    """EASY backfilling with the queue in ``score_fn`` order."""
    def policy(key, obs):
        return easy_backfilling(key, obs.replace(slot_job=priority_rank(obs, score_fn(obs))))
    return policy


HPC_HEURISTICS: dict[str, Policy] = {"fcfs": fcfs, "easy": easy_backfilling}
for _name, _score in SCORES.items():
    HPC_HEURISTICS[_name] = strict_priority(_score)
    HPC_HEURISTICS[f"{_name}+easy"] = easy_priority(_score)
    LABELS.setdefault(f"{_name}+easy", f"{LABELS[_name].replace(' (strict)', '')} + EASY backfilling")


def make_hpc_heuristic(name: str) -> Policy:
    """An HPC rule by name (:data:`HPC_HEURISTICS`), or one of the DeepRM family's heuristics."""
    if name in HPC_HEURISTICS:
        return HPC_HEURISTICS[name]
    if name.partition(":")[0] in HEURISTICS:
        return make_heuristic(name)
    raise ValueError(f"unknown policy {name!r}; HPC rules are {', '.join(HPC_HEURISTICS)}; the DeepRM ones "
                     f"{', '.join(HEURISTICS)}")
