"""The grid paper's Tables 2-5 and Figs. 6-9 analogues: responsiveness W, queue delays, interactive
jobs served within 2 minutes, fair share over time, and the elastic pool over time, for the
heuristics and trained SARSA policies, on the same held-out windows.

    python -m jaxsched.studies.grid_tables --episodes 8 --seed 12345 \
        [--run rig-ora=runs/grid_esn --run ela-ora-0.5=runs/grid_elastic ...] \
        [--speedup ela-ora-0.5=rig-ora ...] \
        [--swf FILE --multi-core split --option num_cores=256] --out DIR

Each ``--run NAME=DIR`` (or ``NAME=DIR@STEP``: that iteration's checkpoint) is a training run directory: every seed's greedy policy is evaluated on
that run's own env (runtime model, rigid or elastic) with the study's windows (``held_out(episodes,
seed)``, drawn from ``PRNGKey(seed)``); a run whose training windows those are (its ``jobsets_seed``
is the study's seed) is marked † (``instances`` in its row says what each side drew from). Its row
gives the mean over seeds of each number and, for the headline numbers (:data:`OVER_SEEDS`), the IQM
over seeds with a 95% bootstrap CI (under 5 seeds the seeds' range, labelled range). An elastic run
is evaluated with its trained queue capacity and, where some waiting job would not fit, again with
the whole window listable (as the fixed pools are); ``queue peak`` and ``overflow`` (decisions with a
job beyond the capacity: 0 in every table written) say so. ``--speedup ELASTIC=RIGID`` adds the
paper's Table 5: the interactive queue-delay speed-up ``1 - wait(ELASTIC) / wait(RIGID)``.
``--rigid-rows FILE`` takes the trained rigid rows from an earlier ``grid_tables.json`` on the same
windows (its episodes, seed and options must match, and its heuristic rows must equal the ones
computed here), so elastic runs can be compared with rigid ones whose checkpoints are not at hand;
each such row records ``rows_from``.
Writes ``DIR/grid_tables.json``, ``DIR/grid_tables.md`` and the plots (Figs. 4-10 analogues: W and
queue-delay distributions of interactive jobs, fairness, the elastic pool and utilisation).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

import jax
import numpy as np

from jaxsched.core import instances as instance_ranges
from jaxsched.core.plotting import panels, plt, save_figure
from jaxsched.core.stats import summarize_over_seeds, summary_interval
from jaxsched.core.unfinished import count_text, legend, marked
from jaxsched.envs.grid.metrics import delivered_shares
from jaxsched.envs.grid.types import INTERACTIVE
from jaxsched.errors import InputError, UsageError
from jaxsched.experiment import load_run, trained_policies
from jaxsched.registry import build

PAPER = {  # Table 2 (W) and the text (queue delay, % under 2 minutes), docs/semantics/grid.md
    "native (paper)": {"interactive_W_mean": 0.628, "interactive_W_std": 0.418, "batch_W_mean": 0.830,
                       "batch_W_std": 0.265, "interactive_wait_mean": 2756, "interactive_wait_under_120s": 0.63},
    "RL rigid (paper)": {"interactive_W_mean": 0.866, "interactive_W_std": 0.314, "batch_W_mean": 0.892,
                         "batch_W_std": 0.228, "interactive_wait_mean": 1096, "interactive_wait_under_120s": 0.86,
                         "interactive_W_over_0.9": 0.82},
    "RL elastic (paper)": {"interactive_W_mean": 0.96, "batch_W_mean": 0.96, "interactive_wait_under_120s": 0.95,
                           "interactive_W_over_0.9": 0.94},
}
COLUMNS = (("interactive_W_mean", "W int"), ("interactive_W_std", "± "), ("batch_W_mean", "W batch"),
           ("batch_W_std", "± "), ("interactive_wait_mean", "wait int (s)"), ("interactive_wait_median", "median"),
           ("batch_wait_mean", "wait batch (s)"), ("interactive_wait_under_120s", "int < 2 min"),
           ("interactive_W_over_0.9", "int W > 0.9"), ("fairness", "F"),
           ("final_fairness", "F end"), ("utilisation", "util"),
           ("mean_pool", "pool"), ("pool_at_bounds", "at min / max pool"), ("queue_peak", "queue peak"),
           ("hidden_decisions", "overflow"))
INTEGER_COLUMNS = ("mean_pool", "queue_peak", "hidden_decisions")
OVER_SEEDS = (("interactive_W_mean", "W int", True), ("interactive_W_over_0.9", "int W > 0.9", True),
              ("interactive_wait_mean", "wait int (s)", False), ("interactive_wait_under_120s", "int < 2 min", True),
              ("batch_W_mean", "W batch", True), ("fairness", "F", True), ("utilisation", "util", True))


# fixed pools with the best rigid job rule: what a pool of the paper's preferred size (~90) or the largest allows
# when the job choice is done well (the elastic learner's W beside them tells the pool's part from the job choice's)
ELASTIC_REFERENCES = ("fixed_90_sjf", "fixed_120_sjf")


def parse_runs(items) -> dict[str, tuple[Path, int | None]]:
    """``{name: (run directory, checkpoint step or None: the newest)}`` of ``NAME=RUN_DIR[@STEP]``."""
    runs = {}
    for item in items or ():
        name, sep, path = item.partition("=")
        path, at, step = path.partition("@")
        if not sep or not name or not path or (at and not step.isdigit()):
            raise UsageError(f"--run takes NAME=RUN_DIR or NAME=RUN_DIR@STEP, got {item!r}")
        if not (Path(path) / "config.json").exists():
            raise UsageError(f"{path} is not a training run directory (no config.json)")
        runs[name] = (Path(path), int(step) if at else None)
    return runs


def evaluate_group(env: str, options: dict, episodes: int, seed: int, policies: list[str], swf: str | None):
    """Heuristics on ``env``: ``(variant, windows, tables, summaries)``."""
    variant = build(env, **options)
    if swf:
        batched, _ = variant.instances_from_swf(swf, max_windows=episodes)
    else:
        batched, _ = variant.held_out(episodes, seed)
    tables = variant.evaluate({p: variant.heuristic(p) for p in policies}, batched, jax.random.PRNGKey(seed + 1))
    return variant, batched, tables, {p: table_summary(variant, t) for p, t in tables.items()}


def table_summary(variant, table: dict) -> dict:
    """A policy's numbers on the study's windows: the variant's summary, the delay tail and, elastic, the
    share of its dispatches at the smallest or largest pool (a learner's pool choice at its bounds)."""
    summary = variant.summarize(table) | delay_tail(table)
    if variant.env.elastic:
        summary["pool_at_bounds"] = pool_at_bounds(table, variant.env.pool_sizes)
    return summary


def pool_at_bounds(table: dict, pool_sizes) -> float:
    """The share of the kept jobs dispatched while the pool was at its smallest or largest size."""
    dispatched = table["kept"] & (table["start"] >= 0)
    pool = table["pool"][dispatched]
    return float(np.mean((pool == min(pool_sizes)) | (pool == max(pool_sizes)))) if pool.size else float("nan")


def delay_tail(table: dict) -> dict:
    """The interactive queue delay's tail (Table 3 gives only its mean and std): the 99th percentile
    and the fraction of interactive jobs that waited over an hour."""
    waits = interactive_values([table], "wait")
    if not waits.size:
        return {"interactive_wait_p99": float("nan"), "interactive_wait_over_3600s": float("nan")}
    return {"interactive_wait_p99": float(np.percentile(waits, 99)),
            "interactive_wait_over_3600s": float(np.mean(waits > 3600))}


def _cache_file(cache: Path, run_dir: Path, step: int | None, options: dict, episodes: int, seed: int) -> Path:
    """Where ``--cache`` keeps a run's per-seed job tables: keyed by the run (its directory, config and
    checkpoints), the options and the windows."""
    checkpoints = sorted(p.name for p in (run_dir / "checkpoints").glob("*")) if (run_dir / "checkpoints").is_dir() else []
    key = json.dumps([str(run_dir.resolve()), (run_dir / "config.json").read_text(), checkpoints, step, options,
                      episodes, seed], sort_keys=True)
    return cache / f"{run_dir.name}{'' if step is None else f'@{step}'}-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"


def _trained_iterations(run_dir: Path, step: int | None = None) -> int | None:
    """``step``, or else the last iteration in the run's ``metrics.csv`` (the newest checkpoint's)."""
    path = run_dir / "metrics.csv"
    if step is not None:
        return step
    if not path.exists():
        return None
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return max(int(r["iteration"]) for r in rows) if rows else None


def evaluate_run(run_dir: Path, options: dict, batched, episodes: int, seed: int, cache: Path | None = None,
                 step: int | None = None):
    """Every seed's greedy policy of a run (its newest checkpoint, or that of iteration ``step``) on the
    study's windows, on the run's own env: ``(variant, per-seed tables, row)``. With ``cache``, the
    per-seed tables are read from (or written to) a file there, so that a run is evaluated once across
    invocations."""
    experiment, states = load_run(run_dir, step=step)
    saved = dict(experiment.config.env_options)
    variant = build(experiment.config.env, **{**saved, **options})
    instances = instance_ranges.record(
        instance_ranges.training_instances(variant, experiment.config, experiment.algo),
        instance_ranges.held_out_instances(variant, episodes, seed))
    stored = _cache_file(cache, run_dir, step, options, episodes, seed) if cache is not None else None
    if stored is not None and stored.exists():
        with np.load(stored) as data:
            capacity = int(data["queue_capacity"])
            tables = [{key.partition("/")[2]: data[key] for key in data.files if key.startswith(f"{s}/")}
                      for s in range(len(experiment.config.seeds))]
        if capacity != variant.env.queue_capacity:
            variant = build(experiment.config.env, **{**saved, **options, "queue_capacity": capacity})
        return _run_row(experiment, variant, tables, instances, run_dir, step)
    key = jax.random.PRNGKey(seed + 1)
    final_states = greedy_episodes(experiment, variant)
    tables = []
    for s in range(len(experiment.config.seeds)):
        params = jax.tree.map(lambda x: x[s], states.params)
        try:
            table = variant.table_of(final_states(params, batched, key), "trained")
        except InputError:
            if not variant.env.elastic or "queue_capacity" in options:
                raise
            # a small pool queues more than the trained capacity: list the whole window, as the fixed pools do
            variant = build(experiment.config.env, **{**saved, **options, "queue_capacity": variant.num_jobs})
            final_states = greedy_episodes(experiment, variant)
            table = variant.table_of(final_states(params, batched, key), "trained")
        tables.append(table)
    if stored is not None:
        stored.parent.mkdir(parents=True, exist_ok=True)
        np.savez(stored, queue_capacity=variant.env.queue_capacity,
                 **{f"{s}/{key}": value for s, table in enumerate(tables) for key, value in table.items()})
    return _run_row(experiment, variant, tables, instances, run_dir, step)


def greedy_episodes(experiment, variant):
    """``final_states(params, batched, key)``: the run's greedy policy with ``params`` played on ``variant``
    (its env: the policy reads every job listed there). The parameters are an argument, not constants of
    a closure, so the episode scan compiles once for all of a run's seeds."""
    @jax.jit
    def final_states(params, batched, key):
        policy = trained_policies(experiment, params, True, variant.env)
        return variant.run_episodes(policy, batched, key)[0]
    return final_states


def _run_row(experiment, variant, tables: list[dict], instances: dict, run_dir: Path, step: int | None):
    """``(variant, tables, row)``: the means over seeds, the over-seeds summaries and the run's facts."""
    per_seed = [table_summary(variant, table) for table in tables]
    row = {key: float(np.mean([r[key] for r in per_seed])) for key in per_seed[0]}
    for key in ("queue_peak", "hidden_decisions"):
        if key in per_seed[0]:
            row[key] = max(r[key] for r in per_seed)  # the worst seed: overflow is 0 for every seed
    row["seeds"] = len(per_seed)
    row["queue_capacity"] = int(variant.env.queue_capacity)
    row["candidates"] = variant.env.candidate_rule
    row["runtime_model"] = variant.env.runtime_model
    row["per_seed"] = {str(s): r for s, r in zip(experiment.config.seeds, per_seed)}
    row["over_seeds"] = {key: summarize_over_seeds([r[key] for r in per_seed], higher_is_better=higher)
                         for key, _, higher in OVER_SEEDS if key in per_seed[0]}
    row["interactive_W_over_seeds"] = row["over_seeds"]["interactive_W_mean"]
    row["iterations"] = int(experiment.config.iterations)
    row["trained_iterations"] = _trained_iterations(run_dir, step)
    row["decisions"] = int(row["trained_iterations"] or row["iterations"]) * _decisions_per_iteration(experiment.algo)
    row["instances"] = instances
    row[instance_ranges.FLAG] = not instances["disjoint"]
    return variant, tables, row


def _decisions_per_iteration(algo) -> int:
    return int(getattr(algo, "num_envs", 1)) * int(getattr(algo, "rollout_steps", 1))


def _interval_text(seeds: dict) -> str:
    """``95% CI [low, high]`` from 5 seeds, ``range [low, high]`` (min, max) below."""
    interval = summary_interval(seeds)
    return f"{interval.label} [{interval.low:.3f}, {interval.high:.3f}]"


def rigid_rows_from(path: Path, results: dict, heuristics: dict[str, dict]) -> dict[str, dict]:
    """The trained rigid rows of an earlier study (``--rigid-rows``), once its windows and its heuristic
    rows are shown to be this study's."""
    try:
        earlier = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"--rigid-rows {path}: cannot read a grid_tables.json ({error})") from error
    for key in ("episodes", "seed", "options", "swf"):
        if earlier.get(key) != results[key]:
            raise UsageError(f"--rigid-rows {path}: its {key} is {earlier.get(key)!r}, this study's {results[key]!r}")
    for name, row in heuristics.items():
        theirs = earlier.get("rigid", {}).get(name)
        if theirs is None or any(theirs.get(k) != row[k] for k in ("interactive_W_mean", "batch_W_mean", "finished")):
            raise UsageError(f"--rigid-rows {path}: its {name!r} row differs from this study's (another env model "
                             "or windows): re-run the rigid study instead")
    return {name: {**row, "rows_from": str(path)} for name, row in earlier["rigid"].items() if name not in heuristics}


