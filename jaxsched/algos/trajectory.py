"""Fixed-length trajectories for learning: a ``lax.scan`` of L decisions with a valid mask.

Learning needs equal shapes across rollouts, so every episode is scanned for exactly L decisions.
Steps after the episode ended (terminated, or truncated by the env's caps) are padding: ``valid`` is
False, the reward is 0, and the env state is frozen at the episode's last state (no auto-reset), so
``final_state`` is the state at the end of the episode or at the L cap, whichever came first.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Trajectory:
    features: jax.Array  # [L, *feature_shape] what the policy saw at each decision
    action_mask: jax.Array  # bool[L, A]
    action: jax.Array  # int32[L]
    reward: jax.Array  # float32[L], 0 on padding steps
    valid: jax.Array  # bool[L]: the decision was taken before the episode ended
    final_state: object  # env state at the episode's end (or after L decisions)
    terminated: jax.Array  # bool: the episode ended by the env's termination within L decisions


def collect(env, env_params, policy: Callable, key: jax.Array, length: int) -> Trajectory:
    """One episode of ``policy(key, obs) -> action`` on ``env_params.jobset``, scanned for ``length``."""
    reset_key, scan_key = jax.random.split(key)
    obs, state = env.reset_env(reset_key, env_params)

    def step(carry, step_key):
        obs, state, alive, terminated = carry
        act_key, env_key = jax.random.split(step_key)
        action = policy(act_key, obs)
        next_obs, next_state, reward, done, _ = env.step_env(env_key, state, action, env_params)
        ended = done | env.is_truncated(next_state, env_params)
        record = (obs.features, obs.action_mask, action, jnp.where(alive, reward, 0.0), alive)
        obs, state = jax.tree.map(lambda new, old: jnp.where(alive, new, old), (next_obs, next_state), (obs, state))
        return (obs, state, alive & ~ended, terminated | (alive & done)), record

    init = (obs, state, jnp.bool_(True), jnp.bool_(False))
    (_, state, _, terminated), (features, mask, action, reward, valid) = jax.lax.scan(
        step, init, jax.random.split(scan_key, length))
    return Trajectory(features=features, action_mask=mask, action=action.astype(jnp.int32),
                      reward=reward.astype(jnp.float32), valid=valid, final_state=state, terminated=terminated)


def collect_batch(env, batched_params, policy: Callable, key: jax.Array, num_rollouts: int,
                  length: int) -> Trajectory:
    """Trajectories ``[J, N, L, ...]``: N rollouts on each of the J jobsets in ``batched_params``
    (see ``jaxsched.rollout.with_jobsets``)."""
    num_jobsets = batched_params.jobset.arrival.shape[0]

    def per_jobset(params, jobset_key):
        keys = jax.random.split(jobset_key, num_rollouts)
        return jax.vmap(lambda k: collect(env, params, policy, k, length))(keys)

    return jax.vmap(per_jobset)(batched_params, jax.random.split(key, num_jobsets))


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
