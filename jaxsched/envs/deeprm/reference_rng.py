"""DeepRM jobsets drawn *exactly* as the reference code draws them, so that numbers measured on the
reference can be compared on the very same jobsets.

The reference seeds numpy's legacy generator once, then walks ``simu_len x num_jobsets`` steps: one
``rand() < rate`` trial per step and, on success, the job's size in this call order -- ``rand() <
small_job_prob``, a duration ``randint`` (short or long range), the dominant resource ``randint``,
then one demand ``randint`` per resource. Step 0 of every jobset never arrives (the reference starts
reading its sequence at index 1), so step t >= 1 becomes arrival time t.

:func:`jaxsched.envs.deeprm.generator.generate` draws from the same distribution with JAX's counter-based
RNG; its jobsets differ from these draw by draw, so means over a few seeds differ by sampling noise
(e.g. Packer at load 1.1 over seeds 0-9: 8.99 on these jobsets, 10.2 on JAX-drawn ones; 9.98 over 30
JAX seeds). Host-side numpy: use it for evaluation, not inside a jitted loop.
"""

from __future__ import annotations

import numpy as np

from jaxsched.envs.deeprm.types import Jobset, from_arrays, stack
from jaxsched.envs.deeprm.generator import Workload


def reference_jobsets(seed: int, workload: Workload, num_jobsets: int) -> Jobset:
    """``num_jobsets`` jobsets, stacked and padded to ``workload.max_jobs``, as the reference draws
    them after ``np.random.seed(seed)``. Bernoulli arrivals only (the reference's only process)."""
    if workload.arrivals != "bernoulli":
        raise ValueError(f"the reference draws Bernoulli arrivals only, not {workload.arrivals!r}")
    rng = np.random.RandomState(seed)  # the legacy stream np.random.seed(seed) sets up
    steps = workload.simu_len
    durations = np.zeros(steps * num_jobsets, np.int64)
    demands = np.zeros((steps * num_jobsets, workload.num_res), np.int64)
    (short_lo, short_hi), (long_lo, long_hi) = workload.short_range, workload.long_range
    (dom_lo, dom_hi), (other_lo, other_hi) = workload.dominant_range, workload.other_range
    for i in range(steps * num_jobsets):
        if rng.rand() < workload.rate:
            if rng.rand() < workload.small_job_prob:
                durations[i] = rng.randint(short_lo, short_hi + 1)
            else:
                durations[i] = rng.randint(long_lo, long_hi + 1)
            dominant = rng.randint(0, workload.num_res)
            for r in range(workload.num_res):
                lo, hi = (dom_lo, dom_hi) if r == dominant else (other_lo, other_hi)
                demands[i, r] = rng.randint(lo, hi + 1)
    durations = durations.reshape(num_jobsets, steps)
    demands = demands.reshape(num_jobsets, steps, workload.num_res)
    jobsets = []
    for j in range(num_jobsets):
        times = np.flatnonzero(durations[j, 1:] > 0) + 1
        jobsets.append(from_arrays(times, durations[j, times], demands[j, times], workload.max_jobs))
    return stack(jobsets)
