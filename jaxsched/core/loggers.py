"""Where training writes its numbers (``logger`` config key): the CSV files always (``metrics.csv``,
``eval_curve.csv``), and with ``logger: tensorboard`` also a TensorBoard event file under
``tensorboard/`` (tensorboardX, the optional extra ``jaxsched[tensorboard]``), to watch a run live.

TensorBoard tags: ``train/<metric>/seed<seed>`` per iteration (every metrics.csv column but the
timings), ``held_out/<metric>/seed<seed>`` and ``held_out/<metric>/<heuristic>`` per evaluation. A
resumed run purges the events past its checkpoint, as the CSV files drop their rows.
"""

from __future__ import annotations

import math
from pathlib import Path

from jaxsched.core.runs import MetricsLog
from jaxsched.errors import ConfigError
from jaxsched.core.extras import optional

tensorboardX = optional("tensorboardX")  # None without the extra: only logger: csv works

LOGGERS = ("csv", "tensorboard")
NOT_SCALARS = ("iteration", "seed", "policy", "steps_per_s", "wall_s")


def check_logger(name: str) -> None:
    """Raises ``ValueError`` for an unknown logger, ``ConfigError`` when tensorboardX is missing."""
    if name not in LOGGERS:
        raise ValueError(f"logger must be one of {', '.join(LOGGERS)}, got {name!r}")
    if name == "tensorboard" and tensorboardX is None:
        raise ConfigError("logger: tensorboard needs tensorboardX; install it with pip install 'jaxsched[tensorboard]'")


class TensorBoardLog:
    """Scalars of the training and held-out rows in ``directory`` (one event file per (re)start)."""

    def __init__(self, directory: Path, resume_from: int | None):
        check_logger("tensorboard")
        # purge_step: TensorBoard drops the earlier files' events from this step on (they are replayed)
        self.writer = tensorboardX.SummaryWriter(str(directory), purge_step=None if resume_from is None
                                                 else resume_from + 1)

    def scalars(self, prefix: str, rows: list[dict]) -> None:
        for row in rows:
            who = f"seed{row['seed']}" if row.get("seed", "") != "" else row["policy"]
            for key, value in row.items():
                if key not in NOT_SCALARS and not math.isnan(float(value)):
                    self.writer.add_scalar(f"{prefix}/{key}/{who}", float(value), int(row["iteration"]))
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class RunLog:
    """A run's loggers: ``training`` rows go to metrics.csv, ``held_out`` rows to eval_curve.csv,
    both also to TensorBoard when ``logger`` is ``tensorboard``."""

    def __init__(self, run_dir: Path, logger: str, resume_from: int | None):
        self.metrics = MetricsLog(run_dir / "metrics.csv", resume_from)
        self.eval_curve = MetricsLog(run_dir / "eval_curve.csv", resume_from)
        self.tensorboard = TensorBoardLog(run_dir / "tensorboard", resume_from) if logger == "tensorboard" else None

    def training(self, rows: list[dict]) -> None:
        self.metrics.append(rows)
        if self.tensorboard is not None:
            self.tensorboard.scalars("train", rows)

    def held_out(self, rows: list[dict]) -> None:
        self.eval_curve.append(rows)
        if self.tensorboard is not None:
            self.tensorboard.scalars("held_out", rows)

    def close(self) -> None:
        if self.tensorboard is not None:
            self.tensorboard.close()
