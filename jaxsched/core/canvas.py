"""Pixels for the families' viewers: a uint8 RGB canvas, filled boxes, cell grids and a 3x5 font.

numpy only (no plotting library at call time), so a frame costs well under a millisecond of
drawing and frames of one env stack into a video. A *cell grid* is a ``Box`` of ``rows x cols``
square cells ``cell`` pixels wide, each drawn ``cell - 1`` wide with a 1-pixel line after it;
:func:`cell_colours` reads one colour per cell back (tests check pixels against states with it).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

BACKGROUND = (255, 255, 255)
FREE = (236, 236, 236)  # an empty cell or the empty part of a bar
LINE = (200, 200, 200)  # the line between cells
TEXT = (40, 40, 40)
MUTED = (150, 150, 150)  # backlog cells, out-of-service machines, a strip's future
# job colours (a job keeps its colour wherever it is drawn); none is FREE, MUTED or BACKGROUND
JOB_COLOURS = np.array([(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
                        (140, 86, 75), (227, 119, 194), (188, 189, 34), (23, 190, 207), (255, 187, 120),
                        (152, 223, 138), (174, 199, 232)], np.uint8)

GLYPH_WIDTH, GLYPH_HEIGHT = 3, 5
# each glyph: 5 rows of 3 bits, most significant bit leftmost
_GLYPHS = {
    "0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7), "2": (7, 1, 7, 4, 7), "3": (7, 1, 7, 1, 7), "4": (5, 5, 7, 1, 1),
    "5": (7, 4, 7, 1, 7), "6": (7, 4, 7, 5, 7), "7": (7, 1, 1, 2, 2), "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 7),
    "A": (2, 5, 7, 5, 5), "B": (6, 5, 6, 5, 6), "C": (3, 4, 4, 4, 3), "D": (6, 5, 5, 5, 6), "E": (7, 4, 6, 4, 7),
    "F": (7, 4, 6, 4, 4), "G": (3, 4, 5, 5, 3), "H": (5, 5, 7, 5, 5), "I": (7, 2, 2, 2, 7), "J": (1, 1, 1, 5, 2),
    "K": (5, 5, 6, 5, 5), "L": (4, 4, 4, 4, 7), "M": (5, 7, 7, 5, 5), "N": (6, 5, 5, 5, 5), "O": (2, 5, 5, 5, 2),
    "P": (6, 5, 6, 4, 4), "Q": (2, 5, 5, 6, 3), "R": (6, 5, 6, 5, 5), "S": (3, 4, 2, 1, 6), "T": (7, 2, 2, 2, 2),
    "U": (5, 5, 5, 5, 7), "V": (5, 5, 5, 5, 2), "W": (5, 5, 7, 7, 5), "X": (5, 5, 2, 5, 5), "Y": (5, 5, 2, 2, 2),
    "Z": (7, 1, 2, 4, 7), " ": (0, 0, 0, 0, 0), "=": (0, 7, 0, 7, 0), ":": (0, 2, 0, 2, 0), ".": (0, 0, 0, 0, 2),
    "-": (0, 0, 7, 0, 0), "+": (0, 2, 7, 2, 0), "/": (1, 1, 2, 4, 4), "%": (5, 1, 2, 4, 5),
}
_MASKS = {char: np.array([[(row >> (2 - bit)) & 1 for bit in range(3)] for row in rows], bool)
          for char, rows in _GLYPHS.items()}


class Box(NamedTuple):
    """A cell grid's place on the canvas: top-left pixel, size in cells, cell size in pixels."""

    y: int
    x: int
    rows: int
    cols: int
    cell: int

    @property
    def height(self) -> int:
        return self.rows * self.cell

    @property
    def width(self) -> int:
        return self.cols * self.cell


# Speed: numpy copies a (3,) colour into [..., 3] pixels three bytes per inner loop, ~1 ms per
# megapixel; so whole pixel rows are assigned as flat runs (``_flat``: a view of a canvas region as
# [rows, width * 3], the inner loop a whole row) and colours are tiled into rows once.


def _flat(region: np.ndarray) -> np.ndarray:
    """uint8[rows, width * 3], a view of a region of a canvas (its pixels are contiguous along x)."""
    return region.reshape(region.shape[0], -1)


def blank(height: int, width: int) -> np.ndarray:
    """uint8[height, width, 3] filled with the background colour."""
    row = np.tile(np.asarray(BACKGROUND, np.uint8), width)
    return np.ascontiguousarray(np.broadcast_to(row, (height, 3 * width))).reshape(height, width, 3)


