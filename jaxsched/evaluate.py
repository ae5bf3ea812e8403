"""Evaluate schedulers on generated or file instances, for any registered env.

    python -m jaxsched.evaluate --env deeprm --policies sjf,packer,tetris,random \
        [--loads 0.1:1.9:0.2] [--jobsets N] [--seeds 0:10] [--reference-rng] [--jobsets-file FILE.csv] \
        [--per-job OUT.csv] [--summary OUT.json]
    python -m jaxsched.evaluate --env grid --policies fifo,edf,sjf,fairshare [--runtime-model oracle|estimated] \
        [--episodes N] [--seed S] [--swf FILE [--multi-core drop|split]] --summary OUT.json [--per-job OUT.csv]

Every instance (a jobset, a trace window) runs to the end of its episode (termination or a cap). For
job-scheduling envs the summary counts finished, unfinished and dropped jobs beside the means, which
are job-weighted over finished jobs; ``--per-job`` and ``--loads`` apply to them. A policy that
leaves jobs unfinished (VM: episodes cut by the step cap) is marked ``*`` in the table and
``leaves_unfinished`` in the JSON and CSV (:mod:`jaxsched.core.unfinished`): its means cover fewer jobs
and are not to be ranked against the heuristics'.

Every summary records, in each policy's stats, ``instances``: what the checkpoint's training drew from,
what this evaluation runs on, and whether they are disjoint (:mod:`jaxsched.core.instances`). With
``--checkpoint``, an evaluation on instances its training drew from (the same generator key, the same
trace rows or SWF windows) is refused with exit code 2 unless ``--allow-training-instances`` is given;
then the checkpoint's rows are marked ``†`` (``on_training_instances`` in the JSON and CSV).

``--checkpoint RUN`` evaluates every seed the run trained, each under its own name
(``checkpoint-s<seed>`` greedy, ``checkpoint-s<seed>-sampled``; a one-seed run's are ``checkpoint`` and
``checkpoint-sampled``), and prints which seed is which; ``--seed-index K`` takes the K-th seed alone,
named ``checkpoint`` and ``checkpoint-sampled``. In ``--policies``, ``checkpoint`` and
``checkpoint-sampled`` stand for the evaluated seeds' greedy and sampled policies. ``--seeds`` (the
instances' seeds) reads ``a:b`` or ``a,b,c``, as in ``train`` and ``sweep``.

``--pretrained NAME`` (instead of ``--checkpoint``) evaluates a policy shipped with the package
(:mod:`jaxsched.pretrained`, ``python -m jaxsched.pretrained list``) exactly as ``--checkpoint RUN
--seed-index K`` of the run and seed it was exported from: its env and options, its training instances,
the same rows under the same names (``checkpoint`` and ``checkpoint-sampled``), every digit the same.
"""

from __future__ import annotations

import argparse
import inspect
import csv
import json
import sys
from pathlib import Path
from typing import Callable

import jax
import numpy as np

from jaxsched import pretrained
from jaxsched.core import instances as instance_ranges
from jaxsched.core.config import parse_seeds
from jaxsched.core.plotting import slowdown_vs_load
from jaxsched.core.progress import evaluate_each
from jaxsched.core.rollout import num_instances
from jaxsched.core.unfinished import leaves_unfinished, legend, marked, with_counts
from jaxsched.errors import CheckpointError, ConfigError, DatasetError, UsageError
from jaxsched.experiment import Experiment, load_run, trained_policies
from jaxsched.registry import build, registered
from jaxsched.workloads.datasets import resolve_path

PER_JOB_COLUMNS = ("policy", "jobset", "job", "arrival", "duration", "start", "finish", "slowdown", "bounded_slowdown",
                   "status")


