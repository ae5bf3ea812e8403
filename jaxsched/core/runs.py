"""A training run directory: what every tool reads or writes there.

``config.json`` (the resolved config; a resume refuses a different one, since it would silently
train something else), ``metrics.csv`` (one row per iteration and seed, :class:`MetricsLog`),
``checkpoints/`` (orbax checkpoints of the whole train state: params, optimiser state, RNG key,
iteration, each step sealed by a checksum manifest; :class:`Checkpointer`) and ``eval.json`` (:func:`write_evaluation`).
"""

from __future__ import annotations

import csv
import gc
import hashlib
import json
import logging
import lzma
import math
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Callable

import jax
import numpy as np
import orbax.checkpoint as ocp

from jaxsched.core.checkpoint_manifest import verify_manifest, write_manifest
from jaxsched.core.devices import host_copy, is_primary
from jaxsched.errors import CheckpointError, DamagedCheckpointError

FORMAT_VERSION = 1


def shown_path(path: Path | None) -> str | None:
    """``path`` as written into a result file: relative to the working directory when inside it (reproduce
    passes absolute paths), so that committed results name no machine's folders."""
    if path is None:
        return None
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _to_saveable(state):
    # orbax stores arrays; ``None`` leaves (unused value-baseline slots) are kept by structure. Arrays
    # split over several processes are gathered (each process passes the whole value; orbax writes once).
    return host_copy(state)


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


class Checkpointer:
    """Keeps the last ``max_to_keep`` train states of a run under ``run_dir/checkpoints`` (and, with
    ``keep_period``, every one whose step is a multiple of it).

    Each saved step is sealed with a checksum manifest (:mod:`jaxsched.core.checkpoint_manifest`), so
    that damage (a truncated or zeroed file) is found before orbax reads the files; a restore without
    a step falls back to the newest intact checkpoint, with a one-line warning naming the damaged ones."""

    def __init__(self, run_dir: Path, max_to_keep: int = 3, keep_period: int | None = None):
        self.run_dir = Path(run_dir).resolve()
        self.directory = self.run_dir / "checkpoints"
        self.manager = ocp.CheckpointManager(
            self.directory, item_handlers=ocp.StandardCheckpointHandler(),
            options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, keep_period=keep_period, create=True))

    def __enter__(self) -> "Checkpointer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def save(self, step: int, state) -> None:
        """Saves and seals ``step``: waits for orbax to finish writing (the states here are small, so
        little overlap is lost), then writes the step's checksum manifest."""
        self.manager.save(step, args=ocp.args.StandardSave(_to_saveable(state)))
        self.manager.wait_until_finished()
        if is_primary():
            write_manifest(self.directory / str(step))

    def wait(self) -> None:
        self.manager.wait_until_finished()

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def steps(self) -> list[int]:
        return sorted(self.manager.all_steps())

    def discard_after(self, step: int) -> list[int]:
        """Deletes the checkpoints past ``step`` (a resume from ``step`` replays them); returns their steps."""
        later = [s for s in self.steps() if s > step]
        for s in later:
            self.manager.delete(s)
        return later

    def restore(self, like, step: int | None = None, log=_warn):
        """The state saved at ``step``, shaped like the pytree ``like``; without ``step``, that of the
        newest intact checkpoint (``log`` warns about the damaged ones skipped)."""
        abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, _to_saveable(like))
        steps = self.steps()
        if step is not None:
            if step not in steps:
                raise CheckpointError(f"no checkpoint of iteration {step} in {self.directory}; saved: "
                                      f"{', '.join(map(str, steps)) or 'none'}")
            return self._restore_step(step, abstract)
        if not steps:
            raise CheckpointError(f"no checkpoint under {self.directory}")
        damaged = []
        for candidate in reversed(steps):
            try:
                restored = self._restore_step(candidate, abstract)
            except DamagedCheckpointError as error:
                damaged.append(error)
                continue
            if damaged:
                log(f"warning: {'; '.join(map(str, damaged))}; using checkpoint {candidate} instead")
            return restored
        raise DamagedCheckpointError(f"every checkpoint in {self.directory} is damaged: "
                                     + "; ".join(map(str, damaged)))

    def _restore_step(self, step: int, abstract):
        """Checks, in order: the files against the manifest, the saved tree against ``abstract``
        (a different tree is a different run, not damage), orbax's read, the values read."""
        def damaged(problem) -> DamagedCheckpointError:
            first_line = str(problem).strip().splitlines()[0] if str(problem).strip() else type(problem).__name__
            if len(first_line) > 160:
                first_line = first_line[:160] + "..."
            return DamagedCheckpointError(f"checkpoint {step} in {self.directory} is damaged ({first_line})")

        problem = verify_manifest(self.directory / str(step))
        if problem:
            raise damaged(problem)
        try:
            saved = _quietly(self.manager.item_metadata, step)
        except Exception as error:  # orbax raises what its readers raise (JSON, tensorstore, OS errors)
            raise damaged(f"its metadata cannot be read: {error}") from None
        if saved is None:
            raise damaged("its metadata cannot be read")
        wanted = _leaf_shapes(abstract)
        differences = _differences(_leaf_shapes(saved), wanted)
        if differences:
            raise CheckpointError(f"checkpoint {step} in {self.run_dir} does not match this run's train state "
                                  f"(different network, seeds or algorithm?): {differences}")
        try:
            restored = _quietly(self.manager.restore, step, args=ocp.args.StandardRestore(abstract))
        except Exception as error:
            raise damaged(f"orbax cannot read it: {error}") from None
        if _differences(_leaf_shapes(restored), wanted):
            raise damaged("the arrays read have other shapes than saved")
        if not _all_finite(getattr(restored, "params", restored)):  # training never saves non-finite params
            raise damaged("its parameters hold NaN or infinity")
        return jax.tree.map(lambda x: jax.numpy.asarray(x), restored)

    def close(self) -> None:
        self.manager.wait_until_finished()
        self.manager.close()


