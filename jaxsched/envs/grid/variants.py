"""The grid family's registered variants (``grid``, ``grid-elastic``) and :class:`GridVariant`, the
family's answers to :class:`jaxsched.core.variant.Variant`.

An instance is a window of ``num_jobs`` jobs: drawn from the synthetic Table 1 workload
(:mod:`jaxsched.envs.grid.workload`), or consecutive windows of an SWF trace (``swf=PATH``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.baselines.grid import HEURISTIC_NAMES, JOB_RULES, POOL_RULES, make_heuristic
from jaxsched.core.plotting import learning_curve
from jaxsched.core.rollout import num_instances
from jaxsched.core.runs import per_iteration_means
from jaxsched.core.variant import Headline, variant_config
from jaxsched.envs.grid.env import ELASTIC_POOL_SIZES, GridSite
from jaxsched.envs.grid.metrics import PER_JOB_COLUMNS, job_table, summarize
from jaxsched.envs.grid.types import PAPER_VO_SHARES, EnvParams
from jaxsched.envs.grid.heapq_sim import fifo_queue_peak
from jaxsched.envs.grid.workload import Workload, generate_many, swf_windows
from jaxsched.errors import InputError
from jaxsched.workloads.datasets import resolve_path

# The queue capacity of synthetic windows (option ``queue_capacity: auto``), at most the window's
# length: the most jobs waiting at a FIFO decision on 200 synthetic Table 1 windows of 9500 jobs on 81
# cores was 1711 (median 362, 99th percentile 1015; SJF keeps it lower, ~300). SWF windows get
# 1.25 x their own FIFO peak (``auto``), and an explicit capacity below a trace's FIFO peak is refused.
SYNTHETIC_QUEUE_CAPACITY = 2048


def queue_capacity_for(peak: int, num_jobs: int) -> int:
    """``auto`` for a trace whose FIFO peak is ``peak``: 1.25 x it rounded up to 64, at most the window."""
    return int(min(num_jobs, max(64, -(-int(1.25 * peak) // 64) * 64)))


def windows_fifo_peak(windows, num_cores: int) -> int:
    """The most jobs waiting at a FIFO decision over batched ``GridJobs`` windows (host, heapq)."""
    submit, runtime, valid = (np.asarray(x) for x in (windows.submit, windows.runtime, windows.valid))
    return max((fifo_queue_peak(submit[i][valid[i]], runtime[i][valid[i]], num_cores) for i in range(len(submit))),
               default=0)


def check_queue_capacity(env: GridSite, windows, source: str) -> int:
    """The FIFO peak queue of ``windows``; ``InputError`` naming ``source`` and the peak when it exceeds
    the env's capacity."""
    peak = windows_fifo_peak(windows, env.initial_pool)
    if peak > env.queue_capacity:
        raise InputError(f"{source}: up to {peak} jobs wait at once under FIFO (the peak queue), more than the "
                         f"queue capacity {env.queue_capacity}; set the option queue_capacity >= {peak} "
                         "(or auto)")
    return peak

_ENV_KEYS = ("num_cores", "num_candidates", "scan_width", "runtime_model", "estimate_window", "pool_sizes",
             "initial_pool", "pool_change_interval", "time_scale", "candidates", "queue_capacity")
_WORKLOAD_KEYS = ("load", "interactive_fraction", "burst_fraction", "burst_jobs", "burst_factor")
_OTHER_KEYS = ("num_jobs", "exclude", "weight", "seed", "swf", "multi_core")

VARIANTS: dict[str, dict] = {
    # The paper's rigid site: 81 cores, one queue, R = λ_s W + (1 − λ_s) F with λ_s = 0.5; one episode
    # = 9500 jobs (the paper's trace length) with the first and last 500 left out of the metrics.
    "grid": dict(num_cores=81, num_jobs=9500, exclude=500, weight=0.5),
    # Elastic provisioning: pool sizes 30..120 step 10 plus 81 (the rigid site, for the fixed-pool
    # baseline), starting at 81; R = λ_e W + (1 − λ_e) U with λ_e = 0.5.
    "grid-elastic": dict(num_cores=81, num_jobs=9500, exclude=500, weight=0.5, pool_sizes=ELASTIC_POOL_SIZES,
                         initial_pool=81),
}


