"""Versioned env ids (``NAME-v1``, the bare names as aliases) and their Gymnasium registration:
``import jaxsched`` registers every id under ``jaxsched/`` without building anything, ``gymnasium.make``
returns the adapter, which passes Gymnasium's checker, and every id's spaces hold Python ints."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import jax
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import jaxsched
from jaxsched import registry
from jaxsched.gymnasium_env import JaxschedGymnasiumEnv
from tests.toy import variants as toy

ROOT = Path(__file__).resolve().parents[1]
# what every registered env needs to be built here (vm-huawei reads a trace file otherwise)
NEEDS = {"vm-huawei": dict(trace="synthetic", window=300), "grid": dict(num_jobs=100, exclude=0),
         "grid-elastic": dict(num_jobs=100, exclude=0)}
# small settings of a few ids for the checker (each compiles its reset and step)
SMALL = {
    "deeprm-v1": dict(num_slots=3, backlog_size=6, horizon=10, max_job_len=6, capacity=5, max_job_size=5,
                      simu_len=20),
    "bracis-1-v1": dict(simu_len=10, num_slots=4, horizon=6),
    "vm-synthetic-v1": dict(window=200, initial_pms=1, pms_per_expansion=1),
}


def test_every_variant_has_a_versioned_id_registered_with_gymnasium():
    names = registry.registered()
    assert jaxsched.env_ids() == [f"{name}-v1" for name in names]
    for name in names:
        spec = gymnasium.spec(f"jaxsched/{name}-v1")
        assert (spec.namespace, spec.name, spec.version) == ("jaxsched", name, 1)
        assert spec.kwargs == {"name": name}
        assert spec.entry_point == "jaxsched.gymnasium_env:make_gymnasium"
        assert spec.vector_entry_point == "jaxsched.vector_env:make_vec"


def test_versioned_id_and_alias_build_the_same_variant():
    by_id, by_alias = registry.build("deeprm-v1"), registry.build("deeprm")
    assert by_id.name == by_alias.name == "deeprm"  # run directories record the bare name
    assert jax.tree.all(jax.tree.map(lambda a, b: bool(np.array_equal(a, b)), by_id.params, by_alias.params))
    _, params = jaxsched.make("vm-synthetic-v1", window=200)
    assert params.requests.kind.shape == (200,)  # overrides reach the variant through the id too


def test_unknown_versions_and_ids_are_one_clear_line():
    with pytest.raises(ValueError, match=r"version v0 is not available; use deeprm-v1$"):
        jaxsched.make("deeprm-v0")
    with pytest.raises(ValueError, match="unknown environment 'deeprm-v1x'") as error:
        jaxsched.make("deeprm-v1x")
    assert "\n" not in str(error.value) and all(env_id in str(error.value) for env_id in jaxsched.env_ids())
    with pytest.warns(DeprecationWarning, match="upgrading to version `v1`"), pytest.raises(gymnasium.error.Error):
        gymnasium.make("jaxsched/deeprm-v0")


def test_a_family_registered_at_run_time_gets_ids_and_versioned_names_are_refused():
    if "toy" not in registry.registered():
        registry.register(toy)
    try:
        assert "toy-v1" in jaxsched.env_ids() and gymnasium.spec("jaxsched/toy-v1").kwargs == {"name": "toy"}
        assert jaxsched.make("toy-v1")[0].num_actions == jaxsched.make("toy")[0].num_actions
    finally:
        registry.FAMILIES.remove(toy)

    class Versioned:
        VARIANTS = {"thing-v2": {}}

    with pytest.raises(ValueError, match="thing-v2 end in -vN"):
        registry.register(Versioned)


def test_import_registers_ids_and_builds_or_compiles_nothing():
    """(gymnax compiles a constant of its own at import: jaxsched's import is watched after gymnax's.)"""
    code = ("import sys, gymnax, gymnasium; print('IMPORTING JAXSCHED', file=sys.stderr, flush=True); "
            "import jaxsched; "
            "print(sum(k.startswith('jaxsched/') for k in gymnasium.registry), len(jaxsched.env_ids()))")
    env = {**os.environ, "JAX_LOG_COMPILES": "1"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                         check=True)
    registered, ids = map(int, run.stdout.split())
    assert registered == ids == len(registry.registered())
    after = run.stderr.split("IMPORTING JAXSCHED")[1]
    assert "Compiling" not in after and "tracing" not in after, after[-2000:]


def space_ints(space, where: str) -> list[str]:
    """The places in a gymnax space (nested ``Dict`` included) whose shape or size is not Python ints."""
    bad = []
    shape = getattr(space, "shape", ())
    if not isinstance(shape, tuple) or any(type(n) is not int for n in shape):
        bad.append(f"{where}.shape={shape!r}")
    if hasattr(space, "n") and type(space.n) is not int:
        bad.append(f"{where}.n is {type(space.n).__name__}")
    for key, inner in getattr(space, "spaces", {}).items():
        bad += space_ints(inner, f"{where}[{key}]")
    return bad


@pytest.mark.parametrize("env_id", jaxsched.env_ids())
def test_spaces_hold_python_ints(env_id):
    """gymnax spaces of ``make`` (structured) and ``make_gymnax`` (flat), and the Gymnasium adapter's."""
    flat, params = jaxsched.make_gymnax(env_id, **NEEDS.get(env_id[:-3], {}))
    env = flat.inner  # what jaxsched.make returns for the same id
    bad = (space_ints(env.observation_space(params), "make.observation")
           + space_ints(env.action_space(params), "make.action")
           + space_ints(flat.observation_space(params), "make_gymnax.observation")
           + space_ints(flat.action_space(params), "make_gymnax.action"))
    assert not bad, f"{env_id}: {bad}"
    adapter = JaxschedGymnasiumEnv(flat, params)
    assert all(type(n) is int for n in adapter.observation_space.shape)
    assert int(adapter.action_space.n) == flat.num_actions  # gymnasium's Discrete keeps n as numpy int64


@pytest.mark.parametrize("env_id", SMALL)
def test_gymnasium_make_returns_the_adapter_and_passes_check_env_with_render(env_id):
    made = gymnasium.make(f"jaxsched/{env_id}", render_mode="rgb_array", **SMALL[env_id])
    assert isinstance(made.unwrapped, JaxschedGymnasiumEnv) and made.spec.id == f"jaxsched/{env_id}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's passive checker and check_env report problems as warnings
        obs, info = made.reset(seed=3)
        assert made.observation_space.contains(obs) and info["action_mask"].any()
        first = made.render()
        made.step(int(np.flatnonzero(info["action_mask"])[-1]))
        check_env(made.unwrapped)  # render included: it remakes the env from its spec in each render mode
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert made.render().shape == first.shape
    direct = jaxsched.make_gymnasium(env_id, **SMALL[env_id])
    assert direct.render() is None  # no render mode asked
    np.testing.assert_array_equal(direct.reset(seed=3)[0], made.reset(seed=3)[0])
    with pytest.raises(ValueError, match="render_mode 'human' is not supported"):
        jaxsched.make_gymnasium(env_id, render_mode="human", **SMALL[env_id])
