"""The DeepRM family's observation features: the DeepRM image, the reference's compact vector and
the MDP-design paper's compact state. Each is a pure function of ``(env, state)``; ``env`` supplies
the static sizes."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxsched.envs.deeprm.types import EnvState


def build_image_full(env, state: EnvState, duration, demand) -> jax.Array:
    """The DeepRM image [T, W] built whole from the state: per resource the occupancy grid then the
    M slot blocks (S = ``env.slot_columns`` wide); then the backlog columns (row-major, one cell per
    job); then time since last arrival / 10. The definition the incremental image
    (:func:`refresh_image`) is tested against."""
    T, S = env.horizon, env.slot_columns
    rows = jnp.arange(T)
    cluster = jnp.arange(env.capacity)[None, None, :] < state.used[:T, :, None]  # [T, d, cap]
    tall = rows[:, None, None, None] < duration[None, :, None, None]  # [T, M, 1, 1]
    wide = jnp.arange(S)[None, None, None, :] < demand[None, :, :, None]  # [1, M, d, S]
    slots = jnp.transpose(tall & wide, (0, 2, 1, 3)).reshape(T, env.num_res, env.num_slots * S)
    per_resource = jnp.concatenate([cluster, slots], axis=-1).reshape(T, -1)
    cells = rows[:, None] * env.backlog_width + jnp.arange(env.backlog_width)[None, :]
    backlog = cells < state.backlog_len
    since = jnp.full((T, 1), jnp.minimum(state.since_arrival / 10.0, 1.0))
    return jnp.concatenate([per_resource.astype(jnp.float32), backlog.astype(jnp.float32),
                            since.astype(jnp.float32)], axis=-1)


# The incremental image. XLA:CPU builds the [T, W] image at a few ns per cell (W = 1024 at M = 50:
# ~100 us per env step, 30x the transition), so the state keeps its 0/1 cells as uint8 and each
# transition rewrites only what can have changed: the cluster grid and the backlog columns (fixed
# places, T x (d cap + backlog width) cells) and the blocks of the slots whose job changed
# (T x d S cells each). Rewriting a block with its slot's current job is always correct, so the
# first changed slot (slot 0 when none) is rewritten unconditionally and a loop takes the rest.
# The last column (time since the last arrival, not 0/1) is filled in by render_image.


def _block_width(env) -> int:
    return env.capacity + env.num_slots * env.slot_columns  # one resource's grid and slot blocks


def _slot_block(env, image, slot, duration, demand):
    """``image`` with slot ``slot``'s block (per resource, T x S) showing a job of this shape."""
    lit = jnp.arange(env.horizon)[:, None] < duration
    for r in range(env.num_res):
        block = (lit & (jnp.arange(env.slot_columns)[None, :] < demand[r])).astype(jnp.uint8)
        column = r * _block_width(env) + env.capacity + slot * env.slot_columns
        image = jax.lax.dynamic_update_slice(image, block, (0, column))
    return image


def _slot_job_shape(state: EnvState, slot):
    job = state.slots[slot]
    filled = job >= 0
    index = jnp.maximum(job, 0)
    return (jnp.where(filled, state.jobset.duration[index], 0),
            jnp.where(filled, state.jobset.demand[index], 0))


def _fixed_parts(env, image, state: EnvState):
    """``image`` with the cluster grid (from ``state.used``) and the backlog columns rewritten."""
    T = env.horizon
    for r in range(env.num_res):
        grid = (jnp.arange(env.capacity)[None, :] < state.used[:T, r, None]).astype(jnp.uint8)
        image = jax.lax.dynamic_update_slice(image, grid, (0, r * _block_width(env)))
    cells = jnp.arange(T)[:, None] * env.backlog_width + jnp.arange(env.backlog_width)[None, :]
    backlog = (cells < state.backlog_len).astype(jnp.uint8)
    return jax.lax.dynamic_update_slice(image, backlog, (0, env.num_res * _block_width(env)))


def image_cells(env, state: EnvState) -> jax.Array:
    """uint8[T, W]: the image's 0/1 cells built whole (at reset); the last column stays 0. On a blank
    image only the filled slots' blocks need drawing (a restart under ``vmap`` loops over as many slots
    as its fullest copy fills, not over all M)."""
    image = jnp.zeros((env.horizon, env.image_width), jnp.uint8)
    return refresh_image(env, image, state.slots >= 0, state)


