"""``jaxsched.make_vec``: copy i of N after ``reset(seed=s)`` plays exactly the episodes of the single
Gymnasium adapter after ``reset(seed=s + i)`` (observations, rewards, flags bit for bit, same-step
auto-reset included), on one small variant per family; and the vector API around it (spaces, masks,
infos, seeding, errors, ``gymnasium.make_vec``)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import jaxsched
from jaxsched.vector_env import RESET_SHARE, JaxschedVectorEnv

# the smallest settings of each family's VARIANTS entries that still end episodes within STEPS steps
SMALL = {
    "deeprm-v1": dict(num_slots=3, backlog_size=6, horizon=10, max_job_len=6, capacity=5, max_job_size=5,
                      simu_len=20),
    "vm-synthetic-v1": dict(window=200, initial_pms=1, pms_per_expansion=1),
    "grid-v1": dict(num_jobs=40, exclude=0, num_cores=8, num_candidates=4, scan_width=8),
}
NUM_ENVS, SEED, STEPS = 3, 5, 60


def random_actions(vec: JaxschedVectorEnv, rng, t: int) -> np.ndarray:
    """Mostly allowed actions, one in ten drawn from all (a VM episode ends at its first masked one)."""
    return np.array([rng.choice(np.flatnonzero(mask)) if rng.random() < 0.9
                     else rng.integers(vec.single_action_space.n) for mask in vec.action_masks()])


def play(vec: JaxschedVectorEnv, steps: int = STEPS, choose=random_actions) -> dict:
    """``steps`` steps after ``reset(seed=SEED)``, the actions ``choose(vec, rng, t)``, then an unseeded
    ``reset()``; every output recorded."""
    obs, info = vec.reset(seed=SEED)
    rng = np.random.default_rng(0)
    record = {"reset": obs, "steps": []}
    for t in range(steps):
        actions = choose(vec, rng, t)
        obs, rewards, terminations, truncations, info = vec.step(actions)
        record["steps"].append((actions, obs, rewards, terminations, truncations, info))
    record["again"] = vec.reset()[0]
    return record


def check_copies_play_single_episodes(record: dict, single) -> int:
    """Replays each copy's actions through ``single`` (reset(seed=SEED + i), then reset() after each end);
    returns how many episodes ended."""
    ended, copies = 0, len(record["reset"])
    for i in range(copies):
        obs, _ = single.reset(seed=SEED + i)
        np.testing.assert_array_equal(obs, record["reset"][i])
        episode_return, episode_length = 0.0, 0
        for t, (actions, vec_obs, rewards, terminations, truncations, info) in enumerate(record["steps"]):
            obs, reward, terminated, truncated, _ = single.step(actions[i])
            episode_return, episode_length = episode_return + reward, episode_length + 1
            assert (reward, terminated, truncated) == (rewards[i], terminations[i], truncations[i]), (i, t)
            if not (terminated or truncated):
                np.testing.assert_array_equal(obs, vec_obs[i], err_msg=f"copy {i} step {t}")
                assert not info.get("_final_obs", np.zeros(copies, bool))[i]
                continue
            ended += 1
            assert info["_final_obs"][i] and info["_episode"][i] and info["_final_info"][i]
            np.testing.assert_array_equal(obs, info["final_obs"][i], err_msg=f"copy {i} step {t}")
            np.testing.assert_array_equal(info["final_info"]["action_mask"][i], single.action_masks())
            assert (info["episode"]["r"][i], info["episode"]["l"][i]) == (episode_return, episode_length)
            obs, _ = single.reset()  # the vector env's same-step auto-reset
            np.testing.assert_array_equal(obs, vec_obs[i], err_msg=f"copy {i} restarted at step {t}")
            episode_return, episode_length = 0.0, 0
        np.testing.assert_array_equal(single.reset()[0], record["again"][i])  # the key chains still agree
    return ended


_PAIRS: dict = {}


def pair(env_id: str):
    """(make_vec(env_id, NUM_ENVS), make_gymnasium(env_id)) at SMALL settings, one per module."""
    if env_id not in _PAIRS:
        _PAIRS[env_id] = (jaxsched.make_vec(env_id, NUM_ENVS, **SMALL[env_id]),
                          jaxsched.make_gymnasium(env_id, **SMALL[env_id]))
    return _PAIRS[env_id]


@pytest.mark.parametrize("env_id", SMALL)
def test_copy_i_plays_the_single_adapters_episodes_from_seed_plus_i(env_id):
    vec, single = pair(env_id)
    record = play(vec)
    assert check_copies_play_single_episodes(record, single) >= NUM_ENVS  # auto-reset was exercised


@pytest.mark.parametrize("fresh_instances", [False, True])
def test_more_copies_than_a_restart_share_ending_together_or_apart(fresh_instances):
    """More copies than ``RESET_SHARE``, so a step restarts several finished copies a share at a time or a
    lone one alone: on one shared instance every copy takes the same actions and all end on the same
    steps; on fresh instances they end apart. Each copy still plays the single adapter's episodes."""
    env_id, copies = "vm-synthetic-v1", 2 * RESET_SHARE + 1
    vec = jaxsched.make_vec(env_id, copies, fresh_instances=fresh_instances, **SMALL[env_id])
    single = jaxsched.make_gymnasium(env_id, fresh_instances=fresh_instances, **SMALL[env_id])

    def first_fit_then_a_masked_one(vec, rng, t):  # the last PM is out of service: the episode ends
        return vec.action_masks().argmax(1) if t % 7 < 6 else np.full(vec.num_envs, vec.single_action_space.n - 1)

    record = play(vec, 30, first_fit_then_a_masked_one if not fresh_instances else random_actions)
    together = [int(np.sum(terminated | truncated)) for _, _, _, terminated, truncated, _ in record["steps"]]
    if fresh_instances:
        assert 1 in together
    else:
        assert max(together) == copies
    assert check_copies_play_single_episodes(record, single) >= copies


