"""Compare training runs: learning curves on shared axes and the time each takes to reach a heuristic.

    python -m jaxsched.studies.compare_runs --out results/NAME [--baseline sjf] [--window 20] LABEL=RUN_DIR ...

Reads each run directory written by ``python -m jaxsched.train`` (metrics.csv, eval.json and, when
the run was pre-trained, behaviour_cloning.json) and writes into ``--out``:

- ``summary.json``: per run, iterations, training wall-clock (behaviour cloning counted separately and
  in the total), the held-out slowdowns of its policies and of the heuristics, and the first iteration
  and wall-clock second at which the running mean (``--window`` iterations) of the training rollouts'
  slowdown is at or below the baseline heuristic's held-out slowdown (null: never);
- ``learning_curves_iteration.png`` / ``learning_curves_wallclock.png``: the smoothed training slowdown
  of every run against iterations and against wall-clock seconds, with the baseline level;
- per run with two or more seeds, ``over_seeds``: for its greedy (``trained-s{i}``) and sampled
  (``trained-s{i}-sampled``) policies, the held-out metrics' IQM and 95% bootstrap CI over seeds and
  ``finished`` / ``jobs`` summed over seeds (a result is a claim about a distribution);
- ``<LABEL>/``: a copy of each run's config.json, eval.json, metrics.csv (and behaviour_cloning.json).

VM-placement runs (their eval.json reports ``scheduled_length``) are compared on the training
episodes' return (placements; higher is better) against the baseline's held-out scheduled length
(``--baseline best_fit`` or ``pm_best_fit``); the summary's keys say ``return`` / ``scheduled_length``
where the DeepRM ones say ``slowdown``.

The baseline level is measured on the held-out jobsets, the training curve on the training jobsets:
with fresh jobsets every iteration (``resample_jobsets``) both estimate the same expectation.

Each held-out policy carries ``finished`` / ``jobs`` (VM: ``episodes_ended`` / ``episodes``) and
``leaves_unfinished``; where any is true the summary holds the ``legend``: such a policy's means cover
finished jobs only and it is not ranked against the heuristics."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jaxsched.core.plotting import curves
from jaxsched.core.runs import copy_stored, per_iteration_means, stored_exists
from jaxsched.core.stats import summarize_over_seeds
from jaxsched.core.unfinished import leaves_unfinished, legend

_RUN_FILES = ("config.json", "eval.json", "metrics.csv", "behaviour_cloning.json")
_COUNTS = ("finished", "jobs", "episodes_ended", "episodes")  # summed over seeds, not averaged


@dataclass(frozen=True)
class Measure:
    """What a family of runs is compared on: a training column, a held-out key, which way is better."""

    column: str  # metrics.csv
    heldout: str  # eval.json policies' key
    lower_is_better: bool
    curve_name: str  # in the summary's keys and the plots' label
    heldout_keys: tuple[str, ...]  # kept in the summary


SLOWDOWN = Measure("mean_slowdown", "mean_slowdown", True, "slowdown",
                   ("mean_slowdown", "mean_completion_time", "finished", "jobs"))
PLACEMENTS = Measure("mean_return", "scheduled_length", False, "return",
                     ("scheduled_length", "scheduled_length_std", "cpu_allocation", "income", "episodes_ended",
                      "episodes"))


def measure_of(heldout: dict) -> Measure:
    """VM-placement runs (held-out ``scheduled_length``) or DeepRM-style runs (slowdown)."""
    return PLACEMENTS if any("scheduled_length" in stats for stats in heldout.values()) else SLOWDOWN


@dataclass(frozen=True)
class RunCurve:
    """One run's per-iteration training slowdown (mean over seeds) and cumulative wall-clock."""

    iterations: np.ndarray
    slowdown: np.ndarray  # the measure's training column (the VM runs' return)
    wall_s: np.ndarray  # cumulative, starting after behaviour cloning
    cloning_s: float
    heldout: dict


def read_run(run: Path) -> RunCurve:
    for name in ("metrics.csv", "eval.json"):
        if not stored_exists(run / name):
            raise FileNotFoundError(f"{run} has no {name}: is it a finished `python -m jaxsched.train` run?")
    heldout = json.loads((run / "eval.json").read_text())["policies"]
    column = measure_of(heldout).column
    iterations, means = per_iteration_means(run / "metrics.csv", (column, "wall_s"))
    slowdown, wall = means[column], np.cumsum(means["wall_s"])
    cloning_path = run / "behaviour_cloning.json"
    cloning_s = sum(r["wall_s"] for r in json.loads(cloning_path.read_text())) if cloning_path.exists() else 0.0
    return RunCurve(iterations, slowdown, wall, float(cloning_s), heldout)


