"""What the tests of quoted numbers share: a results root where one entry can be edited, and a number
reader that forgets what it read (the edited copy must be read again)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jaxsched.reproduction import numbers

RESULTS = Path(__file__).resolve().parents[1] / "results"


@pytest.fixture(autouse=True)
def fresh_number_reads():
    """Autouse in every module that imports it: the reader's cache cleared around each test."""
    numbers.clear_cache()
    yield
    numbers.clear_cache()


def results_with(tmp_path: Path, entry: str) -> Path:
    """A results root of links to results/'s entries, with ``entry`` copied (so that it can be edited)."""
    root = tmp_path / "results"
    root.mkdir()
    for path in RESULTS.iterdir():
        if path.name == entry:
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, root / path.name)
        else:
            (root / path.name).symlink_to(path)
    return root
