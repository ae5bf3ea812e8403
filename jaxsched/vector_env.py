"""``jaxsched.make_vec(id, num_envs)``: N copies of a registered env as one ``gymnasium.vector.VectorEnv``,
stepped by one jitted call.

What Gymnasium's ``SyncVectorEnv`` does with N :func:`jaxsched.make_gymnasium` adapters, in one dispatch
per ``step`` instead of N:

- **state**: every copy's episode (env state and carried key) lives in one ``uint32[N, words]`` buffer
  (:class:`jaxsched.core.packed_step.WordLayout`), donated to the step so XLA updates it in place; the
  params (the env's caps, shared by all copies) travel as one more word buffer. A step returns one float32
  array ``[N, observation + 3]`` (observation, reward, terminated, truncated), copied to the host once;
  the observations the finished copies ended on are copied only on steps where one ended.
- **auto-reset in the same step** (``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``): a copy that
  terminates or truncates starts its next episode at once; the observation returned is the new
  episode's first, the one it ended on is in ``info["final_obs"]`` (an object array, ``None`` for the
  other copies; ``info["_final_obs"]`` says which), its info in ``info["final_info"]``.
- **seeding**: ``reset(seed=s)`` seeds copy i with ``s + i`` (a list seeds each copy); copy i then plays
  exactly the episodes of ``make_gymnasium(id).reset(seed=s + i)`` followed by ``reset()`` after each end
  (the same carried key, split once per reset).
- ``info["action_mask"]`` and :meth:`JaxschedVectorEnv.action_masks` (sb3-contrib's MaskablePPO name):
  bool ``[N, num_actions]`` of the current observations; ``info["episode"]`` (``"r"``, ``"l"``, ``"t"``) and
  ``info["_episode"]`` on steps where copies finished, as Gymnasium's ``RecordEpisodeStatistics`` writes.
- ``render_mode="rgb_array"``: ``render()`` returns one frame per copy (:func:`jaxsched.render.render_state`).
"""

from __future__ import annotations

import time

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from jaxsched.core.packed_step import WordLayout
from jaxsched.gymnasium_env import checked_render_mode, observation_box
from jaxsched.gymnax_env import FlatObservationEnv, make_gymnax
from jaxsched.render import render_state

_MAX_SEED = 2**31 - 1  # seeds reach jax.random.key as int32 (as a Python int does below 2**31)


