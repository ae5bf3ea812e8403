"""Shared fixtures for the DeepRM test suite.

JAX on CPU compiles slowly, so every environment here is built once per session and every jitted
function is built once per environment: the ``kit`` fixture returns a cached factory, and the
tests keep array shapes fixed (jobsets padded to a fixed ``max_jobs``) so nothing recompiles.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Callable

# XLA's persistent compilation cache, shared by every test process and the processes they start (CLI
# runs, notebooks, multi-device and multi-process children) through the environment: the suite compiles
# many programs more than once across processes (measured on one PPO train command run twice, 92 s ->
# 31 s). Set before jax is imported, which reads these at import. Under .pytest_cache (git-ignored);
# JAXSCHED_TEST_XLA_CACHE=off turns it off, a path moves it.
_XLA_CACHE = os.environ.get("JAXSCHED_TEST_XLA_CACHE", str(Path(__file__).resolve().parents[1] / ".pytest_cache" / "xla"))
if _XLA_CACHE != "off":
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", _XLA_CACHE)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.5")
    os.environ.setdefault("JAX_COMPILATION_CACHE_MAX_SIZE", str(2 * 1024 ** 3))  # bytes; oldest evicted

# Most of the suite's CPU time is XLA compiling programs that then run for a moment. JAX's
# ``jax_disable_most_optimizations`` compiles with LLVM at -O0 and without its expensive passes. The HLO
# is unchanged, but a fused expression may round differently in the last bit, so a test claiming that
# two differently fused programs agree bit for bit takes the ``default_compilation`` fixture. Measured
# from a cold cache: tests/test_ppo.py with tests/test_seed_batching.py 234 -> 150 CPU-s,
# tests/test_behaviour_cloning.py with tests/test_vm_rollout.py 196 -> 130 CPU-s (learning tests
# included). Inherited by every process the tests start; JAXSCHED_TEST_OPTIMIZE=1 compiles as users do.
#
# XLA:CPU's newer fusion emitters (MLIR-based, the default) take about twice as long to compile the
# suite's programs as the classic LLVM IR emitters: measured on the quick start's train command in quick mode
# (50 programs, -O0), 40.8 -> 18.7 s of XLA compilation. The same flag travels to every process the tests
# start through XLA_FLAGS (tests that set their own XLA_FLAGS append to it).
TEST_XLA_FLAGS = "--xla_cpu_use_fusion_emitters=false"
if os.environ.get("JAXSCHED_TEST_OPTIMIZE") != "1":
    os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
    if TEST_XLA_FLAGS not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {TEST_XLA_FLAGS}".strip()

import jax  # noqa: E402  (after the cache's environment)
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.envs.deeprm.env import DeepRM, EnvParams
from jaxsched.envs.deeprm.generator import Workload
from jaxsched.envs.deeprm.types import Jobset, from_arrays
from jaxsched.envs.deeprm.variants import DeepRMVariant
from jaxsched.workloads.datasets import fetch_hint, find, get

# The tiny environment of the hand-computed trajectories: 2 slots, a 5-row horizon, 3 units of
# each of 2 resources, a 2-job backlog (one image column). Image width 2 * (3 + 2 * 3) + 1 + 1 = 20.
TINY = dict(num_slots=2, horizon=5, max_job_len=4, capacity=3, max_job_size=3, backlog_size=2)
TINY_MAX_JOBS = 10

# The environment of the property tests: 3 slots, 4-row horizon, a 5-job backlog spread over two
# image columns (row-major, 8 cells of which 5 usable), so drops and partial backlog rows happen.
PROP = dict(num_slots=3, horizon=4, max_job_len=3, capacity=4, max_job_size=4, backlog_size=5)
PROP_MAX_JOBS = 12
PROP_SIMU_LEN = 8

SHARED = Path(__file__).resolve().parents[2] / "shared"
FIXTURES = SHARED / "spec" / "fixtures" / "deeprm"


@dataclasses.dataclass(frozen=True)
class Kit:
    """One environment and its jitted functions (compiled on first use, reused by every test)."""

    env: DeepRM
    transition: Callable
    get_obs: Callable
    initial_state: Callable

    def params(self, jobset: Jobset, simu_len: int, max_time: int = 1000,
               max_steps_in_episode: int = 100_000) -> EnvParams:
        return EnvParams(jobset=jobset, simu_len=simu_len, max_time=max_time,
                         max_steps_in_episode=max_steps_in_episode)


@functools.lru_cache(maxsize=None)
def _make_kit(config: tuple) -> Kit:
    env = DeepRM(**dict(config))
    return Kit(env=env, transition=jax.jit(env.transition), get_obs=jax.jit(env.get_obs),
               initial_state=jax.jit(env.initial_state))


@pytest.fixture
def default_compilation():
    """XLA's default optimisation for one test (the suite compiles with most optimisations off, above):
    for claims that two differently fused programs agree bit for bit, which are claims about the programs
    users compile (at -O0 LLVM may round one of them differently in the last bit: measured on the grid
    reward). Compiled functions are dropped before and after, so nothing compiled one way runs the other. The
    classic emitters of ``TEST_XLA_FLAGS`` stay (XLA reads its flags once per process)."""
    before = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", False)
    jax.clear_caches()
    yield
    jax.config.update("jax_disable_most_optimizations", before)
    jax.clear_caches()


@pytest.fixture(scope="session")
def kit() -> Callable[..., Kit]:
    """``kit(**DeepRM kwargs)`` -> the session's cached Kit for that configuration."""
    return lambda **config: _make_kit(tuple(sorted(config.items())))