def parse_range(text: str, kind=float) -> list:
    """``a:b:step`` (inclusive of b), ``a:b`` for integers (exclusive, like range), or ``x,y,z``."""
    try:
        if ":" in text:
            parts = [kind(p) for p in text.split(":")]
            if kind is int and len(parts) == 2:
                return list(range(parts[0], parts[1]))
            if len(parts) != 3 or parts[2] <= 0:
                raise ValueError
            start, stop, step = parts
            count = int(np.floor((stop - start) / step + 1e-9)) + 1
            return [round(start + i * step, 10) for i in range(max(count, 0))]
        return [kind(p) for p in text.split(",") if p.strip()]
    except ValueError:
        form = "a:b (range) or a,b,c" if kind is int else "start:stop:step or a,b,c"
        raise UsageError(f"cannot read {text!r}; expected {form}") from None


def resolve_policies(variant, names: list[str], extra: dict[str, Callable] | None = None) -> dict[str, Callable]:
    """The named policies: ``extra`` ones (a checkpoint's) or the variant's heuristics."""
    policies = {}
    for name in names:
        if extra and name in extra:
            policies[name] = extra[name]
            continue
        try:
            policies[name] = variant.heuristic(name)
        except ValueError as error:
            raise UsageError(str(error)) from None
    return policies


