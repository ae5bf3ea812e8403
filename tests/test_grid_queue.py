"""The grid site's whole-queue candidates, the queue capacity, the ESN's memory and the fairness
measure (issue 51, items 1-3).

- ``sjf`` over the whole queue against an independent pure-Python shortest-first simulator, job for
  job, on a trace where long jobs wait in front of many short ones (the former 16-of-64 window took
  the shortest of the oldest few only);
- a queue beyond its capacity: FIFO still job for job with the heapq simulator, the overflow counted
  (``hidden``, ``queue_peak``) and refused by ``evaluate`` with the trace and the peak named;
- the ESN with memory: Q at a decision depends on the inputs of the decisions before it (not so for
  the from-rest ablation); the state is carried by the learner and by a trained policy;
- fairness F_j at each election (Eq. 2): a policy that holds one VO back scores lower.

Every env here is small and every jitted function is compiled once.
"""

from __future__ import annotations

import heapq
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.algos import ALGORITHMS
from jaxsched.algos.sarsa import (RecurrentPolicy, SarsaConfig, check_readout_cap, init_reservoir, make_q,
                                  policy_from, readout_cap)
from jaxsched.baselines.grid import make_heuristic
from jaxsched.envs.grid.env import GridSite
from jaxsched.envs.grid.heapq_sim import fifo_queue_peak, simulate_fifo
from jaxsched.envs.grid.metrics import summarize
from jaxsched.envs.grid.types import EnvParams, jobs_from_arrays
from jaxsched.envs.grid.variants import GridVariant, check_queue_capacity
from jaxsched.envs.grid.workload import Workload, generate
from jaxsched.errors import InputError
from jaxsched.experiment import Experiment, load_train_config, trained_policies
from jaxsched.registry import build
from jaxsched.studies.grid_tables import greedy_episodes

LENGTH = 160  # every window here: one compile per env


# ------------------------------------------------------------------ an independent reference
def shortest_first(submit, runtime, num_cores):
    """Start times under shortest-first over *every* waiting job (ties: the oldest), plain Python.

    Events in int seconds: at each event time, terminations first, then submissions; then, while a
    core is free and a job waits, the shortest waiting job starts at once (one decision each)."""
    submit, runtime = [int(x) for x in submit], [int(x) for x in runtime]
    n, start, finishing, waiting = len(submit), [-1] * len(submit), [], []
    free, arrived = num_cores, 0
    while arrived < n or finishing:
        candidates = [t for t in (finishing[0] if finishing else None, submit[arrived] if arrived < n else None)
                      if t is not None]
        now = min(candidates)
        while finishing and finishing[0] <= now:
            heapq.heappop(finishing)
            free += 1
        while arrived < n and submit[arrived] <= now:
            waiting.append(arrived)
            arrived += 1
        while free > 0 and waiting:
            job = min(waiting, key=lambda j: (runtime[j], j))
            waiting.remove(job)
            start[job] = now
            heapq.heappush(finishing, now + runtime[job])
            free -= 1
    return start


def long_in_front_trace(seed: int, n: int = LENGTH):
    """Long jobs submitted first, then bursts of short ones (some at the same second, more than an
    arrival chunk), on a site that stays busy: many short jobs wait behind the long ones."""
    rng = np.random.default_rng(seed)
    runtime = rng.integers(5, 800, size=n)
    runtime[:6] = [40_000, 30_000, 50_000, 20_000, 45_000, 35_000]  # the long ones, first in the queue
    runtime[rng.choice(np.arange(6, n), 8, replace=False)] = 25_000  # more long jobs among the short
    runtime[20:30] = 300  # equal runtimes: ties go to the oldest
    gaps = np.where(rng.uniform(size=n) < 0.3, 0, rng.integers(1, 120, size=n))
    gaps[40:60] = 0  # 21 simultaneous submissions
    submit = np.cumsum(gaps) - gaps[0]
    return submit, runtime, rng.integers(0, 7, size=n)


def variant_of(env, num_jobs=LENGTH):
    return GridVariant(name="grid", env=env, workload=Workload(num_cores=env.num_cores), params=EnvParams(weight=0.5),
                       num_jobs=num_jobs, exclude=0)


def stack(windows):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *windows)


