"""An experiment: what ``python -m jaxsched.train`` runs and what ``evaluate`` and the studies load.

:class:`TrainConfig` (env, algorithm and its options, seeds, evaluation) is algorithm-agnostic;
:class:`Experiment` builds the variant and the learner's functions from it; :func:`train` runs it
into a run directory (:mod:`jaxsched.core.runs`); :func:`load_run` / :func:`load_policy` read one back.
Configs written by older versions (one mapping per algorithm: ``reinforce: {...}``) are migrated on
load (:func:`migrate`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import signal
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec
from tqdm import tqdm

from jaxsched.algos import ALGORITHMS
from jaxsched.algos.bc import BCConfig, train_behaviour_cloning
from jaxsched.core.config import build_config, load_config, to_dict
from jaxsched.core.devices import (host_copy, is_primary, make_mesh, parse_devices, primary_decides, put_global,
                                   seed_sharding, sharding_instances, sync_processes)
from jaxsched.core import host
from jaxsched.core import instances as instance_ranges
from jaxsched.core.eval_curve import HeldOutCurve, read_eval_curve, read_training_curve
from jaxsched.core.loggers import RunLog, check_logger
from jaxsched.core.plotting import run_learning_curve
from jaxsched.core.progress import evaluate_each
from jaxsched.core.unfinished import leaves_unfinished, legend, legend_text, with_counts
from jaxsched.core.runs import (Checkpointer, check_same_config, read_run_config, read_run_hosts, write_evaluation,
                                write_run_config)
from jaxsched.core.signals import Interrupted, StopOnSignal, wait_until_ready
from jaxsched.errors import CheckpointError, ConfigError, check_positive
from jaxsched.registry import build

TIMING_COLUMNS = ("steps_per_s", "wall_s")


SEED_BATCHING = ("auto", "vmap", "loop")


def stack_trees(trees, axis: int = 0):
    """Pytrees of equal structure stacked leaf by leaf along a new ``axis`` (one per seed)."""
    return jax.tree.map(lambda *xs: jnp.stack(xs, axis=axis), *trees)


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """One experiment. ``algo`` names a learner of ``jaxsched.algos.ALGORITHMS`` and ``algo_options``
    holds the fields of its config class; ``bc`` those of ``BCConfig`` (pre-training)."""

    env: str = "deeprm"
    env_options: dict = dataclasses.field(default_factory=dict)  # jaxsched.make overrides (load, ...)
    algo: str = "reinforce"
    algo_options: dict = dataclasses.field(default_factory=dict)  # the learner's config fields (lr, ...)
    iterations: int = 100
    seeds: list[int] = dataclasses.field(default_factory=lambda: [0])
    bc: dict | None = None  # behaviour-cloning pre-training on a heuristic's labels; null = none
    jobsets_seed: int = 12345  # fixed training data (e.g. jobsets when algo_options.resample_jobsets is false)
    chunk: int = 10  # iterations per jitted call (logging granularity); 1: no scan over iterations,
    # which CNN configs need: XLA:CPU runs convolution gradients inside loops ~10x slower (measured)
    checkpoint_every: int = 50
    checkpoint_minutes: float = 2.0  # also save after a chunk when this many minutes passed since the last
    # save (a killed run loses at most that much); 0: by checkpoint_every only. Saves fall on chunk
    # boundaries, which are multiples of chunk from iteration 0, so resumes replay the same chunks
    keep_every: int = 0  # also keep, past the newest 3, every checkpoint at a multiple of this many iterations (a
    # multiple of checkpoint_every), to choose among them afterwards (trace_policy's validation windows); 0: none
    eval_jobsets: int = 20  # held-out jobsets for the final evaluation; 0 skips it (evaluate the checkpoints apart)
    eval_seed: int = 99991
    baselines: list[str] | None = None  # heuristics in the held-out evaluation; null: the family's default
    devices: int | str = 1  # "auto" (every local device; on CPU one per core) or N: data parallel (core/devices.py)
    eval_every: int = 0  # every this many iterations (a multiple of chunk) each seed's sampled policy on the
    # eval_jobsets held-out instances -> eval_curve.csv, with the baselines there at iteration 0; 0: off
    logger: str = "csv"  # csv (metrics.csv, eval_curve.csv) or tensorboard: the same also as TensorBoard
    # scalars under tensorboard/ (needs the extra jaxsched[tensorboard]: tensorboardX)
    allow_training_instances: bool = False  # evaluate even where the held-out instances overlap the training
    # ones (then eval.json says so and the trained rows are marked); false: such a run is refused before it starts
    seed_batching: str = "auto"  # vmap: the seeds' iterations in one batched call; loop: one call per seed
    # (same compiled step); auto: loop for CNN policies, whose convolutions vmapped over per-seed weights
    # run as grouped convolutions, 3.2x slower on CPU and ~25x on one H200 for 3 seeds (measured). One
    # device only: with several, the seeds are vmapped (and split over the devices)

    def __post_init__(self):
        if self.algo not in ALGORITHMS:
            raise ValueError(f"unknown algo {self.algo!r}; available: {', '.join(sorted(ALGORITHMS))}")
        if self.bc is not None and not ALGORITHMS[self.algo].supports_bc:
            raise ValueError(f"behaviour cloning (bc) does not apply to algo {self.algo!r}")
        check_positive(self, "iterations", "chunk", "checkpoint_every")
        parse_devices(self.devices)
        if not self.checkpoint_minutes >= 0:
            raise ValueError(f"checkpoint_minutes must be >= 0 (0: by checkpoint_every only), "
                             f"got {self.checkpoint_minutes}")
        if self.keep_every < 0 or self.keep_every % self.checkpoint_every:
            raise ValueError(f"keep_every ({self.keep_every}) must be 0 (off) or a multiple of checkpoint_every "
                             f"({self.checkpoint_every}), where checkpoints are saved")
        if self.eval_jobsets < 0:
            raise ValueError("eval_jobsets must be >= 0 (0 skips the held-out evaluation)")
        if self.checkpoint_every % self.chunk:
            raise ValueError(f"checkpoint_every ({self.checkpoint_every}) must be a multiple of chunk "
                             f"({self.chunk}) so that resumed runs replay the same chunks")
        if self.eval_every < 0 or self.eval_every % self.chunk:
            raise ValueError(f"eval_every ({self.eval_every}) must be 0 (off) or a multiple of chunk ({self.chunk}): "
                             "the held-out evaluations fall on chunk boundaries")
        if self.eval_every and not self.eval_jobsets:
            raise ValueError("eval_every needs held-out instances: eval_jobsets must be > 0")
        check_logger(self.logger)
        if self.seed_batching not in SEED_BATCHING:
            raise ValueError(f"seed_batching must be one of {', '.join(SEED_BATCHING)}, got {self.seed_batching!r}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be a non-empty list of distinct integers, got {self.seeds}")

    def algo_config(self):
        """The learner's typed config, built from ``algo_options``."""
        return build_config(ALGORITHMS[self.algo].config_cls, self.algo_options)

    def bc_config(self) -> BCConfig | None:
        return None if self.bc is None else build_config(BCConfig, self.bc)


