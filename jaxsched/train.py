"""Train a learned scheduler: ``python -m jaxsched.train --config configs/X.yaml [key=value ...]``.

    [--seeds 0,1,2]   several seeds in one process, vmapped (one compiled update for all seeds)
    [--out DIR]       run directory (default: runs/<config name>)
    [--resume DIR]    continue a killed or finished run from its last checkpoint

The run directory receives ``config.json`` (the resolved config), ``metrics.csv`` (one row per
iteration and seed), orbax checkpoints of the whole train state every ``checkpoint_every``
iterations, ``eval.json`` (the trained policies and the heuristics on held-out jobsets) and plots.
An outer Python loop runs jitted chunks of ``chunk`` iterations: learn -> block -> log ->
checkpoint, as in Stoix.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

from jaxsched.algos import ALGORITHMS
from jaxsched.algos.behaviour_cloning import BCConfig, train_behaviour_cloning
from jaxsched.checkpoint import (CheckpointError, Checkpointer, check_same_config, read_run_config,
                                 write_run_config)
from jaxsched.config import ConfigError, build_config, load_config, to_dict
from jaxsched.metrics import summarize
from jaxsched.registry import build
from jaxsched.run_files import per_iteration_means, write_evaluation
from jaxsched.workloads.deeprm import generate_many

TIMING_COLUMNS = ("steps_per_s", "wall_s")


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """One experiment. ``algo`` names a learner of ``jaxsched.algos.ALGORITHMS``; the mapping of the
    same name (``reinforce``, ...) holds its config fields; ``bc`` those of ``BCConfig``."""

    env: str = "deeprm"
    env_options: dict = dataclasses.field(default_factory=dict)  # jaxsched.make overrides (load, ...)
    algo: str = "reinforce"
    iterations: int = 100
    seeds: list[int] = dataclasses.field(default_factory=lambda: [0])
    reinforce: dict = dataclasses.field(default_factory=dict)
    ppo: dict = dataclasses.field(default_factory=dict)
    dqn: dict = dataclasses.field(default_factory=dict)  # VM placement: SchedRL's Double DQN
    cvd: dict = dataclasses.field(default_factory=dict)  # VM placement: CVD-RL
    bc: dict | None = None  # behaviour-cloning pre-training on SJF labels; null = none
    jobsets_seed: int = 12345  # fixed training data (e.g. jobsets when reinforce.resample_jobsets is false)
    chunk: int = 10  # iterations per jitted call (logging granularity); 1: no scan over iterations,
    # which CNN configs need: XLA:CPU runs convolution gradients inside loops ~10x slower (measured)
    checkpoint_every: int = 50
    eval_jobsets: int = 20  # held-out jobsets for the final evaluation; 0 skips it (evaluate the checkpoints apart)
    eval_seed: int = 99991
    baselines: list[str] = dataclasses.field(default_factory=lambda: ["sjf", "packer", "tetris", "random"])

    def __post_init__(self):
        if self.algo not in ALGORITHMS:
            raise ValueError(f"unknown algo {self.algo!r}; available: {', '.join(sorted(ALGORITHMS))}")
        if self.bc is not None and not ALGORITHMS[self.algo].supports_bc:
            raise ValueError(f"behaviour cloning (bc) does not apply to algo {self.algo!r}")
        for name in ("iterations", "chunk", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.eval_jobsets < 0:
            raise ValueError("eval_jobsets must be >= 0 (0 skips the held-out evaluation)")
        if self.checkpoint_every % self.chunk:
            raise ValueError(f"checkpoint_every ({self.checkpoint_every}) must be a multiple of chunk "
                             f"({self.chunk}) so that resumed runs replay the same chunks")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be a non-empty list of distinct integers, got {self.seeds}")

    def algo_config(self):
        """The learner's typed config, from the mapping named like ``algo``."""
        return build_config(ALGORITHMS[self.algo].config_cls, getattr(self, self.algo))

    def bc_config(self) -> BCConfig | None:
        return None if self.bc is None else build_config(BCConfig, self.bc)


