"""The grid paper's Tables 2-5 and Figs. 6-9 analogues: responsiveness W, queue delays, interactive
jobs served within 2 minutes, fair share over time, and the elastic pool over time, for the
heuristics and trained SARSA policies, on the same held-out windows.

    python -m jaxsched.studies.grid_tables --episodes 8 --seed 12345 \
        [--run rig-ora=runs/grid_esn --run ela-ora-0.5=runs/grid_elastic ...] \
        [--swf FILE --multi-core split --option num_cores=256] --out DIR

Each ``--run NAME=DIR`` is a training run directory: every seed's greedy policy is evaluated on
that run's own env (runtime model, rigid or elastic) with the study's windows; its row gives the
mean over seeds of each number and the IQM of interactive W over seeds with a 95% bootstrap CI (under 5 seeds the seeds' range, labelled
range).
Writes ``DIR/grid_tables.json``, ``DIR/grid_tables.md`` and the plots.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import jax
import matplotlib.pyplot as plt
import numpy as np

from jaxsched.core.plotting import curves
from jaxsched.core.stats import summarize_over_seeds, summary_interval
from jaxsched.core.unfinished import count_text, legend, marked
from jaxsched.envs.grid.metrics import delivered_shares
from jaxsched.errors import UsageError
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
           ("mean_pool", "pool"))


def parse_runs(items) -> dict[str, Path]:
    runs = {}
    for item in items or ():
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--run takes NAME=RUN_DIR, got {item!r}")
        if not (Path(path) / "config.json").exists():
            raise UsageError(f"{path} is not a training run directory (no config.json)")
        runs[name] = Path(path)
    return runs


def evaluate_group(env: str, options: dict, episodes: int, seed: int, policies: list[str], swf: str | None):
    """Heuristics on ``env``: ``(variant, windows, tables, summaries)``."""
    variant = build(env, **options)
    if swf:
        batched, _ = variant.instances_from_swf(swf, max_windows=episodes)
    else:
        batched, _ = variant.held_out(episodes, seed)
    tables = variant.evaluate({p: variant.heuristic(p) for p in policies}, batched, jax.random.PRNGKey(seed + 1))
    return variant, batched, tables, {p: variant.summarize(t) for p, t in tables.items()}


def evaluate_run(run_dir: Path, options: dict, batched, seed: int):
    """Every seed's greedy policy of a run on the study's windows, on the run's own env."""
    experiment, states = load_run(run_dir)
    saved = dict(experiment.config.env_options)
    variant = build(experiment.config.env, **{**saved, **options})
    per_seed, tables = [], []
    for s in range(len(experiment.config.seeds)):
        params = jax.tree.map(lambda x: x[s], states.params)
        policy = trained_policies(experiment, params, greedy=True)
        table = variant.evaluate({"trained": policy}, batched, jax.random.PRNGKey(seed + 1))["trained"]
        tables.append(table)
        per_seed.append(variant.summarize(table))
    row = {key: float(np.mean([r[key] for r in per_seed])) for key in per_seed[0]}
    row["seeds"] = len(per_seed)
    row["interactive_W_over_seeds"] = summarize_over_seeds([r["interactive_W_mean"] for r in per_seed])
    row["iterations"] = int(experiment.config.iterations)
    row["decisions"] = int(experiment.config.iterations) * _decisions_per_iteration(experiment.algo)
    return variant, tables[0], row


def _decisions_per_iteration(algo) -> int:
    return int(getattr(algo, "num_envs", 1)) * int(getattr(algo, "rollout_steps", 1))


def _interval_text(seeds: dict) -> str:
    """``95% CI [low, high]`` from 5 seeds, ``range [low, high]`` (min, max) below."""
    interval = summary_interval(seeds)
    return f"{interval.label} [{interval.low:.3f}, {interval.high:.3f}]"