CORES = 2
QUEUE = GridSite(num_cores=CORES, queue_capacity=LENGTH)  # every job listable
WINDOWED = GridSite(num_cores=CORES, num_candidates=4, queue_capacity=LENGTH, candidates="oldest")
TRACES = [long_in_front_trace(seed) for seed in range(3)]


@pytest.fixture(scope="module")
def sjf_runs():
    batched = variant_of(QUEUE).with_jobs(stack([jobs_from_arrays(*t) for t in TRACES]))
    final, _ = variant_of(QUEUE).run_episodes(make_heuristic("sjf"), batched, jax.random.PRNGKey(0))
    windowed, _ = variant_of(WINDOWED).run_episodes(make_heuristic("sjf"), batched, jax.random.PRNGKey(0))
    return np.asarray(final.start[:, 0]), np.asarray(final.time[:, 0]), np.asarray(windowed.start[:, 0]), final


def test_sjf_takes_the_shortest_waiting_job_of_the_whole_queue(sjf_runs):
    start, decisions, windowed, final = sjf_runs
    for i, (submit, runtime, _) in enumerate(TRACES):
        expected = np.asarray(shortest_first(submit, runtime, CORES))
        mismatch = np.flatnonzero(start[i] != expected)
        assert mismatch.size == 0, f"trace {i}: {mismatch.size} jobs differ, first {mismatch[:5].tolist()}"
        assert decisions[i] == LENGTH
        # the reference is discriminating: the 4 oldest waiting jobs only (a bounded candidate set) differ
        assert np.any(windowed[i] != expected), f"trace {i}"
    assert int(np.max(final.queue_peak)) > 4 and int(np.sum(final.hidden)) == 0


def test_fifo_beyond_the_capacity_is_still_fifo_and_the_overflow_is_counted():
    # 8 listed places on one core; up to ~40 jobs wait: the younger ones wait beyond the capacity
    small = GridSite(num_cores=1, queue_capacity=8)
    variant = variant_of(small)
    windows = [jobs_from_arrays(*t) for t in TRACES[:2]]
    final, _ = variant.run_episodes(make_heuristic("fifo"), variant.with_jobs(stack(windows)), jax.random.PRNGKey(0))
    for i, (submit, runtime, _) in enumerate(TRACES[:2]):
        expected, made = simulate_fifo(submit, runtime, num_cores=1)
        np.testing.assert_array_equal(np.asarray(final.start[i, 0]), expected)  # no job lost or reordered
        assert int(final.time[i, 0]) == made == LENGTH
        assert int(final.queue_peak[i, 0]) == fifo_queue_peak(submit, runtime, 1) > 8
        assert int(final.hidden[i, 0]) > 0  # counted, not silently hidden
    with pytest.raises(InputError, match=r"my-trace: under fifo, up to \d+ jobs waited at once, more than the queue "
                                         r"capacity 8"):
        variant.evaluate({"fifo": make_heuristic("fifo")}, variant.with_jobs(stack(windows)), jax.random.PRNGKey(0),
                         source="my-trace")
    with pytest.raises(InputError, match=r"trace\.swf: up to \d+ jobs wait at once under FIFO \(the peak queue\)"):
        check_queue_capacity(small, stack(windows), "trace.swf")


def test_fifo_peak_queue_matches_the_env(sjf_runs):
    # under FIFO on the whole queue, the env's peak equals the heapq count, with nothing hidden
    variant = variant_of(QUEUE)
    batched = variant.with_jobs(stack([jobs_from_arrays(*t) for t in TRACES]))
    final, _ = variant.run_episodes(make_heuristic("fifo"), batched, jax.random.PRNGKey(0))
    for i, (submit, runtime, _) in enumerate(TRACES):
        np.testing.assert_array_equal(np.asarray(final.start[i, 0]), simulate_fifo(submit, runtime, num_cores=CORES)[0])
        assert int(final.queue_peak[i, 0]) == fifo_queue_peak(submit, runtime, CORES)
    assert int(np.sum(final.hidden)) == 0


def test_registry_chooses_the_capacity_from_the_workload():
    assert build("grid", num_jobs=120, exclude=10, num_cores=6).env.queue_capacity == 120  # at most the window
    assert build("grid", num_jobs=120, exclude=10, num_cores=6, queue_capacity=32).env.num_candidates == 32
    variant = build("grid", num_jobs=120, exclude=10, num_cores=6, candidates="per_class", num_candidates=8)
    assert variant.env.num_actions == 8 and variant.env.queue_capacity == 120  # the bounded option, explicit
    with pytest.raises(ValueError, match="queue_capacity"):
        build("grid", num_jobs=120, exclude=10, queue_capacity=0)


