"""The DeepRM image kept in the state and rewritten only where it changed equals the image built
whole from the state (``build_image_full``, the former builder) bit for bit, over random episodes."""

from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxsched.core.rollout import auto_reset_step
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.observations import build_image_full
from jaxsched.envs.deeprm.types import EnvParams, from_arrays

MAX_JOBS, SIMU_LEN, STEPS = 90, 12, 160


def make_env(num_slots: int, **overrides) -> DeepRM:
    """Small grids (T = 8, 6 units) so that 50 slots and a backlog fill within a short episode."""
    config = dict(num_slots=num_slots, horizon=8, capacity=6, max_job_len=6, max_job_size=4, backlog_size=11)
    return DeepRM(**{**config, **overrides})


def random_jobset(seed: int, num_jobs: int, burst: bool):
    """``num_jobs`` jobs over [0, SIMU_LEN); with ``burst`` most of them arrive at t = 3 (many slots
    and backlog cells change in one move-on)."""
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.integers(0, SIMU_LEN, num_jobs))
    if burst:
        arrival = np.sort(np.where(rng.random(num_jobs) < 0.7, 3, arrival))
    return from_arrays(arrival, rng.integers(1, 7, num_jobs), rng.integers(1, 5, (num_jobs, 2)), MAX_JOBS)


@lru_cache(maxsize=None)
def episode_checker(env: DeepRM):
    """Jitted ``(params, key) -> (bool[STEPS + 1] image equal, int32[STEPS] slots changed)`` over
    random masked actions, episodes restarting when done."""
    initial = env.initial_state

    def same_image(state, obs):
        return jnp.array_equal(obs.features, build_image_full(env, state, obs.slot_duration, obs.slot_demand))

    def run(params, key):
        state = initial(params)
        obs = env.get_obs(state, params)

        def one(carry, step_key):
            obs, state = carry
            logits = jnp.where(obs.action_mask, 0.0, -jnp.inf).at[-1].set(-1.0)  # void less often
            action = jax.random.categorical(step_key, logits)
            next_obs, next_state, _, _, _ = auto_reset_step(env, state, action, params, initial(params))
            changed = jnp.sum(next_state.slots != state.slots, dtype=jnp.int32)
            return (next_obs, next_state), (same_image(next_state, next_obs), changed)

        _, (equal, changed) = jax.lax.scan(one, (obs, state), jax.random.split(key, STEPS))
        return jnp.concatenate([same_image(state, obs)[None], equal]), changed

    return jax.jit(run)


@pytest.mark.slow  # four compiles (one per M): ~1-3 min on 2 shared cores
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_slots=st.sampled_from([5, 10, 20, 50]), seed=st.integers(0, 2**31 - 1),
       num_jobs=st.integers(1, MAX_JOBS), burst=st.booleans())
def test_incremental_image_equals_full_build(num_slots, seed, num_jobs, burst):
    check_incremental_image(num_slots, seed, num_jobs, burst)


def check_incremental_image(num_slots, seed, num_jobs, burst):
    env = make_env(num_slots)
    params = EnvParams(jobset=random_jobset(seed, num_jobs, burst), simu_len=SIMU_LEN, max_time=60)
    equal, changed = episode_checker(env)(params, jax.random.PRNGKey(seed))
    bad = np.flatnonzero(~np.asarray(equal))
    assert bad.size == 0, f"image differs from the full build at steps {bad[:10].tolist()} (M={num_slots})"
    assert int(np.max(changed)) >= 1  # the episode did move jobs through the slots


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), num_jobs=st.integers(1, MAX_JOBS), burst=st.booleans())
def test_incremental_image_equals_full_build_at_five_slots(seed, num_jobs, burst):
    """The property above at its smallest M only (one compile): the slow test runs every M."""
    check_incremental_image(5, seed, num_jobs, burst)


def test_incremental_image_many_slot_changes_event_stepping_no_backlog():
    """A burst fills several slots in one transition (the rewrite loop's path), with event stepping
    (many ticks in one transition) and without a backlog (no backlog columns)."""
    env = make_env(5, stepping="event", backlog_size=0)
    params = EnvParams(jobset=random_jobset(7, 40, burst=True), simu_len=SIMU_LEN, max_time=60)
    equal, changed = episode_checker(env)(params, jax.random.PRNGKey(1))
    assert bool(np.all(np.asarray(equal)))
    assert int(np.max(changed)) >= 2


def test_incremental_image_with_capacity_wide_slots():
    """The MDP-design paper's slot blocks (capacity 6 columns, not max_job_size 4): one compile, a few
    random episodes with and without a burst."""
    env = make_env(10, slot_width="capacity")
    assert env.image_width == 2 * (6 + 10 * 6) + 2 + 1  # two resources, 2 backlog columns, 1 clock
    for seed, burst in ((3, False), (4, True), (5, True)):
        params = EnvParams(jobset=random_jobset(seed, 60, burst), simu_len=SIMU_LEN, max_time=60)
        equal, changed = episode_checker(env)(params, jax.random.PRNGKey(seed))
        assert bool(np.all(np.asarray(equal))), f"image differs from the full build (seed {seed})"
        assert int(np.max(changed)) >= 1


def test_image_state_is_a_placeholder_for_other_observations():
    """One cell, not [T, W] (no per-step cost) and not [0, 0] (orbax refuses to save 0-size arrays)."""
    env = make_env(5, observation="compact")
    state = env.initial_state(EnvParams(jobset=random_jobset(3, 10, burst=False), simu_len=SIMU_LEN))
    assert state.image.shape == (1, 1)
