"""The built wheel works outside the repository: every subpackage and py.typed are in it, and a
documented command runs from a fresh virtual environment where only the wheel provides jaxsched.

Offline: the wheel is built with this environment's setuptools (``--no-build-isolation``), and the
fresh environment borrows the dependencies from this one through a ``.pth`` line naming its
site-packages (a path line does not run that folder's own ``.pth`` files, so the editable install
of the checkout stays invisible there)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _have_build_tools() -> bool:
    try:
        major = int(metadata.version("setuptools").split(".")[0])
        metadata.version("wheel")
    except metadata.PackageNotFoundError:
        return False
    return major >= 68


def _run(args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"{' '.join(map(str, args))} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if not _have_build_tools():
        pytest.skip("building the wheel offline needs setuptools>=68 and wheel here: pip install -e '.[dev]'")
    source = tmp_path_factory.mktemp("source")  # a copy, so that the build leaves nothing in the checkout
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for name in ("jaxsched", "baselines"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
          "-w", dist, source], cwd=source)
    (built,) = dist.glob("jaxsched-*.whl")
    return built


def test_the_build_config_ships_py_typed_and_baselines_as_a_subpackage():
    """What the slow wheel tests find in the built wheel, read from the build config (no build): every
    package folder is listed (tests/test_layout.py::test_installed_packages_cover_the_tree), py.typed is
    package data and exists, and baselines/ installs as jaxsched.baselines, never as a top-level package."""
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"]["jaxsched"] and (ROOT / "jaxsched" / "py.typed").is_file()
    assert setuptools["package-dir"] == {"jaxsched.baselines": "baselines"}
    assert "jaxsched.baselines" in setuptools["packages"]
    assert all(name == "jaxsched" or name.startswith("jaxsched.") for name in setuptools["packages"])
    assert (ROOT / "baselines" / "__init__.py").is_file()


def test_the_build_config_ships_every_data_file_of_the_package():
    """The slow wheel test finds the shipped dataset in the wheel; read from the build config (no build):
    every file under jaxsched/ and baselines/ that is not Python (datasets, pretrained policies, py.typed)
    matches a package-data pattern of the package holding it, so that a wheel carries it."""
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {name: ROOT / setuptools["package-dir"].get(name, name.replace(".", "/"))
               for name in setuptools["packages"]}
    data = [p for folder in ("jaxsched", "baselines") for p in (ROOT / folder).rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert any(p.suffix == ".swf" for p in data) and any(p.suffix == ".msgpack" for p in data)
    unshipped = []
    for path in data:
        package = max((name for name, folder in folders.items() if path.is_relative_to(folder)),
                      key=lambda name: len(folders[name].parts))  # the innermost package holding it
        inside = path.relative_to(folders[package])
        if not any(inside.match(pattern) and len(inside.parts) == len(Path(pattern).parts)
                   for pattern in setuptools["package-data"].get(package, [])):
            unshipped.append(str(path.relative_to(ROOT)))
    assert not unshipped, f"not package data (a wheel would leave them out): {unshipped}"


@pytest.mark.slow
def test_the_wheel_holds_every_subpackage_and_py_typed(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"jaxsched/{p.relative_to(ROOT / 'jaxsched').as_posix()}"
                for p in (ROOT / "jaxsched").rglob("__init__.py")}
    expected |= {"jaxsched/baselines/__init__.py", "jaxsched/py.typed", "jaxsched/data.py", "jaxsched/__main__.py",
                 "jaxsched/workloads/datasets.py", "jaxsched/workloads/data_files/ctc-sp2-1996-first969.swf"}
    assert expected <= names, f"missing from the wheel: {sorted(expected - names)}"
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    assert not any(n.startswith("baselines/") for n in names)  # installs as jaxsched.baselines only


@pytest.mark.slow
def test_an_installed_wheel_runs_a_documented_command_from_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    (site / "_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["JAXSCHED_DATA"] = str(tmp_path / "cache")
    outside = tmp_path / "elsewhere"
    outside.mkdir()

    absent = subprocess.run([python, "-c", "import jaxsched"], cwd=outside, env=env, capture_output=True)
    assert absent.returncode != 0, "the checkout's editable jaxsched is visible in the fresh environment"

    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel],
         cwd=outside)
    where = _run([python, "-c", "import jaxsched; print(jaxsched.__file__)"], cwd=outside, env=env).stdout
    assert Path(where.strip()).is_relative_to(venv)
    assert (Path(where.strip()).parent / "py.typed").exists()
    assert _run([python, "-m", "jaxsched", "--version"], cwd=outside, env=env).stdout.strip() == "jaxsched 0.1.0"

    evaluated = _run([python, "-m", "jaxsched.evaluate", "--env", "deeprm", "--policies", "sjf", "--jobsets", "2"],
                     cwd=outside, env=env)
    assert "sjf" in evaluated.stdout
    listing = _run([python, "-m", "jaxsched.data", "list"], cwd=outside, env=env).stdout
    assert listing.count("absent: python -m jaxsched.data fetch") == 3  # no checkout copies outside one
    assert sorted(p.name for p in outside.iterdir()) == []  # wrote nothing where it ran