LEGACY_ALGO_KEYS = ("reinforce", "ppo", "dqn", "cvd")  # older configs: one mapping per algorithm


def migrate(values: dict) -> dict:
    """Older configs' per-algorithm mappings (``reinforce: {...}``, ``cvd: {...}``) become
    ``algo_options``; the selected algorithm's mapping wins over ``algo_options`` key by key (so an
    override ``reinforce.lr=3e-4`` still works). A non-empty mapping of another algorithm is an error."""
    values = dict(values)
    algo = values.get("algo", TrainConfig.algo)
    options = dict(values.get("algo_options") or {})
    for name in LEGACY_ALGO_KEYS:
        legacy = values.pop(name, None)
        if not legacy:
            continue
        if name != algo:
            raise ConfigError(f"options for {name!r} given, but algo is {algo!r}; put the learner's options "
                              f"under algo_options")
        if not isinstance(legacy, dict):
            raise ConfigError(f"{name}: expected a mapping, got {legacy!r}")
        options.update(legacy)
    if options or "algo_options" in values:
        values["algo_options"] = options
    return values


def train_config(values: dict, overrides: list[str] = ()) -> TrainConfig:
    """A checked :class:`TrainConfig` from a mapping (e.g. a run's config.json) and overrides."""
    return build_config(TrainConfig, values, overrides, migrate=migrate)


