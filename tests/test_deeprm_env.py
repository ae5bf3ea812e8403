"""DeepRM environment: a hand-computed trajectory checked field by field, rewards, termination,
truncation, image pixels, jit / vmap equivalence, determinism, recompilation, gymnax contract
and the registry.

The tiny environment (conftest.TINY): M = 2 slots, T = 5 rows, 3 units of each of 2 resources,
backlog of 2 (one image column), image width 2 * (3 + 2 * 3) + 1 + 1 = 20.
"""

from __future__ import annotations

import chex
import gymnax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnax.wrappers import LogWrapper

import jaxsched
from jaxsched.core.rollout import make_evaluator, run_episode
from jaxsched.envs.deeprm.types import stack, with_jobsets
from jaxsched.envs.deeprm.variants import VARIANTS
from jaxsched.registry import build, registered
from jaxsched.baselines.deeprm import random_policy

from conftest import TINY, TINY_MAX_JOBS, run_actions, to_numpy

M, T, CAP = TINY["num_slots"], TINY["horizon"], TINY["capacity"]
VOID = M

# ----------------------------------------------------------------------------------------------
# The hand jobset. Jobs 0, 1 arrive at t = 0 (admitted by reset); jobs 2..6 at t = 1: 2 and 3 take
# the two slots, 4 and 5 the backlog, 6 is dropped; job 7 arrives at t = 3. Two padding rows.
HAND_ARRIVAL = [0, 0, 1, 1, 1, 1, 1, 3]
HAND_DURATION = [2, 3, 1, 4, 1, 2, 1, 1]
HAND_DEMAND = [(2, 1), (2, 2), (1, 1), (3, 3), (1, 2), (1, 1), (1, 1), (1, 1)]
HAND_SIMU_LEN = 4

Z = (0, 0)
# One row per decision: action, scheduled?, clock, slots, backlog (its filled prefix), used grid
# (rows = clock .. clock + 4), start times known so far, since_arrival.
HAND_STEPS = [
    # j0 fits now: start 0; its slot stays empty (backlog empty).
    (0, True, 0, [-1, 1], [], [(2, 1), (2, 1), Z, Z, Z], {0: 0}, 0),
    # j1 (2,2) x3 does not fit at rows 0-1: earliest start offset 2 (rows 2..4 = T - len).
    (1, True, 0, [-1, -1], [], [(2, 1), (2, 1), (2, 2), (2, 2), (2, 2)], {1: 2}, 0),
    # Empty slot = move on: t = 1; j2, j3 to slots 0, 1; j4, j5 to the backlog; j6 dropped.
    (1, False, 1, [2, 3], [4, 5], [(2, 1), (2, 2), (2, 2), (2, 2), Z], {}, 0),
    # j2 fits now; slot 0 refilled from the backlog head (j4).
    (0, True, 1, [4, 3], [5], [(3, 2), (2, 2), (2, 2), (2, 2), Z], {2: 1}, 0),
    # j4 (1,2) x1 first fits at offset 4 (the last row); slot 0 refilled with j5.
    (0, True, 1, [5, 3], [], [(3, 2), (2, 2), (2, 2), (2, 2), (1, 2)], {4: 5}, 0),
    # j3 (3,3) x4 fits nowhere in the horizon: move on to t = 2; j0 and j2 leave.
    (1, False, 2, [5, 3], [], [(2, 2), (2, 2), (2, 2), (1, 2), Z], {}, 1),
    # j5 (1,1) x2 fits now.
    (0, True, 2, [-1, 3], [], [(3, 3), (3, 3), (2, 2), (1, 2), Z], {5: 2}, 1),
    # Void: t = 3; j7 arrives into the lowest empty slot (0).
    (VOID, False, 3, [7, 3], [], [(3, 3), (2, 2), (1, 2), Z, Z], {}, 0),
    # j7 (1,1) x1: row 0 is full, starts at offset 1.
    (0, True, 3, [-1, 3], [], [(3, 3), (3, 3), (1, 2), Z, Z], {7: 4}, 0),
    # j3 still fits nowhere: move on to t = 4; j5 leaves.
    (1, False, 4, [-1, 3], [], [(3, 3), (1, 2), Z, Z, Z], {}, 1),
    # j3: offset 1 blocked by j4 at row 1, offset 2 would overrun the horizon: t = 5; j1, j7 leave.
    (1, False, 5, [-1, 3], [], [(1, 2), Z, Z, Z, Z], {}, 2),
    # j3 fits at offset 1 = T - len (the reference's off-by-one would refuse it).
    (1, True, 5, [-1, -1], [], [(1, 2), (3, 3), (3, 3), (3, 3), (3, 3)], {3: 6}, 2),
    (VOID, False, 6, [-1, -1], [], [(3, 3)] * 4 + [Z], {}, 3),  # j4 leaves
    (0, False, 7, [-1, -1], [], [(3, 3)] * 3 + [Z] * 2, {}, 4),
    (VOID, False, 8, [-1, -1], [], [(3, 3)] * 2 + [Z] * 3, {}, 5),
    (VOID, False, 9, [-1, -1], [], [(3, 3)] + [Z] * 4, {}, 6),
    (VOID, False, 10, [-1, -1], [], [Z] * 5, {}, 7),  # j3 leaves: all done
]
HAND_ACTIONS = [row[0] for row in HAND_STEPS]
FINAL_START = [0, 2, 1, 6, 5, 2, -1, 4]
DROPPED_JOB = 6

