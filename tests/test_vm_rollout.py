"""One exact step of policy improvement over a VM heuristic (jaxsched.studies.vm_rollout)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.baselines.vm import heuristic_policy
from jaxsched.envs.vm.episodes import draw_starts, params_at
from jaxsched.envs.vm.trace import CREATE, imagined_window, running_vms, window
from jaxsched.registry import build
from jaxsched.studies.vm_planner import training_lifetimes
from jaxsched.studies.vm_rollout import ImaginedFutures, action_values, compare


@pytest.mark.parametrize("cvd_k", [None, (1, 1, 1)], ids=["every action", "CVD-RL candidates"])
def test_improved_policy_is_never_worse_and_departs_only_to_gain(cvd_k):
    """The env is deterministic, so rollout values are exact and the policy improvement theorem
    holds start by start (also over a candidate set that holds the heuristic's own action): never
    below the heuristic; where it never leaves it, equal to it."""
    variant = build("vm-frag", num_pms=3, window=120)
    starts = draw_starts(jax.random.PRNGKey(0), variant, 8)
    result = compare(variant, "best_fit", starts, cvd_k)
    assert np.all(result["scheduled_length"] >= result["base"])
    same = result["departures"] == 0
    np.testing.assert_array_equal(result["scheduled_length"][same], result["base"][same])
    assert result["departures"].sum() > 0 and np.any(result["scheduled_length"] > result["base"])


def test_planner_beats_or_matches_room_fit_on_held_out_starts_and_reports_like_the_heuristics():
    """The planner as an evaluated policy: held-out starts from the disjoint range, never below
    room_fit (the policy improvement theorem over a set holding room_fit's own action), and where it
    never departs from room_fit every metric equals room_fit's from the ordinary evaluation
    (including the time-averaged allocation, which the two compute in different loops)."""
    from jaxsched.studies.vm_planner import measure
    variant = build("vm-frag", num_pms=3, window=120, held_out_from=5000)
    row = measure(variant, 6, seed=3, cvd_k=(1, 1, 1), heuristics=("best_fit", "room_fit"))
    assert all(5000 <= s < 10000 for s in row["start_points"]) and row["held_out_disjoint_from_training"]
    planner, base = row["per_start"]["planner"], row["per_start"]["room_fit"]
    assert np.all(np.array(planner["scheduled_length"]) >= np.array(base["scheduled_length"]))
    ratio = row["planner_vs_room_fit"]
    assert ratio["starts_worse"] == 0 and ratio["starts_improved"] + ratio["starts_equal"] == 6
    assert ratio["ratio_ci95"][0] <= ratio["ratio_iqm"] <= ratio["ratio_ci95"][1]
    same = [i for i, length in enumerate(planner["scheduled_length"]) if length == base["scheduled_length"][i]]
    assert same, "no start where the planner kept room_fit's length; pick another seed"
    for metric in ("cpu_allocation", "cpu_allocation_mean", "income"):
        np.testing.assert_allclose(np.array(planner[metric])[same], np.array(base[metric])[same], rtol=1e-5)
    assert set(row["seconds_per_episode"]) == {"best_fit", "room_fit", "planner"}


def test_ratio_summary_counts_and_iqm():
    from jaxsched.studies.vm_planner import ratio_summary
    summary = ratio_summary(np.array([2.0, 2.0, 1.0, 3.0]), np.array([1.0, 2.0, 2.0, 3.0]))
    assert (summary["starts_improved"], summary["starts_worse"], summary["starts_equal"]) == (1, 1, 2)
    assert summary["ratio_iqm"] == pytest.approx(1.0)  # ratios 0.5, 1, 1, 2: the middle two
    assert summary["ratio_mean"] == pytest.approx(1.125)


def _state_after(variant, decisions: int):
    """room_fit's state ``decisions`` placements into the window at the first training start row."""
    env, policy = variant.env, heuristic_policy("room_fit", variant)
    params = params_at(variant, draw_starts(jax.random.PRNGKey(0), variant, 1)[0])
    step = jax.jit(lambda state: env.transition(state, policy(None, env.get_obs(state, params)), params)[0])
    state = env.initial_state(params)
    for _ in range(decisions):
        state = step(state)
    return env, policy, params, state


@pytest.fixture(scope="module")
def imagined_setting():
    variant = build("vm-frag", num_pms=3, window=120)
    env, policy, params, state = _state_after(variant, 12)
    rows = draw_starts(jax.random.PRNGKey(5), variant, 3)
    futures = ImaginedFutures(windows=jax.vmap(lambda row: window(variant.trace, row, variant.window))(rows),
                              lifetimes=training_lifetimes(variant), key=jax.random.PRNGKey(7))
    return variant, env, policy, params, state, futures


def test_imagined_window_keeps_the_past_and_gives_each_running_vm_one_later_departure(imagined_setting):
    variant, env, policy, params, state, futures = imagined_setting
    requests, pos = jax.tree.map(np.asarray, state.requests), int(state.pos)
    running = np.asarray(running_vms(state.requests, state.pos, state.placed_pm))
    deleted = {int(e) for e in requests.event[:pos] if e >= 0}
    expected = [r for r in range(pos) if state.placed_pm[r] >= 0 and r not in deleted]
    assert np.flatnonzero(running).tolist() == expected and len(expected) > 0
    imagined = jax.tree.map(np.asarray, imagined_window(state.requests, state.pos, running,
                                                        jax.tree.map(lambda x: x[0], futures.windows),
                                                        futures.lifetimes, jax.random.PRNGKey(0)))
    length = requests.kind.shape[0]
    assert imagined.kind.shape == (2 * length,)
    for name in ("kind", "cpu", "mem", "partner", "time", "valid", "event"):
        np.testing.assert_array_equal(getattr(imagined, name)[:pos + 1], getattr(requests, name)[:pos + 1])
    ahead = (np.arange(2 * length) > pos) & imagined.valid
    now = requests.time[pos]
    assert np.all(imagined.time[ahead] >= now) and np.all(np.diff(imagined.time[ahead]) >= 0)
    # the first L of the future's rows and the running VMs' departures, by time: a running VM leaves at
    # most once and nothing else of the past is deleted again (a departure later than the L-th row is cut,
    # as a real delete after the window's end)
    future = jax.tree.map(lambda x: np.asarray(x[0]), futures.windows)
    assert ahead.sum() == min(length, future.valid.sum() + len(expected))
    departures = imagined.event[ahead]
    past = departures[(departures >= 0) & (departures <= pos)]
    assert len(past) == len(set(past.tolist())) > 0 and set(past.tolist()) <= set(expected)
    later = np.flatnonzero(ahead & (imagined.event > pos))  # deletes of imagined creates: same VM
    assert len(later) > 0
    np.testing.assert_array_equal(imagined.vm[imagined.event[later]], imagined.vm[later])
    assert np.all(imagined.kind[imagined.event[later]] == CREATE)


def test_imagined_planner_reads_nothing_after_the_present_request(imagined_setting):
    """Values over imagined futures are unchanged when the real future is rewritten (every later
    create a whole PM, which fits only on an empty one); the clairvoyant values change: the test can
    tell the two apart."""
    variant, env, policy, params, state, futures = imagined_setting
    rows = jnp.arange(state.requests.length)
    huge = state.requests.replace(cpu=jnp.where(rows > state.pos, 80.0, state.requests.cpu),
                                  mem=jnp.where(rows > state.pos, 180.0, state.requests.mem))
    rewritten = state.replace(requests=huge)
    values = jax.jit(lambda s, f: action_values(env, params, policy, s, futures=f)[0])
    np.testing.assert_array_equal(values(state, futures), values(rewritten, futures))
    exact = jax.jit(lambda s: action_values(env, params, policy, s)[0])
    assert not np.array_equal(exact(state), exact(rewritten))


@pytest.mark.parametrize("argv", [["--futures", "-1"], ["--futures", "4", "--margin", "-0.5"]])
def test_planner_rejects_negative_futures_and_margin_in_one_line(argv, capsys):
    from jaxsched.studies.vm_planner import main
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --futures and --margin must be >= 0") and err.count("\n") == 1
