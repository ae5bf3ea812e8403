"""The VM-placement family's registered variants (``vm-huawei``, ``vm-synthetic``, ``vm-frag``) and
:class:`VmVariant`, the family's answers to :class:`jaxsched.core.variant.Variant`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import jax
import jax.numpy as jnp

from jaxsched.baselines.vm import HEURISTIC_NAMES, heuristic_policy
from jaxsched.core.plotting import learning_curve
from jaxsched.core.runs import per_iteration_means
from jaxsched.core.variant import Headline, variant_config
from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.episodes import draw_starts, evaluate_at, params_at, summarize_vm
from jaxsched.envs.vm.trace import interarrival_for_load, load_lifetimes, load_vmagent, synthetic, window
from jaxsched.envs.vm.types import EnvParams as VmEnvParams
from jaxsched.workloads.datasets import resolve_path

_VM_ENV_KEYS = ("num_pms", "reward")
_VM_PARAM_KEYS = tuple(f.name for f in dataclasses.fields(VmEnvParams) if f.name != "requests")
_VM_TRACE_KEYS = ("trace", "trace_format", "synthetic_vms", "seed", "window", "start_low", "start_high",
                  "held_out_from", "held_out_after", "synthetic_mix", "load", "median_lifetime", "lifetime_sigma")

# Type mixes for synthetic traces: rows of (cpu, mem GB, share). "huawei" is the derived trace's
# (68% of VMs take 1 cpu, 0.3% take >= 32). "frag" is the mix of ``vm-frag`` (see there): half the
# VMs small (2-8 cpu), the rest large or lopsided against a 40 cpu / 90 GB NUMA.
FRAG_TYPES = (
    (2, 4, 0.25), (4, 8, 0.20), (8, 16, 0.15),  # small, the trace's 1:2 cpu:mem shape
    (16, 32, 0.10),  # large single-NUMA (40% of a NUMA's cpu)
    (4, 32, 0.10),  # memory-heavy (1:8)
    (16, 16, 0.10),  # cpu-heavy (1:1)
    (24, 48, 0.05), (32, 64, 0.05),  # double-NUMA (mem > 32): 12 / 16 cpu from each NUMA of one PM
)

VARIANTS: dict[str, dict] = {
    # The Huawei East-1 trace (derived file, ../shared/data): PMs of 2 x (40 cpu, 90 GB), non-expansion,
    # start rows drawn in VMAgent's range [1000, 9999). 10 PMs, not the paper's 50: the derived file
    # lacks the long-lived VMs, and 50 empty PMs running Best-Fit are not full after 8000 events
    # (~4500 placements), whereas 10 PMs overflow after ~800-2000 placements; a window of 4000 events
    # ran out before the end at 1 of 4 start points, 8000 covers them.
    # The file is not part of jaxsched: give ``trace=dataset:huawei-east-1`` (jaxsched.workloads.datasets) or its path.
    "vm-huawei": dict(num_pms=10, trace=None, trace_format="lifetimes", window=8000,
                      start_low=1000, start_high=9999),
    # A small synthetic cluster (Huawei type mix) for tests and CI: needs no file. At 3 PMs an
    # episode from empty places ~220 creates and ends on a create that fits nowhere.
    "vm-synthetic": dict(num_pms=3, trace="synthetic", synthetic_vms=3000, window=600, start_low=0,
                         start_high=5000),
    # A setting where placement matters (on vm-huawei First-Fit, Best-Fit and the PM-level
    # Best-Fit differ by < 0.1%, because 68% of the VMs take one cpu and any placement packs the
    # cluster to 97-99% before a create fails). Here PMs are VMAgent's 2 x (40 cpu, 90 GB), deletions
    # are on, and the synthetic trace has
    # - the FRAG_TYPES mix: 20% large (16 cpu single, 24 / 32 cpu double-NUMA), 20% lopsided in
    #   cpu:mem (4/32 memory-heavy, 16/16 cpu-heavy), the rest 2-8 cpu, so holes left by deletes and
    #   by the other dimension decide when a large create fits nowhere;
    # - log-normal lifetimes of median 1 h and sigma 1 (mean 1.65 h; no month-long tail), so VMs come
    #   and go within an episode (churn) instead of accumulating;
    # - Poisson arrivals whose rate is set from ``load``: offered cpu (arrival rate x mean lifetime x
    #   mean cpu) = ``load`` x the cluster's cpu (``num_pms`` x 2 x numa_cpu). The trace therefore
    #   depends on num_pms (same load per PM at every N). At 0.9 the cluster runs near capacity and the
    #   episode ends when fragmentation (not raw demand) makes a create fit nowhere.
    # ``window = 0`` / ``synthetic_vms = 0`` mean "from num_pms": 160 N + 2000 events per episode
    # (none ran out at 5-100 PMs from empty, see results/vm_heuristics_frag.md) and enough VMs for
    # start rows in [0, 10000) plus a window.
    "vm-frag": dict(num_pms=5, trace="synthetic", synthetic_mix="frag", load=0.9, median_lifetime=3600.0,
                    lifetime_sigma=1.0, synthetic_vms=0, window=0, start_low=0, start_high=10000),
}
SYNTHETIC_MIXES = {"huawei": None, "frag": FRAG_TYPES}


@dataclasses.dataclass(frozen=True)
class VmVariant:
    """A VM-placement setting: the env, params (``requests`` = the window at ``start_low``), the whole
    trace, and where episodes may start (rows ``[start_low, start_high)``, each a ``window`` long).
    An instance is the window at one start row (:func:`jaxsched.envs.vm.episodes.params_at`).

    ``held_out_from`` (a row, or None) splits the start rows so that held-out episodes see none of the
    trace that training saw: held-out starts are ``[held_out_from, start_high)``, training starts end
    their windows before it (:meth:`start_range`). None: both draw from ``[start_low, start_high)``, and
    train / evaluate refuse to evaluate a trained policy there (:mod:`jaxsched.core.instances`). The build
    option ``held_out_after = K`` keeps the training starts ``[start_low, start_high)`` and puts the
    held-out ones in the K rows after the last training window (``held_out_from = start_high + window - 1``)."""

    name: str
    env: VmPlacement
    params: VmEnvParams
    trace: object  # VmRequests of the whole trace
    window: int
    start_low: int
    start_high: int
    held_out_from: int | None = None
    trace_name: str = ""  # what the trace is (a file, or the synthetic trace's seed): instance records name it
    headline: Headline = Headline("mean_return", "scheduled_length", higher_is_better=True)
    default_baselines: tuple[str, ...] = ("first_fit", "best_fit", "pm_best_fit")

    def sample_params(self, key: jax.Array, count: int) -> VmEnvParams:
        return self.params_at_starts(draw_starts(key, self, count))

    def start_range(self, held_out: bool = False) -> tuple[int, int]:
        """``[low, high)`` of the training start rows, or of the held-out ones. With ``held_out_from``
        a training window ``[s, s + window)`` ends at or before row ``held_out_from``, where the
        held-out starts begin, so the two sets of windows share no trace row."""
        if self.held_out_from is None:
            return self.start_low, self.start_high
        if held_out:
            return self.held_out_from, self.start_high
        return self.start_low, self.held_out_from - self.window + 1

    def params_at_starts(self, starts: jax.Array) -> VmEnvParams:
        return jax.vmap(lambda start: params_at(self, start))(starts)

    def heuristic(self, name: str):
        return heuristic_policy(name, self)

    def check_baselines(self, names) -> None:
        unknown = sorted(set(names) - set(HEURISTIC_NAMES))
        if unknown:
            raise ValueError(f"unknown VM baseline(s) {', '.join(unknown)} (set baselines: for a vm-* env); "
                             f"choose from {', '.join(HEURISTIC_NAMES)}")

    def episode_statistics(self, final_state) -> dict:
        return {"scheduled_length": final_state.placed}

    def summarize_statistics(self, stats: dict, weight) -> dict:
        episodes = jnp.sum(weight)
        total = jnp.sum(jnp.where(weight, stats["scheduled_length"], 0))
        return {"mean_scheduled_length": jnp.where(episodes > 0, total / jnp.maximum(episodes, 1), jnp.nan)}

    def held_out(self, count: int, seed: int) -> tuple[VmEnvParams, dict]:
        starts = draw_starts(jax.random.PRNGKey(seed), self, count, held_out=True)
        return self.params_at_starts(starts), {"start_points": [int(s) for s in starts], "seed": seed,
                                               **self.start_ranges()}

    def start_ranges(self) -> dict:
        """What an evaluation records of where its start points came from: both ``[low, high)``
        ranges, the window, and whether the held-out windows are disjoint from the training ones."""
        return {"held_out_start_range": list(self.start_range(held_out=True)),
                "training_start_range": list(self.start_range()), "window": self.window,
                "held_out_disjoint_from_training": self.held_out_from is not None}

    def evaluate(self, policies: dict, batched_params, key: jax.Array, num_rollouts: int = 1) -> dict:
        """Per-episode metric arrays (:func:`jaxsched.envs.vm.episodes.evaluate_at`); one rollout per
        start point (the env is deterministic)."""
        if num_rollouts != 1:
            raise ValueError("VM placement evaluates one rollout per start point")
        return evaluate_at(self, policies, batched_params, key)

    def summarize(self, table: dict) -> dict:
        return summarize_vm(table)

    def describe(self, stats: dict) -> str:
        return (f"scheduled length {stats['scheduled_length']:8.1f} ± {stats['scheduled_length_std']:6.1f}  "
                f"cpu allocation {stats['cpu_allocation']:.3f} (time average {stats['cpu_allocation_mean']:.3f})  income {stats['income']:10.1f}  "
                f"window exhausted {stats['window_exhausted']:.2f}")

    def plot_learning_curves(self, run_dir: Path, summary: dict, baselines, title: str) -> None:
        iterations, means = per_iteration_means(run_dir / "metrics.csv", ("mean_return",))
        learning_curve(iterations, {"training episodes' return (mean over seeds)": means["mean_return"]},
                       run_dir / "learning_curve_return.png", "iteration", "episode return (placements)",
                       {f"{k} (held-out)": summary[k]["scheduled_length"] for k in baselines}, title=title)


def build(name: str, **overrides) -> VmVariant:
    """The variant ``name`` with ``overrides``; ``trace`` is ``"synthetic"`` (drawn with ``seed``), a
    file path, or ``dataset:NAME`` (:func:`jaxsched.workloads.datasets.resolve_path`)."""
    config = variant_config(name, VARIANTS[name], overrides, _VM_ENV_KEYS, _VM_PARAM_KEYS, _VM_TRACE_KEYS)
    if int(config["window"]) == 0:  # from num_pms (vm-frag)
        config["window"] = 160 * int(config["num_pms"]) + 2000
    if config["trace"] == "synthetic":
        trace = synthetic(jax.random.PRNGKey(config.get("seed", 0)), **_synthetic_options(config))
    else:
        if config["trace"] is None:
            raise ValueError(f"{name} reads a trace file: give it as the option trace=PATH or trace=dataset:NAME "
                             f"(for vm-huawei trace=dataset:huawei-east-1, see python -m jaxsched.data list); "
                             f"or use env 'vm-synthetic' / 'vm-frag', which need no file")
        path = resolve_path(config["trace"])
        if not path.exists():
            raise ValueError(f"trace file {path} not found (for vm-huawei: huawei-east-1-lifetimes.csv; "
                             f"use env 'vm-synthetic' / 'vm-frag', which need no file)")
        loaders = {"lifetimes": load_lifetimes, "vmagent": load_vmagent}
        if config.get("trace_format", "lifetimes") not in loaders:
            raise ValueError(f"trace_format must be one of {', '.join(loaders)}")
        trace = loaders[config.get("trace_format", "lifetimes")](path)
    length, win = trace.length, int(config["window"])
    low = int(config["start_low"])
    high = min(int(config["start_high"]), length - 1)
    if config.get("held_out_after") is not None:  # held-out starts after every training window's rows
        config["held_out_from"], high = _held_out_after(config, length)
    if win < 1 or not 0 <= low < high:
        raise ValueError(f"need window >= 1 and 0 <= start_low < start_high <= trace length ({length}); "
                         f"got window {win}, starts [{low}, {config['start_high']})")
    held_out_from = _held_out_from(config.get("held_out_from"), low, high, win)
    env = VmPlacement(**{k: config[k] for k in _VM_ENV_KEYS if k in config})
    params = VmEnvParams(requests=window(trace, low, win),
                         **{k: config[k] for k in _VM_PARAM_KEYS if k in config})
    trace_name = (f"synthetic seed {int(config.get('seed', 0))}" if config["trace"] == "synthetic"
                  else str(config["trace"]))
    return VmVariant(name=name, env=env, params=params, trace=trace, window=win, start_low=low, start_high=high,
                     held_out_from=held_out_from, trace_name=trace_name)


def _held_out_after(config: dict, length: int) -> tuple[int, int]:
    """``(held_out_from, start_high)`` of the option ``held_out_after = K``: training keeps its starts
    ``[start_low, start_high)``, whose windows end before row ``start_high + window - 1``; the held-out
    starts are the K rows from there. A synthetic trace sized from ``synthetic_vms = 0`` covers them."""
    count, high, win = config["held_out_after"], int(config["start_high"]), int(config["window"])
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"held_out_after must be a positive number of held-out start rows (or null), got {count!r}")
    if config.get("held_out_from") is not None:
        raise ValueError("give held_out_from or held_out_after, not both")
    first = high + win - 1
    if first + count > length - 1:
        raise ValueError(f"held_out_after {count}: held-out starts [{first}, {first + count}) pass the trace's "
                         f"{length} rows (raise synthetic_vms, or use synthetic_vms=0 to size it)")
    return first, first + count


def _held_out_from(value, low: int, high: int, win: int) -> int | None:
    """The checked ``held_out_from`` row: inside the start range, with room before it for at least
    one training window (start_low + window <= held_out_from)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"held_out_from must be an integer row (or null), got {value!r}")
    if not low < value < high:
        raise ValueError(f"held_out_from {value} must lie inside the start range ({low}, {high}) "
                         f"(start_high is capped at the trace length - 1)")
    if value - win < low:
        raise ValueError(f"held_out_from {value} leaves no training start: a training window "
                         f"(window {win}) must end before it, so held_out_from must be >= start_low + window = "
                         f"{low + win} (or raise start_high)")
    return value


