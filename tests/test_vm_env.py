"""VM placement: trace loading, hand-computed placements, invariants, heuristics, jit/vmap."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.baselines.vm import best_fit, first_fit
from jaxsched.core.rollout import run_episode
from jaxsched.envs.vm.env import ADVANCE_CHUNK, VmPlacement
from jaxsched.envs.vm.trace import (CREATE, CREATE_EVENT, DELETE, NO_EVENT, VmTraceError, from_lifetimes,
                                   load_lifetimes, load_vmagent, synthetic, window)
from jaxsched.envs.vm.types import EnvParams, Observation


def lifetimes(*vms, length=None):
    """VMs as (cpu, mem, at, lt), ids 0.."""
    cpu, mem, at, lt = (np.array(col, np.float64) for col in zip(*vms))
    return from_lifetimes(np.arange(len(vms)), cpu, mem, at, lt, length)


def small_params(requests, **kw):
    return EnvParams(requests=requests, **{"numa_cpu": 4.0, "numa_mem": 8.0, **kw})


# ---------------------------------------------------------------------- traces
def test_event_order_deletes_before_creates_at_equal_time():
    # VM 0 lives [0, 5); VM 1 arrives at 5; VM 2 has lifetime 0 (its delete follows its create)
    r = lifetimes((1, 1, 0, 5), (2, 2, 5, 3), (3, 3, 6, 0))
    assert r.kind.tolist() == [CREATE, DELETE, CREATE, CREATE, DELETE, DELETE]
    assert r.vm.tolist() == [0, 0, 1, 2, 2, 1]
    assert r.partner.tolist() == [-1, 0, -1, -1, 3, 2]
    assert r.valid.all()


def test_window_rebases_partners_and_pads():
    r = lifetimes((1, 1, 0, 5), (2, 2, 5, 3), (3, 3, 6, 0))
    w = window(r, 1, 8)
    assert w.kind[:5].tolist() == [DELETE, CREATE, CREATE, DELETE, DELETE]
    assert w.partner[:5].tolist() == [-1, -1, -1, 2, 1]  # the first delete's create is outside
    assert w.valid.tolist() == [True] * 5 + [False] * 3
    w = jax.jit(window, static_argnums=2)(r, jnp.int32(1), 8)
    assert w.partner[:5].tolist() == [-1, -1, -1, 2, 1]


def test_event_codes_follow_kind_partner_and_window():
    r = lifetimes((1, 1, 0, 5), (2, 2, 5, 3), (3, 3, 6, 0))  # as above: C D C C D D
    assert r.event.tolist() == [CREATE_EVENT, 0, CREATE_EVENT, CREATE_EVENT, 3, 2]
    w = window(r, 1, 8)  # the first delete's create is outside: nothing to free; padding: no event
    assert w.event.tolist() == [NO_EVENT, CREATE_EVENT, CREATE_EVENT, 2, 1] + [NO_EVENT] * 3


def test_synthetic_matches_lifetime_ordering():
    r = synthetic(jax.random.PRNGKey(3), 40)
    creates = np.asarray(r.kind) == CREATE
    assert creates.sum() == 40 and np.all(np.diff(np.asarray(r.time)) >= 0)
    # every delete points at the create of the same VM, earlier in the trace
    deletes = np.flatnonzero(~creates)
    partner = np.asarray(r.partner)[deletes]
    assert np.all(partner < deletes) and np.all(np.asarray(r.vm)[partner] == np.asarray(r.vm)[deletes])
    # rebuilding from its (at, lt) with the numpy builder gives the same events
    vm, time = np.asarray(r.vm), np.asarray(r.time, np.float64)
    at = np.zeros(40)
    end = np.zeros(40)
    at[vm[creates]] = time[creates]
    end[vm[~creates]] = time[~creates]
    cpu = np.zeros(40)
    mem = np.zeros(40)
    cpu[vm[creates]], mem[vm[creates]] = np.asarray(r.cpu)[creates], np.asarray(r.mem)[creates]
    again = from_lifetimes(np.arange(40), cpu, mem, at, end - at)
    for name in ("kind", "vm", "partner", "cpu", "mem"):
        assert np.array_equal(getattr(again, name), getattr(r, name)), name


def test_load_lifetimes_and_vmagent(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("vmid,cpu,mem,at,lt\n0,4,16,0.0,10.0\n1,2,4,2.0,3.0\n")
    r = load_lifetimes(path, length=6)
    assert r.kind[:4].tolist() == [CREATE, CREATE, DELETE, DELETE]
    assert r.vm[:4].tolist() == [0, 1, 1, 0] and r.partner[:4].tolist() == [-1, -1, 1, 0]
    assert r.valid.tolist() == [True] * 4 + [False] * 2

    path = tmp_path / "v.csv"
    path.write_text("vmid,cpu,memory,time,type\n7,2,4,0,1\n3,4,16,1,0\n5,2,4,2,0\n3,4,16,3,1\n")
    r = load_vmagent(path)
    assert r.kind.tolist() == [DELETE, CREATE, CREATE, DELETE]
    assert r.partner.tolist() == [-1, -1, -1, 1]  # the first delete's VM predates the file


@pytest.mark.parametrize("loader,text,line,problem", [
    (load_lifetimes, "vmid,cpu,mem,at\n", 1, "header"),
    (load_lifetimes, "vmid,cpu,mem,at,lt\n0,4,16,0\n", 2, "4 fields"),
    (load_lifetimes, "vmid,cpu,mem,at,lt\n0,4,16,0,1\n1,x,16,0,1\n", 3, "cpu 'x' is not a number"),
    (load_lifetimes, "vmid,cpu,mem,at,lt\n0,4,16,0,-1\n", 2, "lt must be >= 0"),
    (load_lifetimes, "vmid,cpu,mem,at,lt\n0,0,16,0,1\n", 2, "cpu must be > 0"),
    (load_lifetimes, "vmid,cpu,mem,at,lt\n0,4,16,0,1\n0,4,16,0,1\n", 3, "already appeared on line 2"),
    (load_lifetimes, "vmid,cpu,mem,at,lt\n", 2, "no VMs"),
    (load_vmagent, "vmid,cpu,memory,time,type\n0,4,16,0,2\n", 2, "type must be 0 (create) or 1"),
    (load_vmagent, "vmid,cpu,memory,time,type\n0,4,16,5,0\n1,4,16,4,0\n", 3, "goes back"),
    (load_vmagent, "vmid,cpu,memory,time,type\n0,4,16,0,0\n0,4,8,1,1\n", 3, "its create (line 2)"),
    (load_vmagent, "vmid,cpu,memory,time,type\n0,4,16,0,0\n0,4,16,1,1\n0,4,16,2,1\n", 4, "deleted twice"),
])
def test_loader_errors_name_file_line_and_problem(tmp_path, loader, text, line, problem):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(VmTraceError) as error:
        loader(path)
    assert error.value.line == line and problem in error.value.problem
    assert str(path) in str(error.value)


# ---------------------------------------------------------------------- hand-computed placements
def test_single_numa_placements_and_deletes():
    env = VmPlacement(num_pms=2)
    params = small_params(lifetimes((2, 2, 0, 10), (3, 3, 1, 10)))
    obs, state = env.reset_env(jax.random.PRNGKey(0), params)
    assert obs.action_mask.tolist() == [True] * 4
    assert obs.features.shape == (2, 7)
    obs, state, reward, done, info = env.step_env(None, state, 1, params)  # PM 0, NUMA 1
    assert reward == 1.0 and not done and bool(info["placed"])
    assert state.cpu.tolist() == [[4, 2], [4, 4]] and state.mem.tolist() == [[8, 6], [8, 8]]
    assert obs.action_mask.tolist() == [True, False, True, True]  # 3 cpu no longer fits NUMA (0, 1)
    np.testing.assert_allclose(obs.features[0], [1, 0.5, 1, 0.75, 0.75, 0.375, 0])
    obs, state, reward, done, info = env.step_env(None, state, 3, params)
    assert reward == 1.0 and bool(done)  # no create left; both deletes applied on the way
    assert state.cpu.tolist() == [[4, 4], [4, 4]] and state.mem.tolist() == [[8, 8], [8, 8]]
    assert int(state.placed) == 2


def test_double_numa_takes_half_from_both_and_delete_frees_exactly_that():
    env = VmPlacement(num_pms=2)
    # VM 0 (2 cpu, 8 mem) is double under mem > 6; it is deleted at 5, before VM 1 arrives
    params = small_params(lifetimes((2, 8, 0, 5), (1, 1, 2, 10), (3, 3, 6, 1)), double_mem_above=6.0)
    obs, state = env.reset_env(None, params)
    assert bool(obs.is_double) and obs.action_mask.tolist() == [True] * 4
    obs, state, reward, done, _ = env.step_env(None, state, 3, params)  # PM 1 (NUMA ignored)
    assert state.cpu.tolist() == [[4, 4], [3, 3]] and state.mem.tolist() == [[8, 8], [4, 4]]
    assert not bool(obs.is_double)
    obs, state, reward, done, _ = env.step_env(None, state, 2, params)  # VM 1 on PM 1, NUMA 0
    # VM 0's delete came before VM 2's create: PM 1 got back exactly its halves
    assert state.cpu.tolist() == [[4, 4], [3, 4]] and state.mem.tolist() == [[8, 8], [7, 8]]
    assert not bool(done)
    # a double VM that only one NUMA could hold is masked on that PM
    params = small_params(lifetimes((3, 1, 0, 9), (4, 8, 1, 9)), double_mem_above=6.0)
    obs, state = env.reset_env(None, params)
    obs, state, *_ = env.step_env(None, state, 0, params)
    assert obs.action_mask.tolist() == [False, False, True, True]


def test_deletes_longer_than_one_chunk_are_all_applied():
    """More deletes between two creates than ``_advance`` reads at once: its loop must take over."""
    count = ADVANCE_CHUNK + 7
    env = VmPlacement(num_pms=1)
    small = [(0.1, 0.1, float(t), 100.0 - t) for t in range(count)]  # all deleted at t = 100
    params = small_params(lifetimes(*small, (1, 1, 200, 500), (1, 1, 300, 5)))
    state, step = env.initial_state(params), jax.jit(env.transition)
    for _ in range(count):
        state, _, done, _ = step(state, 0, params)
        assert not bool(done)
    assert int(state.pos) == 2 * count  # the row after all the deletes
    np.testing.assert_allclose(state.cpu, [[4, 4]])
    np.testing.assert_allclose(state.mem, [[8, 8]])
    state, _, done, _ = step(state, 1, params)
    assert not bool(done) and state.cpu.tolist() == [[4, 3]]


def test_request_that_fits_nowhere_ends_the_episode():
    env = VmPlacement(num_pms=1)
    params = small_params(lifetimes((4, 8, 0, 99), (4, 8, 1, 99), (1, 1, 2, 99), (1, 1, 3, 99)))
    obs, state = env.reset_env(None, params)
    obs, state, reward, done, _ = env.step_env(None, state, 0, params)
    assert not bool(done) and obs.action_mask.tolist() == [False, True]
    obs, state, reward, done, _ = env.step_env(None, state, 1, params)
    assert bool(done) and not obs.action_mask.any()
    result = run_episode(env, params, first_fit, jax.random.PRNGKey(0))
    assert float(result.episode_return) == 2.0 and bool(result.terminated)


def test_infeasible_action_places_nothing_and_terminates():
    env = VmPlacement(num_pms=1)
    params = small_params(lifetimes((3, 1, 0, 9), (3, 1, 1, 9)))
    obs, state = env.reset_env(None, params)
    _, state, _, _, _ = env.step_env(None, state, 0, params)
    _, after, reward, done, info = env.step_env(None, state, 0, params)  # NUMA 0 has 1 cpu left
    assert reward == 0.0 and bool(done) and not bool(info["placed"])
    assert after.cpu.tolist() == state.cpu.tolist()


def test_allocation_reward():
    env = VmPlacement(num_pms=1, reward="allocation")
    params = small_params(lifetimes((2, 1, 0, 9), (1, 1, 1, 9)))
    _, state = env.reset_env(None, params)
    _, state, reward, _, info = env.step_env(None, state, 0, params)
    assert float(reward) == pytest.approx(0.25) and float(info["cpu_allocation"]) == pytest.approx(0.25)


# ---------------------------------------------------------------------- heuristics
def hand_obs(cpu, mask, request_cpu, double=False):
    cpu = jnp.asarray(cpu, jnp.float32)
    return Observation(features=jnp.zeros((cpu.shape[0], 7)), action_mask=jnp.asarray(mask),
                       cpu=cpu, mem=jnp.full(cpu.shape, 90.0), request_cpu=jnp.float32(request_cpu),
                       request_mem=jnp.float32(1.0), is_double=jnp.bool_(double),
                       numa_cpu=jnp.float32(40.0), numa_mem=jnp.float32(90.0))


def test_first_fit_and_best_fit_single():
    obs = hand_obs([[1, 30], [8, 5], [40, 6]], [False, True, True, True, True, True], 4)
    assert int(first_fit(None, obs)) == 1
    assert int(best_fit(None, obs)) == 3  # 5 - 4 = 1 left is the tightest
    obs = hand_obs([[6, 6], [6, 40]], [True, True, True, True], 4)
    assert int(best_fit(None, obs)) == 0  # tie between actions 0, 1, 2: lowest index


def test_best_fit_double_uses_the_larger_numa():
    # PM 0 leaves (20-2, 4-2) -> max 18; PM 1 leaves (10-2, 12-2) -> max 10: PM 1 wins
    obs = hand_obs([[20, 4], [10, 12]], [True, True, True, True], 4, double=True)
    assert int(best_fit(None, obs)) == 2
    assert int(first_fit(None, obs)) == 0
    assert int(jax.jit(best_fit)(None, obs)) == 2


# ---------------------------------------------------------------------- invariants and a reference
def reference_episode(requests, num_pms, numa_cpu, numa_mem, double_mem_above, policy_name):
    """A plain-Python simulator of the same semantics, independent of the env's code."""
    kind, cpu, mem, partner, valid = (np.asarray(x).tolist() for x in
                                      (requests.kind, requests.cpu, requests.mem, requests.partner, requests.valid))
    free = [[[numa_cpu, numa_mem], [numa_cpu, numa_mem]] for _ in range(num_pms)]
    taken = {}
    placed = 0
    for row in range(len(kind)):
        if not valid[row]:
            continue
        if kind[row] == DELETE:
            if partner[row] in taken:
                pm, shares = taken.pop(partner[row])
                for numa, (c, m) in enumerate(shares):
                    free[pm][numa][0] += c
                    free[pm][numa][1] += m
            continue
        c, m = cpu[row], mem[row]
        options = []  # (score, action, shares)
        for pm in range(num_pms):
            if m > double_mem_above:
                shares = [(c / 2, m / 2), (c / 2, m / 2)]
                if all(free[pm][n][0] >= s[0] and free[pm][n][1] >= s[1] for n, s in enumerate(shares)):
                    options.append((max(free[pm][n][0] - c / 2 for n in range(2)) / numa_cpu, 2 * pm, shares))
            else:
                for numa in range(2):
                    if free[pm][numa][0] >= c and free[pm][numa][1] >= m:
                        shares = [(c, m), (0, 0)] if numa == 0 else [(0, 0), (c, m)]
                        options.append(((free[pm][numa][0] - c) / numa_cpu, 2 * pm + numa, shares))
        if not options:
            break
        _, action, shares = options[0] if policy_name == "first_fit" else min(options, key=lambda o: (o[0], o[1]))
        pm = action // 2
        for numa, (sc, sm) in enumerate(shares):
            free[pm][numa][0] -= sc
            free[pm][numa][1] -= sm
        taken[row] = (pm, shares)
        placed += 1
    return placed, np.array(free)