SETTLE_S = 0.5  # how long the reads of a failed orbax call may go on


def _quietly(orbax_call, *args, **kwargs):
    """``orbax_call(*args, **kwargs)`` without the asyncio noise that follows its failure: when one of
    orbax's concurrent reads fails, it closes its event loop while tensorstore's other reads are in
    flight; Python reports each of their callbacks as an unraisable "Event loop is closed", and
    asyncio logs "Future exception was never retrieved" for each failed one when it is collected."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if not (isinstance(unraisable.exc_value, RuntimeError) and "Event loop is closed" in str(unraisable.exc_value)):
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        return orbax_call(*args, **kwargs)
    except Exception:
        time.sleep(SETTLE_S)  # the reads in flight end (and are dropped) before the error is reported
        asyncio_log = logging.getLogger("asyncio")
        disabled, asyncio_log.disabled = asyncio_log.disabled, True
        try:
            gc.collect()  # the failed futures, held in cycles by their tracebacks, go now and unlogged
        finally:
            asyncio_log.disabled = disabled
        raise
    finally:
        sys.unraisablehook = previous


def _leaf_shapes(tree) -> dict[str, tuple]:
    """``{"params.Dense_0.kernel": shape}`` for the array leaves of a state, its abstract form, or
    orbax's metadata of it (whose paths are dict keys where the state's are attributes)."""
    def name(key) -> str:
        for attribute in ("key", "name", "idx"):
            if hasattr(key, attribute):
                return str(getattr(key, attribute))
        return str(key)
    return {".".join(name(k) for k in path): tuple(getattr(leaf, "shape", ()))
            for path, leaf in jax.tree_util.tree_leaves_with_path(tree)}


def _differences(saved: dict[str, tuple], wanted: dict[str, tuple], limit: int = 3) -> str:
    """The first ``limit`` differences of two ``_leaf_shapes``, '' when there are none."""
    lines = [f"{k} is {'absent' if k not in saved else saved[k]} in the checkpoint, "
             f"{'absent' if k not in wanted else wanted[k]} here"
             for k in sorted(set(saved) | set(wanted)) if saved.get(k) != wanted.get(k)]
    return "; ".join(lines[:limit]) + (f"; ... ({len(lines)} in all)" if len(lines) > limit else "")


def _all_finite(tree) -> bool:
    return all(bool(np.all(np.isfinite(x))) for x in jax.tree.leaves(tree)
               if np.issubdtype(np.asarray(x).dtype, np.inexact))


def write_atomically(path: Path, text: str) -> None:
    """``path`` holding ``text``, written beside it and renamed: a kill leaves the old file or the new one."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    temporary.replace(path)


