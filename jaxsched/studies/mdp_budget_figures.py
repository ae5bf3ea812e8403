"""BRACIS'21 Figs. 3 and 4 at the paper's budget: every agent type on every scenario, over seeds.

    python -m jaxsched.studies.mdp_budget_figures --out results/mdp_figures_3m LABEL=SWEEP_DIR[,SWEEP_DIR...] ...

Each ``LABEL`` is one agent type (e.g. compact + sparse + reduced with a separate critic) and its sweeps
(``jaxsched.sweep`` output folders) whose finished cells (``cells/*/eval.json``) were trained one per
scenario. The sweeps keep each seed's training curve and held-out result, so this only reads and
aggregates them. Writes into ``--out``:

- ``fig4.md``: the paper's measure, the sampled policy's held-out mean slowdown on the same jobsets as the
  heuristics: per scenario, each agent's interquartile mean and 95% stratified-bootstrap CI over seeds
  beside SJF and Packer; per agent, its slowdown relative to SJF (agent / SJF, one value per scenario and
  seed) pooled over the scenarios it ran (the bootstrap stratified by scenario) and over the scenarios
  every agent ran, seeds beating SJF / Packer and ``finished / jobs``; ``fig4.json`` (every seed's
  value) and ``fig4.png`` (per scenario, each agent's IQM and CI relative to SJF, with Packer's level);
- ``fig3.md``, ``fig3.png``, ``fig3.json``: the learning curves, one panel per scenario: the training
  rollouts' mean slowdown (a running mean over ``WINDOW`` iterations; slowdown rather than the paper's
  return, since the agents' rewards differ between MDPs) against agent steps, IQM over seeds with a 95%
  bootstrap band, SJF's held-out level beside it; the table gives the first 100 and the last 20% of
  iterations.

Agents are only compared on identical held-out jobsets: a scenario whose heuristics differ between two
sweeps (another ``eval_seed`` or ``eval_jobsets``) is refused.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

from jaxsched.core import stats
from jaxsched.core.plotting import grouped_intervals, moving_average, panels_with_bands
from jaxsched.core.runs import read_run_config, shown_path
from jaxsched.core.unfinished import LEGEND, MARK
from jaxsched.errors import UsageError
from jaxsched.studies.mdp_study import read_metrics
from jaxsched.studies.mdp_transfer import cells_by_scenario

METRIC = "mean_slowdown"
HEURISTICS = ("sjf", "packer", "fcfs")  # deterministic: equal on equal held-out jobsets
REPS = 2000  # bootstrap resamples, as jaxsched.sweep's reports
WINDOW = 50  # iterations in the learning curves' running mean
EVERY = 25  # a learning curve's band is drawn at every EVERY-th iteration (each point is a bootstrap)
FIRST = 100  # the learning-curve table's early iterations


def scenario_key(env: str) -> tuple:
    """Natural order: bracis-2 before bracis-10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", env))


def read_agent(cells: dict[str, Path]) -> dict[str, dict]:
    """``{scenario: {"cell", "seeds", "values", "finished", "jobs", "heuristics", "jobsets", "eval_seed"}}`` of
    the sampled policies in ``{scenario: finished sweep cell}``."""
    scenarios = {}
    for env, cell in cells.items():
        evaluation = json.loads((cell / "eval.json").read_text())
        policies = evaluation["policies"]
        seeds = list(read_run_config(cell)["seeds"])
        sampled = [policies[f"trained-s{seed}-sampled"] for seed in seeds]
        scenarios[env] = {
            "cell": shown_path(cell), "seeds": seeds, "values": [p[METRIC] for p in sampled],
            "finished": [int(p["finished"]) for p in sampled], "jobs": [int(p["jobs"]) for p in sampled],
            "heuristics": {name: policies[name][METRIC] for name in HEURISTICS if name in policies},
            "jobsets": evaluation["jobsets"], "eval_seed": evaluation["seed"]}
    return scenarios


