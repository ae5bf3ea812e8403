"""Transfer: compact PPO agents evaluated on other scenarios without retraining (BRACIS'21 Fig. 6).

    python -m jaxsched.studies.mdp_transfer RUN_DIR OUT.json bracis-1 bracis-3 ... \\
        [--all-seeds] [--sampled] [--stepping time|event|trained] [--jobsets 30] [--specialised SWEEP_DIR ...]

The agent of RUN_DIR (newest checkpoint; its first seed, or with ``--all-seeds`` every seed, vmapped)
runs unchanged on the held-out jobsets of each scenario beside SJF / Packer / Random. The paper trains
its transferred agent in the event-based, bounded-reward compact MDP and evaluates it in the compact
MDP *without* event-based steps: ``--stepping time`` (the default); ``trained`` keeps the agent's own.
``--specialised`` names sweeps whose cells were trained one per scenario (``env=...``): each
scenario's own agents run there too, in the MDP they were trained in, for the paper's comparison
(transferred against specialised). With several seeds, ``OUT.json`` holds per-seed results and the
interquartile mean with its 95% bootstrap CI over seeds (the range under 5 seeds), and ``OUT.md`` the table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import jax

from jaxsched.core.runs import read_run_config
from jaxsched.core.stats import MIN_SEEDS_FOR_CI, summarize_over_seeds, summary_interval
from jaxsched.core.unfinished import leaves_unfinished, legend, marked
from jaxsched.errors import UsageError
from jaxsched.experiment import Experiment, load_run, train_config
from jaxsched.registry import build
from jaxsched.studies.mdp_study import evaluate_seeds

NUM_JOBSETS, SEED = 30, 99991  # SEED: the sweeps' eval_seed, so the held-out jobsets are theirs
HEURISTICS = ("sjf", "packer", "random")
STEPPINGS = ("time", "event", "trained")


def experiment_on(run_dir: Path, env: str, stepping: str) -> Experiment:
    """The run's experiment rebuilt on ``env`` with the compact observation and, unless ``stepping`` is
    ``trained``, that stepping (the agent's network and options unchanged)."""
    saved = read_run_config(run_dir)
    options = dict(saved.get("env_options") or {})
    if stepping != "trained":
        options["stepping"] = stepping
    return Experiment.from_config(train_config({**saved, "env": env, "env_options": options}))


def cells_by_scenario(sweeps: list[Path]) -> dict[str, Path]:
    """``{scenario: cell run dir}`` of the sweeps' finished cells (those with ``eval.json``); a scenario
    trained in two of them is an error (which agent stands for it would be ambiguous)."""
    cells = {}
    for sweep in sweeps:
        found = [cell for cell in sorted((sweep / "cells").glob("*")) if (cell / "eval.json").exists()]
        if not found:
            raise UsageError(f"{sweep}: no finished cell (cells/*/eval.json)")
        for cell in found:
            env = read_run_config(cell)["env"]
            if env in cells:
                raise UsageError(f"{env} is trained in both {cells[env]} and {cell}")
            cells[env] = cell
    return cells


def _seed_rows(experiment, states, jobsets, key, greedy: bool, seeds: list[int]) -> dict:
    if len(seeds) < len(experiment.config.seeds):
        states = jax.tree.map(lambda x: x[: len(seeds)], states)
    per_seed = evaluate_seeds(experiment, states, jobsets, key, greedy=greedy)
    return {f"s{seed}": {k: row[k] for k in ("mean_slowdown", "finished", "jobs")}
            for seed, row in zip(seeds, per_seed)}


def over_seeds(rows: dict) -> dict:
    """IQM and 95% CI of the seeds' mean slowdowns (the range under 5 seeds: ``range_low`` /
    ``range_high``), with jobs finished summed over seeds."""
    stats = summarize_over_seeds([r["mean_slowdown"] for r in rows.values()], higher_is_better=False)
    bounds = ("ci_low", "ci_high") if "ci_low" in stats else ("range_low", "range_high")
    return {**{k: stats[k] for k in ("n", "iqm", *bounds)},
            "finished": sum(r["finished"] for r in rows.values()), "jobs": sum(r["jobs"] for r in rows.values())}


def transfer(run_dir: Path, scenarios: list[str], *, all_seeds: bool = False, sampled: bool = False,
             stepping: str = "time", jobsets: int = NUM_JOBSETS, specialised: list[Path] = (), log=print) -> dict:
    """The results dict written to OUT.json (see the module doc)."""
    _, states = load_run(run_dir)
    config = read_run_config(run_dir)
    seeds = list(config["seeds"]) if all_seeds else list(config["seeds"])[:1]
    own = cells_by_scenario(list(specialised)) if specialised else {}
    key = jax.random.PRNGKey(SEED + 1)
    results = {"trained_on": config["env"], "env_options": config.get("env_options"), "run": str(run_dir),
               "seeds": seeds, "policy": "sampled" if sampled else "greedy", "stepping": stepping,
               "jobsets": jobsets, "seed": SEED, "specialised": [str(s) for s in specialised],
               "scenarios": {}}
    for name in scenarios:
        experiment = experiment_on(run_dir, name, stepping)
        variant = experiment.variant
        batched, _ = variant.held_out(jobsets, SEED)
        row = {"transferred": _seed_rows(experiment, states, batched, key, not sampled, seeds)}
        if name in own:
            cell_experiment, cell_states = load_run(own[name])
            cell_seeds = list(read_run_config(own[name])["seeds"])
            row["specialised"] = _seed_rows(cell_experiment, cell_states, batched, key, not sampled, cell_seeds)
        tables = variant.evaluate({h: variant.heuristic(h) for h in HEURISTICS}, batched, key)
        for h, table in tables.items():
            summary = variant.summarize(table)
            row[h] = {k: summary[k] for k in ("mean_slowdown", "finished", "jobs")}
        for agent in ("transferred", "specialised"):
            if agent in row:
                row[f"{agent}_over_seeds"] = over_seeds(row[agent])
        results["scenarios"][name] = row
        log(f"{name}: " + "  ".join(f"{marked(label, stats)} {_value(stats)}" for label, stats in _cells(row)))
    return results


def _cells(row: dict):
    """(label, stats) of a scenario's row: agents over seeds, then the heuristics."""
    for agent in ("transferred", "specialised"):
        if f"{agent}_over_seeds" in row:
            yield agent, row[f"{agent}_over_seeds"]
    for h in HEURISTICS:
        yield h, row[h]


def _value(stats: dict) -> str:
    if "iqm" in stats:
        ci = f" {summary_interval(stats).text('.3f')}" if stats["n"] > 1 else ""
        return f"{stats['iqm']:.3f}{ci} ({stats['finished']}/{stats['jobs']})"
    return f"{stats['mean_slowdown']:.3f} ({stats['finished']}/{stats['jobs']})"


def markdown(results: dict) -> str:
    """Scenarios x policies: IQM [95% CI] over seeds for the agents, the heuristics' means."""
    rows = results["scenarios"]
    columns = list(dict.fromkeys(label for row in rows.values() for label, _ in _cells(row)))
    compared = "specialised" in columns
    few = any(stats.get("n", MIN_SEEDS_FOR_CI) < MIN_SEEDS_FOR_CI for row in rows.values() for _, stats in _cells(row))
    interval = "95% bootstrap CI" + (f"; under {MIN_SEEDS_FOR_CI} seeds the range (min, max), marked range"
                                     if few else "")
    lines = [f"Transfer of the agent trained on {results['trained_on']} ({results['run']}; options "
             f"{results['env_options']}), {results['policy']}, evaluated with {results['stepping']} steps on "
             f"{results['jobsets']} held-out jobsets per scenario (seed {results['seed']}); agents: interquartile "
             f"mean of the seeds' mean slowdowns [{interval}] over seeds {results['seeds']}, (finished / jobs "
             "over all seeds)." + (" Specialised: each scenario's own agents (sweeps "
                                    f"{', '.join(results['specialised'])}), in the MDP they were trained in."
                                    if results["specialised"] else ""),
             "", "| scenario | " + " | ".join(columns) + (" | transferred beats specialised |" if compared else " |"),
             "|---|" + "---|" * (len(columns) + compared)]
    for name, row in rows.items():
        cells = dict(_cells(row))
        verdict = ""
        if "specialised" in cells:
            a, b = cells["transferred"], cells["specialised"]
            ia, ib = summary_interval(a), summary_interval(b)
            overlap = "CIs overlap" if ia.is_ci and ib.is_ci else "intervals overlap (a range under 5 seeds)"
            verdict = (overlap if ia.low <= ib.high and ib.low <= ia.high
                       else ("yes" if a["iqm"] < b["iqm"] else "no"))
            if leaves_unfinished(a) or leaves_unfinished(b):
                verdict += " (unfinished jobs)"
        lines.append(f"| {name} | " + " | ".join((_value(cells[c]) + ("*" if leaves_unfinished(cells[c]) else ""))
                                                  if c in cells else "" for c in columns)
                     + (f" | {verdict} |" if compared else " |"))
    summaries = [stats for row in rows.values() for _, stats in _cells(row)]
    return "\n".join(lines + [""] + legend(summaries)) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.mdp_transfer", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path, help="the transferred agent's run (or sweep cell) directory")
    parser.add_argument("out", type=Path, help="OUT.json (and OUT.md beside it)")
    parser.add_argument("scenarios", nargs="+", help="registered envs (bracis-1 ... bracis-10)")
    parser.add_argument("--all-seeds", action="store_true", help="every seed of the run (default: its first)")
    parser.add_argument("--sampled", action="store_true", help="sample the policy (default greedy)")
    parser.add_argument("--stepping", choices=STEPPINGS, default="time",
                        help="the steps the transferred agent runs with (default time, the paper's)")
    parser.add_argument("--jobsets", type=int, default=NUM_JOBSETS, help="held-out jobsets per scenario")
    parser.add_argument("--specialised", type=Path, action="append", default=[],
                        help="a sweep with cells trained per scenario (env=...); repeatable")
    args = parser.parse_args(argv)
    if args.jobsets < 1:
        raise UsageError("--jobsets must be >= 1")
    for name in args.scenarios:
        build(name)  # an unknown scenario fails here, before any evaluation
    results = transfer(args.run_dir, args.scenarios, all_seeds=args.all_seeds, sampled=args.sampled,
                       stepping=args.stepping, jobsets=args.jobsets, specialised=args.specialised)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    args.out.with_suffix(".md").write_text(markdown(results))
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
