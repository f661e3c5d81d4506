"""Moving objects: every object slides, or draws its trail, straight towards an anchor colour until it touches it."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl.objects import objects

Array = np.ndarray


def _touches(mask: Array, anchor: Array) -> bool:
    """Whether a cell of mask is one of the eight neighbours of (or on) an anchor cell."""
    grown = mask.copy()
    grown[1:] |= mask[:-1]
    grown[:-1] |= mask[1:]
    wide = grown.copy()
    wide[:, 1:] |= grown[:, :-1]
    wide[:, :-1] |= grown[:, 1:]
    return bool((wide & anchor).any())


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


def _direction(box: tuple[slice, slice], target: tuple[slice, slice]) -> tuple[int, int]:
    """Unit step from a box towards another: straight if their rows or columns overlap, else diagonal."""
    (r, c), (tr, tc) = box, target
    return _step(r.start, r.stop, tr.start, tr.stop), _step(c.start, c.stop, tc.start, tc.stop)


def attract(g: Array, c: int) -> Array | None:
    """Slide every object not of colour c towards the colour-c cells until it touches them (None if one never does)."""
    found = _anchor(g, c)
    if found is None:
        return None
    anchor, target = found
    out = np.where(anchor, g, 0)
    movers = objects(np.where(anchor, 0, g), "multi8")
    if not movers:
        return None
    h, w = g.shape
    for o in movers:
        dy, dx = _direction(o.box, target)
        ys, xs = np.nonzero(o.mask)
        colours = g[ys, xs]
        mask = o.mask
        while not _touches(mask, anchor):
            if (dy, dx) == (0, 0):
                return None
            ys, xs = ys + dy, xs + dx
            if ys.min() < 0 or xs.min() < 0 or ys.max() >= h or xs.max() >= w:
                return None
            mask = np.zeros_like(anchor)
            mask[ys, xs] = True
        out[ys, xs] = colours
    return out


def shoot(g: Array, c: int) -> Array | None:
    """From every object in line with the colour-c cells (rows or columns overlapping), draw its trail up to them."""
    found = _anchor(g, c)
    if found is None:
        return None
    anchor, target = found
    out = g.copy()
    h, w = g.shape
    drawn = False
    for o in objects(np.where(anchor, 0, g), "multi8"):
        dy, dx = _direction(o.box, target)
        if (dy == 0) == (dx == 0):  # overlapping the anchor's box, or only diagonal to it
            continue
        ys, xs = np.nonzero(o.mask)
        colours = g[ys, xs]
        mask = o.mask
        while not _touches(mask, anchor):
            ys, xs = ys + dy, xs + dx
            if ys.min() < 0 or xs.min() < 0 or ys.max() >= h or xs.max() >= w:
                break
            mask = np.zeros_like(anchor)
            mask[ys, xs] = True
            out[ys, xs] = np.where(out[ys, xs] == 0, colours, out[ys, xs])
            drawn = True
    return out if drawn else None