def learning_curve(cell: Path) -> dict:
    """The cell's training-rollout slowdown, smoothed per seed: its IQM over seeds with a 95% bootstrap band at
    every ``EVERY``-th iteration, and the IQM [CI] over seeds of each seed's mean over the first ``FIRST`` and
    the last 20% of iterations."""
    metrics = read_metrics(cell)
    smooth = np.stack([moving_average(seed_curve, WINDOW) for seed_curve in metrics["slowdown"]])
    points = [i for i in range(EVERY - 1, smooth.shape[1], EVERY) if np.all(np.isfinite(smooth[:, i]))]
    band = [(stats.iqm(smooth[:, i]), *_bounds(stats.seed_interval(smooth[:, i], reps=200, seed=i)))
            for i in points]
    last = max(1, len(metrics["iterations"]) // 5)
    phases = {name: _interval(np.nanmean(metrics["slowdown"][:, part], axis=1))
              for name, part in (("first", slice(0, FIRST)), ("last", slice(-last, None)))}
    bounds = "ci" if smooth.shape[0] >= stats.MIN_SEEDS_FOR_CI else "range"  # under 5 seeds: min and max
    return {"steps": [float(metrics["steps"][i]) for i in points], "iqm": [b[0] for b in band],
            f"{bounds}_low": [b[1] for b in band], f"{bounds}_high": [b[2] for b in band],
            "iterations": len(metrics["iterations"]),
            "last_iterations": last, **phases}


def shared_heuristics(agents: dict[str, dict[str, dict]]) -> dict[str, dict]:
    """Per scenario, the heuristics' held-out slowdowns, checked equal across every agent's cell."""
    levels = {}
    for scenarios in agents.values():
        for env, cell in scenarios.items():
            mine = {"jobsets": cell["jobsets"], "eval_seed": cell["eval_seed"], **cell["heuristics"]}
            if "sjf" not in mine:
                raise UsageError(f"{cell['cell']}: its eval.json has no SJF to compare against")
            first = levels.setdefault(env, {**mine, "from": cell["cell"]})
            for key, value in mine.items():
                if key in first and not np.isclose(first[key], value, rtol=1e-9, atol=0.0):
                    raise UsageError(f"{env}: {key} is {first[key]} in {first['from']} but {value} in "
                                     f"{cell['cell']}: not the same held-out jobsets")
    return levels


def _bounds(interval: stats.SeedInterval) -> tuple[float, float]:
    return interval.low, interval.high


def _interval(values) -> dict:
    """IQM and its 95% bootstrap CI (``ci_low`` / ``ci_high``) over >= 5 runs, else the runs' range
    (``range_low`` / ``range_high``)."""
    return {"iqm": stats.iqm(values), **stats.seed_interval(values, stats.iqm, reps=REPS).keys()}


def _low_high(summary: dict) -> tuple[float, float]:
    """A summary's interval bounds, CI or range (curves: lists of them)."""
    return (summary["ci_low"], summary["ci_high"]) if "ci_low" in summary else (summary["range_low"],
                                                                                summary["range_high"])


def _few_seeds(summaries) -> bool:
    return any("range_low" in s for s in summaries)


def _beating(cell: dict, level: float) -> int:
    """Seeds below ``level`` that finished every job (one that leaves jobs has not won)."""
    return sum(v < level and f == j for v, f, j in zip(cell["values"], cell["finished"], cell["jobs"]))


def aggregate(agents: dict[str, dict[str, dict]], levels: dict[str, dict]) -> dict:
    """Per agent: every scenario's IQM [CI]; over its scenarios and over the scenarios all agents share, the
    IQM [CI] of agent / SJF (stratified by scenario); seeds beating SJF and Packer; finished / jobs."""
    common = sorted(set.intersection(*(set(s) for s in agents.values())), key=scenario_key)
    results = {}
    for label, scenarios in agents.items():
        order = sorted(scenarios, key=scenario_key)
        per_scenario = {env: {**{k: scenarios[env][k] for k in ("cell", "seeds", "values", "finished", "jobs")},
                              **_interval(np.asarray(scenarios[env]["values"], float))} for env in order}
        relative = {env: np.asarray(scenarios[env]["values"], float) / levels[env]["sjf"] for env in order}
        results[label] = {
            "scenarios": per_scenario,
            "relative_to_sjf": {"scenarios": order, **_interval(relative)},
            "relative_to_sjf_common": ({"scenarios": common, **_interval({env: relative[env] for env in common})}
                                       if common else None),
            "seeds": sum(len(scenarios[env]["seeds"]) for env in order),
            "seeds_beating_sjf": sum(_beating(scenarios[env], levels[env]["sjf"]) for env in order),
            "seeds_beating_packer": sum(_beating(scenarios[env], levels[env]["packer"]) for env in order
                                        if "packer" in levels[env]),
            "finished": sum(sum(scenarios[env]["finished"]) for env in order),
            "jobs": sum(sum(scenarios[env]["jobs"]) for env in order)}
    return {"common_scenarios": common, "agents": results}


def _span(summary: dict, fmt: str = ".3f") -> str:
    """``IQM [low, high]`` for a CI, ``IQM [range low, high]`` under 5 seeds."""
    low, high = _low_high(summary)
    return f"{summary['iqm']:{fmt}} " + stats.SeedInterval(low, high, 0, "ci_low" in summary).text(fmt)


def fig4_markdown(result: dict) -> str:
    agents, levels = result["agents"], result["heuristics"]
    labels = list(agents)
    envs = sorted(levels, key=scenario_key)
    few = _few_seeds(cell for agent in agents.values() for cell in agent["scenarios"].values())
    lines = ["# BRACIS'21 Fig. 4 at the paper's budget", "",
             f"Sampled policies' held-out `{METRIC}` (lower is better): IQM [95% stratified-bootstrap CI, {REPS} "
             + ("resamples] over seeds; **bold**: the CI lies wholly below SJF's and every job finished. Sweeps: "
                if not few else
                f"resamples; under {stats.MIN_SEEDS_FOR_CI} seeds the seeds' range (min, max), marked range] over "
                "seeds; **bold**: the CI (a range: every seed) lies wholly below SJF's and every job finished. "
                "Sweeps: ")
             + "; ".join(f"{label}: {', '.join(result['sweeps'][label])}" for label in labels) + ".", "",
             "| scenario | " + " | ".join(labels) + " | SJF | Packer |", "|" + "---|" * (len(labels) + 3)]
    for env in envs:
        row = [env]
        for label in labels:
            cell = agents[label]["scenarios"].get(env)
            if cell is None:
                row.append("")
                continue
            text, unfinished = f"{_span(cell)} ({len(cell['seeds'])})", sum(cell["finished"]) < sum(cell["jobs"])
            below = _low_high(cell)[1] < levels[env]["sjf"]
            text = f"{text} {MARK}" if unfinished else f"**{text}**" if below else text
            row.append(text)
        row += [f"{levels[env]['sjf']:.3f}", f"{levels[env].get('packer', float('nan')):.3f}"]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Per agent, slowdown relative to SJF (agent / SJF per scenario and seed; < 1 beats SJF), IQM "
                  "[95% CI] pooled over scenarios with the bootstrap stratified by scenario:", "",
              "| agent | scenarios | relative to SJF | on the " + str(len(result["common_scenarios"]))
              + " scenarios all ran | seeds beating SJF | seeds beating Packer | finished / jobs |",
              "|---|---|---|---|---|---|---|"]
    for label in labels:
        agent = agents[label]
        common = agent["relative_to_sjf_common"]
        lines.append(f"| {label} | {len(agent['scenarios'])} | {_span(agent['relative_to_sjf'])} | "
                     f"{_span(common) if common else ''} | {agent['seeds_beating_sjf']}/{agent['seeds']} | "
                     f"{agent['seeds_beating_packer']}/{agent['seeds']} | {agent['finished']} / {agent['jobs']}"
                     + (f" {MARK}" if agent["finished"] < agent["jobs"] else "") + " |")
    lines += ["", f"Scenarios all agents ran: {', '.join(result['common_scenarios']) or 'none'}. "
                  "(n): seeds. A seed that leaves jobs unfinished never counts as beating a heuristic.",
              "", LEGEND + ".", "", "![Fig. 4 relative to SJF](fig4.png)"]
    return "\n".join(lines) + "\n"


