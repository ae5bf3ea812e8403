"""Named environment variants: ``jaxsched.make(name, **overrides) -> (env, params)``.

A variant fixes the environment's static configuration, the workload its default jobset is drawn
from, and the episode caps. Any field of the three may be overridden by keyword; an unknown keyword
is an error that lists the valid ones.
"""

from __future__ import annotations

import dataclasses
import inspect

import jax

from jaxsched.envs.deeprm import DeepRM, EnvParams
from jaxsched.workloads.deeprm import Workload, generate

_ENV_KEYS = tuple(p for p in inspect.signature(DeepRM.__init__).parameters if p != "self")
_WORKLOAD_KEYS = tuple(f.name for f in dataclasses.fields(Workload))
_PARAM_KEYS = ("max_time", "max_steps_in_episode", "seed")
_SHARED = ("num_res", "capacity", "max_job_len", "max_job_size")  # both env and workload

_DEEPRM = dict(num_res=2, capacity=10, horizon=20, num_slots=10, backlog_size=60, max_job_len=15,
               max_job_size=10, simu_len=50, load=0.7, arrivals="bernoulli", demand_range="code")

VARIANTS: dict[str, dict] = {
    # DeepRM as its reference code runs it (demands 0.5-1r / 0.1-0.2r), M = 10, the paper's sizes.
    "deeprm": dict(_DEEPRM),
    # The DeepRM paper text's smaller demands (0.25-0.5r / 0.05-0.1r).
    "deeprm-paper": dict(_DEEPRM, demand_range="paper"),
    # The reference code's defaults (M = 5 slots; image width 124).
    "deeprm-m5": dict(_DEEPRM, num_slots=5),
    # Objective: average completion time (reward -|J|).
    "deeprm-completion": dict(_DEEPRM, reward="completion_time"),
    # DeepRM2: Poisson arrivals (several jobs per step), 20 x 224 image for the CNN.
    "deeprm2": dict(_DEEPRM, arrivals="poisson", load=1.0),
    # DeepRM_Off: all jobs present at t = 0, one slot per job, no backlog.
    "deeprm-off": dict(_DEEPRM, arrivals="offline", num_jobs=20, num_slots=20, backlog_size=0),
}

# The MDP-design paper's scenarios (Casagrande et al., BRACIS'21, Table 3): a processor-count cluster
# of np processors, jobs up to d steps long and js processors wide, W = 10 slots, H = 20, arrivals
# with probability 0.3 for T = 100 steps, fits-now scheduling. Default MDP: compact state, time-based
# steps, all jobs in the reward; the paper's other MDPs are overrides (observation="image",
# stepping="event", reward_jobs="visible"); num_res=2 adds memory.
BRACIS_SCENARIOS = ((10, 15, 10), (10, 48, 10), (38, 15, 32), (38, 33, 32), (38, 48, 32), (64, 15, 64),
                    (64, 33, 32), (64, 33, 64), (64, 48, 32), (64, 48, 64))
_BRACIS = dict(num_res=1, horizon=20, num_slots=10, backlog_size=60, simu_len=100, arrivals="bernoulli",
               job_rate=0.3, generators=2, demand_range="code", allocation="fits_now", observation="bracis")
for _number, (_np, _d, _js) in enumerate(BRACIS_SCENARIOS, start=1):
    VARIANTS[f"bracis-{_number}"] = dict(_BRACIS, capacity=_np, max_job_len=_d, max_job_size=_js)


def registered() -> list[str]:
    return sorted(VARIANTS)


@dataclasses.dataclass(frozen=True)
class Variant:
    env: DeepRM
    workload: Workload
    params: EnvParams


def build(name: str, **overrides) -> Variant:
    """The env, its workload and params (default jobset drawn with ``seed``, default 0)."""
    if name not in VARIANTS:
        raise ValueError(f"unknown environment {name!r}; registered: {', '.join(registered())}")
    valid = sorted(set(_ENV_KEYS) | set(_WORKLOAD_KEYS) | set(_PARAM_KEYS))
    unknown = sorted(set(overrides) - set(valid))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for {name!r}; valid: {', '.join(valid)}")
    config = {**VARIANTS[name], **overrides}
    env = DeepRM(**{k: v for k, v in config.items() if k in _ENV_KEYS})
    workload = Workload(**{k: v for k, v in config.items() if k in _WORKLOAD_KEYS})
    if workload.arrivals == "offline" and env.num_slots < workload.num_jobs:
        raise ValueError(f"offline needs one slot per job: num_slots {env.num_slots} < num_jobs {workload.num_jobs}")
    simu_len = 1 if workload.arrivals == "offline" else workload.simu_len
    # Any work-conserving policy ends by simu_len + the jobs' total duration; twice that bounds the
    # episodes of policies that idle (a greedy policy stuck on "move on" is cut there, and reported).
    max_time = config.get("max_time", 2 * (simu_len + workload.max_jobs * workload.max_job_len) + env.horizon)
    params = EnvParams(jobset=generate(jax.random.PRNGKey(config.get("seed", 0)), workload),
                       simu_len=simu_len, max_time=max_time,
                       max_steps_in_episode=config.get("max_steps_in_episode", max_time + workload.max_jobs + 1))
    return Variant(env=env, workload=workload, params=params)


def make(name: str, **overrides) -> tuple[DeepRM, EnvParams]:
    """gymnax-style: the environment and its default params."""
    variant = build(name, **overrides)
    return variant.env, variant.params
