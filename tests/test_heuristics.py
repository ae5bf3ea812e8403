"""DeepRM heuristics: hand cases for scores, tie-breaking (lowest slot), eligibility (fits now for
the whole duration), "none eligible -> M", FCFS, the random policy; and every heuristic against a
numpy transcription of the spec on a batch of random observations."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.baselines.deeprm import easy_backfilling, fcfs, make_heuristic, packer, random_policy, sjf, tetris
from jaxsched.envs.deeprm.env import Observation

from conftest import PROP, PROP_MAX_JOBS, to_numpy

M, T, CAP = PROP["num_slots"], PROP["horizon"], PROP["capacity"]
KEY = jax.random.PRNGKey(0)

NAMES = ["sjf", "packer", "tetris", "tetris:0", "tetris:1", "tetris:0.3", "fcfs", "easy"]


@pytest.fixture(scope="module")
def prop(kit):
    return kit(**PROP)


@pytest.fixture(scope="module")
def choose():
    """jit(obs -> {name: action}) for every deterministic heuristic: one compilation."""
    policies = {name: make_heuristic(name) for name in NAMES}
    return jax.jit(lambda obs: {name: policy(KEY, obs) for name, policy in policies.items()})


def observe(prop, jobs, slots, used_rows=None):
    """The env's observation of a hand-made state: ``jobs`` = [(duration, (units, units))] by job
    index (all arrived at t = 0), ``slots`` = job index per slot (-1 empty), ``used_rows`` = the
    used grid's first rows (the rest free)."""
    duration = [d for d, _ in jobs]
    demand = [u for _, u in jobs]
    js = prop_jobset(duration, demand)
    params = prop.params(js, simu_len=2)
    used = np.zeros((T, 2), np.int32)
    if used_rows:
        used[: len(used_rows)] = used_rows
    state = prop.initial_state(params).replace(
        slots=jnp.asarray(slots, jnp.int32), backlog=jnp.full((PROP["backlog_size"],), -1, jnp.int32),
        backlog_len=jnp.int32(0), used=jnp.asarray(used))
    return prop.get_obs(state, params)


def prop_jobset(duration, demand):
    from jaxsched.envs.deeprm.types import from_arrays

    n = len(duration)
    return from_arrays(np.zeros(n, int), duration, np.asarray(demand).reshape(n, 2), max_jobs=PROP_MAX_JOBS)


def actions(choose, obs) -> dict[str, int]:
    return {name: int(a) for name, a in choose(obs).items()}


# ----------------------------------------------------------------------------------------------
# Hand cases


def test_sjf_picks_the_shortest_and_breaks_ties_to_the_lowest_slot(prop, choose):
    obs = observe(prop, [(2, (1, 1)), (2, (1, 1)), (3, (1, 1))], [0, 1, 2])
    assert actions(choose, obs)["sjf"] == 0
    obs = observe(prop, [(3, (1, 1)), (2, (1, 1)), (2, (1, 1))], [0, 1, 2])
    assert actions(choose, obs)["sjf"] == 1


def test_packer_scores_free_units_now_dot_demand(prop, choose):
    jobs = [(1, (1, 1)), (3, (2, 1)), (2, (1, 2))]
    # All free (4, 4): scores 8, 12, 12 -> tie between slots 1 and 2 -> 1.
    assert actions(choose, observe(prop, jobs, [0, 1, 2]))["packer"] == 1
    # Row 0 free (2, 4): scores 6, 8, 10 -> slot 2 (row 0 only enters the score).
    assert actions(choose, observe(prop, jobs, [0, 1, 2], [(2, 0)]))["packer"] == 2


def test_tetris_mixes_packer_and_sjf_by_the_knob(prop, choose):
    jobs = [(1, (1, 1)), (3, (2, 1)), (2, (1, 2))]
    # knob 0.5: 4 + 1/2, 6 + 1/6, 6 + 1/4 -> slot 2; SJF alone -> 0; Packer alone -> 1 (tie).
    got = actions(choose, observe(prop, jobs, [0, 1, 2]))
    assert (got["tetris"], got["sjf"], got["packer"]) == (2, 0, 1)
    assert got["tetris:0"] == got["sjf"] and got["tetris:1"] == got["packer"]
    # knob 0.3: 0.3 * (8, 12, 12) + 0.7 * (1, 1/3, 1/2) = 3.1, 3.833, 3.95 -> slot 2.
    assert got["tetris:0.3"] == 2
    # Exact tie under Tetris*: identical jobs in slots 1 and 2 -> slot 1.
    got = actions(choose, observe(prop, [(3, (1, 1)), (2, (2, 2)), (2, (2, 2))], [0, 1, 2]))
    assert got["tetris"] == 1


