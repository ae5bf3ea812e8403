"""Where jobs fit in the occupancy grid, as bitmasks over start offsets.

Bit o of a job's window mask is set when the job fits for its whole duration from row o on: every
row o .. o + duration - 1 lies inside the grid's first ``rows`` rows and has room for the job's
demand. Built from per-resource tables (which rows have at least u units free, one uint32 per u) and
log2(duration) shift-and passes, so a slot costs a few integer operations instead of a pass over the
rows: the no-observation step's fit test was its largest part (``bench env``; issue 22), and the
earlier tables grew with the horizon squared times the capacity.

Needs ``rows <= 32`` (one uint32 per mask); :data:`MAX_ROWS`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

MAX_ROWS = 32


def rows_with_room(free: jax.Array, capacity: int) -> jax.Array:
    """uint32[d, capacity + 1]: entry [r, u] has bit t set when row t has at least u units of resource
    r free. ``free`` is int32[rows, d]; rows past it count as full (their bits are never set)."""
    rows = free.shape[0]
    if rows > MAX_ROWS:
        raise ValueError(f"start windows cover at most {MAX_ROWS} rows, got {rows}")
    bits = jnp.left_shift(jnp.uint32(1), jnp.arange(rows, dtype=jnp.uint32))
    units = jnp.arange(capacity + 1)
    room = free.T[:, None, :] >= units[None, :, None]  # [d, capacity + 1, rows]
    return jnp.sum(jnp.where(room, bits, jnp.uint32(0)), axis=-1, dtype=jnp.uint32)  # distinct bits: sum = or


def start_windows(table: jax.Array, duration: jax.Array, demand: jax.Array, rows: int) -> jax.Array:
    """uint32[...]: the window mask (bit o: fits from offset o) of jobs with ``duration`` (int32[...])
    and ``demand`` (int32[..., d]) on the rows described by ``table`` (:func:`rows_with_room`).

    A duration of 0 holds no row and fits everywhere; a demand above the capacity, or a duration above
    ``rows``, fits nowhere."""
    num_res, capacity = table.shape[0], table.shape[1] - 1
    too_big = jnp.any(demand > capacity, axis=-1) | (duration > rows)
    per_resource = [table[r, jnp.clip(demand[..., r], 0, capacity)] for r in range(num_res)]
    ok = functools.reduce(jnp.bitwise_and, per_resource)  # rows with room for the whole demand
    length = jnp.clip(duration, 1, rows)
    level, window, span = ok, ok, 1  # level: bit o set when rows o .. o + span - 1 all have room
    while 2 * span <= rows:
        at_least = length >= span
        window = jnp.where(at_least, level & jnp.right_shift(level, (length - span).astype(jnp.uint32)), window)
        level = level & jnp.right_shift(level, jnp.uint32(span))
        span *= 2
    window = jnp.where(length >= span, level & jnp.right_shift(level, (length - span).astype(jnp.uint32)), window)
    everywhere = jnp.uint32((1 << rows) - 1)
    return jnp.where(duration <= 0, everywhere, jnp.where(too_big, jnp.uint32(0), window))


def earliest(window: jax.Array) -> jax.Array:
    """int32[...]: the lowest set bit's index (the earliest offset), 0 when no bit is set."""
    lowest = window & (~window + jnp.uint32(1))
    return jnp.where(window == 0, 0, 31 - jax.lax.clz(lowest).astype(jnp.int32))
