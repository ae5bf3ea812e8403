"""Commands never write into ``results/`` by default: the recorded results change only through an
explicit ``--out results/...`` (results/README.md names it in each command); defaults go to ``runs/``."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The fast forms of documented commands whose outputs used to default into results/.
COMMANDS = {
    "evaluate --loads": (["jaxsched.evaluate", "--env", "deeprm", "--policies", "sjf", "--jobsets", "2",
                          "--loads", "0.5"], ["runs/deeprm_slowdown_vs_load.csv"]),
    "bench grid": (["jaxsched.bench", "grid", "--batches", "1", "--jobs", "20", "--repeats", "1"],
                   ["runs/bench_grid.json"]),
}


def _results_status() -> str | None:
    """``git status`` of the checkout's results/ (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "results/"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def test_no_command_defaults_an_output_under_results():
    """Every ``add_argument(..., default=...)`` of every command: no default names results/."""
    offenders = []
    for path in sorted((ROOT / "jaxsched").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
                for keyword in node.keywords:
                    if keyword.arg == "default" and any(
                            isinstance(c, ast.Constant) and isinstance(c.value, str)
                            and c.value.rstrip("/").split("/")[0] == "results" for c in ast.walk(keyword.value)):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"defaults under results/ (use runs/): {', '.join(offenders)}"


def test_documented_commands_leave_results_untouched(tmp_path):
    """Run where a user would (outputs are relative to the working directory): a results/ folder
    there and the checkout's results/ are the same afterwards, and the outputs are under runs/."""
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "recorded.json").write_text("{}")
    before, status_before = _snapshot(tmp_path / "results"), _results_status()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    running = {name: subprocess.Popen([sys.executable, "-m", *argv], cwd=tmp_path, env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
               for name, (argv, _) in COMMANDS.items()}  # in parallel: two cores, ~20 s each
    for name, process in running.items():
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, f"{name} failed:\n{output}"
        for expected in COMMANDS[name][1]:
            assert (tmp_path / expected).exists(), f"{name} did not write {expected}:\n{output}"
    assert _snapshot(tmp_path / "results") == before
    assert _results_status() == status_before
