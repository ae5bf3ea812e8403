"""The VM heuristics table: scheduled length, CPU allocation and income of the heuristics (and
optionally a trained CVD-RL policy) per cluster size N and warm start, on the same start points.

    python -m jaxsched.studies.vm_table --env vm-frag --num-pms 5,10,20 --warm-start 0,0.5 \
        [--policies first_fit,best_fit,pm_best_fit,room_fit] [--checkpoint RUN [--all-seeds]] [--option KEY=VALUE] \
        --out FILE.json

``--all-seeds`` evaluates every seed of a multi-seed run (a sweep cell) as ``trained_seed<i>`` and adds, per
(N, ρ_ws), the IQM and 95% bootstrap CI (the range under 5 seeds) of the seeds' mean scheduled lengths
(``seed_summary``).

Held out (issue 56): with ``--checkpoint``, a table whose start rows would read trace rows the run trained on
(the same trace and overlapping rows, :mod:`jaxsched.core.instances`) moves its start range past the last
training row, keeping its width; heuristics and the trained policy share those starts. Each row records both
sides (``instances``). ``--allow-training-instances`` keeps the overlapping starts and marks the trained rows †.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

import jax
import yaml

from jaxsched.algos import ALGORITHMS
from jaxsched.core import instances as instance_ranges
from jaxsched.core.progress import progress
from jaxsched.core.runs import shown_path
from jaxsched.core.stats import MIN_SEEDS_FOR_CI, summarize_over_seeds, summary_interval
from jaxsched.core.unfinished import beats, finished_cell, legend, leaves_unfinished, marked
from jaxsched.envs.vm.episodes import draw_starts, evaluate_policies, summarize_vm
from jaxsched.errors import CheckpointError, InputError
from jaxsched.experiment import load_run
from jaxsched.registry import build


def held_out_variant(env_name: str, options: dict, training: dict | None, allowed: bool, num_starts: int,
                     seed: int):
    """``(variant, instances)``: the table's variant for ``options`` and the ``instances`` record of its
    start rows against ``training`` (a checkpoint's :func:`~jaxsched.core.instances.training_instances`).
    Where they overlap and ``allowed`` is false, the start range moves past the last training row."""
    variant = build(env_name, **options)
    evaluation = instance_ranges.held_out_instances(variant, num_starts, seed)
    if instance_ranges.overlaps(training, evaluation) and not allowed:
        low, high = variant.start_range(held_out=True)
        first = int(training["rows"][1])
        variant = build(env_name, **{**options, "start_low": first, "start_high": first + int(high - low),
                                     "held_out_from": None, "held_out_after": None})
        evaluation = instance_ranges.held_out_instances(variant, num_starts, seed)
    return variant, instance_ranges.record(training, evaluation, allowed=allowed)


def heuristics_table(env_name: str, num_pms_list, warm_starts, num_starts: int, seed: int, window: int | None,
                     policies=("first_fit", "best_fit", "pm_best_fit"), trained: Callable | None = None,
                     options: dict | None = None, training: dict | None = None,
                     allow_training_instances: bool = False) -> list[dict]:
    """Scheduled length, CPU allocation and income of the VM heuristics per (N, ρ_ws), on the same
    ``num_starts`` start points (drawn with ``seed``) for every policy. ``trained(env) -> {name:
    policy}`` adds policies built for each N (a checkpoint's, see ``--checkpoint``), evaluated on start rows
    disjoint from ``training`` (its run's training instances; :func:`held_out_variant`); ``options`` are
    further variant options (e.g. the expansion scenario's ``initial_pms``)."""
    rows = []
    sizes = progress([(n, w) for n in num_pms_list for w in warm_starts], "vm_table", unit="cluster")
    for num_pms, warm_start in sizes:
        options_here = dict(num_pms=num_pms, warm_start=warm_start, **(options or {}),
                            **({} if window is None else {"window": window}))
        variant, instances = held_out_variant(env_name, options_here, training if trained else None,
                                              allow_training_instances, num_starts, seed)
        variant.check_baselines(policies)
        starts = draw_starts(jax.random.PRNGKey(seed), variant, num_starts, held_out=True)
        chosen = {p: variant.heuristic(p) for p in policies} | (trained(variant.env) if trained else {})
        tables = evaluate_policies(variant, chosen, starts, jax.random.PRNGKey(seed + 1))
        for name, table in tables.items():
            stats = summarize_vm(table)
            on_training = name.startswith("trained") and not instances["disjoint"]
            rows.append({"num_pms": num_pms, "warm_start": warm_start, "policy": name, "window": variant.window,
                         **stats, "leaves_unfinished": leaves_unfinished(stats), "instances": instances,
                         **({instance_ranges.FLAG: True} if on_training else {})})
            r = rows[-1]
            sizes.write(f"N={num_pms:3d} ρ_ws={warm_start:.2f} {marked(name, r):14s} length "
                        f"{r['scheduled_length']:8.1f} ± {r['scheduled_length_std']:6.1f}  cpu "
                        f"{r['cpu_allocation']:.3f} (time avg {r['cpu_allocation_mean']:.3f})  income {r['income']:9.1f}  window exhausted "
                        f"{r['window_exhausted']:.2f}  {finished_cell(r)}")
    return rows


def markdown(rows: list[dict]) -> str:
    """The table; episodes ended / episodes is VM placement's finished / jobs (see
    :mod:`jaxsched.core.unfinished`): a row with episodes cut by the step cap is marked."""
    lines = ["| N | ρ_ws | policy | scheduled length | CPU allocation (end) | CPU allocation (time average) "
             "| income | window exhausted | episodes ended |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['num_pms']} | {r['warm_start']:.2f} | {instance_ranges.marked(marked(r['policy'], r), r)} | "
              f"{r['scheduled_length']:.1f} ± "
              f"{r['scheduled_length_std']:.1f} | {r['cpu_allocation']:.3f} | "
              f"{_cell(r.get('cpu_allocation_mean'))} | {r['income']:.1f} | "
              f"{r['window_exhausted']:.2f} | {r.get('episodes_ended', '')} / {r['episodes']} |" for r in rows]
    marks = legend(rows) + instance_ranges.legend(rows) + start_rows_note(rows)
    seeds = seed_summary(rows)
    if seeds:
        names = list(seeds[0]["heuristics"])
        label = summary_interval(seeds[0]["trained"]).label
        marks = [*marks, "", f"Over {seeds[0]['trained']['n']} seeds (each seed's mean over the start points): "
                 f"IQM [{label}] and the seeds above each heuristic"
                 + ("" if label != "range"
                    else f" (the seeds' min and max: a bootstrap CI needs {MIN_SEEDS_FOR_CI} seeds)"),
                 "", f"| N | ρ_ws | trained IQM [{label}] | " + " | ".join(names) + " |",
                 "|---|---|---|" + "---|" * len(names)]
        marks += [f"| {s['num_pms']} | {s['warm_start']:.2f} | {s['trained']['iqm']:.1f} "
                  f"[{summary_interval(s['trained']).low:.1f}, {summary_interval(s['trained']).high:.1f}] | "
                  + " | ".join(
                      f"{s['heuristics'][n]:.1f} ({s['seeds_above'][n]}/{s['trained']['n']} above)" for n in names) + " |"
                  for s in seeds]
    return "\n".join(lines + (["", *marks] if marks else [])) + "\n"


def start_rows_note(rows: list[dict]) -> list[str]:
    """One line per distinct pair of training / evaluation start rows (tables with a trained policy)."""
    pairs = dict.fromkeys((instance_ranges.describe(r["instances"]["training"]),
                           instance_ranges.describe(r["instances"]["evaluation"]))
                          for r in rows if r.get("instances", {}).get("training"))
    return [f"Trained on {training}; evaluated on {evaluation}." for training, evaluation in pairs]


def _cell(value) -> str:
    """A rate to three decimals; blank for rows written before the metric existed."""
    return "" if value is None else f"{value:.3f}"


def parse_options(parser: argparse.ArgumentParser, texts: list[str]) -> dict:
    """``--option KEY=VALUE`` texts as variant options (values read as YAML: numbers stay numbers)."""
    options = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep:
            parser.error(f"--option {text!r} is not KEY=VALUE")
        options[key] = yaml.safe_load(value)
    return options


def checkpoint_policies(run: Path, all_seeds: bool = False) -> tuple[Callable, dict]:
    """``(env -> {"trained": policy}, training instances)``: the greedy policy of the run's first seed, built
    for any cluster size (a CVD-RL model runs at any N), with ``all_seeds`` every seed's, named
    ``trained_seed<i>``; and the start rows the run trained on. Raises CheckpointError / InputError for a
    bad run directory."""
    experiment, states = load_run(run)
    algo = ALGORITHMS[experiment.config.algo]
    count = int(jax.tree.leaves(states.params)[0].shape[0]) if all_seeds else 1
    seeds = {("trained" if not all_seeds else f"trained_seed{i}"): jax.tree.map(lambda x, i=i: x[i], states.params)
             for i in range(count)}
    training = instance_ranges.training_instances(experiment.variant, experiment.config, experiment.algo)
    return (lambda env: {name: algo.policy_from(experiment.algo, env, params, True) for name, params in seeds.items()},
            training)



def seed_summary(rows: list[dict]) -> list[dict]:
    """Per (N, ρ_ws), the ``trained_seed<i>`` rows' mean scheduled lengths over seeds (IQM, 95% CI) beside
    each heuristic's, and how many seeds beat each heuristic (:func:`jaxsched.core.unfinished.beats`: a seed with
    episodes cut by the step cap beats nothing)."""
    summary = []
    for num_pms, warm_start in dict.fromkeys((r["num_pms"], r["warm_start"]) for r in rows):
        here = [r for r in rows if (r["num_pms"], r["warm_start"]) == (num_pms, warm_start)]
        seeds = [r for r in here if r["policy"].startswith("trained_seed")]
        if not seeds:
            continue
        lengths = [r["scheduled_length"] for r in seeds]
        heuristics = {r["policy"]: r for r in here if not r["policy"].startswith("trained")}
        summary.append({"num_pms": num_pms, "warm_start": warm_start, "trained": summarize_over_seeds(lengths),
                        "seed_lengths": lengths,
                        "heuristics": {name: r["scheduled_length"] for name, r in heuristics.items()},
                        "seeds_above": {name: sum(beats(r, base, "scheduled_length", higher_is_better=True)
                                                  for r in seeds) for name, base in heuristics.items()}})
    return summary


def main(argv=None) -> int:
    """``python -m jaxsched.studies.vm_table``: the VM heuristics table (JSON + markdown)."""
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.vm_table", description=main.__doc__)
    parser.add_argument("--env", default="vm-frag", help="a vm-* env (vm-huawei needs --option trace=dataset:huawei-east-1 or trace=FILE)")
    parser.add_argument("--num-pms", default="5,10,20")
    parser.add_argument("--warm-start", default="0,0.5")
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--window", type=int, default=None, help="trace events per episode (default: the variant's)")
    parser.add_argument("--out", type=Path, default=Path("runs/vm_table.json"))
    parser.add_argument("--checkpoint", type=Path, help="a VM training run directory: adds its policy "
                        "(greedy, 'trained') at every N, which needs a model that runs at any N (CVD-RL)")
    parser.add_argument("--all-seeds", action="store_true", help="with --checkpoint: every seed of the run "
                        "('trained_seed<i>') and their IQM / CI per row group")
    parser.add_argument("--allow-training-instances", action="store_true", help="with --checkpoint: keep start "
                        "rows that overlap the run's training rows (trained rows marked †) instead of moving past them")
    parser.add_argument("--policies", default="first_fit,best_fit,pm_best_fit",
                        help="comma-separated heuristics (also: room_fit)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="further variant option, e.g. initial_pms=50 (repeatable)")
    args = parser.parse_args(argv)
    try:
        num_pms = [int(n) for n in args.num_pms.split(",")]
        warm = [float(w) for w in args.warm_start.split(",")]
    except ValueError:
        parser.error("--num-pms and --warm-start are comma-separated numbers")
    options = parse_options(parser, args.option)
    if args.starts < 1:
        parser.error(f"--starts must be >= 1, got {args.starts}")
    trained = training = None
    if args.all_seeds and not args.checkpoint:
        parser.error("--all-seeds needs --checkpoint")
    if args.allow_training_instances and not args.checkpoint:
        parser.error("--allow-training-instances needs --checkpoint")
    if args.checkpoint:
        try:
            trained, training = checkpoint_policies(args.checkpoint, args.all_seeds)
        except (CheckpointError, InputError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    policies = tuple(p for p in args.policies.split(",") if p)
    try:
        rows = heuristics_table(args.env, num_pms, warm, args.starts, args.seed, args.window, policies=policies,
                                trained=trained, options=options, training=training,
                                allow_training_instances=args.allow_training_instances)
    except (InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"env": args.env, "starts": args.starts, "seed": args.seed, "options": options,
                                    "checkpoint": shown_path(args.checkpoint),
                                    "rows": rows, "seed_summary": seed_summary(rows)}, indent=1))
    args.out.with_suffix(".md").write_text(markdown(rows))
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
