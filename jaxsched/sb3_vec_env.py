"""Stable-Baselines3's ``VecEnv`` over :func:`jaxsched.make_vec`: N copies in one jitted call for SB3's
learners (and sb3-contrib's MaskablePPO, through ``env_method("action_masks")``).

Needs ``stable-baselines3`` (an optional extra, never imported by ``import jaxsched``)::

    >>> from jaxsched.sb3_vec_env import make_sb3_vec
    >>> env = make_sb3_vec("deeprm-v1", num_envs=16, seed=0)
    >>> PPO("MlpPolicy", env).learn(100_000)

SB3's conventions over Gymnasium's vector API: ``reset()`` returns only observations (seeded by the
last ``seed(s)``: copy i gets ``s + i``); ``step_wait`` returns ``dones = terminated | truncated``, float32
rewards and one info dict per copy, where a finished copy's holds ``terminal_observation`` (the
observation it ended on; the returned one is the next episode's first, SB3's own auto-reset),
``TimeLimit.truncated`` and ``episode`` (``r``, ``l``, ``t``, as SB3's ``Monitor`` writes it).
"""

from __future__ import annotations

import numpy as np

from jaxsched.core.extras import required
from jaxsched.vector_env import JaxschedVectorEnv, make_vec

VecEnv = required("stable_baselines3.common.vec_env", "pip install 'stable-baselines3>=2.3,<3'",
                  "jaxsched.sb3_vec_env").VecEnv


class JaxschedSB3VecEnv(VecEnv):
    """A :class:`jaxsched.vector_env.JaxschedVectorEnv` behind SB3's ``VecEnv`` (module docstring)."""

    def __init__(self, vector_env: JaxschedVectorEnv):
        self.vector_env = vector_env
        self._seed: int | None = None
        self._actions = None
        super().__init__(vector_env.num_envs, vector_env.single_observation_space, vector_env.single_action_space)

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seeds the next ``reset()`` (copy i: ``seed + i``)."""
        self._seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        obs, _ = self.vector_env.reset(seed=self._seed)
        self._seed = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, terminations, truncations, info = self.vector_env.step(self._actions)
        dones = terminations | truncations
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {"terminal_observation": info["final_obs"][i],
                        "TimeLimit.truncated": bool(truncations[i] and not terminations[i]),
                        "episode": {key: info["episode"][key][i].item() for key in ("r", "l", "t")}}
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.vector_env.close()

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, num_actions] (:meth:`JaxschedVectorEnv.action_masks`)."""
        return self.vector_env.action_masks()

    # ------------------------------------------------------------------ SB3's per-copy accessors
    def get_attr(self, attr_name: str, indices=None) -> list:
        """The copies share one configuration: the vector env's attribute, once per index."""
        return [getattr(self.vector_env, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"cannot set {attr_name!r} per copy: the copies of a jaxsched vector env share "
                             "one configuration (build another with make_sb3_vec)")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``action_masks`` per copy (what MaskablePPO calls); no other per-copy method exists."""
        if method_name != "action_masks":
            raise AttributeError(f"jaxsched's SB3 VecEnv has no per-copy method {method_name!r} (only action_masks)")
        masks = self.vector_env.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))


def make_sb3_vec(name: str, num_envs: int = 1, seed: int | None = None, **overrides) -> JaxschedSB3VecEnv:
    """:func:`jaxsched.make_vec` (a registered id or alias, ``overrides``) as an SB3 ``VecEnv``."""
    env = JaxschedSB3VecEnv(make_vec(name, num_envs, **overrides))
    env.seed(seed)
    return env