# Rewards per decision (0 for scheduling decisions), computed by hand from the table above.
# slowdown: -sum 1/duration over running, slotted and backlogged jobs after the move.
# completion_time: -(jobs in the system after the move).
# utilisation: sum over resources of the used fraction of the time step just elapsed.
MOVE_STEPS = [i for i, row in enumerate(HAND_STEPS) if not row[1]]
HAND_REWARDS = {
    "slowdown": {2: -(1 / 2 + 1 / 3 + 1 + 1 / 4 + 1 + 1 / 2), 5: -(1 / 3 + 1 / 4 + 1 + 1 / 2),
                 7: -(1 / 3 + 1 / 4 + 1 + 1 / 2 + 1), 9: -(1 / 3 + 1 / 4 + 1 + 1), 10: -(1 / 4 + 1),
                 12: -1 / 4, 13: -1 / 4, 14: -1 / 4, 15: -1 / 4, 16: 0.0},
    "completion_time": {2: -6, 5: -4, 7: -5, 9: -4, 10: -2, 12: -1, 13: -1, 14: -1, 15: -1, 16: 0},
    "utilisation": {2: 3 / 3, 5: 5 / 3, 7: 6 / 3, 9: 6 / 3, 10: 6 / 3, 12: 3 / 3, 13: 2, 14: 2,
                    15: 2, 16: 2},
}
# makespan: -1 for every time step during which unfinished jobs exist. Jobs are present from
# t = 0 to t = 10 (j3 finishes at 10), so every one of the 10 move-ons is penalised: return -10.
HAND_MAKESPAN = {i: -1.0 for i in MOVE_STEPS}


def hand_params(tiny, **kwargs):
    js = jaxsched.envs.deeprm.types.from_arrays(HAND_ARRIVAL, HAND_DURATION, HAND_DEMAND, max_jobs=TINY_MAX_JOBS)
    return tiny.params(js, simu_len=kwargs.pop("simu_len", HAND_SIMU_LEN), **kwargs)


@pytest.fixture(scope="module")
def hand_run(tiny):
    params = hand_params(tiny)
    return to_numpy(tiny.initial_state(params)), run_actions(tiny, params, HAND_ACTIONS)


# ----------------------------------------------------------------------------------------------
# Hand trajectory, field by field


def test_initial_state_admits_t0_arrivals_only(hand_run):
    s0, _ = hand_run
    assert int(s0.clock) == 0 and int(s0.time) == 0
    np.testing.assert_array_equal(s0.slots, [0, 1])
    np.testing.assert_array_equal(s0.backlog, [-1, -1])
    assert int(s0.backlog_len) == 0
    np.testing.assert_array_equal(s0.start, [-1] * TINY_MAX_JOBS)
    assert not s0.dropped.any()  # padding rows (arrival 0, invalid) are never admitted nor dropped
    np.testing.assert_array_equal(s0.used, np.zeros((T, 2)))
    assert int(s0.since_arrival) == 0