class VectorStep:
    """The jitted kernels of :class:`JaxschedVectorEnv` for ``num_envs`` copies of ``env`` with ``params``:
    ``keys(seeds)``, ``carried(packed)``, ``reset(keys, params_words)`` and ``step(packed, actions,
    params_words)`` (module docstring). A copy's step is the env's ``step_env`` and ``is_truncated``, its
    reset ``reset_env``, exactly what :class:`jaxsched.core.packed_step.PackedStep` runs for one env."""

    def __init__(self, env: FlatObservationEnv, params, num_envs: int):
        self.env, self.num_envs = env, num_envs
        self.params_layout = WordLayout(params)
        self.params_words = jax.jit(self.params_layout.pack)(params)
        key = jax.random.key(0)
        state = jax.eval_shape(env.reset_env, key, params)[1]
        self.layout = WordLayout((state, key))
        self.keys = jax.jit(jax.vmap(jax.random.key))
        self.carried = jax.jit(jax.vmap(lambda words: self.layout.unpack(words)[1]))
        self.reset = jax.jit(self._reset)
        self.step = jax.jit(self._step, donate_argnums=0)
        self.states = jax.jit(jax.vmap(lambda words: self.layout.unpack(words)[0]))  # for render only

    def _params(self, params_words):
        # A barrier: the params reach the env as values computed at run time, as in PackedStep's program,
        # so that XLA folds no constant differently here (x / c is not rewritten as x * (1 / c)).
        return jax.lax.optimization_barrier(self.params_layout.unpack(params_words))

    def _reset_one(self, key, params):
        """One copy's reset: ``carried, reset_key = split(key)``, as the single adapter splits its key."""
        carried, reset_key = jax.random.split(key)
        obs, state = self.env.reset_env(reset_key, params)
        return obs, state, carried

    def _reset(self, keys, params_words):
        params = self._params(params_words)
        obs, state, carried = jax.vmap(self._reset_one, in_axes=(0, None))(keys, params)
        return jax.vmap(self.layout.pack)((state, carried)), obs

    def _step_one(self, words, action, params):
        state, key = jax.lax.optimization_barrier(self.layout.unpack(words))
        obs, state, reward, terminated, _ = self.env.step_env(None, state, action, params)
        truncated = self.env.is_truncated(state, params)
        return jax.lax.optimization_barrier((obs, state, key, jnp.asarray(reward, jnp.float32), terminated,
                                             truncated))

    def _step(self, packed, actions, params_words):
        params = self._params(params_words)
        obs, state, key, reward, terminated, truncated = jax.vmap(self._step_one, in_axes=(0, 0, None))(
            packed, actions, params)
        done = terminated | truncated

        # Only the finished copies reset, one after another (none on most steps): a batched reset of all
        # N copies whenever one finishes would cost N resets, and at N = 256 nearly every step has one.
        finished = jnp.nonzero(done, size=self.num_envs, fill_value=0)[0]
        key_impl = jax.random.key_impl(key)

        def reset_next(carry):
            count, obs, state, key_data = carry
            copy = finished[count]
            new_obs, new_state, new_key = self._reset_one(jax.random.wrap_key_data(key_data[copy], impl=key_impl),
                                                          params)
            state = jax.tree.map(lambda old, new: old.at[copy].set(new), state, new_state)
            return count + 1, obs.at[copy].set(new_obs), state, key_data.at[copy].set(jax.random.key_data(new_key))

        final_obs = obs
        _, obs, state, key_data = jax.lax.while_loop(lambda carry: carry[0] < done.sum(), reset_next,
                                                     (jnp.zeros((), jnp.int32), obs, state, jax.random.key_data(key)))
        key = jax.random.wrap_key_data(key_data, impl=key_impl)
        flags = jnp.stack([reward, terminated.astype(jnp.float32), truncated.astype(jnp.float32)], axis=1)
        return jax.vmap(self.layout.pack)((state, key)), jnp.concatenate([obs, flags], axis=1), final_obs


