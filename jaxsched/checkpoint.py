"""Checkpoints of the whole train state (params, optimiser state, RNG key, iteration) with orbax.

The resolved config is saved beside the checkpoints; restoring refuses a checkpoint whose config
differs from the one asked for, since a resumed run would silently train something else.
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import numpy as np
import orbax.checkpoint as ocp

FORMAT_VERSION = 1


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used for this run."""


def _to_saveable(state):
    # orbax stores arrays; ``None`` leaves (unused value-baseline slots) are kept by structure.
    return jax.tree.map(np.asarray, state)


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
    """Raises naming every key whose value differs (ignoring ``iterations``, which a resume may extend)."""
    keys = sorted(set(saved) | set(requested))
    diffs = [f"{k}: checkpoint {saved.get(k)!r} vs requested {requested.get(k)!r}"
             for k in keys if k != "iterations" and saved.get(k) != requested.get(k)]
    if diffs:
        raise CheckpointError(f"the checkpoint in {run_dir} was trained with a different config; refusing "
                              "to resume:\n  " + "\n  ".join(diffs))
