"""The files of a training run directory read or written by several tools: eval.json, metrics.csv."""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path
from typing import Callable

import numpy as np


def write_evaluation(out: Path, header: dict, summary: dict[str, dict], describe: Callable[[dict], str],
                     what: str, log=print) -> None:
    """``eval.json`` (``header`` + the per-policy ``summary``) and one logged line per policy."""
    (out / "eval.json").write_text(json.dumps({**header, "policies": summary}, indent=1))
    width = max(len(name) for name in summary)
    log(f"held-out evaluation ({what}):")
    for name, stats in summary.items():
        log(f"  {name:{width}s}  {describe(stats)}")


def per_iteration_means(path: Path, columns: tuple[str, ...]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Iterations of ``metrics.csv`` and, per column, the mean over the seeds' rows (NaNs ignored)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    iterations = np.array(sorted({int(r["iteration"]) for r in rows}), dtype=int)
    index = {int(i): k for k, i in enumerate(iterations)}
    means = {}
    for column in columns:
        values = [[] for _ in iterations]
        for r in rows:
            values[index[int(r["iteration"])]].append(float(r[column]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN iterations stay NaN
            means[column] = np.array([np.nanmean(v) for v in values])
    return iterations, means