def write_run_config(run_dir: Path, config: dict, hosts: list[dict] | None = None) -> None:
    """``config.json``: the resolved ``config`` and, beside it (outside what a resume compares), ``hosts``:
    the machine of each session that trained the run (:func:`jaxsched.core.host.describe` and the
    iteration it started from), so that the run's wall-clock is read beside its hardware."""
    run_dir.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT_VERSION, "config": config, **({"hosts": hosts} if hosts else {})}
    (run_dir / "config.json").write_text(json.dumps(data, indent=1))


def read_run_config(run_dir: Path) -> dict:
    path = Path(run_dir) / "config.json"
    if not path.exists():
        raise CheckpointError(f"{run_dir} is not a training run directory (no config.json)")
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format {data.get('format')} is not {FORMAT_VERSION}")
    return data["config"]


def read_run_hosts(run_dir: Path) -> list[dict]:
    """The ``hosts`` a run's config.json records (:func:`write_run_config`); [] for runs written before them."""
    path = Path(run_dir) / "config.json"
    return json.loads(path.read_text()).get("hosts", []) if path.exists() else []


RESULT_NEUTRAL_KEYS = ("devices", "checkpoint_minutes")  # how a run is executed, not what it computes


def result_config(resolved: dict) -> dict:
    """A resolved config (``to_dict``) without :data:`RESULT_NEUTRAL_KEYS`: what decides a run's numbers
    (the same run on another machine, saving more often, is the same run)."""
    return {key: value for key, value in resolved.items() if key not in RESULT_NEUTRAL_KEYS}


