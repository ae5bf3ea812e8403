"""Schedulers on windows of consecutive jobs of a real SWF trace.

    python -m jaxsched.studies.swf_eval --trace dataset:lublin-256 --window 128 --quantum 600 \
        --policies sjf,packer,fcfs,easy,random [--checkpoint RUN_DIR ...] [--num-windows N] \
        --out results/mdp_swf/lublin-256.json

The modelled cluster is the trace's machine (header ``MaxProcs``/``MaxNodes``, or ``--num-procs``),
processors only, in the MDP-design environment (compact "bracis" state, W = 10 visible slots,
horizon 20, fits-now scheduling, time-based steps). The backlog holds a whole window, so no job is
dropped for lack of queue space. Jobs wider than the cluster are not clamped: they are removed
before the windows are cut and listed in the output (``oversized``). A trained compact agent runs
unchanged: its state has the same size on every cluster.

Metrics per policy (finished jobs only, job-weighted): mean slowdown in time steps, the bounded
slowdown in steps with tau = 10 s / quantum, and the bounded slowdown in seconds from the trace's
true run times (wait measured on the step grid): max(1, (wait_s + run_s) / max(run_s, 10)).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import warnings
from pathlib import Path

import jax
import numpy as np

from jaxsched.datasets import resolve_path
from jaxsched.envs.deeprm.metrics import bounded_slowdown, summarize
from jaxsched.envs.deeprm.swf import read_swf, to_jobsets
from jaxsched.errors import CheckpointError, UsageError
from jaxsched.experiment import load_policy
from jaxsched.registry import build

BSLD_TAU_SECONDS = 10.0
ENV_OPTIONS = dict(num_res=1, observation="bracis", stepping="time", reward_jobs="all", allocation="fits_now",
                   horizon=20, num_slots=10)


def trace_jobsets(path: Path, window: int, quantum: float, num_windows: int | None, num_procs: int | None):
    """(jobsets, run times in seconds [windows, window], description of what was cut)."""
    trace = read_swf(path)
    procs = num_procs or trace.max_procs
    if procs is None:
        raise UsageError(f"{path}: no MaxProcs/MaxNodes header; pass --num-procs")
    too_wide = trace.procs > procs
    kept_run = trace.run_time[~too_wide]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the drop is reported in the description instead
        jobsets = to_jobsets(trace, num_procs=procs, quantum=quantum, window=window, num_windows=num_windows,
                             oversized="drop")
    count = jobsets.arrival.shape[0]
    info = {"trace": str(path), "jobs_in_trace": trace.num_jobs, "cleaning_skipped": trace.skipped,
            "num_procs": procs, "oversized": {"count": int(too_wide.sum()),
                                              "job_ids": [int(i) for i in trace.job_id[too_wide]],
                                              "handling": "removed before cutting windows (not clamped)"},
            "window": window, "windows": count, "quantum_s": quantum,
            "window_span_steps": [int(a.max()) for a in np.asarray(jobsets.arrival)],
            "max_duration_steps": int(np.asarray(jobsets.duration).max())}
    return jobsets, kept_run[:count * window].reshape(count, window), info


def swf_variant(jobsets, num_procs: int):
    """The MDP-design environment sized for the trace: every job fits in the grid, nothing drops."""
    arrival, duration = np.asarray(jobsets.arrival), np.asarray(jobsets.duration)
    longest, window = int(duration.max()), arrival.shape[1]
    # A work-conserving policy ends by the last arrival + the total work run serially.
    max_time = int((arrival.max(axis=1) + duration.sum(axis=1)).max()) + 1
    variant = build("bracis-1", **ENV_OPTIONS, capacity=num_procs, max_job_size=num_procs, max_job_len=longest,
                    backlog_size=window, max_time=max_time)
    return dataclasses.replace(variant, params=variant.params.replace(simu_len=int(arrival.max()) + 1))


def seconds_bsld(table, run_s: np.ndarray, quantum: float) -> float:
    """Mean bounded slowdown in seconds over finished jobs (wait on the step grid, true run times)."""
    done = table["status"] == "finished"
    run = run_s.reshape(-1)[table["jobset"] * run_s.shape[1] + table["job"]]
    wait = (table["start"] - table["arrival"]) * quantum
    return float(np.mean(bounded_slowdown(wait[done], run[done], BSLD_TAU_SECONDS))) if done.any() else float("nan")


def evaluate_trace(args, agents: dict) -> dict:
    jobsets, run_s, info = trace_jobsets(args.trace, args.window, args.quantum, args.num_windows, args.num_procs)
    variant = swf_variant(jobsets, info["num_procs"])
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    try:
        policies = {name: variant.heuristic(name) for name in names} | agents
    except ValueError as error:
        raise UsageError(str(error)) from None
    for name in agents:
        print(f"{name}: trained agent", flush=True)
    tables = variant.evaluate(policies, variant.with_jobsets(jobsets), jax.random.PRNGKey(args.seed),
                              bsld_tau=BSLD_TAU_SECONDS / args.quantum)
    results = {}
    for name, table in tables.items():
        stats = summarize(table)
        stats["mean_bounded_slowdown_seconds"] = seconds_bsld(table, run_s, args.quantum)
        results[name] = stats
        print(f"{name:>24s}  slowdown {stats['mean_slowdown']:9.3f}  bsld(steps) {stats['mean_bounded_slowdown']:9.3f}"
              f"  bsld(s) {stats['mean_bounded_slowdown_seconds']:9.3f}  finished {stats['finished']}/{stats['jobs']}",
              flush=True)
    return {**info, "bsld_tau_steps": BSLD_TAU_SECONDS / args.quantum, "env": {**ENV_OPTIONS,
            "capacity": variant.env.capacity, "max_job_len": variant.env.max_job_len,
            "backlog_size": variant.env.backlog_size, "max_time": int(variant.params.max_time)}, "policies": results}


def markdown(result: dict) -> str:
    """A table of the policies on the trace's windows, with what was cut."""
    lines = [f"{Path(result['trace']).name}: {result['windows']} windows of {result['window']} consecutive jobs, "
             f"{result['num_procs']} processors, quantum {result['quantum_s']:g} s "
             f"(bsld tau = 10 s = {result['bsld_tau_steps']:.4g} steps); oversized jobs removed: "
             f"{result['oversized']['count']}", "",
             "| policy | mean slowdown (steps) | mean bsld (steps) | mean bsld (s, true run times) | finished / jobs |",
             "|---|---|---|---|---|"]
    for name, stats in result["policies"].items():
        lines.append(f"| {name} | {stats['mean_slowdown']:.3f} | {stats['mean_bounded_slowdown']:.3f} | "
                     f"{stats['mean_bounded_slowdown_seconds']:.3f} | {stats['finished']} / {stats['jobs']} |")
    return "\n".join(lines) + "\n"