@dataclasses.dataclass
class Experiment:
    """Everything built from a config: env, workload, learner functions."""

    config: TrainConfig
    variant: object
    algo: object  # the learner's typed config
    init_fn: object
    update_fn: object

    @classmethod
    def from_config(cls, config: TrainConfig) -> "Experiment":
        try:
            variant = build(config.env, **config.env_options)
            if getattr(variant, "family", "deeprm") == "vm":
                from jaxsched.vm_episodes import check_vm_baselines

                check_vm_baselines(config.baselines)
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
                result = train_behaviour_cloning(self.variant.env, self.variant.params, self.variant.workload,
                                                 bc, bc_key)
                jax.block_until_ready(result.params)
                wall_s = time.perf_counter() - t0
                log(f"seed {seed}: behaviour cloning best validation accuracy {result.best_val_acc:.3f} "
                    f"at epoch {result.best_epoch} ({result.num_train} train / {result.num_val} val decisions, "
                    f"{wall_s:.0f} s)")
                cloning.append({"seed": seed, "best_val_acc": float(result.best_val_acc),
                                "best_epoch": int(result.best_epoch), "train_decisions": int(result.num_train),
                                "val_decisions": int(result.num_val), "wall_s": round(wall_s, 2)})
                initial = result.params
            states.append(self.init_fn(key, initial))
        return jax.tree.map(lambda *xs: jnp.stack(xs), *states), cloning

    def state_template(self):
        """Zeros shaped like the stacked train states (what a checkpoint restores into)."""
        def init_all():
            states = [self.init_fn(jax.random.PRNGKey(seed)) for seed in self.config.seeds]
            return jax.tree.map(lambda *xs: jnp.stack(xs), *states)
        return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(init_all))

    def make_chunk(self, length: int):
        """A jitted ``states -> (states, metrics [length, seeds])``: ``length`` vmapped iterations in a
        scan, or, for ``length`` 1, the iteration itself (no loop around it)."""
        update_all = jax.vmap(self.update_fn)
        if length == 1:
            def one_iteration(states):
                states, metrics = update_all(states)
                return states, jax.tree.map(lambda m: m[None], metrics)

            return jax.jit(one_iteration)
        return jax.jit(lambda s: jax.lax.scan(lambda s, _: update_all(s), s, None, length=length))


def _finite(tree) -> bool:
    return all(bool(jnp.all(jnp.isfinite(x))) for x in jax.tree.leaves(tree)
               if jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating))


class MetricsLog:
    """metrics.csv: one row per (iteration, seed); a resume drops rows past its checkpoint."""

    def __init__(self, path: Path, resume_from: int | None):
        self.path = path
        self.columns: list[str] | None = None
        if resume_from is not None and path.exists():
            with open(path, newline="") as f:
                rows = [r for r in csv.DictReader(f) if int(r["iteration"]) <= resume_from]
            if rows:
                self.columns = list(rows[0])
            with open(path, "w", newline="") as f:
                if self.columns:
                    writer = csv.DictWriter(f, self.columns)
                    writer.writeheader()
                    writer.writerows(rows)
        elif path.exists():
            path.unlink()

    def append(self, rows: list[dict]) -> None:
        if self.columns is None:
            self.columns = list(rows[0])
            with open(self.path, "w", newline="") as f:
                csv.DictWriter(f, self.columns).writeheader()
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, self.columns).writerows(rows)


def run(config: TrainConfig, out: Path, resume: bool = False, log=print) -> Path:
    experiment = Experiment.from_config(config)
    if getattr(experiment.algo, "network", None) == "cnn" and config.chunk > 1:
        log(f"warning: chunk {config.chunk} scans the CNN's iterations, which XLA:CPU runs ~12x slower than "
            "chunk=1 (fine on GPU)")
    resolved = to_dict(config)
    checkpointer = Checkpointer(out)
    if resume:
        check_same_config(read_run_config(out), resolved, out)
        states = checkpointer.restore(experiment.state_template())
        start = int(states.iteration[0])
        log(f"resuming {out} from iteration {start}")
    else:
        if (out / "config.json").exists():
            raise CheckpointError(f"{out} already holds a run; use --resume {out} or another --out")
        states, cloning = experiment.initial_states(log)
        if cloning:
            (out / "behaviour_cloning.json").parent.mkdir(parents=True, exist_ok=True)
            (out / "behaviour_cloning.json").write_text(json.dumps(cloning, indent=1))
        start = 0
    write_run_config(out, resolved)
    metrics_log = MetricsLog(out / "metrics.csv", start if resume else None)

    chunks = {}
    bar = tqdm(total=config.iterations, initial=start, desc="train", unit="it", dynamic_ncols=True,
               mininterval=5.0)
    iteration = start
    try:
        while iteration < config.iterations:
            length = min(config.chunk, config.iterations - iteration)
            if length not in chunks:
                chunks[length] = experiment.make_chunk(length)
            t0 = time.perf_counter()
            new_states, metrics = chunks[length](states)
            jax.block_until_ready(metrics)
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
            metrics_log.append(rows)
            iteration += length
            bar.update(length)
            postfix = {"ret": f"{np.mean(metrics['mean_return'][-1]):.2f}", "steps_s": f"{steps_per_s:,.0f}"}
            if "mean_slowdown" in metrics:
                postfix["slowdown"] = f"{np.nanmean(metrics['mean_slowdown'][-1]):.3f}"
            bar.set_postfix(postfix)
            if iteration % config.checkpoint_every == 0 or iteration == config.iterations:
                checkpointer.save(iteration, states)
    finally:
        bar.close()
        checkpointer.close()
    if config.eval_jobsets:
        evaluate_run(experiment, states, out, log)
    else:
        log("held-out evaluation skipped (eval_jobsets=0)")
    return out


def trained_policies(experiment: Experiment, params, greedy: bool):
    return ALGORITHMS[experiment.config.algo].policy_from(experiment.algo, experiment.variant.env, params, greedy)