def config_hash(resolved: dict) -> str:
    """sha256 of :func:`result_config` of ``resolved``, written canonically (sorted keys)."""
    text = json.dumps(result_config(resolved), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def differing_keys(a: dict, b: dict, prefix: str = "") -> list[str]:
    """The keys, dotted into nested mappings (``algo_options.lr``), whose values differ between ``a`` and ``b``."""
    keys = []
    for key in sorted(set(a) | set(b), key=str):
        left, right = a.get(key), b.get(key)
        if isinstance(left, dict) and isinstance(right, dict):
            keys += differing_keys(left, right, f"{prefix}{key}.")
        elif key not in a or key not in b or left != right:
            keys.append(f"{prefix}{key}")
    return keys


def check_same_config(saved: dict, requested: dict, run_dir: Path) -> None:
    """Raises naming every key whose value differs, ignoring ``iterations`` (a resume may extend it),
    ``devices`` (a resume may run on another machine), ``checkpoint_minutes`` (no effect on results) and
    ``allow_training_instances`` (what the final evaluation may run on, not the training)."""
    keys = sorted(set(saved) | set(requested))
    ignored = ("iterations", "devices", "checkpoint_minutes", "allow_training_instances")
    diffs = [f"{k}: checkpoint {saved.get(k)!r} vs requested {requested.get(k)!r}"
             for k in keys if k not in ignored and saved.get(k) != requested.get(k)]
    if diffs:
        raise CheckpointError(f"the checkpoint in {run_dir} was trained with a different config; refusing "
                              "to resume:\n  " + "\n  ".join(diffs))


COMPRESSED = ".xz"  # results/ commits metrics.csv compressed as metrics.csv.xz (lossless, ~3.6x smaller)


def compressed_path(path: Path) -> Path:
    """Where the compressed copy of the CSV ``path`` lives (``metrics.csv`` -> ``metrics.csv.xz``)."""
    return Path(path).with_name(Path(path).name + COMPRESSED)


def stored_exists(path: Path) -> bool:
    """Whether the file ``path`` exists, as written or compressed."""
    return Path(path).exists() or compressed_path(path).exists()


def open_csv(path: Path):
    """A text handle on the CSV ``path``, or on its compressed copy when only that exists: every reader
    of ``metrics.csv`` goes through here, so a committed run reads the same compressed or not."""
    path = Path(path)
    if not path.exists() and compressed_path(path).exists():
        return lzma.open(compressed_path(path), "rt", newline="")
    return open(path, newline="")


def read_csv_rows(path: Path) -> list[dict]:
    """Every row of the CSV ``path`` (plain or compressed) as a dict."""
    with open_csv(path) as f:
        return list(csv.DictReader(f))


def copy_stored(path: Path, folder: Path) -> Path:
    """Copies the file ``path`` into ``folder`` as it is stored (plain or compressed); returns the copy."""
    source = Path(path) if Path(path).exists() else compressed_path(path)
    return Path(shutil.copy(source, Path(folder) / source.name))


def compress_csv(path: Path) -> Path:
    """Replaces the CSV ``path`` with its xz-compressed copy (the bytes kept exactly) and returns its path."""
    path, target = Path(path), compressed_path(path)
    with open(path, "rb") as source, lzma.open(target, "wb", preset=9) as sink:
        shutil.copyfileobj(source, sink)
    with lzma.open(target, "rb") as check, open(path, "rb") as source:
        if check.read() != source.read():
            raise OSError(f"{target} does not decompress to {path}")
    path.unlink()
    return target


class MetricsLog:
    """A CSV of rows with an ``iteration`` column (metrics.csv: one per iteration and seed;
    eval_curve.csv); a resume drops the rows past its checkpoint (they are replayed)."""

    def __init__(self, path: Path, resume_from: int | None):
        self.path = path
        self.columns: list[str] | None = None
        if resume_from is not None and stored_exists(path):
            rows = [r for r in read_csv_rows(path) if int(r["iteration"]) <= resume_from]
            if rows:
                self.columns = list(rows[0])
            with open(path, "w", newline="") as f:
                if self.columns:
                    writer = csv.DictWriter(f, self.columns)
                    writer.writeheader()
                    writer.writerows(rows)
            compressed_path(path).unlink(missing_ok=True)  # a resumed run appends to the plain CSV
        else:  # a fresh run: no earlier log, in either form
            path.unlink(missing_ok=True)
            compressed_path(path).unlink(missing_ok=True)

    def append(self, rows: list[dict]) -> None:
        if self.columns is None:
            self.columns = list(rows[0])
            with open(self.path, "w", newline="") as f:
                csv.DictWriter(f, self.columns).writeheader()
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, self.columns).writerows(
                [{key: metric_text(value) for key, value in row.items()} for row in rows])


def metric_text(value):
    """How a logged value is written: a float that a float32 holds exactly (every metric a jitted
    step returns) with the fewest digits that read back as that float32 ("0.0015448473", not
    float64's "0.0015448472695425153": half the bytes and a third less compressed, nothing lost at
    the precision it was computed in); anything else as the csv module writes it."""
    if isinstance(value, float) and math.isfinite(value) and float(np.float32(value)) == value:
        return str(np.float32(value))
    return value


def compact_metric_field(text: str) -> str:
    """A CSV field written before :func:`metric_text`, as it would write it now (used once to convert
    the committed logs; integers and non-numbers are kept as they are)."""
    try:
        int(text)
        return text
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    written = metric_text(value)
    return written if isinstance(written, str) else text


def write_evaluation(out: Path, header: dict, summary: dict[str, dict], describe: Callable[[dict], str],
                     what: str, log=print) -> None:
    """``eval.json`` (``header`` + the per-policy ``summary``) and one logged line per policy. The file
    appears whole or not at all (a sweep takes a cell with an ``eval.json`` for finished)."""
    write_atomically(out / "eval.json", json.dumps({**header, "policies": summary}, indent=1))
    width = max(len(name) for name in summary)
    log(f"held-out evaluation ({what}):")
    for name, stats in summary.items():
        log(f"  {name:{width}s}  {describe(stats)}")


def per_iteration_means(path: Path, columns: tuple[str, ...]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Iterations of ``metrics.csv`` and, per column, the mean over the seeds' rows (NaNs ignored)."""
    rows = read_csv_rows(path)
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
