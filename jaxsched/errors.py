"""jaxsched's exceptions: one hierarchy, so a caller can catch every input problem at once.

``JaxschedError`` is the root. Input that cannot be used as written raises a subclass of
``InputError`` (also a ``ValueError``); a data file's errors (:class:`DataFileError`) name the file,
the line and the problem.
"""

from __future__ import annotations

import os


class JaxschedError(Exception):
    """Any error jaxsched raises on purpose."""


class InputError(JaxschedError, ValueError):
    """Input (a config, an option, a file) that cannot be used as written."""


class ConfigError(InputError):
    """A config that cannot be used as written."""


class UsageError(InputError):
    """Bad command-line input; a command reports it as ``error: ...`` with exit status 2."""


class DatasetError(InputError):
    """A dataset (:mod:`jaxsched.workloads.datasets`) that is unknown, absent here, or whose download failed or
    did not verify; the message says how to get it."""


class CheckpointError(JaxschedError, RuntimeError):
    """A run directory or checkpoint that cannot be used for this run."""


class DamagedCheckpointError(CheckpointError):
    """A checkpoint whose files changed since they were saved or cannot be read (not one of another run)."""


class DataFileError(InputError):
    """A data file that cannot be read; the message names the file, the line and the problem."""

    def __init__(self, path: str | os.PathLike, line: int, problem: str):
        self.path, self.line, self.problem = str(path), line, problem
        super().__init__(f"{self.path}, line {line}: {problem}")


class JobsetFileError(DataFileError):
    """A jobset CSV file that cannot be read."""


class SwfFormatError(DataFileError):
    """A line of a Standard Workload Format trace that cannot be parsed."""


class VmTraceError(DataFileError):
    """A VM trace file that cannot be read."""


def check_positive(owner: object, *names: str) -> None:
    """Raises ``ValueError`` naming the first of ``owner``'s integer fields ``names`` that is < 1."""
    for name in names:
        if getattr(owner, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(owner, name)}")