def test_vector_api_spaces_masks_and_infos():
    vec, _ = pair("deeprm-v1")
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    width = vec.single_observation_space.shape[0]
    assert vec.observation_space.shape == (NUM_ENVS, width)
    assert isinstance(vec.action_space, gymnasium.spaces.MultiDiscrete)
    assert list(vec.action_space.nvec) == [vec.single_action_space.n] * NUM_ENVS
    obs, info = vec.reset(seed=0)
    assert type(obs) is np.ndarray and obs.dtype == np.float32 and vec.observation_space.contains(obs)
    masks = vec.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (NUM_ENVS, vec.single_action_space.n) and masks.any(1).all()
    np.testing.assert_array_equal(info["action_mask"], masks)
    obs, rewards, terminations, truncations, info = vec.step(masks.argmax(1))
    assert rewards.dtype == np.float64 and terminations.dtype == truncations.dtype == np.bool_
    assert vec.observation_space.contains(obs) and info["_action_mask"].all()


def test_seeds_per_copy_a_list_of_seeds_and_bad_input():
    vec, _ = pair("deeprm-v1")
    by_int, _ = vec.reset(seed=10)
    by_list, _ = vec.reset(seed=[10, 11, 12])
    np.testing.assert_array_equal(by_int, by_list)
    shuffled, _ = vec.reset(seed=[12, 10, 11])
    np.testing.assert_array_equal(shuffled, by_int[[2, 0, 1]])
    with pytest.raises(ValueError, match="one per copy"):
        vec.reset(seed=[1, 2])
    with pytest.raises(ValueError, match=r"seeds must lie in \[0"):
        vec.reset(seed=-1)
    with pytest.raises(ValueError, match="actions must be 3 integers"):
        vec.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="actions must be 3 integers"):
        vec.step(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        JaxschedVectorEnv(vec.env, vec.params, num_envs=0)
    with pytest.raises(ValueError, match="render_mode 'human' is not supported"):
        JaxschedVectorEnv(vec.env, vec.params, num_envs=NUM_ENVS, render_mode="human")
    assert vec.render() is None  # no render mode asked
    fresh = JaxschedVectorEnv(vec.env, vec.params, num_envs=NUM_ENVS, seed=10, render_mode="rgb_array")
    with pytest.raises(gymnasium.error.ResetNeeded):
        fresh.step(np.zeros(NUM_ENVS, np.int64))
    np.testing.assert_array_equal(fresh.reset()[0], by_int)  # the seed given at construction
    frames = fresh.render()
    assert len(frames) == NUM_ENVS and all(f.dtype == np.uint8 and f.shape == frames[0].shape for f in frames)
    assert frames[0].ndim == 3 and frames[0].shape[2] == 3


def test_gymnasium_make_vec_uses_the_vector_entry_point():
    vec, _ = pair("deeprm-v1")
    expected, _ = vec.reset(seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. Gymnasium's warning about missing autoreset metadata
        made = gymnasium.make_vec("jaxsched/deeprm-v1", num_envs=2, **SMALL["deeprm-v1"])
    assert isinstance(made, JaxschedVectorEnv) and made.num_envs == 2
    obs, _ = made.reset(seed=4)
    np.testing.assert_array_equal(obs, expected[:2])


@pytest.mark.usefixtures("default_compilation")  # bit for bit as users compile (conftest)
@pytest.mark.parametrize("env_id", [pytest.param("deeprm-v1"),
                                    pytest.param("vm-synthetic-v1", marks=pytest.mark.slow),
                                    pytest.param("grid-v1", marks=pytest.mark.slow)])
def test_copies_play_single_episodes_as_users_compile(env_id):
    """The vmapped program and the single adapter's are fused differently: still the same bits."""
    vec = jaxsched.make_vec(env_id, NUM_ENVS, **SMALL[env_id])
    single = jaxsched.make_gymnasium(env_id, **SMALL[env_id])
    assert check_copies_play_single_episodes(play(vec), single) >= NUM_ENVS


def test_sb3_vec_env_steps_the_same_copies_or_names_its_extra():
    try:
        from jaxsched.sb3_vec_env import make_sb3_vec
    except ImportError as error:
        assert "pip install 'stable-baselines3" in str(error) and "\n" not in str(error)
        pytest.skip("stable-baselines3 is not installed (optional extra): its VecEnv wrapper is not exercised")
    vec, _ = pair("deeprm-v1")
    sb3 = make_sb3_vec("deeprm-v1", NUM_ENVS, seed=SEED, **SMALL["deeprm-v1"])
    np.testing.assert_array_equal(sb3.reset(), vec.reset(seed=SEED)[0])
    masks = np.stack(sb3.env_method("action_masks"))  # as sb3-contrib's MaskablePPO reads them
    np.testing.assert_array_equal(masks, vec.action_masks())
    ended = 0
    for _ in range(STEPS):
        actions = vec.action_masks().argmax(1)
        sb3.step_async(actions)
        obs, rewards, dones, infos = sb3.step_wait()
        expected = vec.step(actions)
        np.testing.assert_array_equal(obs, expected[0])
        np.testing.assert_array_equal(rewards, expected[1].astype(np.float32))
        for i in np.flatnonzero(dones):
            ended += 1
            np.testing.assert_array_equal(infos[i]["terminal_observation"], expected[4]["final_obs"][i])
            assert infos[i]["episode"]["l"] == expected[4]["episode"]["l"][i]
    assert ended > 0
