"""``jaxsched.make_vec(id, num_envs)``: N copies of a registered env as one ``gymnasium.vector.VectorEnv``,
stepped by one jitted call.

What Gymnasium's ``SyncVectorEnv`` does with N :func:`jaxsched.make_gymnasium` adapters, in one dispatch
per ``step`` instead of N:

- **state**: every copy's episode (env state and carried key) stays on the device between calls: its small
  leaves packed into one ``uint32[N, words]`` buffer (:class:`jaxsched.core.packed_step.WordLayout`), its
  large ones (the instance: jobset, trace window; per-row records; DeepRM's image) as ``[N, ...]`` arrays,
  all donated to the step so XLA updates them in place (:class:`VectorStep`); the params (the env's caps,
  shared by all copies) travel as one more word buffer. A step returns one float32 array
  ``[N, observation + 3]`` (observation, reward, terminated, truncated), copied to the host once, written
  over the previous step's; on steps where copies ended, one more call reads their next episodes' first
  observations.
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

import math
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
LARGE_LEAF = 256  # elements per copy from which a state leaf stays an array of its own (VectorStep)
RESET_SHARE = 8  # copies finishing together reset num_envs / RESET_SHARE at a time


class VectorStep:
    """The jitted kernels of :class:`JaxschedVectorEnv` for ``num_envs`` copies of ``env`` with ``params``:
    ``keys(seeds)``, ``carried(episodes)``, ``reset(keys, params_words)``, ``step(episodes, last_out, actions,
    params_words)``, ``observe(episodes, rows, params_words)`` and ``states(episodes)`` (module docstring). A
    copy's step is the env's ``step_env`` and ``is_truncated``, its reset ``reset_env``, exactly what
    :class:`jaxsched.core.packed_step.PackedStep` runs for one env.

    ``episodes`` is ``(words, large)``: the small leaves of every copy's ``(state, key)`` packed into one
    ``uint32[N, words]`` buffer (:class:`WordLayout`: one buffer, not ~30, to pass per call), the leaves of
    ``LARGE_LEAF`` elements or more (the instance: jobset, trace window; a VM's per-row placements; DeepRM's
    image) kept as ``[N, ...]`` arrays. Both are donated, so a step writes the rows it changes in place and
    leaves the instance where it lies; packing every leaf into words copied each copy's whole state twice per
    step (unpacked, then packed again), which bounded VM's step (a 2000-row window: ~110 KB per copy).

    ``step`` restarts the finished copies' episodes but returns the observations the copies stepped to (the
    finished ones' last): the caller asks ``observe`` for the restarted copies' first observations on the
    steps where some ended, so a step writes each observation once (no second ``[N, observation]`` buffer
    to keep the last ones beside the first ones: a DeepRM image is 20,000 floats at M = 50)."""

    def __init__(self, env: FlatObservationEnv, params, num_envs: int):
        self.env, self.num_envs = env, num_envs
        self.params_layout = WordLayout(params)
        self.params_words = jax.jit(self.params_layout.pack)(params)
        key = jax.random.key(0)
        state = jax.eval_shape(env.reset_env, key, params)[1]
        leaves, self.treedef = jax.tree.flatten((state, key))
        self.large = tuple(i for i, leaf in enumerate(leaves) if hasattr(leaf, "dtype") and
                           not jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key) and math.prod(leaf.shape) >= LARGE_LEAF)
        self.small = tuple(i for i in range(len(leaves)) if i not in self.large)
        self.layout = WordLayout([leaves[i] for i in self.small])
        self.keys = jax.jit(jax.vmap(jax.random.key))
        self.carried = jax.jit(lambda episodes: self._unpack(episodes)[1])
        self.reset = jax.jit(self._reset)
        self.step = jax.jit(self._step, donate_argnums=(0, 1), keep_unused=True)
        self.observe = jax.jit(self._observe)
        self.states = jax.jit(lambda episodes: self._unpack(episodes)[0])  # for render only

    def _pack(self, episode):
        """``(state, key)`` batched -> ``(words, large)``."""
        leaves = jax.tree.leaves(episode)
        words = jax.vmap(self.layout.pack)([leaves[i] for i in self.small])
        return words, tuple(leaves[i] for i in self.large)

    def _unpack(self, episodes, barrier: bool = False):
        """``(words, large)`` -> ``(state, key)`` batched; ``barrier``: the leaves unpacked from words behind an
        optimization barrier, which keeps the word slices out of the env's own fusions (as PackedStep's does;
        the large leaves need none, and a barrier on them made XLA copy them)."""
        words, large = episodes
        leaves = [None] * (len(self.small) + len(self.large))
        small = jax.vmap(self.layout.unpack)(words)
        for i, leaf in zip(self.small, jax.lax.optimization_barrier(small) if barrier else small):
            leaves[i] = leaf
        for i, leaf in zip(self.large, large):
            leaves[i] = leaf
        return jax.tree.unflatten(self.treedef, leaves)

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
        """``(episodes, out)``: ``out`` the first observations then zero reward and flags (the first buffer
        a step writes over)."""
        params = self._params(params_words)
        obs, state, carried = jax.vmap(self._reset_one, in_axes=(0, None))(keys, params)
        return self._pack((state, carried)), jnp.concatenate([obs, jnp.zeros((obs.shape[0], 3), obs.dtype)], axis=1)

    def _step_one(self, state, action, params):
        """``(out, state, done)``: ``out`` the observation stepped to (a finished copy's last), then reward,
        terminated and truncated."""
        obs, state, reward, terminated, _ = self.env.step_env(None, state, action, params)
        truncated = self.env.is_truncated(state, params)
        flags = jnp.stack([jnp.asarray(reward, jnp.float32), terminated.astype(jnp.float32),
                           truncated.astype(jnp.float32)])
        return jnp.concatenate([obs, flags]), state, terminated | truncated

    def _step(self, episodes, last_out, actions, params_words):
        """``last_out`` (the previous step's ``out``, copied to the host and read by nobody now) is donated so
        that XLA writes this step's ``out`` over it: writing into a fresh buffer of that size (new pages) cost
        more than the observations themselves (DeepRM's image at M = 50, N = 64, 5.3 MB of floats: the step
        took 2.4-4.7 ms with a fresh buffer, 0.9 ms over the last one; load 4-5 on 2 cores)."""
        del last_out
        params = self._params(params_words)
        # the barriers keep the unpacking and packing out of the env's own fusions (as PackedStep's do)
        state, key = self._unpack(episodes, barrier=True)
        out, state, done = jax.vmap(self._step_one, in_axes=(0, 0, None))(state, actions, params)
        leaves = jax.tree.leaves((state, key))
        out, done, small = jax.lax.optimization_barrier((out, done, [leaves[i] for i in self.small]))
        for i, leaf in zip(self.small, small):
            leaves[i] = leaf
        state, key = self._reset_finished(done, *jax.tree.unflatten(self.treedef, leaves), params)
        return self._pack((state, key)), out

    def _reset_finished(self, done, state, key, params):
        """The finished copies' next episodes (none on most steps), written over their rows:
        ``num_envs / RESET_SHARE`` copies per pass while several wait (copies sharing an instance end
        together), one per pass when one does (a lone end costs one reset)."""
        share = -(-self.num_envs // RESET_SHARE)
        key_impl = jax.random.key_impl(key)

        def reset_rows(carry, count: int):
            pending, state, key_data = carry
            rows = jnp.nonzero(pending, size=count, fill_value=self.num_envs)[0]
            keys = jax.random.wrap_key_data(key_data[jnp.minimum(rows, self.num_envs - 1)], impl=key_impl)
            _, new_state, new_key = jax.vmap(self._reset_one, in_axes=(0, None))(keys, params)
            # rows past the finished copies are num_envs: out of bounds, dropped
            write = lambda old, new: old.at[rows].set(new, mode="drop")
            return (pending.at[rows].set(False, mode="drop"), jax.tree.map(write, state, new_state),
                    write(key_data, jax.random.key_data(new_key)))

        def reset_some(carry):
            if share == 1:
                return reset_rows(carry, 1)
            return jax.lax.cond(jnp.sum(carry[0]) > 1, lambda: reset_rows(carry, share),
                                lambda: reset_rows(carry, 1))

        _, state, key_data = jax.lax.while_loop(lambda carry: jnp.any(carry[0]), reset_some,
                                                (done, state, jax.random.key_data(key)))
        return state, jax.random.wrap_key_data(key_data, impl=key_impl)

    def _observe(self, episodes, rows, params_words):
        """float32[len(rows), observation]: the observations of the copies ``rows`` (clipped to the copies)."""
        params = self._params(params_words)
        state, _ = self._unpack(episodes, barrier=True)
        picked = jax.tree.map(lambda leaf: leaf[jnp.minimum(rows, self.num_envs - 1)], state)
        return jax.vmap(self.env.get_obs, in_axes=(0, None))(jax.lax.optimization_barrier(picked), params)

    def observe_sizes(self) -> tuple[int, ...]:
        """The row counts :meth:`observe_rows` pads to (1, a share, all): at most three programs."""
        return tuple(sorted({1, -(-self.num_envs // RESET_SHARE), self.num_envs}))

    def observe_rows(self, episodes, rows: np.ndarray) -> np.ndarray:
        """:meth:`observe` of ``rows`` (host ints), padded to the next of :meth:`observe_sizes`."""
        size = next(s for s in self.observe_sizes() if s >= len(rows))
        padded = np.full(size, self.num_envs - 1, np.int32)
        padded[:len(rows)] = rows
        return np.asarray(self.observe(episodes, padded, self.params_words))[:len(rows)]


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
        self._episodes = None  # the copies' episodes on the device (None until reset)
        self._out = None  # the last step's observations and flags on the device (the next step writes over it)
        self._observe_compiled = False
        self._mask = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._started = np.zeros(self.num_envs)

    # ------------------------------------------------------------------ Gymnasium's API
    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        if seed is None and self._episodes is None:
            seed = self._seed
        if seed is None and self._episodes is None:  # unseeded: from gymnasium's own random generator
            seed = int(self.np_random.integers(_MAX_SEED - self.num_envs))
        if seed is not None:
            seeds = self._seeds(seed)
            self._np_random, self._np_random_seed = seeding.np_random(int(seeds[0]))
            keys = self._kernels.keys(jnp.asarray(seeds, jnp.int32))
        else:
            keys = self._kernels.carried(self._episodes)
        self._episodes, self._out = self._kernels.reset(keys, self._kernels.params_words)
        if not self._observe_compiled:  # now, not in the middle of an episode's steps
            for size in self._kernels.observe_sizes():
                self._kernels.observe_rows(self._episodes, np.zeros(size, np.int32))
            self._observe_compiled = True
        obs = np.array(self._out)[:, :self._num_obs]
        self._returns[:], self._lengths[:], self._started[:] = 0.0, 0, time.perf_counter()
        return obs, self._info(obs)

    def step(self, actions):
        if self._episodes is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers (one per copy), got {actions.dtype} "
                             f"of shape {actions.shape}")
        self._episodes, self._out = self._kernels.step(self._episodes, self._out, actions.astype(np.int32),
                                                       self._kernels.params_words)
        out = np.array(self._out)  # one copy to the host, writable
        obs = out[:, :self._num_obs]
        rewards = out[:, -3].astype(np.float64)
        terminations, truncations = out[:, -2] > 0.5, out[:, -1] > 0.5
        self._returns += rewards
        self._lengths += 1
        done = terminations | truncations
        if not done.any():
            return obs, rewards, terminations, truncations, self._info(obs)
        rows = np.flatnonzero(done)
        final_obs, final_mask = obs[rows], obs[:, self._mask_from:] > 0.5  # the last ones (rows: a copy)
        obs[rows] = self._kernels.observe_rows(self._episodes, rows)  # the restarted copies' first ones
        info = self._info(obs)
        self._add_finished(info, done, rows, final_obs, final_mask)
        return obs, rewards, terminations, truncations, info

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One uint8 ``[H, W, 3]`` frame per copy (:func:`jaxsched.render.render_state`) with
        ``render_mode="rgb_array"``; None without one."""
        if self.render_mode is None:
            return None
        if self._episodes is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        states = jax.device_get(self._kernels.states(self._episodes))
        return tuple(render_state(self.env, jax.tree.map(lambda x, i=i: x[i], states), self.params)
                     for i in range(self.num_envs))

    def close_extras(self, **kwargs) -> None:
        self._episodes = self._out = None  # the device buffers go

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

    def _add_finished(self, info: dict, done: np.ndarray, rows: np.ndarray, final_obs: np.ndarray,
                      final_mask: np.ndarray) -> None:
        """What ``SyncVectorEnv`` (same-step auto-reset) and ``RecordEpisodeStatistics`` add when copies end:
        ``final_obs`` are the last observations of the copies ``rows``, ``final_mask`` every copy's mask
        before the restarts."""
        info["final_obs"] = np.full(self.num_envs, None, dtype=object)
        for i, last in zip(rows, final_obs):
            info["final_obs"][i] = last
        info["_final_obs"] = done.copy()
        info["final_info"] = {"action_mask": final_mask, "_action_mask": done.copy()}
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
