"""DeepRM's heuristics, reproducing the reference's eligibility and tie-breaking exactly.

Each scans the M visible slots; a slot is eligible when its job fits *now* for its whole duration.
The eligible slot with the strictly largest positive score wins, so ties go to the lowest slot;
with none eligible the policy returns M (move on). Called repeatedly within one time step they are
work-conserving. Every policy is ``policy(key, obs) -> int32 action`` and jittable.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

Policy = Callable[[jax.Array, object], jax.Array]


def _pick(obs, score: jax.Array) -> jax.Array:
    num_slots = obs.fits_now.shape[-1]
    score = jnp.where(obs.fits_now, score, 0.0)
    best = jnp.argmax(score).astype(jnp.int32)
    return jnp.where(score[best] > 0, best, jnp.int32(num_slots))


def _packer_score(obs) -> jax.Array:
    return jnp.sum(obs.free[0][None, :] * obs.slot_demand, axis=-1).astype(jnp.float32)


def _sjf_score(obs) -> jax.Array:
    return jnp.where(obs.slot_duration > 0, 1.0 / jnp.maximum(obs.slot_duration, 1), 0.0)


def sjf(key: jax.Array, obs) -> jax.Array:
    """Shortest job first: score 1 / duration."""
    return _pick(obs, _sjf_score(obs))


def packer(key: jax.Array, obs) -> jax.Array:
    """Packer (Tetris's alignment score): free units now · job demand."""
    return _pick(obs, _packer_score(obs))


def tetris(key: jax.Array, obs, knob: float = 0.5) -> jax.Array:
    """Tetris*: knob · packer score + (1 − knob) · 1 / duration."""
    return _pick(obs, knob * _packer_score(obs) + (1.0 - knob) * _sjf_score(obs))


def random_policy(key: jax.Array, obs) -> jax.Array:
    """Uniform over all M + 1 actions, eligible or not, as the reference's random agent."""
    return jax.random.randint(key, (), 0, obs.action_mask.shape[-1], dtype=jnp.int32)


def fcfs(key: jax.Array, obs) -> jax.Array:
    """First come first served: the oldest waiting job if it fits now, else move on (no skipping)."""
    num_slots = obs.fits_now.shape[-1]
    order = jnp.where(obs.slot_job >= 0, obs.slot_job, jnp.iinfo(jnp.int32).max)
    oldest = jnp.argmin(order).astype(jnp.int32)
    return jnp.where(obs.fits_now[oldest], oldest, jnp.int32(num_slots))


def easy_backfilling(key: jax.Array, obs) -> jax.Array:
    """EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001) on the visible slots.

    The queue EASY sees is the M visible slots; the oldest waiting job (smallest job index, i.e.
    earliest arrival) is always among them because slots are refilled from the FIFO backlog.

    1. The head is the oldest waiting job. If it fits now, start it.
    2. Otherwise the head gets a reservation at its *shadow time* s: the earliest future step from
       which it fits for its whole duration on the free-resource profile of the jobs already placed
       (``obs.free_profile``, which covers every placed job's remaining run, so s is always found).
    3. Another waiting job may start now (backfill) only if it fits now and does not delay the
       reservation: for every step it would still be running inside the head's reserved interval
       [s, s + head duration), the free units left after it must still cover the head's demand.
       That is the textbook rule "finishes before the shadow time, or uses only the resources spare
       at the shadow time", exact here because durations are known (no user estimates).
    4. Among the jobs allowed to backfill, the oldest starts (EASY scans the queue in FCFS order);
       if none may, move on (M).

    Called again after each start (the environment does not advance time on a start), the
    reservation is recomputed on the new profile, which is where EASY's "extra nodes" bookkeeping
    lives. Needs ``obs.free_profile`` (the DeepRM environment provides it).
    """
    num_slots = obs.fits_now.shape[-1]
    filled = obs.slot_job >= 0
    head = jnp.argmin(jnp.where(filled, obs.slot_job, jnp.iinfo(jnp.int32).max)).astype(jnp.int32)
    head_demand, head_duration = obs.slot_demand[head], obs.slot_duration[head]

    # The profile past its last row is all free: extend it so that any start fits within it.
    profile = obs.free_profile
    rows = jnp.arange(2 * profile.shape[0])
    free = profile[jnp.minimum(rows, profile.shape[0] - 1)]  # [R, d]
    head_ok = jnp.all(free >= head_demand, axis=-1)  # [R]
    starts = jnp.arange(profile.shape[0])
    inside = (rows[None, :] >= starts[:, None]) & (rows[None, :] < starts[:, None] + head_duration)
    shadow = jnp.argmax(jnp.all(head_ok[None, :] | ~inside, axis=1))
    reserved = (rows >= shadow) & (rows < shadow + head_duration)  # [R]

    # A candidate running over rows [0, duration) must leave the head's demand free in `reserved`.
    running = rows[None, :] < obs.slot_duration[:, None]  # [M, R]
    left = free[None, :, :] - obs.slot_demand[:, None, :]  # [M, R, d]
    delays = jnp.any(running & reserved[None, :] & jnp.any(left < head_demand, axis=-1), axis=-1)
    backfill = obs.fits_now & ~delays & (jnp.arange(num_slots) != head)
    oldest = jnp.argmin(jnp.where(backfill, obs.slot_job, jnp.iinfo(jnp.int32).max)).astype(jnp.int32)
    action = jnp.where(jnp.any(backfill), oldest, jnp.int32(num_slots))
    return jnp.where(~jnp.any(filled), jnp.int32(num_slots), jnp.where(obs.fits_now[head], head, action))


HEURISTICS: dict[str, Policy] = {"sjf": sjf, "packer": packer, "tetris": tetris, "random": random_policy,
                                 "fcfs": fcfs, "easy": easy_backfilling}


def sjf_ties(obs, action: jax.Array) -> jax.Array:
    """bool[M + 1]: the actions SJF rates as good as ``action`` (every eligible slot whose job is as
    short as the chosen one; just "move on" when SJF moves on). SJF's label among them is only its
    lowest-slot tie-break, so a clone is judged correct on any of them."""
    num_slots = obs.fits_now.shape[-1]
    score = jnp.where(obs.fits_now, _sjf_score(obs), 0.0)
    chosen = score[jnp.minimum(action, num_slots - 1)]
    slots = (score == chosen) & (score > 0) & (action < num_slots)
    return jnp.concatenate([slots, (action >= num_slots)[None]])


# Per heuristic, the actions it rates as good as its choice (behaviour cloning's tie-aware accuracy).
TIES: dict[str, Callable] = {"sjf": sjf_ties}


def make_heuristic(name: str) -> Policy:
    """A heuristic by name; ``tetris`` takes a knob as ``tetris:0.3`` (default 0.5)."""
    base, _, arg = name.partition(":")
    if base not in HEURISTICS:
        raise ValueError(f"unknown policy {name!r}; heuristics are {', '.join(HEURISTICS)}")
    if arg:
        if base != "tetris":
            raise ValueError(f"only tetris takes an argument (tetris:KNOB), got {name!r}")
        knob = float(arg)
        if not 0.0 <= knob <= 1.0:
            raise ValueError(f"tetris knob must lie in [0, 1], got {knob}")
        return lambda key, obs: tetris(key, obs, knob)
    return HEURISTICS[base]