@pytest.fixture(scope="session")
def tiny(kit) -> Kit:
    return kit(**TINY)


def jobset(arrival, duration, demand, max_jobs: int) -> Jobset:
    """A padded jobset from per-job lists (demand: one row of units per job)."""
    return from_arrays(np.asarray(arrival), np.asarray(duration),
                       np.asarray(demand, dtype=np.int32).reshape(len(arrival), -1), max_jobs=max_jobs)


@pytest.fixture(scope="session")
def make_jobset() -> Callable[..., Jobset]:
    return jobset


def to_numpy(tree):
    return jax.tree.map(np.asarray, tree)


def run_actions(kit: Kit, params: EnvParams, actions) -> list:
    """[(state, reward, terminated, info)] as numpy after each action, from the initial state."""
    state = kit.initial_state(params)
    out = []
    for a in actions:
        state, reward, terminated, info = kit.transition(state, jnp.int32(a), params)
        out.append(to_numpy((state, reward, terminated, info)))
    return out


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    """The reference fixtures folder; skips the test when ../shared is absent."""
    if not FIXTURES.is_dir():
        pytest.skip(f"reference fixtures not found at {FIXTURES} (the ../shared folder is absent); "
                    "the DeepRM reference comparison needs them")
    return FIXTURES


@dataclasses.dataclass(frozen=True)
class FixedJobsets(DeepRMVariant):
    """A DeepRM variant whose instances are given jobsets, cycled (for tests that need exact jobsets):
    ``sample_params(key, n)`` returns jobsets 0, 1, ..., n - 1 modulo their number, whatever the key."""

    jobsets: Jobset | None = None

    def sample_params(self, key, count):
        pick = jnp.arange(count) % self.jobsets.arrival.shape[0]
        return self.with_jobsets(jax.tree.map(lambda x: x[pick], self.jobsets))


def fixed_variant(env: DeepRM, params: EnvParams, jobsets: Jobset, workload: Workload | None = None) -> FixedJobsets:
    """A variant of ``env`` with ``params``' caps whose instances are ``jobsets`` (a stacked batch)."""
    return FixedJobsets(name="test", env=env, workload=workload or Workload(), params=params, jobsets=jobsets)


TEST_DATA = Path(__file__).resolve().parent / "data"


def dataset_file(name: str) -> Path:
    """Dataset ``name``'s file (jaxsched.workloads.datasets): the excerpt shipped in tests/data if any (the Parallel
    Workloads Archive's terms allow it; the Huawei trace's do not), else the cache or ../shared/data;
    skips the test, saying how to fetch it, when it is nowhere."""
    shipped = TEST_DATA / get(name).file
    path = shipped if shipped.exists() else find(name)
    if path is None:
        pytest.skip(f"dataset {name} is not here; get it with: {fetch_hint(name)}")
    return path