def test_eligible_means_fits_now_for_the_whole_duration(prop, choose):
    # Row 1 has only (2, 2) free. Slot 0: (3, 3) x 2 fits row 0 but not row 1 -> not eligible,
    # though it can start later (offset 2). Slot 1: (1, 1) x 3 fits rows 0-2 -> eligible.
    obs = observe(prop, [(2, (3, 3)), (3, (1, 1))], [0, 1, -1], [(0, 0), (2, 2)])
    np.testing.assert_array_equal(obs.fits_now, [False, True, False])
    np.testing.assert_array_equal(obs.action_mask, [True, True, False, True])
    got = actions(choose, obs)
    # A row-0-only check would pick slot 0 for SJF (shorter), Packer (24 > 8) and Tetris*.
    assert got["sjf"] == got["packer"] == got["tetris"] == 1


def test_none_eligible_means_move_on(prop, choose):
    empty = observe(prop, [(1, (1, 1))], [-1, -1, -1])
    assert set(actions(choose, empty).values()) == {M}
    full_now = observe(prop, [(1, (1, 1)), (2, (1, 1)), (3, (4, 4))], [0, 1, 2], [(4, 4)])
    np.testing.assert_array_equal(full_now.fits_now, [False] * M)
    assert set(actions(choose, full_now).values()) == {M}


def test_fcfs_takes_only_the_oldest_waiting_job(prop, choose):
    jobs = [(1, (1, 1))] * 3 + [(1, (3, 3))] + [(1, (1, 1))] * 4
    # Slots hold jobs 5, 2, 7: the oldest (2) is in slot 1 and fits -> 1.
    assert actions(choose, observe(prop, jobs, [5, 2, 7]))["fcfs"] == 1
    # The oldest (3) does not fit now while 5 and 7 do: FCFS does not skip -> move on.
    got = actions(choose, observe(prop, jobs, [5, 3, 7], [(2, 2)]))
    assert got["fcfs"] == M and got["sjf"] == 0


# EASY backfilling. Rows 0-1 of the cluster hold (3, 3) of (4, 4): (1, 1) free until step 2.
BUSY_TWO_STEPS = [(3, 3), (3, 3)]


def test_easy_starts_the_head_when_it_fits(prop, choose):
    # The oldest job (0) sits in slot 1 and fits: EASY starts it although SJF prefers slot 2.
    got = actions(choose, observe(prop, [(3, (2, 2)), (2, (1, 1)), (1, (1, 1))], [1, 0, 2]))
    assert got["easy"] == 1 and got["sjf"] == 2


def test_easy_backfills_a_job_that_ends_by_the_shadow_time(prop, choose):
    # Head = job 0 (slot 1) needs (4, 4) for 2 steps: reserved at step 2 (shadow time), rows 2-3.
    # Job 2 (slot 2) runs rows 0-1 only: ends at the shadow time -> backfills. Job 1 (slot 0) would
    # run into row 2 and leave 3 < 4 units there: it must not start, although it is older.
    jobs = [(2, (4, 4)), (3, (1, 1)), (2, (1, 1))]
    got = actions(choose, observe(prop, jobs, [1, 0, 2], BUSY_TWO_STEPS))
    assert got["easy"] == 2 and got["fcfs"] == M


def test_easy_does_not_backfill_a_job_that_delays_the_head(prop, choose):
    jobs = [(2, (4, 4)), (3, (1, 1))]
    obs = observe(prop, jobs, [1, 0, -1], BUSY_TWO_STEPS)
    assert bool(obs.fits_now[0])  # it could start now (SJF would), but it would delay the head
    got = actions(choose, obs)
    assert got["easy"] == M and got["sjf"] == 0


def test_easy_backfills_a_long_job_on_units_spare_at_the_shadow_time(prop, choose):
    # The head needs only (2, 2) from step 2: the long job's (1, 1) at row 2 leaves 3 >= 2 -> allowed.
    jobs = [(2, (2, 2)), (3, (1, 1))]
    assert actions(choose, observe(prop, jobs, [1, 0, -1], BUSY_TWO_STEPS))["easy"] == 0


