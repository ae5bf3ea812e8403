"""The DeepRM family's registered variants (DeepRM, DeepRM2, DeepRM_Off, the MDP-design scenarios)
and :class:`DeepRMVariant`, the family's answers to :class:`jaxsched.core.variant.Variant`.

A variant fixes the environment's static configuration, the workload its jobsets are drawn from, and
the episode caps. Any field of the three may be overridden by keyword; an unknown keyword is an
error that lists the valid ones.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import jax
import numpy as np

from jaxsched.baselines.deeprm import TIES, make_heuristic
from jaxsched.core.plotting import learning_curve
from jaxsched.core.rollout import make_evaluator
from jaxsched.core.runs import per_iteration_means
from jaxsched.core.variant import Headline, variant_config
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.generator import Workload, generate, generate_many
from jaxsched.envs.deeprm.metrics import (DEFAULT_BSLD_TAU_STEPS, episode_statistics, job_table, summarize,
                                          summarize_statistics)
from jaxsched.envs.deeprm.csv_jobsets import read_jobsets
from jaxsched.envs.deeprm.reference_rng import reference_jobsets
from jaxsched.envs.deeprm.types import EnvParams, Jobset, with_jobsets
from jaxsched.errors import InputError

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

# The MDP-design paper's scenarios (Cunha and Chaimowicz, BRACIS'21, Table 3): a processor-count cluster
# of np processors, jobs up to d steps long and js processors wide, W = 10 slots, H = 20, arrivals
# with probability 0.3 for T = 100 steps, fits-now scheduling. Default MDP: compact state, time-based
# steps, all jobs in the reward; the paper's other MDPs are overrides (observation="image",
# stepping="event", reward_jobs="visible"); num_res=2 adds memory. The image's slot blocks are np
# columns wide (slot_width="capacity", sched-rl-gym's image: W = 11 np + 4), which gives the paper's
# image parameter counts 301,068 / 1,089,548 / 1,821,708 at 10 / 38 / 64 processors.
BRACIS_SCENARIOS = ((10, 15, 10), (10, 48, 10), (38, 15, 32), (38, 33, 32), (38, 48, 32), (64, 15, 64),
                    (64, 33, 32), (64, 33, 64), (64, 48, 32), (64, 48, 64))
_BRACIS = dict(num_res=1, horizon=20, num_slots=10, backlog_size=60, simu_len=100, arrivals="bernoulli",
               job_rate=0.3, generators=2, demand_range="code", allocation="fits_now", observation="bracis",
               slot_width="capacity")
for _number, (_np, _d, _js) in enumerate(BRACIS_SCENARIOS, start=1):
    VARIANTS[f"bracis-{_number}"] = dict(_BRACIS, capacity=_np, max_job_len=_d, max_job_size=_js)


@dataclasses.dataclass(frozen=True)
class DeepRMVariant:
    """A DeepRM-family setting: the env, the workload that instances (jobsets) are drawn from, and
    the default params (one jobset, the episode caps)."""

    name: str
    env: DeepRM
    workload: Workload
    params: EnvParams
    headline: Headline = Headline("mean_slowdown", "mean_slowdown", higher_is_better=False)
    default_baselines: tuple[str, ...] = ("sjf", "packer", "tetris", "random")

    def sample_params(self, key: jax.Array, count: int) -> EnvParams:
        return self.with_jobsets(generate_many(key, self.workload, count))

    def with_jobsets(self, jobsets: Jobset) -> EnvParams:
        """The params batched over given jobsets (a CSV file's, the reference generator's, an SWF window's)."""
        return with_jobsets(self.params, jobsets)

    def reference_instances(self, seed: int, count: int) -> EnvParams:
        """``count`` jobsets drawn by the reference DeepRM code's numpy generator with ``seed``."""
        return self.with_jobsets(reference_jobsets(seed, self.workload, count))

    def instances_from_file(self, path: Path, simu_len: int | None = None) -> tuple[EnvParams, "DeepRMVariant"]:
        """The jobsets of a CSV file (:mod:`jaxsched.envs.deeprm.csv_jobsets`) and this variant with
        arrivals allowed up to the file's last one (unless ``simu_len`` is given)."""
        jobsets = read_jobsets(path, capacity=self.env.capacity, horizon=self.env.horizon)
        if jobsets.num_res != self.env.num_res:
            raise InputError(f"{path} has {jobsets.num_res} resource columns; the env has {self.env.num_res} resources")
        variant = self
        if simu_len is None:
            last = int(np.max(np.where(np.asarray(jobsets.valid), np.asarray(jobsets.arrival), 0)))
            variant = dataclasses.replace(self, params=self.params.replace(simu_len=last + 1))
        return variant.with_jobsets(jobsets), variant

    def heuristic(self, name: str):
        return make_heuristic(name)

    def heuristic_ties(self, name: str):
        """``ties(obs, action) -> bool[A]``, the actions heuristic ``name`` rates as good as ``action``;
        None when unknown (behaviour cloning then counts only the label as correct)."""
        return TIES.get(name)

    def check_baselines(self, names) -> None:
        for name in names:
            make_heuristic(name)

    def episode_statistics(self, final_state) -> dict:
        return episode_statistics(final_state)

    def summarize_statistics(self, stats: dict, weight) -> dict:
        return summarize_statistics(stats, weight)

    def held_out(self, count: int, seed: int) -> tuple[EnvParams, dict]:
        return self.sample_params(jax.random.PRNGKey(seed), count), {"jobsets": count, "seed": seed}

    def evaluate(self, policies: dict, batched_params, key: jax.Array, num_rollouts: int = 1,
                 bsld_tau: float = DEFAULT_BSLD_TAU_STEPS) -> dict[str, dict[str, np.ndarray]]:
        """Per-job tables (:func:`jaxsched.envs.deeprm.metrics.job_table`), one jitted evaluator per policy."""
        return {name: job_table(make_evaluator(self.env, policy, num_rollouts)(batched_params, key), bsld_tau)
                for name, policy in policies.items()}

    def summarize(self, table: dict) -> dict:
        return summarize(table)

    def describe(self, stats: dict) -> str:
        return (f"slowdown {stats['mean_slowdown']:7.3f}  completion {stats['mean_completion_time']:7.3f}  "
                f"finished {stats['finished']}/{stats['jobs']}  dropped {stats['dropped']}")

    def plot_learning_curves(self, run_dir: Path, summary: dict, baselines, title: str) -> None:
        iterations, means = per_iteration_means(run_dir / "metrics.csv", ("mean_slowdown", "mean_return",
                                                                          "max_return"))
        hlines = {name: summary[name]["mean_slowdown"] for name in baselines if name in summary}
        learning_curve(iterations, {"training rollouts (mean over seeds)": means["mean_slowdown"]},
                       run_dir / "learning_curve_slowdown.png", "iteration", "mean job slowdown",
                       {f"{k} (held-out)": v for k, v in hlines.items()}, title=title)
        learning_curve(iterations, {"mean return": means["mean_return"], "max return": means["max_return"]},
                       run_dir / "learning_curve_return.png", "iteration", "episode return", title=title)


def build(name: str, **overrides) -> DeepRMVariant:
    """The variant ``name`` with ``overrides`` (default jobset drawn with ``seed``, default 0)."""
    config = variant_config(name, VARIANTS[name], overrides, _ENV_KEYS, _WORKLOAD_KEYS, _PARAM_KEYS)
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
    return DeepRMVariant(name=name, env=env, workload=workload, params=params)