class JaxschedVectorEnv(gymnasium.vector.VectorEnv):
    """N copies of a :class:`jaxsched.gymnax_env.FlatObservationEnv` stepped by one jitted call (module
    docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, env: FlatObservationEnv, params=None, num_envs: int = 1, seed: int | None = None,
                 render_mode: str | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.render_mode = checked_render_mode(render_mode, self.metadata)
        self.env = env
        self.params = env.default_params if params is None else params
        self.num_envs = int(num_envs)
        self.single_observation_space = observation_box(env, self.params)
        self.single_action_space = gymnasium.spaces.Discrete(env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._num_obs = self.single_observation_space.shape[0]
        self._mask_from = self._num_obs - env.num_actions
        self._kernels = VectorStep(env, self.params, self.num_envs)
        self._seed = seed  # the first reset's, when it is given none
        self._packed = None  # the copies' episodes in one device buffer (None until reset)
        self._mask = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._started = np.zeros(self.num_envs)

    # ------------------------------------------------------------------ Gymnasium's API
    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        if seed is None and self._packed is None:
            seed = self._seed
        if seed is None and self._packed is None:  # unseeded: from gymnasium's own random generator
            seed = int(self.np_random.integers(_MAX_SEED - self.num_envs))
        if seed is not None:
            seeds = self._seeds(seed)
            self._np_random, self._np_random_seed = seeding.np_random(int(seeds[0]))
            keys = self._kernels.keys(jnp.asarray(seeds, jnp.int32))
        else:
            keys = self._kernels.carried(self._packed)
        self._packed, obs = self._kernels.reset(keys, self._kernels.params_words)
        obs = np.array(obs)
        self._returns[:], self._lengths[:], self._started[:] = 0.0, 0, time.perf_counter()
        return obs, self._info(obs)

    def step(self, actions):
        if self._packed is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers (one per copy), got {actions.dtype} "
                             f"of shape {actions.shape}")
        self._packed, out, final_obs = self._kernels.step(self._packed, actions.astype(np.int32),
                                                          self._kernels.params_words)
        out = np.array(out)  # one copy to the host, writable
        obs = out[:, :self._num_obs]
        rewards = out[:, -3].astype(np.float64)
        terminations, truncations = out[:, -2] > 0.5, out[:, -1] > 0.5
        self._returns += rewards
        self._lengths += 1
        info = self._info(obs)
        done = terminations | truncations
        if done.any():
            self._add_finished(info, done, np.asarray(final_obs))
        return obs, rewards, terminations, truncations, info

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One uint8 ``[H, W, 3]`` frame per copy (:func:`jaxsched.render.render_state`) with
        ``render_mode="rgb_array"``; None without one."""
        if self.render_mode is None:
            return None
        if self._packed is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        states = jax.device_get(self._kernels.states(self._packed))
        return tuple(render_state(self.env, jax.tree.map(lambda x, i=i: x[i], states), self.params)
                     for i in range(self.num_envs))

    def close_extras(self, **kwargs) -> None:
        self._packed = None  # the device buffer goes

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, num_actions]: the actions each copy allows now (masked ones behave as
        :mod:`jaxsched.gymnax_env` documents per family)."""
        return self._mask

    # ------------------------------------------------------------------ helpers
    def _seeds(self, seed) -> np.ndarray:
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = np.arange(self.num_envs, dtype=np.int64) + int(seed)
        else:
            seeds = np.asarray(seed)
            if seeds.shape != (self.num_envs,) or not np.issubdtype(seeds.dtype, np.integer):
                raise ValueError(f"seed must be an int or {self.num_envs} ints (one per copy), got {seed!r}")
        if seeds.min() < 0 or seeds.max() > _MAX_SEED:
            raise ValueError(f"seeds must lie in [0, {_MAX_SEED}] (copy i gets seed + i), got {seed!r}")
        return seeds

    def _info(self, obs: np.ndarray) -> dict:
        self._mask = obs[:, self._mask_from:] > 0.5
        return {"action_mask": self._mask, "_action_mask": np.ones(self.num_envs, bool)}

    def _add_finished(self, info: dict, done: np.ndarray, final_obs: np.ndarray) -> None:
        """What ``SyncVectorEnv`` (same-step auto-reset) and ``RecordEpisodeStatistics`` add when copies end."""
        info["final_obs"] = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done):
            info["final_obs"][i] = final_obs[i]
        info["_final_obs"] = done.copy()
        info["final_info"] = {"action_mask": final_obs[:, self._mask_from:] > 0.5, "_action_mask": done.copy()}
        info["_final_info"] = done.copy()
        now = time.perf_counter()
        info["episode"] = {"r": np.where(done, self._returns, 0.0), "l": np.where(done, self._lengths, 0),
                           "t": np.where(done, np.round(now - self._started, 6), 0.0)}
        info["_episode"] = done.copy()
        self._returns[done], self._lengths[done], self._started[done] = 0.0, 0, now


def make_vec(name: str, num_envs: int = 1, seed: int | None = None, *, fresh_instances: bool = True,
             render_mode: str | None = None, **overrides) -> JaxschedVectorEnv:
    """The registered env ``name`` (a versioned id or alias, with ``overrides`` as :func:`jaxsched.make`)
    as ``num_envs`` copies in one ``gymnasium.vector.VectorEnv`` (module docstring); ``seed`` seeds the
    first ``reset()`` when it is given none (copy i: ``seed + i``)."""
    env, params = make_gymnax(name, fresh_instances=fresh_instances, **overrides)
    return JaxschedVectorEnv(env, params, num_envs, seed, render_mode)