def seed_policies(experiment: Experiment, states) -> dict:
    """``trained-s<seed>`` (greedy) and ``trained-s<seed>-sampled`` for each seed of the stacked states."""
    policies = {}
    for s, seed in enumerate(experiment.config.seeds):
        params = jax.tree.map(lambda x: x[s], states.params)
        policies[f"trained-s{seed}"] = trained_policies(experiment, params, greedy=True)
        policies[f"trained-s{seed}-sampled"] = trained_policies(experiment, params, greedy=False)
    return policies


def evaluate_run(experiment: Experiment, states, out: Path, log=print) -> dict:
    """The trained policy of each seed (greedy and sampled) and the baselines on held-out jobsets."""
    from baselines import make_heuristic
    from jaxsched.evaluate import evaluate_jobsets
    from jaxsched.plotting import learning_curve

    config = experiment.config
    if getattr(experiment.variant, "family", "deeprm") == "vm":
        from jaxsched.vm_episodes import evaluate_vm_run

        return evaluate_vm_run(experiment, out, seed_policies(experiment, states), log)
    jobsets = generate_many(jax.random.PRNGKey(config.eval_seed), experiment.variant.workload,
                            config.eval_jobsets)
    key = jax.random.PRNGKey(config.eval_seed + 1)
    policies = {name: make_heuristic(name) for name in config.baselines} | seed_policies(experiment, states)
    tables = evaluate_jobsets(experiment.variant, policies, jobsets, key)
    summary = {name: summarize(table) for name, table in tables.items()}
    write_evaluation(out, {"jobsets": config.eval_jobsets, "seed": config.eval_seed}, summary,
                     lambda stats: f"slowdown {stats['mean_slowdown']:7.3f}  completion "
                                   f"{stats['mean_completion_time']:7.3f}  finished {stats['finished']}/"
                                   f"{stats['jobs']}  dropped {stats['dropped']}",
                     f"{config.eval_jobsets} jobsets, seed {config.eval_seed}", log)
    iterations, means = per_iteration_means(out / "metrics.csv", ("mean_slowdown", "mean_return", "max_return"))
    hlines = {name: summary[name]["mean_slowdown"] for name in config.baselines if name in summary}
    learning_curve(iterations, {"training rollouts (mean over seeds)": means["mean_slowdown"]},
                   out / "learning_curve_slowdown.png", "iteration", "mean job slowdown",
                   {f"{k} (held-out)": v for k, v in hlines.items()}, title=f"{config.env}")
    learning_curve(iterations, {"mean return": means["mean_return"], "max return": means["max_return"]},
                   out / "learning_curve_return.png", "iteration", "episode return", title=f"{config.env}")
    return summary


def load_run(run_dir: Path, env: str | None = None):
    """``(experiment, stacked train states)`` of a run's latest checkpoint. ``env`` rebuilds the
    experiment, with the same options, on another registered env (to evaluate a policy there)."""
    run_dir = Path(run_dir)
    saved = read_run_config(run_dir)
    experiment = Experiment.from_config(build_config(TrainConfig, saved))
    checkpointer = Checkpointer(run_dir)
    states = checkpointer.restore(experiment.state_template())
    checkpointer.close()
    if env is not None and env != experiment.config.env:
        experiment = Experiment.from_config(build_config(TrainConfig, {**saved, "env": env}))
    return experiment, states


def load_trained_policy(run_dir: Path, greedy: bool = True, seed_index: int = 0):
    """``(policy, variant)`` of a run's latest checkpoint, for ``jaxsched.evaluate --checkpoint``."""
    experiment, states = load_run(run_dir)
    params = jax.tree.map(lambda x: x[seed_index], states.params)
    return trained_policies(experiment, params, greedy), experiment.variant, experiment.config


def _default_out(config_path: Path | None) -> Path:
    return Path("runs") / (config_path.stem if config_path else "default")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.train", description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="YAML experiment config (see configs/)")
    parser.add_argument("overrides", nargs="*", help="key=value overrides, e.g. iterations=50 reinforce.lr=3e-4")
    parser.add_argument("--seeds", help="comma list of seeds, trained together (vmapped)")
    parser.add_argument("--out", type=Path, help="run directory (default runs/<config name>)")
    parser.add_argument("--resume", type=Path, help="continue the run in this directory")
    args = parser.parse_args(argv)
    try:
        overrides = list(args.overrides)
        if args.seeds:
            try:
                seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
            except ValueError:
                raise ConfigError(f"--seeds must be comma-separated integers, got {args.seeds!r}") from None
            overrides.append(f"seeds={seeds}")
        if args.resume:
            saved = read_run_config(args.resume)
            config = load_config(TrainConfig, args.config, overrides) if args.config else \
                build_config(TrainConfig, saved, overrides)
            run(config, args.resume, resume=True)
        else:
            config = load_config(TrainConfig, args.config, overrides)
            run(config, args.out or _default_out(args.config))
    except (ConfigError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except FloatingPointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
