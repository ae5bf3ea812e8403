"""Summarise PPO runs of the MDP-design study: ``python -m jaxsched.studies.mdp_summary OUT RUN_DIR...``.

Copies each run's config.json, eval.json and metrics.csv to OUT/<run name>/, and writes
OUT/summary.json (held-out slowdowns, training wall-clock, seconds per million decisions) and
OUT/learning_curves.png (training-rollout slowdown, moving average of 10 iterations, against
wall-clock seconds, with the held-out SJF level)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

from jaxsched.core.plotting import plt, save_figure
from jaxsched.core.runs import copy_stored, read_csv_rows
from jaxsched.core.unfinished import leaves_unfinished


def main(out: Path, runs: list[Path]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    summary, fig = {}, plt.figure(figsize=(7, 4.5))
    sjf = None
    for run in runs:
        rows = read_csv_rows(run / "metrics.csv")
        policies = json.loads((run / "eval.json").read_text())["policies"]
        wall = np.cumsum([float(r["wall_s"]) for r in rows])
        slowdown = np.array([float(r["mean_slowdown"]) for r in rows])
        decisions = float(sum(float(r["decisions"]) for r in rows))
        smooth = np.convolve(np.nan_to_num(slowdown, nan=np.nanmean(slowdown)), np.ones(10) / 10, mode="valid")
        plt.plot(wall[9:], smooth, label=run.name)
        sjf = policies.get("sjf", {}).get("mean_slowdown", sjf)
        summary[run.name] = {
            "iterations": len(rows), "train_wall_s": round(float(wall[-1]), 1), "decisions": int(decisions),
            "s_per_million_decisions": round(float(wall[-1]) / decisions * 1e6, 1),
            "heldout": {name: {k: stats[k] for k in ("mean_slowdown", "finished", "jobs")}
                        | {"leaves_unfinished": leaves_unfinished(stats)} for name, stats in policies.items()},
        }
        (out / run.name).mkdir(exist_ok=True)
        for name in ("config.json", "eval.json"):
            shutil.copy(run / name, out / run.name / name)
        copy_stored(run / "metrics.csv", out / run.name)
    if sjf is not None:
        plt.axhline(sjf, linestyle="--", color="k", label="SJF (held-out)")
    plt.xlabel("training wall-clock (s, 1 shared CPU core)")
    plt.ylabel("mean slowdown of training rollouts")
    plt.legend(fontsize=8)
    plt.tight_layout()
    save_figure(plt.gcf(), out / "learning_curves.png")
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
