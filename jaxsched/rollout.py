"""Running whole episodes: a ``while_loop`` per episode, ``vmap`` over jobsets x Monte-Carlo rollouts.

Evaluation does not need gymnax's auto-reset: each episode runs until it terminates or is truncated
(the env's clock and decision caps), so no step is wasted and no final state is overwritten.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from flax import struct

from jaxsched.envs.deeprm import select_state
from jaxsched.jobset import Jobset


@struct.dataclass
class EpisodeResult:
    state: object  # the final env state (holds start times, drops, clock)
    episode_return: jax.Array
    decisions: jax.Array  # steps taken
    terminated: jax.Array  # False when a cap truncated the episode


def run_episode(env, params, policy: Callable, key: jax.Array) -> EpisodeResult:
    """One episode of ``policy(key, obs) -> action`` on ``params.jobset``, to its end."""
    key, reset_key = jax.random.split(key)
    obs, state = env.reset_env(reset_key, params)
    return finish_episode(env, params, policy, key, obs, state)


def finish_episode(env, params, policy: Callable, key: jax.Array, obs, state, done=False) -> EpisodeResult:
    """Runs ``policy`` from ``(obs, state)`` to the episode's end; nothing where ``done`` already.
    ``episode_return`` counts the rewards from here on."""

    def cond(carry):
        _, _, state, _, done, _ = carry
        return ~done

    def body(carry):
        key, obs, state, total, _, _ = carry
        key, act_key, step_key = jax.random.split(key, 3)
        action = policy(act_key, obs)
        obs, state, reward, terminated, _ = env.step_env(step_key, state, action, params)
        done = terminated | env.is_truncated(state, params)
        return key, obs, state, total + reward, done, terminated

    init = (key, obs, state, jnp.float32(0.0), jnp.asarray(done, jnp.bool_), jnp.asarray(done, jnp.bool_))
    _, _, state, total, _, terminated = jax.lax.while_loop(cond, body, init)
    return EpisodeResult(state=state, episode_return=total, decisions=state.time, terminated=terminated)


def with_jobsets(params, jobsets: Jobset):
    """Params batched along the jobsets' leading axis (other fields broadcast), for ``vmap``."""
    n = jobsets.arrival.shape[0]
    params = params.replace(jobset=None)
    batched = jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x), (n,) + jnp.shape(x)), params)
    return batched.replace(jobset=jobsets)


def make_evaluator(env, policy: Callable, num_rollouts: int = 1):
    """A jitted ``(params_batched, key) -> EpisodeResult[jobsets, rollouts]``."""

    def per_jobset(params, key):
        keys = jax.random.split(key, num_rollouts)
        return jax.vmap(lambda k: run_episode(env, params, policy, k))(keys)

    @jax.jit
    def evaluate(batched_params, key):
        n = batched_params.jobset.arrival.shape[0]
        return jax.vmap(per_jobset)(batched_params, jax.random.split(key, n))

    return evaluate


def auto_reset_step(env, state, action, params, initial_state=None):
    """One step of a gymnax-style training loop that restarts finished episodes on the same jobset.

    Unlike gymnax's ``step`` it builds the observation once (of the state the agent sees next),
    not once for the stepped and once for the reset state. Pass ``initial_state`` (it depends only
    on the params) to keep it out of the loop. Returns ``(obs, state, reward, done, info)``.
    """
    if initial_state is None:
        initial_state = env.initial_state(params)
    state, reward, terminated, info = env.transition(state, action, params)
    done = terminated | env.is_truncated(state, params)
    state = select_state(done, initial_state, state)
    return env.get_obs(state, params), state, reward, done, info
