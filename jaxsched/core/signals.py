"""Stopping a run cleanly on SIGTERM or SIGINT, so that a batch scheduler's kill loses nothing.

A scheduler sends SIGTERM (SLURM at a job's time limit, Kubernetes on eviction), a user at a terminal
SIGINT (Ctrl-C). While a :class:`StopOnSignal` is active, the first of them is only recorded; the
training loop asks :meth:`StopOnSignal.agreed` at each iteration boundary, saves a checkpoint there and
raises :class:`Interrupted`, which the commands report in one line with exit status 128 + the signal's
number (143 for SIGTERM, 130 for SIGINT), as a shell reports a process the signal ended. A second
SIGINT (Ctrl-C pressed again) stops at once, without saving (exit status 130): the run then resumes
from its newest checkpoint, as after a kill. A repeated SIGTERM changes nothing: schedulers send it to
every process of a job, which may reach a process twice (a sweep's worker directly and through its
parent), and they follow it with SIGKILL anyway. Signals are handled by Python between bytecodes only: a signal that
arrives while XLA compiles is seen when the compilation returns (waits on running computations poll,
:func:`wait_until_ready`, so a second signal is seen within milliseconds there).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import jax
import numpy as np
from jax.experimental import multihost_utils

SIGNALS = (signal.SIGTERM, signal.SIGINT)
LONGEST_POLL_S = 0.05  # the longest sleep between two looks at a running computation


def exit_status(signum: int) -> int:
    """The exit status of a command stopped by signal ``signum``: 128 + its number (shells' convention)."""
    return 128 + int(signum)


class Interrupted(Exception):
    """The run stopped on a signal at a clean point; ``str()`` is the one line a command prints."""

    def __init__(self, signum: int, message: str):
        self.signum = int(signum)
        super().__init__(f"interrupted by {signal.Signals(self.signum).name}: {message}")

    @property
    def exit_status(self) -> int:
        return exit_status(self.signum)


class StopOnSignal:
    """Within ``with StopOnSignal() as stop``: SIGTERM and SIGINT set :attr:`signum` (the first one's)
    instead of ending the process; a second SIGINT ends it at once. After :meth:`raise_at_once` (nothing
    left unsaved) the first one raises :class:`Interrupted` where the program is. The previous handlers
    come back on exit. Outside the main thread (where Python cannot set handlers) it does nothing."""

    def __init__(self):
        self.signum: int | None = None
        self._previous: dict[int, object] = {}
        self._raise_message: str | None = None

    def __enter__(self) -> "StopOnSignal":
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:
            if signum != signal.SIGINT:
                return  # the stop is under way
            sys.stdout.flush()
            print(f"stopped at once by a second {signal.Signals(signum).name}, without saving (a resume continues "
                  "from the newest checkpoint)", file=sys.stderr, flush=True)
            os._exit(exit_status(signum))  # at once: no cleanup may wait (a save in progress is abandoned)
        self.signum = signum
        if self._raise_message is not None:
            raise Interrupted(signum, self._raise_message)

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def agreed(self) -> bool:
        """Whether to stop here: this process's request or, in a multi-process run, any process's (the
        processes save collectively, so they all stop at the same boundary). Every process calls it."""
        if jax.process_count() == 1:
            return self.requested
        return bool(np.any(multihost_utils.process_allgather(np.asarray(self.requested))))

    def raise_at_once(self, message: str) -> None:
        """From now on a signal raises :class:`Interrupted` (``message``) at once; so does one already received."""
        self._raise_message = message
        if self.signum is not None:
            raise Interrupted(self.signum, message)


def wait_until_ready(tree) -> None:
    """``jax.block_until_ready(tree)``, looking every few milliseconds, so that a signal's handler runs
    while the computation does (a blocking wait holds Python's signal handling until it returns)."""
    leaves = [leaf for leaf in jax.tree.leaves(tree) if hasattr(leaf, "is_ready")]
    delay = 1e-4
    for leaf in leaves:
        while not leaf.is_ready():
            time.sleep(delay)
            delay = min(2 * delay, LONGEST_POLL_S)
    jax.block_until_ready(tree)  # raises what the computation raised
