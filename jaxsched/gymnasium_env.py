"""``jaxsched.make_gymnasium(name)``: a registered env as a ``gymnasium.Env``, for libraries that step
environments from Python (Stable-Baselines3, RLlib, CleanRL's non-JAX agents).

It plays :func:`jaxsched.make_gymnax`'s env (flat float32 observation: features then the action mask;
``Discrete`` actions; masked actions as that module documents per family) one Python call at a time:

- ``reset(seed=s)`` starts an episode on a fresh instance (jobset, trace window, job window): the
  gymnax env's ``reset(split(jax.random.key(s))[1], params)``; ``reset()`` without a seed draws the
  next one from the key it carries. Gymnasium's rules apply: after ``terminated`` or ``truncated``,
  call ``reset`` (no auto-reset here, unlike gymnax's ``step``).
- ``step`` is one jitted call: the env state stays on the device (donated, so updated in place) and
  the call returns one float32 array, the next observation followed by reward, terminated and
  truncated, which is moved to the host once. ``info`` holds only ``action_mask`` (bool), also
  available as :meth:`JaxschedGymnasiumEnv.action_masks` (the name sb3-contrib's MaskablePPO calls).
"""

from __future__ import annotations

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.gymnax_env import FlatObservationEnv, make_gymnax


class JaxschedGymnasiumEnv(gymnasium.Env):
    """A :class:`jaxsched.gymnax_env.FlatObservationEnv` stepped from Python (module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, env: FlatObservationEnv, params=None, seed: int | None = None):
        super().__init__()
        self.env = env
        self.params = env.default_params if params is None else params
        low, high = env.observation_bounds(self.params)
        self.observation_space = gymnasium.spaces.Box(low, high, low.shape, np.float32)
        self.action_space = gymnasium.spaces.Discrete(env.num_actions)
        self._num_obs = low.shape[0]
        self._key = None if seed is None else jax.random.key(seed)
        self._state = None
        self._mask = None
        self._step = jax.jit(self._packed_step, donate_argnums=0)

    def _packed_step(self, state, action, params):
        """``(state, [obs..., reward, terminated, truncated])``: what one Python step needs, in one array."""
        state, reward, terminated, _ = self.env.inner.transition(state, action, params)
        obs = self.env.get_obs(state, params)
        flags = jnp.stack([reward.astype(jnp.float32), terminated.astype(jnp.float32),
                           self.env.is_truncated(state, params).astype(jnp.float32)])
        return state, jnp.concatenate([obs, flags])

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._key = jax.random.key(seed)
        elif self._key is None:  # unseeded: from gymnasium's own random generator
            self._key = jax.random.key(int(self.np_random.integers(2**31 - 1)))
        self._key, key = jax.random.split(self._key)
        obs, self._state = self.env.reset(key, self.params)  # gymnax's jitted reset, shared with its users
        obs = np.array(obs)
        return obs, self._info(obs)

    def step(self, action):
        if self._state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        self._state, packed = self._step(self._state, np.int32(action), self.params)
        packed = np.array(packed)
        obs = packed[:self._num_obs]
        return obs, float(packed[-3]), bool(packed[-2]), bool(packed[-1]), self._info(obs)

    def _info(self, obs: np.ndarray) -> dict:
        self._mask = obs[self._num_obs - self.env.num_actions:] > 0.5
        return {"action_mask": self._mask}

    def action_masks(self) -> np.ndarray:
        """bool[num_actions]: the actions the env allows now (masked ones behave as documented in
        :mod:`jaxsched.gymnax_env`)."""
        return self._mask


def make_gymnasium(name: str, seed: int | None = None, *, fresh_instances: bool = True,
                   **overrides) -> JaxschedGymnasiumEnv:
    """The registered env ``name`` (with ``overrides``, as :func:`jaxsched.make`) as a ``gymnasium.Env``."""
    env, params = make_gymnax(name, fresh_instances=fresh_instances, **overrides)
    return JaxschedGymnasiumEnv(env, params, seed)
