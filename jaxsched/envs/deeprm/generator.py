"""DeepRM's synthetic workloads as pure functions ``key -> Jobset``.

Bimodal durations (80% short in {1..L/5}, else long in {2L/3..L}); one dominant resource per job.
Two named demand ranges: the reference code's (dominant in {S/2..S}, others in {1..S/5}; DeepRM2
states the same as 0.5-1r / 0.1-0.2r) and the DeepRM paper text's (0.25-0.5r / 0.05-0.1r).
Arrivals: one Bernoulli trial per step (DeepRM) or Poisson counts per step (DeepRM2), over steps
1..simu_len-1 as in the reference (nothing arrives at t = 0), or everything at t = 0 (DeepRM_Off).
The user asks for a *load*; the arrival rate is derived from the workload's mean job size.

The MDP-design paper's generator (Cunha and Chaimowicz, BRACIS'21) is the same with the arrival
probability given directly (``job_rate=0.3``) and always two demand generators, CPU- or
memory-dominant (``generators=2``), also on a processor-only cluster (``num_res=1``), where half the
jobs then ask for few processors ({1..js/5}) and half for many ({js/2..js}).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from functools import partial

import jax
import jax.numpy as jnp

from jaxsched.envs.deeprm.types import Jobset

DEMAND_RANGES = ("code", "paper")
ARRIVALS = ("bernoulli", "poisson", "offline")


@dataclasses.dataclass(frozen=True)
class Workload:
    """Static description of a synthetic workload (hashable, so it can be a jit static argument)."""

    num_res: int = 2
    capacity: int = 10
    max_job_len: int = 15
    max_job_size: int = 10
    simu_len: int = 50
    load: float = 0.7  # offered load per resource; ignored for offline
    arrivals: str = "bernoulli"
    demand_range: str = "code"
    small_job_prob: float = 0.8
    num_jobs: int = 0  # offline only: jobs present at t = 0
    job_rate: float | None = None  # arrivals per step given directly (overrides load)
    generators: int | None = None  # dominant-resource generators picked uniformly; None: num_res

    def __post_init__(self):
        if self.job_rate is not None and not (0.0 <= self.job_rate and (self.arrivals != "bernoulli"
                                                                          or self.job_rate <= 1.0)):
            raise ValueError(f"job_rate must lie in [0, 1] for Bernoulli arrivals (>= 0 otherwise), "
                             f"got {self.job_rate}")
        if self.generators is not None and self.generators < self.num_res:
            raise ValueError(f"generators ({self.generators}) must be >= num_res ({self.num_res}): "
                             "each resource needs a generator where it dominates")
        if self.arrivals not in ARRIVALS:
            raise ValueError(f"unknown arrivals {self.arrivals!r}; choose one of {', '.join(ARRIVALS)}")
        if self.demand_range not in DEMAND_RANGES:
            raise ValueError(f"unknown demand_range {self.demand_range!r}; choose one of "
                             f"{', '.join(DEMAND_RANGES)}")
        if self.max_job_size > self.capacity:
            raise ValueError(f"max_job_size {self.max_job_size} exceeds capacity {self.capacity}")
        if self.arrivals == "offline" and self.num_jobs < 1:
            raise ValueError("an offline workload needs num_jobs >= 1")
        if self.arrivals != "offline" and (self.simu_len < 2 or self.load < 0):
            raise ValueError("simu_len must be >= 2 and load >= 0")

    # ---- derived sizes
    @property
    def short_range(self) -> tuple[int, int]:
        return 1, max(self.max_job_len // 5, 1)

    @property
    def long_range(self) -> tuple[int, int]:
        return max(self.max_job_len * 2 // 3, 1), self.max_job_len

    @property
    def dominant_range(self) -> tuple[int, int]:
        s = self.max_job_size
        return (max(s // 2, 1), s) if self.demand_range == "code" else (max(-(-s // 4), 1), max(s // 2, 1))

    @property
    def other_range(self) -> tuple[int, int]:
        s = self.max_job_size
        return (1, max(s // 5, 1)) if self.demand_range == "code" else (1, max(s // 10, 1))

    @property
    def mean_duration(self) -> float:
        mean = lambda r: (r[0] + r[1]) / 2
        return self.small_job_prob * mean(self.short_range) + (1 - self.small_job_prob) * mean(self.long_range)

    @property
    def num_generators(self) -> int:
        return self.num_res if self.generators is None else self.generators

    @property
    def mean_demand(self) -> float:
        """Mean units of one resource per job (dominant with probability 1/generators)."""
        mean = lambda r: (r[0] + r[1]) / 2
        g = self.num_generators
        return (mean(self.dominant_range) + (g - 1) * mean(self.other_range)) / g

    @property
    def load_per_job_per_step(self) -> float:
        return self.mean_duration * self.mean_demand / self.capacity

    @property
    def rate(self) -> float:
        """Expected arrivals per step that offer ``load`` (Bernoulli: capped at one per step)."""
        if self.job_rate is not None:
            return self.job_rate
        rate = self.load / self.load_per_job_per_step
        if self.arrivals == "bernoulli" and rate > 1.0 + 1e-9:  # not for float rounding of exactly 1
            warnings.warn(f"load {self.load} needs {rate:.3f} arrivals per step; Bernoulli arrivals allow "
                          f"at most 1, so the offered load is {self.load_per_job_per_step:.3f}", stacklevel=2)
            rate = 1.0
        return rate

    @property
    def offered_load(self) -> float:
        """The load actually offered: ``load``, or less where Bernoulli arrivals cap the rate at 1."""
        if self.arrivals == "offline":
            return float("nan")
        if self.job_rate is not None:
            return self.job_rate * self.load_per_job_per_step
        cap = 1.0 if self.arrivals == "bernoulli" else float("inf")
        return min(self.load / self.load_per_job_per_step, cap) * self.load_per_job_per_step

    @property
    def max_jobs(self) -> int:
        """Padded jobset size: exact for Bernoulli and offline; for Poisson the mean + 10 sigma."""
        if self.arrivals == "offline":
            return self.num_jobs
        steps = self.simu_len - 1
        if self.arrivals == "bernoulli":
            return steps
        mean = self.rate * steps
        return int(math.ceil(mean + 10 * math.sqrt(mean) + 10))


def _sizes(key: jax.Array, workload: Workload, n: int) -> tuple[jax.Array, jax.Array]:
    k_small, k_short, k_long, k_dom, k_hi, k_lo = jax.random.split(key, 6)
    small = jax.random.uniform(k_small, (n,)) < workload.small_job_prob
    short = jax.random.randint(k_short, (n,), workload.short_range[0], workload.short_range[1] + 1)
    long = jax.random.randint(k_long, (n,), workload.long_range[0], workload.long_range[1] + 1)
    duration = jnp.where(small, short, long).astype(jnp.int32)
    dominant = jax.random.randint(k_dom, (n,), 0, workload.num_generators)  # >= num_res: none dominates
    high = jax.random.randint(k_hi, (n, workload.num_res), workload.dominant_range[0],
                              workload.dominant_range[1] + 1)
    low = jax.random.randint(k_lo, (n, workload.num_res), workload.other_range[0], workload.other_range[1] + 1)
    is_dominant = jnp.arange(workload.num_res)[None, :] == dominant[:, None]
    return duration, jnp.where(is_dominant, high, low).astype(jnp.int32)


@partial(jax.jit, static_argnums=1)
def generate(key: jax.Array, workload: Workload) -> Jobset:
    """One jobset drawn from ``workload``; ``jax.vmap`` over keys for many."""
    n = workload.max_jobs
    k_arrive, k_size = jax.random.split(key)
    duration, demand = _sizes(k_size, workload, n)
    index = jnp.arange(n)
    if workload.arrivals == "offline":
        return Jobset(arrival=jnp.zeros((n,), jnp.int32), duration=duration, demand=demand,
                      valid=jnp.ones((n,), bool))
    steps = jnp.arange(1, workload.simu_len)
    if workload.arrivals == "bernoulli":
        counts = (jax.random.uniform(k_arrive, steps.shape) < workload.rate).astype(jnp.int32)
    else:
        counts = jax.random.poisson(k_arrive, workload.rate, steps.shape).astype(jnp.int32)
    cumulative = jnp.cumsum(counts)
    step_of = jnp.searchsorted(cumulative, index, side="right")
    valid = index < jnp.minimum(cumulative[-1], n)
    arrival = jnp.where(valid, steps[jnp.minimum(step_of, steps.shape[0] - 1)], 0).astype(jnp.int32)
    return Jobset(arrival=arrival, duration=duration, demand=demand, valid=valid)


def generate_many(key: jax.Array, workload: Workload, num_jobsets: int) -> Jobset:
    """``num_jobsets`` independent jobsets stacked on a leading axis."""
    return jax.vmap(lambda k: generate(k, workload))(jax.random.split(key, num_jobsets))
