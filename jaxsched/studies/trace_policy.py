"""Learn a scheduling policy from a cluster's own log and compare it with the rules sites deploy.

    python -m jaxsched.studies.trace_policy --trace FILE|dataset:NAME --out DIR [--quick] [--config YAML] \
        [--synthetic NAME|RUN_DIR[,...]]

Trains PPO (``configs/studies/trace_ppo_compact.yaml``) on windows of consecutive jobs of the trace's
first part (``env_options.train_fraction`` of its jobs, split at a submit time), then evaluates the
trained policy (greedy, and sampled) and every HPC heuristic (:mod:`jaxsched.baselines.hpc`) on the
windows tiling the later, held-out part (:mod:`jaxsched.envs.deeprm.trace_windows`). ``--synthetic``
adds agents trained on synthetic scenarios (a shipped policy of :mod:`jaxsched.pretrained`, e.g.
``bracis7-ppo-6m``, or a run directory, every seed) as rows on the same windows: the question is
whether learning from the log beats learning from a generator. Writes into DIR:

- ``run/``: the training run (config.json with the split options, metrics.csv, checkpoints);
- ``eval.json``: the split and both job ranges (``disjoint``), each policy's mean bounded slowdown
  (tau = 10 s, true run times, waits on the step grid), mean wait, finished / jobs;
- ``report.md``: the table, policies ranked (rows with unfinished jobs never ranked), the caveats;
- ``learning_curve.png``: training-window slowdown per iteration against the held-out levels;
- ``held_out_jobs.csv``: every held-out job's schedule under every policy.

``--quick`` trains a few iterations of a small batch (a couple of minutes on a CPU): it checks the
pipeline, not what PPO can learn.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import functools
import json
import sys
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial

from jaxsched import pretrained, registry
from jaxsched.algos import ALGORITHMS
from jaxsched.baselines.hpc import LABELS
from jaxsched.core.eval_curve import read_training_curve
from jaxsched.core.plotting import learning_curve
from jaxsched.core.rollout import make_evaluator
from jaxsched.core.runs import Checkpointer
from jaxsched.core.unfinished import LEGEND, leaves_unfinished, marked
from jaxsched.envs.deeprm import trace_windows
from jaxsched.envs.deeprm.metrics import bounded_slowdown, job_table
from jaxsched.errors import CheckpointError, ConfigError, InputError, UsageError
from jaxsched.experiment import load_run, load_train_config, train, trained_policies
from jaxsched.studies.swf_eval import ranking

BSLD_TAU_SECONDS = trace_windows.BSLD_TAU_S  # the reward_seconds option's tau too
DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "studies" / "trace_ppo_compact.yaml"
DEFAULT_POLICIES = ("fcfs", "easy", "sjf-requested", "sjf-requested+easy", "sjf-actual", "wfp3", "wfp3+easy",
                    "unicep", "unicep+easy", "f1", "f1+easy")
# --quick: a few iterations of a small batch, to check the whole pipeline in minutes on a CPU
QUICK = ("iterations=20", "chunk=10", "checkpoint_every=10", "keep_every=10", "algo_options.num_envs=8",
         "algo_options.num_steps=32", "algo_options.minibatch_size=64", "algo_options.update_epochs=4")
AGENT = "ppo"
SYNTHETIC = "synthetic"  # the row-name prefix of the synthetic-trained agents (--synthetic)


def agent_names(seed: int) -> tuple[str, str]:
    """The table names of a training seed's greedy and sampled policies."""
    return f"{AGENT}-s{seed}", f"{AGENT}-s{seed}-sampled"


@contextlib.contextmanager
def family_registered():
    """The ``swf-compact`` family in the registry while the block runs (it needs a trace, so it is
    not among the always-registered envs)."""
    added = trace_windows.NAME not in registry.registered()
    if added:
        registry.register(trace_windows)
    try:
        yield
    finally:
        if added:
            registry.FAMILIES.remove(trace_windows)