def _synthetic_options(config: dict) -> dict:
    """``synthetic()``'s arguments for a synthetic variant: the mix, lifetimes, and the arrival rate
    (from ``load`` when given, see ``vm-frag``); ``synthetic_vms = 0`` sizes the trace to cover
    ``start_high + window`` events."""
    mix = config.get("synthetic_mix", "huawei")
    if mix not in SYNTHETIC_MIXES:
        raise ValueError(f"synthetic_mix must be one of {', '.join(SYNTHETIC_MIXES)}, got {mix!r}")
    options = {"types": SYNTHETIC_MIXES[mix]}
    for key in ("median_lifetime", "lifetime_sigma"):
        if key in config:
            options[key] = float(config[key])
    if config.get("load") is not None:
        cluster_cpu = int(config["num_pms"]) * 2 * float(config.get("numa_cpu", VmEnvParams.numa_cpu))
        options["mean_interarrival"] = interarrival_for_load(float(config["load"]), cluster_cpu, **options)
    vms = int(config.get("synthetic_vms", 3000))
    last = int(config["start_high"]) + int(config.get("held_out_after") or 0)  # held-out starts follow the training
    # windows (held_out_after): the trace then also holds them and their windows
    extra = int(config["window"]) if config.get("held_out_after") else 0
    options["num_vms"] = vms if vms > 0 else (last + extra + int(config["window"])) // 2 + 1
    return options
