"""The Colab notebooks in notebooks/: each opens with its "Open in Colab" link and the REPO_URL
variable, and runs top to bottom in quick mode (JAXSCHED_QUICK=1) without an error. They run in
memory (the committed outputs stay as they are) and write under a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from jaxsched.notebooks import (OUT_VARIABLE, QUICK_VARIABLE, evaluation_table, fresh_run_dir, output_dir, stats_table,
                                trace_policy_table)

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


def test_trace_policy_table(tmp_path):
    def row(bsld, finished=4, jobs=4, **more):
        return {"mean_bounded_slowdown": bsld, "finished": finished, "jobs": jobs, **more}

    old = tmp_path / "old"  # an eval.json written before the rows had a kind: told by their names
    old.mkdir()
    (old / "eval.json").write_text(json.dumps({"policies": {
        "fcfs": row(9.0, label="FCFS (strict)"), "f1+easy": row(2.0, label="F1 + EASY backfilling"),
        "ppo-s0": row(3.0, label="PPO seed 0, greedy"), "ppo-s1": row(5.0, label="PPO seed 1, greedy"),
        "ppo-s0-sampled": row(4.0, 16, 16, label="PPO seed 0, sampled")}}))
    new = tmp_path / "new"
    new.mkdir()
    (new / "eval.json").write_text(json.dumps({"policies": {
        "fcfs": row(1.5, 3, label="FCFS (strict)", kind="heuristic"),  # unfinished: never the best rule
        "f1+easy": row(2.0, label="F1 + EASY backfilling", kind="heuristic"),
        "ppo-s0": row(1.0, label="PPO seed 0, greedy", kind="trace-trained"),
        "ppo-s0-last": row(7.0, label="PPO seed 0, greedy, last checkpoint", kind="trace-trained"),  # not a seed
        "synthetic:x": row(0.5, label="trained elsewhere", kind="synthetic")}}))
    lines = trace_policy_table({"A": old, "B": new}).splitlines()
    assert lines[0] == "| policy | A: bounded slowdown | A: finished / jobs | B: bounded slowdown | B: finished / jobs |"
    assert lines[2] == "| PPO greedy (IQM over seeds) | 4.000 [range 3.000, 5.000] | each of 2 seeds: 4/4 | " \
                       "1.000 [range 1.000, 1.000] | 1 seed: 4/4 |"
    assert lines[3] == "| PPO sampled (IQM over seeds) | 4.000 [range 4.000, 4.000] | 1 seed: 16/16 |  |  |"
    assert lines[4:6] == ["| FCFS (strict) | 9.000 | 4/4 | 1.500 | 3/4 |",
                          "| F1 + EASY backfilling | 2.000 | 4/4 | 2.000 | 4/4 |"]
    assert lines[-2:] == [
        "- A: best rule F1 + EASY backfilling 2.000; PPO greedy IQM 4.000; rules ahead of it: F1 + EASY backfilling "
        "(1 of 2).",
        "- B: best rule F1 + EASY backfilling 2.000; PPO greedy IQM 1.000; rules ahead of it: none (0 of 1)."]
    assert "trained elsewhere" not in "\n".join(lines)