def markdown(title: str, rows: dict[str, dict], paper: dict | None = None) -> str:
    head = "| policy | " + " | ".join(label for _, label in COLUMNS) + " | finished / jobs |"
    lines = [f"### {title}", "", head, "|" + "---|" * (len(COLUMNS) + 2)]

    def cell(value, key):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "–"
        return f"{value:.0f}" if "wait_mean" in key or "wait_median" in key or key == "mean_pool" else f"{value:.3f}"

    for name, row in rows.items():
        seeds = row.get("interactive_W_over_seeds")
        label = marked(name, row) if not seeds else (
            f"{marked(name, row)} ({seeds['n']} seeds; IQM W int {seeds['iqm']:.3f}, "
            f"{_interval_text(seeds)})")
        lines.append(f"| {label} | " + " | ".join(cell(row.get(k), k) for k, _ in COLUMNS) +
                     f" | {count_text(row.get('finished', 0))} / {count_text(row.get('jobs', 0))} |")
    for name, row in (paper or {}).items():
        lines.append(f"| {name} | " + " | ".join(cell(row.get(k), k) for k, _ in COLUMNS) + " | |")
    marks = legend(rows.values())
    lines += ["", *marks] if marks else []
    return "\n".join(lines) + "\n"


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
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
    curves(out / "grid_elastic_pool.png", "days", "cores in service",
           {name: (x, pool) for name, (x, pool, _) in series.items()}, title="elastic pool size over time (episode 0)")
    curves(out / "grid_elastic_utilisation.png", "days", "utilisation so far",
           {name: (x, u) for name, (x, _, u) in series.items()}, title="utilisation over time (episode 0)")


def main(argv=None) -> int:
    """``python -m jaxsched.studies.grid_tables``: the grid paper's tables for heuristics and runs."""
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.grid_tables", description=main.__doc__)
    parser.add_argument("--episodes", type=int, default=8, help="held-out windows (or SWF windows)")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--run", action="append", help="NAME=RUN_DIR (repeatable): a trained SARSA run")
    parser.add_argument("--swf", help="windows of this SWF trace (a file or dataset:NAME) instead of synthetic ones")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE env option (e.g. num_jobs=2000)")
    parser.add_argument("--skip-elastic", action="store_true", help="rigid table only")
    parser.add_argument("--out", type=Path, default=Path("runs/grid_tables"))
    args = parser.parse_args(argv)
    try:
        runs = parse_runs(args.run)
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
        for name, run_dir in runs.items():
            run_variant, table, row = evaluate_run(run_dir, {k: v for k, v in options.items()}, batched, args.seed)
            (elastic_rows if run_variant.env.elastic else rows)[name] = row
            (pool_tables if run_variant.env.elastic else fairness_tables)[name] = table
        results["rigid"] = rows
        text.append(markdown(f"Rigid site ({variant.env.num_cores} cores), {args.episodes} windows of "
                             f"{variant.num_jobs} jobs (first/last {variant.exclude} excluded)", rows,
                             None if args.swf else {k: PAPER[k] for k in ("native (paper)", "RL rigid (paper)")}))
        args.out.mkdir(parents=True, exist_ok=True)  # once the inputs have proved usable
        plot_fairness(variant, fairness_tables, args.out / "grid_fairness.png")
        if not args.skip_elastic:
            # the fixed pools run with the whole window listable: a 30-core pool at the rigid site's load
            # queues thousands of jobs (up to ~4400 of 9500 under FIFO), beyond the default capacity
            e_options = {"queue_capacity": options.get("num_jobs", 9500), **options}
            elastic, _, e_tables, e_rows = evaluate_group("grid-elastic", e_options, args.episodes, args.seed,
                                                          ["fixed_30", "fixed_81", "fixed_120", "queue_proportional"],
                                                          args.swf)
            e_rows.update(elastic_rows)
            results["elastic"] = e_rows
            text.append(markdown(f"Elastic pool (sizes {elastic.env.pool_sizes})", e_rows,
                                 None if args.swf else {"RL elastic (paper)": PAPER["RL elastic (paper)"]}))
            plot_pools({"queue_proportional": e_tables["queue_proportional"], "fixed_81": e_tables["fixed_81"],
                        **pool_tables}, args.out)
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
