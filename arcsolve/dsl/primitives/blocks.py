"""Grids of blocks: blocks between separator lines or of a fixed size summarised to one
cell each, full lines that cross one another, and Kronecker products that place a whole
pattern at the cells of a mask."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.objects import cuts, split

Array = np.ndarray


def _main_colour(block: Array) -> int:
    """The most frequent non-zero colour of a block (0 if it has none; the smallest on a tie)."""
    counts = np.bincount(block.ravel(), minlength=10)[1:]
    return int(counts.argmax()) + 1 if counts.any() else 0


@grid_memo()
def cut(g: Array) -> tuple[int, tuple[tuple[Array, ...], ...]] | None:
    """The separator colour and the blocks between full lines of it (tried non-zero colours
    first, 0 last), as rows of blocks; blocks may differ in size, none is all separator."""
    h, w = g.shape
    for colour in [int(c) for c in np.unique(g) if c != 0] + [0]:
        rows = (g == colour).all(1) if w > 1 else np.zeros(h, bool)
        cols = (g == colour).all(0) if h > 1 else np.zeros(w, bool)
        if not rows.any() and not cols.any():
            continue
        ys, xs = cuts(rows), cuts(cols)
        if len(ys) * len(xs) < 2:
            continue
        blocks = tuple(tuple(g[a:b, c:d] for c, d in xs) for a, b in ys)
        if not any((blk == colour).all() for row in blocks for blk in row):
            return colour, blocks
    return None


def full_rows(g: Array) -> Array:
    """The indices of the rows that one non-zero colour fills (of the columns, given g.T)."""
    return np.flatnonzero((g[:, 0] != 0) & (g == g[:, :1]).all(1))


@grid_memo()
def crossing_lines(g: Array) -> tuple[Array, Array]:
    """The grid's full lines, each of one non-zero colour, where a line may be crossed by the
    lines of the other direction (at a crossing either line's colour shows): the colour of
    each row and of each column that is such a line, 0 for the others."""
    h, w = g.shape
    if h < 2 or w < 2:
        return np.zeros(h, dtype=np.int64), np.zeros(w, dtype=np.int64)

    def majority(lines: Array) -> Array:  # each line's most frequent non-zero colour, if over half its cells
        counts = (lines[..., None] == np.arange(1, 10)).sum(1)
        return np.where(counts.max(1) * 2 > lines.shape[1], counts.argmax(1) + 1, 0)

    # a line has no zero cell: neither its own colour nor a crossing line's is 0
    full_rows, full_cols = (g != 0).all(1), (g != 0).all(0)
    row, col = np.zeros(h, dtype=np.int64), np.zeros(w, dtype=np.int64)
    if not full_rows.any() and not full_cols.any():
        return row, col
    row[full_rows], col[full_cols] = majority(g[full_rows]), majority(g.T[full_cols])
    while True:  # drop the lines with a cell of another colour that no crossing line explains
        across = (g == row[:, None]) | ((col[None, :] != 0) & (g == col[None, :]))
        down = (g == col[None, :]) | ((row[:, None] != 0) & (g == row[:, None]))
        keep_rows, keep_cols = (row != 0) & across.all(1), (col != 0) & down.all(0)
        if (keep_rows == (row != 0)).all() and (keep_cols == (col != 0)).all():
            return row, col
        row, col = np.where(keep_rows, row, 0), np.where(keep_cols, col, 0)


def block_colours(g: Array) -> Array | None:
    """One cell per block between full separator lines of one colour (0 last): the block's main non-zero colour."""
    found = cut(g)
    if found is None:
        return None
    sep, blocks = found
    return np.array([[_main_colour(np.where(blk == sep, 0, blk)) for blk in row] for row in blocks],
                    dtype=g.dtype)


_CUT_PICKS = MappingProxyType({
    "fullest": lambda blk: np.count_nonzero(blk),
    "emptiest": lambda blk: -np.count_nonzero(blk),
    "most_colours": lambda blk: np.count_nonzero(np.bincount(blk.ravel(), minlength=10)[1:]),
    "least_colours": lambda blk: -np.count_nonzero(np.bincount(blk.ravel(), minlength=10)[1:]),
})


def cut_pick(g: Array, how: str) -> Array | None:
    """Cut along full separator lines into parts of any size; keep the part picked by a criterion."""
    found = cut(g)
    if found is None:
        return None
    parts = [blk for row in found[1] for blk in row]
    if how == "unique_colours":
        keys = [tuple(np.unique(p[p != 0]).tolist()) for p in parts]
        picks = [p for p, k in zip(parts, keys, strict=True) if keys.count(k) == 1]
        return picks[0] if len(picks) == 1 else None
    scores = [_CUT_PICKS[how](p) for p in parts]
    best = max(scores)
    picks = [p for p, s in zip(parts, scores, strict=True) if s == best]
    return picks[0] if len(picks) == 1 else None


def downscale_majority(g: Array, ky: int, kx: int) -> Array | None:
    """Shrink ky x kx blocks to one cell each, the block's most frequent colour (zero included)."""
    h, w = g.shape
    if h % ky or w % kx or (ky, kx) == (1, 1):
        return None
    blocks = g.reshape(h // ky, ky, w // kx, kx).transpose(0, 2, 1, 3).reshape(h // ky, w // kx, -1)
    counts = (blocks[..., None] == np.arange(10)).sum(2)
    return counts.argmax(2).astype(g.dtype)


def downscale_any(g: Array, ky: int, kx: int) -> Array | None:
    """Shrink ky x kx blocks to one cell each: the block's one non-zero colour, or 0 (None if a block has two)."""
    h, w = g.shape
    if h % ky or w % kx or (ky, kx) == (1, 1):
        return None
    blocks = g.reshape(h // ky, ky, w // kx, kx).transpose(0, 2, 1, 3).reshape(h // ky, w // kx, -1)
    top = blocks.max(2)
    low = np.where(blocks == 0, top[..., None], blocks).min(2)  # the least non-zero colour (top where none)
    if (top != low).any() or (blocks.min(2) == top).all():  # every block one colour: `downscale`
        return None
    return top


def self_tile_colour(g: Array, c: int) -> Array | None:
    """Place a copy of the grid at each cell of colour c of itself (c = -1: its most frequent colour)."""
    if c < 0:
        counts = np.bincount(g.ravel(), minlength=10)
        if (counts == counts.max()).sum() != 1:
            return None
        c = int(counts.argmax())
    mask = g == c
    return np.kron(mask.astype(g.dtype), g) if mask.any() else None


def split_kron(g: Array, mode: str) -> Array | None:
    """Split in two parts, one of one colour: each cell of the other becomes a copy of that mask in its colour."""
    parts = split(g, mode)
    if parts is None or len(parts) != 2:
        return None
    ones = [np.count_nonzero(np.bincount(p.ravel(), minlength=10)[1:]) == 1 for p in parts]
    if ones[0] == ones[1]:
        return None
    mask, pattern = (parts[0], parts[1]) if ones[0] else (parts[1], parts[0])
    return np.kron(pattern, (mask != 0).astype(g.dtype))
