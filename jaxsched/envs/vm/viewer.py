"""Draws a VM-placement state: for each PM, its two NUMA nodes' cpu and memory in use as bars
(filled from the bottom to used / capacity), PMs out of service greyed; the create being decided
beside them (its cpu and memory against one NUMA's capacity) and a header with the VMs placed, the
CPU allocation rate and the PMs in service.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jaxsched.core import canvas

MARGIN, HEADER = 4, 16
BAR_WIDTH, BAR_HEIGHT = 6, 60
PMS_PER_ROW = 16
CPU_COLOUR, MEM_COLOUR = (31, 119, 180), (255, 127, 14)
# x offsets in a PM's group: NUMA 0 cpu, mem, then NUMA 1 cpu, mem
_OFFSETS = np.array([[0, BAR_WIDTH + 1], [2 * BAR_WIDTH + 4, 3 * BAR_WIDTH + 5]])
GROUP, ROW = 4 * BAR_WIDTH + 5 + 9, BAR_HEIGHT + 14  # pixel pitch of a PM's group and of a row of PMs
MIN_WIDTH = 2 * MARGIN + canvas.text_width("PLACED 99999  CPU 100%  PMS 999/999", 2)


class Layout(NamedTuple):
    """Bar positions (fixed by the number of PMs, so frames of one env stack)."""

    bars: np.ndarray  # int[N, 2 NUMA, 2 (cpu, mem), 2 (y, x)]: top-left pixel of each bar
    request: np.ndarray  # int[2 (cpu, mem), 2 (y, x)]: the pending create's bars
    height: int
    width: int


def layout(env) -> Layout:
    n = env.num_pms
    per_row = min(n, PMS_PER_ROW)
    pm = np.arange(n)
    top = MARGIN + HEADER + (pm // per_row) * ROW
    left = MARGIN + (pm % per_row) * GROUP
    bars = np.stack(np.broadcast_arrays(top[:, None, None], left[:, None, None] + _OFFSETS[None]), axis=-1)
    request_x = MARGIN + per_row * GROUP + 12
    request = np.array([[MARGIN + HEADER, request_x], [MARGIN + HEADER, request_x + BAR_WIDTH + 1]])
    width = max(request_x + 2 * BAR_WIDTH + 1 + canvas.text_width("DOUBLE") + MARGIN, MIN_WIDTH)
    height = MARGIN + HEADER + -(-n // per_row) * ROW + MARGIN
    return Layout(bars, request, height, width)


def pending_request(state, params) -> tuple[float, float, bool, bool]:
    """(cpu, mem, double, exists) of the create being decided (the env's own reading of the trace)."""
    requests, pos = state.requests, int(state.pos)
    exists = 0 <= pos < np.shape(requests.cpu)[-1]
    if not exists:
        return 0.0, 0.0, False, False
    cpu, mem = float(np.asarray(requests.cpu)[pos]), float(np.asarray(requests.mem)[pos])
    return cpu, mem, bool(mem > params.double_mem_above or cpu >= params.double_cpu_from), True


def render(env, state, params) -> np.ndarray:
    """uint8[H, W, 3] of one (host) state; ``params`` give the NUMA capacities."""
    box = layout(env)
    image = canvas.blank(box.height, box.width)
    capacity = np.array([float(params.numa_cpu), float(params.numa_mem)])
    remaining = np.stack([np.asarray(state.cpu), np.asarray(state.mem)], axis=-1)  # [N, 2 NUMA, 2]
    used = 1.0 - remaining / capacity
    active = int(state.active)
    for pm in range(env.num_pms):
        for numa in range(2):
            for kind, colour in enumerate((CPU_COLOUR, MEM_COLOUR)):
                y, x = box.bars[pm, numa, kind]
                if pm < active:
                    canvas.bar(image, y, x, BAR_HEIGHT, BAR_WIDTH, used[pm, numa, kind], colour)
                else:
                    canvas.fill(image, y, x, BAR_HEIGHT, BAR_WIDTH, canvas.MUTED)
        y, x = box.bars[pm, 0, 0]
        canvas.draw_text(image, y + BAR_HEIGHT + 3, x, str(pm), canvas.TEXT if pm < active else canvas.MUTED)
    cpu, mem, double, exists = pending_request(state, params)
    for kind, (amount, colour) in enumerate(((cpu, CPU_COLOUR), (mem, MEM_COLOUR))):
        y, x = box.request[kind]
        canvas.bar(image, y, x, BAR_HEIGHT, BAR_WIDTH, amount / capacity[kind], colour)
    label_x = box.request[1, 1] + BAR_WIDTH + 3
    canvas.draw_text(image, MARGIN + HEADER, label_x, "NEXT" if exists else "NONE")
    if double:
        canvas.draw_text(image, MARGIN + HEADER + 8, label_x, "DOUBLE")
    percent = round(100 * allocation(env, state, params))
    header = f"PLACED {int(state.placed)}  CPU {percent}%  PMS {active}/{env.num_pms}"
    canvas.draw_text(image, MARGIN, MARGIN, header, scale=2)
    return image


def allocation(env, state, params) -> float:
    """The CPU allocation rate of the PMs in service (the env's ``cpu_allocation``), on the host."""
    active = int(state.active)
    remaining = np.asarray(state.cpu)[:active]
    return float(1.0 - np.sum(remaining) / (2 * active * float(params.numa_cpu)))


load = allocation  # what the time strip plots
