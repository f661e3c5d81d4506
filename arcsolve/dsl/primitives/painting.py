"""Recolouring by what is around: objects painted by a property (for a learned colour map),
cells and objects painted by the other colour of their row or column or by the nearest
other colour, lines and objects made one colour by majority."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.objects import labels, objects, property_codes

Array = np.ndarray


def colour_by_size(g: Array, conn: str) -> Array:
    """Paint every object with its size in cells (9 for 9 or more), for a learned colour map."""
    lab, n = labels(g, conn)
    sizes = np.minimum(np.bincount(lab.ravel(), minlength=n + 1), 9).astype(g.dtype)
    sizes[0] = 0
    return sizes[lab]


def colour_by_parity(g: Array, conn: str) -> Array | None:
    """Paint every object 1 if its size in cells is odd, 2 if even, for a learned colour map."""
    lab, n = labels(g, conn)
    if n == 0:
        return None
    codes = 2 - np.bincount(lab.ravel(), minlength=n + 1) % 2
    codes[0] = 0
    return codes.astype(g.dtype)[lab]


def colour_by(g: Array, prop: str, conn: str) -> Array | None:
    """Paint every object with a code for a property (size rank, has a hole, ...), for a learned colour map."""
    objs = objects(g, conn)
    codes = property_codes(g, objs, prop)
    if codes is None:
        return None
    table = np.zeros(len(objs) + 1, dtype=g.dtype)
    table[1:] = np.minimum(codes, 9)
    return table[labels(g, conn)[0]]


def _row_counts(g: Array) -> Array:
    """(h, k) counts of each colour in each row, k = 10 or more."""
    h, _ = g.shape
    k = max(10, int(g.max()) + 1)
    return np.bincount((np.arange(h)[:, None] * k + g).ravel(), minlength=h * k).reshape(h, k)


@grid_memo()
def _line_counts(g: Array) -> tuple[Array, Array]:
    """`_row_counts` of the rows and of the columns."""
    return _row_counts(g), _row_counts(g.T)


def _majority_rows(g: Array, counts: Array) -> Array:
    """Each row filled with its most frequent colour, where one colour is the most frequent."""
    single = (counts == counts.max(1, keepdims=True)).sum(1) == 1
    return np.where(single[:, None], counts.argmax(1).astype(g.dtype)[:, None], g)


@grid_memo()
def _majorities(g: Array) -> tuple[Array, Array]:
    """`_majority_rows` of the rows and of the columns."""
    rows, cols = _line_counts(g)
    return _majority_rows(g, rows), _majority_rows(g.T, cols).T


def majority_lines(g: Array, axis: str) -> Array | None:
    """Fill each row ('h'), column ('v') or the lines that change fewer cells ('auto') with its main colour."""
    rows, cols = _majorities(g)
    if axis != "auto":
        return rows if axis == "h" else cols
    changed_rows, changed_cols = np.count_nonzero(rows != g), np.count_nonzero(cols != g)
    if changed_rows == changed_cols:
        return None
    return rows if changed_rows < changed_cols else cols


def majority_objects(g: Array) -> Array:
    """Recolour every object (8-connected, any colours) with its most frequent colour."""
    lab, n = labels(g, "multi8")
    k = int(g.max()) + 1
    counts = np.bincount((lab * k + g).ravel(), minlength=(n + 1) * k).reshape(n + 1, k)
    main = counts.argmax(1).astype(g.dtype)  # the first of the most frequent colours of each object
    return np.where(lab > 0, main[lab], g)


def _paint_rows(g: Array, c: int, counts: Array) -> Array:
    others = counts > 0
    others[:, [0, c]] = False
    single = others.sum(1) == 1
    return np.where((g == c) & single[:, None], others.argmax(1).astype(g.dtype)[:, None], g)


def paint_by_line(g: Array, c: int, axis: str) -> Array | None:
    """Recolour the cells of colour c in each row ('h') or column ('v') by the one other colour in it."""
    if not (g == c).any():
        return None
    rows, cols = _line_counts(g)
    return _paint_rows(g, c, rows) if axis == "h" else _paint_rows(g.T, c, cols).T


@grid_memo()
def _colours_across(g: Array, axis: str) -> tuple[Array, Array, Array]:
    """The 'colour4' labels, each object's colour (0 for label 0) and which non-zero colours
    the rows ('h') or columns ('v') that it spans have: (n + 1, k)."""
    lab, n = labels(g, "colour4")
    colour = np.zeros(n + 1, dtype=g.dtype)
    colour[lab] = g
    rows, cols = _line_counts(g)
    lines, counts = (lab, rows) if axis == "h" else (lab.T, cols)
    h, k = counts.shape
    spans = np.zeros((n + 1, h), dtype=bool)
    spans[lines, np.arange(h)[:, None]] = True  # the lines each object has cells in
    start, stop = spans.argmax(1), h - spans[:, ::-1].argmax(1)
    seen = np.zeros((h + 1, k), dtype=int)  # lines before each line that have each colour
    np.cumsum(counts > 0, axis=0, out=seen[1:])
    others = seen[stop] > seen[start]
    others[:, 0] = False
    return lab, colour, others


def paint_objects_by_line(g: Array, c: int, axis: str) -> Array | None:
    """Recolour each object of colour c by the one other colour in the rows ('h') or columns ('v') it spans."""
    if c == 0 or not (g == c).any():
        return None
    lab, colour, others = _colours_across(g, axis)
    others = others.copy()
    others[:, c] = False
    single = (colour == c) & (others.sum(1) == 1)
    return np.where(single, others.argmax(1), colour).astype(g.dtype)[lab]


def swap_colours(g: Array) -> Array | None:
    """Swap the grid's two non-zero colours (None unless it has exactly two)."""
    present = np.flatnonzero(np.bincount(g.ravel(), minlength=10)[1:]) + 1
    if present.size != 2:
        return None
    a, b = (int(c) for c in present)
    return np.where(g == a, b, np.where(g == b, a, g)).astype(g.dtype)


def paint_nearest(g: Array, c: int) -> Array | None:
    """Recolour each colour-c object by the nearest of two or more other colours, in grid steps (None on a tie)."""
    others = (g != 0) & (g != c)
    if np.count_nonzero(np.bincount(g[others], minlength=10)) < 2 or not (g == c).any():
        return None  # with one other colour this is a colour map
    ys, xs = np.nonzero(others)
    lab, n = labels(np.where(g == c, g, 0), "colour4")
    cy, cx = np.nonzero(lab)
    distance = np.abs(cy[:, None] - ys[None, :]) + np.abs(cx[:, None] - xs[None, :])
    # the nearest distance of each object: its cells' least
    owner = lab[cy, cx] - 1
    nearest = np.full(n, np.iinfo(distance.dtype).max)
    np.minimum.at(nearest, owner, distance.min(1))
    # the colours found at that distance, per object
    hit = distance == nearest[owner][:, None]
    found = np.zeros((n, 10), dtype=bool)
    rows, cols = np.nonzero(hit)
    found[owner[rows], g[ys[cols], xs[cols]]] = True
    if (found.sum(1) != 1).any():
        return None
    table = np.zeros(n + 1, dtype=g.dtype)
    table[1:] = found.argmax(1)
    return np.where(lab > 0, table[lab], g)