def load_train_config(path: Path | None, overrides: list[str] = ()) -> TrainConfig:
    """A checked :class:`TrainConfig` from a YAML file and overrides."""
    return load_config(TrainConfig, path, overrides, migrate=migrate)


@dataclasses.dataclass
class Experiment:
    """Everything built from a config: env, workload, learner functions."""

    config: TrainConfig
    variant: object
    algo: object  # the learner's typed config
    init_fn: object
    update_fn: object

    @property
    def baselines(self) -> tuple[str, ...]:
        """The heuristics of the held-out evaluation: the config's, or the family's default."""
        config_baselines = self.config.baselines
        return tuple(self.variant.default_baselines if config_baselines is None else config_baselines)

    def instances(self) -> dict:
        """The ``instances`` record of the held-out evaluation (:mod:`jaxsched.core.instances`): what
        training draws from, what ``eval_jobsets`` / ``eval_seed`` evaluate on, whether they are disjoint."""
        config = self.config
        return instance_ranges.record(
            instance_ranges.training_instances(self.variant, config, self.algo),
            instance_ranges.held_out_instances(self.variant, config.eval_jobsets, config.eval_seed),
            allowed=config.allow_training_instances)

    def check_instances(self) -> None:
        """``ConfigError`` when the held-out evaluation (final or ``eval_every``) would run on training
        instances and ``allow_training_instances`` is not set."""
        if not self.config.eval_jobsets:
            return
        try:
            instance_ranges.check(self.instances(), self.config.allow_training_instances,
                                  "allow_training_instances=true (train --allow-training-instances)")
        except ValueError as error:
            raise ConfigError(str(error)) from None

    @classmethod
    def from_config(cls, config: TrainConfig) -> "Experiment":
        try:
            variant = build(config.env, **config.env_options)
            if config.baselines is not None:
                variant.check_baselines(config.baselines)
            algo = config.algo_config()
            config.bc_config()
        except (ValueError, TypeError) as error:
            raise ConfigError(str(error)) from None
        init_fn, update_fn = ALGORITHMS[config.algo].make_train(variant, algo,
                                                                jax.random.PRNGKey(config.jobsets_seed))
        return cls(config, variant, algo, init_fn, update_fn)

    def initial_states(self, log=print):
        """One train state per seed, stacked; behaviour-cloned initial params when configured.

        Also returns one record per behaviour-cloned seed (accuracy, epoch, wall-clock including
        label generation and compilation), so that time-to-SJF curves can count the pre-training."""
        states, cloning = [], []
        bc = self.config.bc_config()
        for seed in self.config.seeds:
            key = jax.random.PRNGKey(seed)
            initial = None
            if bc is not None:
                bc_key, key = jax.random.split(key)
                t0 = time.perf_counter()
                result = train_behaviour_cloning(self.variant, bc, bc_key)
                jax.block_until_ready(result.params)
                wall_s = time.perf_counter() - t0
                log(f"seed {seed}: behaviour cloning best validation accuracy {result.best_val_acc:.3f} "
                    f"({result.best_val_acc_ties:.3f} up to the teacher's ties, which {result.val_tie_fraction:.0%} "
                    f"of decisions have) at epoch {result.best_epoch} ({result.num_train} train / "
                    f"{result.num_val} val decisions, {wall_s:.0f} s)")
                cloning.append({"seed": seed, "best_val_acc": float(result.best_val_acc),
                                "best_val_acc_ties": float(result.best_val_acc_ties),
                                "val_tie_fraction": float(result.val_tie_fraction),
                                "best_epoch": int(result.best_epoch), "train_decisions": int(result.num_train),
                                "val_decisions": int(result.num_val), "wall_s": round(wall_s, 2)})
                initial = result.params
            states.append(self.init_fn(key, initial))
        return stack_trees(states), cloning

    def state_template(self):
        """Zeros shaped like the stacked train states (what a checkpoint restores into)."""
        def init_all():
            states = [self.init_fn(jax.random.PRNGKey(seed)) for seed in self.config.seeds]
            return stack_trees(states)
        return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(init_all))

    @functools.cached_property
    def mesh(self):
        """The devices' mesh (over every process's devices); None for one device in one process, and in
        one process also when neither the seeds nor the learner's instances divide over the devices:
        the run would be replicated on every device, slower than on one (CVD-RL, 1 seed and 5
        environments on 2 devices: 0.37x, measured by ``bench train``)."""
        if self.config.devices == 1 and jax.process_count() == 1:
            return None
        mesh = make_mesh(self.config.devices)
        if jax.process_count() == 1 and not self._divides(mesh.size):
            return None
        return mesh

    def _divides(self, size: int) -> bool:
        """Whether the seeds, or the instances the learner splits (its environments or jobsets), divide
        evenly over ``size`` devices."""
        instances = next((getattr(self.algo, name) for name in ("num_envs", "num_jobsets")
                          if getattr(self.algo, name, None) is not None), None)
        return len(self.config.seeds) % size == 0 or (instances is not None and instances % size == 0)

    @property
    def seeds_in_turn(self) -> bool:
        """Whether each seed's chunk is its own call (``seed_batching``) rather than all seeds vmapped."""
        if self.mesh is not None and self.mesh.size > 1:
            return False
        mode = self.config.seed_batching
        return mode == "loop" or (mode == "auto" and getattr(self.algo, "network", None) == "cnn")

    def make_chunk(self, length: int):
        """A jitted ``states -> (states, metrics [length, seeds])``: ``length`` vmapped iterations in a
        scan, or, for ``length`` 1, the iteration itself (no loop around it). With several devices the
        seeds are split over them when they divide evenly, else each seed's instances are. With
        ``seeds_in_turn`` the same is compiled for one seed and called once per seed."""
        in_turn = self.seeds_in_turn
        update = self.update_fn if in_turn else jax.vmap(self.update_fn)
        if length == 1:
            def chunk(states):
                states, metrics = update(states)
                return states, jax.tree.map(lambda m: m[None], metrics)
        else:
            def chunk(states):
                return jax.lax.scan(lambda s, _: update(s), states, None, length=length)
        mesh = self.mesh
        if in_turn:
            return _seeds_in_turn(jax.jit(chunk), len(self.config.seeds))
        if mesh is None or mesh.size == 1:
            return jax.jit(chunk)
        replicated = NamedSharding(mesh, PartitionSpec())  # metrics: every process reads them whole
        if len(self.config.seeds) % mesh.size == 0:  # states [seeds, ...] split, metrics [length, seeds]
            by_seed = seed_sharding(mesh)
            jitted = jax.jit(chunk, in_shardings=(by_seed,), out_shardings=(by_seed, replicated))
            return lambda states: jitted(put_global(states, by_seed))  # one layout: compiled once
        jitted = jax.jit(chunk, in_shardings=(replicated,), out_shardings=replicated)  # same in and out

        def instances_split(states):
            with sharding_instances(mesh):  # read when the learner's update is traced
                return jitted(put_global(states, replicated))

        return instances_split