# ------------------------------------------------------------------ the ESN's memory
ESN_SITE = GridSite(num_cores=2, queue_capacity=4, vo_shares=(0.5, 0.5))


@pytest.mark.parametrize("memory", [True, False])
def test_esn_q_depends_on_the_past_inputs_only_with_memory(memory):
    q = make_q(ESN_SITE, SarsaConfig(esn_memory=memory))
    params = q.init(jax.random.PRNGKey(0))
    params = {**params, "theta": jax.random.normal(jax.random.PRNGKey(1), params["theta"].shape)}
    d = ESN_SITE.state_action_size()
    rng = np.random.default_rng(0)
    present = jnp.asarray(rng.uniform(size=(4, d)), jnp.float32)  # the same decision's 4 candidates
    histories = [jnp.asarray(rng.uniform(size=(3, d)), jnp.float32) for _ in range(2)]  # two different pasts

    @jax.jit
    def q_after(history):
        carry = q.initial_carry()
        for x in history:  # the actions taken before: the carry after each
            carry = q.features(params, x[None], carry)[1][0]
        return q.value(params, q.features(params, present, carry)[0])

    first, second = (np.asarray(q_after(h)) for h in histories)
    if memory:
        assert q.carry_size == 100 and np.max(np.abs(first - second)) > 1e-3
    else:
        np.testing.assert_array_equal(first, second)


def test_sarsa_carries_the_reservoir_state_and_a_trained_policy_carries_it_too():
    variant = build("grid", num_jobs=60, exclude=5, num_cores=3)
    config = SarsaConfig(num_envs=2, rollout_steps=8, buffer_size=64, num_starts=2, warm_start_iterations=1)
    init_fn, update_fn = ALGORITHMS["sarsa"].make_train(variant, config, jax.random.PRNGKey(0))
    state = init_fn(jax.random.PRNGKey(1))
    assert state.memory.shape == (2, config.reservoir)  # one per parallel episode, a leaf of the checkpoint
    assert any(leaf is state.memory for leaf in jax.tree.leaves(state))
    update = jax.jit(update_fn)
    state, _ = update(state)
    before = np.asarray(state.memory)
    state, _ = update(state)  # greedy on Q now
    assert np.all(np.isfinite(state.memory)) and not np.array_equal(before, np.asarray(state.memory))
    policy = policy_from(config, variant.env, state.params)
    assert isinstance(policy, RecurrentPolicy)
    with pytest.raises(TypeError, match="reservoir"):
        policy(jax.random.PRNGKey(0), variant.env.get_obs(variant.env.initial_state(variant.params), variant.params))
    batched = variant.with_jobs(stack([variant.params.jobs] * 2))
    table = variant.evaluate({"trained": policy}, batched, jax.random.PRNGKey(0))["trained"]
    assert np.all(table["start"] >= 0)  # every job dispatched
    # the from-rest ablation stays a plain policy(key, obs)
    ablation = policy_from(SarsaConfig(esn_memory=False), variant.env, state.params)
    assert not isinstance(ablation, RecurrentPolicy)


@pytest.mark.parametrize("elastic", [False, True])
def test_state_action_parts_add_up_to_every_actions_input_exactly(elastic):
    variant = build("grid-elastic" if elastic else "grid", num_jobs=60, exclude=5,
                    **({"pool_sizes": [2, 3, 4], "initial_pool": 3} if elastic else {"num_cores": 3}))
    env, params = variant.env, variant.params

    @jax.jit
    def parts_and_inputs(state):
        obs = env.get_obs(state, params)
        return [(env.state_action_parts(obs, extended, one_hot), env.state_action_inputs(obs, extended, one_hot))
                for extended in (False, True) for one_hot in (False, True)]

    state = env.initial_state(params)
    for _ in range(12):  # a queue builds up on the small site
        state = env.transition(state, jnp.argmax(env.action_mask(state)), params)[0]
    for (shared, per_candidate, per_size), inputs in parts_and_inputs(state):
        rebuilt = shared[None, None] + per_candidate[:, None] + per_size[None, :]
        np.testing.assert_array_equal(np.asarray(rebuilt.reshape(inputs.shape)), np.asarray(inputs))
        assert np.count_nonzero(np.asarray(per_candidate)) > 0 and per_size.shape[0] == env.num_sizes


