"""README.md is the front page: short, its two commands are the ones CI and the docs run, its links resolve
inside the repository (never into ``../shared``, which users do not have), and its Python runs wherever the
package is installed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 250


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.S | re.M)


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def test_readme_is_a_front_page_not_a_notebook():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; the lab notes belong in docs/"


def test_the_test_command_is_what_ci_runs():
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "pytest" in line]
    assert len(ci) == 1
    assert _blocks(_section(README.read_text(), "Tests"), "bash") == [ci[0] + "\n"]


def test_the_quick_start_command_installs_as_ci_does_and_matches_the_docs():
    """One command from a fresh clone: the same virtual environment and editable install as the test command,
    then the quick-start training run; docs/getting-started.md gives it byte for byte."""
    [quick] = _blocks(_section(README.read_text(), "Install and quick start"), "bash")
    [ci] = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "pytest" in line]
    prefix = "python3 -m venv .venv && . .venv/bin/activate && pip install -e "
    assert quick.startswith(prefix) and ci.startswith(prefix)
    assert quick.strip().endswith("python -m jaxsched.train --config configs/quickstart.yaml --out runs/quickstart")
    assert (ROOT / "configs" / "quickstart.yaml").exists()
    assert quick in _blocks((ROOT / "docs" / "getting-started.md").read_text(), "bash")


def test_links_resolve_inside_the_repository():
    text = README.read_text()
    assert "../shared" not in text, "README points at ../shared, which users never have"
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets, "README links to nothing"
    local = [t.split("#")[0] for t in targets if not re.match(r"[a-z]+://", t)]
    missing = [t for t in local if t.startswith("..") or not (ROOT / t).exists()]
    assert not missing, f"README links that do not resolve in the repository: {missing}"
    assert any(t.startswith("docs/") for t in local), "README does not link to the docs"


def test_python_blocks_run_outside_the_checkout(tmp_path):
    """Every Python block, run in a fresh process from an empty folder (the installed package only, no
    repository root on the path): what a user who copies it gets."""
    blocks = _blocks(README.read_text(), "python")
    assert blocks
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for number, block in enumerate(blocks):
        done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, f"README python block {number} failed:\n{block}\n{done.stderr[-3000:]}"
        assert done.stdout.strip(), f"README python block {number} printed nothing"
