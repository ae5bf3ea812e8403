"""The package's shape: no import cycles or function-level imports, libraries below commands, the shared
layers (errors, core, workloads) below the families, one Variant protocol that every family (the registered
ones and a toy one living only in tests/) serves to every learner, and every config ever written still
loading."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

import jaxsched
from jaxsched import registry
from jaxsched.core.runs import read_run_config
from jaxsched.experiment import Experiment, train_config

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = [p for p in sorted((ROOT / "jaxsched").rglob("*.py"))] + sorted((ROOT / "baselines").rglob("*.py"))
COMMANDS = {"jaxsched.train", "jaxsched.evaluate", "jaxsched.bench", "jaxsched.sweep"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "baselines":
        parts = ["jaxsched", *parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imported_modules(path: Path) -> tuple[set[str], list[int]]:
    """(jaxsched modules imported at the top level, lines of imports of jaxsched inside functions)."""
    tree = ast.parse(path.read_text())
    top, nested = set(), []
    known = {module_name(p) for p in LIBRARY}

    def targets(node):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = node.module.replace("baselines", "jaxsched.baselines", 1) if node.module.startswith("baselines") \
                else node.module
            for alias in node.names:
                yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name

    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top |= {t for t in targets(node) if t.startswith("jaxsched") and t in known}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)) and any(
                        t.startswith(("jaxsched", "baselines")) for t in targets(inner)):
                    nested.append(inner.lineno)
    return top, nested


def test_no_import_inside_functions_and_no_cycles():
    graph, nested = {}, {}
    for path in LIBRARY:
        graph[module_name(path)], lines = imported_modules(path)
        if lines:
            nested[str(path.relative_to(ROOT))] = lines
    assert not nested, f"jaxsched imports inside function bodies: {nested}"

    state: dict[str, int] = {}

    def visit(module, stack):
        state[module] = 1
        for target in graph.get(module, ()):
            if state.get(target) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(target):] + [target]))
            if target not in state:
                visit(target, stack + [target])
        state[module] = 2

    for module in graph:
        if module not in state:
            visit(module, [module])


def test_libraries_do_not_import_commands_or_studies():
    code = ("import sys, jaxsched.algos, jaxsched.envs.deeprm.variants, jaxsched.envs.vm.variants, jaxsched.experiment; "
            "print(sorted(m for m in sys.modules if m in %r or m.startswith(('jaxsched.studies', 'jaxsched.bench.', "
            "'jaxsched.reproduction'))))" % sorted(COMMANDS))
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip() == "[]"


# A shared layer and the layers it may import (besides itself): what families share sits below them all, and
# nothing below imports what is built on it.
LAYER_IMPORTS = {
    "jaxsched.errors": set(),
    "jaxsched.core": {"jaxsched.errors"},
    "jaxsched.workloads": {"jaxsched.errors"},  # the dataset catalogue and trace formats every family reads
    "jaxsched.baselines": {"jaxsched.errors", "jaxsched.core", "jaxsched.workloads", "jaxsched.envs"},
    "jaxsched.envs": {"jaxsched.errors", "jaxsched.core", "jaxsched.workloads", "jaxsched.baselines"},
    "jaxsched.reproduction": {"jaxsched.errors", "jaxsched.core"},  # imports no command
}
# Packages only their own command reads: no library imports a bench module or the results registry.
IMPORTED_ONLY_BY = {
    "jaxsched.bench": {"jaxsched.bench"},
    "jaxsched.reproduction": {"jaxsched.reproduction", "jaxsched.reproduce", "jaxsched.studies"},
}


def layer(module: str) -> str:
    """The package (or root module) ``module`` belongs to: ``jaxsched.envs.vm.env`` -> ``jaxsched.envs``."""
    return ".".join(module.split(".")[:2])


def test_lower_layers_never_import_upper_ones():
    wrong = []
    for path in LIBRARY:
        module = module_name(path)
        for target in imported_modules(path)[0]:
            source, used = layer(module), layer(target)
            if used == source:
                continue
            if source in LAYER_IMPORTS and used not in LAYER_IMPORTS[source]:
                wrong.append(f"{module} imports {target} (a layer above {source})")
            if used in IMPORTED_ONLY_BY and source not in IMPORTED_ONLY_BY[used]:
                wrong.append(f"{module} imports {target} ({used} is read only by {sorted(IMPORTED_ONLY_BY[used])})")
    assert not wrong, "\n".join(wrong)


def test_learners_and_commands_know_no_family():
    """Learners, the experiment and the commands reach families only through the Variant protocol."""
    files = [*(ROOT / "jaxsched" / "algos").glob("*.py"), ROOT / "jaxsched" / "experiment.py",
             ROOT / "jaxsched" / "train.py", ROOT / "jaxsched" / "evaluate.py"]
    for path in files:
        text = path.read_text()
        for forbidden in ("generate_many", "job_outcomes", "envs.deeprm", "envs.vm", "envs.grid",
                          "family ==", ".family"):
            assert forbidden not in text, f"{path.name} mentions {forbidden}"


def test_installed_packages_cover_the_tree():
    """pyproject lists every package folder (a new family folder must be added there)."""
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'"(jaxsched[\w.]*)"', text.split("[tool.setuptools]")[1]))
    folders = {module_name(p.parent / "__init__.py") for p in (ROOT / "jaxsched").rglob("__init__.py")}
    assert folders | {"jaxsched.baselines"} <= listed


def test_every_saved_config_loads():
    """Every run directory in results/ (written by older versions too) gives a checked TrainConfig."""
    runs = sorted(p.parent for p in (ROOT / "results").rglob("config.json"))
    assert runs, "no run directories under results/"
    for run in runs:
        config = train_config(read_run_config(run))
        config.algo_config()
        config.bc_config()
        legacy = json.loads((run / "config.json").read_text())["config"]
        if legacy.get(config.algo):  # an old per-algorithm mapping: carried over whole
            assert config.algo_options == legacy[config.algo]


def test_legacy_override_and_conflicts():
    config = train_config({"algo": "reinforce", "reinforce": {"lr": 0.1}}, ["reinforce.num_rollouts=3"])
    assert config.algo_options == {"lr": 0.1, "num_rollouts": 3}
    with pytest.raises(ValueError, match="algo is 'reinforce'"):
        train_config({"algo": "reinforce", "ppo": {"lr": 0.1}})
    with pytest.raises(ValueError, match="unknown config key"):
        train_config({"algo": "reinforce", "algo_options": {"no_such": 1}}).algo_config()


SMALL = {
    "reinforce": {"num_jobsets": 2, "num_rollouts": 2, "episode_len": 12},
    "ppo": {"num_envs": 2, "num_steps": 4, "minibatch_size": 4, "update_epochs": 1},
    "dqn": {"num_envs": 2, "rollout_steps": 4, "gradient_steps": 1, "batch_size": 8, "buffer_size": 64,
            "learning_starts": 8, "num_starts": 2, "hidden": 8, "layers": 2},
    "cvd": {"num_envs": 2, "rollout_steps": 4, "gradient_steps": 1, "batch_size": 8, "buffer_size": 64,
            "learning_starts": 8, "num_starts": 2, "hidden": 8, "layers": 2},
}
ENVS = {"deeprm": {"num_slots": 3, "simu_len": 5, "backlog_size": 4},
        "vm-synthetic": {"num_pms": 2, "window": 60, "synthetic_vms": 200, "start_high": 100}}


def two_iterations(env: str, algo: str, env_options: dict) -> dict:
    config = train_config({"env": env, "env_options": env_options, "algo": algo, "algo_options": SMALL[algo],
                           "seeds": [0]})
    experiment = Experiment.from_config(config)
    state = experiment.init_fn(jax.random.PRNGKey(0))
    for _ in range(2):
        state, metrics = jax.jit(experiment.update_fn)(state)
    assert int(state.iteration) == 2
    assert np.isfinite(float(metrics["loss"])) and float(metrics["decisions"]) > 0
    return metrics


@pytest.mark.parametrize("env,algo", [("deeprm", "reinforce"), ("deeprm", "ppo"), ("vm-synthetic", "reinforce"),
                                      ("vm-synthetic", "ppo"), ("vm-synthetic", "dqn"), ("vm-synthetic", "cvd")])
def test_every_learner_runs_on_every_family(env, algo):
    metrics = two_iterations(env, algo, ENVS[env])
    if algo in ("reinforce", "ppo") and env == "deeprm":
        assert "mean_slowdown" in metrics  # the family's own statistics reach the learner's metrics


@pytest.fixture(scope="module")
def toy_registered():
    from tests.toy import variants as toy

    if "toy" not in registry.registered():
        registry.register(toy)
    yield
    registry.FAMILIES.remove(toy)


def test_a_family_from_outside_plugs_in(toy_registered, tmp_path, capsys):
    """A family defined only in tests/ (its env, heuristics and variants) runs through make, the
    evaluation command and two REINFORCE iterations with a checkpointed run directory."""
    env, params = jaxsched.make("toy")
    obs, state = env.reset(jax.random.PRNGKey(0), params)
    assert obs.action_mask.all()

    from jaxsched.evaluate import main as evaluate_main
    summary = tmp_path / "summary.json"
    assert evaluate_main(["--env", "toy", "--policies", "first,shortest", "--jobsets", "8",
                          "--summary", str(summary)]) == 0
    result = json.loads(summary.read_text())
    assert result["shortest"]["mean_return"] >= result["first"]["mean_return"]  # SPT is optimal

    from jaxsched.train import main as train_main
    out = tmp_path / "run"
    assert train_main(["algo=reinforce", "env=toy", "iterations=2", "chunk=1", "checkpoint_every=1",
                       "eval_jobsets=4", 'algo_options={"num_jobsets": 2, "num_rollouts": 2, "episode_len": 4}',
                       "--out", str(out)]) == 0
    assert (out / "eval.json").exists() and (out / "toy_curves.txt").exists()
    assert set(json.loads((out / "eval.json").read_text())["policies"]) == {"first", "shortest", "trained-s0",
                                                                             "trained-s0-sampled"}