@dataclasses.dataclass(frozen=True)
class SyntheticAgent:
    """One synthetic-trained agent's seed, as ``--synthetic`` evaluates it: its policies (observations
    rescaled to its training scaling, :func:`adapt_observations`), the swf-compact variant its rows run
    in (the study's, with the agent's own stepping) and what its label must say."""

    name: str  # the greedy row's name; the sampled row adds "-sampled"
    source: str  # the pretrained name or the run directory
    env_name: str  # the registered env it was trained on
    seed: int
    greedy: object
    sampled: object
    stepping: str
    notes: tuple[str, ...]  # how its evaluation differs from its training, for the label and eval.json
    backlog_scale: float


def bracis_backlog_index(env) -> int:
    """The backlog-length feature's index in the bracis state (item 3 of
    :func:`~jaxsched.envs.deeprm.observations.bracis_vector`: after the cluster and slot blocks)."""
    return 2 * env.horizon * env.num_res + 7 * env.num_slots


def _rescaled(policy, scale, key, obs):
    return policy(key, obs.replace(features=obs.features * scale))


def adapt_observations(policy, agent_env, trace_env, who: str):
    """``(policy on trace_env's observations, backlog scale)``: the agent's policy fed trace_env's
    bracis state rescaled to the agent's training scaling. Only the backlog length is normalised by a
    size that differs between envs (the backlog holds the whole window here); every other feature is
    normalised by the capacity, the time limit L or nothing, so it means the same on any cluster.
    ``UsageError`` (one line) when the layouts cannot match."""
    if agent_env.observation != "bracis" or trace_env.observation != "bracis":
        raise UsageError(f"{who}: trained on the {agent_env.observation!r} observation; only the bracis (compact "
                         f"MDP-design) state has a size independent of the cluster, and the trace env's is "
                         f"{trace_env.observation!r}")
    if agent_env.feature_shape() != trace_env.feature_shape():
        shape = lambda e: f"{e.num_slots} slots, horizon {e.horizon}, {e.num_res} resource(s)"  # noqa: E731
        raise UsageError(f"{who}: its state has {shape(agent_env)}, the trace env's {shape(trace_env)}: the layouts "
                         "differ (set env_options num_slots / horizon to match)")
    if agent_env.time_limit != trace_env.time_limit:
        raise UsageError(f"{who}: normalises time by L = {agent_env.time_limit}, the trace env by L = "
                         f"{trace_env.time_limit} (set env_options.time_limit to match)")
    if agent_env.num_actions != trace_env.num_actions:
        raise UsageError(f"{who}: {agent_env.num_actions} actions, the trace env {trace_env.num_actions}")
    scale = np.ones(trace_env.feature_shape(), np.float32)
    backlog_scale = max(trace_env.backlog_size, 1) / max(agent_env.backlog_size, 1)
    scale[bracis_backlog_index(trace_env)] = backlog_scale
    return Partial(_rescaled, policy, jnp.asarray(scale)), float(backlog_scale)


def _agent_seeds(spec: str):
    """``[(name, source, env name, seed, algo, algo config, env, params)]`` of a ``--synthetic`` entry."""
    if spec in pretrained.names():
        agent = pretrained.load(spec)
        config = agent.config
        return [(f"{SYNTHETIC}:{spec}", spec, config.env, agent.record["seed"], config.algo, config.algo_config(),
                 agent.variant.env, agent.params)]
    run = Path(spec)
    if not (run / "config.json").exists():
        raise UsageError(f"--synthetic {spec}: neither a pretrained policy ({', '.join(pretrained.names())}) nor a "
                         "run directory (config.json)")
    experiment, states = load_run(run)
    config = experiment.config
    trained_on = config.env  # another trace's agent (swf-compact) also runs here: a transfer between logs
    if config.env == trace_windows.NAME:
        trace = config.env_options.get("trace", trace_windows.VARIANTS[trace_windows.NAME]["trace"])
        trained_on += f" windows of {trace}"
    return [(f"{SYNTHETIC}:{run.name}-s{seed}", str(run), trained_on, seed, config.algo, experiment.algo,
             experiment.variant.env, jax.tree.map(lambda x, i=index: x[i], states.params))
            for index, seed in enumerate(config.seeds)]


