"""The toy family's heuristics (what would be baselines/toy.py)."""

import jax.numpy as jnp


def first(key, obs):
    return jnp.argmax(obs.action_mask).astype(jnp.int32)


def shortest(key, obs):
    return jnp.argmin(jnp.where(obs.action_mask, obs.durations, jnp.iinfo(jnp.int32).max)).astype(jnp.int32)


HEURISTICS = {"first": first, "shortest": shortest}
