"""Drawing on a grid: halos around cells, rays to the grid's edges, filled bounding boxes,
the insides of solid shapes. Each draws only over zero cells unless it says otherwise."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.objects import objects

Array = np.ndarray

# The neighbours (dy, dx) that a halo covers.
_HALOS = MappingProxyType({
    "plus": ((0, 1), (1, 0), (0, -1), (-1, 0)),
    "diag": ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    "box": ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)),
})

# The directions (dy, dx) that rays go in.
_RAYS = MappingProxyType({
    "h": ((0, 1), (0, -1)),
    "v": ((1, 0), (-1, 0)),
    "hv": ((0, 1), (0, -1), (1, 0), (-1, 0)),
    "diag": ((1, 1), (1, -1), (-1, 1), (-1, -1)),
})


def _neighbours(mask: Array, offsets) -> Array:
    """Cells that have a `mask` cell at one of the offsets (dy, dx) from them."""
    h, w = mask.shape
    padded = np.pad(mask, 1)
    out = np.zeros_like(mask)
    for dy, dx in offsets:
        out |= padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return out


@grid_memo()
def _halo_cells(g: Array, src: int, shape: str) -> Array | None:
    """The zero cells that have a cell of colour src among their `shape` neighbours (None if no src)."""
    mask = g == src
    if not mask.any():
        return None
    return _neighbours(mask, _HALOS[shape]) & (g == 0)


def halo(g: Array, src: int, c: int, shape: str) -> Array | None:
    """Colour c into the zero cells next to a cell of colour src ('plus', 'diag' or 'box' neighbours)."""
    cells = _halo_cells(g, src, shape)
    return None if cells is None else np.where(cells, np.asarray(c, dtype=g.dtype), g)


def rays(g: Array, src: int, dirs: str) -> Array | None:
    """From each cell of colour src (each non-zero cell if src is 0), draw its colour over zeros to the edges."""
    ys, xs = np.nonzero(g == src if src else g != 0)
    if ys.size == 0:
        return None
    h, w = g.shape
    drawn = np.zeros_like(g)
    steps = np.arange(1, max(h, w))[:, None]
    for dy, dx in _RAYS[dirs]:
        ry, rx = ys[None] + dy * steps, xs[None] + dx * steps
        inside = (ry >= 0) & (ry < h) & (rx >= 0) & (rx < w)
        colours = np.broadcast_to(g[ys, xs][None], ry.shape)
        drawn[ry[inside], rx[inside]] = colours[inside]
    return np.where((drawn != 0) & (g == 0), drawn, g)


def fill_bbox(g: Array, c: int, conn: str) -> Array | None:
    """Colour c into the zero cells inside each object's bounding box."""
    box = np.zeros(g.shape, dtype=bool)
    objs = objects(g, conn)
    if not objs:
        return None
    for obj in objs:
        box[obj.box] = True
    return np.where(box & (g == 0), c, g)


def interior(g: Array, c: int) -> Array:
    """Recolour to c the non-zero cells whose eight neighbours are all non-zero (inside the grid)."""
    solid = np.pad(g != 0, 1)
    h, w = g.shape
    inside = g != 0
    for dy, dx in _HALOS["box"]:
        inside &= solid[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return np.where(inside, c, g)


def paint_empty_lines(g: Array, c: int) -> Array | None:
    """Colour c into every row and column that is all zero (None if there is none)."""
    empty = ~g.any(1)[:, None] | ~g.any(0)[None, :]
    if not empty.any() or empty.all():
        return None
    return np.where(empty, c, g)
