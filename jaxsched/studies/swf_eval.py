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

Trained agents run in ``--mode greedy`` (the argmax action, one episode per window), ``sampled`` (the
stochastic policy, as the paper evaluates it: ``--episodes N`` episodes per window, so windows x N
in all; the paper's 1000 is e.g. ``--num-windows 8 --episodes 125``) or ``both`` (the default). A
greedy agent can idle until the clock cap and leave jobs unfinished; its finished-only means then
cover fewer, easier jobs. So every policy also reports ``finished / jobs`` (jobs x episodes) and
penalised means over all jobs: an unfinished job counts as finishing at the earliest time it could
(a started one at start + duration, a waiting one as if started at the episode's end), a lower bound
on its slowdown, stated in the output JSON (``unfinished_penalty``). A policy with unfinished jobs is
marked ``*`` in the table and not ranked against the heuristics on its finished-only means: the table's
ranking line orders only the policies that finished every job and lists the others apart.

    python -m jaxsched.studies.swf_eval --render results/mdp_swf/lublin-256.json

rewrites the markdown table beside a saved JSON (any version of it) without evaluating anything.
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

from jaxsched.core.progress import evaluate_each
from jaxsched.core.unfinished import LEGEND, MARK, leaves_unfinished, legend, marked
from jaxsched.envs.deeprm.metrics import UNFINISHED_PENALTY, bounded_slowdown, penalised_means, summarize
from jaxsched.envs.deeprm.swf_jobsets import to_jobsets
from jaxsched.errors import CheckpointError, UsageError
from jaxsched.experiment import load_policy
from jaxsched.registry import build
from jaxsched.workloads.datasets import resolve_path
from jaxsched.workloads.swf import read_swf

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
    """Every heuristic (one episode per window) and every agent in ``args.mode`` on the trace's windows."""
    jobsets, run_s, info = trace_jobsets(args.trace, args.window, args.quantum, args.num_windows, args.num_procs)
    variant = swf_variant(jobsets, info["num_procs"])
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    try:
        heuristics = {name: variant.heuristic(name) for name in names}
    except ValueError as error:
        raise UsageError(str(error)) from None
    # (policy, episodes per window) per row: heuristics once, an agent greedy and / or sampled
    runs = {name: (policy, 1) for name, policy in heuristics.items()}
    for name, (greedy, sampled) in agents.items():
        if args.mode in ("greedy", "both"):
            runs[name] = (greedy, 1)
        if args.mode in ("sampled", "both"):
            runs[f"{name}-sampled"] = (sampled, args.episodes)
    for name in agents:
        print(f"{name}: trained agent ({args.mode})", flush=True)
    instances, key, tau = variant.with_jobsets(jobsets), jax.random.PRNGKey(args.seed), BSLD_TAU_SECONDS / args.quantum
    results = {}
    for episodes in sorted({n for _, n in runs.values()}):
        mine = {name: policy for name, (policy, n) in runs.items() if n == episodes}
        tables = evaluate_each(variant, mine, instances, key, f"swf_eval x{episodes}", num_rollouts=episodes,
                               bsld_tau=tau)
        for name, table in tables.items():
            stats = summarize(table) | penalised_means(table, tau)
            stats["mean_bounded_slowdown_seconds"] = seconds_bsld(table, run_s, args.quantum)
            stats.update(episodes_per_window=episodes, leaves_unfinished=leaves_unfinished(stats))
            results[name] = stats
    results = {name: results[name] for name in runs}  # the order of the command line
    for name, stats in results.items():
        print(f"{marked(name, stats):>26s}  slowdown {stats['mean_slowdown']:9.3f}  (penalised "
              f"{stats['mean_slowdown_penalised']:9.3f})  bsld(steps) {stats['mean_bounded_slowdown']:9.3f}  "
              f"bsld(s) {stats['mean_bounded_slowdown_seconds']:9.3f}  finished {stats['finished']}/{stats['jobs']}",
              flush=True)
    for line in legend(results.values()):
        print(line)
    return {**info, "bsld_tau_steps": tau, "mode": args.mode, "episodes_per_window_sampled": args.episodes,
            "unfinished_penalty": UNFINISHED_PENALTY, "legend": LEGEND,
            "env": {**ENV_OPTIONS, "capacity": variant.env.capacity, "max_job_len": variant.env.max_job_len,
                    "backlog_size": variant.env.backlog_size, "max_time": int(variant.params.max_time)},
            "policies": results}


def ranking(policies: dict, metric: str = "mean_slowdown") -> str:
    """The policies ordered by ``metric`` (lower is better), only those that finished every job; a policy
    that left jobs unfinished is listed apart, never ranked (its mean covers fewer, easier jobs)."""
    complete = sorted((name for name, stats in policies.items() if not leaves_unfinished(stats)),
                      key=lambda name: policies[name][metric])
    apart = [name for name in policies if leaves_unfinished(policies[name])]
    text = (f"Ranked by {metric.replace('_', ' ')} (lower is better; only policies that finished every job): "
            + " < ".join(f"{name} {policies[name][metric]:.3f}" for name in complete) + ".")
    if apart:
        text += (f" Not ranked (jobs left unfinished, {MARK}): "
                 + ", ".join(f"{name} {policies[name][metric]:.3f} over {policies[name]['finished']} of "
                             f"{policies[name]['jobs']} jobs" for name in apart) + ".")
    return text


def markdown(result: dict) -> str:
    """A table of the policies on the trace's windows, with what was cut and what was left unfinished,
    and the policies ranked (:func:`ranking`). A JSON written before the penalised means existed gets
    its own columns."""
    if "unfinished_penalty" not in result:
        return _markdown_without_penalty(result)
    lines = [f"{Path(result['trace']).name}: {result['windows']} windows of {result['window']} consecutive jobs, "
             f"{result['num_procs']} processors, quantum {result['quantum_s']:g} s "
             f"(bsld tau = 10 s = {result['bsld_tau_steps']:.4g} steps); oversized jobs removed: "
             f"{result['oversized']['count']}. Means over finished jobs; penalised: over all jobs, "
             f"{result['unfinished_penalty']}.", "",
             "| policy | episodes / window | mean slowdown (steps) | penalised | mean bsld (steps) | penalised "
             "| mean bsld (s, true run times) | finished / jobs |",
             "|---|---|---|---|---|---|---|---|"]
    for name, stats in result["policies"].items():
        lines.append(f"| {marked(name, stats)} | {stats['episodes_per_window']} | {stats['mean_slowdown']:.3f} | "
                     f"{stats['mean_slowdown_penalised']:.3f} | {stats['mean_bounded_slowdown']:.3f} | "
                     f"{stats['mean_bounded_slowdown_penalised']:.3f} | {stats['mean_bounded_slowdown_seconds']:.3f}"
                     f" | {stats['finished']} / {stats['jobs']} |")
    lines += ["", ranking(result["policies"]), "", *legend(result["policies"].values())]
    return "\n".join(lines).rstrip() + "\n"


def _markdown_without_penalty(result: dict) -> str:
    """:func:`markdown` of a JSON from before ``--mode`` and the penalised means (one greedy episode per
    window): the columns it holds, its unfinished rows marked, the ranking."""
    lines = [f"{Path(result['trace']).name}: {result['windows']} windows of {result['window']} consecutive jobs, "
             f"{result['num_procs']} processors, quantum {result['quantum_s']:g} s "
             f"(bsld tau = 10 s = {result['bsld_tau_steps']:.4g} steps); oversized jobs removed: "
             f"{result['oversized']['count']}. Means over finished jobs; agents greedy, one episode per window.", "",
             "| policy | mean slowdown (steps) | mean bsld (steps) | mean bsld (s, true run times) | finished / jobs |",
             "|---|---|---|---|---|"]
    for name, stats in result["policies"].items():
        lines.append(f"| {marked(name, stats)} | {stats['mean_slowdown']:.3f} | {stats['mean_bounded_slowdown']:.3f} | "
                     f"{stats['mean_bounded_slowdown_seconds']:.3f} | {stats['finished']} / {stats['jobs']} |")
    lines += ["", ranking(result["policies"]), "", *legend(result["policies"].values())]
    return "\n".join(lines).rstrip() + "\n"


def load_agents(run_dirs: list[Path]) -> dict:
    """``{name: (greedy, sampled)}`` policies of each run's first seed, named after the run directory."""
    agents = {}
    for run in run_dirs:
        greedy, variant, _ = load_policy(run, greedy=True)
        if variant.env.feature_shape() != build("bracis-1", **ENV_OPTIONS).env.feature_shape():
            raise UsageError(f"{run}: only compact (bracis-observation) agents with W = 10, H = 20 transfer to "
                             "a trace's cluster")
        if variant.env.stepping != ENV_OPTIONS["stepping"]:
            print(f"warning: {run}: trained with {variant.env.stepping}-based steps; the trace runs "
                  f"{ENV_OPTIONS['stepping']}-based steps, which ask it in states it never saw (nothing fits): "
                  "its rows are not its MDP's result", file=sys.stderr)
        agents[f"ppo:{run.name}"] = (greedy, load_policy(run, greedy=False)[0])
    return agents


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.swf_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help="an SWF file or dataset:NAME (python -m jaxsched.data list)")
    parser.add_argument("--render", type=Path, metavar="JSON",
                        help="only rewrite the markdown table beside this saved JSON; evaluate nothing")
    parser.add_argument("--window", type=int, default=128, help="consecutive jobs per jobset")
    parser.add_argument("--quantum", type=float, default=600.0, help="seconds per time step")
    parser.add_argument("--num-windows", type=int, help="first N full windows (default all)")
    parser.add_argument("--num-procs", type=int, help="cluster size (default the trace header's)")
    parser.add_argument("--policies", default="sjf,packer,fcfs,easy,random")
    parser.add_argument("--checkpoint", type=Path, action="append", default=[],
                        help="a compact PPO run directory (repeatable)")
    parser.add_argument("--mode", choices=("greedy", "sampled", "both"), default="both",
                        help="the agents' policy: greedy (argmax, one episode per window), sampled (stochastic, "
                             "--episodes per window) or both (default)")
    parser.add_argument("--episodes", type=int, default=10,
                        help="sampled mode: episodes per window (the paper's 1000 in all: windows x episodes)")
    parser.add_argument("--seed", type=int, default=0, help="key of the random and sampled policies")
    parser.add_argument("--out", type=Path, help="JSON output (and a markdown table beside it, .md)")
    args = parser.parse_args(argv)
    if args.render:
        if not args.render.exists():
            print(f"error: {args.render} not found", file=sys.stderr)
            return 2
        args.render.with_suffix(".md").write_text(markdown(json.loads(args.render.read_text())))
        print(f"wrote {args.render.with_suffix('.md')}")
        return 0
    if not args.trace:
        parser.error("--trace is required (unless --render)")
    try:
        if args.episodes < 1:
            raise UsageError(f"--episodes must be >= 1, got {args.episodes}")
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