def fig4_figure(result: dict, path: Path) -> None:
    levels = result["heuristics"]
    envs = sorted(levels, key=scenario_key)
    series = {}
    for label, agent in result["agents"].items():
        points = {}
        for env, cell in agent["scenarios"].items():
            sjf = levels[env]["sjf"]
            low, high = _low_high(cell)
            points[env] = (cell["iqm"] / sjf, low / sjf, high / sjf)
        series[label] = points
    marks = {"Packer": {env: levels[env]["packer"] / levels[env]["sjf"] for env in envs if "packer" in levels[env]}}
    few = _few_seeds(cell for agent in result["agents"].values() for cell in agent["scenarios"].values())
    interval = "95% CI" if not few else f"95% CI; range under {stats.MIN_SEEDS_FOR_CI} seeds"
    grouped_intervals(envs, series, marks, path, ylabel=f"mean slowdown / SJF's (IQM, {interval})",
                      reference=("SJF", 1.0), title="BRACIS'21 Fig. 4 at the paper's budget: sampled, held out")


def fig3_markdown(curves: dict[str, dict[str, dict]], levels: dict[str, dict]) -> str:
    labels = list(curves)
    few = _few_seeds(curve["last"] for c in curves.values() for curve in c.values())
    under = f"; under {stats.MIN_SEEDS_FOR_CI} seeds the seeds' range (min, max), marked range" if few else ""
    lines = ["# BRACIS'21 Fig. 3 at the paper's budget: learning curves", "",
             "Training rollouts' mean slowdown (lower is better), each seed's mean over the first "
             f"{FIRST} iterations -> over the last 20%, IQM over seeds [95% CI of the last{under}]; SJF's held-out "
             "level beside it (training and held-out jobsets are drawn alike). Curves: fig3.png (running mean over "
             f"{WINDOW} iterations, IQM over seeds with a 95% bootstrap band"
             + (f", the range under {stats.MIN_SEEDS_FOR_CI} seeds" if few else "") + ").", "",
             "| scenario | " + " | ".join(labels) + " | SJF (held out) |", "|" + "---|" * (len(labels) + 2)]
    for env in sorted(levels, key=scenario_key):
        row = [env]
        for label in labels:
            curve = curves[label].get(env)
            row.append(f"{curve['first']['iqm']:.2f} -> {_span(curve['last'], '.2f')}" if curve else "")
        lines.append("| " + " | ".join(row) + f" | {levels[env]['sjf']:.3f} |")
    return "\n".join(lines + ["", "![learning curves](fig3.png)"]) + "\n"


