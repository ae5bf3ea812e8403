"""Grid workloads: a synthetic generator fitted to the paper's Table 1, and SWF traces as grid jobs.

**Synthetic (Table 1 of the paper; one core per job).**
- Class: interactive with probability 4480 / 9500.
- Interactive runtimes: 276.8 s x Beta(0.3480, 0.2540), i.e. a U-shaped mix of very short and
  ~4-minute jobs; its mean, median and standard deviation are exactly Table 1's 160 / 190 / 108 s
  (three parameters solved for three moments by least squares, scipy, once).
- Batch runtimes: 4953 s + LogNormal(9.2744, 1.4378): mean 34927, median 15615, std 78755 s,
  again solved exactly (a two-parameter lognormal cannot hit all three; the shift is the third).
- Runtimes are rounded to whole seconds (>= 1; interactive < 900 s, batch >= 900 s by construction).
- VO: drawn with the fair-share targets as probabilities (``vo_shares``).
- Arrivals: bursty, a Markov chain over arrivals between a calm and a burst regime (mean burst of
  ``burst_jobs`` arrivals, ``burst_fraction`` of all arrivals in bursts, arriving ``burst_factor``
  times faster), scaled so that the offered utilisation (arrival rate x mean runtime / cores) is
  ``load`` = 0.56 on 81 cores, as the paper's trace. With the defaults the offered load is ~0.41
  in calm periods and ~3.3 during bursts. Inter-arrival times are whole seconds (simultaneous
  submissions happen).

**SWF** (:func:`jobs_from_swf`): interactive when runtime < 900 s; VO from the group id (the user id
where groups are unknown): the 6 ids with the most jobs are VOs 0..5, every other id is VO 6 (the
paper's last share also aggregates the small VOs). Jobs asking for more than one processor are
handled explicitly by ``multi_core``: ``"error"`` (default, a message with their count), ``"drop"``
(counted in the returned info) or ``"split"`` (k one-core jobs of the same runtime: counted as k cores).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from scipy.special import betaincinv

from jaxsched.envs.grid.types import BATCH, INTERACTIVE, INTERACTIVE_BELOW, PAPER_VO_SHARES, GridJobs, jobs_from_arrays
from jaxsched.errors import InputError
from jaxsched.workloads.swf import read_swf

TABLE1 = {"interactive": dict(jobs=4480, mean=160.0, median=190.0, std=108.0),
          "batch": dict(jobs=5020, mean=34927.0, median=15615.0, std=78755.0)}
MULTI_CORE_POLICIES = ("error", "drop", "split")


@dataclasses.dataclass(frozen=True)
class Workload:
    """The synthetic generator's parameters (defaults: fitted to Table 1, see the module docstring)."""

    num_cores: int = 81  # the offered load is relative to this many cores
    load: float = 0.56
    interactive_fraction: float = 4480 / 9500
    interactive_beta: tuple = (0.3480273, 0.2540397)
    interactive_scale: float = 276.790688
    batch_shift: float = 4953.19341
    batch_log_mean: float = 9.27442316
    batch_log_std: float = 1.43781501
    vo_shares: tuple = PAPER_VO_SHARES
    burst_fraction: float = 0.3  # share of arrivals in the burst regime
    burst_jobs: float = 200.0  # mean arrivals per burst
    burst_factor: float = 8.0  # arrival rate in bursts / in calm

    def __post_init__(self):
        if self.num_cores < 1 or self.load <= 0 or not 0 <= self.interactive_fraction <= 1:
            raise ValueError("need num_cores >= 1, load > 0 and 0 <= interactive_fraction <= 1")
        if not 0 < self.burst_fraction < 1 or self.burst_jobs < 1 or self.burst_factor < 1:
            raise ValueError("need 0 < burst_fraction < 1, burst_jobs >= 1, burst_factor >= 1")

    @property
    def mean_runtime(self) -> float:
        a, b = self.interactive_beta
        interactive = self.interactive_scale * a / (a + b)
        batch = self.batch_shift + float(np.exp(self.batch_log_mean + self.batch_log_std ** 2 / 2))
        return self.interactive_fraction * interactive + (1 - self.interactive_fraction) * batch

    @property
    def mean_interarrival(self) -> float:
        return self.mean_runtime / (self.load * self.num_cores)


