"""Rendering: every family's frame is read back cell by cell (bar by bar) and compared with the state it
draws -- DeepRM's cells against the image observation and a placement's duration x demand, VM bars
against the NUMA nodes' use, the grid's core cells and queue rows against the counts. Tiny envs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnax.wrappers.purerl import LogEnvState, LogWrapper

import jaxsched
from jaxsched.core import canvas
from jaxsched.envs.deeprm import viewer as deeprm_viewer
from jaxsched.envs.grid import viewer as grid_viewer
from jaxsched.envs.grid.env import GridSite
from jaxsched.envs.grid.types import jobs_from_arrays
from jaxsched.envs.vm import viewer as vm_viewer
from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.trace import from_lifetimes
from jaxsched.render import STRIP_CURSOR, STRIP_HEIGHT, render_rollout, render_state

DEEPRM = dict(num_res=2, capacity=5, horizon=6, num_slots=3, backlog_size=4, max_job_len=4, max_job_size=3,
              simu_len=8, load=0.4)
STEPS = 12


def first_allowed(obs) -> jax.Array:
    """The lowest action the mask allows (DeepRM: a slot, else move on; grid: the oldest job)."""
    return jnp.argmax(obs.action_mask).astype(jnp.int32)


def scanned_rollout(env, params, steps: int):
    """(reset state, states after each of ``steps`` first-allowed actions), from one jitted scan."""
    def run(params):
        obs, state = env.reset(jax.random.PRNGKey(0), params)

        def step(carry, key):
            obs, state = carry
            obs, state, *_ = env.step(key, state, first_allowed(obs), params)
            return (obs, state), (state, obs)

        _, (states, observations) = jax.lax.scan(step, (obs, state), jax.random.split(jax.random.PRNGKey(1), steps))
        return state, states, observations

    return jax.jit(run)(params)


def unstack(states, t):
    return jax.tree.map(lambda x: x[t], states)


# ---------------------------------------------------------------------- DeepRM
@pytest.fixture(scope="module")
def deeprm():
    env, params = jaxsched.make("deeprm", **DEEPRM)
    first, states, observations = scanned_rollout(env, params, STEPS)
    return env, params, first, states, observations


def lit(image, box):
    return ~canvas.painted(canvas.cell_colours(image, box), canvas.FREE)


def test_deeprm_cells_are_the_image_observation(deeprm):
    env, _, _, states, observations = deeprm
    box = deeprm_viewer.layout(env)
    block, S = env.capacity + env.num_slots * env.slot_columns, env.slot_columns
    for t in range(STEPS):
        image, cells = render_state(env, unstack(states, t)), np.asarray(observations.features[t]) > 0
        for r in range(env.num_res):
            np.testing.assert_array_equal(lit(image, box.cluster[r]), cells[:, r * block:r * block + env.capacity])
            for m in range(env.num_slots):
                first = r * block + env.capacity + m * S
                np.testing.assert_array_equal(lit(image, box.slots[r][m]), cells[:, first:first + S])
        backlog = cells[:, env.num_res * block:env.num_res * block + env.backlog_width]
        np.testing.assert_array_equal(lit(image, box.backlog), backlog)


def test_deeprm_placing_a_job_adds_its_duration_by_demand_cells_in_its_colour(deeprm):
    env, params, _, states, observations = deeprm
    box = deeprm_viewer.layout(env)
    placed = 0
    for t in range(STEPS - 1):
        before, after = unstack(states, t), unstack(states, t + 1)
        slot = int(first_allowed(unstack(observations, t)))
        if slot == env.num_slots:
            continue  # moved on
        job = int(before.slots[slot])
        duration, demand = int(before.jobset.duration[job]), np.asarray(before.jobset.demand[job])
        old, new = render_state(env, before), render_state(env, after)
        for r in range(env.num_res):
            added = int(lit(new, box.cluster[r]).sum() - lit(old, box.cluster[r]).sum())
            assert added == duration * demand[r]
            ours = canvas.painted(canvas.cell_colours(new, box.cluster[r]), canvas.job_colours(job))
            assert int(ours.sum()) == duration * demand[r]
        placed += 1
    assert placed >= 2, "the rollout placed too few jobs to test"


def test_deeprm_through_make_gymnax_its_wrappers_and_device_arrays(deeprm):
    env, _, first, _, _ = deeprm
    gymnax_env, _ = jaxsched.make_gymnax("deeprm", **DEEPRM)
    frame = render_state(gymnax_env, first)
    np.testing.assert_array_equal(frame, render_state(env, jax.device_get(first)))
    zero = jnp.zeros((), jnp.float32)
    logged = LogEnvState(first, zero, zero, zero, zero, zero)  # PureJaxRL's LogWrapper keeps the state inside
    np.testing.assert_array_equal(render_state(LogWrapper(gymnax_env), logged), frame)
    assert frame.dtype == np.uint8 and frame.shape == (deeprm_viewer.layout(env).height,
                                                       deeprm_viewer.layout(env).width, 3)


def test_rollout_frames_are_the_states_frames_over_a_time_strip(deeprm):
    env, _, _, states, _ = deeprm
    video = render_rollout(env, states)
    box = deeprm_viewer.layout(env)
    assert video.shape == (STEPS, box.height + STRIP_HEIGHT, box.width, 3)
    for t in (0, STEPS - 1):
        np.testing.assert_array_equal(video[t, :box.height], render_state(env, unstack(states, t)))
    cursors = [np.flatnonzero(canvas.painted(video[t, box.height:], STRIP_CURSOR).any(axis=0))[0] for t in range(STEPS)]
    assert all(a < b for a, b in zip(cursors, cursors[1:])), "the strip's cursor does not follow the steps"
    assert render_rollout(env, states, time_strip=False).shape == (STEPS, box.height, box.width, 3)


def test_bad_inputs_are_one_line_errors(deeprm):
    env, _, first, states, _ = deeprm
    with pytest.raises(TypeError, match="cannot render"):
        render_state(object(), first)
    with pytest.raises(ValueError, match="one state expected"):
        render_state(env, states)
    with pytest.raises(ValueError, match="leading .* axis"):
        render_rollout(env, first)
    with pytest.raises(TypeError, match="expected a VmPlacement state"):
        render_state(VmPlacement(num_pms=2), first)


# ---------------------------------------------------------------------- VM
def bar_fill(image, y, x, colour) -> int:
    column = image[y:y + vm_viewer.BAR_HEIGHT, x + vm_viewer.BAR_WIDTH // 2]
    return int(canvas.painted(column, colour).sum())


def bar_fills(env, image) -> np.ndarray:
    """int[N, 2 NUMA, 2 (cpu, mem)] filled pixels of each bar."""
    box = vm_viewer.layout(env)
    colours = (vm_viewer.CPU_COLOUR, vm_viewer.MEM_COLOUR)
    return np.array([[[bar_fill(image, *box.bars[pm, numa, kind], colours[kind]) for kind in range(2)]
                      for numa in range(2)] for pm in range(env.num_pms)])


def test_vm_placements_fill_the_chosen_numa_bars_by_the_request():
    env, params = jaxsched.make("vm-synthetic", num_pms=2, window=60, synthetic_vms=200, start_high=100)
    # creates that stay (single 8 cpu / 16 GB, single 4 / 8, double 24 / 48 = 12 / 24 per NUMA), and a
    # fourth left pending (after the last create the env would apply the deletes at the trace's end)
    requests = from_lifetimes([0, 1, 2, 3], [8.0, 4.0, 24.0, 1.0], [16.0, 8.0, 48.0, 1.0], [0.0, 1.0, 2.0, 3.0],
                              [1e4] * 4)
    params = params.replace(requests=requests)
    initial_state, transition = jax.jit(env.initial_state), jax.jit(env.transition)
    state = initial_state(params)
    H, cpu_cap, mem_cap = vm_viewer.BAR_HEIGHT, params.numa_cpu, params.numa_mem
    fills = bar_fills(env, render_state(env, state, params))
    assert not fills.any()
    expected = np.zeros((2, 2, 2))
    for action, (cpu, mem), numas in ((3, (8, 16), [1]), (3, (4, 8), [1]), (0, (12, 24), [0, 1])):
        state, *_ = transition(state, action, params)
        pm = action // 2
        expected[pm, numas] += (cpu, mem)
        new = bar_fills(env, render_state(env, state, params))
        # each bar is its NUMA's use rounded to a pixel; only the chosen PM's NUMA(s) moved, by the request
        np.testing.assert_array_equal(new, np.round(expected / (cpu_cap, mem_cap) * H))
        request_pixels = np.array([cpu / cpu_cap, mem / mem_cap]) * H
        assert np.all(np.abs((new - fills)[pm, numas] - request_pixels) <= 1)
        fills = new


def test_vm_out_of_service_pms_are_grey_and_the_next_create_is_drawn():
    env, params = jaxsched.make("vm-synthetic", num_pms=3, window=60, synthetic_vms=200, start_high=100)
    requests = from_lifetimes([0, 1], [8.0, 8.0], [40.0, 8.0], [0.0, 1.0], [1e4] * 2)
    params = params.replace(requests=requests, initial_pms=1, pms_per_expansion=1)
    state = jax.jit(env.initial_state)(params)
    image = render_state(env, state, params)
    box = vm_viewer.layout(env)
    for pm in (1, 2):
        y, x = box.bars[pm, 0, 0]
        assert bar_fill(image, y, x, canvas.MUTED) == vm_viewer.BAR_HEIGHT
    # the first create (8 cpu, 40 GB: double-NUMA) beside the PMs, against one NUMA's capacity
    assert bar_fill(image, *box.request[0], vm_viewer.CPU_COLOUR) == round(8 / params.numa_cpu * vm_viewer.BAR_HEIGHT)
    assert bar_fill(image, *box.request[1], vm_viewer.MEM_COLOUR) == round(40 / params.numa_mem * vm_viewer.BAR_HEIGHT)


# ---------------------------------------------------------------------- grid
@pytest.fixture(scope="module")
def grid():
    """Two cores and a burst of twelve jobs, both classes, so that a queue forms and drains."""
    env, params = jaxsched.make("grid", num_cores=2, num_jobs=12, exclude=1)
    submit = [0, 0, 0, 0, 5, 5, 10, 10, 20, 30, 40, 50]
    runtime = [100, 2000, 50, 4000, 300, 1200, 30, 9000, 600, 100, 3000, 20]
    params = params.replace(jobs=jobs_from_arrays(submit, runtime, np.zeros(12, int)))
    _, states, _ = scanned_rollout(env, params, 12)
    return env, params, states


def queue_rows(env, image) -> tuple[np.ndarray, np.ndarray]:
    """(length in pixels, colour) of each queue row as drawn."""
    box = grid_viewer.layout(env)
    y, x = box.queue
    rows = image[y:y + box.queue_rows * grid_viewer.ROW_PITCH:grid_viewer.ROW_PITCH, x:x + grid_viewer.QUEUE_LENGTH]
    drawn = ~canvas.painted(rows, canvas.BACKGROUND)
    return drawn.sum(axis=1), rows[:, 0]


def test_grid_cores_and_queue_rows_match_the_state(grid):
    env, params, states = grid
    box = grid_viewer.layout(env)
    seen_waiting = seen_busy = 0
    for t in range(states.time.shape[0]):
        state = unstack(states, t)
        image = render_state(env, state, params)
        cells = canvas.cell_colours(image, box.cores).reshape(-1, 3)[:env.num_cores]
        busy_cells = sum(int(canvas.painted(cells, colour).sum()) for colour in grid_viewer.CLASS_COLOURS)
        busy = int(np.sum(state.slot_job >= 0))
        assert busy_cells == busy
        assert int(canvas.painted(cells, canvas.FREE).sum()) == int(state.pool) - busy
        waiting = int(np.sum(state.waiting_by_class))
        assert waiting <= box.queue_rows  # the test's queue fits the rows shown
        lengths, colours = queue_rows(env, image)
        assert int(np.sum(lengths > 0)) == waiting
        queued = np.asarray(state.queue)[:waiting]
        runtime, klass = np.asarray(state.jobs.runtime)[queued], np.asarray(state.jobs.klass)[queued]
        np.testing.assert_array_equal(lengths[:waiting], grid_viewer.row_length(runtime))
        np.testing.assert_array_equal(colours[:waiting], grid_viewer.CLASS_COLOURS[klass])
        seen_waiting, seen_busy = max(seen_waiting, waiting), max(seen_busy, busy)
    # states are at decisions, where a core is free: at most P - 1 busy
    assert seen_waiting >= 5 and seen_busy == env.num_cores - 1, "the rollout never queued: nothing was tested"


def test_grid_cores_out_of_the_elastic_pool_are_grey():
    env, params = jaxsched.make("grid-elastic", num_jobs=20, exclude=2, pool_sizes=(2, 4, 6), initial_pool=4)
    state = jax.jit(env.initial_state)(params)
    cells = canvas.cell_colours(render_state(env, state, params), grid_viewer.layout(env).cores).reshape(-1, 3)
    assert int(canvas.painted(cells[:env.num_cores], canvas.MUTED).sum()) == env.num_cores - int(state.pool) == 2


def test_frames_keep_their_size_within_an_env(grid):
    env, params, states = grid
    video = render_rollout(env, states, params)
    box = grid_viewer.layout(env)
    assert video.shape == (states.time.shape[0], box.height + STRIP_HEIGHT, box.width, 3)


def test_grid_queue_rows_show_the_class_estimate_under_the_estimated_model(grid):
    env, params, states = grid
    estimated = GridSite(num_cores=env.num_cores, queue_capacity=env.queue_capacity, runtime_model="estimated",
                         estimate_window=1)  # the oracle run's state carries a ring of one runtime per class
    state = unstack(states, 4)
    waiting = int(np.sum(state.waiting_by_class))
    klass = np.asarray(state.jobs.klass)[np.asarray(state.queue)[:waiting]]
    estimates = np.asarray(estimated.class_estimates(state, params))
    lengths, _ = queue_rows(env, render_state(estimated, state, params))
    np.testing.assert_array_equal(lengths[:waiting], grid_viewer.row_length(estimates[klass]))
    true_lengths, _ = queue_rows(env, render_state(env, state, params))
    assert not np.array_equal(lengths[:waiting], true_lengths[:waiting])  # the estimate, not the runtime
