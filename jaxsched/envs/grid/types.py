"""The grid family's data types: a window of jobs (the instance), the env's params, state and observation.

Times are **int32 seconds relative to the window's start**: exact arithmetic up to 68 years, where
float32 seconds lose whole seconds after ~194 days (2^24 s). Only sums used as ratios (service
per VO, completed and provisioned core-seconds) are float32.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment

INTERACTIVE, BATCH = 0, 1  # job classes; interactive = runtime < 900 s (the paper's split)
NUM_CLASSES = 2
INTERACTIVE_BELOW = 900  # seconds
NEVER = np.int32(2**31 - 1)  # "no such event" time
PAPER_VO_SHARES = (0.53, 0.02, 0.17, 0.08, 0.01, 0.16, 0.03)  # fair-share targets of the 7 VOs


@struct.dataclass
class GridJobs:
    """One window of jobs in submit order, padded to a fixed length; valid jobs form a prefix."""

    submit: jax.Array  # int32[J] seconds from the window's start, non-decreasing
    runtime: jax.Array  # int32[J] seconds, >= 1
    klass: jax.Array  # int32[J] INTERACTIVE / BATCH
    vo: jax.Array  # int32[J] virtual organisation, 0..V-1
    valid: jax.Array  # bool[J]

    @property
    def length(self) -> int:
        return self.submit.shape[-1]


def jobs_from_arrays(submit, runtime, vo, length: int | None = None) -> GridJobs:
    """``GridJobs`` from numpy columns (class from the runtime), padded to ``length`` (default: as many)."""
    submit, runtime, vo = (np.asarray(x, np.int64) for x in (submit, runtime, vo))
    n = submit.shape[0]
    length = n if length is None else int(length)
    if n > length:
        raise ValueError(f"{n} jobs do not fit a window of {length}")
    if n and (np.any(np.diff(submit) < 0) or submit[0] < 0):
        raise ValueError("submit times must be >= 0 and non-decreasing")
    if np.any(runtime < 1):
        raise ValueError("runtimes must be >= 1 s")
    if n and submit.max() + runtime.sum() >= NEVER:  # a bound on any finish time, whatever the schedule
        raise ValueError("times could exceed int32 seconds (68 years): the last submit plus the total runtime "
                         "is too large; cut the trace into shorter windows")

    def pad(x, fill):
        out = np.full(length, fill, np.int32)
        out[:n] = x
        return jnp.asarray(out)

    klass = np.where(runtime < INTERACTIVE_BELOW, INTERACTIVE, BATCH)
    last = submit[-1] if n else 0
    return GridJobs(submit=pad(submit, last), runtime=pad(runtime, 1), klass=pad(klass, 0), vo=pad(vo, 0),
                    valid=jnp.asarray(np.arange(length) < n))


@struct.dataclass
class EnvParams(environment.EnvParams):
    jobs: GridJobs | None = None
    weight: float = 0.5  # λ_s (rigid: W vs fairness F) or λ_e (elastic: W vs utilisation U)
    prior_runtime: tuple = (300.0, 3600.0)  # class runtime estimates before any job of it completed
    max_steps_in_episode: int = 1_000_000  # one decision dispatches one job: never reached by a window


@struct.dataclass
class EnvState(environment.EnvState):
    time: jax.Array  # decisions taken (= jobs dispatched)
    clock: jax.Array  # int32 seconds
    jobs: GridJobs
    start: jax.Array  # int32[J] dispatch time, -1 until dispatched
    fairness: jax.Array  # float32[J] F_j at the job's election (0 until then)
    pool_at_start: jax.Array  # int32[J] pool size right after the job's dispatch decision
    arrived: jax.Array  # int32: jobs [0, arrived) have been submitted
    queue: jax.Array  # int32[C] the listed waiting jobs in submit order, -1 past the last (C = queue capacity)
    queue_len: jax.Array  # int32 listed waiting jobs
    listed: jax.Array  # int32: jobs [0, listed) have been listed; [listed, arrived) wait beyond the capacity
    queue_peak: jax.Array  # int32 the most jobs waiting at a decision so far
    hidden: jax.Array  # int32 decisions taken while some waiting job was beyond the capacity
    candidates: jax.Array  # int32[K] the candidate jobs (default: the whole queue), -1 past the last
    slot_job: jax.Array  # int32[P] job running on each core slot, -1 idle
    slot_finish: jax.Array  # int32[P] its finish time (NEVER when idle)
    slot_runtime: jax.Array  # int32[P] its runtime, 0 when idle
    slot_class: jax.Array  # int32[P] its class
    slot_score: jax.Array  # float32[P] the part of its reward known at dispatch: λ W + (1 − λ) F (elastic: λ W)
    waiting_by_class: jax.Array  # int32[2]
    waiting_by_vo: jax.Array  # int32[V]
    backlog: jax.Array  # int32 true work (s) of the waiting jobs
    service_by_vo: jax.Array  # float32[V] runtime of the jobs dispatched so far, per VO
    completed_by_class: jax.Array  # float32[2] runtime of completed jobs (for the class means)
    count_by_class: jax.Array  # int32[2] completed jobs per class
    recent_runtime: jax.Array  # int32[2, E] ring of the last E completed runtimes per class (estimated model)
    completed_work: jax.Array  # float32 core-seconds of completed jobs (U's numerator)
    provisioned: jax.Array  # float32 core-seconds provisioned so far (U's denominator)
    pool: jax.Array  # int32 cores in service (rigid: P)
    last_pool_change: jax.Array  # int32 clock of the last pool change


@struct.dataclass
class Observation:
    """What a policy sees: flat network ``features``, the ``action_mask``, and raw fields heuristics use."""

    features: jax.Array  # float32[F]: site state, then K candidates (default: the whole queue) x (class, VO one-hot, log exec, log wait)
    action_mask: jax.Array  # bool[K * S]: action = slot * S + pool-size index (rigid: S = 1)
    job: jax.Array  # int32[K] candidate job indices, -1 empty
    klass: jax.Array  # int32[K]
    vo: jax.Array  # int32[K]
    exec_time: jax.Array  # float32[K] seconds under the runtime model
    wait: jax.Array  # float32[K] seconds waited so far
    class_mean: jax.Array  # float32[2] mean runtime of completed jobs per class (prior before any)
    vo_deficit: jax.Array  # float32[V] target share minus delivered share
    running: jax.Array  # int32 jobs running
    queued: jax.Array  # int32 jobs waiting
    pool: jax.Array  # int32 cores in service
    size_allowed: jax.Array  # bool[S] pool sizes the agent may pick now (rigid: [True])
    pool_sizes: jax.Array  # int32[S] the sizes (rigid: [P])
