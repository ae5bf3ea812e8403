"""Episodes of the VM-placement env at trace start points: start draws, initial-state pools, evaluation.

An episode is the trace window ``[start, start + variant.window)``. VMAgent draws start rows once and
reuses them every epoch; :func:`draw_starts` does the same from a key. Learners restart finished
episodes from a *pool* of precomputed initial states (one per start point): the initial state may
hold a warm start (a Best-Fit loop over hundreds of creates), which would otherwise be recomputed on
every vmapped step by an auto-reset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.rollout import run_episode
from jaxsched.run_files import per_iteration_means, write_evaluation
from jaxsched.workloads.vm_trace import window


def draw_starts(key: jax.Array, variant, count: int) -> jax.Array:
    """int32[count] start rows uniform in ``[variant.start_low, variant.start_high)``."""
    return jax.random.randint(key, (count,), variant.start_low, variant.start_high, jnp.int32)


def params_at(variant, start: jax.Array):
    """The variant's params with the window starting at row ``start`` (may be traced)."""
    return variant.params.replace(requests=window(variant.trace, start, variant.window))


def initial_state_pool(variant, starts: jax.Array):
    """EnvState batched over ``starts`` (warm start included)."""
    env = variant.env
    return jax.jit(jax.vmap(lambda s: env.initial_state(params_at(variant, s))))(starts)


def evaluate_policies(variant, policies: dict[str, Callable], starts: jax.Array, key: jax.Array) -> dict:
    """``{name: {metric: float64[starts]}}``: one episode per start point and policy, to its end.

    Metrics: ``scheduled_length``, ``cpu_allocation`` (at the episode's end), ``income``,
    ``active_pms``, ``decisions`` and ``window_exhausted`` (the episode ended because the window ran
    out of creates, not because a create fit nowhere: lengthen the window if this is common)."""
    env = variant.env
    results = {}
    for name, policy in policies.items():
        def episode(start, k, policy=policy):
            params = params_at(variant, start)
            result = run_episode(env, params, policy, k)
            metrics = env.metrics(result.state, params)
            metrics["decisions"] = result.decisions
            metrics["window_exhausted"] = result.state.pos >= variant.window
            return metrics

        keys = jax.random.split(key, starts.shape[0])
        out = jax.jit(jax.vmap(episode))(starts, keys)
        results[name] = {k: np.asarray(v, np.float64) for k, v in out.items()}
    return results


def summarize_vm(table: dict) -> dict:
    """Means (and the scheduled length's std) of :func:`evaluate_policies`' per-start arrays."""
    summary = {k: float(np.mean(v)) for k, v in table.items()}
    summary["scheduled_length_std"] = float(np.std(table["scheduled_length"]))
    summary["episodes"] = int(len(table["scheduled_length"]))
    return summary


def check_vm_baselines(names) -> None:
    """Raises ``ConfigError`` (before any training) for baselines that are not VM heuristics."""
    from baselines.vm_heuristics import HEURISTIC_NAMES
    from jaxsched.config import ConfigError

    unknown = sorted(set(names) - set(HEURISTIC_NAMES))
    if unknown:
        raise ConfigError(f"unknown VM baseline(s) {', '.join(unknown)} (set baselines: for a vm-* env); "
                          f"choose from {', '.join(HEURISTIC_NAMES)}")


def evaluate_vm_run(experiment, out: Path, trained: dict[str, Callable], log=print) -> dict:
    """``jaxsched.train``'s final evaluation for VM placement: the ``trained`` policies (each seed's,
    greedy and ε = 0.05, from ``jaxsched.train.seed_policies``) and the VM heuristics named in
    ``baselines`` on ``eval_jobsets`` held-out start points (drawn with ``eval_seed``); writes
    ``eval.json`` and the learning curve into ``out``."""
    from baselines.vm_heuristics import heuristic_policy
    from jaxsched.plotting import learning_curve

    config = experiment.config
    check_vm_baselines(config.baselines)
    policies = {name: heuristic_policy(name, experiment.variant) for name in config.baselines} | trained
    starts = draw_starts(jax.random.PRNGKey(config.eval_seed), experiment.variant, config.eval_jobsets)
    tables = evaluate_policies(experiment.variant, policies, starts, jax.random.PRNGKey(config.eval_seed + 1))
    summary = {name: summarize_vm(table) for name, table in tables.items()}
    write_evaluation(out, {"start_points": [int(s) for s in starts], "seed": config.eval_seed}, summary,
                     lambda stats: f"scheduled length {stats['scheduled_length']:8.1f} ± "
                                   f"{stats['scheduled_length_std']:6.1f}  cpu allocation "
                                   f"{stats['cpu_allocation']:.3f}  income {stats['income']:10.1f}  "
                                   f"window exhausted {stats['window_exhausted']:.2f}",
                     f"{config.eval_jobsets} start points, seed {config.eval_seed}", log)
    iterations, means = per_iteration_means(out / "metrics.csv", ("mean_return",))
    learning_curve(iterations, {"training episodes' return (mean over seeds)": means["mean_return"]},
                   out / "learning_curve_return.png", "iteration", "episode return (placements)",
                   {f"{k} (held-out)": summary[k]["scheduled_length"] for k in config.baselines},
                   title=f"{config.env} {config.algo}")
    return summary


