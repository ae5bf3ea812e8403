"""The public ``env.step`` (:class:`jaxsched.core.observe_once.ObserveOnceStep`: one observation, restarts
only where an episode ended) returns what gymnax's ``Environment.step`` returns, bit for bit, every leaf
of its six values (``info["final_observation"]`` included): every family batched and alone, a nested
``vmap`` with shared params, and the flat view (``make_gymnax``) with a reset that draws a fresh instance
from its key, over episodes that cross auto-resets. A negative control shows that the comparison catches
an observation taken before the restart. ``bench public-step`` checks both sides equal, times them and
writes its file."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnax.environments import environment

import jaxsched
from jaxsched.bench.cli import main as bench_main
from jaxsched.core.observe_once import ObserveOnceStep

# one small variant per family; the VM one ends episodes often (a masked action ends it), so copies
# finish together and the batched restart loop takes several passes
SMALL = {
    "deeprm": dict(num_slots=3, backlog_size=6, horizon=10, max_job_len=6, capacity=5, max_job_size=5, simu_len=20),
    "vm-synthetic": dict(window=60, initial_pms=1, pms_per_expansion=1),
    "grid": dict(num_jobs=12, exclude=0, num_cores=4, num_candidates=4, scan_width=8),
}
BATCH, STEPS = 8, 40
# two differently fused programs agreeing bit for bit is a claim about programs compiled as users compile
# them (at the suite's -O0, LLVM may round a fused sum in the last bit: VM's income did): see conftest
pytestmark = pytest.mark.usefixtures("default_compilation")


def gymnax_step(env, key, state, action, params):
    """gymnax's own ``Environment.step`` (the base class's, not the env's override)."""
    return environment.Environment.step.__wrapped__(env, key, state, action, params)


def observe_before_restart(env, key, state, action, params):
    """A wrong step for the negative control: restarts the state but keeps the stepped observation."""
    obs, stepped, reward, terminated, info = env.step_env(key, state, action, params)
    truncated = env.is_truncated(stepped, params)
    done = terminated | truncated
    state = jax.tree.map(lambda a, b: jnp.where(done, a, b), env.reset_state(key, params), stepped)
    info = {**info, "terminated": terminated, "truncated": truncated, "final_observation": obs}
    return obs, state, reward, terminated, truncated, info


def differences(left, right) -> list[str]:
    """The leaves (by path) where two step outputs differ in structure, dtype, shape or any bit."""
    left_leaves, left_tree = jax.tree_util.tree_flatten_with_path(left)
    right_leaves, right_tree = jax.tree_util.tree_flatten_with_path(right)
    if left_tree != right_tree:
        return ["tree structure"]
    found = []
    for (path, a), (_, b) in zip(left_leaves, right_leaves):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
            found.append(jax.tree_util.keystr(path))
    return found


def random_actions(rng, env, obs, allowed_share: float = 0.9) -> jnp.ndarray:
    """int32[batch]: with probability ``allowed_share`` a uniformly drawn allowed action (episodes run on),
    else any action (VM: a masked one ends the episode)."""
    mask = np.asarray(obs.action_mask if hasattr(obs, "action_mask") else obs[..., -env.num_actions:] > 0.5)
    allowed = np.argmax(np.where(mask, rng.random(mask.shape), -1.0), axis=-1)
    anything = rng.integers(0, env.num_actions, mask.shape[0])
    return jnp.asarray(np.where(rng.random(mask.shape[0]) < allowed_share, allowed, anything), jnp.int32)


def play(step, reference, env, params, begun, in_axes, seed: int = 0, steps: int = STEPS) -> np.ndarray:
    """Steps ``step`` and ``reference`` side by side from ``begun = (obs, state)`` with random actions
    (carrying ``step``'s state on); fails at the first differing leaf. Returns the finished copies per step."""
    step, reference = jax.jit(jax.vmap(step, in_axes)), jax.jit(jax.vmap(reference, in_axes))
    obs, state = begun
    batch = jax.tree.leaves(state)[0].shape[0]
    rng, finished = np.random.default_rng(seed), []
    for t in range(steps):
        keys = jax.random.split(jax.random.PRNGKey(seed * 1000 + t), batch)
        action = random_actions(rng, env, obs)
        mine, theirs = step(keys, state, action, params), reference(keys, state, action, params)
        assert not differences(mine, theirs), f"step {t}: {differences(mine, theirs)}"
        obs, state = mine[0], mine[1]
        finished.append(int(np.sum(np.asarray(mine[3]) | np.asarray(mine[4]))))
    return np.asarray(finished)


