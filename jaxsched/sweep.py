"""Seed and hyper-parameter sweeps with honest statistics.

    python -m jaxsched.sweep --config configs/X.yaml --seeds 0:16 [key=v1,v2 ...] --out DIR [--shard I/N]

The cells are the cartesian product of the swept keys' values; each cell is a normal run directory
(``DIR/cells/<cell>/``) that trains all the seeds at once, vmapped in one process (split over the
devices when the config says ``devices: auto | N``). ``--workers K`` runs K cells at a time, each in
its own process (with ``CUDA_VISIBLE_DEVICES=0,1,...`` set, worker k sees only the k-th GPU);
``--shard I/N`` runs every N-th cell from the I-th (job arrays over hosts; each process its share). Resumable: a finished cell
(its ``eval.json`` written) is skipped, a killed one resumes from its last checkpoint. Then, from every
finished cell: ``DIR/summary.csv`` (one row per cell and seed: the swept values, ``seed``, ``run_dir``,
the held-out ``final_<metric>`` of the trained policy and of each baseline, and the iterations the
training curve took to reach each baseline) and ``DIR/report.md`` with the interquartile mean and 95%
stratified-bootstrap confidence interval over seeds (:mod:`jaxsched.core.stats`; under 5 seeds the seeds'
range, labelled "range"), learning curves with CI (range) bands and performance profiles.

    python -m jaxsched.sweep --report-only --out DIR

rewrites ``summary.csv``, ``report.md`` and the figures from the finished cells, training nothing.

A cell is identified by its full resolved config (``sweep_cell.json`` records it and its hash; what only
changes how it runs, ``devices`` and ``checkpoint_minutes``, is left out): a sweep into an ``--out`` whose
cells were run with another base config, grid or seeds is refused, naming the keys that differ, and so
is a training run's folder. Cells of older sweeps, without a hash, are compared by their ``config.json``
and adopt the hash. SIGTERM or SIGINT stops the sweep at the running cell's next iteration boundary
(checkpoint saved; exit status 143 or 130); the same command continues it.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import yaml

from jaxsched.core import stats
from jaxsched.core.plotting import curves_with_bands, performance_profiles
from jaxsched.core.devices import restart_for_devices
from jaxsched.core.config import parse_seeds, to_dict
from jaxsched.core.runs import (Checkpointer, config_hash, differing_keys, read_csv_rows, read_run_config, result_config,
                                write_atomically)
from jaxsched.core.signals import Interrupted, StopOnSignal, exit_status
from jaxsched.core.unfinished import LEGEND, MARK, beats
from jaxsched.errors import CheckpointError, ConfigError, UsageError
from jaxsched.experiment import TrainConfig, load_train_config, train, train_config
from jaxsched.registry import build

CELL_FILE = "sweep_cell.json"  # in each cell: its swept values, seeds and identity (cell_record)
SMOOTHING = 10  # iterations in the running mean of a training curve (time to reach a baseline)
BOOTSTRAP_REPS = 2000


def parse_grid(texts: list[str]) -> list[tuple[str, list]]:
    """``key=v1,v2`` -> (key, [v1, v2]); a value written as YAML ``[...]`` or ``{...}`` is one value."""
    grid = []
    for text in texts:
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"sweep axis {text!r} is not key=v1,v2,...")
        raw = raw.strip()
        pieces = [raw] if raw[:1] in "[{" else [piece for piece in raw.split(",")]
        values = [yaml.safe_load(piece) if piece.strip() else "" for piece in pieces]
        if key in dict(grid):
            raise UsageError(f"sweep axis {key!r} given twice")
        grid.append((key.strip(), values))
    return grid


def parse_shard(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not match or not 0 <= int(match.group(1)) < int(match.group(2)):
        raise UsageError(f"--shard {text!r}: expected I/N with 0 <= I < N")
    return int(match.group(1)), int(match.group(2))


def _format(value) -> str:
    """A swept value written back as an override that parses to the same value (None as YAML's null)."""
    return json.dumps(value) if isinstance(value, (dict, list)) or value is None else str(value)


def cell_name(index: int, values: dict) -> str:
    label = "__".join(f"{key}={_format(value)}" for key, value in values.items())
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", f"cell{index:03d}" + (f"__{label}" if label else ""))[:150]


def plan(config_path: Path, seeds: list[int], grid: list[tuple[str, list]]) -> list[tuple[str, dict, TrainConfig]]:
    """Every cell ``(name, swept values, config)``, all checked before anything runs: an unknown key
    or a bad value anywhere stops the sweep with nothing written."""
    cells = []
    for index, combination in enumerate(itertools.product(*(values for _, values in grid))):
        values = dict(zip((key for key, _ in grid), combination))
        overrides = [f"{key}={_format(value)}" for key, value in values.items()] + [f"seeds={seeds}"]
        try:
            config = load_train_config(config_path, overrides)
            config.algo_config()
            config.bc_config()
            variant = build(config.env, **config.env_options)
            if config.baselines is not None:
                variant.check_baselines(config.baselines)
        except (ConfigError, ValueError, TypeError) as error:
            raise UsageError(f"cell {values}: {error}") from None
        if config.eval_jobsets < 1:
            raise UsageError("a sweep compares held-out evaluations: eval_jobsets must be >= 1")
        cells.append((cell_name(index, values), values, config))
    return cells


def cell_record(values: dict, seeds: list[int], config: TrainConfig) -> dict:
    """What ``sweep_cell.json`` holds: the swept values, the seeds, and the cell's identity, the resolved
    config that decides its numbers (:func:`jaxsched.core.runs.result_config`) and its hash."""
    resolved = to_dict(config)
    return {"values": values, "seeds": seeds, "config_hash": config_hash(resolved), "config": result_config(resolved)}


def _recorded_identity(run_dir: Path) -> tuple[str | None, dict | None, dict | None]:
    """(hash, result config, ``sweep_cell.json``) a cell directory records; a cell of an older sweep has
    no hash, and its config is its ``config.json``'s (None before its training started)."""
    path = run_dir / CELL_FILE
    record = json.loads(path.read_text()) if path.exists() else None
    if record and "config_hash" in record:
        return record["config_hash"], record.get("config"), record
    if (run_dir / "config.json").exists():
        try:
            resolved = to_dict(train_config(read_run_config(run_dir)))
        except (ConfigError, CheckpointError) as error:
            raise UsageError(f"{run_dir}: its config cannot be read ({error})") from None
        return config_hash(resolved), result_config(resolved), record
    return None, None, record


def check_sweep_directory(out: Path, cells: list[tuple[str, dict, TrainConfig]], seeds: list[int]) -> None:
    """Refuses (``UsageError``, one line) an ``out`` that is a training run's folder, or whose cells were
    run with another config than this sweep's cell of the same number (another base config, grid or
    seeds: its results would be reported as this sweep's). Cells of older sweeps, which record no hash,
    are compared by their ``config.json``."""
    if (out / "config.json").exists() or (out / "checkpoints").is_dir():
        raise UsageError(f"{out} is a training run's folder (config.json, checkpoints/); give the sweep another --out")
    planned = {_cell_number(name): (name, values, config) for name, values, config in cells}
    for run_dir in sorted((out / "cells").glob("cell*")):
        if not run_dir.is_dir():
            continue
        number = _cell_number(run_dir.name)
        if number not in planned:
            raise UsageError(f"{out} holds another sweep: {run_dir.name} is not one of this sweep's {len(cells)} "
                             "cell(s); give another --out")
        name, values, config = planned[number]
        recorded_hash, recorded, record = _recorded_identity(run_dir)
        resolved = to_dict(config)
        if recorded_hash is not None:
            differing = [] if recorded_hash == config_hash(resolved) else \
                differing_keys(recorded or {}, result_config(resolved)) or ["(its config)"]
        elif record is not None:  # planned by an older sweep, not started
            differing = differing_keys(record.get("values", {}), values) + \
                ([] if record.get("seeds") == seeds else ["seeds"])
        else:
            continue
        if differing:
            raise UsageError(f"{out} holds a sweep run with another config: its {number} differs in "
                             f"{', '.join(differing)}; give another --out")
        if run_dir.name != name:
            raise UsageError(f"{out}/cells/{run_dir.name} is this sweep's {name} with its values written otherwise; "
                             "write them as before or give another --out")


def run_cell(config: TrainConfig, run_dir: Path, log=print) -> str:
    """Trains one cell unless it is finished; resumes a killed one. Returns what it did."""
    if (run_dir / "eval.json").exists():
        return "finished before"
    if (run_dir / "config.json").exists():
        checkpointer = Checkpointer(run_dir)
        step = checkpointer.latest_step()
        checkpointer.close()
        if step is not None:
            train(config, run_dir, resume=True, log=log)
            return f"resumed (newest checkpoint: iteration {step}; a damaged one is skipped for the newest intact)"
        for partial in ("config.json", "metrics.csv", "behaviour_cloning.json"):  # killed before its first
            (run_dir / partial).unlink(missing_ok=True)  # checkpoint: nothing to keep
        shutil.rmtree(run_dir / "checkpoints", ignore_errors=True)
    train(config, run_dir, log=log)
    return "trained"


# ------------------------------------------------------------------------------------------ summary
def _headline(config: TrainConfig):
    return build(config.env, **config.env_options).headline


def _metrics_by_seed(run_dir: Path, column: str) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    rows = read_csv_rows(run_dir / "metrics.csv")
    out = {}
    for seed in sorted({int(r["seed"]) for r in rows}):
        mine = [r for r in rows if int(r["seed"]) == seed]
        out[seed] = (np.array([int(r["iteration"]) for r in mine]), np.array([float(r[column]) for r in mine]))
    return out


def running_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Mean of the last ``window`` values at each point (fewer at the start), NaN-aware."""
    out = np.full(values.shape, np.nan)
    for i in range(len(values)):
        chunk = values[max(0, i - window + 1): i + 1]
        if np.any(np.isfinite(chunk)):
            out[i] = np.nanmean(chunk)
    return out


def first_reaching(iterations, curve, level: float, higher_is_better: bool):
    """The first iteration at which ``curve`` is at ``level`` or better, None if never."""
    reached = curve >= level if higher_is_better else curve <= level
    return int(iterations[np.argmax(reached)]) if np.any(reached) else None


def summary_rows(out: Path, grid_keys: list[str]) -> list[dict]:
    """One row per finished cell and seed (see the module doc)."""
    rows = []
    for run_dir in sorted((out / "cells").glob("*")):
        if not (run_dir / "eval.json").exists():
            continue
        config = train_config(read_run_config(run_dir))
        headline = _headline(config)
        policies = json.loads((run_dir / "eval.json").read_text())["policies"]
        baselines = [name for name in policies if not name.startswith("trained-")]
        curves = _metrics_by_seed(run_dir, headline.train_metric)
        swept = json.loads((run_dir / CELL_FILE).read_text())["values"]
        for seed in config.seeds:
            row = {**{key: _format(swept[key]) for key in grid_keys}, "seed": seed,
                   "run_dir": str(run_dir.relative_to(out))}
            for label, name in (("", f"trained-s{seed}"), ("sampled_", f"trained-s{seed}-sampled"),
                                *((f"{b}_", b) for b in baselines)):
                for metric, value in policies[name].items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        row[f"final_{label}{metric}"] = value
            iterations, values = curves[seed]
            smooth = running_mean(values, SMOOTHING)
            for b in baselines:
                row[f"iterations_to_{b}"] = first_reaching(iterations, smooth, policies[b][headline.eval_metric],
                                                           headline.higher_is_better)
            rows.append(row)
    return rows


def write_summary(out: Path, grid_keys: list[str]) -> list[dict]:
    rows = summary_rows(out, grid_keys)
    if not rows:
        return rows
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with open(out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})
    write_report(out, grid_keys, rows)
    return rows


def interval_words(seed_counts) -> tuple[str, str]:
    """(column label, sentence) for the intervals of cells with these seed counts: the 95% CI from
    :data:`stats.MIN_SEEDS_FOR_CI` seeds, the range (min, max) below, both where the cells differ."""
    few = [n < stats.MIN_SEEDS_FOR_CI for n in seed_counts]
    ci = f"95% stratified-bootstrap CI ({BOOTSTRAP_REPS} resamples)"
    rng = f"the seeds' range (min, max; a bootstrap CI needs {stats.MIN_SEEDS_FOR_CI} seeds)"
    if not any(few):
        return "95% CI", ci
    if all(few):
        return "range", rng
    under = f"under {stats.MIN_SEEDS_FOR_CI} seeds"
    return f"95% CI; range {under}", f"{ci}, or {under} {rng}"


def write_report(out: Path, grid_keys: list[str], rows: list[dict]) -> None:
    """report.md: per cell, IQM [95% CI] over seeds (the range under 5 seeds) of the trained policy's
    headline metric beside the baselines', finished / jobs where the family counts jobs; learning
    curves; performance profiles."""
    cells = list(dict.fromkeys(row["run_dir"] for row in rows))
    seed_counts = [sum(row["run_dir"] == cell for row in rows) for cell in cells]
    label, sentence = interval_words(seed_counts)
    band = {"95% CI": "95% bootstrap CI band", "range": "range (min-max) band"}.get(
        label, f"95% bootstrap CI band (range under {stats.MIN_SEEDS_FOR_CI} seeds)")
    first = train_config(read_run_config(out / cells[0]))
    headline = _headline(first)
    metric, better = headline.eval_metric, "higher" if headline.higher_is_better else "lower"
    varying = [k for k in grid_keys if len({str(row[k]) for row in rows}) > 1]
    envs = first.env if "env" not in varying else "each cell's env"
    lines = [f"# Sweep report: {envs}, {first.algo}", "",
             f"Held-out `{metric}` ({better} is better) of each seed's trained policy (greedy; sampled in its "
             f"own column): interquartile mean over seeds and {sentence}. Baselines are deterministic on the same held-out instances. Budget per seed: "
             f"{first.iterations} iterations.", ""]
    header = ["cell", *grid_keys, "seeds", f"trained IQM [{label}]", f"sampled IQM [{label}]"]
    jobs = "final_finished" in rows[0]
    if jobs:
        header += ["finished / jobs (trained, all seeds)", "finished / jobs (sampled)"]
    baselines = [k[len("iterations_to_"):] for k in rows[0] if k.startswith("iterations_to_")]
    header += [f"{b}" for b in baselines] + [f"seeds beating {b} (trained / sampled)" for b in baselines]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    final_by_cell, band_series = {}, {}
    for cell in cells:
        mine = [row for row in rows if row["run_dir"] == cell]
        trained = np.array([row[f"final_{metric}"] for row in mine], float)
        sampled = np.array([row[f"final_sampled_{metric}"] for row in mine], float)
        label = _legend_label(cell, mine[0], varying)
        final_by_cell[label] = trained
        cells_line = [_cell_number(cell), *(str(mine[0][k]) for k in grid_keys), str(len(mine))]
        for values in (trained, sampled):
            if np.all(np.isfinite(values)):
                s = stats.summarize_over_seeds(values, headline.higher_is_better, reps=BOOTSTRAP_REPS)
                cells_line.append(f"{s['iqm']:.3f} {stats.summary_interval(s).text('.3f')}")
            else:
                cells_line.append(f"{int(np.sum(~np.isfinite(values)))} seed(s) without a value")
        if jobs:
            for prefix in ("final_", "final_sampled_"):
                done, total = (sum(int(r[prefix + k]) for r in mine) for k in ("finished", "jobs"))
                cells_line.append(f"{done} / {total}" + (f" {MARK}" if done < total else ""))
        for b in baselines:
            cells_line.append(f"{mine[0][f'final_{b}_{metric}']:.3f}")
        for b in baselines:
            level = mine[0][f"final_{b}_{metric}"]
            counts = [_seeds_beating(mine, prefix, metric, level, headline.higher_is_better, jobs)
                      for prefix in ("final_", "final_sampled_")]
            cells_line.append(" / ".join(f"{count}/{len(mine)}" for count in counts))
        lines.append("| " + " | ".join(cells_line) + " |")
        band_series[label] = _curve_band(out / cell, headline.train_metric)
    unfinished = jobs and any(int(r[prefix + "finished"]) < int(r[prefix + "jobs"])
                              for r in rows for prefix in ("final_", "final_sampled_"))
    if unfinished:
        lines += ["", "**Some trained policies left jobs unfinished**: their means cover finished jobs only; "
                      "such a seed is not counted as beating any baseline.", "", LEGEND + "."]
    curves_with_bands(band_series, out / "learning_curves.png", "iteration",
                      f"training {headline.train_metric} (running mean of {SMOOTHING})",
                      title=f"{envs}, {first.algo}: IQM over seeds, {band}")
    performance_profiles(final_by_cell, out / "performance_profile.png", metric, headline.higher_is_better)
    lines += ["", "![learning curves](learning_curves.png)", "", "![performance profile](performance_profile.png)",
              "", "Rows: `summary.csv` (one per cell and seed)."]
    (out / "report.md").write_text("\n".join(lines) + "\n")


def _cell_number(cell: str) -> str:
    """``cells/cell003__env=bracis-9__...`` -> ``cell003``: the prefix that names a cell in tables and figures."""
    return cell.split("/")[-1].split("__")[0]


def _legend_label(cell: str, row: dict, varying: list[str]) -> str:
    """A cell in the figures: its number and the swept values that differ between the report's cells
    (the full names, with every swept value, are the table's; they overflow a legend)."""
    return " ".join([_cell_number(cell), *(f"{key}={row[key]}" for key in varying)])


def _seeds_beating(rows: list[dict], prefix: str, metric: str, level: float, higher_is_better: bool,
                   jobs: bool) -> int:
    """Seeds whose policy (``prefix``: greedy ``final_`` or ``final_sampled_``) beat ``level`` while
    finishing every job, or for VM placement ending every episode (a mean over fewer finished jobs
    has not won: :func:`jaxsched.core.unfinished.beats`)."""
    count = 0
    for row in rows:
        counted = (("finished", "jobs") if jobs else ()) + ("episodes_ended", "episodes")  # VM: episodes ended
        mine = {metric: float(row[prefix + metric]),
                **{k: int(row[prefix + k]) for k in counted if prefix + k in row}}
        count += beats(mine, {metric: level}, metric, higher_is_better)
    return count


def _curve_band(run_dir: Path, column: str):
    """(iterations, IQM, CI low, CI high) over seeds of the smoothed training curve (under 5 seeds the
    seeds' min and max: :func:`stats.seed_interval`)."""
    by_seed = _metrics_by_seed(run_dir, column)
    iterations = next(iter(by_seed.values()))[0]
    matrix = np.stack([running_mean(values, SMOOTHING) for _, values in by_seed.values()])
    centre, low, high = (np.full(len(iterations), np.nan) for _ in range(3))
    for i in range(len(iterations)):
        column_values = matrix[:, i]
        if np.all(np.isfinite(column_values)):
            centre[i] = stats.iqm(column_values)
            interval = stats.seed_interval(column_values, reps=200, seed=i)
            low[i], high[i] = interval.low, interval.high
    return iterations, centre, low, high


# ------------------------------------------------------------------------------------------ command
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.sweep", description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="the base YAML experiment config (required unless --report-only)")
    parser.add_argument("--seeds", default="0:8", help="a:b or a,b,c (default 0:8); vmapped in each cell")
    parser.add_argument("axes", nargs="*", help="swept keys: key=v1,v2,... (e.g. algo_options.lr=1e-3,3e-4)")
    parser.add_argument("--out", type=Path, required=True, help="the sweep directory")
    parser.add_argument("--shard", default="0/1", help="I/N: run cells I, I + N, I + 2N, ... (default all)")
    parser.add_argument("--workers", type=int, default=1, help="cells run at once, each in its own process")
    parser.add_argument("--no-summary", action="store_true", help=argparse.SUPPRESS)  # a worker's: the parent writes it
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite DIR's summary.csv, report.md and figures from its finished cells; train nothing")
    from_command_line = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.report_only:
        return _report_only(args.out)
    if args.config is None:
        print("error: --config is required (unless --report-only)", file=sys.stderr)
        return 2
    try:
        seeds = parse_seeds(args.seeds)
        grid = parse_grid(args.axes)
        shard, shards = parse_shard(args.shard)
        if args.workers < 1:
            raise UsageError(f"--workers {args.workers}: expected >= 1")
        if not args.config.exists():
            raise UsageError(f"config file not found: {args.config}")
        cells = plan(args.config, seeds, grid)
        check_sweep_directory(args.out, cells, seeds)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if args.workers > 1:
        return _run_workers(argv, args, cells, shard, shards)
    if from_command_line:
        restart_for_devices(max((config.devices for _, _, config in cells), key=_device_rank),
                            "jaxsched.sweep", argv)
    mine = [cell for index, cell in enumerate(cells) if index % shards == shard]
    print(f"sweep: {len(cells)} cell(s) x {len(seeds)} seeds; this process runs {len(mine)} (shard {shard}/{shards})")
    failed, name = [], None
    try:
        with StopOnSignal() as stop:  # between cells; a cell's training handles its own
            for number, (name, values, config) in enumerate(mine, start=1):
                if stop.requested:
                    raise Interrupted(stop.signum, "between cells")
                run_dir = args.out / "cells" / name
                print(f"[{number}/{len(mine)}] {name}", flush=True)
                run_dir.mkdir(parents=True, exist_ok=True)
                write_atomically(run_dir / CELL_FILE, json.dumps(cell_record(values, seeds, config), indent=1))
                (run_dir / "failed.json").unlink(missing_ok=True)
                try:
                    did = run_cell(config, run_dir)
                except FloatingPointError as error:  # a diverged cell is a result: record it, run the others
                    (run_dir / "failed.json").write_text(json.dumps({"values": values, "error": str(error)}, indent=1))
                    failed.append(name)
                    did = f"FAILED ({error})"
                print(f"[{number}/{len(mine)}] {name}: {did}", flush=True)
    except (ConfigError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Interrupted as stopped:
        sys.stdout.flush()
        print(f"interrupted by {signal.Signals(stopped.signum).name} in {name} (its last iteration boundary saved); "
              "the same sweep command continues the sweep", file=sys.stderr)
        return stopped.exit_status
    if failed:
        print(f"error: {len(failed)} cell(s) diverged (failed.json in each): {', '.join(failed)}", file=sys.stderr)
    if not args.no_summary:
        _write_summary(args.out, grid, len(cells))
    return 1 if failed else 0


def swept_keys(out: Path) -> list[str]:
    """The swept keys of the sweep in ``out``, in their order: the columns of its ``summary.csv`` before
    ``seed``, else the values each finished cell's ``sweep_cell.json`` records."""
    summary = out / "summary.csv"
    if summary.exists():
        with open(summary, newline="") as f:
            header = next(csv.reader(f), [])
        if "seed" in header:
            return header[:header.index("seed")]
    keys = {}
    for cell in sorted((out / "cells").glob(f"*/{CELL_FILE}")):
        keys.update(dict.fromkeys(json.loads(cell.read_text())["values"]))
    return list(keys)


def _report_only(out: Path) -> int:
    """``--report-only``: the summary and report of the cells already finished in ``out``."""
    if not (out / "cells").is_dir():
        print(f"error: {out / 'cells'} not found: not a sweep directory", file=sys.stderr)
        return 2
    rows = write_summary(out, swept_keys(out))
    if not rows:
        print(f"error: no finished cell (eval.json) under {out / 'cells'}", file=sys.stderr)
        return 2
    print(f"wrote {out / 'summary.csv'} and {out / 'report.md'} ({len({r['run_dir'] for r in rows})} cells)")
    return 0


def _write_summary(out: Path, grid, num_cells: int) -> None:
    rows = write_summary(out, [key for key, _ in grid])
    finished = len({row["run_dir"] for row in rows})
    print(f"wrote {out / 'summary.csv'} and {out / 'report.md'} ({finished} of {num_cells} cells finished)")


def _device_rank(spec) -> float:
    return float("inf") if spec == "auto" else spec


def _run_workers(argv: list[str], args, cells, shard: int, shards: int) -> int:
    """``--workers K``: K child sweeps, worker k taking cells shard + shards * (k + K j); then the summary.
    With ``CUDA_VISIBLE_DEVICES`` set, worker k sees only its k-th entry (one GPU per worker)."""
    workers = args.workers
    base = [a for i, a in enumerate(argv) if not (a.startswith(("--workers", "--shard"))
                                                  or (i and argv[i - 1] in ("--workers", "--shard")))]
    gpus = os.environ.get("CUDA_VISIBLE_DEVICES")
    gpu_ids = gpus.split(",") if gpus else []
    children = []
    for k in range(workers):
        environment = dict(os.environ)
        if gpu_ids:
            environment["CUDA_VISIBLE_DEVICES"] = gpu_ids[k % len(gpu_ids)]
        command = [sys.executable, "-m", "jaxsched.sweep", *base, "--shard", f"{shard + shards * k}/{shards * workers}",
                   "--no-summary"]
        children.append(subprocess.Popen(command, env=environment))
    with StopOnSignal() as stop:
        codes = _wait_forwarding(children, stop)
    if stop.requested:
        print(f"interrupted by {signal.Signals(stop.signum).name}: the workers saved their cells' checkpoints "
              "(the same sweep command continues it)", file=sys.stderr)
        return exit_status(stop.signum)
    if any(code == 2 for code in codes):
        return 2
    _write_summary(args.out, parse_grid(args.axes), len(cells))
    return 1 if any(codes) else 0


def _wait_forwarding(children: list[subprocess.Popen], stop: StopOnSignal) -> list[int]:
    """The workers' exit codes; a signal the parent receives reaches each worker once, as SIGTERM (a
    worker that also received it directly, as from Ctrl-C, ignores a second SIGTERM: it saves and stops)."""
    forwarded = False
    while any(child.poll() is None for child in children):
        if stop.requested and not forwarded:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            forwarded = True
        time.sleep(0.2)
    return [child.returncode for child in children]


if __name__ == "__main__":
    sys.exit(main())
