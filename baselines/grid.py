"""Schedulers and provisioning rules for :class:`jaxsched.envs.grid.env.GridSite`, with a learned
policy's signature ``policy(key, obs) -> action`` (``action = slot * S + pool-size index``).

Job choice, among the candidates the observation shows (by default every waiting job: the whole
queue), ties to the oldest job:
- ``fifo``: the oldest (the native batch scheduler's single queue);
- ``edf``: the earliest deadline, deadline = submit + ``EDF_SLACK`` x the mean runtime of the job's
  class over the jobs completed so far (the prior before any), so an interactive job's deadline is
  minutes after its submission and a batch job's hours: interactive jobs go first unless a batch job
  has waited longer than its class's slack;
- ``sjf``: the shortest execution time under the runtime model (oracle or estimated);
- ``fairshare``: the job of the VO with the largest deficit (target share minus delivered share),
  the oldest inside it.

Pool size (elastic variant; rigid has one size): keep it (``fifo`` ... as above), a fixed pool
(``fixed_30`` / ``fixed_81`` / ``fixed_120``: the allowed size nearest the target, FIFO jobs), or
``queue_proportional``: the smallest allowed size >= running + queued jobs (at least the minimum).
A fixed pool with another job rule (``fixed_90_sjf``, ``fixed_120_edf``, ...: ``fixed_<cores>_<rule>``)
is a reference for what a pool of that size allows, the job choice done well.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

EDF_SLACK = 2.0
JOB_RULES = ("fifo", "edf", "sjf", "fairshare")
POOL_RULES = ("fixed_30", "fixed_81", "fixed_120", "queue_proportional")
FIXED_WITH_JOB_RULES = tuple(f"fixed_{cores}_{rule}" for cores in (81, 90, 120) for rule in ("edf", "sjf"))
HEURISTIC_NAMES = JOB_RULES + POOL_RULES + FIXED_WITH_JOB_RULES + ("random",)


def _present(obs) -> jax.Array:
    return obs.job >= 0


def _oldest(obs, among: jax.Array) -> jax.Array:
    """The slot of the lowest job index (jobs are in submit order) among ``among`` (slot 0 when none)."""
    return jnp.argmin(jnp.where(among, obs.job, jnp.iinfo(jnp.int32).max)).astype(jnp.int32)


def _first_min(score: jax.Array, present: jax.Array, obs=None) -> jax.Array:
    """The slot with the smallest score among the present ones, ties to the oldest job (with ``obs``;
    else to the lowest slot); slot 0 when none is present."""
    score = jnp.where(present, score, jnp.inf)
    if obs is None:
        return jnp.argmin(score).astype(jnp.int32)
    return _oldest(obs, present & (score == jnp.min(score)))


def fifo_slot(obs) -> jax.Array:
    """The oldest candidate (the lowest job index: jobs are in submit order)."""
    return _oldest(obs, _present(obs))


def edf_slot(obs) -> jax.Array:
    deadline_in = EDF_SLACK * obs.class_mean[obs.klass] - obs.wait
    return _first_min(deadline_in, _present(obs), obs)


def sjf_slot(obs) -> jax.Array:
    return _first_min(obs.exec_time, _present(obs), obs)


def fairshare_slot(obs) -> jax.Array:
    deficit = obs.vo_deficit[obs.vo]
    return _first_min(-deficit, _present(obs), obs)  # ties (same VO) to the oldest


def keep_pool(obs) -> jax.Array:
    """The index of the current pool size (rigid: 0)."""
    return jnp.argmax(obs.size_allowed & (obs.pool_sizes == obs.pool)).astype(jnp.int32)


def nearest_allowed(obs, target) -> jax.Array:
    """The allowed pool size nearest ``target`` (the larger on ties)."""
    distance = jnp.abs(obs.pool_sizes - target).astype(jnp.float32) - 1e-3 * obs.pool_sizes
    return jnp.argmin(jnp.where(obs.size_allowed, distance, jnp.inf)).astype(jnp.int32)


def queue_proportional_size(obs) -> jax.Array:
    demand = obs.running + obs.queued
    enough = obs.size_allowed & (obs.pool_sizes >= demand)
    largest = jnp.argmax(jnp.where(obs.size_allowed, obs.pool_sizes, -1)).astype(jnp.int32)
    return jnp.where(jnp.any(enough), jnp.argmax(enough).astype(jnp.int32), largest)


def combine(slot_rule: Callable, size_rule: Callable = keep_pool) -> Callable:
    def policy(key, obs):
        num_sizes = obs.size_allowed.shape[-1]
        return (slot_rule(obs) * num_sizes + size_rule(obs)).astype(jnp.int32)

    return policy


def random_policy(key, obs) -> jax.Array:
    """Uniform among the legal actions."""
    return jax.random.categorical(key, jnp.where(obs.action_mask, 0.0, -jnp.inf)).astype(jnp.int32)


def make_heuristic(name: str) -> Callable:
    slots = {"fifo": fifo_slot, "edf": edf_slot, "sjf": sjf_slot, "fairshare": fairshare_slot}
    if name in slots:
        return combine(slots[name])
    if name.startswith("fixed_") and name in POOL_RULES + FIXED_WITH_JOB_RULES:
        _, target, *rule = name.split("_")
        return combine(slots[rule[0]] if rule else fifo_slot, lambda obs: nearest_allowed(obs, int(target)))
    if name == "queue_proportional":
        return combine(fifo_slot, queue_proportional_size)
    if name == "random":
        return random_policy
    raise ValueError(f"unknown grid heuristic {name!r}; choose from {', '.join(HEURISTIC_NAMES)}")
