"""VM placement scenarios beyond the basic env: warm start, expansion, income, the second Best-Fit
variant, top-k candidate masks, registered variants and the Huawei trace (skipped when absent)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from conftest import dataset_file
from jaxsched.baselines.vm import (VM_HEURISTICS, RequestMix, best_fit, best_fit_scores, cvd_candidates,
                                   heuristic_policy, pm_best_fit, pm_best_fit_scores, request_mix, room_fit,
                                   room_loss, top_k_mask, usable_room)
from jaxsched.core.rollout import run_episode
from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.episodes import draw_starts, evaluate_policies, initial_state_pool, params_at
from jaxsched.envs.vm.trace import load_lifetimes
from jaxsched.envs.vm.types import Observation
from jaxsched.envs.vm.variants import FRAG_TYPES
from jaxsched.registry import build
from test_vm_env import lifetimes, small_params



def test_durations_are_lifetimes_of_creates():
    r = lifetimes((1, 1, 0, 5), (2, 2, 5, 3), (3, 3, 6, 0))  # C0 D0 C1 C2 D2 D1
    np.testing.assert_allclose(r.duration, [5, 0, 3, 0, 0, 0])


def test_warm_start_fills_with_best_fit_then_hands_over():
    env = VmPlacement(num_pms=2)
    # six 1-cpu VMs; ρ_ws = 0.25 of 16 cpu = 4 cpu: Best-Fit stacks them on NUMA (0, 0)
    params = small_params(lifetimes(*[(1, 1, t, 100) for t in range(6)]), warm_start=0.25)
    obs, state = env.reset_env(None, params)
    assert state.cpu.tolist() == [[0, 4], [4, 4]]
    assert int(state.placed) == 0 and int(state.time) == 0 and float(state.income) == 0.0
    assert int(state.pos) == 4  # the agent decides the fifth create
    assert float(env.cpu_allocation(state, params)) == pytest.approx(0.25)
    result = run_episode(env, params, best_fit, jax.random.PRNGKey(0))
    assert float(result.episode_return) == 2.0 and int(result.state.placed) == 2


def test_warm_start_stops_when_nothing_fits():
    env = VmPlacement(num_pms=1)
    params = small_params(lifetimes((4, 8, 0, 99), (4, 8, 1, 99), (4, 8, 2, 99)), warm_start=0.9)
    _, state = env.reset_env(None, params)
    assert state.cpu.tolist() == [[0, 0]] and not bool(env.feasible(state, params).any())


def test_expansion_adds_pms_when_a_create_fits_nowhere():
    env = VmPlacement(num_pms=3)
    # 4-cpu VMs fill one NUMA each; 1 PM in service, +1 per overflow, up to 3
    params = small_params(lifetimes(*[(4, 1, t, 99) for t in range(7)]), initial_pms=1, pms_per_expansion=1)
    obs, state = env.reset_env(None, params)
    assert int(state.active) == 1 and obs.action_mask.tolist() == [True, True, False, False, False, False]
    assert float(env.cpu_allocation(state, params)) == 0.0
    obs, state, *_ = env.step_env(None, state, 0, params)
    assert float(env.cpu_allocation(state, params)) == pytest.approx(0.5)  # of the PM in service
    obs, state, _, done, _ = env.step_env(None, state, 1, params)  # PM 0 full -> PM 1 joins
    assert int(state.active) == 2 and not bool(done)
    assert obs.action_mask.tolist() == [False, False, True, True, False, False]
    assert float(env.cpu_allocation(state, params)) == pytest.approx(0.5)
    result = run_episode(env, params, best_fit, jax.random.PRNGKey(0))
    assert float(result.episode_return) == 6.0 and int(result.state.active) == 3 and bool(result.terminated)
    # non-expansion (all 3 in service from the start) places the same 6 and also ends on the 7th
    full = run_episode(env, params.replace(initial_pms=0), best_fit, jax.random.PRNGKey(0))
    assert float(full.episode_return) == 6.0


def test_income_is_lifetime_times_hourly_price():
    env = VmPlacement(num_pms=1)
    params = small_params(lifetimes((2, 4, 0, 7200), (1, 2, 10, 1800)), price_per_cpu_hour=0.5,
                          price_per_gb_hour=0.25)
    result = run_episode(env, params, best_fit, jax.random.PRNGKey(0))
    # (2 * 0.5 + 4 * 0.25) * 2 h + (1 * 0.5 + 2 * 0.25) * 0.5 h
    assert float(result.state.income) == pytest.approx(4.0 + 0.5)
    metrics = env.metrics(result.state, params)
    assert int(metrics["scheduled_length"]) == 2 and float(metrics["income"]) == pytest.approx(4.5)


# ---------------------------------------------------------------------- heuristics
def obs_of(cpu, mem, mask, request_cpu, request_mem, double=False):
    cpu, mem = jnp.asarray(cpu, jnp.float32), jnp.asarray(mem, jnp.float32)
    return Observation(features=jnp.zeros((cpu.shape[0], 7)), action_mask=jnp.asarray(mask), cpu=cpu, mem=mem,
                       request_cpu=jnp.float32(request_cpu), request_mem=jnp.float32(request_mem),
                       is_double=jnp.bool_(double), numa_cpu=jnp.float32(40.0), numa_mem=jnp.float32(80.0))


def test_pm_best_fit_prefers_the_fullest_pm():
    # Best-Fit: action 1 leaves 2/40 on its NUMA. PM 1 as a whole is fuller (cpu and memory).
    obs = obs_of([[40, 6], [10, 10]], [[80, 80], [20, 20]], [True] * 4, 4, 4)
    assert int(best_fit(None, obs)) == 1
    assert int(pm_best_fit(None, obs)) == 2
    scores = pm_best_fit_scores(obs)  # PM 1: cpu (6 + 10) / 40, mem (16 + 20) / 80
    assert float(scores[2]) == pytest.approx(16 / 40 + 36 / 80 + (6 / 40) / 1024)
    obs = obs_of([[40, 6], [10, 10]], [[80, 80], [20, 20]], [True, True, False, False], 4, 4)
    assert int(pm_best_fit(None, obs)) == 1  # the infeasible PM is never chosen; NUMA 1 fits best


def test_top_k_masks_and_cvd_candidates():
    obs = obs_of([[5, 30], [6, 20], [40, 9]], [[80] * 2] * 3, [True] * 6, 4, 4)
    # Best-Fit ratios left: 1/40, 26/40, 2/40, 16/40, 36/40, 5/40 -> top 2 are actions 0, 2
    assert np.flatnonzero(top_k_mask(best_fit_scores(obs), 2, obs)).tolist() == [0, 2]
    assert top_k_mask(best_fit_scores(obs), 10, obs).sum() == 6
    # PM-level: PM 1 (6+20 cpu) is the fullest, both its NUMAs first (NUMA 0 by Best-Fit), then
    # PM 0 (5+30) on NUMA 0
    pm_top = np.flatnonzero(top_k_mask(pm_best_fit_scores(obs), 3, obs)).tolist()
    assert pm_top == [0, 2, 3]
    assert np.flatnonzero(cvd_candidates(obs, 2, 3)).tolist() == [0, 2, 3]  # the union
    assert np.flatnonzero(cvd_candidates(obs, 2, 1)).tolist() == [0, 2]
    # a double VM: one candidate per PM (its NUMA-0 action), infeasible PMs excluded
    obs = obs_of([[5, 30], [6, 20], [40, 9]], [[80] * 2] * 3, [False, False, True, True, True, True], 4, 4,
                 double=True)
    mask = top_k_mask(best_fit_scores(obs), 5, obs)
    assert np.flatnonzero(mask).tolist() == [2, 4]
    assert VM_HEURISTICS["pm_best_fit"] is pm_best_fit


def test_usable_room_counts_what_the_mix_can_still_use():
    # one single-NUMA type of half a NUMA (cpu and mem): an empty PM holds 4, each a quarter PM of cpu
    half = RequestMix(cpu=jnp.array([0.5]), mem=jnp.array([0.5]), double=jnp.array([False]), weight=jnp.array([1.0]))
    assert float(usable_room(half, jnp.ones(4))) == pytest.approx(1.0)
    assert float(usable_room(half, jnp.array([0.7, 1.0, 1.0, 1.0]))) == pytest.approx(0.75)  # 0.2 is a hole
    assert float(usable_room(half, jnp.array([1.0, 1.0, 0.4, 1.0]))) == pytest.approx(0.5)  # memory decides
    # a double type taking a whole PM (half of it from each NUMA): 1 fits, none once a NUMA is used
    whole = RequestMix(cpu=jnp.array([2.0]), mem=jnp.array([2.0]), double=jnp.array([True]), weight=jnp.array([1.0]))
    assert float(usable_room(whole, jnp.ones(4))) == pytest.approx(1.0)
    assert float(usable_room(whole, jnp.array([1.0, 0.9, 1.0, 1.0]))) == 0.0
    both = RequestMix(cpu=jnp.array([0.5, 2.0]), mem=jnp.array([0.5, 2.0]), double=jnp.array([False, True]),
                      weight=jnp.array([0.75, 0.25]))
    assert float(usable_room(both, jnp.ones((3, 4)))[1]) == pytest.approx(0.75 * 1.0 + 0.25 * 1.0)


def test_room_fit_fills_holes_the_mix_cannot_use():
    # NUMAs of 40 cpu / 80 GB, one type of 20 cpu / 40 GB. PM 0 NUMA 0 has a 10-cpu hole; PM 1 is empty.
    mix = RequestMix(cpu=jnp.array([0.5]), mem=jnp.array([0.5]), double=jnp.array([False]), weight=jnp.array([1.0]))
    obs = obs_of([[10, 40], [40, 40]], [[80, 80], [80, 80]], [True] * 4, 8, 8)
    loss = room_loss(mix, obs)
    assert float(loss[0]) == 0.0  # the hole could take no 20-cpu VM anyway
    assert float(loss[1]) == pytest.approx(0.25) and float(loss[2]) == pytest.approx(0.25)
    assert int(room_fit(mix)(None, obs)) == 0
    assert int(pm_best_fit(None, obs)) == 0  # here both agree; now make the PM-level rule differ:
    obs = obs_of([[10, 40], [20, 20]], [[80, 80], [40, 40]], [True] * 4, 8, 8)
    assert int(pm_best_fit(None, obs)) == 2  # PM 1 is the fuller PM, but each of its NUMAs still takes
    assert int(room_fit(mix)(None, obs)) == 0  # one 20-cpu VM; the hole on PM 0 takes this one for free
    assert np.flatnonzero(cvd_candidates(obs, 0, 1, 1, mix)).tolist() == [0, 2]  # PM-BF's top ∪ room_fit's
    with pytest.raises(ValueError, match="mix"):
        cvd_candidates(obs, 0, 1, 1)


def test_request_mix_from_a_trace_and_heuristic_policy():
    variant = build("vm-frag", num_pms=5)
    mix = request_mix(variant.trace, variant.params)
    assert len(mix.weight) == len(FRAG_TYPES) and float(jnp.sum(mix.weight)) == pytest.approx(1.0)
    sizes = {(round(float(c) * 40), round(float(m) * 90)) for c, m in zip(mix.cpu, mix.mem)}
    assert sizes == {(c, m) for c, m, _ in FRAG_TYPES}
    assert {(round(float(m) * 90), bool(d)) for d, m in zip(mix.double, mix.mem) if bool(d)} == {(48, True), (64, True)}
    np.testing.assert_allclose(float(mix.weight[0]), 0.25, atol=0.02)  # the most frequent, 2 cpu / 4 GB
    assert heuristic_policy("best_fit", variant) is best_fit
    starts = draw_starts(jax.random.PRNGKey(0), variant, 2)
    policy = heuristic_policy("room_fit", variant)
    tables = evaluate_policies(variant, {"room_fit": policy}, starts, jax.random.PRNGKey(1))
    assert np.all(tables["room_fit"]["scheduled_length"] > 0)


def test_time_averaged_allocation_is_the_mean_over_the_agents_placements():
    variant = build("vm-frag", num_pms=3, start_high=600, warm_start=0.3)
    env, policy = variant.env, heuristic_policy("room_fit", variant)
    starts = draw_starts(jax.random.PRNGKey(2), variant, 2)
    table = evaluate_policies(variant, {"room_fit": policy}, starts, jax.random.PRNGKey(1))["room_fit"]
    step = jax.jit(lambda state, obs, params: env.step_env(None, state, policy(None, obs), params))
    for i, start in enumerate(np.asarray(starts)):  # the reference: a Python loop over one episode
        params = params_at(variant, int(start))
        obs, state = env.reset_env(None, params)
        rates, done = [], False
        while not done:
            obs, state, _, done, info = step(state, obs, params)
            if bool(info["placed"]):
                rates.append(float(info["cpu_allocation"]))
        assert len(rates) == table["scheduled_length"][i] > 10
        assert table["cpu_allocation_mean"][i] == pytest.approx(np.mean(rates), abs=1e-5)
        assert table["cpu_allocation"][i] == pytest.approx(rates[-1], abs=1e-6)  # the end-of-episode value
        assert table["cpu_allocation_mean"][i] < table["cpu_allocation"][i]  # the cluster fills over time


def test_time_averaged_allocation_of_an_episode_without_placements_is_its_start():
    from jaxsched.envs.vm.env import mean_cpu_allocation
    assert float(mean_cpu_allocation(jnp.float32(0.0), jnp.int32(0), jnp.float32(0.4))) == pytest.approx(0.4)
    assert float(mean_cpu_allocation(jnp.float32(1.5), jnp.int32(3), jnp.float32(0.9))) == pytest.approx(0.5)


# ---------------------------------------------------------------------- variants and start points
def test_synthetic_variant_pool_and_evaluation():
    variant = build("vm-synthetic", window=300, warm_start=0.5)
    assert variant.env.num_pms == 3 and variant.params.warm_start == 0.5
    starts = draw_starts(jax.random.PRNGKey(0), variant, 4)
    assert np.all((np.asarray(starts) >= variant.start_low) & (np.asarray(starts) < variant.start_high))
    pool = initial_state_pool(variant, starts)
    allocation = jax.vmap(variant.env.cpu_allocation, in_axes=(0, None))(pool, variant.params)
    assert np.all(np.asarray(allocation) >= 0.5)
    again = variant.env.initial_state(params_at(variant, starts[2]))
    np.testing.assert_array_equal(pool.cpu[2], again.cpu)
    tables = evaluate_policies(variant, {"first_fit": VM_HEURISTICS["first_fit"]}, starts, jax.random.PRNGKey(1))
    assert tables["first_fit"]["scheduled_length"].shape == (4,)
    assert np.all(tables["first_fit"]["scheduled_length"] > 0)


def test_frag_variant_mix_load_and_window():
    variant = build("vm-frag", num_pms=4, start_high=600)
    assert variant.window == 160 * 4 + 2000 and variant.trace.length >= 600 + variant.window
    creates = np.asarray(variant.trace.kind) == 0
    shapes = set(zip(np.asarray(variant.trace.cpu)[creates].tolist(), np.asarray(variant.trace.mem)[creates].tolist()))
    assert shapes <= {(float(c), float(m)) for c, m, _ in FRAG_TYPES} and len(shapes) >= 6
    # arrivals: offered cpu = load x cluster cpu, so the mean gap is mean cpu x mean lifetime / (0.9 x 4 x 80)
    table = np.asarray(FRAG_TYPES)
    gap = (table[:, 0] @ table[:, 2] / table[:, 2].sum()) * 3600 * np.exp(0.5) / (0.9 * 4 * 80)
    arrivals = np.asarray(variant.trace.time)[creates]
    assert np.mean(np.diff(arrivals)) == pytest.approx(gap, rel=0.1)
    # twice the PMs, twice the arrival rate
    wider = build("vm-frag", num_pms=8, start_high=600)
    arrivals8 = np.asarray(wider.trace.time)[np.asarray(wider.trace.kind) == 0]
    assert np.mean(np.diff(arrivals8)) == pytest.approx(gap / 2, rel=0.1)
    with pytest.raises(ValueError, match="synthetic_mix"):
        build("vm-frag", synthetic_mix="nope")


def _trace_rows(variant, batched_params) -> np.ndarray:
    """The whole-trace rows of every valid row of ``batched_params``' windows (a row is its (vm, kind))."""
    trace_row = {(int(v), int(k)): row for row, (v, k) in enumerate(zip(np.asarray(variant.trace.vm),
                                                                        np.asarray(variant.trace.kind)))}
    requests = batched_params.requests
    valid = np.asarray(requests.valid)
    pairs = zip(np.asarray(requests.vm)[valid], np.asarray(requests.kind)[valid])
    return np.array([trace_row[(int(v), int(k))] for v, k in pairs])