def test_easy_sees_a_shadow_time_beyond_the_horizon(kit):
    """With fits-now scheduling jobs may outlast the horizon (2 rows here); the reservation is
    found on ``free_profile``, which covers the whole grid (4 rows) plus an all-free row."""
    k = kit(num_res=1, num_slots=3, horizon=2, max_job_len=4, capacity=4, max_job_size=4, backlog_size=5,
            allocation="fits_now", observation="bracis")
    from jaxsched.envs.deeprm.types import from_arrays

    def observe_grid(jobs, slots, used):
        js = from_arrays(np.zeros(len(jobs), int), [d for d, _ in jobs], [[u] for _, u in jobs],
                         max_jobs=PROP_MAX_JOBS)
        params = k.params(js, simu_len=2)
        state = k.initial_state(params).replace(slots=jnp.asarray(slots, jnp.int32),
                                                backlog=jnp.full((5,), -1, jnp.int32), backlog_len=jnp.int32(0),
                                                used=jnp.asarray(np.array(used, np.int32)[:, None]))
        return k.get_obs(state, params)

    # Three units busy for 3 steps (beyond the 2-row horizon): head (4 units x 1) reserved at step 3.
    used = [3, 3, 3, 0]
    obs = observe_grid([(1, 4), (3, 1), (4, 1)], [0, 1, 2], used)
    np.testing.assert_array_equal(obs.free_profile[:, 0], [1, 1, 1, 4, 4])
    assert int(easy_backfilling(KEY, obs)) == 1  # 3 steps: ends at the shadow time; 4 steps would not
    obs = observe_grid([(1, 4), (4, 1)], [0, 1, -1], used)
    assert int(easy_backfilling(KEY, obs)) == 3


def test_random_covers_all_actions_uniformly(prop):
    obs = observe(prop, [(1, (1, 1))], [0, -1, -1])
    keys = jax.random.split(jax.random.PRNGKey(1), 4000)
    picks = np.asarray(jax.jit(jax.vmap(random_policy, in_axes=(0, None)))(keys, obs))
    counts = np.bincount(picks, minlength=M + 2)
    assert counts[M + 1] == 0 and (counts[: M + 1] > 0).all()
    np.testing.assert_allclose(counts[: M + 1] / 4000, 1 / (M + 1), atol=0.03)


def test_make_heuristic_rejects_bad_names():
    with pytest.raises(ValueError, match="sjf"):
        make_heuristic("nope")
    with pytest.raises(ValueError):
        make_heuristic("sjf:0.5")
    with pytest.raises(ValueError):
        make_heuristic("tetris:1.5")


# ----------------------------------------------------------------------------------------------
# Against the spec, on random observations with many ties


def spec_choice(fits_now, duration, demand, free0, kind: str, knob: float = 0.5) -> int:
    best, best_score = len(fits_now), 0.0
    for i in range(len(fits_now)):
        if not fits_now[i] or duration[i] == 0:
            continue
        sjf_score = 1.0 / duration[i]
        packer_score = float(np.dot(free0, demand[i]))
        score = {"sjf": sjf_score, "packer": packer_score,
                 "tetris": knob * packer_score + (1 - knob) * sjf_score}[kind]
        if score > best_score:
            best, best_score = i, score
    return best


def test_heuristics_match_the_spec_on_random_observations():
    rng = np.random.default_rng(0)
    n, slots = 3000, 6
    filled = rng.random((n, slots)) < 0.8
    duration = np.where(filled, rng.integers(1, 4, (n, slots)), 0).astype(np.int32)
    demand = np.where(filled[..., None], rng.integers(0, 3, (n, slots, 2)), 0).astype(np.int32)
    fits = filled & (rng.random((n, slots)) < 0.7)
    free = rng.integers(0, 3, (n, 5, 2)).astype(np.int32)
    slot_job = np.where(filled, rng.permutation(n * slots).reshape(n, slots), -1).astype(np.int32)
    obs = Observation(features=jnp.zeros((n, 0)), action_mask=jnp.ones((n, slots + 1), bool),
                      fits_now=jnp.asarray(fits), slot_job=jnp.asarray(slot_job),
                      slot_duration=jnp.asarray(duration), slot_demand=jnp.asarray(demand),
                      free=jnp.asarray(free))
    run = jax.jit(jax.vmap(lambda o: (sjf(KEY, o), packer(KEY, o), tetris(KEY, o), fcfs(KEY, o))))
    got = to_numpy(run(obs))
    for kind, column in (("sjf", 0), ("packer", 1), ("tetris", 2)):
        expected = [spec_choice(fits[k], duration[k], demand[k], free[k, 0], kind) for k in range(n)]
        bad = np.flatnonzero(got[column] != np.array(expected))
        assert bad.size == 0, f"{kind}: first mismatch at observation {bad[0] if bad.size else None}"
    oldest = [int(np.argmin(np.where(slot_job[k] >= 0, slot_job[k], np.iinfo(np.int32).max)))
              for k in range(n)]
    expected_fcfs = [o if fits[k, o] else slots for k, o in enumerate(oldest)]
    np.testing.assert_array_equal(got[3], expected_fcfs)
    # Work-conserving: "move on" only when no job with a positive score fits now.
    positive = fits & (duration > 0)
    assert not positive[got[0] == slots].any()