@dataclasses.dataclass(frozen=True)
class GridVariant:
    """A grid setting: the env, the workload instances are drawn from, default params, the exclusion."""

    name: str
    env: GridSite
    workload: Workload
    params: EnvParams
    num_jobs: int
    exclude: int
    swf: str | None = None
    multi_core: str = "error"
    headline: Headline = Headline("mean_reward", "interactive_W_mean", higher_is_better=True)
    per_job_columns: tuple = PER_JOB_COLUMNS  # evaluate --per-job

    @property
    def default_baselines(self) -> tuple[str, ...]:
        return ("fifo", "edf", "sjf", "fairshare") + (POOL_RULES if self.env.elastic else ())

    def with_jobs(self, jobs) -> EnvParams:
        """The params batched over given job windows."""
        n = jobs.submit.shape[0]
        params = self.params.replace(jobs=None)
        batched = jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x), (n,) + jnp.shape(x)), params)
        return batched.replace(jobs=jobs)

    def sample_params(self, key: jax.Array, count: int) -> EnvParams:
        if self.swf is not None:  # windows of the trace, drawn with replacement
            windows, _ = swf_windows(self.swf, self.num_jobs, self.multi_core)
            pick = jax.random.randint(key, (count,), 0, num_instances(windows))
            return self.with_jobs(jax.tree.map(lambda x: x[pick], windows))
        return self.with_jobs(generate_many(key, self.workload, self.num_jobs, count))

    def instances_from_swf(self, path, max_windows: int | None = None) -> tuple[EnvParams, dict]:
        windows, info = swf_windows(path, self.num_jobs, self.multi_core, self.env.num_vos, max_windows)
        info["fifo_queue_peak"] = check_queue_capacity(self.env, windows, f"SWF trace {path}")
        return self.with_jobs(windows), info

    def heuristic(self, name: str):
        self.check_baselines([name])
        return make_heuristic(name)

    def check_baselines(self, names) -> None:
        valid = HEURISTIC_NAMES if self.env.elastic else JOB_RULES + ("random",)
        unknown = sorted(set(names) - set(valid))
        if unknown:
            raise ValueError(f"unknown {self.name} baseline(s) {', '.join(unknown)}; choose from {', '.join(valid)}")

    def episode_statistics(self, final_state) -> dict:
        jobs = final_state.jobs  # jittable: W of the dispatched interactive jobs
        run = jobs.runtime
        started = final_state.start >= 0
        wait = final_state.start - jobs.submit
        W = jnp.where(started, run / jnp.maximum(run + wait, 1), 0.0)
        interactive = started & (jobs.klass == 0) & jobs.valid
        return {"interactive_W": jnp.sum(jnp.where(interactive, W, 0.0), axis=-1),
                "interactive_jobs": jnp.sum(interactive, axis=-1).astype(jnp.float32)}

    def summarize_statistics(self, stats: dict, weight) -> dict:
        total = jnp.sum(jnp.where(weight, stats["interactive_W"], 0.0))
        count = jnp.sum(jnp.where(weight, stats["interactive_jobs"], 0.0))
        return {"interactive_W": jnp.where(count > 0, total / jnp.maximum(count, 1), jnp.nan)}

    def held_out(self, count: int, seed: int) -> tuple[EnvParams, dict]:
        return self.sample_params(jax.random.PRNGKey(seed), count), {"windows": count, "seed": seed,
                                                                      "swf": self.swf}

    def run_episodes(self, policy, batched_params, key: jax.Array, num_rollouts: int = 1):
        """``(final states, returns)`` ``[instances, rollouts]``: a ``scan`` of exactly ``num_jobs``
        decisions (one per job; a finished episode's steps change nothing), so no per-step select of
        the whole state. The observation is built inside the step from the state, so what the policy
        does not read (FIFO reads nothing) is compiled away. A policy with ``initial_carry`` and
        ``step(carry, key, obs) -> (action, carry)`` (:class:`jaxsched.algos.sarsa.RecurrentPolicy`)
        carries its state through each episode, from ``initial_carry()`` at the episode's start."""
        env = self.env

        recurrent = hasattr(policy, "initial_carry") and hasattr(policy, "step")  # e.g. the ESN with memory

        def episode(params, key):
            state = env.initial_state(params)
            memory = policy.initial_carry() if recurrent else jnp.zeros(())  # fresh with each episode

            def step(carry, k):
                state, total, memory = carry
                obs = env.get_obs(state, params)
                if recurrent:
                    action, memory = policy.step(memory, k, obs)
                else:
                    action = policy(k, obs)
                state, reward, _, _ = env.transition(state, action, params)
                return (state, total + reward, memory), None

            (state, total, _), _ = jax.lax.scan(step, (state, jnp.float32(0.0), memory),
                                                jax.random.split(key, params.jobs.length))
            return state, total

        @jax.jit
        def run(batched, key):
            keys = jax.random.split(key, (num_instances(batched), num_rollouts))
            return jax.vmap(lambda p, ks: jax.vmap(lambda k: episode(p, k))(ks))(batched, keys)

        return run(batched_params, key)

    def evaluate(self, policies: dict, batched_params, key: jax.Array, num_rollouts: int = 1,
                 source: str | None = None) -> dict:
        """Per-job tables (:func:`jaxsched.envs.grid.metrics.job_table`). A policy under which some
        waiting job was ever beyond the queue capacity is an ``InputError`` naming ``source`` (the trace;
        default: the variant's) and the peak queue."""
        return {name: self.table_of(self.run_episodes(policy, batched_params, key, num_rollouts)[0], name, source)
                for name, policy in policies.items()}

    def table_of(self, final, name: str, source: str | None = None) -> dict:
        """The per-job table of ``run_episodes``' final states under policy ``name``, once no waiting job
        was ever beyond the queue capacity (else the ``InputError`` of :meth:`evaluate`)."""
        hidden = np.asarray(final.hidden)
        if hidden.any():
            where = source or (f"SWF trace {self.swf}" if self.swf else f"synthetic {self.name} windows")
            raise InputError(f"{where}: under {name}, up to {int(np.max(final.queue_peak))} jobs waited at once, "
                             f"more than the queue capacity {self.env.queue_capacity} ({int(np.sum(hidden > 0))} "
                             f"episode(s), {int(hidden.sum())} decisions with a job beyond it); set the option "
                             "queue_capacity higher")
        return job_table(final, self.exclude)

    def summarize(self, table: dict) -> dict:
        return summarize(table, self.env.vo_shares)

    def describe(self, stats: dict) -> str:
        return (f"W interactive {stats['interactive_W_mean']:.3f} ± {stats['interactive_W_std']:.3f}  "
                f"batch {stats['batch_W_mean']:.3f} ± {stats['batch_W_std']:.3f}  "
                f"wait<2min {stats['interactive_wait_under_120s']:.3f}  mean wait {stats['mean_wait']:8.0f} s  "
                f"util {stats['utilisation']:.3f}  finished {stats['finished']}/{stats['jobs']}")

    def plot_learning_curves(self, run_dir: Path, summary: dict, baselines, title: str) -> None:
        iterations, means = per_iteration_means(run_dir / "metrics.csv", ("mean_reward",))
        learning_curve(iterations, {"training reward per decision (mean over seeds)": means["mean_reward"]},
                       run_dir / "learning_curve_reward.png", "iteration", "reward per decision", title=title)


