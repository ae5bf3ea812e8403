"""A light clone (issue 55): results/ keeps tables, figures and compressed metrics, not checkpoints or plain
logs, and what HEAD tracks there stays under 60 MB. Measured on the committed blobs (``git ls-tree -l``),
so a large file only sitting in the work tree does not count and a committed one cannot hide."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT_BYTES = 60 * 10**6


def tracked_results() -> dict[str, int]:
    """Path -> blob size of every file HEAD tracks under results/."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the size of a clone cannot be measured here")
    listing = subprocess.run(["git", "ls-tree", "-r", "-l", "-z", "HEAD", "--", "results"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    sizes = {}
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        kind, size = meta.split()[1], meta.split()[3]
        if kind == "blob":
            sizes[path] = int(size)
    return sizes


def test_results_under_the_light_clone_limit():
    sizes = tracked_results()
    total = sum(sizes.values())
    largest = sorted(sizes.items(), key=lambda item: -item[1])[:5]
    assert total < LIMIT_BYTES, (f"results/ tracks {total / 1e6:.1f} MB (limit {LIMIT_BYTES / 1e6:.0f} MB); "
                                 f"largest: {largest}")


def test_results_hold_no_checkpoints_or_plain_logs():
    paths = tracked_results()
    checkpoints = [p for p in paths if "/checkpoints/" in p or "/checkpoint/" in p or p.endswith(".orbax")]
    plain_logs = [p for p in paths if p.endswith("/metrics.csv")]
    assert not checkpoints, f"checkpoints belong in runs/ or jaxsched.pretrained, not results/: {checkpoints[:5]}"
    assert not plain_logs, f"metrics logs are committed xz-compressed (reproduce --compact): {plain_logs[:5]}"
