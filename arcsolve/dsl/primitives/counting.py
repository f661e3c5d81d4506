"""Outputs made from counts: a cell of the most frequent colour, only that colour kept,
colours ranked by how often they occur, the colours of bands in order, a row as long as the
number of cells or of objects, a cell coding a count or a symmetry."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from arcsolve.dsl.primitives.objects import objects

Array = np.ndarray


def _colour_counts(g: Array) -> Array:
    """Cells of each colour 1..9 (index 0 is colour 1)."""
    return np.bincount(g.ravel(), minlength=10)[1:]


def _ranked_colour(g: Array, how: str) -> int | None:
    """The most or least frequent non-zero colour (None on a tie or with no colour)."""
    counts = _colour_counts(g)
    present = counts[counts > 0]
    if present.size == 0:
        return None
    best = present.max() if how == "most" else present.min()
    if (present == best).sum() != 1:
        return None
    return int(np.flatnonzero(counts == best)[0]) + 1


def colour_cell(g: Array, how: str) -> Array | None:
    """A 1x1 grid of the most or least frequent non-zero colour (None on a tie)."""
    c = _ranked_colour(g, how)
    return None if c is None else np.array([[c]], dtype=g.dtype)


def keep_ranked_colour(g: Array, how: str) -> Array | None:
    """Erase every colour but the most or least frequent non-zero one (None on a tie)."""
    c = _ranked_colour(g, how)
    return None if c is None else np.where(g == c, g, np.zeros_like(g))


def colour_ranking(g: Array, skip: int) -> Array | None:
    """A column of the non-zero colours, most frequent first, leaving out the first `skip` (None on ties)."""
    counts = _colour_counts(g)
    colours = [c + 1 for c in np.argsort(-counts, kind="stable") if counts[c] > 0]
    if len(colours) <= skip or len({int(counts[c - 1]) for c in colours}) != len(colours):
        return None
    return np.array(colours[skip:], dtype=g.dtype)[:, None]


def _band_order(g: Array) -> tuple[list[int], int] | None:
    """The columns' most frequent colours, run by run from the left, and how many cells
    they cover, if each colour makes one run and there are two or more (None otherwise)."""
    k = max(10, int(g.max()) + 1)
    w = g.shape[1]
    counts = np.bincount((np.arange(w) * k + g).ravel(), minlength=w * k).reshape(w, k)
    tops = counts.argmax(1)
    runs = tops[np.concatenate(([True], tops[1:] != tops[:-1]))].tolist()
    if len(runs) < 2 or len(set(runs)) < len(runs):
        return None
    return runs, int(counts.max(1).sum())


def band_colours(g: Array) -> Array | None:
    """The colours of the grid's bands in order: a row for side-by-side bands, a column for stacked ones."""
    across, down = _band_order(g), _band_order(g.T)
    if across and down and across[1] != down[1]:  # bands both ways: those that fit the cells better
        across, down = (across, None) if across[1] > down[1] else (None, down)
    if (across is None) == (down is None):
        return None
    return np.array([across[0]], dtype=g.dtype) if across else np.array(down[0], dtype=g.dtype)[:, None]


def count_row(g: Array) -> Array | None:
    """A 1 x N row of the grid's only non-zero colour, N being its number of cells."""
    counts = _colour_counts(g)
    if np.count_nonzero(counts) != 1:
        return None
    colour = int(np.flatnonzero(counts)[0]) + 1
    return np.full((1, int(counts.max())), colour, dtype=g.dtype)


def count_objects(g: Array, conn: str) -> Array | None:
    """A 1 x N row of the N objects' main colours, in the order their first cells are met row by row."""
    objs = objects(g, conn)
    if not objs or len(objs) > 30:  # no ARC grid is wider than 30
        return None
    return np.array([[o.colours[0] if len(o.colours) == 1 else _main_colour(g[o.mask]) for o in objs]], dtype=g.dtype)


def _main_colour(cells: Array) -> int:
    """The most frequent of these cells' colours; of colours equally frequent, the one met first."""
    counts = np.bincount(cells)
    return int(cells[np.argmax(counts[cells] == counts.max())])


# Features of a whole grid, as a code 1..9 (counts are capped at 9; yes/no is 1/2).
FEATURES = MappingProxyType({
    "objects8": lambda g: len(objects(g, "multi8")),
    "objects4": lambda g: len(objects(g, "colour4")),
    "colours": lambda g: int(np.count_nonzero(_colour_counts(g))),
    "mirror_h": lambda g: 1 if np.array_equal(g, g[:, ::-1]) else 2,
    "mirror_v": lambda g: 1 if np.array_equal(g, g[::-1]) else 2,
})


def feature_cell(g: Array, feature: str) -> Array | None:
    """A 1x1 grid coding a feature of the grid (objects, colours, mirror symmetry), for a learned colour map."""
    code = min(FEATURES[feature](g), 9)
    return None if code == 0 else np.array([[code]], dtype=g.dtype)