def markdown(title: str, rows: dict[str, dict], paper: dict | None = None) -> str:
    # the columns some row has (a rigid table has no pool bounds)
    columns = [(key, label) for key, label in COLUMNS if any(key in row for row in rows.values())]
    head = "| policy | " + " | ".join(label for _, label in columns) + " | finished / jobs |"
    lines = [f"### {title}", "", head, "|" + "---|" * (len(columns) + 2)]

    def cell(value, key):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "–"
        return f"{value:.0f}" if "wait_mean" in key or "wait_median" in key or key in INTEGER_COLUMNS else \
            f"{value:.3f}"

    for name, row in rows.items():
        seeds = row.get("interactive_W_over_seeds")
        shown = instance_ranges.marked(marked(name, row), row)
        label = shown if not seeds else (
            f"{shown} ({seeds['n']} seeds; IQM W int {seeds['iqm']:.3f}, "
            f"{_interval_text(seeds)})")
        lines.append(f"| {label} | " + " | ".join(cell(row.get(k), k) for k, _ in columns) +
                     f" | {count_text(row.get('finished', 0))} / {count_text(row.get('jobs', 0))} |")
    for name, row in (paper or {}).items():
        lines.append(f"| {name} | " + " | ".join(cell(row.get(k), k) for k, _ in columns) + " | |")
    marks = legend(rows.values()) + instance_ranges.legend(rows.values())
    lines += ["", *marks] if marks else []
    runs = {name: row for name, row in rows.items() if row.get("over_seeds")}
    if runs:
        keys = [(key, label) for key, label, _ in OVER_SEEDS if all(key in row["over_seeds"] for row in runs.values())]
        lines += ["", "Trained policies over seeds: IQM [interval] (one number per seed: its mean over the windows)", "",
                  "| policy | seeds | iterations | " + " | ".join(label for _, label in keys) + " |",
                  "|" + "---|" * (len(keys) + 3)]
        for name, row in runs.items():
            cells = []
            for key, _ in keys:
                over = row["over_seeds"][key]
                interval = summary_interval(over)
                digits = 0 if "wait_mean" in key else 3
                cells.append(f"{over['iqm']:.{digits}f} {interval.label} [{interval.low:.{digits}f}, "
                             f"{interval.high:.{digits}f}]")
            iterations = row.get("trained_iterations") or row["iterations"]
            lines.append(f"| {name} | {row['seeds']} | {iterations} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


PAPER_DELAYS = {"rig-ora-0.5 (paper)": (1096, 5137), "rig-ora-1 (paper)": (862, 3505), "rig-est-0.5 (paper)": (1087, 4838),
                "rig-est-1 (paper)": (1152, 5417), "native (paper)": (2756, 8844)}


def delay_markdown(title: str, rows: dict[str, dict], paper: dict | None = None) -> str:
    """The paper's Table 3 (mean and std of the interactive queue delay) with the median, the tail and
    the fraction served within 2 minutes (Fig. 7)."""
    lines = [f"### {title}", "", "| policy | mean (s) | std (s) | median (s) | p99 (s) | > 1 h | < 2 min |",
             "|---|---|---|---|---|---|---|"]
    for name, row in rows.items():
        lines.append(f"| {name} | {row['interactive_wait_mean']:.0f} | {row['interactive_wait_std']:.0f} | "
                     f"{row['interactive_wait_median']:.0f} | {row.get('interactive_wait_p99', float('nan')):.0f} | "
                     f"{row.get('interactive_wait_over_3600s', float('nan')):.3f} | "
                     f"{row['interactive_wait_under_120s']:.3f} |")
    for name, (mean, std) in (paper or {}).items():
        lines.append(f"| {name} | {mean} | {std} | – | – | – | – |")
    return "\n".join(lines) + "\n"


def speedup_markdown(pairs: dict[str, str], elastic: dict, rigid: dict) -> tuple[str, dict]:
    """The paper's Table 5: the interactive queue-delay speed-up of each elastic run over a rigid one,
    ``1 - wait(elastic) / wait(rigid)`` (mean waits, each the mean over seeds)."""
    lines = ["### Interactive queue-delay speed-up, elastic over rigid (paper Table 5: 45%, 73%, 58%, 64%)", "",
             "| elastic | rigid | wait int elastic (s) | wait int rigid (s) | speed-up |", "|---|---|---|---|---|"]
    out = {}
    for e_name, r_name in pairs.items():
        if e_name not in elastic or r_name not in rigid:
            raise UsageError(f"--speedup {e_name}={r_name}: need an elastic row {e_name} and a rigid row {r_name}")
        e_wait, r_wait = elastic[e_name]["interactive_wait_mean"], rigid[r_name]["interactive_wait_mean"]
        value = 1.0 - e_wait / r_wait if r_wait > 0 else float("nan")
        out[e_name] = {"rigid": r_name, "elastic_wait": e_wait, "rigid_wait": r_wait, "speedup": value}
        shown = "–" if np.isnan(value) else f"{100 * value:.0f}%"
        lines.append(f"| {e_name} | {r_name} | {e_wait:.0f} | {r_wait:.0f} | {shown} |")
    return "\n".join(lines) + "\n", out


def interactive_values(tables: list[dict], key: str) -> np.ndarray:
    """``key`` (W or wait) of the kept, finished interactive jobs of all the tables (seeds) pooled."""
    values = [t[key][t["kept"] & t["finished"] & (t["class"] == INTERACTIVE)] for t in tables]
    return np.concatenate(values) if values else np.zeros(0)


def plot_distributions(groups: dict[str, dict[str, list[dict]]], out: Path) -> None:
    """Figs. 4-5 and 8 (P(W > x), interactive jobs) and Figs. 7 and 10 (P(wait <= x), interactive
    jobs), one panel per group (rigid, elastic); every seed's jobs pooled."""
    for key, path, xlabel, ylabel in (("W", "grid_W_icdf.png", "W", "P(W > x), interactive jobs"),
                                      ("wait", "grid_wait_cdf.png", "queue delay (s)",
                                       "P(delay <= x), interactive jobs")):
        fig, axes = plt.subplots(1, len(groups), figsize=(6 * len(groups), 4), squeeze=False)
        for ax, (group, tables) in zip(axes[0], groups.items()):
            for name, policy_tables in tables.items():
                values = np.sort(interactive_values(policy_tables, key))
                if not values.size:
                    continue
                below = np.arange(1, values.size + 1) / values.size
                if key == "W":
                    ax.plot(values, 1.0 - below, label=name, linewidth=0.9)
                else:
                    ax.plot(np.maximum(values, 1.0), below, label=name, linewidth=0.9)
            if key == "W":
                ax.axvline(0.9, color="k", linestyle=":", linewidth=0.6)
            else:
                ax.set_xscale("log")
                ax.axvline(120, color="k", linestyle=":", linewidth=0.6)
            ax.set_title(group)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.legend(fontsize=7)
        fig.tight_layout()
        save_figure(fig, out / path, dpi=110)


def fairness_series(table: dict) -> tuple[np.ndarray, np.ndarray]:
    """Episode 0: ``(election times in days, F_j at each election)`` (Eq. 2), in election order."""
    mine = (table["episode"] == table["episode"].min()) & (table["start"] >= 0)
    order = np.argsort(table["start"][mine], kind="stable")
    return table["start"][mine][order] / 86400, table["F"][mine][order]


def plot_fairness(variant, tables: dict, path: Path) -> None:
    """The paper's Fig. 6: each policy's fairness utility F_j at its elections minus the native
    scheduler's (``fifo``; interpolated at the same times) over the simulated time, episode 0; right:
    each VO's delivered share over time against its target, per policy."""
    names = list(tables)
    fig, axes = plt.subplots(1, len(names) + 1, figsize=(4.5 * (len(names) + 1), 3.5), squeeze=False)
    base_t, base_f = fairness_series(tables["fifo"]) if "fifo" in tables else (None, None)
    ax = axes[0][0]
    for name in names:
        t, f = fairness_series(tables[name])
        if base_t is not None and name != "fifo" and t.size and base_t.size:
            ax.plot(t, f - np.interp(t, base_t, base_f), label=name, linewidth=0.8)
    ax.axhline(0.0, color="k", linewidth=0.5)
    ax.set_xlabel("days")
    ax.set_ylabel("F_j − F_j(fifo)")
    ax.set_title("fairness utility at each election vs fifo")
    ax.legend(fontsize=7)
    for ax, name in zip(axes[0][1:], names):
        times, shares = delivered_shares(tables[name], variant.env.num_vos)
        for k in range(variant.env.num_vos):
            ax.plot(times / 86400, shares[:, k], color=f"C{k}", label=f"VO {k}")
            ax.axhline(variant.env.vo_shares[k], color=f"C{k}", linestyle=":")
        ax.set_title(name)
        ax.set_xlabel("days")
        ax.set_ylabel("delivered share (dotted: target)")
    axes[0][1].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)


