"""The block view: a grid cut by full lines into blocks of one colour each, seen as one cell per block.

Many tasks draw a board: lines of one colour cut the grid into blocks, each block filled
with one colour, and the rule acts on the blocks as if they were cells (a pattern of blocks
copied, a row of blocks filled). Seen one cell per block (`BlockGrid.cells`), such a task is
a small task that the search's steps already cover; a test answer found there is painted
back into the test input's blocks (`BlockGrid.paint`). `block_task` says whether a task
reads so: every grid a board, and each train output the board of its input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arcsolve.dsl.primitives.objects import cuts

Array = np.ndarray
Span = tuple[int, int]


@dataclass(frozen=True)
class BlockGrid:
    """A grid's layout of blocks: the lines' colour and, in order, the rows and the columns
    (start, stop) that the blocks span; `cells` holds each block's colour."""

    line: int
    rows: tuple[Span, ...]
    columns: tuple[Span, ...]
    cells: Array
    shape: tuple[int, int]

    def layout(self) -> tuple:
        """What two boards must share for one to be the other with its blocks recoloured."""
        return self.line, self.rows, self.columns, self.shape

    def paint(self, cells: Array) -> Array | None:
        """The grid with the lines of this layout and each block in the colour `cells` gives
        it; None if `cells` has another shape than the layout's blocks."""
        if cells.shape != self.cells.shape:
            return None
        out = np.full(self.shape, self.line, dtype=cells.dtype)
        for i, (top, bottom) in enumerate(self.rows):
            for j, (left, right) in enumerate(self.columns):
                out[top:bottom, left:right] = cells[i, j]
        return out


def board(g: Array) -> BlockGrid | None:
    """The grid as a board: full rows and columns of one colour (0 too) cut it into at least
    2 x 2 blocks, each of one colour other than the lines'; None if it is not one."""
    h, w = g.shape
    for line in np.unique(g).tolist():
        rows, cols = (g == line).all(1), (g == line).all(0)
        ys, xs = cuts(rows), cuts(cols)
        if len(ys) < 2 or len(xs) < 2:
            continue
        corners = g[np.ix_([a for a, _ in ys], [c for c, _ in xs])]
        if (corners == line).any():
            continue
        if all((g[a:b, c:d] == corners[i, j]).all() for i, (a, b) in enumerate(ys) for j, (c, d) in enumerate(xs)):
            return BlockGrid(line, tuple(ys), tuple(xs), corners, (h, w))
    return None


def block_task(inputs: Sequence[Array], outputs: Sequence[Array], tests: Sequence[Array]) -> (
        tuple[list[BlockGrid], list[BlockGrid], list[BlockGrid]] | None):
    """The boards of a task's train inputs, train outputs and test inputs, if every grid is a
    board, each train output has its input's layout and some output recolours a block; else
    None."""
    boards = []
    for g in (*inputs, *outputs, *tests):  # most tasks fail on their first grid: no more work
        b = board(g)
        if b is None:
            return None
        boards.append(b)
    n = len(inputs)
    ins, outs, tests_ = boards[:n], boards[n : 2 * n], boards[2 * n :]
    if any(i.layout() != o.layout() for i, o in zip(ins, outs, strict=True)):
        return None
    if all(np.array_equal(i.cells, o.cells) for i, o in zip(ins, outs, strict=True)):
        return None
    return ins, outs, tests_
