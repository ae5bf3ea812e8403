"""Single-machine ordering: K jobs wait; each decision runs one to completion; the return is minus the
sum of completion times (shortest-first is optimal)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import environment, spaces



@struct.dataclass
class EnvParams(environment.EnvParams):
    durations: jax.Array | None = None  # int32[K] the instance
    max_steps_in_episode: int = 100


@struct.dataclass
class EnvState(environment.EnvState):
    time: jax.Array
    clock: jax.Array
    done: jax.Array  # bool[K]
    completion: jax.Array  # int32[K], 0 until done
    durations: jax.Array


@struct.dataclass
class Observation:
    features: jax.Array  # float32[K] remaining durations (0 when done) / 10
    action_mask: jax.Array  # bool[K]
    durations: jax.Array  # int32[K] (heuristics read it)


class Toy(environment.Environment[EnvState, EnvParams]):
    instance_field = "durations"

    def __init__(self, num_jobs: int = 4):
        super().__init__()
        self.num_jobs = num_jobs

    @property
    def num_actions(self) -> int:
        return self.num_jobs

    def feature_shape(self):
        return (self.num_jobs,)

    @property
    def default_params(self) -> EnvParams:
        return EnvParams(durations=jnp.arange(1, self.num_jobs + 1, dtype=jnp.int32))


    def initial_state(self, params: EnvParams) -> EnvState:
        k = self.num_jobs
        return EnvState(time=jnp.int32(0), clock=jnp.int32(0), done=jnp.zeros(k, bool),
                        completion=jnp.zeros(k, jnp.int32), durations=params.durations)

    def reset_env(self, key, params):
        state = self.initial_state(params)
        return self.get_obs(state, params), state

    def transition(self, state: EnvState, action, params: EnvParams):
        action = jnp.asarray(action, jnp.int32)
        valid = ~state.done[action]
        clock = state.clock + jnp.where(valid, state.durations[action], 0)
        done = state.done.at[action].set(True)
        state = state.replace(time=state.time + 1, clock=clock, done=done,
                              completion=jnp.where(valid, state.completion.at[action].set(clock), state.completion))
        reward = -jnp.where(valid, clock, 0).astype(jnp.float32)
        terminated = jnp.all(state.done)
        return state, reward, terminated, {"valid": valid}

    def step_env(self, key, state, action, params):
        state, reward, terminated, info = self.transition(state, action, params)
        return self.get_obs(state, params), state, reward, terminated, info

    def is_truncated(self, state, params):
        return state.time >= params.max_steps_in_episode

    def get_obs(self, state, params=None, key=None) -> Observation:
        remaining = jnp.where(state.done, 0, state.durations)
        return Observation(features=remaining.astype(jnp.float32) / 10.0, action_mask=~state.done,
                           durations=state.durations)

    def action_space(self, params=None):
        return spaces.Discrete(self.num_jobs)