@pytest.mark.parametrize("step", range(len(HAND_STEPS)))
def test_hand_trajectory_state(hand_run, step):
    _, run = hand_run
    action, scheduled, clock, slots, backlog, used, _, since = HAND_STEPS[step]
    state, reward, terminated, info = run[step]
    assert int(state.time) == step + 1
    assert int(state.clock) == clock
    assert bool(info["scheduled"]) == scheduled
    assert int(info["clock"]) == clock
    np.testing.assert_array_equal(state.slots, slots, err_msg="slots")
    np.testing.assert_array_equal(state.backlog, backlog + [-1] * (2 - len(backlog)), err_msg="backlog")
    assert int(state.backlog_len) == len(backlog)
    np.testing.assert_array_equal(state.used, np.array(used), err_msg="used grid")
    expected_start = np.full(TINY_MAX_JOBS, -1)
    for row in HAND_STEPS[: step + 1]:
        for job, start in row[6].items():
            expected_start[job] = start
    np.testing.assert_array_equal(state.start, expected_start, err_msg="start")
    expected_dropped = np.zeros(TINY_MAX_JOBS, bool)
    if clock >= 1:
        expected_dropped[DROPPED_JOB] = True
    np.testing.assert_array_equal(state.dropped, expected_dropped, err_msg="dropped")
    assert int(info["dropped"]) == int(expected_dropped.sum())
    assert int(state.since_arrival) == since
    assert bool(terminated) == (step == len(HAND_STEPS) - 1)


def test_hand_trajectory_final_starts(hand_run):
    _, run = hand_run
    np.testing.assert_array_equal(run[-1][0].start[:8], FINAL_START)


@pytest.mark.parametrize("reward", ["slowdown", "completion_time", "utilisation"])
def test_hand_rewards(kit, reward):
    k = kit(**TINY, reward=reward)
    run = run_actions(k, hand_params(k), HAND_ACTIONS)
    got = np.array([float(r) for _, r, _, _ in run])
    expected = np.array([float(HAND_REWARDS[reward].get(i, 0.0)) for i in range(len(HAND_STEPS))])
    assert set(HAND_REWARDS[reward]) == set(MOVE_STEPS)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_hand_makespan_reward_penalises_every_step_with_unfinished_jobs(kit):
    """Paper §3.4: "penalizing the agent one unit for each timestep for which unfinished jobs
    exist". Unfinished jobs exist in every one of the time steps [0,1) .. [9,10) of the hand
    trajectory (j3 runs during [9,10)), so the return is -10 = -makespan."""
    k = kit(**TINY, reward="makespan")
    run = run_actions(k, hand_params(k), HAND_ACTIONS)
    got = np.array([float(r) for _, r, _, _ in run])
    expected = np.array([HAND_MAKESPAN.get(i, 0.0) for i in range(len(HAND_STEPS))])
    np.testing.assert_array_equal(got, expected)
    assert got.sum() == -max(s + d for s, d in zip(FINAL_START, HAND_DURATION) if s >= 0)


def test_slowdown_return_counts_jobs_from_their_arrival(hand_run):
    """Sum of slowdowns minus what jobs arriving at t = 0 spend in [0, 1) (no move-on pays it)."""
    _, run = hand_run
    total = sum(float(r) for _, r, _, _ in run)
    slowdowns = [(s + d - a) / d for a, d, s in zip(HAND_ARRIVAL, HAND_DURATION, FINAL_START) if s >= 0]
    at_zero = sum(1 / d for a, d in zip(HAND_ARRIVAL, HAND_DURATION) if a == 0)
    assert total == pytest.approx(-(sum(slowdowns) - at_zero), rel=1e-6)


def test_void_action_out_of_range_moves_on(tiny):
    """Actions >= M are "move on"."""
    params = hand_params(tiny)
    state = tiny.initial_state(params)
    for action in (M, M + 3):
        nxt, _, _, info = tiny.transition(state, jnp.int32(action), params)
        assert not bool(info["scheduled"]) and int(nxt.clock) == 1


def test_fits_now_allocation_never_schedules_into_the_future(kit):
    """allocation="fits_now": a job that fits only later (j1 at offset 2) means move on."""
    k = kit(**TINY, allocation="fits_now")
    run = run_actions(k, hand_params(k), HAND_ACTIONS[:2])
    assert bool(run[0][3]["scheduled"]) and int(run[0][0].start[0]) == 0
    assert not bool(run[1][3]["scheduled"]) and int(run[1][0].clock) == 1
    assert int(run[1][0].start[1]) == -1