def load_synthetic(specs: list[str], variant) -> list[SyntheticAgent]:
    """The ``--synthetic`` agents, checked against ``variant``'s env (every seed of a run directory)."""
    agents = []
    for spec in specs:
        for name, source, env_name, seed, algo, algo_config, env, params in _agent_seeds(spec):
            who = f"--synthetic {spec} ({env_name})"
            policies = [ALGORITHMS[algo].policy_from(algo_config, env, params, greedy) for greedy in (True, False)]
            if hasattr(policies[0], "initial_carry"):
                raise UsageError(f"{who}: a recurrent policy; the trace env runs feed-forward policies")
            (greedy, backlog_scale), (sampled, _) = (adapt_observations(p, env, variant.env, who) for p in policies)
            notes = []
            if (variant.env.runtime_model == "requested" and getattr(env, "runtime_model", "actual") == "actual"
                    and not variant.facts["requested_times"].startswith("ABSENT")):
                notes.append("trained where run times are known, here it sees requested times")
            if env.stepping != variant.env.stepping:
                notes.append(f"run with its own {env.stepping}-based steps (the study's are "
                             f"{variant.env.stepping}-based)")
            if backlog_scale != 1.0:
                notes.append(f"backlog length scaled to its backlog of {env.backlog_size}")
            agents.append(SyntheticAgent(name, source, env_name, seed, greedy, sampled, env.stepping, tuple(notes),
                                         backlog_scale))
    return agents


def stepping_variants(agents: list[SyntheticAgent], env_options: dict, variant) -> dict:
    """``{stepping: swf-compact variant}``: the study's, and one per other stepping the agents were
    trained with (the same windows and dynamics; stepping only decides when a policy is asked)."""
    variants = {variant.env.stepping: variant}
    for agent in agents:
        if agent.stepping not in variants:
            variants[agent.stepping] = registry.build(trace_windows.NAME, **{**env_options, "stepping": agent.stepping})
    return variants


def evaluate_synthetic(agents: list[SyntheticAgent], variants: dict, episodes: int, key):
    """``({row name: job table}, {row name: label}, eval.json's description)`` of the synthetic agents on
    the held-out windows, each in the variant of its own stepping (:func:`stepping_variants`)."""
    tables, labels, described = {}, {}, {}
    for agent in agents:
        mine = variants[agent.stepping]
        batched, _ = mine.held_out()
        tables[agent.name] = job_table(make_evaluator(mine.env, agent.greedy)(batched, key))
        tables[f"{agent.name}-sampled"] = job_table(make_evaluator(mine.env, agent.sampled, episodes)(batched, key))
        what = f"trained on {agent.env_name} ({agent.source}, seed {agent.seed})"
        caveat = f"; {'; '.join(agent.notes)}" if agent.notes else ""
        labels[agent.name] = f"{what}, greedy{caveat}"
        labels[f"{agent.name}-sampled"] = f"{what}, sampled, {episodes} episodes per window{caveat}"
        described[agent.name] = {"source": agent.source, "trained_on": agent.env_name, "seed": agent.seed,
                                 "stepping": agent.stepping, "backlog_scale": agent.backlog_scale,
                                 "differences": list(agent.notes)}
    return tables, labels, described


def choose_on_validation(experiment, run_dir: Path, variant, key) -> tuple[list, dict]:
    """Per seed, the kept checkpoint (every ``keep_every`` iterations) whose greedy policy has the lowest
    mean bounded slowdown on the validation windows, a policy that leaves a validation job unfinished
    never chosen (ties: the later checkpoint). Returns each seed's chosen params and what eval.json
    records: the windows, every checkpoint's score and the choice."""
    config = experiment.config
    batched, windows = variant.validation()
    with Checkpointer(run_dir) as checkpointer:
        steps = [step for step in checkpointer.steps() if step % config.keep_every == 0]
        if not steps:
            raise CheckpointError(f"{run_dir}: no checkpoint at a multiple of keep_every={config.keep_every}")
        scores = {seed: {} for seed in config.seeds}
        chosen = {}
        for step in steps:
            states = checkpointer.restore(experiment.state_template(), step=step)
            for index, seed in enumerate(config.seeds):
                params = jax.tree.map(lambda x: x[index], states.params)
                policy = trained_policies(experiment, params, True)
                stats = held_out_stats(job_table(make_evaluator(variant.env, policy)(batched, key)), batched,
                                       variant.quantum)
                score = float("inf") if stats["leaves_unfinished"] else stats["mean_bounded_slowdown"]
                scores[seed][step] = score
                if seed not in chosen or score <= chosen[seed][0]:
                    chosen[seed] = (score, step, params)
    print("chosen on the validation windows: " + ", ".join(f"seed {seed} iteration {chosen[seed][1]} "
                                                           f"({chosen[seed][0]:.3f})" for seed in config.seeds))
    record = {"windows": windows["windows"], "window_starts": windows["window_starts"],
              "rule": "per seed, the kept checkpoint whose greedy policy has the lowest mean bounded slowdown on the "
                      "validation windows (one leaving a job unfinished never chosen; ties: the later one)",
              "keep_every": config.keep_every, "checkpoints": steps,
              "scores": {str(seed): {str(k): v for k, v in row.items()} for seed, row in scores.items()},
              "chosen_iteration": {str(seed): chosen[seed][1] for seed in config.seeds}}
    return [chosen[seed][2] for seed in config.seeds], record


