"""The closed-form FIFO (:func:`fifo_starts`) equals the env's FIFO episode and the heapq simulator job for
job, including ties, bursts that queue and padding."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.envs.grid.fifo import fifo_starts
from jaxsched.envs.grid.heapq_sim import simulate_fifo
from jaxsched.envs.grid.types import jobs_from_arrays
from jaxsched.registry import build


def test_closed_form_fifo_equals_the_env_and_heapq_on_sampled_windows():
    variant = build("grid", num_jobs=300, exclude=0, num_cores=5)  # a small site: long queues
    params = variant.sample_params(jax.random.PRNGKey(3), 4)
    final, _ = variant.run_episodes(variant.heuristic("fifo"), params, jax.random.PRNGKey(0))
    fast = np.asarray(jax.jit(jax.vmap(lambda jobs: fifo_starts(jobs, 5)))(params.jobs))
    np.testing.assert_array_equal(fast, np.asarray(final.start[:, 0]))
    columns = jax.tree.map(np.asarray, params.jobs)
    for i in range(4):
        np.testing.assert_array_equal(fast[i], simulate_fifo(columns.submit[i], columns.runtime[i], num_cores=5)[0])
    assert np.any(fast > columns.submit)  # some jobs waited: the recursion was exercised


def test_ties_and_padding():
    # two cores; three jobs at t = 0, one finishing exactly when the fourth arrives (terminations first)
    jobs = jobs_from_arrays([0, 0, 0, 4, 4], [4, 9, 2, 1, 1], [0, 0, 0, 0, 0], length=7)
    got = np.asarray(fifo_starts(jobs, 2))
    want, _ = simulate_fifo([0, 0, 0, 4, 4], [4, 9, 2, 1, 1], num_cores=2)
    np.testing.assert_array_equal(got[:5], want)
    np.testing.assert_array_equal(got[5:], [-1, -1])
    assert list(got[:5]) == [0, 0, 4, 6, 7]
    assert fifo_starts(jobs, 2).dtype == jnp.int32
