"""The MDP-design study's figures from training runs (Cunha and Chaimowicz, BRACIS'21).

    python -m jaxsched.studies.mdp_study fig4 --runs runs/mdp --scenarios bracis-1,bracis-7 --jobsets 1000 \
        --out results/mdp_ppo/fig4.json [--transfer-jobsets 200]
    python -m jaxsched.studies.mdp_study curves --runs runs/mdp --scenarios bracis-1,bracis-7 --out results/mdp_ppo \
        [--fig4 results/mdp_ppo/fig4.json]

Runs are the directories ``RUNS/<scenario>_<variant>`` written by ``jaxsched.train`` (several seeds
vmapped in each, see ``results/mdp_ppo/train_study.sh``). ``fig4``: mean slowdown of the heuristics
and of every seed of every trained variant (greedy, each in the MDP it was trained in) on the same
generated jobsets per scenario (the paper's Fig. 4, 1000 jobsets); with ``--transfer-jobsets`` also
every compact time-based agent on every other scenario, unchanged (the paper's Fig. 6).
``curves``: training-rollout slowdown against agent steps and wall-clock per scenario, parameter
counts of the networks, and training seconds per million agent steps.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import jax
import numpy as np

from jaxsched.algos import ALGORITHMS
from jaxsched.core.plotting import learning_curves_with_spread
from jaxsched.core.progress import progress
from jaxsched.core.rollout import make_evaluator
from jaxsched.core.runs import read_csv_rows, read_run_config
from jaxsched.core.unfinished import LEGEND, MARK, leaves_unfinished
from jaxsched.envs.deeprm.metrics import job_table, summarize
from jaxsched.experiment import Experiment, TrainConfig, load_run
from jaxsched.errors import UsageError
from jaxsched.registry import build

HEURISTICS = ("sjf", "packer", "fcfs", "easy", "random")
EVAL_SEED = 99991
COMPACT = "compact"  # the run suffix of the compact, time-based, all-jobs MDP (the transferable agent)
COUNTED = ("mean_slowdown", "mean_bounded_slowdown", "finished", "unfinished", "dropped", "jobs")


def find_runs(runs: Path, scenario: str) -> dict[str, Path]:
    """``{variant: run dir}`` of the finished runs ``RUNS/<scenario>_<variant>``: those whose
    checkpoints directory holds the final iteration (a run still training is left out)."""
    found = {}
    for path in sorted(runs.glob(f"{scenario}_*")):
        steps = [int(p.name) for p in (path / "checkpoints").glob("*") if p.name.isdigit()]
        if steps and (path / "config.json").exists() and max(steps) == read_run_config(path)["iterations"]:
            found[path.name[len(scenario) + 1:]] = path
    return found


def evaluate_seeds(experiment, states, batched, key, greedy: bool = True) -> list[dict]:
    """Each seed's policy (greedy, or sampled with ``key``) on the instances, vmapped over the seeds (one
    compilation)."""
    variant, config = experiment.variant, experiment.config
    learner = ALGORITHMS[config.algo]

    def per_seed(params, batched):  # jobsets as an argument, not a constant XLA would fold
        policy = learner.policy_from(experiment.algo, variant.env, params, greedy)
        return make_evaluator(variant.env, policy)(batched, key)

    result = jax.jit(jax.vmap(per_seed, in_axes=(0, None)))(states.params, batched)
    return [summarize(job_table(jax.tree.map(lambda x: np.asarray(x[s]), result)))
            for s in range(len(config.seeds))]


def _over_seeds(per_seed: list[dict]) -> dict:
    slowdowns = [s["mean_slowdown"] for s in per_seed]
    return {"seed_mean_slowdown": float(np.mean(slowdowns)), "seed_std_slowdown": float(np.std(slowdowns)),
            "seeds": [{k: s[k] for k in COUNTED} for s in per_seed]}


def fig4(args) -> dict:
    """Updates ``args.out`` (if it exists) with the parts in ``args.parts`` (heuristics, agents, transfer)."""
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    if results.get("jobsets", args.jobsets) != args.jobsets:
        raise SystemExit(f"{args.out} holds {results['jobsets']} jobsets per scenario, not {args.jobsets}")
    results.update({"jobsets": args.jobsets, "seed": EVAL_SEED, "trained": "greedy policy of each seed"})
    results.setdefault("scenarios", {})
    key = jax.random.PRNGKey(EVAL_SEED + 1)
    bar = progress(args.scenarios, "mdp_study fig4", unit="scenario")
    for scenario in bar:
        variant = build(scenario)
        jobsets = variant.sample_params(jax.random.PRNGKey(EVAL_SEED), args.jobsets)
        row = results["scenarios"].setdefault(scenario, {})
        if "heuristics" in args.parts:
            t0 = time.perf_counter()
            tables = variant.evaluate({h: variant.heuristic(h) for h in HEURISTICS}, jobsets, key)
            row.update({h: {k: summarize(t)[k] for k in COUNTED} for h, t in tables.items()})
            bar.write(f"{scenario}: heuristics {time.perf_counter() - t0:.0f} s "
                      + " ".join(f"{h} {row[h]['mean_slowdown']:.3f}" for h in HEURISTICS))
        for name, run in find_runs(args.runs, scenario).items() if "agents" in args.parts else ():
            if args.variants and name not in args.variants:
                continue
            t0 = time.perf_counter()
            experiment, states = load_run(run)
            if args.max_time:  # a tighter clock cap: greedy agents that idle run to it, and vmap waits for them
                experiment.variant = dataclasses.replace(
                    experiment.variant, params=experiment.variant.params.replace(max_time=args.max_time))
            row[f"ppo-{name}"] = _over_seeds(evaluate_seeds(experiment, states, jobsets, key))
            row[f"ppo-{name}"]["max_time"] = int(experiment.variant.params.max_time)
            bar.write(f"{scenario}: ppo-{name} {_cell(row[f'ppo-{name}'])} ({time.perf_counter() - t0:.0f} s)")
        args.out.write_text(json.dumps(results, indent=1))
    if "transfer" in args.parts and args.transfer_jobsets:
        results["transfer"] = transfer(args)
    return results


def transfer(args) -> dict:
    """Each scenario's compact time-based agent, unchanged, on every other scenario's jobsets."""
    out = {"jobsets": args.transfer_jobsets, "seed": EVAL_SEED, "trained_on": {}}
    key = jax.random.PRNGKey(EVAL_SEED + 1)
    bar = progress(args.scenarios, "mdp_study transfer", unit="scenario")
    for source in bar:
        run = find_runs(args.runs, source).get(COMPACT)
        if run is None:
            continue
        out["trained_on"][source] = {}
        for target in args.scenarios:
            experiment, states = load_run(run, env=target)
            jobsets = experiment.variant.sample_params(jax.random.PRNGKey(EVAL_SEED), args.transfer_jobsets)
            out["trained_on"][source][target] = _over_seeds(evaluate_seeds(experiment, states, jobsets, key))
            bar.write(f"transfer {source} -> {target}: {_cell(out['trained_on'][source][target])}")
    return out


def _slowdown(stats: dict) -> tuple[float, float]:
    if "seed_mean_slowdown" in stats:
        return stats["seed_mean_slowdown"], stats["seed_std_slowdown"]
    return stats["mean_slowdown"], 0.0


def _pooled(stats: dict) -> dict:
    """``finished`` and ``jobs`` summed over a trained row's seeds (a heuristic's own)."""
    rows = stats.get("seeds", [stats])
    return {k: sum(int(r[k]) for r in rows) for k in ("finished", "jobs")}


def _cell(stats: dict) -> str:
    """Mean (± std over seeds), ``finished/jobs`` and the mark of a row that leaves jobs unfinished."""
    mean, std = _slowdown(stats)
    counts = _pooled(stats)
    return (f"{mean:.3f}" + (f" ± {std:.3f}" if "seeds" in stats else "")
            + f" ({counts['finished']}/{counts['jobs']})" + (MARK if leaves_unfinished(counts) else ""))


def fig4_markdown(results: dict) -> str:
    """Policies x scenarios (trained: mean ± std over seeds of each seed's mean slowdown)."""
    scenarios = list(results["scenarios"])
    policies = list(dict.fromkeys(p for row in results["scenarios"].values() for p in row))
    lines = [f"Mean slowdown on {results['jobsets']} jobsets per scenario (seed {results['seed']}); trained "
             f"agents: mean ± std over seeds of each seed's greedy policy; (finished/jobs, over all seeds); "
             f"{LEGEND}.", "",
             "| policy | " + " | ".join(scenarios) + " |", "|---|" + "---|" * len(scenarios)]
    for policy in policies:
        cells = []
        for scenario in scenarios:
            stats = results["scenarios"][scenario].get(policy)
            if stats is None:
                cells.append("")
                continue
            cells.append(_cell(stats))
        lines.append(f"| {policy} | " + " | ".join(cells) + " |")
    if "transfer" in results:
        t = results["transfer"]
        targets = list(dict.fromkeys(x for row in t["trained_on"].values() for x in row))
        lines += ["", f"Transfer ({t['jobsets']} jobsets per scenario): compact time-based agent trained on the row's "
                  "scenario, run unchanged on the column's (mean ± std over seeds).", "",
                  "| trained on | " + " | ".join(targets) + " |", "|---|" + "---|" * len(targets)]
        for source, row in t["trained_on"].items():
            lines.append(f"| {source} | " + " | ".join(_cell(row[x]) if x in row else "" for x in targets) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- curves
def read_metrics(run: Path) -> dict:
    """Per-seed training-rollout slowdown per iteration, agent steps per seed, wall-clock."""
    rows = read_csv_rows(run / "metrics.csv")
    seeds = sorted({int(r["seed"]) for r in rows})
    iterations = sorted({int(r["iteration"]) for r in rows})
    grid = lambda key: np.array([[float(r[key]) for r in rows if int(r["seed"]) == s] for s in seeds])
    decisions = grid("decisions")  # [seeds, iterations] agent steps of each seed per iteration
    wall = np.array([float(next(r for r in rows if int(r["iteration"]) == i)["wall_s"]) for i in iterations])
    first_chunk = int(np.argmax(wall != wall[0])) if np.any(wall != wall[0]) else len(wall)
    steady = slice(first_chunk, None)  # chunks after the first (whose wall time includes compilation)
    total_steps = float(decisions.sum())
    return {"seeds": seeds, "iterations": iterations, "slowdown": grid("mean_slowdown"),
            "steps": np.cumsum(decisions.mean(axis=0)), "wall": np.cumsum(wall),
            "train_wall_s": float(wall.sum()), "agent_steps_per_seed": float(decisions.sum(axis=1).mean()),
            "s_per_million_steps_all_seeds": float(wall.sum() / total_steps * 1e6),
            "s_per_million_steps_after_compile": (float(wall[steady].sum() / decisions[:, steady].sum() * 1e6)
                                                  if decisions[:, steady].sum() else float("nan"))}


def parameter_counts(scenarios: list[str]) -> dict:
    """Weights of the shared 2 x 64 actor-critic on the image and the compact state, per scenario."""
    counts = {}
    for scenario in scenarios:
        row = {}
        for observation in ("image", "bracis"):
            config = TrainConfig(env=scenario, algo="ppo", env_options={"observation": observation})
            experiment = Experiment.from_config(config)
            params = jax.eval_shape(lambda: experiment.init_fn(jax.random.PRNGKey(0)).params)
            row[observation] = int(sum(np.prod(x.shape) for x in jax.tree.leaves(params)))
        counts[scenario] = {"image": row["image"], "compact": row["bracis"],
                            "capacity": build(scenario).env.capacity}
    return counts


def curves(args) -> dict:

    levels = {}
    if args.fig4 and args.fig4.exists():
        levels = json.loads(args.fig4.read_text())["scenarios"]
    summary = {"parameter_counts": parameter_counts(args.scenarios), "runs": {}}
    for scenario in args.scenarios:
        runs = {name: read_metrics(run) for name, run in find_runs(args.runs, scenario).items()}
        if not runs:
            continue
        hlines = {f"{h} (1000 jobsets)": levels[scenario][h]["mean_slowdown"]
                  for h in ("sjf", "packer") if scenario in levels}
        for x_key, label, stem in (("steps", "agent steps per seed", "learning_curves_steps"),
                                   ("wall", "training wall-clock s (3 seeds vmapped, 1 shared core)",
                                    "learning_curves_wall")):
            learning_curves_with_spread(
                {name: (m[x_key], m["slowdown"]) for name, m in runs.items()}, hlines,
                args.out / scenario / f"{stem}.png", label, "mean slowdown of training rollouts",
                f"{scenario}: PPO, seeds {runs[next(iter(runs))]['seeds']} (mean, min-max band)")
        summary["runs"][scenario] = {name: {k: m[k] for k in ("seeds", "train_wall_s", "agent_steps_per_seed",
                                                              "s_per_million_steps_all_seeds",
                                                              "s_per_million_steps_after_compile")}
                                     | {"iterations": len(m["iterations"]),
                                        "final_training_slowdown": float(np.nanmean(m["slowdown"][:, -3:]))}
                                     for name, m in runs.items()}
    return summary


def _check_args(args) -> None:
    """Raises on arguments that would fail (or quietly compute nothing) after minutes of work."""
    if args.jobsets < 1 or args.transfer_jobsets < 0 or (args.max_time is not None and args.max_time < 1):
        raise UsageError("--jobsets and --max-time must be >= 1, --transfer-jobsets >= 0")
    if not args.scenarios:
        raise UsageError("--scenarios is empty")
    for scenario in args.scenarios:
        try:
            build(scenario)
        except (ValueError, TypeError) as error:
            raise UsageError(str(error)) from None
    unknown = args.parts - {"heuristics", "agents", "transfer"}
    if unknown:
        raise UsageError(f"--parts: unknown {', '.join(sorted(unknown))}; choose from heuristics, agents, transfer")
    needs_runs = args.command == "curves" or args.parts & {"agents", "transfer"}
    if needs_runs and not args.runs.is_dir():
        raise UsageError(f"--runs {args.runs}: no such directory of training runs")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.mdp_study", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("fig4", "curves"))
    parser.add_argument("--runs", type=Path, default=Path("runs/mdp"))
    parser.add_argument("--scenarios", default="bracis-1,bracis-2,bracis-3,bracis-7")
    parser.add_argument("--jobsets", type=int, default=1000)
    parser.add_argument("--transfer-jobsets", type=int, default=0, help="fig4: also the transfer matrix")
    parser.add_argument("--parts", default="heuristics,agents,transfer",
                        help="fig4: what to (re)compute into --out, keeping the rest of it")
    parser.add_argument("--max-time", type=int, help="fig4: clock cap of the trained agents' episodes "
                        "(default the scenario's, 2 (T + J d) + H); unfinished jobs are counted")
    parser.add_argument("--variants", help="fig4: only these trained variants (run-name suffixes), e.g. image")
    parser.add_argument("--fig4", type=Path, help="curves: fig4 JSON whose heuristic levels to draw")
    parser.add_argument("--out", type=Path, required=True, help="fig4: JSON file; curves: folder")
    args = parser.parse_args(argv)
    args.scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    args.parts = {p.strip() for p in args.parts.split(",")}
    args.variants = {v.strip() for v in args.variants.split(",")} if args.variants else None
    try:
        _check_args(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    (args.out.parent if args.command == "fig4" else args.out).mkdir(parents=True, exist_ok=True)
    result = fig4(args) if args.command == "fig4" else curves(args)
    path = args.out if args.command == "fig4" else args.out / "curves_summary.json"
    path.write_text(json.dumps(result, indent=1))
    if args.command == "fig4":
        path.with_suffix(".md").write_text(fig4_markdown(result))
    print(f"wrote {path}" + (f" and {path.with_suffix('.md')}" if args.command == "fig4" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