def test_negative_action_moves_on(tiny):
    """The env's docstring: "action i < M places slot i's job ..., anything else ("move on")".
    A negative action is not a slot index: it must not schedule slot 0's job."""
    params = hand_params(tiny)
    state = tiny.initial_state(params)
    nxt, _, _, info = tiny.transition(state, jnp.int32(-1), params)
    assert not bool(info["scheduled"]) and int(nxt.clock) == 1
    assert int(nxt.start[0]) == -1


# ----------------------------------------------------------------------------------------------
# Observation


def test_hand_observation_at_t1(tiny, hand_run):
    _, run = hand_run
    state = run[2][0]  # t = 1: slots j2 (1,1)x1, j3 (3,3)x4; backlog j4, j5
    obs = to_numpy(tiny.get_obs(state))
    np.testing.assert_array_equal(obs.slot_job, [2, 3])
    np.testing.assert_array_equal(obs.slot_duration, [1, 4])
    np.testing.assert_array_equal(obs.slot_demand, [[1, 1], [3, 3]])
    np.testing.assert_array_equal(obs.fits_now, [True, False])
    np.testing.assert_array_equal(obs.action_mask, [True, False, True])  # j3 fits nowhere
    np.testing.assert_array_equal(obs.free, CAP - np.array([(2, 1), (2, 2), (2, 2), (2, 2), (0, 0)]))
    img = obs.features
    assert img.shape == (T, 20) and img.dtype == np.float32
    # Resource 0: occupancy columns 0-2, slot 0 block 3-5, slot 1 block 6-8.
    np.testing.assert_array_equal(img[0, 0:3], [1, 1, 0])
    np.testing.assert_array_equal(img[4, 0:3], [0, 0, 0])
    np.testing.assert_array_equal(img[:, 3], [1, 0, 0, 0, 0])  # j2: 1 row, 1 unit
    np.testing.assert_array_equal(img[0, 3:6], [1, 0, 0])
    np.testing.assert_array_equal(img[:, 6:9], [[1, 1, 1]] * 4 + [[0, 0, 0]])  # j3: 4 rows x 3
    # Resource 1: occupancy 9-11, slot 0 block 12-14, slot 1 block 15-17.
    np.testing.assert_array_equal(img[0, 9:12], [1, 0, 0])
    np.testing.assert_array_equal(img[1, 9:12], [1, 1, 0])
    np.testing.assert_array_equal(img[0, 12:15], [1, 0, 0])
    np.testing.assert_array_equal(img[1, 12:15], [0, 0, 0])
    np.testing.assert_array_equal(img[:, 15:18], [[1, 1, 1]] * 4 + [[0, 0, 0]])
    # Backlog column 18: two jobs, one cell each, top down; last column: since_arrival 0.
    np.testing.assert_array_equal(img[:, 18], [1, 1, 0, 0, 0])
    np.testing.assert_array_equal(img[:, 19], np.zeros(T))


@pytest.mark.parametrize("since, value", [(0, 0.0), (1, 0.1), (7, 0.7), (10, 1.0), (13, 1.0)])
def test_last_column_is_capped_time_since_arrival(tiny, hand_run, since, value):
    state = hand_run[1][2][0].replace(since_arrival=np.int32(since))
    img = np.asarray(tiny.get_obs(state).features)
    np.testing.assert_allclose(img[:, -1], np.full(T, value, np.float32), rtol=1e-6)


def test_backlog_cells_are_row_major(kit, make_jobset):
    """Backlog of 5 over T = 4 rows: 2 columns; 3 backlogged jobs fill (0,0), (0,1), (1,0)."""
    k = kit(num_slots=1, horizon=4, max_job_len=3, capacity=4, max_job_size=4, backlog_size=5)
    js = make_jobset([0, 0, 0, 0], [1, 1, 1, 1], [(1, 1)] * 4, max_jobs=6)
    state = k.initial_state(k.params(js, simu_len=2))
    assert int(state.backlog_len) == 3
    img = np.asarray(k.get_obs(state).features)
    assert k.env.backlog_width == 2 and img.shape == (4, 2 * (4 + 4) + 2 + 1)
    np.testing.assert_array_equal(img[:, -3:-1], [[1, 1], [1, 0], [0, 0], [0, 0]])


def test_image_width_for_the_paper_sizes():
    """M = 10 -> 20 x 224 (the DeepRM2 CNN input); M = 5 -> 20 x 124."""
    from jaxsched.envs.deeprm.env import DeepRM

    assert DeepRM().image_width == 224 and DeepRM().feature_shape() == (20, 224)
    assert DeepRM(num_slots=5).image_width == 124
    assert DeepRM(num_slots=5).feature_shape() == (20, 124)