def _switch_policy(branches: tuple, index, key, obs):
    return jax.lax.switch(index, branches, key, obs)


def evaluate_heuristics(variant, names: list[str], batched, key) -> dict:
    """Each heuristic's :func:`job_table` on the held-out windows from one compiled evaluator (a
    ``lax.switch`` over them, the index an argument): one compilation instead of one per rule."""
    switched = functools.partial(_switch_policy, tuple(variant.heuristic(name) for name in names))
    tables = {}
    for index, name in enumerate(names):
        policy = Partial(switched, jnp.int32(index))  # the same function each time: compiled once
        tables[name] = job_table(make_evaluator(variant.env, policy)(batched, key))
    return tables


def held_out_stats(table: dict, batched, quantum: float) -> dict:
    """Mean bounded slowdown (tau = 10 s; true run times, waits on the step grid) and mean wait
    over finished jobs, with the counts that say what the means cover."""
    jobs = batched.jobset
    run_s = np.asarray(jobs.run_s)[table["jobset"], table["job"]]
    done = table["status"] == "finished"
    wait_s = (table["start"] - table["arrival"]) * quantum
    bsld = bounded_slowdown(wait_s, run_s, BSLD_TAU_SECONDS)
    mean = lambda x: float(np.mean(x[done])) if done.any() else float("nan")  # noqa: E731
    stats = {"mean_bounded_slowdown": mean(bsld), "mean_wait_s": mean(wait_s),
             "mean_slowdown_steps": mean(table["slowdown"]), "jobs": int(done.size), "finished": int(done.sum()),
             "unfinished": int((table["status"] == "unfinished").sum()),
             "dropped": int((table["status"] == "dropped").sum())}
    stats["leaves_unfinished"] = leaves_unfinished(stats)
    return stats


def job_rows(name: str, table: dict, batched, starts: np.ndarray, variant) -> list[dict]:
    """The per-job schedule of one policy on the held-out windows, one dict per job and rollout."""
    jobs, quantum, trace = batched.jobset, variant.quantum, variant.jobs
    index = starts[table["jobset"]] + table["job"]  # the job's row among the trace's kept jobs
    finished = table["status"] == "finished"
    run_s = np.asarray(jobs.run_s)[table["jobset"], table["job"]]
    wait_s = np.where(table["start"] >= 0, (table["start"] - table["arrival"]) * quantum, np.nan)
    bsld = np.where(finished, bounded_slowdown(wait_s, run_s, BSLD_TAU_SECONDS), np.nan)
    return [{"policy": name, "window": int(w), "rollout": int(r), "job_id": int(trace.job_id[i]),
             "submit_s": int(trace.submit_s[i]), "procs": int(trace.procs[i]), "run_s": int(trace.run_s[i]),
             "requested_s": int(trace.requested_s[i]), "arrival_step": int(a), "start_step": int(s),
             "finish_step": int(f), "wait_s": "" if np.isnan(ws) else float(ws),
             "bounded_slowdown": "" if np.isnan(b) else round(float(b), 6), "status": st}
            for w, r, i, a, s, f, ws, b, st in zip(table["jobset"], table["rollout"], index, table["arrival"],
                                                   table["start"], table["finish"], wait_s, bsld, table["status"])]


