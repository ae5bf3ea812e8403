"""Fixed-length trajectories for learning: a ``lax.scan`` of L decisions with a valid mask.

Learning needs equal shapes across rollouts, so every episode is scanned for exactly L decisions.
Steps after the episode ended (terminated, or truncated by the env's caps) are padding: ``valid`` is
False, the reward is 0, and the env state is frozen at the episode's last state (no auto-reset), so
``final_state`` is the state at the end of the episode or at the L cap, whichever came first.

Per-step arrays are time-major, ``[L, *batch]`` as in PureJaxRL: the scan runs over time outside a
``vmap`` over jobsets x rollouts, so the stored observations (the bulk of the memory, J N L T W
floats) are written in place and never transposed.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from flax import struct

from jaxsched.envs.deeprm import select_state


@struct.dataclass
class Trajectory:
    features: jax.Array  # [L, *batch, *feature_shape] what the policy saw at each decision
    action_mask: jax.Array  # bool[L, *batch, A]
    action: jax.Array  # int32[L, *batch]
    reward: jax.Array  # float32[L, *batch], 0 on padding steps
    valid: jax.Array  # bool[L, *batch]: the decision was taken before the episode ended
    final_state: object  # env state [*batch] at the episode's end (or after L decisions)
    terminated: jax.Array  # bool[*batch]: ended by the env's termination within L decisions
    extra: object = None  # [L, *batch, ...] what ``record(obs, action)`` kept, for analyses


@struct.dataclass
class _Carry:
    obs: object
    state: object
    alive: jax.Array
    terminated: jax.Array


def _decide(env, policy: Callable, record_extra: Callable | None = None):
    """One decision of one episode: record it, then advance unless the episode already ended."""

    def decide(carry: _Carry, key: jax.Array, env_params):
        act_key, env_key = jax.random.split(key)
        obs, state, alive = carry.obs, carry.state, carry.alive
        action = jnp.asarray(policy(act_key, obs), jnp.int32)
        next_obs, next_state, reward, done, _ = env.step_env(env_key, state, action, env_params)
        ended = done | env.is_truncated(next_state, env_params)
        record = (obs.features, obs.action_mask, action, jnp.where(alive, reward, 0.0).astype(jnp.float32),
                  alive, None if record_extra is None else record_extra(obs, action))
        obs = jax.tree.map(lambda new, old: jnp.where(alive, new, old), next_obs, obs)
        state = select_state(alive, next_state, state)
        return _Carry(obs, state, alive & ~ended, carry.terminated | (alive & done)), record

    return decide


def _start(env, key, env_params) -> _Carry:
    obs, state = env.reset_env(key, env_params)
    return _Carry(obs, state, jnp.bool_(True), jnp.bool_(False))


def _finish(carry: _Carry, records) -> Trajectory:
    features, mask, action, reward, valid, extra = records
    return Trajectory(features=features, action_mask=mask, action=action, reward=reward, valid=valid,
                      final_state=carry.state, terminated=carry.terminated, extra=extra)


def collect(env, env_params, policy: Callable, key: jax.Array, length: int) -> Trajectory:
    """One episode of ``policy(key, obs) -> action`` on ``env_params.jobset``, scanned for ``length``."""
    reset_key, scan_key = jax.random.split(key)
    decide = _decide(env, policy)
    carry, records = jax.lax.scan(lambda c, k: decide(c, k, env_params), _start(env, reset_key, env_params),
                                  jax.random.split(scan_key, length))
    return _finish(carry, records)


def collect_batch(env, batched_params, policy: Callable, key: jax.Array, num_rollouts: int,
                  length: int, record_extra: Callable | None = None) -> Trajectory:
    """Trajectories with per-step arrays ``[L, J, N, ...]`` and final states ``[J, N]``: N rollouts on
    each of the J jobsets in ``batched_params`` (see ``jaxsched.rollout.with_jobsets``).
    ``record_extra(obs, action)`` adds a pytree per decision to ``Trajectory.extra``."""
    num_jobsets = batched_params.jobset.arrival.shape[0]
    reset_key, scan_key = jax.random.split(key)
    grid_keys = lambda k: jax.random.split(k, (num_jobsets, num_rollouts))
    decide = jax.vmap(jax.vmap(_decide(env, policy, record_extra), in_axes=(0, 0, None)))  # rollouts share params
    start = jax.vmap(lambda keys, p: jax.vmap(lambda k: _start(env, k, p))(keys))(grid_keys(reset_key),
                                                                                  batched_params)
    carry, records = jax.lax.scan(lambda c, k: decide(c, grid_keys(k), batched_params), start,
                                  jax.random.split(scan_key, length))
    return _finish(carry, records)


def job_outcomes(final_state) -> dict[str, jax.Array]:
    """Per-job arrays over any leading axes: finished mask, slowdown and completion time (0 where
    unfinished). Mirrors ``jaxsched.metrics.job_table`` but stays inside ``jit``."""
    jobs = final_state.jobset
    clock = final_state.clock[..., None]
    finish = final_state.start + jobs.duration
    finished = jobs.valid & (final_state.start >= 0) & (finish <= clock)
    completion = jnp.where(finished, finish - jobs.arrival, 0).astype(jnp.float32)
    slowdown = completion / jnp.maximum(jobs.duration, 1).astype(jnp.float32)
    return {"finished": finished, "slowdown": slowdown, "completion_time": completion,
            "unfinished": jobs.valid & ~finished & ~final_state.dropped, "dropped": final_state.dropped}