def test_held_out_windows_share_no_trace_row_with_training_windows():
    variant = build("vm-synthetic", window=300, held_out_from=3000)
    assert variant.start_range() == (0, 2701) and variant.start_range(held_out=True) == (3000, 5000)
    training = np.asarray(draw_starts(jax.random.PRNGKey(3), variant, 2000))
    assert training.min() >= 0 and training.max() + variant.window <= 3000 and training.max() > 2600
    held_out, header = variant.held_out(64, seed=7)
    assert min(header["start_points"]) >= 3000 and max(header["start_points"]) < 5000
    assert header["held_out_start_range"] == [3000, 5000] and header["training_start_range"] == [0, 2701]
    assert header["held_out_disjoint_from_training"] is True
    # the windows themselves: every row the training episodes read lies before every held-out row
    seen_in_training = _trace_rows(variant, variant.sample_params(jax.random.PRNGKey(5), 64))
    seen_held_out = _trace_rows(variant, held_out)
    assert seen_in_training.max() < 3000 <= seen_held_out.min()


def test_without_held_out_from_both_draw_from_the_whole_start_range():
    variant = build("vm-synthetic", window=300)
    assert variant.start_range() == variant.start_range(held_out=True) == (0, 5000)
    _, header = variant.held_out(8, seed=7)
    assert header["held_out_disjoint_from_training"] is False
    np.testing.assert_array_equal(header["start_points"], draw_starts(jax.random.PRNGKey(7), variant, 8))


@pytest.mark.parametrize("value, message", [
    (5000, "inside the start range"), (0, "inside the start range"), (299, "no training start"),
    ("3000", "must be an integer"), (2.5, "must be an integer")])
def test_held_out_from_errors_are_one_line(value, message):
    with pytest.raises(ValueError, match=message) as error:
        build("vm-synthetic", window=300, held_out_from=value)
    assert "\n" not in str(error.value)


def test_variant_errors():
    with pytest.raises(ValueError, match="unknown option"):
        build("vm-synthetic", capacity=3)
    with pytest.raises(ValueError, match="not found"):
        build("vm-huawei", trace="/nonexistent/trace.csv")
    with pytest.raises(ValueError, match="trace=PATH"):  # vm-huawei has no default trace
        build("vm-huawei")
    with pytest.raises(ValueError, match="start_low"):
        build("vm-synthetic", start_low=10, start_high=5)


def test_huawei_trace_loads():
    requests = load_lifetimes(dataset_file("huawei-east-1"))
    assert requests.length == 2 * 116_313 and bool(requests.valid.all())
    creates = np.asarray(requests.kind) == 0
    assert creates.sum() == 116_313 and np.all(np.asarray(requests.duration)[creates] >= 0)
