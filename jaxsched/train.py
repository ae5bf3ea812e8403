"""Train a learned scheduler: ``python -m jaxsched.train --config configs/X.yaml [key=value ...]``.

    [--seeds 0:3]     several seeds in one process, vmapped (one compiled update for all seeds); a:b or a,b,c
    [--out DIR]       run directory (default: runs/<config name>)
    [--resume DIR]    continue a killed or finished run from its newest intact checkpoint
    [--from-step N]   with --resume: from the checkpoint of iteration N instead (later ones are deleted)
    [--allow-training-instances]   evaluate even on held-out instances that overlap training's (marked †);
                      without it such a run is refused before it starts (jaxsched.core.instances)
    [--coordinator HOST:PORT --num-processes N --process-id I]   one of N processes of a multi-host run
    [--distributed]   the same, with the processes' settings detected (SLURM, Cloud TPU; jax.distributed)

The run directory receives ``config.json`` (the resolved config, and the machine of each session that
trained it: :mod:`jaxsched.core.host`), ``metrics.csv`` (one row per
iteration and seed), orbax checkpoints of the whole train state every ``checkpoint_every``
iterations, ``eval.json`` (the trained policies and the heuristics on held-out instances) and plots.
What runs is :func:`jaxsched.experiment.train`. SIGTERM (a batch scheduler's time limit) or SIGINT
(Ctrl-C) saves a checkpoint at the next iteration boundary and exits with status 143 or 130 after one
line; ``--resume`` then continues to the uninterrupted run's results bit for bit. A second SIGINT stops
at once (the newest checkpoint is kept; :mod:`jaxsched.core.signals`). In a multi-process run every
process runs the same command (only ``--process-id`` differs); their devices form one mesh
(``devices`` counts each process's devices) and process 0 writes the run directory, which must be on
a shared file system.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jaxsched.core.config import parse_seeds
from jaxsched.core.devices import join_spec, restart_for_devices
from jaxsched.core.runs import read_run_config
from jaxsched.core.signals import Interrupted
from jaxsched.errors import CheckpointError, ConfigError, UsageError
from jaxsched.experiment import load_train_config, train, train_config


def _default_out(config_path: Path | None) -> Path:
    return Path("runs") / (config_path.stem if config_path else "default")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.train", description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="YAML experiment config (see configs/)")
    parser.add_argument("overrides", nargs="*", help="key=value overrides, e.g. iterations=50 algo_options.lr=3e-4")
    parser.add_argument("--seeds", help="seeds trained together (vmapped): a:b (a, ..., b - 1) or a,b,c")
    parser.add_argument("--out", type=Path, help="run directory (default runs/<config name>)")
    parser.add_argument("--resume", type=Path, help="continue the run in this directory")
    parser.add_argument("--from-step", type=int, metavar="N",
                        help="with --resume: start from the checkpoint of iteration N (default: the newest intact)")
    parser.add_argument("--allow-training-instances", action="store_true",
                        help="evaluate even where the held-out instances overlap the training ones (the config key "
                             "allow_training_instances=true; eval.json and the trained rows then say so)")
    group = parser.add_argument_group("multi-process runs (jax.distributed)")
    group.add_argument("--coordinator", metavar="HOST:PORT", help="process 0's address (process 0 serves it)")
    group.add_argument("--num-processes", type=int, metavar="N")
    group.add_argument("--process-id", type=int, metavar="I", help="0 .. N-1")
    group.add_argument("--distributed", action="store_true",
                       help="detect the processes from the cluster (SLURM, Cloud TPU) instead")
    group.add_argument("--join-timeout", type=int, default=120, metavar="S",
                       help="seconds to wait for the other processes (default 120)")
    from_command_line = argv is None  # only then may it restart itself with more host devices
    args = parser.parse_args(argv)
    if not (args.config or args.resume or args.overrides):
        parser.print_usage(sys.stderr)
        print("error: give --config FILE (see configs/), --resume DIR or key=value settings", file=sys.stderr)
        return 2
    if args.from_step is not None and not args.resume:
        parser.print_usage(sys.stderr)
        print("error: --from-step N applies to --resume DIR", file=sys.stderr)
        return 2
    try:
        overrides = list(args.overrides)
        if args.seeds:
            overrides.append(f"seeds={parse_seeds(args.seeds)}")
        if args.allow_training_instances:
            overrides.append("allow_training_instances=true")
        if args.resume:
            saved = read_run_config(args.resume)
            config = load_train_config(args.config, overrides) if args.config else train_config(saved, overrides)
        else:
            config = load_train_config(args.config, overrides)
        join = join_spec(args.coordinator, args.num_processes, args.process_id, args.distributed, args.join_timeout)
        if join is not None and not from_command_line:
            raise UsageError("multi-process runs start from the command line (python -m jaxsched.train ...)")
        if from_command_line:
            restart_for_devices(config.devices, "jaxsched.train", sys.argv[1:], join)
        if args.resume:
            train(config, args.resume, resume=True, from_step=args.from_step)
        else:
            train(config, args.out or _default_out(args.config))
    except (ConfigError, CheckpointError, UsageError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except FloatingPointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except Interrupted as stopped:
        sys.stdout.flush()
        print(stopped, file=sys.stderr)
        return stopped.exit_status
    return 0


if __name__ == "__main__":
    sys.exit(main())