def running_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over the last ``window`` values (fewer at the start); NaNs are ignored."""
    out = np.empty(len(values))
    for i in range(len(values)):
        out[i] = np.nanmean(values[max(0, i + 1 - window):i + 1])
    return out


def over_seeds(heldout: dict, measure: Measure) -> dict:
    """The trained policies' held-out numbers over seeds, greedy and sampled: per metric the IQM and its
    95% bootstrap CI (``summarize_over_seeds``: ``ci_low`` / ``ci_high``; under 5 seeds the seeds' range,
    ``range_low`` / ``range_high``), and the counts (finished / jobs) summed; {} below two seeds."""
    out = {}
    for mode, suffix in (("greedy", ""), ("sampled", "-sampled")):
        by_seed = {int(m.group(1)): stats for name, stats in heldout.items()
                   if (m := re.fullmatch(rf"trained-s(\d+){suffix}", name))}
        if len(by_seed) < 2:
            continue
        stats = [by_seed[seed] for seed in sorted(by_seed)]
        summary = {"seeds": sorted(by_seed)}
        for key in measure.heldout_keys:
            if key in _COUNTS:
                summary[key] = int(sum(s.get(key, 0) for s in stats))
            elif all(key in s for s in stats):
                summary[key] = summarize_over_seeds([s[key] for s in stats],
                                                    higher_is_better=not measure.lower_is_better)
        out[mode] = summary
    return out


def first_reaching(curve: RunCurve, level: float, window: int, lower_is_better: bool = True) -> dict:
    """First iteration (and total wall-clock then, cloning included) whose running mean is ≤ ``level``
    (≥ when higher is better).

    Only iterations with a full window count, so a lucky first iteration cannot qualify."""
    smooth = running_mean(curve.slowdown, window)
    reached = smooth <= level if lower_is_better else smooth >= level
    hits = np.flatnonzero(reached & (np.arange(len(smooth)) >= window - 1))
    if len(hits) == 0:
        return {"iteration": None, "wall_s": None}
    i = int(hits[0])
    return {"iteration": int(curve.iterations[i]), "wall_s": round(curve.cloning_s + float(curve.wall_s[i]), 1)}


def compare(runs: dict[str, Path], out: Path, baseline: str = "sjf", window: int = 20) -> dict:
    runs_read = {label: read_run(path) for label, path in runs.items()}
    measures = {measure_of(c.heldout) for c in runs_read.values()}
    if len(measures) > 1:
        raise ValueError("the runs mix VM-placement and slowdown runs; compare them separately")
    measure = measures.pop()
    levels = [c.heldout[baseline][measure.heldout] for c in runs_read.values() if baseline in c.heldout]
    if not levels:
        raise ValueError(f"no run's eval.json holds the baseline {baseline!r}")
    level = float(np.mean(levels))
    summary = {"baseline": baseline, f"baseline_heldout_{measure.heldout.removeprefix('mean_')}": level,
               "window": window, "runs": {}}
    for label, curve in runs_read.items():
        summary["runs"][label] = {
            "run": str(runs[label]),
            "iterations": int(curve.iterations[-1]),
            "behaviour_cloning_s": round(curve.cloning_s, 1),
            "train_wall_s": round(float(curve.wall_s[-1]), 1),
            "s_per_iteration": round(float(curve.wall_s[-1]) / len(curve.iterations), 2),
            f"final_training_{measure.curve_name}": round(float(running_mean(curve.slowdown, window)[-1]), 3),
            f"reaches_{baseline}": first_reaching(curve, level, window, measure.lower_is_better),
            "heldout": {name: {k: stats[k] for k in measure.heldout_keys if k in stats}
                        | {"leaves_unfinished": leaves_unfinished(stats)} for name, stats in curve.heldout.items()},
        }
        seeds = over_seeds(curve.heldout, measure)
        if seeds:
            summary["runs"][label]["over_seeds"] = seeds
        (out / label).mkdir(parents=True, exist_ok=True)
        for name in _RUN_FILES:
            if stored_exists(runs[label] / name):
                copy_stored(runs[label] / name, out / label)
    hline = {f"{baseline} (held-out)": level}
    smooth = {label: list(running_mean(c.slowdown, window)) for label, c in runs_read.items()}
    ylabel = f"training {measure.curve_name} ({window}-iteration running mean)"
    curves(out / "learning_curves_iteration.png", "iteration", ylabel,
           {label: (c.iterations, smooth[label]) for label, c in runs_read.items()}, hline)
    curves(out / "learning_curves_wallclock.png", "wall-clock s (behaviour cloning included)", ylabel,
           {label: (c.cloning_s + c.wall_s, smooth[label]) for label, c in runs_read.items()}, hline)
    marks = legend(stats for c in runs_read.values() for stats in c.heldout.values())
    if marks:
        summary["legend"] = marks[0]
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _parse_run(text: str) -> tuple[str, Path]:
    label, sep, path = text.partition("=")
    if not sep or not label or not path:
        raise argparse.ArgumentTypeError(f"expected LABEL=RUN_DIR, got {text!r}")
    return label, Path(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.compare_runs", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=_parse_run, help="LABEL=RUN_DIR of a finished training run")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--baseline", default="sjf", help="heuristic whose held-out slowdown (VM runs: "
                        "scheduled length, e.g. pm_best_fit) is the target")
    parser.add_argument("--window", type=int, default=20, help="iterations in the running mean")
    args = parser.parse_args(argv)
    try:
        summary = compare(dict(args.runs), args.out, args.baseline, args.window)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
