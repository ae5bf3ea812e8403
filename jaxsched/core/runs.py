"""A training run directory: what every tool reads or writes there.

``config.json`` (the resolved config; a resume refuses a different one, since it would silently
train something else), ``metrics.csv`` (one row per iteration and seed, :class:`MetricsLog`),
``checkpoints/`` (orbax checkpoints of the whole train state: params, optimiser state, RNG key,
iteration; :class:`Checkpointer`) and ``eval.json`` (:func:`write_evaluation`).
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path
from typing import Callable

import jax
import numpy as np
import orbax.checkpoint as ocp

from jaxsched.core.devices import host_copy
from jaxsched.errors import CheckpointError

FORMAT_VERSION = 1


def _to_saveable(state):
    # orbax stores arrays; ``None`` leaves (unused value-baseline slots) are kept by structure. Arrays
    # split over several processes are gathered (each process passes the whole value; orbax writes once).
    return host_copy(state)


class Checkpointer:
    """Keeps the last ``max_to_keep`` train states of a run under ``run_dir/checkpoints``."""

    def __init__(self, run_dir: Path, max_to_keep: int = 3):
        self.run_dir = Path(run_dir).resolve()
        self.manager = ocp.CheckpointManager(
            self.run_dir / "checkpoints",
            options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, create=True))

    def save(self, step: int, state) -> None:
        self.manager.save(step, args=ocp.args.StandardSave(_to_saveable(state)))

    def wait(self) -> None:
        self.manager.wait_until_finished()

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def restore(self, like, step: int | None = None):
        """The state saved at ``step`` (default: latest), shaped like the pytree ``like``."""
        step = self.latest_step() if step is None else step
        if step is None:
            raise CheckpointError(f"no checkpoint under {self.run_dir / 'checkpoints'}")
        abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _to_saveable(like))
        try:
            restored = self.manager.restore(step, args=ocp.args.StandardRestore(abstract))
        except (ValueError, KeyError) as error:
            raise CheckpointError(f"checkpoint {step} in {self.run_dir} does not match this run's train "
                                  f"state (different network, seeds or algorithm?): {error}") from None
        return jax.tree.map(lambda x: jax.numpy.asarray(x), restored)

    def close(self) -> None:
        self.manager.wait_until_finished()
        self.manager.close()


def write_run_config(run_dir: Path, config: dict) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps({"format": FORMAT_VERSION, "config": config}, indent=1))


def read_run_config(run_dir: Path) -> dict:
    path = Path(run_dir) / "config.json"
    if not path.exists():
        raise CheckpointError(f"{run_dir} is not a training run directory (no config.json)")
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format {data.get('format')} is not {FORMAT_VERSION}")
    return data["config"]


def check_same_config(saved: dict, requested: dict, run_dir: Path) -> None:
    """Raises naming every key whose value differs, ignoring ``iterations`` (a resume may extend it)
    and ``devices`` (a resume may run on another machine)."""
    keys = sorted(set(saved) | set(requested))
    diffs = [f"{k}: checkpoint {saved.get(k)!r} vs requested {requested.get(k)!r}"
             for k in keys if k not in ("iterations", "devices") and saved.get(k) != requested.get(k)]
    if diffs:
        raise CheckpointError(f"the checkpoint in {run_dir} was trained with a different config; refusing "
                              "to resume:\n  " + "\n  ".join(diffs))


class MetricsLog:
    """metrics.csv: one row per (iteration, seed); a resume drops rows past its checkpoint."""

    def __init__(self, path: Path, resume_from: int | None):
        self.path = path
        self.columns: list[str] | None = None
        if resume_from is not None and path.exists():
            with open(path, newline="") as f:
                rows = [r for r in csv.DictReader(f) if int(r["iteration"]) <= resume_from]
            if rows:
                self.columns = list(rows[0])
            with open(path, "w", newline="") as f:
                if self.columns:
                    writer = csv.DictWriter(f, self.columns)
                    writer.writeheader()
                    writer.writerows(rows)
        elif path.exists():
            path.unlink()

    def append(self, rows: list[dict]) -> None:
        if self.columns is None:
            self.columns = list(rows[0])
            with open(self.path, "w", newline="") as f:
                csv.DictWriter(f, self.columns).writeheader()
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, self.columns).writerows(rows)


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
