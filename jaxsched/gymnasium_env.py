"""``jaxsched.make_gymnasium(name)``: a registered env as a ``gymnasium.Env``, for libraries that step
environments from Python (Stable-Baselines3, RLlib, CleanRL's non-JAX agents).

It plays :func:`jaxsched.make_gymnax`'s env (flat float32 observation: features then the action mask;
``Discrete`` actions; masked actions as that module documents per family) one Python call at a time:

- ``reset(seed=s)`` starts an episode on a fresh instance (jobset, trace window, job window): the
  gymnax env's ``reset(split(jax.random.key(s))[1], params)``; ``reset()`` without a seed draws the
  next one from the key it carries. Gymnasium's rules apply: after ``terminated`` or ``truncated``,
  call ``reset`` (no auto-reset here, unlike gymnax's ``step``).
- ``step`` is one jitted call of :class:`jaxsched.core.packed_step.PackedStep`: the episode (state and
  params) lives in one device buffer, donated so that it is updated in place, and the call returns one
  float32 array, the next observation followed by reward, terminated and truncated, copied to the host
  once. ``info`` holds only ``action_mask`` (bool), also available as
  :meth:`JaxschedGymnasiumEnv.action_masks` (the name sb3-contrib's MaskablePPO calls).
- ``params`` (the attribute) is read at ``reset``: assign new params (another instance) between episodes.
- ``render_mode="rgb_array"``: ``render()`` draws the current state (uint8 ``[H, W, 3]``,
  :func:`jaxsched.render.render_state`), unpacked from the episode buffer only when asked.

``gymnasium.make("jaxsched/<id>", **overrides)`` calls :func:`make_gymnasium` (``jaxsched.registry``
registers every id).
"""

from __future__ import annotations

import gymnasium
import jax
import numpy as np

from jaxsched.core.packed_step import PackedStep, signature
from jaxsched.gymnax_env import FlatObservationEnv, make_gymnax
from jaxsched.render import render_state


def observation_box(env: FlatObservationEnv, params) -> gymnasium.spaces.Box:
    """The flat observation's Box (float32, the family's declared bounds; the mask within [0, 1])."""
    low, high = env.observation_bounds(params)
    return gymnasium.spaces.Box(low, high, low.shape, np.float32)


def checked_render_mode(render_mode: str | None, metadata: dict) -> str | None:
    """``render_mode`` if the env declares it (or None); ``ValueError`` naming the modes otherwise."""
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise ValueError(f"render_mode {render_mode!r} is not supported; use one of {metadata['render_modes']} or None")
    return render_mode


class JaxschedGymnasiumEnv(gymnasium.Env):
    """A :class:`jaxsched.gymnax_env.FlatObservationEnv` stepped from Python (module docstring)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, env: FlatObservationEnv, params=None, seed: int | None = None,
                 render_mode: str | None = None):
        super().__init__()
        self.render_mode = checked_render_mode(render_mode, self.metadata)
        self.env = env
        self.params = env.default_params if params is None else params
        self.observation_space = observation_box(env, self.params)
        self.action_space = gymnasium.spaces.Discrete(env.num_actions)
        self._num_obs = self.observation_space.shape[0]
        self._mask_from = self._num_obs - env.num_actions
        self._key = None if seed is None else jax.random.key(seed)
        self._packed_steps: dict = {}  # per params signature: reset with other caps compiles another
        self._stepper = None
        self._packed = None  # the episode in one device buffer (None until reset)
        self._mask = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._key = jax.random.key(seed)
        elif self._key is None:  # unseeded: from gymnasium's own random generator
            self._key = jax.random.key(int(self.np_random.integers(2**31 - 1)))
        self._key, key = jax.random.split(self._key)
        layout = signature(self.params)
        if layout not in self._packed_steps:
            self._packed_steps[layout] = PackedStep(self.env, self.params)
        self._stepper = self._packed_steps[layout]
        self._packed, out = self._stepper.reset(key, self.params)
        obs = np.array(out)[:self._num_obs]
        return obs, self._info(obs)

    def step(self, action):
        if self._packed is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        self._packed, out = self._stepper.step(self._packed, np.int32(action))
        out = np.array(out)  # one copy to the host, writable
        obs = out[:self._num_obs]
        return obs, float(out[-3]), bool(out[-2]), bool(out[-1]), self._info(obs)

    def _info(self, obs: np.ndarray) -> dict:
        self._mask = obs[self._mask_from:] > 0.5
        return {"action_mask": self._mask}

    def render(self) -> np.ndarray | None:
        """uint8[H, W, 3], the current state drawn, with ``render_mode="rgb_array"``; None without one."""
        if self.render_mode is None:
            return None
        if self._packed is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        return render_state(self.env, self._stepper.state(self._packed), self.params)

    def action_masks(self) -> np.ndarray:
        """bool[num_actions]: the actions the env allows now (masked ones behave as documented in
        :mod:`jaxsched.gymnax_env`)."""
        return self._mask


def make_gymnasium(name: str, seed: int | None = None, *, fresh_instances: bool = True,
                   render_mode: str | None = None, **overrides) -> JaxschedGymnasiumEnv:
    """The registered env ``name`` (a versioned id or alias, with ``overrides`` as :func:`jaxsched.make`) as
    a ``gymnasium.Env``; also what ``gymnasium.make("jaxsched/<id>", **overrides)`` calls."""
    env, params = make_gymnax(name, fresh_instances=fresh_instances, **overrides)
    return JaxschedGymnasiumEnv(env, params, seed, render_mode)