def _seeds_in_turn(chunk_one_seed, count: int):
    """``states [seeds, ...] -> (states, metrics [length, seeds])`` from a chunk of one seed's state,
    called once per seed."""
    def chunk(states):
        results = [chunk_one_seed(jax.tree.map(lambda x: x[i], states)) for i in range(count)]
        return (stack_trees([state for state, _ in results]),
                stack_trees([metrics for _, metrics in results], axis=1))
    return chunk


def _finite(tree) -> bool:
    return all(bool(np.all(np.isfinite(x))) for x in jax.tree.leaves(host_copy(tree))
               if np.issubdtype(x.dtype, np.floating))


def train(config: TrainConfig, out: Path, resume: bool = False, log=print, from_step: int | None = None) -> Path:
    """Runs (or resumes) the experiment into the run directory ``out``: learn -> block -> log ->
    checkpoint in jitted chunks of ``chunk`` iterations (as in Stoix), then the held-out evaluation.
    A resume starts from the newest intact checkpoint, or that of iteration ``from_step``, and deletes
    the later ones (it replays them). In a multi-process run (``python -m jaxsched.train --coordinator
    ...``) every process runs this on the same config; the primary one alone logs and writes files
    (orbax saves collectively). SIGTERM or SIGINT (:mod:`jaxsched.core.signals`) saves a checkpoint at
    the next iteration boundary and raises :class:`~jaxsched.core.signals.Interrupted`; a resume then
    gives the uninterrupted run's results bit for bit."""
    with StopOnSignal() as stop:
        return _train(config, Path(out), resume, log, from_step, stop)


