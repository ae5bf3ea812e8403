"""The bitmask fit search (jaxsched.envs.deeprm.start_windows) against the per-offset scan it replaced
in the earliest-fit step, and the bit-count rank (jaxsched.core.bitops) against a cumulative sum.

Both are exact integer computations, so the checks are equalities over random grids and jobs, with
the edge cases drawn often: empty rows, full rows, a demand above the capacity, durations of 0, 1,
the horizon and past it, a one-row horizon, and 32 rows (a full uint32)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.core.bitops import count_before
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.start_windows import earliest, rows_with_room, start_windows


def reference_offsets(free: np.ndarray, duration: int, demand: np.ndarray) -> np.ndarray:
    """bool[T]: offset o fits when rows o .. o + duration - 1 all lie in the horizon with room (numpy)."""
    rows = free.shape[0]
    room = np.all(free >= demand, axis=-1)
    return np.array([o + duration <= rows and bool(np.all(room[o:o + duration])) for o in range(rows)])


@pytest.mark.parametrize("rows,capacity,num_res", [(20, 10, 2), (20, 10, 1), (12, 6, 3), (1, 3, 2), (32, 4, 2)])
def test_windows_equal_a_row_by_row_search(rows, capacity, num_res):
    rng = np.random.default_rng(rows * 100 + capacity * 10 + num_res)
    n = 600
    free = rng.integers(0, capacity + 1, size=(n, rows, num_res))
    free = np.where(rng.random((n, rows, 1)) < 0.4, capacity, free).astype(np.int32)  # long free stretches
    duration = rng.integers(0, rows + 3, size=n).astype(np.int32)
    demand = rng.integers(0, capacity + 2, size=(n, num_res)).astype(np.int32)
    window = jax.jit(jax.vmap(lambda f, d, q: start_windows(rows_with_room(f, capacity), d, q, rows)))(
        free, duration, demand)
    window = np.asarray(window)
    bits = (window[:, None] >> np.arange(rows, dtype=np.uint32)[None]) & 1 == 1
    for i in range(n):
        want = np.ones(rows, bool) if duration[i] == 0 else reference_offsets(free[i], duration[i], demand[i])
        assert np.array_equal(bits[i], want), (free[i].tolist(), int(duration[i]), demand[i].tolist())
    if rows < 32:
        assert np.all(window >> np.uint32(rows) == 0)  # no bits past the horizon
    first = np.asarray(jax.jit(jax.vmap(earliest))(window))
    assert np.array_equal(first, np.where(bits.any(-1), np.argmax(bits, -1), 0))
    assert 0 < bits.any(-1).mean() < 1  # both outcomes drawn


def test_the_step_matches_the_per_offset_scan():
    """The env's earliest-fit step (bitmasks) gives the offsets of the per-offset scan it keeps for
    ``fits_now`` allocation and horizons past 32 rows."""
    env = DeepRM()
    rng = np.random.default_rng(7)
    n = 2000
    used = np.where(rng.random((n, env.grid_len, 1)) < 0.4, 0,
                    rng.integers(0, env.capacity + 1, size=(n, env.grid_len, env.num_res))).astype(np.int32)
    duration = rng.integers(1, env.horizon + 1, size=n).astype(np.int32)
    demand = rng.integers(1, env.capacity + 1, size=(n, env.num_res)).astype(np.int32)
    offset, fits = jax.jit(jax.vmap(env._earliest_start))(used, duration, demand)
    scanned = jax.jit(jax.vmap(env._start_offsets))(used, duration, demand)
    assert np.array_equal(np.asarray(fits), np.asarray(scanned).any(-1))
    assert np.array_equal(np.asarray(offset), np.asarray(scanned).argmax(-1))
    anywhere, now = jax.jit(jax.vmap(env._slot_fits))(used, duration[:, None], demand[:, None])  # one slot
    assert np.array_equal(np.asarray(anywhere)[:, 0], np.asarray(scanned).any(-1))
    assert np.array_equal(np.asarray(now)[:, 0], np.asarray(scanned)[:, 0])


@pytest.mark.parametrize("n", [1, 10, 32, 33, 50, 64, 70])
def test_count_before_is_an_exclusive_cumulative_sum(n):
    flags = np.random.default_rng(n).random((300, n)) < 0.5
    flags[0], flags[1] = True, False
    got = np.asarray(jax.jit(jax.vmap(count_before))(jnp.asarray(flags)))
    assert np.array_equal(got, np.cumsum(flags, -1) - flags)