def refresh_image(env, image, changed, state: EnvState) -> jax.Array:
    """``image`` brought up to ``state``, given bool[M] ``changed``: the slots whose job may differ."""
    image = _fixed_parts(env, image, state)
    first = jnp.argmax(changed)
    image = _slot_block(env, image, first, *_slot_job_shape(state, first))

    def rewrite_next(carry):
        image, pending = carry
        slot = jnp.argmax(pending)
        return _slot_block(env, image, slot, *_slot_job_shape(state, slot)), pending.at[slot].set(False)

    return jax.lax.while_loop(lambda carry: jnp.any(carry[1]), rewrite_next,
                              (image, changed.at[first].set(False)))[0]


def render_image(env, state: EnvState) -> jax.Array:
    """The DeepRM image [T, W] (see :func:`build_image_full`) from the state's incremental cells:
    one elementwise pass (a select for the last column; a concatenate costs ~1.5x more here)."""
    since = jnp.minimum(state.since_arrival / 10.0, 1.0).astype(jnp.float32)
    last = jnp.arange(env.image_width) == env.image_width - 1
    return jnp.where(last[None, :], since, state.image.astype(jnp.float32))


def compact_vector(env, state: EnvState, duration, demand) -> jax.Array:
    """The reference's compact state: running jobs left per future step, free units per step
    and resource, (duration, demand) per slot, backlog length."""
    jobs = state.jobset
    running = (state.start >= 0) & (state.start + jobs.duration > state.clock)
    finish_row = state.start + jobs.duration - state.clock
    rows = jnp.arange(env.horizon)
    left = jnp.sum(running[None, :] & (finish_row[None, :] > rows[:, None]), axis=1)
    per_slot = jnp.concatenate([duration[:, None], demand], axis=1).reshape(-1)
    return jnp.concatenate([left, (env.capacity - state.used[:env.horizon]).T.reshape(-1), per_slot,
                            state.backlog_len[None]]).astype(jnp.float32)

def bracis_vector(env, state: EnvState) -> jax.Array:
    """The compact state of the MDP-design paper (spec ``mdp-variants.md``), all in [0, ~1]:

    1. per resource (processors, then memory) and future step t < T: (free_t, used_t) / capacity;
    2. per slot, (x + 1) / (limit + 1) of: submission time (L), requested time (L), memory (P; -1,
       hence 0, on a processor-only cluster), processors (P), and at submission the queue size (L),
       queued work (L^2 P) and free processors (P); an empty slot is all zeros;
    3. backlog length / backlog size;
    4. the running job that ends first: (time left / L, procs / P, (free now + procs) / P), or
       (0, 0, 1) when nothing runs;
    5. remaining work of the running jobs / (L P) for processors and memory (from their start
       times; the paper's code uses submission times by mistake), queue length / L, 1 - now / L.

    L = ``time_limit``, P = capacity. No size depends on the capacity: a network trained on one
    cluster runs on another."""
    jobs, L, P = state.jobset, float(env.time_limit), float(env.capacity)
    used = state.used[:env.horizon].T.astype(jnp.float32)  # [R, T]
    cluster = jnp.stack([P - used, used], axis=-1).reshape(-1) / P

    filled = state.slots >= 0
    j = jnp.maximum(state.slots, 0)
    memory = jobs.demand[j, 1] if env.num_res > 1 else jnp.full(j.shape, -1, jnp.int32)
    raw = jnp.stack([jobs.arrival[j], jobs.duration[j], memory, jobs.demand[j, 0],
                     state.at_submit[j, 0], state.at_submit[j, 1], state.at_submit[j, 2]], axis=-1)
    limits = jnp.array([L, L, P, P, L, L * L * P, P], jnp.float32)
    slots = jnp.where(filled[:, None], (raw + 1.0) / (limits + 1.0), 0.0).reshape(-1)
    backlog = state.backlog_len / max(env.backlog_size, 1)

    finish = state.start + jobs.duration
    running = jobs.valid & (state.start >= 0) & (state.start <= state.clock) & (finish > state.clock)
    first = jnp.argmin(jnp.where(running, finish, jnp.iinfo(jnp.int32).max))
    free_now = P - used[0, 0]
    procs = jobs.demand[:, 0].astype(jnp.float32)
    next_free = jnp.where(jnp.any(running),
                          jnp.stack([(finish[first] - state.clock) / L, procs[first] / P,
                                     (free_now + procs[first]) / P]),
                          jnp.array([0.0, 0.0, 1.0]))

    left = jnp.where(running, finish - state.clock, 0).astype(jnp.float32)
    mem_left = jnp.sum(left * jobs.demand[:, 1]) / (L * P) if env.num_res > 1 else jnp.float32(0.0)
    queue = jnp.sum(filled) + state.backlog_len
    globals_ = jnp.stack([jnp.sum(left * procs) / (L * P), mem_left, queue / L, 1.0 - state.clock / L])
    return jnp.concatenate([cluster, slots, jnp.reshape(backlog, (1,)), next_free,
                            globals_]).astype(jnp.float32)