def write_jobs_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot_curve(run_dir: Path, policies: dict, path: Path, title: str, seed: int) -> None:
    """Training-window mean slowdown (steps) per iteration against the held-out levels of ``seed``'s
    trained policy, FCFS + EASY and the best other heuristic (NaN where no training episode ended)."""
    iterations, values = read_training_curve(run_dir / "metrics.csv", "mean_slowdown")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN iterations: no episode ended there
        series = {"PPO on training windows (mean over seeds)": np.nanmean(values, axis=0)}
    complete = {name: stats for name, stats in policies.items() if not stats["leaves_unfinished"]}
    heuristics = [name for name in complete if complete[name]["kind"] == "heuristic"]
    shown = {*agent_names(seed), "easy"}
    if heuristics:
        shown.add(min(heuristics, key=lambda name: complete[name]["mean_slowdown_steps"]))
    hlines = {f"{name} (held-out)": stats["mean_slowdown_steps"] for name, stats in complete.items() if name in shown}
    learning_curve(iterations, series, path, "iteration", "mean job slowdown (time steps)", hlines, title=title)


def markdown(result: dict) -> str:
    """The report: what was trained on and evaluated on, the table, the ranking, the caveats."""
    facts, training = result["trace_facts"], result["training"]
    split, train_part, held = facts["split"], facts["training"], facts["held_out"]
    lines = [f"# Trace policy: {Path(facts['trace']).name}", "",
             f"Cluster: {facts['num_procs']} processors ({facts['num_procs_from']}); jobs wider than it dropped: "
             f"{facts['too_wide']['count']}. Time step {facts['quantum_s']:g} s; windows of {facts['window']} "
             f"consecutive jobs; runtime model `{facts['runtime_model']}`. Requested times: {facts['requested_times']}.",
             "",
             f"Split at submit time {split['split_submit_s']} s ({split['train_fraction']:.0%} of the jobs before it): "
             f"training jobs {train_part['job_ids'][0]}-{train_part['job_ids'][-1]} ({train_part['jobs']} jobs, "
             f"submitted {train_part['submit_s'][0]}-{train_part['submit_s'][1]} s), held-out jobs "
             f"{held['job_ids'][0]}-{held['job_ids'][1]} ({held['windows']} windows = {held['jobs_used']} jobs, "
             f"{held['jobs_unused_at_end']} left over at the end). Disjoint: {str(facts['disjoint']).lower()}.", "",
             *([f"Validation jobs {facts['validation']['job_ids'][0]}-{facts['validation']['job_ids'][1]} (the last "
                f"{split['validation_fraction']:.0%} of the jobs before the split, {facts['validation']['windows']} "
                "windows) are neither trained on nor held out: each seed's greedy policy is taken from the checkpoint "
                "(every " + str(result['validation']['keep_every']) + " iterations) with the lowest mean bounded "
                "slowdown there, iterations " + ", ".join(f"{v} (seed {k})" for k, v in
                                                          result['validation']['chosen_iteration'].items())
                + "; rows `-last` are the last checkpoint of the same run.", ""] if result.get("validation") else []),
             f"PPO: {training['iterations']} iterations, {training['decisions']:,} decisions per seed, seeds "
             f"{', '.join(map(str, training['seeds']))}, {training['wall_s']:.0f} s of training (all seeds, compilation "
             f"included){' (--quick: a pipeline check, not a result)' if result['quick'] else ''}.",
             *(["", f"Synthetic-trained agents (rows `{SYNTHETIC}:...`): "
                + "; ".join(f"{name} from {d['source']}, trained on {d['trained_on']}"
                            for name, d in result["synthetic"].items())
                + ". They never saw this trace; their labels say where their evaluation differs from their "
                  "training."] if result.get("synthetic") else []),
             "", f"Held-out windows: mean bounded slowdown (tau = {BSLD_TAU_SECONDS:g} s, true run times, waits on the "
                 "step grid) and mean wait over finished jobs.", "",
             "| policy | what it is | mean bounded slowdown | mean wait (s) | finished / jobs |", "|---|---|---|---|---|"]
    for name, stats in result["policies"].items():
        lines.append(f"| {marked(name, stats)} | {stats['label']} | {stats['mean_bounded_slowdown']:.3f} | "
                     f"{stats['mean_wait_s']:.0f} | {stats['finished']} / {stats['jobs']} |")
    lines += ["", ranking(result["policies"], "mean_bounded_slowdown"), ""]
    if any(s["leaves_unfinished"] for s in result["policies"].values()):
        lines.append(LEGEND)
    lines += ["", "Figures: `learning_curve.png`; per-job schedules: `held_out_jobs.csv`."]
    return "\n".join(lines).rstrip() + "\n"