# ----------------------------------------------------------------------------------------------
# Termination and truncation


def test_all_done_waits_for_simu_len_and_pending_arrivals(tiny, make_jobset):
    # One job at t = 1, one at t = 5 (after simu_len = 3); the first done at t = 2.
    js = make_jobset([1, 5], [1, 1], [(1, 1), (1, 1)], max_jobs=TINY_MAX_JOBS)
    params = tiny.params(js, simu_len=3)
    state = tiny.initial_state(params)
    seen = []
    for action in [VOID, 0, VOID, VOID, VOID, VOID, 0, VOID]:
        state, _, terminated, _ = tiny.transition(state, jnp.int32(action), params)
        seen.append((int(state.clock), bool(terminated)))
    # t = 2, 3, 4: nothing in the system, but job 1 is still to arrive; terminated at t = 6.
    assert seen == [(1, False), (1, False), (2, False), (3, False), (4, False), (5, False),
                    (5, False), (6, True)]


def test_no_new_job_terminates_after_simu_len_move_ons(kit, tiny):
    nnj = kit(**TINY, termination="no_new_job")
    params = hand_params(nnj)
    done_no_new_job = [bool(t) for _, _, t, _ in run_actions(nnj, params, [VOID] * 5)]
    done_all_done = [bool(t) for _, _, t, _ in run_actions(tiny, params, [VOID] * 5)]
    assert done_no_new_job == [False, False, False, True, True]  # jobs still waiting at t = 4
    assert done_all_done == [False] * 5


def test_scheduling_never_terminates(kit):
    nnj = kit(**TINY, termination="no_new_job")
    params = hand_params(nnj)
    run = run_actions(nnj, params, [VOID] * 4 + [0])
    assert bool(run[3][2]) and int(run[3][0].clock) == 4
    assert bool(run[4][3]["scheduled"]) and not bool(run[4][2])


def test_truncation_at_max_time_and_max_steps(tiny):
    params = hand_params(tiny, max_time=3, max_steps_in_episode=1000)
    states = [s for s, _, _, _ in run_actions(tiny, params, [0, VOID, VOID, VOID])]
    assert [int(s.clock) for s in states] == [0, 1, 2, 3]
    assert [bool(tiny.env.is_truncated(s, params)) for s in states] == [False, False, False, True]
    params = hand_params(tiny, max_steps_in_episode=2)
    states = [s for s, _, _, _ in run_actions(tiny, params, [0, 1, VOID])]
    assert [bool(tiny.env.is_truncated(s, params)) for s in states] == [False, True, True]


# ----------------------------------------------------------------------------------------------
# jit == no jit, vmap == loop, determinism, no recompilation


def test_jit_equals_no_jit(tiny):
    params = hand_params(tiny)
    actions = HAND_ACTIONS[:6]  # schedule now / later, move-on with arrivals and a drop, refill
    jitted = [(s, r, t, i, to_numpy(tiny.get_obs(s, params)))
              for s, r, t, i in run_actions(tiny, params, actions)]
    with jax.disable_jit():
        state = tiny.env.initial_state(params)
        for a, expected in zip(actions, jitted):
            state, reward, terminated, info = tiny.env.transition(state, a, params)
            got = to_numpy((state, reward, terminated, info, tiny.env.get_obs(state, params)))
            chex.assert_trees_all_equal(got, expected)


# Four hand jobsets (two with jobs at t = 0, one with a drop), padded alike: vmap needs no compile
# of a workload generator.
VMAP_JOBSETS = [
    ([0, 1, 1, 2, 4], [2, 1, 4, 3, 1], [(2, 1), (1, 3), (3, 3), (1, 1), (2, 2)]),
    ([1, 1, 1, 1, 1, 2], [1, 2, 1, 3, 1, 4], [(1, 1), (2, 2), (3, 1), (1, 3), (1, 1), (2, 3)]),
    ([0, 3], [4, 4], [(3, 3), (3, 3)]),
    ([2, 2, 3, 3, 3, 3, 3, 3, 4], [1, 1, 2, 2, 3, 1, 1, 2, 1], [(1, 1)] * 9),
]


