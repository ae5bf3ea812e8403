"""A DeepRM-family policy that leaves jobs unfinished on purpose, for the tests of how tables show it."""

from __future__ import annotations

import jax.numpy as jnp


def short_jobs_only(key, obs, longest: int = 2):
    """SJF that never starts a job longer than ``longest`` steps: the long ones wait to the clock cap,
    so the finished-only means look better than SJF's while jobs are left unfinished."""
    duration = obs.slot_duration
    score = jnp.where(obs.fits_now & (duration > 0) & (duration <= longest), 1.0 / jnp.maximum(duration, 1), 0.0)
    best = jnp.argmax(score).astype(jnp.int32)
    return jnp.where(score[best] > 0, best, jnp.int32(duration.shape[-1]))
