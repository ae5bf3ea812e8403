"""Draws a DeepRM state as the paper's Fig. 1: per resource (one band each), the cluster's occupancy
over the next T time steps, then each job slot's demand x duration block; the backlog's cells on the
right of the first band and a header with the clock, the backlog count and the dropped jobs.

A cell is lit exactly where the DeepRM image observation has a 1 (:func:`build_image_full`); a
running job's cells, and its slot block while it waits, take the job's own colour (jobs are packed
left to right in arrival order within a row, which lights the same cells as the occupancy counts).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jaxsched.core import canvas
from jaxsched.core.canvas import Box

MARGIN, HEADER, LABEL = 4, 16, 22  # pixels: outer margin, header band, resource label column
GAP = 1  # cells between two slots; twice that between the cluster and the slots, and before the backlog
MIN_WIDTH = 2 * MARGIN + canvas.text_width("T=99999  BACKLOG 999  DROPPED 9999", 2)  # the header fits


class Layout(NamedTuple):
    """Where each part is drawn (fixed by the env's sizes, so frames of one env stack)."""

    cluster: tuple[Box, ...]  # per resource: T rows x capacity
    slots: tuple[tuple[Box, ...], ...]  # per resource, per slot: T rows x slot_columns
    backlog: Box | None  # T rows x backlog_width, beside the first band; None without a backlog
    bands: tuple[Box, ...]  # per resource: the cluster and the slots as one grid, GAP cells apart
    gaps: np.ndarray  # bool[band columns]: the band's columns between grids
    height: int
    width: int


def cell_size(env) -> int:
    """Pixels per cell: 8 for the paper's sizes, down to 3 for the widest images."""
    return min(max(1200 // (env.capacity + env.num_slots * env.slot_columns), 3), 8)


def layout(env) -> Layout:
    c, T, S, M = cell_size(env), env.horizon, env.slot_columns, env.num_slots
    first_slot = env.capacity + 2 * GAP  # band columns
    pitch = S + GAP
    columns = np.arange(first_slot + M * pitch - GAP)
    gaps = (columns >= env.capacity) & ((columns < first_slot) | ((columns - first_slot) % pitch >= S))
    bands = tuple(Box(MARGIN + HEADER + r * (T + 2 * GAP) * c, MARGIN + LABEL, T, columns.size, c)
                  for r in range(env.num_res))
    cluster = tuple(Box(band.y, band.x, T, env.capacity, c) for band in bands)
    slots = tuple(tuple(Box(band.y, band.x + (first_slot + m * pitch) * c, T, S, c) for m in range(M))
                  for band in bands)
    right = bands[0].x + bands[0].width + 2 * GAP * c
    backlog = Box(bands[0].y, right, T, env.backlog_width, c) if env.backlog_width else None
    width = max((backlog.x + backlog.width if backlog else bands[0].x + bands[0].width) + MARGIN, MIN_WIDTH)
    height = bands[-1].y + T * c + MARGIN
    return Layout(cluster, slots, backlog, bands, gaps, height, width)


def cluster_owners(env, state) -> np.ndarray:
    """int[d, T, capacity]: the job drawn in each cluster cell, -1 where free. Scheduled jobs occupy
    rows ``start - clock`` to ``start + duration - clock - 1``; within a row they are packed left to
    right in job order, so row t has exactly ``used[t, r]`` cells owned."""
    T, cap = env.horizon, env.capacity
    start, clock = np.asarray(state.start), int(state.clock)
    duration, demand = np.asarray(state.jobset.duration), np.asarray(state.jobset.demand)
    scheduled = np.flatnonzero(start >= 0)
    low = start[scheduled] - clock
    rows = np.arange(T)[:, None]
    occupied = (rows >= low) & (rows < low + duration[scheduled])  # [T, n]
    present = occupied.any(axis=0)
    jobs, occupied = scheduled[present], occupied[:, present]
    if jobs.size == 0:
        return np.full((env.num_res, T, cap), -1)
    amount = occupied[None, :, :] * demand[jobs].T[:, None, :]  # [d, T, n]
    ends = np.cumsum(amount, axis=-1)
    rank = np.sum(ends[:, :, None, :] <= np.arange(cap)[None, None, :, None], axis=-1)  # [d, T, cap]
    return np.where(rank < jobs.size, jobs[np.minimum(rank, jobs.size - 1)], -1)


def _cells(owners: np.ndarray) -> np.ndarray:
    return np.where((owners >= 0)[..., None], canvas.job_colours(np.maximum(owners, 0)),
                    np.asarray(canvas.FREE, np.uint8))


def render(env, state, params=None) -> np.ndarray:
    """uint8[H, W, 3] of one (host) state; ``params`` is unused (the state holds the jobset)."""
    box = layout(env)
    image = canvas.blank(box.height, box.width)
    T, S = env.horizon, env.slot_columns
    owners = cluster_owners(env, state)
    slots = np.asarray(state.slots)
    duration, demand = np.asarray(state.jobset.duration), np.asarray(state.jobset.demand)
    filled = slots >= 0
    tall = np.arange(T)[:, None] < np.where(filled, duration[np.maximum(slots, 0)], 0)[None, :]  # [T, M]
    first_slot, pitch = env.capacity + 2 * GAP, S + GAP
    band = np.full((T, box.bands[0].cols + GAP), -1)  # job per band cell (and a trailing gap: slot by slot)
    for r in range(env.num_res):
        band[:, :env.capacity] = owners[r]
        wide = np.arange(S)[None, :] < np.where(filled, demand[np.maximum(slots, 0), r], 0)[:, None]  # [M, S]
        blocks = np.where(tall[:, :, None] & wide[None], slots[None, :, None], -1)  # [T, M, S]
        band[:, first_slot:] = np.pad(blocks, ((0, 0), (0, 0), (0, GAP)), constant_values=-1).reshape(T, -1)
        canvas.draw_text(image, box.bands[r].y, MARGIN, f"R{r + 1}", scale=2)
        canvas.draw_cells(image, box.bands[r], _cells(band[:, :-GAP]), box.gaps)
    if box.backlog is not None:
        index = np.arange(T)[:, None] * env.backlog_width + np.arange(env.backlog_width)[None, :]
        lit = (index < int(state.backlog_len))[..., None]
        canvas.draw_cells(image, box.backlog, np.where(lit, np.asarray(canvas.MUTED, np.uint8),
                                                       np.asarray(canvas.FREE, np.uint8)))
    header = (f"T={int(state.clock)}  BACKLOG {int(state.backlog_len)}  "
              f"DROPPED {int(np.sum(np.asarray(state.dropped)))}")
    canvas.draw_text(image, MARGIN, MARGIN, header, scale=2)
    return image


def load(env, state, params=None) -> float:
    """The share of the cluster in use now (mean over resources): what the time strip plots."""
    return float(np.mean(np.asarray(state.used)[0]) / env.capacity)