@pytest.fixture(scope="module")
def vmap_setup(tiny, make_jobset):
    jobsets = stack([make_jobset(*js, max_jobs=TINY_MAX_JOBS) for js in VMAP_JOBSETS])
    params = hand_params(tiny, max_time=200)
    evaluate = make_evaluator(tiny.env, random_policy, num_rollouts=2)
    return jobsets, params, evaluate


def test_vmap_over_jobsets_equals_python_loop(tiny, vmap_setup):
    jobsets, params, evaluate = vmap_setup
    key = jax.random.PRNGKey(11)
    together = to_numpy(evaluate(with_jobsets(params, jobsets), key))
    assert together.terminated.all()
    assert together.state.dropped[3].any(axis=-1).all()  # the burst of jobset 3 drops jobs
    one = jax.jit(lambda p, k: run_episode(tiny.env, p, random_policy, k))
    for i, jobset_key in enumerate(jax.random.split(key, len(VMAP_JOBSETS))):
        p = params.replace(jobset=jax.tree.map(lambda x: x[i], jobsets))
        for r, k in enumerate(jax.random.split(jobset_key, 2)):
            alone = to_numpy(one(p, k))
            chex.assert_trees_all_equal(jax.tree.map(lambda x: x[i, r], together), alone)


def test_same_key_same_result_bit_for_bit(vmap_setup):
    jobsets, params, evaluate = vmap_setup
    params = with_jobsets(params, jobsets)
    first = to_numpy(evaluate(params, jax.random.PRNGKey(9)))
    second = to_numpy(evaluate(params, jax.random.PRNGKey(9)))
    chex.assert_trees_all_equal(first, second)
    other = to_numpy(evaluate(params, jax.random.PRNGKey(10)))
    assert not np.array_equal(first.state.start, other.state.start)  # the key matters


def test_no_recompilation_across_steps(tiny):
    chex.clear_trace_counter()
    params = hand_params(tiny)

    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(state, action, params):
        state, reward, terminated, info = tiny.env.transition(state, action, params)
        return tiny.env.get_obs(state, params), state, reward, terminated, info

    state = tiny.initial_state(params)
    for a in HAND_ACTIONS[:8]:
        _, state, _, _, _ = step(state, jnp.int32(a), params)
    # gymnax's own jitted step: one compilation for the whole trajectory. Its cache is the class's,
    # shared with every env instance other tests in this process stepped: count what this one adds.
    key = jax.random.PRNGKey(0)
    _, gstate = tiny.env.reset(key, params)
    _, gstate, *_ = tiny.env.step(key, gstate, jnp.int32(HAND_ACTIONS[0]), params)
    compiled = tiny.env.step._cache_size()
    for a in HAND_ACTIONS[1:8]:
        _, gstate, *_ = tiny.env.step(key, gstate, jnp.int32(a), params)
    assert tiny.env.step._cache_size() == compiled


# ----------------------------------------------------------------------------------------------
# gymnax contract


def test_gymnax_step_returns_six_values_and_auto_resets(tiny):
    params = hand_params(tiny)
    key = jax.random.PRNGKey(0)
    obs0, state0 = tiny.env.reset(key, params)
    state, total, last = state0, 0.0, None
    for i, a in enumerate(HAND_ACTIONS):
        out = tiny.env.step(key, state, jnp.int32(a), params)
        assert len(out) == 6
        obs, state, reward, terminated, truncated, info = out
        total += float(reward)
        if i < len(HAND_ACTIONS) - 1:
            assert not bool(terminated) and not bool(truncated)
            last = state
    assert bool(terminated) and not bool(truncated)
    # Auto-reset: the returned state and observation are the reset ones ...
    chex.assert_trees_all_equal(to_numpy(state), to_numpy(state0))
    chex.assert_trees_all_equal(to_numpy(obs), to_numpy(obs0))
    # ... and the final observation is the one of the finished episode.
    final = tiny.env.get_obs(tiny.transition(last, jnp.int32(HAND_ACTIONS[-1]), params)[0], params)
    chex.assert_trees_all_equal(to_numpy(info["final_observation"]), to_numpy(final))
    assert total == pytest.approx(sum(HAND_REWARDS["slowdown"].values()), rel=1e-6)


