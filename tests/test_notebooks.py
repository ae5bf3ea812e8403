"""The Colab notebooks in notebooks/: each opens with its "Open in Colab" link and the REPO_URL
variable, and runs top to bottom in quick mode (JAXSCHED_QUICK=1) without an error. They run in
memory (the committed outputs stay as they are) and write under a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from jaxsched.notebooks import OUT_VARIABLE, QUICK_VARIABLE, evaluation_table, fresh_run_dir, output_dir, stats_table

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
COLAB = "https://colab.research.google.com/github/jaxsched/jaxsched/blob/main/notebooks/{}"


def test_the_five_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == ["01_quickstart.ipynb", "02_deeprm.ipynb", "03_vm_placement.ipynb",
                                          "04_mdp_design.ipynb", "05_grid.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_opens_with_colab_link_and_repo_url(path):
    cells = nbformat.read(path, as_version=4).cells
    assert cells[0].cell_type == "markdown" and COLAB.format(path.name) in cells[0].source
    install = cells[1]
    assert install.cell_type == "code" and 'REPO_URL = "https://github.com/' in install.source
    assert "google.colab" in install.source and "jax.devices()" in install.source
    assert all(cell.outputs for cell in cells if cell.cell_type == "code"), "committed without outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(path, tmp_path, monkeypatch):
    notebook = nbformat.read(path, as_version=4)  # executed in memory: the committed outputs stay as they are
    monkeypatch.setenv(QUICK_VARIABLE, "1")  # the kernel inherits the environment
    monkeypatch.setenv(OUT_VARIABLE, str(tmp_path / "out"))
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()  # raises on an error
    errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs
              if o.output_type == "error"]
    assert not errors
    assert (tmp_path / "out" / path.stem / "quick").is_dir()  # wrote where it was told, not into runs/


def test_output_dir_quick_and_fresh_run_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(OUT_VARIABLE, str(tmp_path))
    monkeypatch.delenv(QUICK_VARIABLE, raising=False)
    assert output_dir("nb") == tmp_path / "nb"
    monkeypatch.setenv(QUICK_VARIABLE, "1")
    assert output_dir("nb") == tmp_path / "nb" / "quick" and (tmp_path / "nb" / "quick").is_dir()
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(ValueError, match="no config.json"):
        fresh_run_dir(run)  # a folder that is not a run is never removed
    (run / "config.json").write_text("{}")
    assert fresh_run_dir(run) == run and not run.exists()


def test_tables(tmp_path):
    table = stats_table({"sjf": {"mean_slowdown": 3.0151, "jobs": 20, "note": "x"}, "random": {"mean_slowdown": 7.5}})
    assert table.splitlines() == ["| policy | mean_slowdown | jobs |", "|---|---|---|",
                                  "| sjf | 3.015 | 20 |", "| random | 7.500 |  |"]
    (tmp_path / "eval.json").write_text(json.dumps({"jobsets": 2, "policies": {"sjf": {"mean_slowdown": 2.0}}}))
    assert evaluation_table(tmp_path).splitlines()[-1] == "| sjf | 2.000 |"
    with pytest.raises(ValueError):
        stats_table({})