def pool_series(table: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Episode 0: ``(dispatch times, pool size after each dispatch, utilisation so far)``."""
    mine = (table["episode"] == 0) & (table["start"] >= 0)
    order = np.argsort(table["start"][mine], kind="stable")
    start, pool = table["start"][mine][order], table["pool"][mine][order]
    finish = table["finish"][mine][order]
    provisioned = np.concatenate([[0.0], np.cumsum(np.diff(start) * pool[:-1])])
    done_work = np.array([np.sum(np.clip(np.minimum(finish, t) - start, 0, None)) for t in start])
    utilisation = np.where(provisioned > 0, done_work / np.maximum(provisioned, 1e-9), np.nan)
    return start / 86400, pool, utilisation


def plot_pools(tables: dict, out: Path) -> None:
    series = {name: pool_series(t) for name, t in tables.items()}
    panels(out / "grid_elastic_pool.png", "days", "cores in service",
           {name: (x, pool) for name, (x, pool, _) in series.items()}, title="elastic pool size over time (episode 0)")
    panels(out / "grid_elastic_utilisation.png", "days", "utilisation so far",
           {name: (x, u) for name, (x, _, u) in series.items()}, title="utilisation over time (episode 0)")


def main(argv=None) -> int:
    """``python -m jaxsched.studies.grid_tables``: the grid paper's tables for heuristics and runs."""
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.grid_tables", description=main.__doc__)
    parser.add_argument("--episodes", type=int, default=8, help="held-out windows (or SWF windows)")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--run", action="append",
                        help="NAME=RUN_DIR[@STEP] (repeatable): a trained SARSA run (@STEP: that iteration's checkpoint)")
    parser.add_argument("--speedup", action="append", default=[],
                        help="ELASTIC=RIGID (repeatable; run names): the queue-delay speed-up table")
    parser.add_argument("--swf", help="windows of this SWF trace (a file or dataset:NAME) instead of synthetic ones")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE env option (e.g. num_jobs=2000)")
    parser.add_argument("--cache", type=Path, help="keep each run's per-seed job tables here (evaluate a run once)")
    parser.add_argument("--skip-elastic", action="store_true", help="rigid table only")
    parser.add_argument("--rigid-rows", type=Path,
                        help="an earlier grid_tables.json on the same windows: its trained rigid rows join this table")
    parser.add_argument("--out", type=Path, default=Path("runs/grid_tables"))
    args = parser.parse_args(argv)
    try:
        runs = parse_runs(args.run)
        pairs = dict(item.partition("=")[::2] for item in args.speedup)
        if any(not e or not r for e, r in pairs.items()):
            raise UsageError(f"--speedup takes ELASTIC=RIGID, got {args.speedup}")
        options = {}
        for item in args.option:
            key, sep, value = item.partition("=")
            if not sep:
                raise UsageError(f"--option takes KEY=VALUE, got {item!r}")
            options[key] = json.loads(value) if value[:1] in "[{0123456789.-" else value
        if args.swf:
            options.update(swf=args.swf)
        if args.episodes < 1:
            raise UsageError(f"--episodes must be >= 1, got {args.episodes}")
        results, text = {"episodes": args.episodes, "seed": args.seed, "options": options, "swf": args.swf}, []
        variant, batched, tables, rows = evaluate_group("grid", options, args.episodes, args.seed,
                                                        ["fifo", "edf", "sjf", "fairshare"], args.swf)
        fairness_tables = {"fifo": tables["fifo"], "fairshare": tables["fairshare"]}
        elastic_rows, pool_tables = {}, {}
        distributions = {"rigid": {p: [tables[p]] for p in ("fifo", "sjf")}, "elastic": {}}
        for name, (run_dir, step) in runs.items():
            run_variant, run_tables, row = evaluate_run(run_dir, dict(options), batched, args.episodes, args.seed,
                                                         args.cache, step)
            (elastic_rows if run_variant.env.elastic else rows)[name] = row
            (pool_tables if run_variant.env.elastic else fairness_tables)[name] = run_tables[0]
            distributions["elastic" if run_variant.env.elastic else "rigid"][name] = run_tables
        if args.rigid_rows:
            rows.update(rigid_rows_from(args.rigid_rows, results, {p: rows[p] for p in ("fifo", "edf", "sjf", "fairshare")}))
        results["rigid"] = rows
        read = f"; the trained rows read from {args.rigid_rows} (same windows, heuristic rows equal)" \
            if args.rigid_rows else ""
        text.append(markdown(f"Rigid site ({variant.env.num_cores} cores), {args.episodes} windows of "
                             f"{variant.num_jobs} jobs (first/last {variant.exclude} excluded){read}", rows,
                             None if args.swf else {k: PAPER[k] for k in ("native (paper)", "RL rigid (paper)")}))
        text.append(delay_markdown("Interactive queue delay, rigid (Table 3, Fig. 7)", rows,
                                   None if args.swf else PAPER_DELAYS))
        args.out.mkdir(parents=True, exist_ok=True)  # once the inputs have proved usable
        plot_fairness(variant, fairness_tables, args.out / "grid_fairness.png")
        if not args.skip_elastic:
            # the fixed pools run with the whole window listable: a 30-core pool at the rigid site's load
            # queues thousands of jobs (up to ~4400 of 9500 under FIFO), beyond the default capacity
            e_options = {"queue_capacity": options.get("num_jobs", 9500), **options}
            elastic, _, e_tables, e_rows = evaluate_group("grid-elastic", e_options, args.episodes, args.seed,
                                                          ["fixed_30", "fixed_81", "fixed_120", "queue_proportional",
                                                           *ELASTIC_REFERENCES],
                                                          args.swf)
            e_rows.update(elastic_rows)
            results["elastic"] = e_rows
            text.append(markdown(f"Elastic pool (sizes {elastic.env.pool_sizes})", e_rows,
                                 None if args.swf else {"RL elastic (paper)": PAPER["RL elastic (paper)"]}))
            distributions["elastic"] = {"fixed_81": [e_tables["fixed_81"]],
                                        "queue_proportional": [e_tables["queue_proportional"]],
                                        **distributions["elastic"]}
            if pairs:
                speedup_text, results["speedup"] = speedup_markdown(pairs, e_rows, rows)
                text.append(speedup_text)
            plot_pools({"queue_proportional": e_tables["queue_proportional"], "fixed_81": e_tables["fixed_81"],
                        **pool_tables}, args.out)
        elif pairs:
            raise UsageError("--speedup needs the elastic table (drop --skip-elastic)")
        plot_distributions({group: tables for group, tables in distributions.items() if tables}, args.out)
    except (UsageError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    (args.out / "grid_tables.json").write_text(json.dumps(results, indent=1))
    (args.out / "grid_tables.md").write_text("\n".join(text))
    print("\n".join(text))
    print(f"wrote {args.out / 'grid_tables.json'}, {args.out / 'grid_tables.md'} and plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
