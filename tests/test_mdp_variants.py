"""The MDP-design options of the DeepRM environment (Cunha and Chaimowicz, BRACIS'21): the compact
"bracis" state against a hand-computed vector, event-based stepping (never asks when nothing fits,
conserves rewards, discounts skipped ticks), the reduced ("visible") reward job set, jobs longer
than the horizon under fits-now scheduling, the paper's generator and the registered scenarios.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.baselines.deeprm import sjf
from jaxsched.core.rollout import collect_batch, make_evaluator
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.generator import Workload, generate_many
from jaxsched.envs.deeprm.types import with_jobsets
from jaxsched.envs.deeprm.variants import BRACIS_SCENARIOS
from jaxsched.registry import build, registered

from conftest import TINY, TINY_MAX_JOBS, jobset, run_actions

# The hand jobset of test_deeprm_env (TINY: M = 2, T = 5, capacity 3, two resources, backlog 2).
HAND = dict(arrival=[0, 0, 1, 1, 1, 1, 1, 3], duration=[2, 3, 1, 4, 1, 2, 1, 1],
            demand=[(2, 1), (2, 2), (1, 1), (3, 3), (1, 2), (1, 1), (1, 1), (1, 1)])
L = 10  # time_limit of the hand checks

# A small processor-only cluster where jobs (up to 8 steps) outlast the 6-step horizon.
SMALL = dict(num_res=1, capacity=6, horizon=6, num_slots=3, backlog_size=4, max_job_len=8, max_job_size=6,
             allocation="fits_now", observation="none")
SMALL_WORKLOAD = Workload(num_res=1, capacity=6, max_job_len=8, max_job_size=6, simu_len=20, job_rate=0.5,
                          generators=2)


def hand_params(k, **kwargs):
    return k.params(jobset(HAND["arrival"], HAND["duration"], HAND["demand"], TINY_MAX_JOBS), simu_len=4,
                    **kwargs)


def enc(x, limit):
    return (x + 1) / (limit + 1)


# ----------------------------------------------------------------------------------------------
# Compact state


def test_bracis_features_at_reset_nothing_runs(kit):
    k = kit(**TINY, observation="bracis", time_limit=L)
    params = hand_params(k)
    features = np.asarray(k.get_obs(k.initial_state(params)).features)
    assert features.shape == (2 * 5 * 2 + 7 * 2 + 8,) == k.env.feature_shape()
    np.testing.assert_allclose(features[:20], np.tile([1.0, 0.0], 10))  # an empty cluster: all free
    # j0 and j1 arrived at t = 0, submitted one after the other: j1 saw j0 (1 job, work 2 x 2 = 4).
    np.testing.assert_allclose(features[20:27], [enc(0, L), enc(2, L), enc(1, 3), enc(2, 3), enc(0, L),
                                                 enc(0, L * L * 3), enc(3, 3)], rtol=1e-6)
    np.testing.assert_allclose(features[27:34], [enc(0, L), enc(3, L), enc(2, 3), enc(2, 3), enc(1, L),
                                                 enc(4, L * L * 3), enc(3, 3)], rtol=1e-6)
    np.testing.assert_allclose(features[34:], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2 / L, 1.0], atol=1e-7)


def test_bracis_features_hand_computed_at_t1(kit):
    """After scheduling j0 now and j1 at offset 2, then moving on: t = 1, slots j2, j3, backlog j4,
    j5, j6 dropped; j0 runs (ends at 2), j1 waits for its start at 2 and does not count as running."""
    k = kit(**TINY, observation="bracis", time_limit=L)
    state = run_actions(k, hand_params(k), [0, 1, 1])[-1][0]
    assert int(state.clock) == 1
    # Snapshots at submission (t = 1, j0 and j1 started so nobody waited): j2 first, then j3 saw j2,
    # j4 saw j2, j3 (work 1 + 12), j5 saw three; free processors 3 - 2 = 1.
    np.testing.assert_array_equal(state.at_submit[2:6], [[0, 0, 1], [1, 1, 1], [2, 13, 1], [3, 14, 1]])
    features = np.asarray(k.get_obs(jax.tree.map(jnp.asarray, state)).features)
    used = np.array([[2, 2, 2, 2, 0], [1, 2, 2, 2, 0]])  # [resource, row]
    cluster = np.stack([3 - used, used], axis=-1).reshape(-1) / 3
    slot0 = [enc(1, L), enc(1, L), enc(1, 3), enc(1, 3), enc(0, L), enc(0, 300), enc(1, 3)]
    slot1 = [enc(1, L), enc(4, L), enc(3, 3), enc(3, 3), enc(1, L), enc(1, 300), enc(1, 3)]
    backlog = [2 / 2]
    next_free = [(2 - 1) / L, 2 / 3, (1 + 2) / 3]  # j0: ends at 2, 2 processors, 1 free now
    globals_ = [1 * 2 / (L * 3), 1 * 1 / (L * 3), 4 / L, 1 - 1 / L]  # work left, memory, queue, time
    np.testing.assert_allclose(features, np.concatenate([cluster, slot0, slot1, backlog, next_free, globals_]),
                               rtol=1e-6)


def test_bracis_empty_slot_is_all_zeros(kit):
    k = kit(**TINY, observation="bracis", time_limit=L)
    actions = [0, 1, 1, 0, 0, 1, 0]  # the hand trajectory up to t = 2, j5 scheduled: slot 0 empty
    state = run_actions(k, hand_params(k), actions)[-1][0]
    np.testing.assert_array_equal(state.slots, [-1, 3])
    features = np.asarray(k.get_obs(jax.tree.map(jnp.asarray, state)).features)
    np.testing.assert_array_equal(features[20:27], np.zeros(7))
    assert np.all(features[27:34] > 0)


def test_bracis_length_does_not_depend_on_cluster_size():
    sized = lambda procs, length, size, num_res=1: DeepRM(capacity=procs, max_job_len=length, max_job_size=size,
                                                          num_res=num_res, allocation="fits_now",
                                                          observation="bracis")
    assert {sized(*scenario).feature_shape() for scenario in BRACIS_SCENARIOS} == {(2 * 20 + 7 * 10 + 8,)}
    assert sized(10, 15, 10, num_res=2).feature_shape() == (2 * 20 * 2 + 7 * 10 + 8,)


def test_image_slot_blocks_capacity_wide(kit):
    """slot_width="capacity" (the paper's image): each slot block is capacity columns wide, the job
    drawn as duration x demand cells from its left edge and the rest 0; DeepRM's is max_job_size wide."""
    config = dict(TINY, max_job_size=2, observation="image")
    k = kit(**config, slot_width="capacity")
    params = k.params(jobset([0, 0], [2, 3], [(2, 1), (1, 2)], TINY_MAX_JOBS), simu_len=4)
    image = np.asarray(k.get_obs(k.initial_state(params)).features)
    expected = np.zeros((5, 2 * (3 + 2 * 3) + 1 + 1), np.float32)  # per resource: grid 3, two blocks of 3
    for r, first in enumerate((0, 9)):
        expected[:2, first + 3:first + 3 + (2, 1)[r]] = 1  # slot 0: 2 steps x (2, 1) units
        expected[:3, first + 6:first + 6 + (1, 2)[r]] = 1  # slot 1: 3 steps x (1, 2) units
    np.testing.assert_array_equal(image, expected)
    assert DeepRM(**config).image_width == 2 * (3 + 2 * 2) + 1 + 1
    assert build("deeprm").env.slot_width == "max_job_size"


def test_bracis_rejects_more_than_two_resources():
    with pytest.raises(ValueError, match="num_res <= 2"):
        DeepRM(num_res=3, observation="bracis")


# ----------------------------------------------------------------------------------------------
# Reward job set


def test_visible_reward_counts_only_the_slots(kit):
    """The move to t = 1: slots j2 (1 step), j3 (4); in the system also j0 (2, running), j1 (3,
    scheduled for t = 2) and the backlogged j4 (1), j5 (2)."""
    everyone = run_actions(kit(**TINY), hand_params(kit(**TINY)), [0, 1, 1])[-1][1]
    k = kit(**TINY, reward_jobs="visible")
    visible = run_actions(k, hand_params(k), [0, 1, 1])[-1][1]
    np.testing.assert_allclose(visible, -(1 + 1 / 4), rtol=1e-6)
    np.testing.assert_allclose(everyone, -(1 / 2 + 1 / 3 + 1 + 1 / 4 + 1 + 1 / 2), rtol=1e-6)


def test_visible_reward_needs_a_per_job_reward():
    with pytest.raises(ValueError, match="reward_jobs"):
        DeepRM(reward="utilisation", reward_jobs="visible")


# ----------------------------------------------------------------------------------------------
# Jobs longer than the horizon (fits-now only)


def test_fits_now_runs_jobs_longer_than_the_horizon(kit):
    k = kit(**SMALL)
    params = k.params(jobset([0, 0], [8, 1], [(6,), (1,)], 4), simu_len=2)
    state, _, _, info = k.transition(k.initial_state(params), jnp.int32(0), params)
    assert bool(info["scheduled"]) and state.used.shape == (8, 1)
    for _ in range(7):  # j1 (1 processor) waits while j0 holds all 6 for 8 steps
        assert not bool(k.get_obs(state).fits_now[1])
        state, _, _, _ = k.transition(state, jnp.int32(3), params)
    assert int(state.clock) == 7 and not bool(k.get_obs(state).fits_now[1])
    state, _, _, _ = k.transition(state, jnp.int32(3), params)
    assert bool(k.get_obs(state).fits_now[1])
    assert k.get_obs(state).free.shape == (6, 1)  # the observation still shows the horizon only
    with pytest.raises(ValueError, match="exceeds the horizon"):
        DeepRM(**{**SMALL, "allocation": "earliest_fit"})


# ----------------------------------------------------------------------------------------------
# Event-based stepping


def shifted_jobsets(num: int, seed: int = 0):
    """Generator jobsets moved so that the first job arrives at t = 0 (admitted by reset): then no
    reward accrues before the first decision and the two steppings' returns must match exactly."""
    jobsets = generate_many(jax.random.PRNGKey(seed), SMALL_WORKLOAD, num)
    arrival = jnp.where(jobsets.valid, jobsets.arrival - jobsets.arrival[:, :1], 0)
    return jobsets.replace(arrival=arrival)


def masked_random(key, obs):
    return jax.random.categorical(key, jnp.where(obs.action_mask, 0.0, -jnp.inf)).astype(jnp.int32)


@pytest.mark.parametrize("stepping", ["time", "event"])
def test_event_stepping_never_asks_when_nothing_fits(kit, stepping):
    k = kit(**SMALL, stepping=stepping)
    base = k.params(None, simu_len=SMALL_WORKLOAD.simu_len, max_time=400)
    params = with_jobsets(base, generate_many(jax.random.PRNGKey(1), SMALL_WORKLOAD, 4))
    traj = jax.jit(lambda key: collect_batch(k.env, params, masked_random, key, 2, 120))(jax.random.PRNGKey(2))
    asked = np.asarray(traj.valid)
    something_fits = np.asarray(traj.action_mask[..., :SMALL["num_slots"]]).any(-1)  # fits_now allocation
    assert asked.sum() > 100
    if stepping == "event":
        assert something_fits[asked].all()
        assert np.asarray(traj.terminated).all()
    else:  # the time-based MDP does ask with nothing to do, so the check above can fail
        assert not something_fits[asked].all()


@pytest.mark.parametrize("reward_jobs", ["all", "visible"])
def test_event_stepping_conserves_rewards_with_gamma_1(kit, reward_jobs):
    """Under SJF both MDPs take the same schedules; the event-based one skips the move-ons where
    nothing fits and must pay their rewards in the next transition: equal returns, fewer decisions."""
    jobsets = shifted_jobsets(6)
    returns, decisions = {}, {}
    for stepping in ("time", "event"):
        k = kit(**SMALL, stepping=stepping, reward_jobs=reward_jobs)
        base = k.params(None, simu_len=SMALL_WORKLOAD.simu_len, max_time=400)
        result = make_evaluator(k.env, sjf)(with_jobsets(base, jobsets), jax.random.PRNGKey(0))
        assert np.asarray(result.terminated).all()
        returns[stepping], decisions[stepping] = np.asarray(result.episode_return), np.asarray(result.decisions)
    np.testing.assert_allclose(returns["event"], returns["time"], rtol=1e-5)
    assert np.all(returns["time"] < 0)
    assert np.all(decisions["event"] < decisions["time"])


def test_event_stepping_discounts_skipped_ticks(kit):
    """From a state where SJF moves on with nothing fitting, one event transition with gamma = 0.5
    pays sum_k 0.5^k r_k of the time-based ticks it skipped and lands on the same state."""
    dense, event = kit(**SMALL), kit(**SMALL, stepping="event")
    params = dense.params(jax.tree.map(lambda x: x[0], shifted_jobsets(1, seed=3)),
                          simu_len=SMALL_WORKLOAD.simu_len, max_time=400).replace(gamma=0.5)
    move_on = jnp.int32(SMALL["num_slots"])
    state = dense.initial_state(params)
    for _ in range(200):
        action = sjf(None, dense.get_obs(state))
        if int(action) == SMALL["num_slots"]:
            skipped, reward, _, info = event.transition(state, move_on, params)
            if int(info["elapsed_ticks"]) >= 3:
                break
        state, _, _, _ = dense.transition(state, action, params)
    else:
        pytest.fail("no multi-tick skip found")
    ticks = int(info["elapsed_ticks"])
    dense_rewards = []
    for _ in range(ticks):
        state, r, _, _ = dense.transition(state, move_on, params)
        dense_rewards.append(float(r))
    np.testing.assert_allclose(float(reward), sum(0.5 ** i * r for i, r in enumerate(dense_rewards)), rtol=1e-5)
    assert int(skipped.clock) == int(state.clock) and np.array_equal(skipped.start, state.start)
    assert bool(event.get_obs(skipped).fits_now.any())


def skip_tick_by_tick(env, state, reward, elapsed, params):
    """The event skip as the paper's simulator runs it: one move-on per idle tick (the oracle)."""

    def idle(carry):
        state = carry[0]
        return (~jnp.any(env.visible_fits_now(state)) & ~env.is_terminated(state, params)
                & (state.clock < params.max_time))

    def tick(carry):
        state, reward, elapsed = carry
        state, tick_reward = env._move_on(state)
        return state, reward + jnp.power(params.gamma, elapsed) * tick_reward, elapsed + 1

    return jax.lax.while_loop(idle, tick, (state, jnp.asarray(reward, jnp.float32), elapsed))


@pytest.mark.parametrize("options", [
    dict(SMALL),
    dict(SMALL, reward_jobs="visible"),
    dict(SMALL, reward="completion_time"),
    dict(SMALL, reward="utilisation", allocation="earliest_fit", max_job_len=6),
    dict(SMALL, reward="makespan", allocation="earliest_fit", max_job_len=6, num_res=2, max_job_size=4),
], ids=["slowdown", "visible", "completion", "utilisation-earliest", "makespan-2res"])
def test_event_jump_equals_tick_by_tick(kit, options):
    """The event-to-event jump lands on the tick-by-tick loop's state (every field, bit for bit) and pays
    its discounted reward (float rounding apart), from every state of random time-based episodes."""
    k = kit(**options)
    workload = Workload(num_res=options["num_res"], capacity=6, max_job_len=options["max_job_len"],
                        max_job_size=options["max_job_size"], simu_len=20, job_rate=0.5, generators=2)
    base = k.params(None, simu_len=workload.simu_len, max_time=400).replace(gamma=0.9)
    params = with_jobsets(base, generate_many(jax.random.PRNGKey(5), workload, 6))
    length = 60

    def visited(p, key):  # the states a masked-random time-based episode passes through
        def step(state, k):
            action = masked_random(k, k_env.get_obs(state, p))
            return k_env.transition(state, action, p)[0], state

        return jax.lax.scan(step, k_env.initial_state(p), jax.random.split(key, length))[1]

    k_env = k.env
    states = jax.jit(jax.vmap(visited))(params, jax.random.split(jax.random.PRNGKey(6), 6))  # [J, L, ...]
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), states)
    count = flat.clock.shape[0]
    per_state = jax.tree.map(lambda x: jnp.repeat(x, length, axis=0), params)
    reward0, elapsed0 = jnp.full((count,), 0.5, jnp.float32), jnp.arange(count, dtype=jnp.int32) % 3
    jumped = jax.jit(jax.vmap(k.env._skip_idle_ticks))(flat, reward0, elapsed0, per_state)
    oracle = jax.jit(jax.vmap(lambda *a: skip_tick_by_tick(k.env, *a)))(flat, reward0, elapsed0, per_state)
    assert int(np.sum(np.asarray(oracle[2]) - np.asarray(elapsed0) >= 3)) > 10  # multi-tick skips happened
    for (path, got), want in zip(jax.tree_util.tree_leaves_with_path(jumped[0]), jax.tree.leaves(oracle[0])):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=jax.tree_util.keystr(path))
    np.testing.assert_array_equal(np.asarray(jumped[2]), np.asarray(oracle[2]))
    np.testing.assert_allclose(np.asarray(jumped[1]), np.asarray(oracle[1]), rtol=2e-6, atol=2e-6)


