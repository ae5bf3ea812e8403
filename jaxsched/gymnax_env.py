"""``jaxsched.make_gymnax(name)``: any registered env behind gymnax's plain contract, a flat Box observation.

``jaxsched.make`` returns gymnax ``Environment`` subclasses whose observations are structured (an
``Observation`` with ``features``, ``action_mask`` and the fields heuristics read) under a ``Dict``
space. Code written for gymnax's classic-control envs -- ``FlattenObservationWrapper``, PureJaxRL's
``env.observation_space(params).shape`` -- needs one array. :class:`FlatObservationEnv` wraps a
variant's env (composition: the dynamics are the family's own ``initial_state`` / ``transition`` /
``get_obs``) and changes only what a gymnax user sees:

- **observation**: float32 ``[F + A]``, the env's ``features`` flattened (row-major) followed by the
  ``action_mask`` as 0/1, so an agent that ignores the mask still sees it; ``observation_space`` is a
  ``spaces.Box`` of that shape (features within the family's declared bounds, the mask within [0, 1]);
- **action**: ``spaces.Discrete(num_actions)``; the state is the family's own state;
- **step**: gymnax's ``Environment.step`` unchanged (auto-reset when terminated or truncated,
  ``info["final_observation"]``);
- **reset draws a fresh instance**: the default params hold one instance (one jobset, trace window,
  job window); ``reset(key, params)`` replaces it by ``variant.sample_params(key, 1)``'s (the rest of
  ``params``, the caps, is kept), so that an agent trained through auto-reset meets a new instance
  every episode instead of replaying one forever. ``fresh_instances=False`` keeps ``params``' instance
  (then ``vmap`` over batched params as ``jaxsched.core.rollout`` does). Both are jittable.

**Masked (invalid) actions** are passed to the family's env, whose own rule applies (see
:func:`void_action`):

- DeepRM family (``deeprm*``, ``bracis-*``, any observation): action M is the void action "move on"
  (advance the clock one step); a masked slot (empty, or its job does not fit in the horizon) and any
  action outside ``[0, M]`` are exactly the void action.
- VM placement (``vm-*``): there is **no no-op**; an infeasible placement places nothing, pays 0 and
  **ends the episode** (so an agent that ignores the mask loses the rest of the episode's reward).
- Grid (``grid``, ``grid-elastic``): there is **no no-op** (a free core never idles while a job
  waits); a masked action dispatches the **oldest candidate** job and keeps the pool size.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from gymnax.environments import environment, spaces

from jaxsched.core.observe_once import ObserveOnceStep
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.registry import build


def void_action(env) -> int | None:
    """The family's no-op ("move on") action, which every masked action amounts to; ``None`` where the
    family has none (VM: a masked action ends the episode; grid: it dispatches the oldest candidate)."""
    if isinstance(env, DeepRM):
        return env.num_slots
    return getattr(env, "void_action", None)


def flatten_observation(obs) -> jax.Array:
    """float32[F + A]: the features flattened, then the action mask as 0/1."""
    return jnp.concatenate([jnp.ravel(obs.features).astype(jnp.float32), obs.action_mask.astype(jnp.float32)])


class FlatObservationEnv(ObserveOnceStep, environment.Environment):
    """A registered variant's env with a flat Box observation (module docstring); the state is the
    family's state, so ``jaxsched.core.rollout``'s ``instance_field`` sharing still applies. ``step`` is
    :class:`ObserveOnceStep`'s: one observation per step, only finished copies restarted under vmap."""

    def __init__(self, variant, fresh_instances: bool = True):
        super().__init__()
        self.variant = variant
        self.inner = variant.env
        self.fresh_instances = bool(fresh_instances)
        self.instance_field = getattr(self.inner, "instance_field", None)
        if self.fresh_instances and self.instance_field is None:
            raise ValueError(f"{variant.name}: the env names no instance_field, so reset cannot swap in a fresh "
                             "instance; use fresh_instances=False")
        self.num_features = math.prod(self.inner.feature_shape())

    def __deepcopy__(self, memo):
        """The env is immutable configuration: a copy (gymnax's ``GymnaxToGymWrapper`` makes one) is the
        env itself, sharing its compiled ``step`` / ``reset`` rather than compiling them again."""
        return self

    # ------------------------------------------------------------------ configuration
    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def num_actions(self) -> int:
        return self.inner.num_actions

    @property
    def void_action(self) -> int | None:
        return void_action(self.inner)

    @property
    def default_params(self):
        """The variant's params (its caps, one instance), not the bare env's."""
        return self.variant.params

    # ------------------------------------------------------------------ dynamics
    def episode_params(self, key: jax.Array, params):
        """``params`` with the instance a reset with ``key`` plays (module docstring). Every family names
        its instance alike in params and state (``instance_field``: jobset, requests, jobs)."""
        if not self.fresh_instances:
            return params
        drawn = self.variant.sample_params(key, 1)
        instance = jax.tree.map(lambda x: x[0], getattr(drawn, self.instance_field))
        return params.replace(**{self.instance_field: instance})

    def reset_state(self, key: jax.Array, params):
        """The state a reset with ``key`` starts from: the family's initial state on the episode's instance."""
        return self.inner.initial_state(self.episode_params(key, params))

    def transition(self, state, action, params):
        return self.inner.transition(state, action, params)

    def is_truncated(self, state, params) -> jax.Array:
        return self.inner.is_truncated(state, params)

    def get_obs(self, state, params=None, key=None) -> jax.Array:
        return flatten_observation(self.inner.get_obs(state, params if params is not None else self.default_params))

    # ------------------------------------------------------------------ spaces
    def action_space(self, params=None) -> spaces.Discrete:
        return spaces.Discrete(self.num_actions)

    def observation_space(self, params=None) -> spaces.Box:
        low, high = self.observation_bounds(params)
        return spaces.Box(low, high, low.shape, jnp.float32)

    def observation_bounds(self, params=None) -> tuple[np.ndarray, np.ndarray]:
        """float32 ``(low, high)`` per entry: the family's declared feature bounds (unbounded where it
        declares none), then [0, 1] for the mask."""
        try:
            features = self.inner.observation_space(params if params is not None else self.default_params)
            feature_low, feature_high = features.spaces["features"].low, features.spaces["features"].high
        except (NotImplementedError, AttributeError, KeyError):
            feature_low, feature_high = -np.inf, np.inf
        shape = (self.num_features,)
        low = np.concatenate([np.broadcast_to(np.asarray(feature_low, np.float32), shape),
                              np.zeros(self.num_actions, np.float32)])
        high = np.concatenate([np.broadcast_to(np.asarray(feature_high, np.float32), shape),
                               np.ones(self.num_actions, np.float32)])
        return low, high


def make_gymnax(name: str, *, fresh_instances: bool = True, **overrides):
    """``(env, params)``: the registered env ``name`` (with ``overrides``, as :func:`jaxsched.make`)
    behind gymnax's flat contract (:class:`FlatObservationEnv`)."""
    env = FlatObservationEnv(build(name, **overrides), fresh_instances=fresh_instances)
    return env, env.default_params
