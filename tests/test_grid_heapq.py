"""The JAX grid site under FIFO against the plain-Python heapq simulator: identical start times, job
for job (one compile: every window is padded to the same length and run in one batch)."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.baselines.grid import make_heuristic
from jaxsched.bench.grid import bench_grid
from jaxsched.core.rollout import run_episode
from jaxsched.envs.grid.heapq_sim import simulate_fifo
from jaxsched.envs.grid.env import GridSite
from jaxsched.envs.grid.types import EnvParams, jobs_from_arrays
from jaxsched.envs.grid.variants import GridVariant
from jaxsched.envs.grid.workload import Workload, generate

CORES, LENGTH = 8, 300


def test_simulator_by_hand():
    # one core: job 0 ends at 5 when job 1 arrives (termination first, so job 1 starts at 5)
    assert simulate_fifo([0, 5, 5, 6], [5, 2, 1, 1], num_cores=1) == ([0, 5, 7, 8], 4)
    # two cores: job 2 waits for job 1 (ends at 1); job 3, submitted at 1, is younger and waits longer
    assert simulate_fifo([0, 0, 0, 1], [3, 1, 2, 1], num_cores=2) == ([0, 0, 1, 3], 4)
    assert simulate_fifo([], [], num_cores=3) == ([], 0)


def _windows():
    """(name, GridJobs of LENGTH, number of valid jobs)."""
    rng = np.random.default_rng(0)
    windows = []
    synthetic = jax.jit(generate, static_argnums=(1, 2))  # one compile, not op by op
    for seed in range(3):  # the synthetic Table 1 workload, scaled to 8 cores
        windows.append((f"synthetic{seed}", synthetic(jax.random.PRNGKey(seed), Workload(num_cores=CORES), LENGTH),
                        LENGTH))
    # many simultaneous submissions: bursts of 1..40 jobs at the same second (more than the env's
    # arrival chunk and than the cores), short and long jobs, finishes coinciding with arrivals
    sizes = rng.integers(1, 41, size=LENGTH)
    submit = np.repeat(np.cumsum(rng.integers(0, 300, size=LENGTH)), sizes)[:LENGTH]
    runtime = rng.choice([1, 60, 100, 300, 1000, 5000], size=LENGTH)
    windows.append(("simultaneous", jobs_from_arrays(submit, runtime, rng.integers(0, 7, LENGTH)), LENGTH))
    # everything at time 0 with equal runtimes: waves of 8 finishing together
    windows.append(("all_at_once", jobs_from_arrays(np.zeros(LENGTH), np.full(LENGTH, 50), np.zeros(LENGTH)), LENGTH))
    # a padded window: 250 valid jobs (the padding never starts)
    n = 250
    submit = np.sort(rng.integers(0, 20_000, size=n))
    windows.append(("padded", jobs_from_arrays(submit, rng.integers(1, 3000, size=n), rng.integers(0, 7, n),
                                               length=LENGTH), n))
    return windows


@pytest.fixture(scope="module")
def episodes():
    # the registered "grid" variant at 8 cores (built directly: registry.build draws a default window op by op)
    variant = GridVariant(name="grid", env=GridSite(num_cores=CORES), workload=Workload(num_cores=CORES),
                          params=EnvParams(weight=0.5), num_jobs=LENGTH, exclude=0)
    windows = _windows()
    batched = variant.with_jobs(jax.tree.map(lambda *xs: jnp.stack(xs), *[w for _, w, _ in windows]))
    final, _ = variant.run_episodes(make_heuristic("fifo"), batched, jax.random.PRNGKey(0))
    return variant, windows, batched, np.asarray(final.start[:, 0]), np.asarray(final.time[:, 0])


def test_fifo_start_times_match_the_heapq_simulator(episodes):
    _, windows, _, start, decisions = episodes
    for i, (name, jobs, n) in enumerate(windows):
        expected, count = simulate_fifo(np.asarray(jobs.submit)[:n], np.asarray(jobs.runtime)[:n],
                                        np.asarray(jobs.klass)[:n], np.asarray(jobs.vo)[:n], num_cores=CORES)
        mismatch = np.nonzero(start[i, :n] != np.asarray(expected))[0]
        assert mismatch.size == 0, f"{name}: {mismatch.size} jobs differ, first {mismatch[:5].tolist()}"
        assert (start[i, n:] == -1).all(), name
        assert count == n and decisions[i] == n, name


def test_run_episode_agrees(episodes):
    # the generic engine (a while_loop to the episode's end) on the simultaneous-submission window
    variant, windows, batched, start, _ = episodes
    i = [name for name, _, _ in windows].index("simultaneous")
    params = jax.tree.map(lambda x: x[i], batched)
    result = jax.jit(lambda p: run_episode(variant.env, p, make_heuristic("fifo"), jax.random.PRNGKey(0)))(params)
    assert np.array_equal(np.asarray(result.state.start), start[i])
    assert int(result.decisions) == LENGTH and bool(result.terminated)


def test_the_grid_bench_checks_both_references_and_times_them_on_one_core(tmp_path):
    """``bench grid`` at a tiny size: FIFO against the heapq simulator and SJF against the Python RL loop,
    start times checked job for job first (a mismatch would exit), both sides of a one-device row timed
    with every thread pinned to one core, and the cores written beside each ratio."""
    out = tmp_path / "bench_grid.json"
    rows = bench_grid([1], num_jobs=20, repeats=1, out=out, reference_windows=1)
    written = json.loads(out.read_text())
    (fifo,), (sjf,) = written["rows"], written["reference_rows"]
    for row in (fifo, sjf):
        assert row["batch"] == 1 and row["devices"] == 1 and row["checked_windows"] == 1
        assert row["cores"] == {"jax": 1, "python": 1, "pinned": True} and row["ratio"] > 0
    assert fifo["jax_decisions"] == fifo["python_decisions"] == 20
    assert rows[0]["reference"]["ratio"] == sjf["ratio"]
    # the closed-form FIFO (its starts checked equal to the env's) gets its own rate and ratio
    assert fifo["fast_ratio"] == pytest.approx(fifo["fast_decisions_per_s"] / fifo["python_decisions_per_s"])
    table = out.with_suffix(".md").read_text()
    assert "both in one process pinned to one core" in table and "FIFO-only / Python" in table