def _train(config: TrainConfig, out: Path, resume: bool, log, from_step: int | None, stop: StopOnSignal) -> Path:
    primary = is_primary()
    if not primary:
        log = _silent
    experiment = Experiment.from_config(config)
    experiment.check_instances()  # before anything is written
    if experiment.mesh is None and config.devices != 1:  # a device count above what exists fails here
        log(f"note: devices={config.devices}, but neither the {len(config.seeds)} seed(s) nor the learner's "
            "instances divide over the devices; training on one device (a replicated run is slower)")
    if getattr(experiment.algo, "network", None) == "cnn" and config.chunk > 1:
        log(f"warning: chunk {config.chunk} scans the CNN's iterations, which XLA:CPU runs ~12x slower than "
            "chunk=1 (measured; on a GPU not measured apart from vmapped seeds, see seed_batching)")
    if from_step is not None and not resume:
        raise CheckpointError("from_step applies to a resumed run")
    resolved = to_dict(config)
    if resume:
        check_same_config(to_dict(train_config(read_run_config(out))), resolved, out)
    elif (out / "config.json").exists():
        raise CheckpointError(f"{out} already holds a run; use --resume {out} or another --out")
    with Checkpointer(out, keep_period=config.keep_every or None) as checkpointer:  # closed on every path: an open one leaves orbax's threads behind
        if resume:
            states = checkpointer.restore(experiment.state_template(), step=from_step, log=log)
            start = int(states.iteration[0])
            replayed = checkpointer.discard_after(start)
            log(f"resuming {out} from iteration {start}"
                + (f" (deleted the later checkpoints {', '.join(map(str, replayed))}: replayed)" if replayed else ""))
        else:
            sync_processes("run directory checked")  # before the primary writes into it
            if stop.agreed():  # before behaviour cloning, which can take minutes
                raise Interrupted(stop.signum or signal.SIGTERM, "before training started (nothing to save); "
                                  "the same command starts it")
            states, cloning = experiment.initial_states(log)
            if cloning and primary:
                (out / "behaviour_cloning.json").parent.mkdir(parents=True, exist_ok=True)
                (out / "behaviour_cloning.json").write_text(json.dumps(cloning, indent=1))
            start = 0
        run_log = None
        if primary:
            # each session's machine from its first iteration; a session whose iterations are replayed drops out
            earlier = [h for h in read_run_hosts(out) if h.get("from_iteration", 0) < start] if resume else []
            write_run_config(out, resolved, [*earlier, {"from_iteration": start, **host.describe()}])
            run_log = RunLog(out, config.logger, start if resume else None)
        try:
            curve = None
            if config.eval_every:
                curve = HeldOutCurve(experiment.variant, functools.partial(trained_policies, experiment, greedy=False),
                                     config.seeds, config.eval_jobsets, config.eval_seed)
                if not resume:
                    log(f"held-out curve: the baselines and the initial policies on {curve.description}...")
                    _log_held_out(run_log, curve.heuristic_rows(experiment.baselines))
                    _log_held_out(run_log, curve.trained_rows(0, host_copy(states.params)))
            if start < config.iterations:
                log("compiling the training step (first call; from seconds to a few minutes on CPU)...")
            states = _train_chunks(experiment, states, start, checkpointer, run_log, out, curve, stop,
                                   saved=start if resume else None)
        finally:
            if run_log is not None:
                run_log.close()
    # every iteration is saved now: a signal stops at once (eval.json is written whole or not at all)
    stop.raise_at_once(f"training finished (checkpoint of iteration {config.iterations} in {out}); "
                       f"the held-out evaluation runs with --resume {out}")
    if config.eval_jobsets:  # every process evaluates (no one waits idle at the exit barrier)
        log(f"evaluating the trained policy on {config.eval_jobsets} held-out instances...")
        evaluate_run(experiment, host_copy(states), out, log, write=primary)
    else:
        log("held-out evaluation skipped (eval_jobsets=0)")
    if primary:
        plot_learning_curve(experiment, out)
    return out


def _log_held_out(run_log: RunLog | None, rows: list[dict]) -> None:
    if run_log is not None:
        run_log.held_out(rows)