def build(name: str, **overrides) -> GridVariant:
    """The variant ``name`` with ``overrides`` (default window drawn with ``seed``, default 0)."""
    config = variant_config(name, VARIANTS[name], overrides, _ENV_KEYS, _WORKLOAD_KEYS, _OTHER_KEYS)
    capacity = config.pop("queue_capacity", "auto")
    capacity = "auto" if capacity is None else capacity
    if capacity != "auto" and (isinstance(capacity, bool) or not str(capacity).isdigit() or int(capacity) < 1):
        raise ValueError(f"queue_capacity must be a positive integer or auto, got {capacity!r}")
    swf_path = None if config.get("swf") is None else resolve_path(config["swf"])
    num_jobs_ = int(config["num_jobs"])
    if capacity == "auto" and (swf_path is None or not swf_path.exists()):
        config["queue_capacity"] = max(1, min(num_jobs_, SYNTHETIC_QUEUE_CAPACITY))
    elif capacity != "auto":
        config["queue_capacity"] = int(capacity)
    else:  # auto on a trace: from its own windows' FIFO peak
        windows, _ = swf_windows(swf_path, num_jobs_, config.get("multi_core", "error"), len(PAPER_VO_SHARES))
        cores = int(config.get("initial_pool", 81)) if config.get("pool_sizes") is not None else \
            int(config.get("num_cores", 81))
        config["queue_capacity"] = queue_capacity_for(windows_fifo_peak(windows, cores), num_jobs_)
    if config.get("pool_sizes") is not None:
        config["pool_sizes"] = tuple(config["pool_sizes"])
    env = GridSite(vo_shares=PAPER_VO_SHARES, **{k: config[k] for k in _ENV_KEYS if k in config})
    workload = Workload(num_cores=env.initial_pool if env.elastic else env.num_cores,
                        **{k: config[k] for k in _WORKLOAD_KEYS if k in config})
    num_jobs, exclude = int(config["num_jobs"]), int(config.get("exclude", 0))
    if num_jobs < 1 or exclude < 0 or 2 * exclude >= num_jobs:
        raise ValueError(f"need num_jobs >= 1 and 0 <= 2 x exclude < num_jobs; got num_jobs {num_jobs}, "
                         f"exclude {exclude} (set exclude, e.g. --exclude {num_jobs // 10})")
    weight = float(config.get("weight", 0.5))
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight (λ) must be in [0, 1], got {weight}")
    swf = None if config.get("swf") is None else resolve_path(config["swf"])
    if swf is not None and not swf.exists():
        raise ValueError(f"SWF trace {swf} not found")
    if swf is not None and capacity != "auto":
        windows, _ = swf_windows(swf, num_jobs, config.get("multi_core", "error"), env.num_vos)
        check_queue_capacity(env, windows, f"SWF trace {swf}")
    variant = GridVariant(name=name, env=env, workload=workload, params=EnvParams(weight=weight), num_jobs=num_jobs,
                          exclude=exclude, swf=None if swf is None else str(swf),
                          multi_core=config.get("multi_core", "error"))
    first = variant.sample_params(jax.random.PRNGKey(int(config.get("seed", 0))), 1)
    return dataclasses.replace(variant, params=jax.tree.map(lambda x: x[0], first))
