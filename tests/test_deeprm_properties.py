"""Property-based tests of the DeepRM environment on random jobsets and random action sequences.

Every example runs one jitted ``lax.scan`` of ``transition`` + ``get_obs`` over a fixed-length
action array on a jobset padded to a fixed size, so the whole test compiles once. The env is
checked step by step against an independent numpy model written from the spec
(``shared/spec/deeprm.md``) and an independent numpy image renderer, and against invariants:
capacity, start-once, finish = start + duration, conservation of jobs.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxsched.envs.deeprm.types import from_arrays

from conftest import PROP, PROP_MAX_JOBS, PROP_SIMU_LEN, to_numpy

M, T, CAP, B = PROP["num_slots"], PROP["horizon"], PROP["capacity"], PROP["backlog_size"]
LMAX, SMAX, D = PROP["max_job_len"], PROP["max_job_size"], 2
BW = math.ceil(B / T)
W = D * (CAP + M * SMAX) + BW + 1
NUM_STEPS = 160

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])




@pytest.fixture(scope="module")
def tiny_prop(kit):
    return kit(**PROP)


# ----------------------------------------------------------------------------------------------
# Strategies


@st.composite
def jobsets(draw, first_arrival: int = 0):
    n = draw(st.integers(1, PROP_MAX_JOBS))
    last = draw(st.integers(first_arrival, PROP_SIMU_LEN - 1))  # a short window makes bursts and drops
    arrival = sorted(draw(st.lists(st.integers(first_arrival, last), min_size=n, max_size=n)))
    duration = draw(st.lists(st.integers(1, LMAX), min_size=n, max_size=n))
    demand = draw(st.lists(st.tuples(st.integers(0, SMAX), st.integers(0, SMAX)), min_size=n, max_size=n))
    return np.array(arrival), np.array(duration), np.array(demand).reshape(n, D)


def random_actions(seed: int, void_weight: float = 1.0) -> np.ndarray:
    p = np.array([1.0] * M + [void_weight])
    return np.random.default_rng(seed).choice(M + 1, size=NUM_STEPS, p=p / p.sum()).astype(np.int32)


# ----------------------------------------------------------------------------------------------
# One compiled scan per environment


_SCANS: dict = {}


def scan_for(kit):
    """jit((params, actions) -> (s0, obs0, per-step (state, reward, terminated, info, obs)))."""
    if kit not in _SCANS:
        env = kit.env

        @jax.jit
        def run(params, actions):
            s0 = env.initial_state(params)

            def body(state, action):
                state, reward, terminated, info = env.transition(state, action, params)
                return state, (state, reward, terminated, info, env.get_obs(state, params))

            _, out = jax.lax.scan(body, s0, actions)
            return s0, env.get_obs(s0, params), out

        _SCANS[kit] = run
    return _SCANS[kit]


def run_scan(kit, arrival, duration, demand, actions):
    jobset = from_arrays(arrival, duration, demand, max_jobs=PROP_MAX_JOBS)
    params = kit.params(jobset, simu_len=PROP_SIMU_LEN)
    s0, obs0, (states, rewards, terminated, info, obs) = to_numpy(scan_for(kit)(params, jnp.asarray(actions)))
    pick = lambda tree, k: jax.tree.map(lambda x: x[k], tree)
    steps = [(pick(states, k), float(rewards[k]), bool(terminated[k]), pick(info, k), pick(obs, k))
             for k in range(len(actions))]
    return s0, obs0, steps


# ----------------------------------------------------------------------------------------------
# Independent numpy model of the spec


class Model:
    """DeepRM as the spec words it: slots, FIFO backlog, drops, earliest fit in 0..T-len, move on."""

    def __init__(self, arrival, duration, demand, simu_len, reward="slowdown"):
        self.arrival, self.duration, self.demand = arrival, duration, demand
        self.n, self.simu_len, self.reward = len(arrival), simu_len, reward
        self.clock, self.since = 0, 0
        self.start = np.full(self.n, -1)
        self.dropped = np.zeros(self.n, bool)
        self.slots = [-1] * M
        self.backlog: list[int] = []
        self.used = np.zeros((T, D), int)
        self._admit()

    def _admit(self) -> int:
        arriving = [j for j in range(self.n) if self.arrival[j] == self.clock]
        for j in arriving:
            if -1 in self.slots:
                self.slots[self.slots.index(-1)] = j
            elif len(self.backlog) < B:
                self.backlog.append(j)
            else:
                self.dropped[j] = True
        return len(arriving)

    def offsets(self, j) -> list[int]:
        d = self.duration[j]
        return [o for o in range(T - d + 1) if np.all(self.used[o:o + d] + self.demand[j] <= CAP)]

    def in_system(self) -> np.ndarray:
        finished = (self.start >= 0) & (self.start + self.duration <= self.clock)
        return (self.arrival <= self.clock) & ~self.dropped & ~finished

    def step(self, action: int):
        if action < M and self.slots[action] >= 0 and self.offsets(self.slots[action]):
            job = self.slots[action]
            offset = self.offsets(job)[0]
            self.start[job] = self.clock + offset
            self.used[offset:offset + self.duration[job]] += self.demand[job]
            self.slots[action] = self.backlog.pop(0) if self.backlog else -1
            return 0.0, False, True
        elapsed = self.used[0].copy()
        self.used = np.vstack([self.used[1:], np.zeros((1, D), int)])
        self.clock += 1
        self.since = 0 if self._admit() else self.since + 1
        inside = self.in_system()
        reward = {"slowdown": -np.sum(1.0 / self.duration[inside]),
                  "completion_time": -float(np.sum(inside)),
                  "utilisation": float(np.sum(elapsed / CAP))}[self.reward]
        pending = np.any(self.arrival > self.clock)
        return reward, bool(self.clock >= self.simu_len and not pending and not inside.any()), False


def render(used, slot_duration, slot_demand, backlog_len, since) -> np.ndarray:
    """The spec's image: per resource occupancy then M slot blocks; backlog row-major; since/10."""
    img = np.zeros((T, W), np.float32)
    col = 0
    for r in range(D):
        for t in range(T):
            img[t, col:col + used[t, r]] = 1
        col += CAP
        for i in range(M):
            img[:slot_duration[i], col:col + slot_demand[i, r]] = 1
            col += SMAX
    for k in range(backlog_len):
        img[k // BW, col + k % BW] = 1
    img[:, col + BW] = min(since / 10, 1.0)
    return img


def model_obs(model: Model) -> dict:
    dur = np.array([model.duration[j] if j >= 0 else 0 for j in model.slots])
    dem = np.array([model.demand[j] if j >= 0 else (0,) * D for j in model.slots]).reshape(M, D)
    offsets = [model.offsets(j) if j >= 0 else [] for j in model.slots]
    return dict(slot_job=np.array(model.slots), slot_duration=dur, slot_demand=dem,
                fits_now=np.array([0 in o for o in offsets]),
                action_mask=np.array([bool(o) for o in offsets] + [True]),
                free=CAP - model.used,
                features=render(model.used, dur, dem, len(model.backlog), model.since))


def same(actual, expected, what: str) -> None:
    """Exact equality (a fast check; numpy's detailed report only on failure)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape or not np.array_equal(actual, expected):
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def assert_state_matches_model(state, model: Model, where: str) -> None:
    n = model.n
    assert int(state.clock) == model.clock, where
    same(state.start[:n], model.start, f"start {where}")
    same(state.dropped[:n], model.dropped, f"dropped {where}")
    same(state.slots, model.slots, f"slots {where}")
    assert int(state.backlog_len) == len(model.backlog), where
    same(state.backlog, model.backlog + [-1] * (B - len(model.backlog)), f"backlog {where}")
    same(state.used, model.used, f"used {where}")
    assert int(state.since_arrival) == model.since, where


def assert_obs_matches_model(obs, model: Model, where: str) -> None:
    for name, expected in model_obs(model).items():
        actual = getattr(obs, name)
        if name == "features":  # 0/1 cells exact; since/10 to float32 rounding (XLA may use * 0.1)
            assert actual.dtype == np.float32
            same(actual[:, :-1], expected[:, :-1], f"obs.features {where}")
            np.testing.assert_allclose(actual[:, -1], expected[:, -1], rtol=0, atol=1e-7,
                                       err_msg=f"obs.features last column {where}")
        else:
            same(actual, expected, f"obs.{name} {where}")


# ----------------------------------------------------------------------------------------------
# Invariants, checked on the env's own states


def check_invariants(state, arrival, duration, demand, previous=None, action=None) -> None:
    n = len(arrival)
    clock = int(state.clock)
    start, used = state.start[:n], state.used
    # Never above capacity, never negative.
    assert (used <= CAP).all() and (used >= 0).all(), used
    # The grid is exactly the sum of the jobs running at each future step (finish = start + dur).
    rows = clock + np.arange(T)[:, None]
    running = (start[None, :] >= 0) & (start[None, :] <= rows) & (rows < (start + duration)[None, :])
    same(used, running.astype(int) @ demand, "used grid vs running jobs")
    # A job never starts before its arrival; padding rows never start, never drop.
    scheduled = start >= 0
    assert (start[scheduled] >= arrival[scheduled]).all()
    assert (state.start[n:] == -1).all() and not state.dropped[n:].any()
    # Each valid job in exactly one category.
    in_slots = np.zeros(n, int)
    for j in state.slots[state.slots >= 0]:
        in_slots[j] += 1
    backlog = state.backlog[: int(state.backlog_len)]
    assert (state.backlog[int(state.backlog_len):] == -1).all()
    in_backlog = np.zeros(n, int)
    for j in backlog:
        in_backlog[j] += 1
    assert in_slots.max(initial=0) <= 1 and in_backlog.max(initial=0) <= 1, "duplicates"
    assert (np.diff(backlog) > 0).all(), "backlog is FIFO in arrival order"
    if len(backlog):
        assert (state.slots >= 0).all(), "a backlogged job waits while a slot is empty"
    finished = scheduled & (start + duration <= clock)
    running_now = scheduled & ~finished
    not_arrived = arrival > clock
    categories = np.stack([finished, running_now, in_slots == 1, in_backlog == 1, state.dropped[:n],
                           not_arrived]).astype(int)
    same(categories.sum(axis=0), np.ones(n, int),
         f"jobs per category (finished, running, slot, backlog, dropped, future):\n{categories}")
    # Scheduled, slotted and backlogged jobs have arrived; dropped ones arrived at some step.
    assert not (not_arrived & (scheduled | state.dropped[:n])).any()
    if previous is not None:
        prev_start = previous.start[:n]
        was = prev_start >= 0
        same(start[was], prev_start[was], "a job started twice")
        new = np.flatnonzero((start >= 0) & ~was)
        assert len(new) <= 1
        for j in new:  # scheduled now, from the slot chosen, within the horizon
            assert int(previous.clock) == clock and previous.slots[action] == j
            assert clock <= start[j] and start[j] + duration[j] <= clock + T
        newly_dropped = state.dropped[:n] & ~previous.dropped[:n]
        if newly_dropped.any():  # only arrivals of a move-on, only into full slots and backlog
            assert clock == int(previous.clock) + 1
            assert (arrival[newly_dropped] == clock).all()
            assert int(state.backlog_len) == B and (state.slots >= 0).all()


# ----------------------------------------------------------------------------------------------
# Properties


@SETTINGS
@given(jobset=jobsets(), seed=st.integers(0, 2**32 - 1), void_weight=st.sampled_from([0.3, 1.0, 3.0]))
def test_env_matches_spec_model_and_invariants(tiny_prop, jobset, seed, void_weight):
    arrival, duration, demand = jobset
    actions = random_actions(seed, void_weight)
    s0, obs0, steps = run_scan(tiny_prop, arrival, duration, demand, actions)
    model = Model(arrival, duration, demand, PROP_SIMU_LEN)
    assert_state_matches_model(s0, model, "at reset")
    assert_obs_matches_model(obs0, model, "at reset")
    check_invariants(s0, arrival, duration, demand)
    previous = s0
    for k, (action, (state, reward, terminated, info, obs)) in enumerate(zip(actions, steps)):
        where = f"after decision {k} (action {action})"
        expected_reward, expected_terminated, expected_scheduled = model.step(int(action))
        assert_state_matches_model(state, model, where)
        assert_obs_matches_model(obs, model, where)
        assert abs(reward - expected_reward) <= 1e-5, where
        assert terminated == expected_terminated, where
        assert bool(info["scheduled"]) == expected_scheduled, where
        assert int(info["dropped"]) == int(model.dropped.sum()) == int(state.dropped.sum()), where
        assert int(state.time) == k + 1
        check_invariants(state, arrival, duration, demand, previous, int(action))
        previous = state


@SETTINGS
@given(jobset=jobsets(first_arrival=1), seed=st.integers(0, 2**32 - 1))
def test_slowdown_return_is_minus_sum_of_slowdowns(tiny_prop, jobset, seed):
    """gamma = 1, every job arriving at t >= 1, episode ended by all_done: the return is
    -sum over jobs of (finish - arrival) / duration (dropped jobs never enter the system)."""
    arrival, duration, demand = jobset
    actions = random_actions(seed, void_weight=0.5)
    _, _, steps = run_scan(tiny_prop, arrival, duration, demand, actions)
    done = [k for k, step in enumerate(steps) if step[2]]
    assert done, "the random episode did not finish within NUM_STEPS decisions"
    end = done[0]
    final = steps[end][0]
    start = final.start[: len(arrival)]
    kept = ~final.dropped[: len(arrival)]
    assert (start[kept] >= 0).all() and (start[~kept] == -1).all()
    finish = start + duration
    assert (finish[kept] <= int(final.clock)).all()
    slowdown_return = sum(np.float64(step[1]) for step in steps[: end + 1])
    expected = -np.sum((finish - arrival)[kept] / duration[kept])
    assert abs(slowdown_return - expected) <= 1e-5 * max(1.0, abs(expected))