def heuristics_table(env_name: str, num_pms_list, warm_starts, num_starts: int, seed: int, window: int | None,
                     policies=("first_fit", "best_fit", "pm_best_fit"), trained: Callable | None = None,
                     options: dict | None = None) -> list[dict]:
    """Scheduled length, CPU allocation and income of the VM heuristics per (N, ρ_ws), on the same
    ``num_starts`` start points (drawn with ``seed``) for every policy. ``trained(env) -> {name:
    policy}`` adds policies built for each N (a checkpoint's, see ``--checkpoint``); ``options`` are
    further variant options (e.g. the expansion scenario's ``initial_pms``)."""
    from baselines.vm_heuristics import heuristic_policy
    from jaxsched.registry import build

    rows = []
    for num_pms in num_pms_list:
        for warm_start in warm_starts:
            options_here = dict(num_pms=num_pms, warm_start=warm_start, **(options or {}),
                                **({} if window is None else {"window": window}))
            variant = build(env_name, **options_here)
            starts = draw_starts(jax.random.PRNGKey(seed), variant, num_starts)
            chosen = {p: heuristic_policy(p, variant) for p in policies} | (trained(variant.env) if trained else {})
            tables = evaluate_policies(variant, chosen, starts, jax.random.PRNGKey(seed + 1))
            for name, table in tables.items():
                rows.append({"num_pms": num_pms, "warm_start": warm_start, "policy": name, "window": variant.window,
                             **summarize_vm(table)})
                print(f"N={num_pms:3d} ρ_ws={warm_start:.2f} {name:12s} length {rows[-1]['scheduled_length']:8.1f} "
                      f"± {rows[-1]['scheduled_length_std']:6.1f}  cpu {rows[-1]['cpu_allocation']:.3f}  "
                      f"income {rows[-1]['income']:9.1f}  window exhausted {rows[-1]['window_exhausted']:.2f}",
                      flush=True)
    return rows


def main(argv=None) -> int:
    """``python -m jaxsched.vm_episodes``: the VM heuristics table (JSON + markdown)."""
    import argparse

    import yaml

    parser = argparse.ArgumentParser(prog="python -m jaxsched.vm_episodes", description=main.__doc__)
    parser.add_argument("--env", default="vm-huawei")
    parser.add_argument("--num-pms", default="5,10,20")
    parser.add_argument("--warm-start", default="0,0.5")
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--window", type=int, default=None, help="trace events per episode (default: the variant's)")
    parser.add_argument("--out", type=Path, default=Path("results/vm_heuristics.json"))
    parser.add_argument("--checkpoint", type=Path, help="a VM training run directory: adds its policy "
                        "(greedy, 'trained') at every N, which needs a model that runs at any N (CVD-RL)")
    parser.add_argument("--policies", default="first_fit,best_fit,pm_best_fit",
                        help="comma-separated heuristics (also: room_fit)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="further variant option, e.g. initial_pms=50 (repeatable)")
    args = parser.parse_args(argv)
    try:
        num_pms = [int(n) for n in args.num_pms.split(",")]
        warm = [float(w) for w in args.warm_start.split(",")]
    except ValueError:
        parser.error("--num-pms and --warm-start are comma-separated numbers")
    options = {}
    for text in args.option:
        key, sep, value = text.partition("=")
        if not sep:
            parser.error(f"--option {text!r} is not KEY=VALUE")
        options[key] = yaml.safe_load(value)
    trained = None
    if args.checkpoint:
        from jaxsched.algos import ALGORITHMS
        from jaxsched.train import load_run

        experiment, states = load_run(args.checkpoint)
        params = jax.tree.map(lambda x: x[0], states.params)
        algo = ALGORITHMS[experiment.config.algo]
        trained = lambda env: {"trained": algo.policy_from(experiment.algo, env, params, True)}  # noqa: E731
    policies = tuple(p for p in args.policies.split(",") if p)
    try:
        check_vm_baselines(policies)
    except ValueError as error:
        parser.error(str(error))
    rows = heuristics_table(args.env, num_pms, warm, args.starts, args.seed, args.window, policies=policies,
                            trained=trained, options=options)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"env": args.env, "starts": args.starts, "seed": args.seed, "options": options,
                                    "checkpoint": str(args.checkpoint) if args.checkpoint else None,
                                    "rows": rows}, indent=1))
    lines = ["| N | ρ_ws | policy | scheduled length | CPU allocation (end) | income | window exhausted |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['num_pms']} | {r['warm_start']:.2f} | {r['policy']} | {r['scheduled_length']:.1f} ± "
              f"{r['scheduled_length_std']:.1f} | {r['cpu_allocation']:.3f} | {r['income']:.1f} | "
              f"{r['window_exhausted']:.2f} |" for r in rows]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