@functools.partial(jax.jit, static_argnums=(1, 2))
def generate(key: jax.Array, workload: Workload, num_jobs: int) -> GridJobs:
    """``num_jobs`` synthetic jobs (jittable; ``num_jobs`` static), submit times from 0."""
    class_key, inter_key, batch_key, vo_key, regime_key, gap_key = jax.random.split(key, 6)
    interactive = jax.random.uniform(class_key, (num_jobs,)) < workload.interactive_fraction
    short = workload.interactive_scale * jnp.interp(jax.random.uniform(inter_key, (num_jobs,)), *_beta_quantiles(
        workload.interactive_beta))
    long = workload.batch_shift + jnp.exp(workload.batch_log_mean
                                          + workload.batch_log_std * jax.random.normal(batch_key, (num_jobs,)))
    short = jnp.clip(jnp.round(short), 1, INTERACTIVE_BELOW - 1)
    long = jnp.clip(jnp.round(long), INTERACTIVE_BELOW, 2**30 // 4)
    runtime = jnp.where(interactive, short, long).astype(jnp.int32)
    vo = jax.random.categorical(vo_key, jnp.log(jnp.asarray(workload.vo_shares, jnp.float32)), shape=(num_jobs,))

    leave_burst = 1.0 / workload.burst_jobs  # chain over arrivals with stationary burst share burst_fraction
    enter_burst = leave_burst * workload.burst_fraction / (1 - workload.burst_fraction)

    def regime_step(in_burst, u):
        switch = jnp.where(in_burst, u < leave_burst, u < enter_burst)
        return in_burst ^ switch, in_burst

    _, in_burst = jax.lax.scan(regime_step, jnp.bool_(False), jax.random.uniform(regime_key, (num_jobs,)))
    calm_mean = workload.mean_interarrival / ((1 - workload.burst_fraction)
                                              + workload.burst_fraction / workload.burst_factor)
    mean_gap = jnp.where(in_burst, calm_mean / workload.burst_factor, calm_mean)
    gaps = jnp.floor(mean_gap * jax.random.exponential(gap_key, (num_jobs,))).astype(jnp.int32)
    submit = jnp.cumsum(gaps.at[0].set(0))
    return GridJobs(submit=submit, runtime=runtime, klass=jnp.where(interactive, INTERACTIVE, BATCH).astype(jnp.int32),
                    vo=vo.astype(jnp.int32), valid=jnp.ones(num_jobs, bool))


@functools.lru_cache(maxsize=8)
def _beta_quantiles(beta: tuple, points: int = 4097) -> tuple[np.ndarray, np.ndarray]:
    """``(u, x)``: the Beta(a, b) inverse CDF on a grid, for sampling by interpolation (jax.random.beta's
    rejection loop costs seconds of compilation; the grid's error is far below a second of runtime)."""
    u = np.linspace(0.0, 1.0, points)
    return u.astype(np.float32), betaincinv(beta[0], beta[1], u).astype(np.float32)


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def generate_many(key: jax.Array, workload: Workload, num_jobs: int, count: int) -> GridJobs:
    return jax.vmap(lambda k: generate(k, workload, num_jobs))(jax.random.split(key, count))


def vo_of_ids(ids: np.ndarray, num_vos: int = 7) -> np.ndarray:
    """The ``num_vos - 1`` ids with the most jobs become VOs 0.. in that order; all others the last VO."""
    values, counts = np.unique(ids, return_counts=True)
    order = values[np.lexsort((values, -counts))][:num_vos - 1]
    vo = np.full(ids.shape, num_vos - 1, np.int64)
    for rank, value in enumerate(order):
        vo[ids == value] = rank
    return vo


def jobs_from_swf(path, multi_core: str = "error", num_vos: int = 7):
    """``(submit, runtime, vo, info)`` numpy columns of an SWF trace as one-core grid jobs (submit from
    the trace's first job). ``info`` counts what the conversion did."""
    if multi_core not in MULTI_CORE_POLICIES:
        raise InputError(f"multi_core must be one of {', '.join(MULTI_CORE_POLICIES)}, got {multi_core!r}")
    trace = read_swf(path)
    if trace.num_jobs == 0:
        raise InputError(f"{path}: no jobs left after cleaning ({trace.skipped})")
    wide = trace.procs > 1
    info = {"path": str(path), "swf_jobs": trace.num_jobs, "skipped": dict(trace.skipped),
            "multi_core_jobs": int(wide.sum()), "multi_core": multi_core}
    ids = trace.group if trace.group is not None and np.any(trace.group >= 0) else trace.user
    ids = np.zeros(trace.num_jobs, np.int64) if ids is None else ids
    info["vo_from"] = "group" if ids is trace.group else "user"
    vo = vo_of_ids(ids, num_vos)
    submit, runtime = trace.submit - trace.submit[0], trace.run_time
    if wide.any():
        if multi_core == "error":
            raise InputError(f"{path}: {int(wide.sum())} of {trace.num_jobs} jobs ask for more than one processor "
                             "(the grid site runs one core per job); choose multi_core 'drop' to leave them out "
                             "or 'split' to run a k-processor job as k one-core jobs (evaluate: --multi-core)")
        repeat = np.where(wide, trace.procs if multi_core == "split" else 0, 1)
        submit, runtime, vo = (np.repeat(x, repeat) for x in (submit, runtime, vo))
    info["jobs"] = int(submit.shape[0])
    return submit, runtime, vo, info


def swf_windows(path, window: int, multi_core: str = "error", num_vos: int = 7, max_windows: int | None = None):
    """Consecutive windows of ``window`` jobs of an SWF trace as batched ``GridJobs`` (times relative to
    each window's first submit), and the conversion's info."""
    submit, runtime, vo, info = jobs_from_swf(path, multi_core, num_vos)
    count = submit.shape[0] // window
    if count == 0:
        raise InputError(f"{path}: {submit.shape[0]} jobs, fewer than one window of {window}")
    count = count if max_windows is None else min(count, max_windows)
    windows = [jobs_from_arrays(submit[i * window:(i + 1) * window] - submit[i * window],
                                runtime[i * window:(i + 1) * window], vo[i * window:(i + 1) * window])
               for i in range(count)]
    info.update(windows=count, window=window)
    return jax.tree.map(lambda *xs: jnp.stack(xs), *windows), info
