"""Draws a grid-site state: the cores (busy ones in their job's class colour, idle ones light, cores
out of the elastic pool grey) and the waiting queue, one row per listed waiting job in submit order,
its length the job's runtime as the policy sees it (true runtime, or the class estimate under the
``estimated`` model) on a log scale from 1 s to a week; a header with the clock and the counts.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from jaxsched.core import canvas
from jaxsched.core.canvas import Box

MARGIN, HEADER, LABEL = 4, 16, 10
CORE_CELL, QUEUE_ROWS, ROW_PITCH, ROW_HEIGHT, QUEUE_LENGTH = 10, 32, 5, 4, 200
LONGEST = 7 * 24 * 3600  # seconds: a queue row's full length
CLASS_COLOURS = np.array([(23, 190, 207), (148, 103, 189)], np.uint8)  # interactive, batch
MIN_WIDTH = 2 * MARGIN + canvas.text_width("T=9999:59:59  RUNNING 999/999  WAITING 99999", 2)


class Layout(NamedTuple):
    """Where the cores and the queue rows are drawn (fixed by the env's sizes)."""

    cores: Box  # one cell per core slot, row-major
    queue: tuple[int, int]  # (y, x) of the first queue row; row i starts ROW_PITCH * i lower
    queue_rows: int  # rows shown (the rest are counted as "+N MORE")
    height: int
    width: int


def layout(env) -> Layout:
    cols = math.ceil(math.sqrt(env.num_cores))
    cores = Box(MARGIN + HEADER + LABEL, MARGIN, -(-env.num_cores // cols), cols, CORE_CELL)
    rows = min(env.queue_capacity, QUEUE_ROWS)
    queue = (cores.y, cores.x + cores.width + 16)
    width = max(queue[1] + QUEUE_LENGTH + MARGIN, MIN_WIDTH)
    height = max(cores.y + cores.height, queue[0] + rows * ROW_PITCH + LABEL) + MARGIN
    return Layout(cores, queue, rows, height, width)


def row_length(seconds: np.ndarray) -> np.ndarray:
    """int pixels of a queue row: log scale, at least 1 (every waiting job shows), full at a week."""
    fraction = np.log1p(np.asarray(seconds, np.float64)) / math.log1p(LONGEST)
    return np.clip(np.round(fraction * QUEUE_LENGTH), 1, QUEUE_LENGTH).astype(int)


def core_colours(env, state) -> np.ndarray:
    """uint8[P, 3]: busy cores in their class colour; of the idle ones the first ``pool - running``
    are in service (light), the rest out of the pool (grey)."""
    busy = np.asarray(state.slot_job) >= 0
    in_service_idle = int(state.pool) - int(np.sum(busy))
    idle_rank = np.cumsum(~busy) - 1
    idle = np.where((idle_rank < in_service_idle)[:, None], np.asarray(canvas.FREE, np.uint8),
                    np.asarray(canvas.MUTED, np.uint8))
    return np.where(busy[:, None], CLASS_COLOURS[np.asarray(state.slot_class)], idle)


def render(env, state, params) -> np.ndarray:
    """uint8[H, W, 3] of one (host) state; ``params`` give the estimated model's prior runtimes."""
    box = layout(env)
    image = canvas.blank(box.height, box.width)
    cores = np.full((box.cores.rows * box.cores.cols, 3), canvas.BACKGROUND, np.uint8)
    cores[:env.num_cores] = core_colours(env, state)
    canvas.draw_cells(image, box.cores, cores.reshape(box.cores.rows, box.cores.cols, 3))
    last_row = box.cores.y + (box.cores.rows - 1) * box.cores.cell  # blank the last row's cells past the cores
    spare = box.cores.rows * box.cores.cols - env.num_cores
    canvas.fill(image, last_row, box.cores.x + (box.cores.cols - spare) * box.cores.cell, box.cores.cell,
                spare * box.cores.cell, canvas.BACKGROUND)
    canvas.draw_text(image, MARGIN + HEADER, MARGIN, "CORES")

    jobs = state.jobs
    listed = np.asarray(state.queue)[:min(int(state.queue_len), box.queue_rows)]
    klass = np.asarray(jobs.klass)[listed]
    if env.runtime_model == "estimated":
        seconds = np.asarray(env.class_estimates(state, params))[klass]
    else:
        seconds = np.asarray(jobs.runtime)[listed]
    y, x = box.queue
    for i, (length, colour) in enumerate(zip(row_length(seconds), CLASS_COLOURS[klass])):
        canvas.fill(image, y + i * ROW_PITCH, x, ROW_HEIGHT, int(length), colour)
    waiting = int(np.sum(np.asarray(state.waiting_by_class)))
    shown = "ESTIMATE" if env.runtime_model == "estimated" else "RUNTIME"
    canvas.draw_text(image, MARGIN + HEADER, x, f"QUEUE  {shown} LOG 1S-1W")
    if waiting > len(listed):
        canvas.draw_text(image, y + box.queue_rows * ROW_PITCH + 2, x, f"+{waiting - len(listed)} MORE")
    clock = int(state.clock)
    running = int(np.sum(np.asarray(state.slot_job) >= 0))
    header = (f"T={clock // 3600}:{clock // 60 % 60:02d}:{clock % 60:02d}  RUNNING {running}/{int(state.pool)}  "
              f"WAITING {waiting}")
    canvas.draw_text(image, MARGIN, MARGIN, header, scale=2)
    return image


def load(env, state, params=None) -> float:
    """The share of the pool's cores busy: what the time strip plots."""
    return float(np.sum(np.asarray(state.slot_job) >= 0) / max(int(state.pool), 1))