def test_event_reset_skips_to_the_first_decision(kit):
    k = kit(**SMALL, stepping="event")
    jobsets = generate_many(jax.random.PRNGKey(4), SMALL_WORKLOAD, 1)
    params = k.params(jax.tree.map(lambda x: x[0], jobsets), simu_len=SMALL_WORKLOAD.simu_len, max_time=400)
    state = k.initial_state(params)
    assert int(state.clock) == int(jobsets.arrival[0, 0]) > 0  # the generator's first job arrives later
    assert bool(k.get_obs(state).fits_now.any())


# ----------------------------------------------------------------------------------------------
# The paper's generator and scenarios


def test_bracis_generator_rates_and_two_generators():
    workload = build("bracis-3").workload  # np 38, d 15, js 32
    jobsets = generate_many(jax.random.PRNGKey(0), workload, 200)
    valid = np.asarray(jobsets.valid)
    assert abs(valid.sum() / (200 * 99) - 0.3) < 0.01  # one Bernoulli(0.3) trial per step 1..99
    procs = np.asarray(jobsets.demand[..., 0])[valid]
    duration = np.asarray(jobsets.duration)[valid]
    few, many = (procs >= 1) & (procs <= 32 // 5), (procs >= 16) & (procs <= 32)
    assert np.all(few | many) and abs(few.mean() - 0.5) < 0.03  # CPU- or memory-dominant, uniformly
    small, large = duration <= 3, (duration >= 10) & (duration <= 15)
    assert np.all(small | large) and abs(small.mean() - 0.8) < 0.03


def test_bracis_scenarios_are_registered_with_the_paper_sizes():
    bracis = {name for name in registered() if name.startswith("bracis-")}
    assert bracis and bracis == {f"bracis-{n}" for n in range(1, len(BRACIS_SCENARIOS) + 1)}  # one per scenario
    for number, (procs, length, size) in enumerate(BRACIS_SCENARIOS, start=1):
        variant = build(f"bracis-{number}")
        env = variant.env
        assert (env.capacity, env.max_job_len, env.max_job_size, env.num_res) == (procs, length, size, 1)
        assert (env.num_slots, env.horizon, env.allocation) == (10, 20, "fits_now")
        assert build(f"bracis-{number}", observation="image").env.feature_shape() == (20, 11 * procs + 4)
        assert variant.workload.rate == 0.3 and variant.params.simu_len == 100


def test_bad_mdp_options_are_rejected():
    with pytest.raises(ValueError, match="stepping"):
        DeepRM(stepping="sparse")
    with pytest.raises(ValueError, match="reward_jobs"):
        DeepRM(reward_jobs="some")
    with pytest.raises(ValueError, match="slot_width"):
        DeepRM(slot_width="processors")
    with pytest.raises(ValueError, match="generators"):
        Workload(num_res=2, generators=1)
    with pytest.raises(ValueError, match="job_rate"):
        Workload(job_rate=1.5)