def fig3_figure(curves: dict[str, dict[str, dict]], levels: dict[str, dict], path: Path) -> None:
    panels = {env: {label: (np.asarray(c[env]["steps"]) / 1e6, np.asarray(c[env]["iqm"]),
                            *(np.asarray(bound) for bound in _low_high(c[env])))
                    for label, c in curves.items() if env in c}
              for env in sorted(levels, key=scenario_key)}
    few = _few_seeds(c[env] for c in curves.values() for env in c)
    panels_with_bands(panels, {env: {"SJF (held out)": levels[env]["sjf"]} for env in panels}, path,
                      xlabel="agent steps per seed (millions)", ylabel="training mean slowdown",
                      title=f"BRACIS'21 Fig. 3 at the paper's budget (running mean of {WINDOW} iterations, IQM over "
                            "seeds, 95% CI" + (f"; range under {stats.MIN_SEEDS_FOR_CI} seeds" if few else "") + ")")


def study(agent_sweeps: dict[str, list[Path]], out: Path) -> dict:
    cells = {label: cells_by_scenario(sweeps) for label, sweeps in agent_sweeps.items()}
    agents = {label: read_agent(found) for label, found in cells.items()}
    levels = shared_heuristics(agents)
    result = {"metric": f"sampled {METRIC}", "sweeps": {label: [shown_path(s) for s in sweeps]
                                                         for label, sweeps in agent_sweeps.items()},
              "heuristics": levels, **aggregate(agents, levels)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "fig4.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "fig4.md").write_text(fig4_markdown(result))
    fig4_figure(result, out / "fig4.png")
    curves = {label: {env: learning_curve(cell) for env, cell in found.items()} for label, found in cells.items()}
    (out / "fig3.json").write_text(json.dumps({"window": WINDOW, "curves": curves}, indent=1) + "\n")
    (out / "fig3.md").write_text(fig3_markdown(curves, levels))
    fig3_figure(curves, levels, out / "fig3.png")
    return result


def parse_agents(texts: list[str]) -> dict[str, list[Path]]:
    agents = {}
    for text in texts:
        label, sep, folders = text.partition("=")
        if not sep or not label or not folders:
            raise UsageError(f"{text!r}: expected LABEL=SWEEP_DIR[,SWEEP_DIR...]")
        if label in agents:
            raise UsageError(f"agent {label!r} given twice")
        agents[label] = [Path(folder) for folder in folders.split(",")]
        for folder in agents[label]:
            if not (folder / "cells").is_dir():
                raise UsageError(f"{label}: {folder} is not a sweep folder (no cells/)")
    if not agents:
        raise UsageError("name at least one agent: LABEL=SWEEP_DIR[,SWEEP_DIR...]")
    return agents


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.mdp_budget_figures",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("agents", nargs="+", help="LABEL=SWEEP_DIR[,SWEEP_DIR...], one per agent type")
    args = parser.parse_args(argv)
    result = study(parse_agents(args.agents), args.out)
    for label, agent in result["agents"].items():
        print(f"{label:32s} {len(agent['scenarios']):2d} scenarios  relative to SJF {_span(agent['relative_to_sjf'])}  "
              f"beats SJF {agent['seeds_beating_sjf']}/{agent['seeds']}  finished {agent['finished']}/{agent['jobs']}")
    print(f"wrote {args.out}/fig3.md, fig3.json, fig3.png, fig4.md, fig4.json, fig4.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