@pytest.mark.parametrize("policy", [first_fit, best_fit], ids=["first_fit", "best_fit"])
def test_heuristic_episodes_match_reference_simulator(policy):
    # small NUMAs and a low double threshold, so that First-Fit and Best-Fit place differently
    env = VmPlacement(num_pms=3)
    trace = synthetic(jax.random.PRNGKey(8), 150)
    params = EnvParams(requests=trace, numa_cpu=10.0, numa_mem=20.0, double_mem_above=12.0)
    episode = jax.jit(lambda p, k: run_episode(env, p, policy, k))
    first = window(trace, 0, 200)
    assert (reference_episode(first, 3, 10.0, 20.0, 12.0, "first_fit")[0]
            != reference_episode(first, 3, 10.0, 20.0, 12.0, "best_fit")[0])
    for start in (0, 37):
        p = params.replace(requests=window(trace, start, 200))
        result = episode(p, jax.random.PRNGKey(0))
        placed, free = reference_episode(p.requests, 3, 10.0, 20.0, 12.0, policy.__name__)
        assert int(result.state.placed) == placed == float(result.episode_return)
        np.testing.assert_allclose(result.state.cpu, free[..., 0])
        np.testing.assert_allclose(result.state.mem, free[..., 1])


def test_invariants_under_random_feasible_policy():
    env = VmPlacement(num_pms=3)
    params = EnvParams(requests=synthetic(jax.random.PRNGKey(11), 120), numa_cpu=10.0, numa_mem=20.0)

    def random_feasible(key, obs):
        return jax.random.categorical(key, jnp.where(obs.action_mask, 0.0, -jnp.inf)).astype(jnp.int32)

    def run(key):
        _, state = env.reset_env(key, params)

        def step(state, key):
            obs = env.get_obs(state, params)
            state, _, done, _ = env.transition(state, random_feasible(key, obs), params)
            r = state.requests  # a create is live once placed until its delete row has been passed
            passed = (jnp.arange(r.length) < state.pos) & r.valid & (r.kind == DELETE) & (r.partner >= 0)
            deleted = jnp.zeros(r.length, bool).at[jnp.where(passed, r.partner, r.length)].set(True, mode="drop")
            live = (state.placed_pm >= 0) & ~deleted
            used = jnp.zeros((3, 2, 2)).at[jnp.maximum(state.placed_pm, 0)].add(
                jnp.where(live[:, None, None], jnp.stack([state.taken[:, :2], state.taken[:, 2:]], -1), 0.0))
            remaining = jnp.stack([state.cpu, state.mem], -1)
            conserved = jnp.max(jnp.abs(remaining + used - jnp.array([10.0, 20.0])))
            return state, (jnp.minimum(state.cpu.min(), state.mem.min()), conserved, done)

        return jax.lax.scan(step, state, jax.random.split(key, 60))[1]

    low, conserved, done = jax.jit(jax.vmap(run))(jax.random.split(jax.random.PRNGKey(0), 3))
    live = np.cumsum(np.asarray(done), axis=1) - np.asarray(done) == 0  # steps up to the first end
    assert np.all(np.asarray(low)[live] >= 0)
    assert np.all(np.asarray(conserved)[live] < 1e-4)
    assert np.any(np.asarray(done))  # the small cluster does fill up


def test_jit_and_vmap_over_start_points():
    env = VmPlacement(num_pms=2)
    trace = synthetic(jax.random.PRNGKey(5), 100)
    base = EnvParams(requests=trace, numa_cpu=12.0, numa_mem=24.0)

    def episode(start, key):
        return run_episode(env, base.replace(requests=window(trace, start, 120)), best_fit, key)

    starts = jnp.array([0, 30], jnp.int32)
    batched = jax.jit(jax.vmap(episode))(starts, jax.random.split(jax.random.PRNGKey(0), 2))
    for i, start in enumerate(starts):
        single = jax.jit(episode)(start, jax.random.PRNGKey(0))
        assert float(single.episode_return) == float(batched.episode_return[i])
        np.testing.assert_array_equal(single.state.cpu, batched.state.cpu[i])
    assert np.all(np.asarray(batched.episode_return) > 0)
