"""Training throughput beside the paper's own stack: ``python -m jaxsched.bench train-sb3`` (issue 52, item 3).

The BRACIS'21 agents were trained with Stable-Baselines3 PPO (torch) on sched-rl-gym. This command trains,
in one run, (a) SB3 PPO on sched-rl-gym's ``CompactRmEnv`` (``../shared/reference/sched-rl-gym``, loaded
at run time, never copied) and (b) jaxsched's PPO, on the same scenario and with the same
hyper-parameters, those of ``--config`` (default ``configs/mdp_ppo_compact.yaml``), each mapped onto
SB3's names and printed (:func:`sb3_mapping`). Each side trains for a fixed decision budget, updates
included, in its own process pinned to the same cores (``--cores``: torch and XLA sized to them);
reported: decisions per second (compilation and a one-iteration warm-up excluded, after
``block_until_ready``), the wall-clock each would need for the paper's 3M decisions (extrapolated from
that rate) and the ratio.

What the mapping cannot make equal (said in the output): SB3's PPO has no action masks (the paper's agents
had none; the reference treats an empty slot as "schedule nothing"), and it discounts by gamma per decision
where jaxsched's event-based config discounts by gamma^(ticks elapsed). Neither changes the work per decision.

SB3 and torch are a bench-only extra (``pip install 'jaxsched[bench-sb3]'``), never a core or test
dependency: where they or the reference are absent the SB3 row is skipped with a one-line message (the
command exits 2 instead when ``--rows`` names it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import gymnasium
import jax
import numpy as np

from jaxsched.bench.reference import DEFAULT_REFERENCE, ReferenceMissing, _import_from, check_reference, how_to_get
from jaxsched.core.devices import with_host_devices
from jaxsched.errors import ConfigError
from jaxsched.experiment import Experiment, load_train_config

PAPER_DECISIONS = 3_000_000  # BRACIS'21: "three million time-steps as perceived by the agent" per run
DEFAULT_CONFIG = Path("configs/mdp_ppo_compact.yaml")
ROWS = ("sb3", "jaxsched")
WORKER = "jaxsched.bench.sb3_worker"  # the worker process (imports torch and SB3: the bench-sb3 extra)
INSTALL = "pip install 'jaxsched[bench-sb3]' (torch CPU + stable-baselines3)"
RESULT = "RESULT "


# ------------------------------------------------------------------------------------ the mapping
def sb3_policy_kwargs(algo) -> dict:
    """SB3 ``policy_kwargs`` of the config's network: SB3's default ``MlpPolicy`` torsos (one for the policy,
    one for the value: the paper's 24,332 parameters) for ``separate_critic``, else one shared torso
    (:func:`shared_torso_class`, ``net_arch=[]``), as jaxsched's default ``ActorCritic``."""
    if algo.separate_critic:
        return dict(net_arch=dict(pi=[algo.hidden] * algo.layers, vf=[algo.hidden] * algo.layers))
    return dict(net_arch=[], features_extractor_kwargs=dict(hidden=algo.hidden, layers=algo.layers))


# jaxsched's PPOConfig field -> SB3 PPO's argument of the same meaning (the same value on both sides)
SAME_MEANING = (("num_envs", "n_envs"), ("num_steps", "n_steps"), ("minibatch_size", "batch_size"),
                ("update_epochs", "n_epochs"), ("lr", "learning_rate"), ("gamma", "gamma"),
                ("gae_lambda", "gae_lambda"), ("clip_eps", "clip_range"), ("ent_coef", "ent_coef"),
                ("vf_coef", "vf_coef"), ("max_grad_norm", "max_grad_norm"),
                ("normalize_advantages", "normalize_advantage"))


def sb3_mapping(algo) -> list[tuple[str, object, str, object]]:
    """``(jaxsched name, value, SB3 name, value)`` for every hyper-parameter of a :class:`PPOConfig`
    that SB3's ``PPO`` has: E environments x T steps per rollout on both sides (SB3: ``n_envs``
    environments in a ``DummyVecEnv``, ``n_steps`` each), then ``update_epochs`` passes in minibatches."""
    torsos = "separate policy and value torsos" if algo.separate_critic else "one torso shared by both heads"
    return [(ours, getattr(algo, ours), sb3, getattr(algo, ours)) for ours, sb3 in SAME_MEANING] + [
        ("hidden, layers, separate_critic", (algo.hidden, algo.layers, algo.separate_critic),
         "policy_kwargs", f"{sb3_policy_kwargs(algo)} ({algo.layers} x {algo.hidden} tanh, {torsos})"),
        ("Adam eps (fixed)", 1e-5, "Adam eps (SB3's PPO default)", 1e-5)]


def sb3_kwargs(algo) -> dict:
    """``PPO(...)`` keyword arguments (and ``n_envs``) of :data:`SAME_MEANING` and the network."""
    return dict({sb3: getattr(algo, ours) for ours, sb3 in SAME_MEANING}, policy_kwargs=sb3_policy_kwargs(algo))


def mapping_lines(algo) -> list[str]:
    return [f"  {ours:34s} {str(value):>18s} -> {sb3} {sb3_value}" for ours, value, sb3, sb3_value in sb3_mapping(algo)]


def reference_env_kwargs(variant) -> dict:
    """sched-rl-gym ``CompactRmEnv`` keyword arguments for a BRACIS'21 compact variant of jaxsched: the same
    cluster, slots, horizon, backlog, time limit (the paper's T = 100, its observation's scale), workload
    (its ``deeprm`` generator: both dominant-resource generators; memory ignored when jaxsched counts only
    processors), stepping and reward. The reference's discount of skipped ticks is set by the caller."""
    env, workload = variant.env, variant.workload
    if env.observation != "bracis":
        raise ValueError(f"train-sb3 needs the BRACIS'21 compact observation (env_options.observation=bracis), "
                         f"got {env.observation!r}")
    return dict(job_slots=env.num_slots, processors=env.capacity, memory=env.capacity, time_horizon=env.horizon,
                backlog_size=env.backlog_size, time_limit=env.time_limit, ignore_memory=env.num_res == 1,
                simulation_type="event_based" if env.stepping == "event" else "time_based",
                reward_jobs="job_slots" if env.reward_jobs == "visible" else "all",
                workload={"type": "deeprm", "new_job_rate": float(workload.job_rate),
                          "max_job_size": env.max_job_size, "max_job_len": env.max_job_len,
                          "small_job_chance": float(workload.small_job_prob)})


# ------------------------------------------------------------------------------ what can run here
def sb3_missing() -> str | None:
    """Why SB3 PPO cannot run here (None: torch and stable-baselines3 import)."""
    absent = [name for name in ("torch", "stable_baselines3") if importlib.util.find_spec(name) is None]
    return f"{' and '.join(absent)} not installed ({INSTALL})" if absent else None


def reference_missing(folder: Path) -> str | None:
    """Why sched-rl-gym cannot run from ``folder`` (the reference root: ``folder / "sched-rl-gym"``), or None."""
    try:
        check_reference("compact", folder)
    except ReferenceMissing as error:
        return f"the sched-rl-gym reference is not usable ({error}); {how_to_get(['compact'], folder)[1].strip()}"
    return None


def plan_rows(requested: list[str] | None, missing: dict[str, str | None]) -> tuple[list[str], list[str], int]:
    """``(rows to run, skip messages, exit status)``. ``requested`` None: the default rows, each skipped with
    a message when it cannot run; named rows (``--rows``) that cannot run make the command exit 2."""
    explicit = requested is not None
    rows, messages = [], []
    for row in (requested or list(ROWS)):
        why = missing.get(row)
        if why is None:
            rows.append(row)
        else:
            messages.append(f"skipped: the {'SB3 PPO' if row == 'sb3' else row} row: {why}")
    return rows, messages, (2 if explicit and messages else 0)


# --------------------------------------------------------------------------------------- workers
def _gym_adapter(kwargs: dict, folder: Path):
    """sched-rl-gym's ``CompactRmEnv`` (old 4-tuple Gym API) behind the Gymnasium API SB3 2.x needs."""
    (compact_env,) = _import_from(folder, ["schedgym.envs.compact_env"])

    class ReferenceCompact(gymnasium.Env):
        def __init__(self):
            self.env = compact_env.CompactRmEnv(**kwargs)
            self.observation_space, self.action_space = self.env.observation_space, self.env.action_space

        def reset(self, *, seed=None, options=None):
            return np.asarray(self.env.reset(), np.float32), {}

        def step(self, action):
            state, reward, done, info = self.env.step(int(action))
            return np.asarray(state, np.float32), float(reward), bool(done), False, info

    return ReferenceCompact


def run_jaxsched(spec: dict) -> dict:
    """jaxsched's PPO from the config: the first chunk call (compilation) excluded, then whole chunks of
    ``chunk`` iterations until ``spec["decisions"]`` are reached, each after ``block_until_ready``."""
    config = load_train_config(Path(spec["config"]), spec["overrides"] + [f"seeds=[{spec['seed']}]", "devices=1"])
    experiment = Experiment.from_config(config)
    states, _ = experiment.initial_states(log=lambda *_: None)
    per_call = config.chunk * experiment.algo.num_envs * experiment.algo.num_steps
    chunk = experiment.make_chunk(config.chunk)
    t0 = time.perf_counter()
    states, metrics = jax.block_until_ready(chunk(states))
    compile_s = time.perf_counter() - t0
    calls = max(1, -(-spec["decisions"] // per_call))
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    for _ in range(calls):
        states, metrics = jax.block_until_ready(chunk(states))
    seconds = time.perf_counter() - t0
    decisions = int(metrics["decisions"].sum()) * calls
    params = jax.tree.leaves(states.params)
    return {"side": "jaxsched", "decisions": decisions, "seconds": seconds, "decisions_per_s": decisions / seconds,
            "warmup_s": compile_s, "parameters": sum(int(p.size) // p.shape[0] for p in params),
            "load_before": load, "load_after": os.getloadavg()[0], "iterations_per_call": config.chunk,
            "xla_devices": len(jax.devices()), "versions": f"jax {jax.__version__}"}


def _version(module: str) -> str:
    return version(module.replace("_", "-"))


def worker_command(side: str, spec: dict, cores: int) -> tuple[list[str], dict]:
    """The worker's command line, pinned to the first ``cores`` cores before it starts (every thread torch
    or XLA makes inherits the pin), and its environment: thread pools sized to ``cores``, one XLA device."""
    pin = (f"import os, sys; os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:{cores}]); "
           f"os.execv(sys.argv[1], sys.argv[1:])")
    command = [sys.executable, "-c", pin, sys.executable, "-m", WORKER, side, json.dumps(spec)]
    environment = dict(os.environ, NPROC=str(cores), OMP_NUM_THREADS=str(cores), MKL_NUM_THREADS=str(cores),
                       XLA_FLAGS=with_host_devices(os.environ.get("XLA_FLAGS", ""), None))
    return command, environment


def run_worker(side: str, spec: dict, cores: int) -> dict:
    command, environment = worker_command(side, spec, cores)
    done = subprocess.run(command, env=environment, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"train-sb3: the {side} worker failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len(RESULT):])


# ------------------------------------------------------------------------------------- the command
def add_parser(sub) -> None:
    """The ``train-sb3`` subcommand of ``python -m jaxsched.bench``."""
    parser = sub.add_parser("train-sb3", help="PPO training decisions/s: SB3 (torch CPU) on sched-rl-gym vs "
                            "jaxsched, same scenario and hyper-parameters, same cores")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG,
                        help="a PPO config with the compact (bracis) observation; both sides use its values")
    parser.add_argument("overrides", nargs="*", help="key=value config overrides (both sides)")
    parser.add_argument("--rows", help=f"comma list of {', '.join(ROWS)} (default: both, a row that cannot run "
                        "here skipped with a message; named rows that cannot run: exit 2)")
    parser.add_argument("--sb3-decisions", type=int, default=32_000, help="SB3's timed decision budget")
    parser.add_argument("--jax-decisions", type=int, default=320_000,
                        help="jaxsched's timed decision budget (rounded up to whole chunks)")
    parser.add_argument("--cores", default="1", help="comma list of core counts; each pair of rows runs with both "
                        "sides pinned to that many cores (torch threads, XLA's pool: NPROC; one XLA device)")
    parser.add_argument("--reference", type=Path, default=None, help="the reference folder (default ../shared/reference)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/bench_train_sb3.json"))


def run(args, parser) -> int:
    requested = None if args.rows is None else [r.strip() for r in args.rows.split(",") if r.strip()]
    if requested is not None and (not requested or any(r not in ROWS for r in requested)):
        parser.error(f"--rows must be a comma list of {', '.join(ROWS)}, got {args.rows!r}")
    try:
        cores = [int(c) for c in args.cores.split(",")]
    except ValueError:
        parser.error(f"--cores must be comma-separated integers, got {args.cores!r}")
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if min(cores) < 1 or max(cores) > available:
        parser.error(f"--cores: each count must lie in 1..{available} (the cores this process may use)")
    if min(args.sb3_decisions, args.jax_decisions) < 1:
        parser.error("--sb3-decisions and --jax-decisions must be >= 1")
    root = args.reference or DEFAULT_REFERENCE
    try:
        config = load_train_config(args.config, args.overrides)
        if config.algo != "ppo":
            raise ConfigError(f"{args.config}: train-sb3 compares PPO, the config's algo is {config.algo!r}")
        experiment = Experiment.from_config(config)
        reference_env = reference_env_kwargs(experiment.variant)
    except (ConfigError, ValueError) as error:
        parser.error(str(error))
    algo = experiment.algo
    reference_env["gamma"] = algo.gamma  # the reference's discount of skipped ticks (event stepping)
    why = sb3_missing() or reference_missing(root)
    rows, messages, status = plan_rows(requested, {"sb3": why, "jaxsched": None})
    for message in messages:
        print(message)
    if status:
        return status
    hardware = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    print(f"hardware: {hardware}; load average {os.getloadavg()[0]:.2f}")
    print(f"scenario: {config.env} {config.env_options}; reference: sched-rl-gym CompactRmEnv({reference_env})")
    print(f"hyper-parameters ({args.config}{' ' + ' '.join(args.overrides) if args.overrides else ''}; "
          "jaxsched -> SB3 PPO):")
    print("\n".join(mapping_lines(algo)))
    print("  not mapped: SB3's PPO has no action masks (the paper's had none); it discounts by gamma per decision, "
          "jaxsched's event stepping by gamma^ticks")
    spec = {"config": str(args.config), "overrides": list(args.overrides), "seed": args.seed,
            "sb3": sb3_kwargs(algo), "reference_env": reference_env, "reference": str(root / "sched-rl-gym")}
    results = []
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save(rows_so_far):
        args.out.write_text(json.dumps({"hardware": hardware, "config": str(args.config), "overrides": args.overrides,
                                        "mapping": [list(map(str, m)) for m in sb3_mapping(algo)],
                                        "reference_env": reference_env, "skipped": messages, "rows": rows_so_far},
                                       indent=1))

    for count in cores:
        pair = {}
        for side in rows:
            decisions = args.sb3_decisions if side == "sb3" else args.jax_decisions
            row = run_worker(side, dict(spec, decisions=decisions, cores=count), count)
            row.update(cores=count, batch=f"{algo.num_envs} envs x {algo.num_steps} steps per update",
                       hours_for_paper_decisions_extrapolated=PAPER_DECISIONS / row["decisions_per_s"] / 3600)
            pair[side] = row
            results.append(row)
            name = "SB3 PPO on sched-rl-gym" if side == "sb3" else "jaxsched PPO"
            print(f"cores={count}  {name:24s} {row['decisions']:>8,} decisions in {row['seconds']:7.1f} s -> "
                  f"{row['decisions_per_s']:>9,.0f} decisions/s incl. updates ({row['parameters']:,} parameters; "
                  f"load {row['load_before']:.2f} -> {row['load_after']:.2f}); 3M decisions: "
                  f"{row['hours_for_paper_decisions_extrapolated']:.2f} h (extrapolated)", flush=True)
            save(results)  # after each row: a long run interrupted keeps what it measured
        if len(pair) == 2:
            if pair["sb3"]["parameters"] != pair["jaxsched"]["parameters"]:
                raise SystemExit(f"train-sb3: the networks differ: SB3 {pair['sb3']['parameters']:,} parameters, "
                                 f"jaxsched {pair['jaxsched']['parameters']:,}")
            ratio = pair["jaxsched"]["decisions_per_s"] / pair["sb3"]["decisions_per_s"]
            pair["jaxsched"]["ratio_over_sb3"] = ratio
            print(f"cores={count}  jaxsched / SB3: {ratio:.1f}x decisions/s (goal >= 100x on the 2-core CPU)")
        save(results)
    print(f"wrote {args.out}")
    return 0