def _seed_stats(variant, table, jobsets_per_seed: int, seeds: list[int]) -> dict:
    """Mean and spread over seeds of each seed's job-weighted mean slowdown."""
    per_seed = []
    for i, _ in enumerate(seeds):
        mine = (table["jobset"] // jobsets_per_seed) == i
        per_seed.append(variant.summarize({k: v[mine] for k, v in table.items()})["mean_slowdown"])
    return {"seeds": seeds, "seed_mean_slowdown": per_seed,
            "seed_std_slowdown": float(np.std(per_seed)) if len(per_seed) > 1 else 0.0}


def _print_table(variant, rows: list[dict], with_load: bool) -> None:
    """One line per (load, policy); a policy that leaves jobs unfinished is marked, with the legend."""
    if "mean_slowdown" not in rows[0]:  # not a job-scheduling summary: the family's own line
        for r in rows:
            print(("" if r["load"] is None else f"load {r['load']:.2f}  ") + f"{_marked(r['policy'], r):>14s}  "
                  + with_counts(variant.describe(r), r))
    else:
        width = max(11, *(len(_marked(r["policy"], r)) for r in rows))
        head = (["load"] if with_load else []) + [f"{'policy':>{width}s}", "slowdown", "bsld", "completion",
                                                   "finished/jobs", "unfinished", "dropped"]
        print(" ".join(f"{h:>11s}" for h in head))
        for r in rows:
            cells = ([f"{r['load']:11.2f}"] if with_load else []) + [
                f"{_marked(r['policy'], r):>{width}s}", f"{r['mean_slowdown']:11.3f}",
                f"{r['mean_bounded_slowdown']:11.3f}", f"{r['mean_completion_time']:11.3f}",
                f"{r['finished']:>6d}/{r['jobs']:<6d}", f"{r['unfinished']:11d}", f"{r['dropped']:11d}"]
            print(" ".join(cells))
    for line in legend(rows) + instance_ranges.legend(rows):
        print(line)


def _marked(name: str, stats: dict) -> str:
    """``name`` with ``*`` (leaves jobs unfinished) and ``†`` (evaluated on its training instances)."""
    return instance_ranges.marked(marked(name, stats), stats)


def _instances(args, variant, experiment, seeds: list[int], load) -> dict:
    """The ``instances`` record of this evaluation: the checkpoint's training instances (None without
    one) and what is evaluated: a jobsets file, SWF windows, reference-generator or generated instances."""
    training = None
    if experiment is not None:
        training = instance_ranges.training_instances(variant, experiment.config, experiment.algo)
    if args.jobsets_file:
        evaluation = {"kind": "file", "path": str(args.jobsets_file)}
    elif args.swf:
        windows = "all" if args.swf_windows is None else [0, int(args.swf_windows)]
        evaluation = {"kind": "trace_windows", "swf": str(args.swf), "windows": windows}
    elif args.reference_rng:
        evaluation = {"kind": "reference_rng", "seeds": list(seeds), "count": args.jobsets}
    else:
        evaluation = instance_ranges.held_out_instances(variant, args.jobsets, seeds[0])
        if evaluation["kind"] == "generator":
            evaluation["keys"] = [int(s) for s in seeds]
        else:
            evaluation.pop("seed", None)
            evaluation["seeds"] = [int(s) for s in seeds]
    if load is not None:
        evaluation["load"] = load
    return instance_ranges.record(training, evaluation, allowed=args.allow_training_instances)


def _write_per_job(path: Path, rows: list[tuple[float | None, str, dict]], columns=None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if columns is not None:  # the family's own columns (grid)
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(("policy",) + tuple(columns))
            for _, policy, table in rows:
                cells = [table[c] for c in columns]
                for i in range(len(table["job"])):
                    writer.writerow([policy] + [_cell(column[i]) for column in cells])
        return
    with_load = rows and rows[0][0] is not None
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow((["load"] if with_load else []) + list(PER_JOB_COLUMNS))
        for load, policy, table in rows:
            for i in range(len(table["job"])):
                slowdowns = ["" if np.isnan(x) else f"{x:.6g}"
                             for x in (table["slowdown"][i], table["bounded_slowdown"][i])]
                writer.writerow(([load] if with_load else []) + [
                    policy, table["jobset"][i], table["job"][i], table["arrival"][i], table["duration"][i],
                    table["start"][i], table["finish"][i], *slowdowns, table["status"][i]])


def _cell(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else f"{value:.6g}"
    return str(value)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--env", help=f"one of {', '.join(registered())} (default deeprm, or the checkpoint's)")
    trained = parser.add_mutually_exclusive_group()
    trained.add_argument("--checkpoint", type=Path,
                         help="a training run directory: adds each seed's policy, greedy and sampled "
                              "(checkpoint-s<seed>, checkpoint-s<seed>-sampled; checkpoint and checkpoint-sampled "
                              "for one seed), and makes its env the default")
    trained.add_argument("--pretrained", metavar="NAME",
                         help="a policy shipped with the package (python -m jaxsched.pretrained list), evaluated "
                              "as --checkpoint RUN --seed-index K of the run and seed it was exported from: rows "
                              "checkpoint and checkpoint-sampled, its env the default")
    parser.add_argument("--seed-index", type=int, metavar="K",
                        help="with --checkpoint: only its K-th seed's policy (0-based), named checkpoint and "
                             "checkpoint-sampled (default: every seed)")
    parser.add_argument("--from-step", type=int, metavar="N",
                        help="with --checkpoint: the checkpoint of iteration N (default: the newest intact)")
    parser.add_argument("--policies", help="comma list of the env's heuristics (DeepRM family: sjf, packer, "
                        "tetris[:knob], random, fcfs, easy; VM: first_fit, best_fit, pm_best_fit, room_fit) and, "
                        "with --checkpoint, checkpoint (its greedy policies) and checkpoint-sampled; "
                        "default: the family's baselines and the checkpoint's")
    parser.add_argument("--loads", help="start:stop:step or a,b,c; one workload per load")
    parser.add_argument("--load", type=float, help="a single load (default: the variant's)")
    parser.add_argument("--jobsets", "--episodes", type=int,
                        help="generated instances (jobsets, windows) per seed (default 10; --swf: all windows)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", help="several seeds: a:b or a,b,c (overrides --seed)")
    parser.add_argument("--rollouts", type=int, default=1, help="rollouts per jobset (stochastic policies)")
    parser.add_argument("--jobsets-file", type=Path, help="CSV jobsets instead of generated ones")
    parser.add_argument("--reference-rng", action="store_true",
                        help="draw each seed's jobsets with the reference DeepRM code's numpy generator "
                             "(the same jobsets as numbers measured on the reference)")
    parser.add_argument("--num-slots", type=int)
    parser.add_argument("--capacity", type=int)
    parser.add_argument("--horizon", type=int)
    parser.add_argument("--backlog", type=int)
    parser.add_argument("--simu-len", type=int)
    parser.add_argument("--max-time", type=int, help="clock cap per episode")
    parser.add_argument("--runtime-model", choices=("oracle", "estimated"), help="grid: what the scheduler sees")
    parser.add_argument("--num-jobs", type=int, help="grid: jobs per episode (window)")
    parser.add_argument("--exclude", type=int, help="grid: first and last jobs of each episode left out of "
                        "the metrics (default 500, as the paper)")
    parser.add_argument("--swf", help="grid: consecutive windows of this SWF trace (a file or dataset:NAME, see "
                        "python -m jaxsched.data list) instead of synthetic ones (all windows, or --episodes of them)")
    parser.add_argument("--multi-core", choices=("error", "drop", "split"),
                        help="grid, --swf: jobs asking for more than one processor")
    parser.add_argument("--bsld-tau", type=float,
                        help="bounded slowdown's threshold tau in time steps (default 1)")
    parser.add_argument("--allow-training-instances", action="store_true",
                        help="with --checkpoint: evaluate even on instances its training drew from (refused "
                             "otherwise); its rows are then marked †")
    parser.add_argument("--per-job", type=Path, help="write per-job CSV here")
    parser.add_argument("--summary", type=Path, help="write summary JSON here")
    parser.add_argument("--results-dir", type=Path, default=Path("runs"),
                        help="where --loads writes its CSV and plot (default runs/; results/ only when asked)")
    return parser


def run(args, extra_policies: dict[str, Callable] | None = None) -> dict:
    if args.swf and (args.jobsets_file or args.loads or args.reference_rng):
        raise UsageError("--swf reads its instances from the trace; it cannot be combined with --jobsets-file, "
                         "--loads or --reference-rng")
    args.swf_windows = args.jobsets
    args.jobsets = 10 if args.jobsets is None else args.jobsets
    if args.jobsets < 1 or args.rollouts < 1:
        raise UsageError("--jobsets and --rollouts must be >= 1")
    if args.jobsets_file and args.loads:
        raise UsageError("--loads generates jobsets; it cannot be combined with --jobsets-file")
    if args.jobsets_file and args.reference_rng:
        raise UsageError("--reference-rng generates jobsets; it cannot be combined with --jobsets-file")
    base, extra_policies, feature_shape, experiment, groups = (
        _pretrained_policies(args, extra_policies) if getattr(args, "pretrained", None)
        else _checkpoint_policies(args, extra_policies))
    args.env = args.env or "deeprm"
    overrides = base | {k: v for k, v in {"num_slots": args.num_slots, "capacity": args.capacity,
                                   "horizon": args.horizon, "backlog_size": args.backlog,
                                   "simu_len": args.simu_len, "load": args.load,
                                   "max_time": args.max_time, "runtime_model": args.runtime_model,
                                   "num_jobs": args.num_jobs, "exclude": args.exclude, "multi_core": args.multi_core}.items()
                                   if v is not None}
    given = None if args.policies is None else [n.strip() for n in args.policies.split(",") if n.strip()]
    if given == []:
        raise UsageError("--policies is empty")
    seeds = parse_seeds(args.seeds) if args.seeds else [args.seed]
    loads = parse_range(args.loads) if args.loads else [None]
    if not loads:
        raise UsageError(f"--loads {args.loads} gives no load (start above stop?)")
    if any(load is not None and load < 0 for load in loads):
        raise UsageError("loads must be >= 0")

    summary, per_job, rows = {}, [], []
    for load in loads:
        try:
            variant = build(args.env, **(overrides | ({"load": load} if load is not None else {})))
        except (ValueError, TypeError) as error:
            raise UsageError(str(error)) from None
        if feature_shape is not None and variant.env.feature_shape() != feature_shape:
            raise UsageError(f"the checkpoint's policy takes features of shape {feature_shape}, this env "
                             f"gives {variant.env.feature_shape()}; evaluate it on the env it was trained on")
        instances = _instances(args, variant, experiment, seeds, load)
        try:
            instance_ranges.check(instances, args.allow_training_instances, "--allow-training-instances")
        except ValueError as error:
            raise UsageError(str(error)) from None
        names = list(variant.default_baselines) if given is None else list(given)
        if groups and not set(groups) & set(names):
            names += list(groups)
        names = [member for name in names for member in groups.get(name, [name])]  # a group: its seeds' policies
        policies = resolve_policies(variant, names, extra_policies)
        try:
            if args.jobsets_file:
                batched, variant = _file_instances(args, variant)
                seeds, jobsets_per_seed = [args.seed], num_instances(batched)
            elif args.swf:
                batched = _swf_instances(args, variant)
                seeds, jobsets_per_seed = [args.seed], num_instances(batched)
            else:
                jobsets_per_seed = args.jobsets
                batched = generated_instances(variant, seeds, args.jobsets, args.reference_rng)
            key = jax.random.fold_in(jax.random.PRNGKey(seeds[0]), 1)
            options = {} if args.bsld_tau is None else {"bsld_tau": args.bsld_tau}
            if options and "bsld_tau" not in inspect.signature(variant.evaluate).parameters:
                raise UsageError(f"--bsld-tau applies to job-scheduling envs, not {variant.name}")
            label = "evaluate" + ("" if load is None else f" load {load:g}")
            tables = evaluate_each(variant, policies, batched, key, label, num_rollouts=args.rollouts, **options)
        except ValueError as error:
            raise UsageError(str(error)) from None
        per_load = {}
        for name, table in tables.items():
            stats = variant.summarize(table)
            if load is not None:
                stats["offered_load"] = getattr(getattr(variant, "workload", None), "offered_load", load)
            if len(seeds) > 1 and "mean_slowdown" in stats:
                stats.update(_seed_stats(variant, table, jobsets_per_seed, seeds))
            stats["leaves_unfinished"] = leaves_unfinished(stats)
            if experiment is not None and any(name in members for members in groups.values()):
                stats[instance_ranges.FLAG] = not instances["disjoint"]
            stats["instances"] = instances
            per_load[name] = stats
            rows.append({"load": load, "policy": name, **stats})
            per_job.append((load, name, table))
        if load is None:
            summary = per_load
        else:
            summary[f"{load:g}"] = per_load

    print(f"instances: training {instance_ranges.describe(instances['training'])}; evaluation "
          f"{instance_ranges.describe(instances['evaluation'])}; "
          + ("disjoint" if instances["disjoint"] else "OVERLAPPING (--allow-training-instances)"))
    _print_table(variant, rows, loads[0] is not None)
    if args.summary:
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        args.summary.write_text(json.dumps(summary, indent=1))
        print(f"wrote {args.summary}")
    if args.per_job:
        if "job" not in per_job[0][2]:
            raise UsageError(f"--per-job writes per-job tables; {args.env}'s results are per episode")
        _write_per_job(args.per_job, per_job, getattr(variant, "per_job_columns", None))
        print(f"wrote {args.per_job}")
    if loads[0] is not None:
        _write_load_curve(args, loads, names, rows)
    return summary


def checkpoint_policy_names(seeds: list[int], seed_index: int | None) -> dict[str, list[tuple[str, int]]]:
    """``{"checkpoint": [(name, seed index), ...], "checkpoint-sampled": [...]}``: the greedy and sampled
    policies evaluated of a run with ``seeds``: every seed's (``checkpoint-s<seed>``,
    ``checkpoint-s<seed>-sampled``), or, for one seed or ``seed_index``, that one's as ``checkpoint`` and
    ``checkpoint-sampled``."""
    if seed_index is not None and not 0 <= seed_index < len(seeds):
        raise UsageError(f"--seed-index {seed_index}: the run has {len(seeds)} seed(s) ({', '.join(map(str, seeds))}); "
                         f"expected 0 .. {len(seeds) - 1}")
    if seed_index is not None or len(seeds) == 1:
        index = seed_index or 0
        return {"checkpoint": [("checkpoint", index)], "checkpoint-sampled": [("checkpoint-sampled", index)]}
    return {"checkpoint": [(f"checkpoint-s{seed}", i) for i, seed in enumerate(seeds)],
            "checkpoint-sampled": [(f"checkpoint-s{seed}-sampled", i) for i, seed in enumerate(seeds)]}


def _checkpoint_policies(args, extra):
    """The env options, the policies of ``--checkpoint`` (if given) beside ``extra``, its feature shape,
    its experiment and its policy groups (``checkpoint`` and ``checkpoint-sampled``: the names they stand for)."""
    if not args.checkpoint:
        for flag, value in (("--from-step N", args.from_step), ("--seed-index K", args.seed_index)):
            if value is not None:
                raise UsageError(f"{flag} applies to --checkpoint DIR")
        return {}, extra, None, None, {}
    try:
        experiment, states = load_run(args.checkpoint, step=args.from_step)
    except (CheckpointError, ConfigError) as error:
        raise UsageError(str(error)) from None
    variant, config = experiment.variant, experiment.config
    if args.env and args.env != config.env:
        raise UsageError(f"--env {args.env} differs from the checkpoint's env {config.env}")
    args.env = config.env
    named = checkpoint_policy_names(list(config.seeds), args.seed_index)
    policies = dict(extra or {})
    for group, members in named.items():
        for name, index in members:
            params = jax.tree.map(lambda x: x[index], states.params)
            policies[name] = trained_policies(experiment, params, greedy=group == "checkpoint")
    evaluated = [config.seeds[index] for _, index in named["checkpoint"]]
    print(f"checkpoint {args.checkpoint} (iteration {int(states.iteration[0])}): "
          + ", ".join(f"seed {seed} as {greedy}, {sampled}" for seed, (greedy, _), (sampled, _)
                      in zip(evaluated, named["checkpoint"], named["checkpoint-sampled"]))
          + (f" (--seed-index {args.seed_index} of seeds {', '.join(map(str, config.seeds))})"
             if args.seed_index is not None else ""))
    groups = {group: [name for name, _ in members] for group, members in named.items()}
    return dict(config.env_options), policies, variant.env.feature_shape(), experiment, groups


def _pretrained_policies(args, extra):
    """As :func:`_checkpoint_policies`, for the shipped policy ``--pretrained NAME``: its greedy and sampled
    policies as ``checkpoint`` and ``checkpoint-sampled`` (what ``--checkpoint RUN --seed-index K`` of its
    source run and seed names them), its run's env options and training instances."""
    for flag, value in (("--from-step N", args.from_step), ("--seed-index K", args.seed_index)):
        if value is not None:
            raise UsageError(f"{flag} applies to --checkpoint DIR; a pretrained policy is one seed of one step")
    try:
        agent = pretrained.load(args.pretrained)
    except (CheckpointError, ConfigError) as error:
        raise UsageError(str(error)) from None
    config = agent.config
    if args.env and args.env != config.env:
        raise UsageError(f"--env {args.env} differs from the pretrained policy's env {config.env}")
    args.env = config.env
    policies = dict(extra or {})
    policies["checkpoint"], policies["checkpoint-sampled"] = agent.policy(True), agent.policy(False)
    record = agent.record
    print(f"pretrained {agent.name}: seed {record['seed']} (--seed-index {record['seed_index']}) of {record['source']} "
          f"at iteration {record['iteration']}, as checkpoint, checkpoint-sampled")
    source = Experiment(config, agent.variant, config.algo_config(), None, None)  # what _instances reads
    groups = {"checkpoint": ["checkpoint"], "checkpoint-sampled": ["checkpoint-sampled"]}
    return dict(config.env_options), policies, agent.variant.env.feature_shape(), source, groups


def generated_instances(variant, seeds, count: int, reference_rng: bool = False):
    """``count`` instances per seed, concatenated: the env's held-out draws (``variant.held_out``; VM
    start rows from the held-out range when ``held_out_from`` splits it, as a checkpoint trained with
    it records), or the reference generator's jobsets."""
    batches = [_reference_instances(variant, s, count) if reference_rng else variant.held_out(count, s)[0]
               for s in seeds]
    return jax.tree.map(lambda *xs: np.concatenate(xs), *batches)


def _reference_instances(variant, seed: int, count: int):
    if not hasattr(variant, "reference_instances"):
        raise UsageError(f"--reference-rng draws DeepRM jobsets; {variant.name} has no reference generator")
    return variant.reference_instances(seed, count)


def _file_instances(args, variant):
    """The instances of ``--jobsets-file`` and the variant to run them (arrivals up to the file's last)."""
    if not hasattr(variant, "instances_from_file"):
        raise UsageError(f"--jobsets-file reads jobset CSV files; {variant.name} does not take them")
    if not args.jobsets_file.exists():
        raise UsageError(f"jobsets file not found: {args.jobsets_file}")
    return variant.instances_from_file(args.jobsets_file, simu_len=args.simu_len)


def _swf_instances(args, variant):
    if not hasattr(variant, "instances_from_swf"):
        raise UsageError(f"--swf reads grid windows of an SWF trace; {variant.name} does not take them "
                         "(DeepRM family: python -m jaxsched.studies.swf_eval)")
    try:
        path = resolve_path(args.swf)
    except DatasetError as error:
        raise UsageError(str(error)) from None
    if not path.exists():
        raise UsageError(f"SWF trace not found: {path}")
    batched, info = variant.instances_from_swf(path, max_windows=args.swf_windows)
    print(f"{path}: {info['windows']} windows of {info['window']} jobs ({info['swf_jobs']} jobs in the trace, "
          f"{info['multi_core_jobs']} multi-processor: {info['multi_core']}; VOs from {info['vo_from']} ids)")
    return batched


def _write_load_curve(args, loads, names, rows) -> None:
    args.results_dir.mkdir(parents=True, exist_ok=True)
    stem = args.results_dir / f"{args.env}_slowdown_vs_load"
    with open(stem.with_suffix(".csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["load", "policy", "mean_slowdown", "seed_std_slowdown", "mean_completion_time",
                         "jobs", "finished", "unfinished", "dropped", "leaves_unfinished", instance_ranges.FLAG])
        for r in rows:
            writer.writerow([r["load"], r["policy"], r["mean_slowdown"], r.get("seed_std_slowdown", ""),
                             r["mean_completion_time"], r["jobs"], r["finished"], r["unfinished"], r["dropped"],
                             int(r["leaves_unfinished"]), int(bool(r.get(instance_ranges.FLAG)))])
    curves = {}
    for name in names:
        mine = [r for r in rows if r["policy"] == name]
        stds = [r.get("seed_std_slowdown", 0.0) for r in mine]
        missing = sum(r["unfinished"] + r["dropped"] for r in mine)
        label = f"{name} ({missing} of {sum(r['jobs'] for r in mine)} jobs unfinished or dropped)" if missing \
            else name  # its means cover finished jobs only: say so where the eye compares lines
        if any(r.get(instance_ranges.FLAG) for r in mine):
            label += f" {instance_ranges.MARK} on its training instances"
        curves[label] = ([r["mean_slowdown"] for r in mine], stds if any(stds) else None)
    slowdown_vs_load(loads, curves, stem.with_suffix(".png"), title=f"{args.env}: slowdown vs load")
    print(f"wrote {stem.with_suffix('.csv')} and {stem.with_suffix('.png')}")


def main(argv=None, extra_policies: dict[str, Callable] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        run(args, extra_policies)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
