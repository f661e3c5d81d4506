"""Moving objects: every object slides, or draws its trail, straight towards an anchor colour
until it touches it, or is reflected across it."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl.primitives.objects import labels

Array = np.ndarray


def _near(anchor: Array) -> Array:
    """The cells that are one of the eight neighbours of (or on) an anchor cell."""
    grown = anchor.copy()
    grown[1:] |= anchor[:-1]
    grown[:-1] |= anchor[1:]
    wide = grown.copy()
    wide[:, 1:] |= grown[:, :-1]
    wide[:, :-1] |= grown[:, 1:]
    return wide


def _steps_to_touch(near: Array, ys: Array, xs: Array, dy: int, dx: int) -> tuple[int | None, int]:
    """How many (dy, dx) steps bring the cells (ys, xs) next to an anchor (`near`) first (None if
    they never do inside the grid), and how many steps they can take before leaving it."""
    h, w = near.shape
    room = 0 if (dy, dx) == (0, 0) else h + w  # h + w: more than any move needs
    if dy:
        room = min(room, int(h - 1 - ys.max() if dy > 0 else ys.min()))
    if dx:
        room = min(room, int(w - 1 - xs.max() if dx > 0 else xs.min()))
    k = np.arange(room + 1)[:, None]
    touching = near[ys + k * dy, xs + k * dx].any(1)
    return (int(touching.argmax()) if touching.any() else None), room


def _movers(g: Array, anchor: Array) -> list[tuple[Array, Array]]:
    """The cells (ys, xs) of each object (8-connected, any colours) off the anchor, in `objects` order."""
    lab, n = labels(np.where(anchor, 0, g), "multi8")
    if n == 0:
        return []
    ys, xs = np.nonzero(lab)
    ids = lab[ys, xs]
    order = np.argsort(ids, kind="stable")  # object by object, each in row-major order
    ys, xs = ys[order], xs[order]
    ends = np.cumsum(np.bincount(ids)).tolist()  # ends[i]: where object i + 1 starts
    return [(ys[a:b], xs[a:b]) for a, b in zip(ends[:-1], ends[1:], strict=True)]


def _step(lo: int, hi: int, t_lo: int, t_hi: int) -> int:
    """-1, 0 or 1: the way from the range [lo, hi) towards [t_lo, t_hi) (0 if they overlap)."""
    return -1 if lo >= t_hi else 1 if hi <= t_lo else 0


def _anchor(g: Array, c: int) -> tuple[Array, tuple[slice, slice]] | None:
    """The colour-c cells and their bounding box; None unless some cells, but not all, have colour c."""
    anchor = g == c
    if not anchor.any() or anchor.all():
        return None
    rows, cols = np.nonzero(anchor)
    return anchor, (slice(rows.min(), rows.max() + 1), slice(cols.min(), cols.max() + 1))


def _direction(ys: Array, xs: Array, target: tuple[slice, slice]) -> tuple[int, int]:
    """Unit step from the cells' box towards another box: straight if their rows or columns overlap, else diagonal."""
    tr, tc = target
    return (_step(ys.min(), ys.max() + 1, tr.start, tr.stop), _step(xs.min(), xs.max() + 1, tc.start, tc.stop))


def attract(g: Array, c: int) -> Array | None:
    """Slide every object not of colour c towards the colour-c cells until it touches them (None if one never does)."""
    found = _anchor(g, c)
    if found is None:
        return None
    anchor, target = found
    out = np.where(anchor, g, 0)
    movers = _movers(g, anchor)
    if not movers:
        return None
    near = _near(anchor)
    for ys, xs in movers:
        dy, dx = _direction(ys, xs, target)
        steps, _ = _steps_to_touch(near, ys, xs, dy, dx)
        if steps is None:
            return None
        out[ys + steps * dy, xs + steps * dx] = g[ys, xs]
    return out


def shoot(g: Array, c: int) -> Array | None:
    """From every object in line with the colour-c cells (rows or columns overlapping), draw its trail up to them."""
    found = _anchor(g, c)
    if found is None:
        return None
    anchor, target = found
    out = g.copy()
    near = _near(anchor)
    drawn = False
    for ys, xs in _movers(g, anchor):
        dy, dx = _direction(ys, xs, target)
        if (dy == 0) == (dx == 0):  # overlapping the anchor's box, or only diagonal to it
            continue
        steps, room = _steps_to_touch(near, ys, xs, dy, dx)
        last = room if steps is None else steps
        if last == 0:
            continue
        k = np.arange(1, last + 1)[:, None]
        cells = ((ys + k * dy) * g.shape[1] + xs + k * dx).ravel()  # step by step, nearest first
        cells, first = np.unique(cells, return_index=True)  # a cell keeps the first colour drawn on it
        colours = np.tile(g[ys, xs], last)[first]
        flat = out.reshape(-1)
        flat[cells] = np.where(flat[cells] == 0, colours, flat[cells])
        drawn = True
    return out if drawn else None


def _mirror_of(anchor: Array) -> tuple[int | None, int | None] | None:
    """The row and the column to reflect across (None: not across that axis), given the
    mirror's cells: a cell, across both (in a grid of one row or column, along it only); a
    run of cells in one row, across that row (up and down); a run in one column, across that
    column; None for any other shape."""
    rows, cols = np.nonzero(anchor)
    y, x = int(rows[0]), int(cols[0])
    one_row, one_col = bool((rows == y).all()), bool((cols == x).all())
    h, w = anchor.shape
    if one_row and one_col:
        return (None if h == 1 else y), (None if w == 1 else x)
    if one_row and rows.size == cols.max() - cols.min() + 1:
        return y, None
    if one_col and rows.size == rows.max() - rows.min() + 1:
        return None, x
    return None


def reflect_through(g: Array, c: int, keep: int) -> Array | None:
    """Reflect all else through the colour-c mirror (a cell or a straight line of cells); keep 1 keeps the originals."""
    found = _anchor(g, c)
    if found is None:
        return None
    anchor = found[0]
    mirror = _mirror_of(anchor)
    if mirror is None:
        return None
    ys, xs = np.nonzero((g != 0) & ~anchor)
    if ys.size == 0:
        return None
    my, mx = mirror
    ty = ys if my is None else 2 * my - ys
    tx = xs if mx is None else 2 * mx - xs
    h, w = g.shape
    if ty.min() < 0 or tx.min() < 0 or ty.max() >= h or tx.max() >= w or anchor[ty, tx].any():
        return None  # a reflected cell off the grid or on the mirror
    out = g.copy() if keep else np.where(anchor, g, 0).astype(g.dtype)
    out[ty, tx] = g[ys, xs]
    return None if np.array_equal(out, g) else out
