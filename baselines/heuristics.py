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


HEURISTICS: dict[str, Policy] = {"sjf": sjf, "packer": packer, "tetris": tetris, "random": random_policy,
                                 "fcfs": fcfs}


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