def run_study(args) -> dict:
    """Train, evaluate, write (see the module docstring); returns eval.json's content."""
    overrides = list(QUICK) if args.quick else []
    overrides += [f"iterations={args.iterations}"] if args.iterations else []
    config = load_train_config(args.config, overrides)
    if config.env != trace_windows.NAME:
        raise UsageError(f"{args.config}: env must be {trace_windows.NAME}, got {config.env}")
    cli = {"trace": args.trace, "num_procs": args.num_procs, "window": args.window,
           "runtime_model": args.runtime_model, "train_fraction": args.train_fraction}
    env_options = {**config.env_options, **{k: v for k, v in cli.items() if v is not None}}
    config = dataclasses.replace(config, env_options=env_options, eval_jobsets=0,
                                 seeds=args.seeds or config.seeds)
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    out = Path(args.out)
    with family_registered():
        variant = registry.build(trace_windows.NAME, **env_options)  # input errors before any training
        variant.check_baselines(names)
        if variant.num_validation and not config.keep_every:
            raise UsageError(f"{args.config}: validation windows (env_options.validation_fraction) choose among kept "
                             "checkpoints; set keep_every (e.g. to checkpoint_every)")
        specs = [n.strip() for n in (args.synthetic or "").split(",") if n.strip()]
        synthetic = load_synthetic(specs, variant)  # layout errors before any training
        variants = stepping_variants(synthetic, env_options, variant)
        print(f"{variant.facts['trace']}: {variant.facts['training']['jobs']} training jobs, "
              f"{variant.num_held_out} held-out windows of {variant.window}; {variant.facts['requested_times']}")
        t0 = time.perf_counter()
        train(config, out / "run")
        wall_s = time.perf_counter() - t0
        experiment, states = load_run(out / "run")
    batched, held = variant.held_out()
    starts = variant.held_out_starts()
    key = jax.random.PRNGKey(config.eval_seed)
    last = [jax.tree.map(lambda x, i=index: x[i], states.params) for index in range(len(config.seeds))]
    validation = None
    if variant.num_validation:
        print(f"choosing each seed's checkpoint on {variant.num_validation} validation windows...")
        chosen, validation = choose_on_validation(experiment, out / "run", variant, key)
    print(f"evaluating {len(names)} heuristics and the trained policies on {held['windows']} held-out windows...")
    tables = evaluate_heuristics(variant, names, batched, key)
    labels = dict(LABELS)
    for index, seed in enumerate(config.seeds):  # every seed's policy; one compilation serves them all
        params = chosen[index] if validation else last[index]
        which = (f", checkpoint of iteration {validation['chosen_iteration'][str(seed)]} chosen on the validation "
                 "windows") if validation else ""
        greedy, sampled = agent_names(seed)
        tables[greedy] = job_table(make_evaluator(variant.env, trained_policies(experiment, params, True))(batched, key))
        tables[sampled] = job_table(make_evaluator(variant.env, trained_policies(experiment, params, False),
                                                   args.episodes)(batched, key))
        labels |= {greedy: f"PPO seed {seed}, greedy{which}",
                   sampled: f"PPO seed {seed}, sampled, {args.episodes} episodes per window{which}"}
        if validation:  # beside it, the last checkpoint of the same run: what the choice changed
            policy = trained_policies(experiment, last[index], True)
            tables[f"{greedy}-last"] = job_table(make_evaluator(variant.env, policy)(batched, key))
            labels[f"{greedy}-last"] = f"PPO seed {seed}, greedy, last checkpoint (iteration {config.iterations})"
    trained = set(tables) - set(names)
    if synthetic:
        print(f"evaluating {len(synthetic)} synthetic-trained agent(s) on the same windows...")
    more, more_labels, described = evaluate_synthetic(synthetic, variants, args.episodes, key)
    tables |= more
    labels |= more_labels
    kinds = {name: "heuristic" for name in names} | {name: "trace-trained" for name in trained} | \
        {name: SYNTHETIC for name in more}
    policies, rows = {}, []
    for name, table in tables.items():
        policies[name] = held_out_stats(table, batched, variant.quantum) | {"label": labels.get(name, name),
                                                                             "kind": kinds[name]}
        rows += job_rows(name, table, batched, starts, variant)
    metrics_decisions = int(config.iterations * config.algo_config().num_envs * config.algo_config().num_steps)
    facts = variant.facts
    result = {"trace_facts": facts, "held_out_windows": held, "bsld_tau_s": BSLD_TAU_SECONDS,
              "instances": {"training": {"kind": "trace_jobs", "job_index": facts["training"]["job_index"]},
                            "evaluation": {"kind": "trace_windows", "window_starts": held["window_starts"],
                                           "window": variant.window},
                            "disjoint": facts["disjoint"] and bool(starts.min() >= variant.jobs.num_train)},
              "training": {"config": str(out / "run" / "config.json"), "iterations": config.iterations,
                           "seeds": config.seeds, "decisions": metrics_decisions, "wall_s": round(wall_s, 1)},
              "validation": validation,
              "synthetic": described, "quick": bool(args.quick), "legend": LEGEND, "policies": policies}
    out.mkdir(parents=True, exist_ok=True)
    (out / "eval.json").write_text(json.dumps(result, indent=1))
    (out / "report.md").write_text(markdown(result))
    write_jobs_csv(out / "held_out_jobs.csv", rows)
    plot_curve(out / "run", policies, out / "learning_curve.png",
               f"PPO on {Path(facts['trace']).name} windows ({config.iterations} iterations)", config.seeds[0])
    for name, stats in policies.items():
        print(f"{marked(name, stats):>22s}  bsld {stats['mean_bounded_slowdown']:8.3f}  wait {stats['mean_wait_s']:9.0f} s  "
              f"finished {stats['finished']}/{stats['jobs']}")
    print(ranking(policies, "mean_bounded_slowdown"))
    print(f"wrote {out / 'report.md'}, eval.json, learning_curve.png, held_out_jobs.csv")
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.trace_policy", description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True, help="an SWF file or dataset:NAME")
    parser.add_argument("--out", required=True, type=Path, help="output directory (a new one)")
    parser.add_argument("--quick", action="store_true", help="a few small iterations: a pipeline check in minutes")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="a swf-compact training config (YAML)")
    parser.add_argument("--iterations", type=int, help="training iterations (default the config's, or --quick's)")
    parser.add_argument("--num-procs", type=int, help="cluster size (default the trace header's MaxProcs)")
    parser.add_argument("--window", type=int, help="consecutive jobs per window (default the config's)")
    parser.add_argument("--train-fraction", type=float, help="share of the jobs in the training part (default 0.7)")
    parser.add_argument("--runtime-model", choices=trace_windows.RUNTIME_MODELS,
                        help="what policies see as a job's length: requested (default) or actual")
    parser.add_argument("--policies", default=",".join(DEFAULT_POLICIES), help="heuristics to compare with")
    parser.add_argument("--episodes", type=int, default=4, help="sampled policy: episodes per held-out window")
    parser.add_argument("--synthetic", metavar="NAME|RUN_DIR[,...]",
                        help="agents trained elsewhere to evaluate on the same windows: pretrained names "
                             "(python -m jaxsched.pretrained list, e.g. bracis7-ppo-6m) or run directories "
                             "(a synthetic scenario's, or another trace's swf-compact run)")
    parser.add_argument("--seeds", type=lambda text: [int(s) for s in text.split(",")],
                        help="training seeds, comma-separated, trained together (default the config's)")
    args = parser.parse_args(argv)
    try:
        if args.episodes < 1:
            raise UsageError(f"--episodes must be >= 1, got {args.episodes}")
        if args.iterations is not None and args.iterations < 1:
            raise UsageError(f"--iterations must be >= 1, got {args.iterations}")
        if (args.out / "run" / "config.json").exists():
            raise UsageError(f"{args.out} already holds a run; choose another --out")
        run_study(args)
    except (UsageError, ConfigError, InputError, CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