def plot_learning_curve(experiment: Experiment, out: Path) -> Path:
    """``learning_curve.png``: the family's training metric per iteration (spread over seeds and a
    moving average), the held-out evaluations of ``eval_curve.csv`` and the baselines there, if any."""
    config, variant = experiment.config, experiment.variant
    metric = variant.headline.train_metric
    held_out = None
    if (out / "eval_curve.csv").exists():
        iterations, values, baselines = read_eval_curve(out / "eval_curve.csv", metric)
        held_out = (iterations, values, baselines, f"{config.eval_jobsets} held-out instances (seed {config.eval_seed})")
    load = getattr(getattr(variant, "workload", None), "load", None)
    title = f"{config.env}{f' at load {load:g}' if load is not None else ''}, {config.algo}, run {out.name}"
    path = out / "learning_curve.png"
    run_learning_curve(path, read_training_curve(out / "metrics.csv", metric), held_out, metric, title,
                       higher_is_better=variant.headline.higher_is_better)
    return path


def _train_chunks(experiment: Experiment, states, start: int, checkpointer: Checkpointer,
                  run_log: RunLog | None, out: Path, curve: HeldOutCurve | None = None,
                  stop: StopOnSignal | None = None, saved: int | None = None):
    """The training loop from iteration ``start``: one jitted chunk at a time, each logged to
    ``run_log`` (None on non-primary processes), evaluated on ``curve``'s held-out instances every
    ``eval_every`` iterations, checkpointed every ``checkpoint_every`` iterations,
    ``checkpoint_minutes`` after the last save, and at the end; and when ``stop`` has received a
    signal: then at the boundary reached (unless ``saved``, the iteration last saved, is it), raising
    :class:`Interrupted`."""
    config = experiment.config
    chunks = {}
    bar = tqdm(total=config.iterations, initial=start, desc="train", unit="it", dynamic_ncols=True,
               mininterval=5.0, disable=run_log is None)
    iteration, last_save = start, time.monotonic()
    try:
        while iteration < config.iterations:
            if stop is not None and stop.agreed():
                if saved != iteration:
                    checkpointer.save(iteration, states)
                raise Interrupted(stop.signum or signal.SIGTERM,  # another process's signal: its own is None
                                  f"saved the checkpoint of iteration {iteration} in {out}; continue with "
                                  f"python -m jaxsched.train --resume {out}")
            length = min(config.chunk, config.iterations - iteration)
            if length not in chunks:
                chunks[length] = experiment.make_chunk(length)
            t0 = time.perf_counter()
            new_states, metrics = chunks[length](states)
            wait_until_ready(metrics)
            elapsed = time.perf_counter() - t0
            metrics = jax.tree.map(np.asarray, metrics)  # [length, seeds]
            if not (np.all(np.isfinite(metrics["loss"])) and _finite(new_states.params)):
                bad = iteration + 1 + int(np.argmax(~np.all(np.isfinite(metrics["loss"]), axis=1)))
                last = checkpointer.latest_step()
                raise FloatingPointError(
                    f"training produced NaN at iteration {bad}; stopped. The last good checkpoint is "
                    f"{'iteration ' + str(last) if last is not None else 'none'} in {out / 'checkpoints'}")
            states = new_states
            steps_per_s = float(metrics["decisions"].sum()) / elapsed
            rows = []
            for i in range(length):
                for s, seed in enumerate(config.seeds):
                    row = {"iteration": iteration + i + 1, "seed": seed}
                    row.update({k: float(v[i, s]) for k, v in metrics.items()})
                    row.update(steps_per_s=steps_per_s, wall_s=elapsed / length)
                    rows.append(row)
            if run_log is not None:
                run_log.training(rows)
            iteration += length
            if curve is not None and iteration % config.eval_every == 0:
                _log_held_out(run_log, curve.trained_rows(iteration, host_copy(states.params)))
            bar.update(length)
            postfix = {"ret": f"{np.mean(metrics['mean_return'][-1]):.2f}", "steps_s": f"{steps_per_s:,.0f}"}
            if "mean_slowdown" in metrics:
                slowdowns = np.asarray(metrics["mean_slowdown"][-1], float)
                # NaN for a seed none of whose rollouts finished in this iteration (short quick runs)
                postfix["slowdown"] = (f"{np.nanmean(slowdowns):.3f}" if np.isfinite(slowdowns).any()
                                       else "none finished")
            bar.set_postfix(postfix)
            overdue = config.checkpoint_minutes > 0 and primary_decides(
                time.monotonic() - last_save >= 60 * config.checkpoint_minutes)
            if iteration % config.checkpoint_every == 0 or iteration == config.iterations or overdue:
                checkpointer.save(iteration, states)
                saved, last_save = iteration, time.monotonic()
    finally:
        bar.close()
    return states


