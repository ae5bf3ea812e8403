"""gymnax's auto-resetting ``Environment.step``, at the cost of the internal transition + restart.

gymnax's ``step`` builds the stepped state and its observation, then the reset state and *its*
observation, and selects both with ``done``: every call pays a second observation (DeepRM's image,
VM's per-PM features) and a whole reset (DeepRM's image drawn from scratch, VM's trace window and
warm start, the grid's first events), and under ``vmap`` a select over every leaf of the state --
each step, for every copy, though a copy finishes once an episode. :class:`ObserveOnceStep` returns
exactly what gymnax's ``step`` returns, bit for bit (``tests/test_public_step.py``), computed otherwise:

- **one observation**: the next state is selected first (stepped or restarted) and observed once;
  ``info["final_observation"]`` (the stepped state's) is its own expression, which XLA drops where
  the caller does not read it (a training loop under ``jit``);
- **restarts only where an episode ended** (:func:`restart_finished`): alone, a ``lax.cond``; under
  ``vmap`` (a ``custom_vmap`` rule), the finished copies are restarted a few at a time
  (``ceil(batch / RESTART_SHARE)`` per pass of a ``while_loop``, none when no copy finished) and
  written over the stepped states, instead of a restart for every copy and a select of every leaf.

An env provides ``reset_state(key, params)`` (the state a reset draws), ``transition(state, action,
params) -> (state, reward, terminated, info)`` and ``get_obs(state, params)``; the mixin derives
``reset_env``, ``step_env`` and ``step`` from them, so the three cannot disagree. A loop that reads
``info["final_observation"]`` pays for it, as under gymnax. ``custom_vmap`` has no reverse-mode
derivative, so neither has this ``step`` (these envs' discrete transitions have none to give).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

RESTART_SHARE = 32  # under vmap, a pass of the restart loop restarts up to ceil(batch / RESTART_SHARE) copies


class ObserveOnceStep:
    """Mixin for a gymnax ``Environment``: ``step`` / ``step_env`` / ``reset_env`` from the env's
    ``reset_state``, ``transition`` and ``get_obs`` (module docstring). List it before
    ``environment.Environment`` among the bases."""

    def reset_state(self, key: jax.Array, params) -> Any:
        """The state a reset with ``key`` starts from (default: ``self.initial_state(params)``)."""
        return self.initial_state(params)

    def reset_env(self, key: jax.Array, params):
        state = self.reset_state(key, params)
        return self.get_obs(state, params), state

    def step_env(self, key: jax.Array, state, action, params):
        state, reward, terminated, info = self.transition(state, action, params)
        return self.get_obs(state, params), state, reward, terminated, info

    @functools.partial(jax.jit, static_argnames=("self",))
    def step(self, key: jax.Array, state, action, params=None):
        """gymnax's ``Environment.step`` (auto-reset on ``terminated | truncated``; six values; info with
        ``terminated``, ``truncated`` and ``final_observation``), the observation built once."""
        if params is None:
            params = self.default_params
        _, key_reset = jax.random.split(key)  # gymnax's (step key, reset key); the transitions take none
        stepped, reward, terminated, info = self.transition(state, action, params)
        truncated = self.is_truncated(stepped, params)
        done = jnp.logical_or(terminated, truncated)
        state = restart_finished(self.reset_state, done, key_reset, params, stepped)
        info = {**info, "terminated": terminated, "truncated": truncated,
                "final_observation": self.get_obs(stepped, params)}
        return self.get_obs(state, params), state, reward, terminated, truncated, info


def restart_finished(reset_state, done: jax.Array, key: jax.Array, params, stepped):
    """``reset_state(key, params)`` where ``done``, else ``stepped``: equal, leaf for leaf, to gymnax's
    ``select(done, reset, stepped)``, with the restart computed only where an episode ended (module
    docstring). ``reset_state`` is a static function of ``(key, params)``."""
    return _restart_rule(reset_state)(done, key, params, stepped)


@functools.lru_cache(maxsize=256)
def _restart_rule(reset_state):
    """The ``custom_vmap`` function of :func:`restart_finished` for one ``reset_state`` (cached: one
    per env, so a retrace reuses it)."""

    @custom_vmap
    def restart(done, key, params, stepped):
        return jax.lax.cond(done, lambda: _like(reset_state(key, params), stepped), lambda: stepped)

    @restart.def_vmap
    def restart_batched(axis_size, in_batched, done, key, params, stepped):
        done_batched, key_batched, params_batched, stepped_batched = in_batched
        state = _broadcast(stepped, stepped_batched, axis_size)
        pending = done if done_batched else jnp.broadcast_to(done, (axis_size,))
        share = -(-axis_size // RESTART_SHARE)

        def restart_some(carry):
            state, pending = carry
            rows = jnp.nonzero(pending, size=share, fill_value=axis_size)[0]  # the next finished copies
            safe = jnp.minimum(rows, axis_size - 1)
            keys = _rows(key, key_batched, safe)
            fresh = jax.vmap(reset_state)(keys, _rows(params, params_batched, safe))
            # rows past the finished copies are axis_size: out of bounds, dropped
            state = jax.tree.map(lambda leaf, new: leaf.at[rows].set(new.astype(leaf.dtype), mode="drop"), state, fresh)
            return state, pending.at[rows].set(False, mode="drop")

        state, _ = jax.lax.while_loop(lambda carry: jnp.any(carry[1]), restart_some, (state, pending))
        return state, jax.tree.map(lambda _: True, stepped)

    return restart


def _like(fresh, stepped):
    """``fresh`` with ``stepped``'s dtypes leaf for leaf (``cond``'s branches must agree exactly)."""
    return jax.tree.map(lambda new, old: jnp.asarray(new, jnp.result_type(old)), fresh, stepped)


def _broadcast(tree, batched, size: int):
    """Every leaf of ``tree`` with a leading axis of ``size`` (the unbatched ones repeated)."""
    return jax.tree.map(lambda leaf, b: leaf if b else jnp.broadcast_to(leaf, (size,) + jnp.shape(leaf)), tree, batched)


def _rows(tree, batched, rows: jax.Array):
    """The copies ``rows`` of ``tree``: gathered where a leaf is batched, repeated where it is shared."""
    count = rows.shape[0]
    return jax.tree.map(lambda leaf, b: leaf[rows] if b else jnp.broadcast_to(leaf, (count,) + jnp.shape(leaf)),
                        tree, batched)
