"""What the notebooks in ``notebooks/`` share, so that they hold calls and no logic of their own: the
quick switch (``JAXSCHED_QUICK=1``, as CI sets it), their output folder under ``runs/notebooks/``
(``JAXSCHED_NOTEBOOK_OUT`` moves it, as the tests do), the device line, and evaluations (a run's
``eval.json``, an ``evaluate --summary``) as markdown tables."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jax

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
