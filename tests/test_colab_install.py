"""The notebooks' Colab install (``notebooks/colab_install.py`` and each notebook's first cell): a shallow,
blobless, sparse clone that downloads no ``results/`` but those the notebook reads, and a pip install that
keeps the jax already there. The pieces run by default; the whole cell runs (slow) in a fresh venv whose
jax is "preinstalled" (the test environment's packages, seen through a .pth file, as Colab's are),
against a local git copy of the repository without its real ``results/`` (no network: file:// and pip
--no-index)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import jax
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("colab_install", ROOT / "notebooks" / "colab_install.py")
colab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(colab)


def _git(*args, cwd):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True)


def _cell_source(notebook: Path) -> str:
    return "".join(json.loads(notebook.read_text())["cells"][1]["source"])


def test_the_jax_range_is_read_from_pyproject_and_admits_the_versions_results_were_made_with():
    low, high = colab.jax_range((ROOT / "pyproject.toml").read_text())
    assert low <= colab.version("0.10.2") < high and low <= colab.version("0.11.2") < high  # CPU and H200 runs
    assert colab.version(jax.__version__) < high
    assert colab.version("0.10.2rc1") == (0, 10, 2)
    with pytest.raises(ValueError, match="no \"jax>=A,<B\" requirement"):
        colab.jax_range('dependencies = ["jax"]')


def test_the_cuda12_extra_has_the_same_jax_range():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    plain = next(d for d in project["dependencies"] if d.startswith("jax>="))
    assert project["optional-dependencies"]["cuda12"] == [plain.replace("jax", "jax[cuda12]", 1)]


def test_pins_keep_an_installed_jax_in_range_with_its_cuda_plugins_and_nothing_else():
    low, high = (0, 7), (0, 12)
    colab_like = {"jax": "0.11.2", "jaxlib": "0.11.2", "jax-cuda12-plugin": "0.11.2", "jax-cuda12-pjrt": "0.11.2"}
    assert colab.pins(colab_like, low, high) == ["jax==0.11.2", "jax-cuda12-pjrt==0.11.2",
                                                 "jax-cuda12-plugin==0.11.2", "jaxlib==0.11.2"]
    assert colab.pins({"jax": "0.5.3", "jaxlib": "0.5.3"}, low, high) is None  # too old: pip must install one
    assert colab.pins({"jax": "0.12.0", "jaxlib": "0.12.0"}, low, high) is None
    assert colab.pins({}, low, high) is None
    here = colab.installed_jax()
    assert here["jax"] == jax.__version__ and "jaxlib" in here


def test_install_passes_the_constraints_or_asks_for_the_cuda_build(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('dependencies = ["jax>=0.7,<0.12"]\n')
    calls = []
    monkeypatch.setattr(colab.subprocess, "run", lambda command, check: calls.append(command))
    monkeypatch.setattr(colab, "installed_jax", lambda: {"jax": "0.11.2", "jaxlib": "0.11.2"})
    said = colab.install(tmp_path, ["--no-index"], gpu=True)
    assert calls[-1] == [sys.executable, "-m", "pip", "install", "-q", "-c", str(tmp_path / colab.CONSTRAINTS),
                         "--no-index", str(tmp_path)]
    assert (tmp_path / colab.CONSTRAINTS).read_text() == "jax==0.11.2\njaxlib==0.11.2\n"
    assert said == f"jaxsched installed from {tmp_path}; kept jax==0.11.2, jaxlib==0.11.2"
    monkeypatch.setattr(colab, "installed_jax", lambda: {"jax": "0.5.3", "jaxlib": "0.5.3"})
    said = colab.install(tmp_path, [], gpu=True)
    assert calls[-1][-1] == f"{tmp_path}[cuda12]" and "-c" not in calls[-1]
    assert "jax 0.5.3 installed, outside jaxsched's range 0.7 to <0.12: pip installs jax[cuda12]" in said
    colab.install(tmp_path, [], gpu=False)
    assert calls[-1][-1] == str(tmp_path)


def test_each_notebook_checks_out_only_the_results_it_reads():
    wanted = {path.name: colab.notebook_results(path) for path in NOTEBOOKS}
    assert wanted["01_quickstart.ipynb"] == []
    assert "results/deeprm_fig4_trained_at_0.7" in wanted["02_deeprm.ipynb"]  # the committed figure it shows
    assert not {"results/deeprm_bc_load0.7", "results/deeprm_bc_load1.1"} & set(wanted["02_deeprm.ipynb"])  # shipped
    assert wanted["05_grid.ipynb"] == ["results/grid", "results/grid_esn_oracle"]
    for name, entries in wanted.items():  # every entry a notebook names exists (else its cell would fail in Colab)
        assert all((ROOT / entry).exists() for entry in entries), name
    assert colab.sparse_patterns(["results/grid"]) == ["/*", "!/*/", "/jaxsched/", "/baselines/", "/configs/",
                                                       "/notebooks/", "/results/grid"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_install_cell_clones_light_and_runs_the_script_for_its_own_notebook(path):
    source = _cell_source(path)
    assert '"--filter=blob:none", "--sparse"' in source and '"--depth", "1"' in source
    assert f'"colab_install.py"), str(ROOT), "--notebook", "{path.name}"' in source
    assert "pip" not in source.replace("pip install -e", "")  # the script installs, not the cell


def _repository(tmp_path: Path, results: list[str]) -> Path:
    """A git copy of the working tree without results/ but ``results`` and a 1 MB ``results/heavy/``."""
    source = tmp_path / "source"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.splitlines()
    for name in listed:
        if (name.split("/")[0] != "results" or any(name.startswith(r + "/") or name == r for r in results)) \
                and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    (source / "results" / "heavy").mkdir(parents=True)
    (source / "results" / "heavy" / "checkpoint.bin").write_bytes(os.urandom(1 << 20))
    _git("init", "-q", "-b", "main", cwd=source)
    _git("add", "-A", cwd=source)
    _git("commit", "-q", "-m", "copy", cwd=source)
    _git("config", "uploadpack.allowFilter", "true", cwd=source)  # what GitHub allows: blobless clones
    return source


def _missing_blobs(clone: Path) -> set[str]:
    listing = _git("rev-list", "--objects", "--missing=print", "HEAD", cwd=clone).stdout.splitlines()
    return {line[1:] for line in listing if line.startswith("?")}


def test_the_clone_downloads_the_notebooks_results_and_not_the_others(tmp_path):
    source = _repository(tmp_path, ["results/grid"])
    heavy = _git("rev-parse", "HEAD:results/heavy/checkpoint.bin", cwd=source).stdout.strip()
    clone = tmp_path / "clone"
    _git("clone", "-q", "--depth", "1", "--filter=blob:none", "--sparse", source.as_uri(), str(clone), cwd=tmp_path)
    _git("sparse-checkout", "set", "notebooks", cwd=clone)
    colab.checkout(clone, colab.notebook_results(clone / "notebooks" / "05_grid.ipynb"))
    assert (clone / "jaxsched" / "workloads" / "data_files" / "ctc-sp2-1996-first969.swf").is_file()
    assert (clone / "configs" / "quickstart.yaml").is_file() and (clone / "pyproject.toml").is_file()
    assert (clone / "results" / "grid" / "grid_tables.md").is_file() and not (clone / "results" / "heavy").exists()
    assert not (clone / "tests").exists() and not (clone / "docs").exists()
    assert heavy in _missing_blobs(clone)  # never downloaded


def test_the_colab_cell_clones_and_runs_the_script_which_checks_out_then_installs(tmp_path, monkeypatch, capsys):
    """The 05_grid cell run as in Colab, in this process, with only pip left out (the slow test below runs
    it whole in a fresh venv): the cell clones, then runs the clone's colab_install.py with its own notebook
    (here that script's main in this process, its ``install`` recorded), which checks out the notebook's
    results/ before installing; the cell then works in the clone. The script's mistakes exit 2."""
    source = _repository(tmp_path, ["results/grid", "results/grid_esn_oracle"])
    root = tmp_path / "content" / "jaxsched"
    cell = _cell_source(ROOT / "notebooks" / "05_grid.ipynb").replace('"/content/jaxsched"', repr(str(root))).replace(
        '"https://github.com/jaxsched/jaxsched"', repr(source.as_uri()))
    real_run, scripts, installs = subprocess.run, [], []

    def run(command, **kwargs):
        if command[0] == "git":
            return real_run(command, **kwargs)
        scripts.append([str(part) for part in command])
        spec = importlib.util.spec_from_file_location("cloned_colab_install", command[1])
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
        script.install = lambda where, pip_args: installs.append((where, pip_args, sorted(
            p.name for p in (where / "results").iterdir()))) or f"installed from {where}"
        return subprocess.CompletedProcess(command, script.main([str(part) for part in command[2:]]))

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setitem(sys.modules, "google.colab", type(sys)("google.colab"))
    monkeypatch.chdir(tmp_path)  # the cell changes directory: restored afterwards
    exec(compile(cell, "05_grid.ipynb cell 1", "exec"), {"__name__": "__cell__"})
    monkeypatch.undo()
    assert scripts == [[sys.executable, str(root / "notebooks" / "colab_install.py"), str(root), "--notebook",
                        "05_grid.ipynb"]]
    assert installs == [(root.resolve(), [], ["grid", "grid_esn_oracle"])]  # checked out before the install
    printed = capsys.readouterr().out
    assert f"installed from {root.resolve()}\nresults/ checked out: results/grid, results/grid_esn_oracle\n" in printed
    assert "backend: cpu" in printed
    assert (root / "jaxsched" / "__init__.py").is_file() and (root / "configs" / "quickstart.yaml").is_file()
    assert not (root / "tests").exists() and not (root / "results" / "heavy").exists()

    for argv, message in (([str(tmp_path)], "is not a git clone"),
                          ([str(root), "--notebook", "nope.ipynb"], "--notebook nope.ipynb: no such notebook")):
        with pytest.raises(SystemExit) as exit_:
            colab.main(argv)
        assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_the_colab_cell_installs_jaxsched_in_a_fresh_venv_and_keeps_its_jax(tmp_path):
    """The 05_grid cell itself, run as in Colab (``google.colab`` imported, ROOT and REPO_URL pointed here)
    by a fresh venv's python whose jax is already installed: jaxsched lands in that venv with its shipped
    data, the jax stays, and results/ holds only what the notebook reads."""
    source = _repository(tmp_path, ["results/grid", "results/grid_esn_oracle"])
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_preinstalled.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # Colab's own packages
    root = tmp_path / "content" / "jaxsched"
    cell = _cell_source(ROOT / "notebooks" / "05_grid.ipynb")
    assert '"/content/jaxsched"' in cell and 'REPO_URL = "https://github.com/jaxsched/jaxsched"' in cell
    cell = cell.replace('"/content/jaxsched"', repr(str(root))).replace(
        '"https://github.com/jaxsched/jaxsched"', repr(source.as_uri()))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0", JAX_PLATFORMS="cpu")  # offline, as the test must be
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    fake_colab = ("import sys, types\n"  # jax's debugger imports google.colab.output where google.colab is loaded
                  "colab = sys.modules['google.colab'] = types.ModuleType('google.colab')\n"
                  "colab.output = sys.modules['google.colab.output'] = types.ModuleType('google.colab.output')\n")
    run = subprocess.run([python, "-c", fake_colab + cell], cwd=outside, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "backend: cpu" in run.stdout and "kept jax==" in run.stdout
    assert "results/ checked out: results/grid, results/grid_esn_oracle" in run.stdout
    check = ("import jax, jaxsched; from jaxsched.workloads.datasets import dataset_path; "
             "print(jax.__version__); print(jaxsched.__file__); print(dataset_path('ctc-sp2-first969'))")
    lines = subprocess.run([python, "-c", check], cwd=outside, env=env, check=True, capture_output=True,
                           text=True).stdout.splitlines()
    assert lines[0] == jax.__version__  # the preinstalled jax, not another one
    assert Path(lines[1]).is_relative_to(site) and Path(lines[2]).is_relative_to(site)  # installed, data shipped
    assert (root / colab.CONSTRAINTS).read_text().startswith("jax==" + jax.__version__ + "\n")
    assert sorted(p.name for p in (root / "results").iterdir()) == ["grid", "grid_esn_oracle"]