def test_gymnax_step_auto_resets_on_truncation(tiny):
    params = hand_params(tiny, max_time=2)
    key = jax.random.PRNGKey(0)
    _, state0 = tiny.env.reset(key, params)
    _, state, _, terminated, truncated, _ = tiny.env.step(key, state0, jnp.int32(VOID), params)
    assert int(state.clock) == 1 and not bool(truncated)
    _, state, _, terminated, truncated, _ = tiny.env.step(key, state, jnp.int32(VOID), params)
    assert bool(truncated) and not bool(terminated)
    chex.assert_trees_all_equal(to_numpy(state), to_numpy(state0))


def test_log_wrapper_reports_the_finished_episode_return(tiny):
    params = hand_params(tiny)
    env = LogWrapper(tiny.env)
    key = jax.random.PRNGKey(0)
    _, state = env.reset(key, params)
    total = 0.0
    for a in HAND_ACTIONS:
        _, state, reward, terminated, truncated, info = env.step(key, state, jnp.int32(a), params)
        total += float(reward)
    assert bool(info["returned_episode"]) and bool(info["returned_episode_valid"])
    assert float(info["returned_episode_returns"]) == pytest.approx(total, rel=1e-6)
    assert float(info["returned_episode_returns"]) == pytest.approx(
        sum(HAND_REWARDS["slowdown"].values()), rel=1e-6)
    assert int(info["returned_episode_lengths"]) == len(HAND_ACTIONS)
    assert float(state.episode_returns) == 0.0 and int(state.episode_lengths) == 0


def test_spaces(tiny, hand_run):
    params = hand_params(tiny)
    assert isinstance(tiny.env.action_space(params), gymnax.environments.spaces.Discrete)
    assert tiny.env.action_space(params).n == M + 1
    space = tiny.env.observation_space(params)
    for state in [hand_run[0]] + [s for s, _, _, _ in hand_run[1]]:
        obs = tiny.get_obs(state, params)
        assert bool(space.contains(obs))
        for name, sub in space.spaces.items():
            value = getattr(obs, name)
            assert tuple(sub.shape) == value.shape, name
            assert jnp.dtype(sub.dtype) == value.dtype, name


# ----------------------------------------------------------------------------------------------
# Registry


# The ten MDP-design scenarios differ only in sizes (checked without compiling in
# test_mdp_variants): two of them here keep the compile time down.
JIT_CHECKED = [n for n in sorted(VARIANTS)  # the job-scheduling variants (VM ones: test_vm_scenarios)
               if not n.startswith("bracis-") or n in ("bracis-1", "bracis-9")]


@pytest.mark.parametrize("name", JIT_CHECKED)
def test_every_registered_variant_runs_under_jit(name):
    env, params = jaxsched.make(name)
    actions = jnp.array([0, 1, env.num_slots, 0, env.num_slots, 2], jnp.int32)

    @jax.jit
    def run(key, params):
        obs, state = env.reset(key, params)

        def body(state, a):
            obs, state, reward, terminated, truncated, _ = env.step(key, state, a, params)
            return state, (obs, reward, terminated | truncated)

        return obs, jax.lax.scan(body, state, actions)

    obs0, (state, (obs, rewards, done)) = run(jax.random.PRNGKey(0), params)
    assert obs0.features.shape == env.feature_shape()
    assert obs.features.shape == (len(actions),) + env.feature_shape()
    assert np.isfinite(np.asarray(obs.features)).all() and np.isfinite(np.asarray(rewards)).all()
    assert bool(env.observation_space(params).contains(obs0))
    assert int(state.time) == len(actions) and int(state.clock) >= 2
    assert not bool(done.any())
    if name == "deeprm-m5":
        assert env.feature_shape() == (20, 124)
    elif name.startswith("bracis-"):
        assert env.feature_shape() == (2 * 20 + 7 * 10 + 8,)
    elif name != "deeprm-off":
        assert env.feature_shape() == (20, 224)


def test_unknown_variant_lists_the_registered_ones():
    with pytest.raises(ValueError) as err:
        jaxsched.make("deeprm-nope")
    for name in registered():
        assert name in str(err.value)


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(ValueError) as err:
        build("deeprm", num_slot=5)
    assert "num_slot" in str(err.value)
    for option in ("num_slots", "horizon", "load", "reward", "max_time", "seed"):
        assert option in str(err.value)


def test_unknown_option_value_lists_the_choices():
    with pytest.raises(ValueError, match="slowdown"):
        build("deeprm", reward="speed")
    with pytest.raises(ValueError, match="all_done"):
        build("deeprm", termination="never")
