"""FIFO on the rigid grid site in closed form: every job takes one core of P identical ones, so
first-in-first-out starts job i at max(its submit time, the earliest time a core is free once the jobs
before it have taken theirs), the P-server queue's recursion. One scan step per job over a P-vector of
core free times, where the env's decision reads its whole queue: what FIFO's start times alone need,
equal job for job to the env's FIFO and to :func:`jaxsched.envs.grid.heapq_sim.simulate_fifo`
(tests/test_grid_fifo.py), and the JAX side of ``bench grid``'s FIFO-only row.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxsched.envs.grid.types import GridJobs


def fifo_starts(jobs: GridJobs, num_cores: int) -> jax.Array:
    """int32[J]: each job's start time under FIFO on ``num_cores`` cores free at time 0 (-1 for padding).

    Starts never go backwards: a job that waits does so because every core is busy past its submit time,
    so the next job (submitted no earlier) finds them busy until then too."""
    def start_next(free, job):
        submit, runtime, valid = job
        core = jnp.argmin(free)  # the earliest free core (any of equal ones: they are interchangeable)
        start = jnp.maximum(submit, free[core])
        return jnp.where(valid, free.at[core].set(start + runtime), free), jnp.where(valid, start, -1)

    free = jnp.zeros(num_cores, jobs.submit.dtype)
    return jax.lax.scan(start_next, free, (jobs.submit, jobs.runtime, jobs.valid))[1]
