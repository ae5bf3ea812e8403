"""The episode engine every learner, evaluation and benchmark uses, for any registered env.

- :func:`run_episode` / :func:`finish_episode`: one episode to its end (a ``while_loop``); no
  gymnax auto-reset, so no step is wasted and the final state is kept; :func:`make_evaluator`
  vmaps it over instances (batched params) x Monte-Carlo rollouts.
- :func:`collect` / :func:`collect_batch`: fixed-length trajectories (a ``lax.scan`` of L decisions
  with a valid mask) for learning, time-major ``[L, *batch]`` as in PureJaxRL.
- :func:`auto_reset_step`: one step of a training loop that restarts finished episodes.

An env's instance data (DeepRM's jobset, VM's trace window) lives in its state and never changes
within an episode; ``env.instance_field`` names it so :func:`select_state` shares it, not copies it.
"""

from __future__ import annotations

import functools
from typing import Callable

import jax
import jax.numpy as jnp
from flax import struct
from jax.tree_util import Partial

from jaxsched.core.devices import split_instances



def select_fields(pred: jax.Array, on_true, on_false, constant: str):
    """``where(pred, on_true, on_false)`` over a state dataclass, field by field, except the field
    ``constant`` (the episode's instance data, identical in both), which is shared rather than copied."""
    shared = getattr(on_false, constant)
    chosen = jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true.replace(**{constant: None}),
                          on_false.replace(**{constant: None}))
    return chosen.replace(**{constant: shared})


def select_state(env, pred: jax.Array, on_true, on_false):
    """``where(pred, on_true, on_false)`` for two states of the same episode: the instance data
    (``env.instance_field``, if the env names one) is shared. For states of different episodes
    (a restart on another instance) use :func:`select_tree`."""
    field = getattr(env, "instance_field", None)
    if field is None:
        return select_tree(pred, on_true, on_false)
    return select_fields(pred, on_true, on_false, field)


def select_tree(pred: jax.Array, on_true, on_false):
    """``where(pred, on_true, on_false)`` over every leaf."""
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


def num_instances(batched_params) -> int:
    """The number of instances in params batched along a leading axis."""
    return jax.tree.leaves(batched_params)[0].shape[0]


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


def make_evaluator(env, policy: Callable, num_rollouts: int = 1):
    """A jitted ``(params_batched, key) -> EpisodeResult[instances, rollouts]``.

    The policy reaches one module-level compiled program as an argument (a :class:`jax.tree_util.Partial`):
    a learner's policy (``policy_from``) is a ``Partial`` over its network's params, so every seed's and
    checkpoint's params of one network reuse one compilation per ``env``; a plain function is wrapped, and
    its compilation is reused whenever the same function object is evaluated again."""
    if not isinstance(policy, Partial):
        policy = Partial(policy)
    return functools.partial(_evaluate, env, num_rollouts, policy)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _evaluate(env, num_rollouts: int, policy: Partial, batched_params, key):
    def per_jobset(params, key):
        keys = jax.random.split(key, num_rollouts)
        return jax.vmap(lambda k: run_episode(env, params, policy, k))(keys)

    return jax.vmap(per_jobset)(batched_params, jax.random.split(key, num_instances(batched_params)))


def auto_reset_step(env, state, action, params, initial_state=None):
    """One step of a gymnax-style training loop that restarts finished episodes on the same jobset.

    It builds the observation once (of the state the agent sees next), as the families' public
    ``env.step`` now does too (:class:`jaxsched.core.observe_once.ObserveOnceStep`, timed against this
    by ``python -m jaxsched.bench public-step``). Pass ``initial_state`` (it depends only on the params)
    to keep it out of the loop. Returns ``(obs, state, reward, done, info)``.
    """
    if initial_state is None:
        initial_state = env.initial_state(params)
    state, reward, terminated, info = env.transition(state, action, params)
    done = terminated | env.is_truncated(state, params)
    state = select_state(env, done, initial_state, state)
    return env.get_obs(state, params), state, reward, done, info


# ------------------------------------------------------------------ fixed-length trajectories
# Learning needs equal shapes across rollouts, so every episode is scanned for exactly L decisions.
# Steps after the episode ended (terminated, or truncated by the env's caps) are padding: ``valid``
# is False, the reward is 0, and the env state is frozen at the episode's last state (no auto-reset),
# so ``final_state`` is the state at the end of the episode or at the L cap, whichever came first.
# The scan runs over time outside a ``vmap`` over instances x rollouts, so the stored observations
# (the bulk of the memory) are written in place and never transposed.


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
        state = select_state(env, alive, next_state, state)
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
    """One episode of ``policy(key, obs) -> action`` on ``env_params``' instance, scanned for ``length``."""
    reset_key, scan_key = jax.random.split(key)
    decide = _decide(env, policy)
    carry, records = jax.lax.scan(lambda c, k: decide(c, k, env_params), _start(env, reset_key, env_params),
                                  jax.random.split(scan_key, length))
    return _finish(carry, records)


def collect_batch(env, batched_params, policy: Callable, key: jax.Array, num_rollouts: int,
                  length: int, record_extra: Callable | None = None) -> Trajectory:
    """Trajectories with per-step arrays ``[L, J, N, ...]`` and final states ``[J, N]``: N rollouts on
    each of the J jobsets in ``batched_params`` (see ``jaxsched.core.rollout.with_jobsets``).
    ``record_extra(obs, action)`` adds a pytree per decision to ``Trajectory.extra``."""
    num_jobsets = num_instances(batched_params)
    reset_key, scan_key = jax.random.split(key)
    grid_keys = lambda k: jax.random.split(k, (num_jobsets, num_rollouts))
    decide = jax.vmap(jax.vmap(_decide(env, policy, record_extra), in_axes=(0, 0, None)))  # rollouts share params

    def run(reset_keys, step_keys, instances):  # [J, N], [L, J, N], [J]: the same on any slice of J
        start = jax.vmap(lambda keys, p: jax.vmap(lambda k: _start(env, k, p))(keys))(reset_keys, instances)
        carry, records = jax.lax.scan(lambda c, k: decide(c, k, instances), start, step_keys)
        return _finish(carry, records)

    # every (decision, jobset, rollout) key drawn here, so that a device running a slice of the jobsets
    # (split_instances) draws what one device running all of them would
    step_keys = jax.vmap(grid_keys)(jax.random.split(scan_key, length))
    time_major = None if record_extra is None else 1
    out_axes = Trajectory(features=1, action_mask=1, action=1, reward=1, valid=1, final_state=0, terminated=0,
                          extra=time_major)
    return split_instances(run, (grid_keys(reset_key), step_keys, batched_params), (0, 1, 0), out_axes)
