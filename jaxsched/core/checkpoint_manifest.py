"""A checkpoint step's checksum manifest: the size and sha256 of every file orbax wrote for it.

orbax notices some damage (unreadable metadata, a data file shorter than its index says) but not all
(a truncated small file can go unread or read as valid), and what it notices it reports as a read
error mid-restore. The manifest, written once the step is final, lets a restore name the damaged
file before orbax reads anything. Steps saved before manifests existed have none and are not checked.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST_NAME = "jaxsched_manifest.json"  # inside the step's directory, so orbax deletes it with the step
FORMAT_VERSION = 1


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(step_dir: Path) -> list[Path]:
    return sorted(p for p in step_dir.rglob("*") if p.is_file() and p.name != MANIFEST_NAME)


def write_manifest(step_dir: Path) -> None:
    files = {p.relative_to(step_dir).as_posix(): {"bytes": p.stat().st_size, "sha256": _sha256(p)}
             for p in _files(step_dir)}
    temporary = step_dir / (MANIFEST_NAME + ".tmp")
    temporary.write_text(json.dumps({"format": FORMAT_VERSION, "files": files}, indent=1))
    temporary.replace(step_dir / MANIFEST_NAME)  # a killed write leaves no half manifest


def verify_manifest(step_dir: Path) -> str | None:
    """What is wrong with the step's files (the first problem found), or None when they match their
    manifest or there is no manifest."""
    path = step_dir / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
        files = manifest["files"]
        if manifest.get("format") != FORMAT_VERSION or not all(isinstance(v, dict) for v in files.values()):
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return f"its checksum manifest {MANIFEST_NAME} cannot be read"
    for name, expected in files.items():
        file = step_dir / name
        if not file.is_file():
            return f"{name} is missing"
        size = file.stat().st_size
        if size != expected.get("bytes"):
            return f"{name} has {size} bytes, {expected.get('bytes')} when saved"
        if _sha256(file) != expected.get("sha256"):
            return f"{name} differs from what was saved (sha256)"
    return None
