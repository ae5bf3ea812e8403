"""What a results item is and how its commands are written: :class:`Step`, :class:`Item`, the ``--quick``
forms and the builders and number helpers every family's items share.

Commands are jaxsched modules with their arguments; ``{out}`` is the output folder (results/ by default) and
``{scratch}`` a folder for intermediate runs that results/ does not keep (runs/reproduce_scratch by default).
``quick`` is appended to a command in ``--quick`` mode (train overrides and flags: the last value wins),
``quick_command`` replaces it. Wall-clock numbers come from the run metadata (metrics.csv ``wall_s``, summed) or
from results/README.md; ``estimate=True`` marks those measured by neither, ``hardware`` says what measured them
(and, with ``run_hardware``, what trained each run whose config.json records no host). A ``headline`` is a
template: each ``{field}`` is one of the item's ``numbers`` (:mod:`jaxsched.reproduction.numbers`), read from the
file it cites whenever the text is written or checked, so that no measured value is typed by hand.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import Callable, Mapping

from jaxsched.reproduction.numbers import Number, NumberError, column


@dataclasses.dataclass(frozen=True)
class Step:
    """One command: a module and its arguments, with placeholders ``{out}`` and ``{scratch}``."""

    command: str
    quick: str = ""  # appended in --quick mode
    quick_command: str | None = None  # replaces the command in --quick mode

    def argv(self, out: str, scratch: str, quick: bool = False) -> list[str]:
        text = self.command
        if quick:
            text = self.quick_command if self.quick_command is not None else f"{text} {self.quick}"
        return [part.format(out=out, scratch=scratch) for part in shlex.split(text)]


# What measured a wall-clock: the project's 2-core CPU, or the GPU some items were lent (jaxsched.core.host.label).
CPU = "2-core CPU"
H200 = "NVIDIA H200"


@dataclasses.dataclass(frozen=True)
class Item:
    """One entry of results/: ``outputs`` are paths under ``{out}``; the item counts as done when they all
    exist. ``inputs`` must exist before it runs; ``needs`` are the items that make them. ``wall_s`` was
    measured (or, with ``estimate``, estimated) on ``hardware``; ``run_hardware`` ({glob of a run folder
    under results/: hardware}, the first match wins) names the machine of the runs that ran elsewhere, and
    ``runs`` the run folders (globs) holding copies of training runs that its commands do not name."""

    id: str
    paper: str
    steps: tuple[Step, ...]
    outputs: tuple[str, ...]
    wall_s: float
    headline: str
    estimate: bool = False
    inputs: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    note: str = ""
    numbers: Mapping[str, Number] = dataclasses.field(default_factory=dict)  # the headline's {fields}
    hardware: str = CPU
    run_hardware: Mapping[str, str] = dataclasses.field(default_factory=dict)
    runs: tuple[str, ...] = ()


# Quick forms: a couple of iterations of a tiny batch, so that every command runs end to end in seconds.
TRAIN_QUICK = "iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=2"
REINFORCE_QUICK = f"{TRAIN_QUICK} algo_options.num_jobsets=2 algo_options.num_rollouts=2"
BC_QUICK = "bc.num_jobsets=4 bc.max_epochs=1"
VM_QUICK = f"{TRAIN_QUICK} algo_options.learning_starts=64"
PPO_QUICK = f"{TRAIN_QUICK} algo_options.num_envs=4 algo_options.num_steps=16"
PPO_SUMMARY_QUICK = f"{PPO_QUICK} iterations=12"  # mdp_summary smooths over 10 iterations
GRID_QUICK = f"{TRAIN_QUICK} env_options.num_jobs=300 env_options.exclude=20 algo_options.num_envs=2 " \
             "algo_options.warm_start_iterations=1"


def train(out: str, config: str, *overrides: str, seeds: str = "", quick: str = TRAIN_QUICK) -> Step:
    """``jaxsched.train`` into ``out`` (options first, overrides last, so quick overrides append)."""
    seeds_flag = f" --seeds {seeds}" if seeds else ""
    return Step(f"jaxsched.train --config {config} --out {out}{seeds_flag} {' '.join(overrides)}".rstrip(),
                quick=quick)


def resume(run: str, iterations: int, quick_iterations: int) -> Step:
    return Step(f"jaxsched.train --resume {run} iterations={iterations}", quick=f"iterations={quick_iterations}")


def copy(source: str, target: str) -> Step:
    """A file kept under another name (e.g. an evaluation before a run was resumed)."""
    return Step(f"copy {source} {target}")


def sweep_cell_name(overrides: list[str]) -> str:
    """The folder ``jaxsched.sweep`` gives its first cell for these ``key=value`` overrides: the rule of
    :func:`jaxsched.sweep.cell_name`, restated here so that the registry imports no command
    (tests/test_reproduce.py checks that the two agree)."""
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", "cell000__" + "__".join(overrides))[:150]


def training_minutes(name: str) -> Callable:
    """Minutes of training of the sweep ``name`` (its cells' metrics.csv ``wall_s`` of seed 0, the seeds vmapped)."""
    def value(root) -> float:
        cells = sorted(f.parent for f in (root / name / "cells").glob("*/metrics.csv*"))  # plain or compressed
        if not cells:
            raise NumberError(f"{name}/cells/*/metrics.csv do not exist")
        return sum(column(root, (c / "metrics.csv").relative_to(root).as_posix(), "wall_s", {"seed": 0}).sum()
                   for c in cells) / 60
    return value


def rounded(items: Mapping[str, Item], item_id: str, *keys: str, fmt: str = ".2f",
            suffix: str = "_r2") -> dict[str, Number]:
    """Item ``item_id``'s headline numbers ``keys`` (``items``: {id: item}) written with ``fmt``, named
    ``key + suffix`` (``b1_r2``: b1 to two decimals): a page may round a headline's number (1.605 as 1.60) or
    write it otherwise (9984 as 9,984)."""
    return {f"{key}{suffix}": items[item_id].numbers[key].to(fmt) for key in keys}


def with_prose(items: list[Item], prose: Mapping[str, Mapping[str, Number]]) -> list[Item]:
    """``items`` with the numbers the prose pages quote beside their headlines' (docs/results/*.md,
    docs/guide/*.md, results/README.md) added to their ``numbers`` (``prose``: {item id: {field: number}})."""
    unknown = set(prose) - {item.id for item in items}
    assert not unknown, unknown
    return [dataclasses.replace(item, numbers={**item.numbers, **prose.get(item.id, {})}) for item in items]
