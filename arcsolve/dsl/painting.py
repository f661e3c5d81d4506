"""Recolouring by what is around: objects painted by a property (for a learned colour map),
cells and objects painted by the other colour of their row or column, lines and objects
made one colour by majority."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl.objects import PROPERTIES, labels, objects

Array = np.ndarray


def colour_by_size(g: Array, conn: str) -> Array:
    """Paint every object with its size in cells (9 for 9 or more), for a learned colour map."""
    lab, n = labels(g, conn)
    sizes = np.minimum(np.bincount(lab.ravel(), minlength=n + 1), 9).astype(g.dtype)
    sizes[0] = 0
    return sizes[lab]


def colour_by(g: Array, prop: str, conn: str) -> Array | None:
    """Paint every object with a code for a property (size rank, has a hole, ...), for a learned colour map."""
    objs = objects(g, conn)
    codes = PROPERTIES[prop](g, objs) if len(objs) > 1 else None
    if codes is None:
        return None
    table = np.zeros(len(objs) + 1, dtype=g.dtype)
    table[1:] = np.minimum(codes, 9)
    return table[labels(g, conn)[0]]


def _majority_rows(g: Array) -> Array:
    out = g.copy()
    for y, row in enumerate(g):
        counts = np.bincount(row, minlength=10)
        if (counts == counts.max()).sum() == 1:
            out[y] = counts.argmax()
    return out


def majority_lines(g: Array, axis: str) -> Array | None:
    """Fill each row ('h'), column ('v') or the lines that change fewer cells ('auto') with its main colour."""
    rows, cols = _majority_rows(g), _majority_rows(g.T).T
    if axis != "auto":
        return rows if axis == "h" else cols
    changed_rows, changed_cols = np.count_nonzero(rows != g), np.count_nonzero(cols != g)
    if changed_rows == changed_cols:
        return None
    return rows if changed_rows < changed_cols else cols


def majority_objects(g: Array) -> Array:
    """Recolour every object (8-connected, any colours) with its most frequent colour."""
    out = g.copy()
    for obj in objects(g, "multi8"):
        out[obj.mask] = np.bincount(g[obj.mask]).argmax()
    return out


def _paint_rows(g: Array, c: int) -> Array:
    out = g.copy()
    for y, row in enumerate(g):
        others = np.unique(row[(row != 0) & (row != c)])
        if others.size == 1:
            out[y, row == c] = others[0]
    return out


def paint_by_line(g: Array, c: int, axis: str) -> Array | None:
    """Recolour the cells of colour c in each row ('h') or column ('v') by the one other colour in it."""
    if not (g == c).any():
        return None
    return _paint_rows(g, c) if axis == "h" else _paint_rows(g.T, c).T


def paint_objects_by_line(g: Array, c: int, axis: str) -> Array | None:
    """Recolour each object of colour c by the one other colour in the rows ('h') or columns ('v') it spans."""
    objs = [o for o in objects(g, "colour4") if o.colours == (c,)]
    if not objs:
        return None
    out = g.copy()
    for obj in objs:
        band = g[obj.box[0]] if axis == "h" else g[:, obj.box[1]]
        others = np.unique(band[(band != 0) & (band != c)])
        if others.size == 1:
            out[obj.mask] = others[0]
    return out


def swap_colours(g: Array) -> Array | None:
    """Swap the grid's two non-zero colours (None unless it has exactly two)."""
    present = np.flatnonzero(np.bincount(g.ravel(), minlength=10)[1:]) + 1
    if present.size != 2:
        return None
    a, b = (int(c) for c in present)
    return np.where(g == a, b, np.where(g == b, a, g)).astype(g.dtype)
