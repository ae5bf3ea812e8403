"""Optional extras (pyproject's ``[project.optional-dependencies]``): imported by name where a feature needs
them, so that ``import jaxsched`` never does, and a missing one is one line that names what to install."""

from __future__ import annotations

import importlib
from types import ModuleType


def optional(module: str) -> ModuleType | None:
    """``module`` if it is installed, else None (the feature that needs it checks and says so)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def required(module: str, install: str, who: str) -> ModuleType:
    """``module``, or an ``ImportError`` in one line: ``who`` needs it, ``install`` installs it."""
    found = optional(module)
    if found is None:
        raise ImportError(f"{who} needs {module.split('.')[0]}: {install}")
    return found
