"""The packed single-environment step (``jaxsched.core.packed_step``): its word layout round-trips every
leaf bit for bit, and its trajectories (observations, rewards, terminated, truncated) equal the unpacked
env's over episodes with resets, on one small variant per family, with and without auto-reset."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxsched
from jaxsched.core.packed_step import PackedStep, WordLayout, signature

# one small variant per family (the compact bracis MDP shares DeepRM's dynamics with its own observation)
SMALL = {
    "deeprm": dict(num_slots=3, backlog_size=6, horizon=10, max_job_len=6, capacity=5, max_job_size=5, simu_len=20),
    "bracis-1": dict(num_slots=3, backlog_size=6, horizon=10, max_job_len=6, capacity=5, max_job_size=5, simu_len=20),
    "vm-synthetic": dict(window=60, initial_pms=1, pms_per_expansion=1),
    "grid": dict(num_jobs=30, exclude=0, num_cores=8, num_candidates=4, scan_width=8),
}
STEPS = 120  # enough for several episodes of each small variant


def test_word_layout_round_trips_every_leaf_bit_for_bit():
    tree = {
        "flags": jnp.array([True, False, True, True, False]),  # 5 bools: not a whole number of words
        "image": jnp.arange(7, dtype=jnp.uint8).reshape(7, 1) * 37,
        "short": jnp.array([-3, 32767, -32768], jnp.int16),
        "signed": jnp.array([-1, 2**31 - 1, -(2**31)], jnp.int32),
        "real": jnp.array([np.nan, -0.0, np.inf, 1e-45, -3.25], jnp.float32),
        "half": jnp.array([1.5, -2.0, 65504.0], jnp.float16),
        "key": jax.random.split(jax.random.key(3), 2),
        "count": 7, "rate": 0.25, "weak": jnp.asarray(0.5),
    }
    layout = WordLayout(tree)
    words = jax.jit(layout.pack)(tree)
    assert words.dtype == jnp.uint32 and words.shape == (layout.size,)
    assert layout.size == 2 + 2 + 2 + 3 + 5 + 2 + 4  # bools and bytes 4 to a word, halves 2, keys 2 words
    back = jax.jit(layout.unpack)(words)
    assert back["count"] == 7 and back["rate"] == 0.25 and back["weak"] == 0.5  # static, not packed
    for name in ("flags", "image", "short", "signed", "real", "half"):
        assert back[name].dtype == tree[name].dtype and back[name].shape == tree[name].shape
        np.testing.assert_array_equal(np.asarray(back[name]).view(np.uint8), np.asarray(tree[name]).view(np.uint8))
    np.testing.assert_array_equal(jax.random.key_data(back["key"]), jax.random.key_data(tree["key"]))
    assert signature(tree) == signature(back) and signature(tree) != signature({**tree, "count": 8})


def test_word_layout_refuses_64_bit_leaves():
    with pytest.raises(ValueError, match="8-, 16- and 32-bit"):
        WordLayout({"wide": jax.ShapeDtypeStruct((2,), np.dtype("complex64"))})


_ENVS: dict = {}


def env_and_steppers(name: str):
    """``(env, params, unpacked, packed, packed_auto)``, compiled once per module."""
    if name not in _ENVS:
        env, params = jaxsched.make_gymnax(name, **SMALL[name])

        @jax.jit
        def unpacked(state, action, params):  # params an argument, as gymnax's jitted step takes them
            obs, state, reward, terminated, _ = env.step_env(None, state, action, params)
            return obs, state, reward, terminated, env.is_truncated(state, params)

        _ENVS[name] = (env, params, unpacked, PackedStep(env, params), PackedStep(env, params, auto_reset=True))
    return _ENVS[name]


def split_out(out, num_obs: int):
    out = np.asarray(out)
    return out[:num_obs], out[num_obs], bool(out[num_obs + 1]), bool(out[num_obs + 2])


def random_actions(name: str, seed: int) -> np.ndarray:
    """Mostly uniform over all actions; VM ends an episode at a masked action, so its episodes are short."""
    env = env_and_steppers(name)[0]
    return np.random.default_rng(seed).integers(0, env.num_actions, STEPS).astype(np.int32)


@pytest.mark.parametrize("name", SMALL)
def test_packed_step_plays_the_unpacked_envs_episodes_bit_for_bit(name):
    env, params, unpacked, packed_step, _ = env_and_steppers(name)
    key = jax.random.key(11)
    key, reset_key = jax.random.split(key)
    packed, out = packed_step.reset(reset_key, params)
    obs, state = env.reset(reset_key, params)
    np.testing.assert_array_equal(split_out(out, packed_step.num_obs)[0], np.asarray(obs))
    episodes, rewards = 1, []
    for action in random_actions(name, 0):
        packed, out = packed_step.step(packed, action)
        got_obs, got_reward, got_terminated, got_truncated = split_out(out, packed_step.num_obs)
        obs, state, reward, terminated, truncated = unpacked(state, action, params)
        np.testing.assert_array_equal(got_obs, np.asarray(obs))
        # the reward is a float sum that XLA may order differently in the two compiled programs (an AMD EPYC
        # host gave -4.3333335 vs -4.333333 at the same commit where another passed exactly): 1 ulp allowed
        np.testing.assert_array_max_ulp(np.float32(got_reward), np.float32(reward), maxulp=1)
        assert (got_terminated, got_truncated) == (bool(terminated), bool(truncated))
        rewards.append(got_reward)
        if got_terminated or got_truncated:  # both reset on the same key, as a Gymnasium user would
            key, reset_key = jax.random.split(key)
            packed, out = packed_step.reset(reset_key, params)
            obs, state = env.reset(reset_key, params)
            np.testing.assert_array_equal(split_out(out, packed_step.num_obs)[0], np.asarray(obs))
            episodes += 1
    assert episodes >= 2 and len(set(rewards)) > 1  # the comparison crossed resets and saw distinct rewards
    assert jax.tree.all(jax.tree.map(lambda a, b: bool(jnp.array_equal(a, b)), packed_step.state(packed), state))


@pytest.mark.parametrize("name", SMALL)
def test_packed_auto_reset_follows_gymnax_step(name):
    """With ``auto_reset`` the packed step is gymnax's ``env.step`` on the key it carries: a fresh episode
    (a new instance) after every end, the same observations, rewards and flags."""
    env, params, _, _, packed_step = env_and_steppers(name)
    packed, out = packed_step.reset(jax.random.key(5), params)
    reset_key, key = jax.random.split(jax.random.key(5))
    obs, state = env.reset(reset_key, params)
    np.testing.assert_array_equal(split_out(out, packed_step.num_obs)[0], np.asarray(obs))
    ends = 0
    for action in random_actions(name, 1):
        packed, out = packed_step.step(packed, action)
        key, step_key = jax.random.split(key)
        obs, state, reward, terminated, truncated, _ = env.step(step_key, state, jnp.int32(action), params)
        got_obs, got_reward, got_terminated, got_truncated = split_out(out, packed_step.num_obs)
        np.testing.assert_array_equal(got_obs, np.asarray(obs))
        # the reward is a float sum that XLA may order differently in the two compiled programs (an AMD EPYC
        # host gave -4.3333335 vs -4.333333 at the same commit where another passed exactly): 1 ulp allowed
        np.testing.assert_array_max_ulp(np.float32(got_reward), np.float32(reward), maxulp=1)
        assert (got_terminated, got_truncated) == (bool(terminated), bool(truncated))
        ends += got_terminated or got_truncated
    assert ends >= 1


def test_packed_step_donates_its_buffer_and_returns_one_observation_array():
    env, params, _, packed_step, _ = env_and_steppers("deeprm")
    packed, _ = packed_step.reset(jax.random.key(0), params)
    assert packed.dtype == jnp.uint32 and packed.ndim == 1
    new, out = packed_step.step(packed, np.int32(env.num_actions - 1))
    assert packed.is_deleted()  # updated in place: the caller holds only the new buffer
    assert out.dtype == jnp.float32 and out.shape == (env.num_features + env.num_actions + 3,)