def start(env, params, batch: int = BATCH, params_axis=0):
    """``(obs, state)`` of ``batch`` copies reset with their own keys."""
    keys = jax.random.split(jax.random.PRNGKey(7), batch)
    return jax.jit(jax.vmap(env.reset, in_axes=(0, params_axis)))(keys, params)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_public_step_is_gymnax_step_batched_and_alone(name):
    variant = jaxsched.registry.build(name, **SMALL[name])
    env = variant.env
    assert isinstance(env, ObserveOnceStep)
    params = variant.sample_params(jax.random.PRNGKey(0), BATCH)
    finished = play(env.step, lambda *a: gymnax_step(env, *a), env, params, start(env, params), (0, 0, 0, 0))
    assert finished.sum() >= 2 and (finished == 0).any()  # episodes ended, and steps went on without one
    if name == "vm-synthetic":  # several copies at once: the restart loop (one copy per pass at batch 8) loops
        assert finished.max() >= 2
    # one env, no vmap: the restart is a lax.cond
    obs, state = env.reset(jax.random.PRNGKey(3), variant.params)
    reference, rng, ended = jax.jit(lambda *a: gymnax_step(env, *a)), np.random.default_rng(1), 0
    for t in range(STEPS):
        key = jax.random.PRNGKey(t)
        action = random_actions(rng, env, jax.tree.map(lambda x: x[None], obs), allowed_share=0.6)[0]
        mine = env.step(key, state, action, variant.params)
        assert not differences(mine, reference(key, state, action, variant.params)), f"unbatched step {t}"
        obs, state, ended = mine[0], mine[1], ended + int(mine[3] | mine[4])
    assert ended >= 1


def test_public_step_under_nested_vmap_with_shared_params():
    """vmap of vmap (instances x rollouts sharing their instance's params): the inner rule's restart
    loop is batched again by the outer vmap."""
    variant = jaxsched.registry.build("vm-synthetic", **SMALL["vm-synthetic"])
    env = variant.env
    batched = variant.sample_params(jax.random.PRNGKey(1), 2)
    nested = lambda step: jax.jit(jax.vmap(jax.vmap(step, (0, 0, 0, None)), (0, 0, 0, 0)))
    obs, states = jax.vmap(lambda p: start(env, p, 3, None))(batched)
    ours, theirs = nested(env.step), nested(lambda *a: gymnax_step(env, *a))
    rng, finished = np.random.default_rng(4), 0
    for t in range(STEPS):
        keys = jax.random.split(jax.random.PRNGKey(t), (2, 3))
        action = random_actions(rng, env, jax.tree.map(lambda x: x.reshape((6,) + x.shape[2:]), obs)).reshape(2, 3)
        mine = ours(keys, states, action, batched)
        assert not differences(mine, theirs(keys, states, action, batched)), f"nested step {t}"
        obs, states, finished = mine[0], mine[1], finished + int(np.sum(np.asarray(mine[3] | mine[4])))
    assert finished >= 2


@pytest.mark.parametrize("name", ["deeprm", "vm-synthetic"])
def test_flat_view_with_fresh_instances_is_gymnax_step(name):
    flat, params = jaxsched.make_gymnax(name, **SMALL[name])
    begun = start(flat, params, params_axis=None)
    # the registered flat view is on the observe-once step: its reset draws a fresh instance from the reset
    # key, so the batched restart must hand each finished copy its own key
    assert isinstance(flat, ObserveOnceStep)
    finished = play(flat.step, lambda *a: gymnax_step(flat, *a), flat, params, begun, (0, 0, 0, None), seed=2)
    assert finished.sum() >= 1


def test_negative_control_an_observation_before_the_restart_is_caught():
    variant = jaxsched.registry.build("vm-synthetic", **SMALL["vm-synthetic"])
    env = variant.env
    params = variant.sample_params(jax.random.PRNGKey(0), BATCH)
    with pytest.raises(AssertionError, match="observation|final_observation|features"):
        play(lambda *a: observe_before_restart(env, *a), lambda *a: gymnax_step(env, *a), env, params,
             start(env, params), (0, 0, 0, 0))


def test_bench_public_step_checks_both_sides_then_times_them(tmp_path, capsys):
    out = tmp_path / "public_step.json"
    assert bench_main(["public-step", "--rows", "deeprm-10", "--batch", "4", "--steps", "3", "--repeats", "1",
                       "--window", "0.01", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    (row,) = report["rows"]
    assert row["row"] == "deeprm-10" and row["batch"] == 4 and row["policy"] == "sjf"
    assert row["internal"]["steps_per_s"] > 0 and row["public"]["steps_per_s"] > 0
    assert row["ratio"] == pytest.approx(row["internal"]["steps_per_s"] / row["public"]["steps_per_s"])
    assert report["meta"]["cores_used"] >= 1 and report["meta"]["jax"] == jax.__version__
    assert "internal / public" in capsys.readouterr().out
