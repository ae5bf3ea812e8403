"""A jobset: the jobs of one episode, as fixed-shape arrays padded to a maximum with a mask.

A jobset is data, not environment configuration: the environment reads it from its params at reset,
so the same jobset can be replayed in N Monte-Carlo rollouts and ``vmap`` runs over jobsets.
Jobs are indexed in arrival order (ties keep their index order); padding rows have ``valid=False``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


@struct.dataclass
class Jobset:
    arrival: jax.Array  # int32[J]   time step at which the job enters the system
    duration: jax.Array  # int32[J]  time steps it runs once started (>= 1 for valid jobs)
    demand: jax.Array  # int32[J, d] units of each resource it holds while running
    valid: jax.Array  # bool[J]     False for padding rows

    @property
    def max_jobs(self) -> int:
        return self.arrival.shape[-1]

    @property
    def num_res(self) -> int:
        return self.demand.shape[-1]


def from_arrays(arrival, duration, demand, max_jobs: int | None = None) -> Jobset:
    """Builds a padded jobset from per-job numpy-like arrays (one row per job, sorted by arrival)."""
    arrival = np.asarray(arrival, dtype=np.int32).reshape(-1)
    duration = np.asarray(duration, dtype=np.int32).reshape(-1)
    demand = np.asarray(demand, dtype=np.int32)
    n = arrival.shape[0]
    if demand.ndim != 2 or demand.shape[0] != n or duration.shape[0] != n:
        raise ValueError(f"arrival {arrival.shape}, duration {duration.shape} and demand {demand.shape} "
                         "must describe the same number of jobs (demand is jobs x resources)")
    if np.any(np.diff(arrival) < 0):
        raise ValueError("jobs must be sorted by arrival time")
    max_jobs = n if max_jobs is None else max_jobs
    if n > max_jobs:
        raise ValueError(f"{n} jobs do not fit in a jobset padded to {max_jobs} jobs")
    pad = max_jobs - n
    return Jobset(
        arrival=jnp.asarray(np.pad(arrival, (0, pad))),
        duration=jnp.asarray(np.pad(duration, (0, pad))),
        demand=jnp.asarray(np.pad(demand, ((0, pad), (0, 0)))),
        valid=jnp.asarray(np.arange(max_jobs) < n),
    )


def stack(jobsets: list[Jobset]) -> Jobset:
    """Stacks equally padded jobsets along a new leading axis (for ``vmap``)."""
    return jax.tree.map(lambda *xs: jnp.stack(xs), *jobsets)