def load_agents(run_dirs: list[Path]) -> dict:
    """Greedy policy of each run's first seed, named after the run directory."""
    agents = {}
    for run in run_dirs:
        policy, variant, _ = load_policy(run, greedy=True)
        if variant.env.feature_shape() != build("bracis-1", **ENV_OPTIONS).env.feature_shape():
            raise UsageError(f"{run}: only compact (bracis-observation) agents with W = 10, H = 20 transfer to "
                             "a trace's cluster")
        agents[f"ppo:{run.name}"] = policy
    return agents


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.swf_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True, help="an SWF file or dataset:NAME (python -m jaxsched.data list)")
    parser.add_argument("--window", type=int, default=128, help="consecutive jobs per jobset")
    parser.add_argument("--quantum", type=float, default=600.0, help="seconds per time step")
    parser.add_argument("--num-windows", type=int, help="first N full windows (default all)")
    parser.add_argument("--num-procs", type=int, help="cluster size (default the trace header's)")
    parser.add_argument("--policies", default="sjf,packer,fcfs,easy,random")
    parser.add_argument("--checkpoint", type=Path, action="append", default=[],
                        help="a compact PPO run directory (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="key of the random policy")
    parser.add_argument("--out", type=Path, help="JSON output (and a markdown table beside it, .md)")
    args = parser.parse_args(argv)
    try:
        args.trace = resolve_path(args.trace)
        if not args.trace.exists():
            raise UsageError(f"trace not found: {args.trace}")
        result = evaluate_trace(args, load_agents(args.checkpoint))
    except (UsageError, ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
        args.out.with_suffix(".md").write_text(markdown(result))
        print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
