"""What the notebooks in ``notebooks/`` share, so that they hold calls and no logic of their own: the
quick switch (``JAXSCHED_QUICK=1``, as CI sets it), their output folder under ``runs/notebooks/``
(``JAXSCHED_NOTEBOOK_OUT`` moves it, as the tests do), the device line, and evaluations (a run's
``eval.json``, an ``evaluate --summary``, trace_policy studies side by side) as markdown tables."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import jax

from jaxsched.core import stats

QUICK_VARIABLE = "JAXSCHED_QUICK"
OUT_VARIABLE = "JAXSCHED_NOTEBOOK_OUT"
DEFAULT_OUT = Path("runs/notebooks")


def quick_mode() -> bool:
    """True when ``JAXSCHED_QUICK=1``: every run shrinks to a smoke-test size."""
    return os.environ.get(QUICK_VARIABLE) == "1"


def output_dir(notebook: str) -> Path:
    """``runs/notebooks/<notebook>/`` (or under ``$JAXSCHED_NOTEBOOK_OUT``), quick runs in ``quick/``
    beside the full ones so that neither overwrites the other; created."""
    base = Path(os.environ.get(OUT_VARIABLE) or DEFAULT_OUT) / notebook
    path = base / "quick" if quick_mode() else base
    path.mkdir(parents=True, exist_ok=True)
    return path


def fresh_run_dir(path: Path) -> Path:
    """``path`` emptied of a run an earlier execution of the notebook left there (``train`` refuses to
    start over an existing run); only inside a notebook output folder."""
    path = Path(path)
    if path.exists():
        if not (path / "config.json").exists():
            raise ValueError(f"{path} holds no run (no config.json); not removed")
        shutil.rmtree(path)
    return path


def device_line() -> str:
    """The backend and devices JAX computes on (a notebook uses Colab's GPU / TPU when it has one)."""
    devices = jax.devices()
    return f"JAX {jax.__version__}, backend {jax.default_backend()}: {len(devices)} x {devices[0].device_kind}"


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)


def stats_table(rows: dict[str, dict], columns: tuple[str, ...] | None = None, key: str = "policy") -> str:
    """A markdown table, one row per entry of ``rows`` (name -> stats); ``columns`` default to every
    number the first row holds."""
    if not rows:
        raise ValueError("no rows to tabulate")
    if columns is None:
        first = next(iter(rows.values()))
        columns = tuple(k for k, v in first.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    lines = [f"| {key} | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(_cell(stats.get(c)) for c in columns) + " |" for name, stats in rows.items()]
    return "\n".join(lines)


def evaluation_table(run_dir: Path, columns: tuple[str, ...] | None = None) -> str:
    """A run's held-out evaluation (``eval.json``: the heuristics and the trained policies) as markdown."""
    path = Path(run_dir) / "eval.json" if Path(run_dir).is_dir() else Path(run_dir)
    return stats_table(json.loads(path.read_text())["policies"], columns)


def runs_table(runs: dict[str, Path], policy: str = "trained-s0", columns: tuple[str, ...] | None = None) -> str:
    """One policy's held-out numbers in each of several runs (an ablation): label -> run directory."""
    rows = {label: json.loads((Path(run) / "eval.json").read_text())["policies"][policy] for label, run in runs.items()}
    return stats_table(rows, columns, key="run")


def _trace_policy_kind(name: str, row: dict) -> str:
    """A trace_policy row's kind: its ``kind`` field, or (eval.json files written before that field) the one its
    name gives: ``ppo-s<seed>[-sampled]`` trace-trained, ``synthetic:...`` synthetic, any other a rule."""
    if "kind" in row:
        return row["kind"]
    if re.fullmatch(r"ppo-s\d+(-sampled)?", name):
        return "trace-trained"
    return "synthetic" if name.startswith("synthetic:") else "heuristic"


def _seeds_cell(rows: list[dict]) -> tuple[str, str]:
    """Several seeds' rows as (IQM of their mean bounded slowdowns [interval], finished / jobs of each seed)."""
    values = [row["mean_bounded_slowdown"] for row in rows]
    interval = stats.seed_interval(values)
    done = sorted({f"{row['finished']}/{row['jobs']}" for row in rows})
    seeds = f"{len(rows)} seed{'s' if len(rows) > 1 else ''}"
    seeds = f"each of {seeds}" if len(done) == 1 and len(rows) > 1 else seeds
    centre = f"{stats.iqm(values):.3f} [{interval.label} {interval.low:.3f}, {interval.high:.3f}]"
    return centre, f"{seeds}: {', '.join(done)}"


def trace_policy_table(runs: dict[str, Path]) -> str:
    """trace_policy studies side by side (trace label -> output folder holding ``eval.json``): held-out mean
    bounded slowdown and finished / jobs on each trace, PPO as the IQM over seeds with its interval (the 95%
    bootstrap CI from 5 seeds, else the range), greedy and sampled, then every rule by its label; below, per
    trace, the best rule and the rules ahead of the PPO greedy IQM (only rules that finish every job count)."""
    columns, rows, lines = [], {}, []
    for trace, run in runs.items():
        policies = json.loads((Path(run) / "eval.json").read_text())["policies"]
        kinds = {name: _trace_policy_kind(name, row) for name, row in policies.items()}
        value, done = f"{trace}: bounded slowdown", f"{trace}: finished / jobs"
        columns += [value, done]
        seeds = {mode: [row for name, row in policies.items()  # not the "-last" rows beside chosen checkpoints
                        if kinds[name] == "trace-trained" and not name.endswith("-last")
                        and name.endswith("-sampled") == (mode == "sampled")]
                 for mode in ("greedy", "sampled")}
        for mode, chosen in seeds.items():
            if chosen:
                rows.setdefault(f"PPO {mode} (IQM over seeds)", {}).update(zip((value, done), _seeds_cell(chosen)))
        rules = {row["label"]: row for name, row in policies.items() if kinds[name] == "heuristic"}
        for label, row in rules.items():
            rows.setdefault(label, {}).update({value: f"{row['mean_bounded_slowdown']:.3f}",
                                               done: f"{row['finished']}/{row['jobs']}"})
        complete = {label: row["mean_bounded_slowdown"] for label, row in rules.items()
                    if row["finished"] == row["jobs"]}
        if not seeds["greedy"] or not complete:
            continue
        best = min(complete.values())
        greedy = stats.iqm([row["mean_bounded_slowdown"] for row in seeds["greedy"]])
        ahead = [label for label, v in complete.items() if v < greedy]
        lines.append(f"- {trace}: best rule {' = '.join(k for k, v in complete.items() if v == best)} {best:.3f}; "
                     f"PPO greedy IQM {greedy:.3f}; rules ahead of it: {', '.join(ahead) if ahead else 'none'} "
                     f"({len(ahead)} of {len(complete)}).")
    return stats_table(rows, tuple(columns)) + ("\n\n" + "\n".join(lines) if lines else "")
