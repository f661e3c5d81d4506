"""Outputs made from counts: a cell of the most frequent colour, colours ranked by how often
they occur, a row as long as the number of cells."""

from __future__ import annotations

import numpy as np

Array = np.ndarray


def _colour_counts(g: Array) -> Array:
    """Cells of each colour 1..9 (index 0 is colour 1)."""
    return np.bincount(g.ravel(), minlength=10)[1:]


def colour_cell(g: Array, how: str) -> Array | None:
    """A 1x1 grid of the most or least frequent non-zero colour (None on a tie)."""
    counts = _colour_counts(g)
    present = counts[counts > 0]
    if present.size == 0:
        return None
    best = present.max() if how == "most" else present.min()
    if (present == best).sum() != 1:
        return None
    return np.array([[int(np.flatnonzero(counts == best)[0]) + 1]], dtype=g.dtype)


def colour_ranking(g: Array, skip: int) -> Array | None:
    """A column of the non-zero colours, most frequent first, leaving out the first `skip` (None on ties)."""
    counts = _colour_counts(g)
    colours = [c + 1 for c in np.argsort(-counts, kind="stable") if counts[c] > 0]
    if len(colours) <= skip or len({int(counts[c - 1]) for c in colours}) != len(colours):
        return None
    return np.array(colours[skip:], dtype=g.dtype)[:, None]


def count_row(g: Array) -> Array | None:
    """A 1 x N row of the grid's only non-zero colour, N being its number of cells."""
    counts = _colour_counts(g)
    if np.count_nonzero(counts) != 1:
        return None
    colour = int(np.flatnonzero(counts)[0]) + 1
    return np.full((1, int(counts.max())), colour, dtype=g.dtype)