def test_one_hot_size_input_gives_each_pool_size_its_own_column():
    """``size_input=one_hot``: the chosen size is one column per allowed size (not size / P), so the ESN's
    input is no longer one linear number in the size; the rest of the vector is the scalar encoding's."""
    variant = build("grid-elastic", num_jobs=60, exclude=5, pool_sizes=[2, 3, 4], initial_pool=3)
    env, params = variant.env, variant.params
    obs = env.get_obs(env.initial_state(params), params)
    scalar, one_hot = env.state_action_inputs(obs), env.state_action_inputs(obs, sizes_one_hot=True)
    assert one_hot.shape == (scalar.shape[0], env.state_action_size(sizes_one_hot=True))
    assert env.state_action_size(sizes_one_hot=True) == env.state_action_size() + env.num_sizes - 1
    base = env.state_action_size() - 3  # the columns before the size block
    np.testing.assert_array_equal(np.asarray(one_hot[:, :base]), np.asarray(scalar[:, :base]))
    np.testing.assert_array_equal(np.asarray(one_hot[:, -2:]), np.asarray(scalar[:, -2:]))
    sizes = np.asarray(one_hot[:, base:base + env.num_sizes]).reshape(env.num_candidates, env.num_sizes, -1)
    np.testing.assert_array_equal(sizes, np.broadcast_to(np.eye(env.num_sizes), sizes.shape))
    np.testing.assert_array_equal(np.asarray(scalar[:env.num_sizes, base]), np.array([2, 3, 4]) / env.num_cores)
    q = make_q(env, SarsaConfig(size_input="one_hot", factored_q=True))
    assert q.inputs(obs).shape == one_hot.shape
    with pytest.raises(ValueError, match="size_input"):
        SarsaConfig(size_input="cubic")


def test_factored_q_scores_and_steers_like_the_joint_product():
    """``factored_q`` (every elastic action's Q from the input's parts and the readout's units): the
    same Q to float rounding as the joint product, the same greedy decisions over an episode."""
    variant = build("grid-elastic", num_jobs=60, exclude=5, pool_sizes=[2, 3, 4], initial_pool=3)
    env = variant.env
    joint, factored = make_q(env, SarsaConfig()), make_q(env, SarsaConfig(factored_q=True))
    params = joint.init(jax.random.PRNGKey(0))
    params = {**params, "theta": jax.random.normal(jax.random.PRNGKey(1), params["theta"].shape)}
    obs = env.get_obs(env.initial_state(variant.params), variant.params)
    carry = jax.random.uniform(jax.random.PRNGKey(2), (100,))
    np.testing.assert_allclose(np.asarray(factored.all_values(params, obs, carry)),
                               np.asarray(joint.all_values(params, obs, carry)), rtol=1e-5, atol=1e-5)
    windows = variant.with_jobs(stack([variant.params.jobs] * 2))
    starts = [variant.evaluate({"esn": policy_from(SarsaConfig(factored_q=factored_q), env, params)}, windows,
                               jax.random.PRNGKey(0))["esn"]["start"] for factored_q in (False, True)]
    np.testing.assert_array_equal(*starts)
    assert np.all(starts[0] >= 0)


def test_an_esn_policy_plays_on_a_larger_queue_capacity_than_it_trained_on():
    """grid_tables lists the whole window for an elastic run whose small pools overflow its trained capacity:
    the same parameters, the policy built on the larger env, score every listed job."""
    small = build("grid-elastic", num_jobs=60, exclude=5, pool_sizes=[2, 3, 4], initial_pool=3, queue_capacity=8)
    large = build("grid-elastic", num_jobs=60, exclude=5, pool_sizes=[2, 3, 4], initial_pool=3, queue_capacity=60)
    config = SarsaConfig(factored_q=True)
    params = make_q(small.env, config).init(jax.random.PRNGKey(0))
    params = {**params, "theta": jax.random.normal(jax.random.PRNGKey(1), params["theta"].shape)}
    windows = large.with_jobs(stack([large.params.jobs] * 2))
    table = large.evaluate({"esn": policy_from(config, large.env, params)}, windows, jax.random.PRNGKey(0))["esn"]
    assert np.all(table["start"] >= 0)


