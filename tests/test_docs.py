"""The docs site: it builds with MkDocs with warnings as errors, every page is in the navigation, the generated
pages equal what the registry and the code give now, and no page or docstring sends a user to ``../shared``."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from jaxsched import reproduce
from jaxsched.reproduction import numbers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for child in node for page in _nav_pages(child)]
    if isinstance(node, dict):
        return [page for child in node.values() for page in _nav_pages(child)]
    return []


def _config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text())


def test_every_page_is_in_the_navigation_and_every_entry_exists():
    nav = _nav_pages(_config()["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages, (sorted(set(pages) - set(nav)), sorted(set(nav) - set(pages)))


def test_the_generated_results_index_is_current():
    """docs/results/index.md is the registry rendered from the committed files (--write-readme remakes it)."""
    assert reproduce.DOCS_INDEX.read_text() == reproduce.docs_results_index(), \
        "docs/results/index.md is stale: python -m jaxsched.reproduce --write-readme"
    text = reproduce.DOCS_INDEX.read_text()
    assert all(f"`python -m jaxsched.reproduce {item.id}`" in text for item in reproduce.ITEMS)


def test_the_lab_notes_kept_their_number_markers_and_the_check_reads_them():
    """The results pages quote their numbers through markers, and a wrong number in a docs page is found."""
    page = DOCS / "results" / "deeprm.md"
    text = page.read_text()
    assert page in reproduce.marked_texts() and len(numbers.MARKER.findall(text)) > 20
    assert not reproduce.text_mismatches(text, "docs/results/deeprm.md", reproduce.README.parent)
    first = numbers.MARKER.search(text)
    wrong = text[:first.start("value")] + "999" + text[first.end("value"):]
    found = reproduce.text_mismatches(wrong, "docs/results/deeprm.md", reproduce.README.parent)
    assert [(m.field, m.text) for m in found] == [(first.group("field"), "999")]


def test_no_page_or_docstring_points_users_at_shared():
    links = {p.name: re.findall(r"\]\((?:\.\./)*shared/[^)]*\)", p.read_text()) for p in DOCS.rglob("*.md")}
    assert not any(links.values()), links
    sources = [*(ROOT / "jaxsched" / "envs").rglob("*.py"), *(ROOT / "jaxsched" / "algos").glob("*.py"),
               *(ROOT / "baselines").glob("*.py")]
    stale = [str(p.relative_to(ROOT)) for p in sources if "../shared/spec" in p.read_text()]
    assert not stale, f"docstrings pointing at ../shared/spec instead of docs/semantics/: {stale}"
    cited = {m for p in sources for m in re.findall(r"docs/semantics/[\w-]+\.md", p.read_text())}
    assert cited and all((ROOT / c).exists() for c in cited), cited


@pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("mkdocs", "material", "mkdocstrings_handlers")),
                    reason="mkdocs, mkdocs-material or mkdocstrings[python] not installed (pip install -e '.[dev]')")
def test_the_site_builds_strictly(tmp_path):
    """``mkdocs build --strict``: a broken link, a missing page or an unreadable docstring fails it."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "make_gymnax" in api and "make_gymnasium" in api
    index = (tmp_path / "site" / "results" / "index.html").read_text()
    assert "sweep_deeprm_slots_load0.7" in index