def _silent(*args, **kwargs) -> None:
    """The log of a process that is not the primary one."""


def trained_policies(experiment: Experiment, params, greedy: bool, env=None):
    """The run's policy on its own env, or on ``env`` (the same family with another static size, e.g. a grid
    queue capacity: the policy reads that env's observation)."""
    return ALGORITHMS[experiment.config.algo].policy_from(
        experiment.algo, experiment.variant.env if env is None else env, params, greedy)


def seed_policies(experiment: Experiment, states) -> dict:
    """``trained-s<seed>`` (greedy) and ``trained-s<seed>-sampled`` for each seed of the stacked states."""
    policies = {}
    for s, seed in enumerate(experiment.config.seeds):
        params = jax.tree.map(lambda x: x[s], states.params)
        policies[f"trained-s{seed}"] = trained_policies(experiment, params, greedy=True)
        policies[f"trained-s{seed}-sampled"] = trained_policies(experiment, params, greedy=False)
    return policies


def evaluate_run(experiment: Experiment, states, out: Path, log=print, write: bool = True) -> dict:
    """The trained policy of each seed (greedy and sampled) and the baselines on held-out instances
    (jobsets, start points): ``eval.json`` and the learning-curve plots in ``out`` (unless not ``write``)."""
    config, variant = experiment.config, experiment.variant
    policies = {name: variant.heuristic(name) for name in experiment.baselines} | seed_policies(experiment, states)
    batched, header = variant.held_out(config.eval_jobsets, config.eval_seed)
    tables = evaluate_each(variant, policies, batched, jax.random.PRNGKey(config.eval_seed + 1), "held-out evaluation")
    summary = {name: variant.summarize(table) for name, table in tables.items()}
    instances = experiment.instances()
    for name, stats in summary.items():
        stats["leaves_unfinished"] = leaves_unfinished(stats)
        if name not in experiment.baselines:  # a trained policy
            stats[instance_ranges.FLAG] = not instances["disjoint"]
    if not write:
        return summary
    marks = instance_ranges.legend(summary.values())
    header = header | {"instances": instances, "legend": legend_text(summary.values())}
    if marks:
        header["instances_legend"] = marks[0]
    what = f"{config.eval_jobsets} held-out instances, seed {config.eval_seed}"
    write_evaluation(out, header, summary, lambda stats: _described(variant, stats),
                     what if instances["disjoint"] else f"{what}; ON TRAINING INSTANCES", log)
    for line in legend(summary.values()) + marks:
        log(line)
    variant.plot_learning_curves(out, summary, experiment.baselines, title=f"{config.env} {config.algo}")
    return summary


def _described(variant, stats: dict) -> str:
    """A policy's logged line: the family's, with counts, ``*`` (unfinished) and ``†`` (training instances)."""
    line = with_counts(variant.describe(stats), stats)
    return line + (f"  {instance_ranges.MARK}" if stats.get(instance_ranges.FLAG) else "")


def load_run(run_dir: Path, env: str | None = None, step: int | None = None, log=None):
    """``(experiment, stacked train states)`` of a run's newest intact checkpoint, or that of iteration
    ``step``; ``log`` (default: stderr) warns about damaged ones skipped. ``env`` rebuilds the
    experiment, with the same options, on another registered env (to evaluate a policy there)."""
    run_dir = Path(run_dir)
    saved = read_run_config(run_dir)
    experiment = Experiment.from_config(train_config(saved))
    with Checkpointer(run_dir) as checkpointer:
        states = checkpointer.restore(experiment.state_template(), step=step,
                                      **({} if log is None else {"log": log}))
    if env is not None and env != experiment.config.env:
        experiment = Experiment.from_config(train_config({**saved, "env": env}))
    return experiment, states


def load_policy(run_dir: Path, greedy: bool = True, seed_index: int = 0, step: int | None = None):
    """``(policy, variant, config)`` of a run's newest intact checkpoint, or that of iteration ``step``
    (seed ``seed_index``)."""
    experiment, states = load_run(run_dir, step=step)
    params = jax.tree.map(lambda x: x[seed_index], states.params)
    return trained_policies(experiment, params, greedy), experiment.variant, experiment.config
