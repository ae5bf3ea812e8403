"""Installs jaxsched in Colab from a light checkout, keeping Colab's own CUDA jax: what the notebooks'
first cell runs after cloning the repository shallow, blobless and sparse.

    python notebooks/colab_install.py ROOT [--notebook NAME.ipynb] [--pip-arg ARG ...]

ROOT is that clone (``git clone --depth 1 --filter=blob:none --sparse URL ROOT``). The script

1. checks out only what the package and the notebooks need (the files at the top, ``jaxsched/``,
   ``baselines/``, ``configs/``, ``notebooks/``) plus the ``results/`` entries the notebook reads
   (found in its code cells), so the 400 MB of ``results/`` is never downloaded;
2. pins the jax, jaxlib and jax CUDA plugin versions already installed (Colab's GPU build) in a
   constraints file when that jax is within jaxsched's range, so pip cannot replace them with a CPU
   build; otherwise installs ``jaxsched[cuda12]`` on a GPU machine (plain ``jaxsched`` without one);
3. ``pip install``\\ s ROOT with those constraints.

Standard library only: it runs before jaxsched or anything else is installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

LIGHT = ("jaxsched", "baselines", "configs", "notebooks")  # what the package and the notebooks need
CONSTRAINTS = ".colab-constraints.txt"  # written into ROOT
_RESULTS = re.compile(r"results/([A-Za-z0-9_.\-]+)")
_JAX = re.compile(r'"jax>=([0-9.]+),<([0-9.]+)"')


def version(text: str) -> tuple[int, ...]:
    """The release numbers of a version string (``0.10.2rc1`` -> ``(0, 10, 2)``), for comparisons."""
    numbers = re.match(r"[0-9]+(\.[0-9]+)*", text)
    if numbers is None:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(part) for part in numbers.group(0).split("."))


def jax_range(pyproject: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(lowest, first excluded)`` of the ``"jax>=A,<B"`` requirement in pyproject.toml's text."""
    found = _JAX.search(pyproject)
    if found is None:
        raise ValueError('pyproject.toml has no "jax>=A,<B" requirement')
    return version(found.group(1)), version(found.group(2))


def installed_jax() -> dict[str, str]:
    """``{distribution: version}`` of the installed jax, jaxlib and jax CUDA plugins (``jax-cuda12-plugin``,
    ``jax-cuda12-pjrt``, ...): what Colab ships for its GPUs."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name in ("jax", "jaxlib") or name.startswith("jax-cuda"):
            found[name] = dist.version
    return found


def pins(installed: dict[str, str], low: tuple[int, ...], high: tuple[int, ...]) -> list[str] | None:
    """Constraint lines that keep ``installed`` (see :func:`installed_jax`) when its jax is in
    ``[low, high)``; None when there is no jax or it is outside (then pip must install one)."""
    jax = installed.get("jax")
    if jax is None or not low <= version(jax) < high:
        return None
    return [f"{name}=={installed[name]}" for name in sorted(installed)]


def notebook_results(notebook: Path) -> list[str]:
    """The ``results/`` entries (top-level folders or files) that ``notebook``'s code cells name."""
    cells = json.loads(notebook.read_text())["cells"]
    code = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    return sorted({f"results/{name.rstrip('.')}" for name in _RESULTS.findall(code)})


def sparse_patterns(results: list[str]) -> list[str]:
    """Non-cone sparse-checkout patterns: the files at the top, :data:`LIGHT` and ``results``."""
    return ["/*", "!/*/", *(f"/{folder}/" for folder in LIGHT), *(f"/{entry}" for entry in results)]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True)


def checkout(root: Path, results: list[str]) -> None:
    """Checks out :func:`sparse_patterns` in the clone ``root`` (blobs download only for these paths)."""
    git(root, "sparse-checkout", "set", "--no-cone", *sparse_patterns(results))


def install(root: Path, pip_args: list[str], gpu: bool | None = None) -> str:
    """``pip install`` ``root`` keeping the installed jax where it fits (see :func:`pins`); returns a
    one-line account of what it did."""
    low, high = jax_range((root / "pyproject.toml").read_text())
    installed = installed_jax()
    lines = pins(installed, low, high)
    gpu = shutil.which("nvidia-smi") is not None if gpu is None else gpu
    target = str(root)
    if lines is not None:
        (root / CONSTRAINTS).write_text("\n".join(lines) + "\n")
        args = ["-c", str(root / CONSTRAINTS)]
        kept = f"kept {', '.join(lines)}"
    else:
        args = []
        target += "[cuda12]" if gpu else ""
        have = f"jax {installed['jax']}" if "jax" in installed else "no jax"
        kept = (f"{have} installed, outside jaxsched's range {'.'.join(map(str, low))} to "
                f"<{'.'.join(map(str, high))}: pip installs {'jax[cuda12]' if gpu else 'jax'}")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *args, *pip_args, target], check=True)
    return f"jaxsched installed from {root}; {kept}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the shallow, blobless, sparse clone of the repository")
    parser.add_argument("--notebook", help="a notebook in ROOT/notebooks whose results/ entries to check out")
    parser.add_argument("--pip-arg", action="append", default=[], help="passed on to pip install (repeatable)")
    args = parser.parse_args(argv)
    if not (args.root / ".git").exists():
        parser.error(f"{args.root} is not a git clone (clone it with --depth 1 --filter=blob:none --sparse)")
    results = []
    if args.notebook:
        notebook = args.root / "notebooks" / args.notebook
        if not notebook.is_file():
            parser.error(f"--notebook {args.notebook}: no such notebook in {notebook.parent}")
        results = notebook_results(notebook)
    checkout(args.root, results)
    print(install(args.root.resolve(), args.pip_arg))
    print(f"results/ checked out: {', '.join(results) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