def test_factored_q_needs_the_carried_state_and_a_readout_within_its_bound():
    with pytest.raises(ValueError, match="esn_memory"):
        SarsaConfig(factored_q=True, esn_memory=False)
    assert readout_cap(SarsaConfig()) == 31 and readout_cap(SarsaConfig(reservoir=10, readout_connectivity=1.0)) == 10
    reservoir = init_reservoir(jax.random.PRNGKey(0), 4, SarsaConfig())
    seen = int(np.sum(np.asarray(reservoir["readout_units"]) > 0))
    jax.jit(lambda r: check_readout_cap(r, seen))(reservoir)  # at the bound: fine
    with pytest.raises(Exception, match="more than factored_q's bound"):
        jax.block_until_ready(jax.jit(lambda r: (check_readout_cap(r, seen - 1), r["w"])[1])(reservoir))


# ------------------------------------------------------------------ fairness
def test_fairness_at_election_drops_when_a_vo_is_starved():
    """F_j (Eq. 2) at each job's election, mean over the jobs: FIFO vs a policy that serves VO 0 only
    when no other VO waits. The end-of-episode F cannot tell them apart (every job is served by the
    end); F at election can (here ~0.78 for FIFO, ~0.60 when VO 0 is starved)."""
    site = GridSite(num_cores=3, queue_capacity=LENGTH, vo_shares=(0.5, 0.5))
    workload = Workload(num_cores=3, load=3.0, vo_shares=(0.5, 0.5))  # overloaded: a queue forms and stays
    windows = stack([generate(jax.random.PRNGKey(s), workload, LENGTH) for s in range(4)])
    variant = variant_of(site)

    def starve_vo0(key, obs):
        other = (obs.job >= 0) & (obs.vo != 0)
        oldest_other = jnp.argmin(jnp.where(other, obs.job, jnp.iinfo(jnp.int32).max))
        return jnp.where(jnp.any(other), oldest_other, make_heuristic("fifo")(key, obs)).astype(jnp.int32)

    tables = variant.evaluate({"fifo": make_heuristic("fifo"), "starve_vo0": starve_vo0}, variant.with_jobs(windows),
                              jax.random.PRNGKey(0))
    fifo, starved = (summarize(tables[name], site.vo_shares) for name in ("fifo", "starve_vo0"))
    assert starved["fairness"] < fifo["fairness"] - 0.05, (fifo["fairness"], starved["fairness"])
    assert abs(starved["final_fairness"] - fifo["final_fairness"]) < 0.01  # the former measure: blind to it
    print(f"F at election: fifo {fifo['fairness']:.3f}, starve_vo0 {starved['fairness']:.3f}; "
          f"F at the end: {fifo['final_fairness']:.3f} vs {starved['final_fairness']:.3f}")


def test_grid_tables_plays_a_runs_seeds_through_one_compiled_episode_like_the_closure_policy():
    """grid_tables passes a seed's parameters as an argument (one compile per run): the same episodes
    as the policy that closes over them."""
    overrides = ["env_options.num_jobs=60", "env_options.exclude=5", "env_options.pool_sizes=[2, 3, 4]",
                 "env_options.initial_pool=3", "seeds=[0, 1]"]
    experiment = Experiment.from_config(load_train_config(Path("configs/grid_elastic_esn.yaml"), overrides))
    variant = experiment.variant
    windows = variant.with_jobs(stack([variant.params.jobs] * 2))
    final_states = greedy_episodes(experiment, variant)
    for seed in (0, 1):
        params = make_q(variant.env, experiment.algo).init(jax.random.PRNGKey(seed))
        params = {**params, "theta": jax.random.normal(jax.random.PRNGKey(seed + 5), params["theta"].shape)}
        closure = variant.evaluate({"esn": trained_policies(experiment, params, True)}, windows,
                                   jax.random.PRNGKey(0))["esn"]
        compiled = variant.table_of(final_states(params, windows, jax.random.PRNGKey(0)), "esn")
        assert compiled.keys() == closure.keys()
        for column in closure:
            np.testing.assert_array_equal(compiled[column], closure[column], err_msg=column)
        assert np.all(compiled["start"] >= 0)
    assert final_states._cache_size() == 1  # both seeds through one compilation