def fill(canvas: np.ndarray, y: int, x: int, height: int, width: int, colour) -> None:
    """Paints a rectangle (clipped to the canvas)."""
    region = canvas[max(y, 0):max(y + height, 0), max(x, 0):max(x + width, 0)]
    if region.size:
        _flat(region)[...] = np.tile(np.asarray(colour, np.uint8), region.shape[1])


def draw_cells(canvas: np.ndarray, box: Box, colours: np.ndarray, gaps: np.ndarray | None = None) -> None:
    """Paints ``colours`` (uint8[rows, cols, 3], one per cell) into ``box`` with lines between cells;
    the columns where bool[cols] ``gaps`` is set stay background (several grids side by side drawn
    as one: a call costs as much as its pixels, not per grid)."""
    c = box.cell
    pixels = np.repeat(np.asarray(colours, np.uint8), c, axis=1)  # [rows, width, 3]: one pixel row per cell row
    line = np.empty((box.width, 3), np.uint8)
    line[...] = LINE
    if c > 1:
        pixels[:, c - 1::c] = LINE
    if gaps is not None:
        blank_columns = np.repeat(np.asarray(gaps, bool), c)
        pixels[:, blank_columns] = BACKGROUND
        line[blank_columns] = BACKGROUND
    region = canvas[box.y:box.y + box.height, box.x:box.x + box.width]
    rows = region.reshape(box.rows, c, box.width * 3)  # a view: [cell row, pixel row in it, pixels]
    body = c - 1 if c > 1 else c
    rows[:, :body] = pixels.reshape(box.rows, 1, -1)
    if c > 1:
        rows[:, c - 1] = line.reshape(1, -1)


def cell_colours(image: np.ndarray, box: Box) -> np.ndarray:
    """uint8[rows, cols, 3]: the colour drawn in each cell of ``box`` (read at the cell's centre)."""
    centre = (box.cell - 1) // 2
    return image[box.y + centre:box.y + box.height:box.cell, box.x + centre:box.x + box.width:box.cell]


def painted(colours: np.ndarray, colour) -> np.ndarray:
    """bool[...]: which of ``colours`` (uint8[..., 3]) equal ``colour``."""
    return np.all(colours == np.asarray(colour, np.uint8), axis=-1)


def text_width(text: str, scale: int = 1) -> int:
    return max(len(text) * (GLYPH_WIDTH + 1) - 1, 0) * scale


@functools.lru_cache(maxsize=None)
def _glyph(char: str, scale: int) -> np.ndarray:
    """bool[5 scale, 4 scale]: a glyph scaled up, with the blank column that follows it."""
    mask = np.pad(_MASKS.get(char, _MASKS[" "]), ((0, 0), (0, 1)))
    return np.repeat(np.repeat(mask, scale, axis=0), scale, axis=1)


def draw_text(canvas: np.ndarray, y: int, x: int, text: str, colour=TEXT, scale: int = 1) -> None:
    """Writes ``text`` (digits, capitals and ``=:.-+/%``; other characters as blanks) from its top-left
    pixel, ``5 * scale`` pixels tall; what falls outside the canvas is cut."""
    if not text or y < 0 or x < 0:
        return
    mask = np.concatenate([_glyph(char, scale) for char in text.upper()], axis=1)[:, :-scale]
    mask = mask[:max(canvas.shape[0] - y, 0), :max(canvas.shape[1] - x, 0)]
    canvas[y:y + mask.shape[0], x:x + mask.shape[1]][mask] = colour


def job_colours(jobs: np.ndarray) -> np.ndarray:
    """uint8[..., 3]: each job index's colour (a fixed cycle, so a job looks the same in every frame)."""
    return JOB_COLOURS[np.asarray(jobs) % len(JOB_COLOURS)]


def bar(canvas: np.ndarray, y: int, x: int, height: int, width: int, fraction: float, colour) -> int:
    """A vertical bar filled from the bottom to ``fraction`` (clipped to [0, 1]) of ``height``;
    returns the filled pixels (rounded, so a bar's filling is exact to a pixel)."""
    filled = int(round(min(max(float(fraction), 0.0), 1.0) * height))
    fill(canvas, y, x, height - filled, width, FREE)
    fill(canvas, y + height - filled, x, filled, width, colour)
    return filled
