"""The DeepRM family's data types: the jobset, the env's params, state and observation.

A jobset is the jobs of one episode, as fixed-shape arrays padded to a maximum with a mask. It is
data, not environment configuration: the environment reads it from its params at reset, so the same
jobset can be replayed in N Monte-Carlo rollouts and ``vmap`` runs over jobsets (:func:`with_jobsets`).
Jobs are indexed in arrival order (ties keep their index order); padding rows have ``valid=False``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment


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


@struct.dataclass
class EnvParams(environment.EnvParams):
    jobset: Jobset | None = None
    simu_len: int = 50  # arrivals happen before this time step; all_done waits at least this long
    max_time: int = 1000  # clock cap: the episode is truncated after this many move-ons
    max_steps_in_episode: int = 100_000  # decision cap (gymnax's truncation counter)
    gamma: float = 1.0  # stepping="event": discount of the ticks skipped within one transition


@struct.dataclass
class EnvState(environment.EnvState):
    time: jax.Array  # decisions taken (gymnax's step counter)
    clock: jax.Array  # simulated time step
    jobset: Jobset
    start: jax.Array  # int32[J] start time step, -1 until scheduled
    dropped: jax.Array  # bool[J] arrived while slots and backlog were full
    slots: jax.Array  # int32[M] job index per visible slot, -1 when empty
    backlog: jax.Array  # int32[B] FIFO of job indices, -1 past backlog_len
    backlog_len: jax.Array  # int32
    used: jax.Array  # int32[G, d] units in use at clock + row; G = max(T, max_job_len) (env.grid_len)
    since_arrival: jax.Array  # int32 time steps since the last arrival
    at_submit: jax.Array  # int32[J, 3] at each job's arrival: queue size, queued work (duration x procs), free procs
    # uint8[T, W]: the DeepRM image's 0/1 cells (the last column, time since the last arrival, is 0:
    # get_obs fills it), rewritten by each transition only where it changed; a [1, 1] placeholder for other
    # observations
    image: jax.Array


@struct.dataclass
class Observation:
    """What a policy sees: the network features, the action mask and the slot view heuristics use."""

    features: jax.Array  # image [T, W], compact or bracis vector, or empty
    action_mask: jax.Array  # bool[M+1]: slot holds a job that fits in the horizon; void always valid
    fits_now: jax.Array  # bool[M]: the job can start at the current time step
    slot_job: jax.Array  # int32[M] job index (arrival order), -1 when empty
    slot_duration: jax.Array  # int32[M], 0 when empty
    slot_demand: jax.Array  # int32[M, d], 0 when empty
    free: jax.Array  # int32[T, d] free units per future time step
    # int32[G + 1, d]: free units over the whole occupancy grid (G = env.grid_len >= T) and one row
    # after it, when every placed job has ended (all free). What backfilling needs to see a start
    # time beyond the horizon. None where an Observation is built by hand without it.
    free_profile: jax.Array | None = None


def with_jobsets(params: EnvParams, jobsets: Jobset) -> EnvParams:
    """Params batched along the jobsets' leading axis (other fields broadcast), for ``vmap``."""
    n = jobsets.arrival.shape[0]
    params = params.replace(jobset=None)
    batched = jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x), (n,) + jnp.shape(x)), params)
    return batched.replace(jobset=jobsets)
