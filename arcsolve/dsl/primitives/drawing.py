"""Drawing on a grid: halos around cells, rays to the grid's edges (along the axes each
colour has, too), filled or outlined bounding boxes, their centres, the midpoints between
two cells of a colour, the insides of solid shapes. Each draws only over zero cells
unless it says otherwise."""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.objects import objects

Array = np.ndarray

# The neighbours (dy, dx) of a cell: across its edges ('plus'), its corners ('diag') or both
# ('box'); a halo covers one of these sets.
NEIGHBOURS = MappingProxyType({
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


def _padded(mask: Array) -> Array:
    """The mask with a ring of False around it (as np.pad, without its overhead)."""
    h, w = mask.shape
    out = np.zeros((h + 2, w + 2), dtype=bool)
    out[1:-1, 1:-1] = mask
    return out


def _neighbours(mask: Array, offsets) -> Array:
    """Cells that have a `mask` cell at one of the offsets (dy, dx) from them."""
    h, w = mask.shape
    padded = _padded(mask)
    out = np.zeros_like(mask)
    for dy, dx in offsets:
        out |= padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return out


@grid_memo()
def _halo_cells(g: Array, src: int, shape: str) -> Array | None:
    """The zero cells that have a cell of colour src (any non-zero colour if src is 0) among their
    `shape` neighbours (None if no such cell)."""
    mask = g == src if src else g != 0
    if not mask.any():
        return None
    return _neighbours(mask, NEIGHBOURS[shape]) & (g == 0)


def halo(g: Array, src: int, c: int, shape: str) -> Array | None:
    """Colour c into the zero cells next to a cell of colour src (0: any) by 'plus', 'diag' or 'box'."""
    cells = _halo_cells(g, src, shape)
    return None if cells is None else np.where(cells, np.asarray(c, dtype=g.dtype), g)


@lru_cache(maxsize=256)
def lines_along(h: int, w: int, dy: int, dx: int) -> tuple[Array, Array, int]:
    """For direction (dy, dx) on an h x w grid: each cell's line along it (0 .. n - 1), its
    step along that line, and n."""
    ys, xs = np.indices((h, w))
    line = xs * dy - ys * dx + h + w
    step = ys * dy + xs * dx
    line.flags.writeable = step.flags.writeable = False
    return line, step, 2 * (h + w) + 1


# Each option's ray directions as (line direction, end): end 1 goes along the line from its
# first source, -1 back from its last. Listed from the direction that draws last (and so
# wins where two meet) to the one that draws first.
_RAY_LINES = MappingProxyType({
    "h": (((0, 1), -1), ((0, 1), 1)),
    "v": (((1, 0), -1), ((1, 0), 1)),
    "hv": (((1, 0), -1), ((1, 0), 1), ((0, 1), -1), ((0, 1), 1)),
    "diag": (((1, 1), -1), ((1, -1), -1), ((1, -1), 1), ((1, 1), 1)),
})


def rays(g: Array, src: int, dirs: str) -> Array | None:
    """From each cell of colour src (each non-zero cell if src is 0), draw its colour over zeros to the edges."""
    sources = g == src if src else g != 0
    if not sources.any():
        return None
    h, w = g.shape
    if src:  # one colour: a cell is drawn if its line has a source other than itself
        passed = np.zeros(g.shape, dtype=bool)
        for dy, dx in {d for d, _ in _RAY_LINES[dirs]}:
            line, _, n = lines_along(h, w, dy, dx)
            passed |= np.bincount(line[sources], minlength=n)[line] > sources
        return np.where(passed & (g == 0), np.asarray(src, dtype=g.dtype), g)
    # many colours: within a direction the farthest source draws last, so a cell gets the
    # colour of its line's first source behind it; later directions draw over earlier ones
    out = g
    codes = {}
    for (dy, dx), end in _RAY_LINES[dirs]:
        line, step, n = lines_along(h, w, dy, dx)
        if (dy, dx) not in codes:  # step * 16 + colour of the line's first and last source
            coded = step[sources] * 16 + g[sources]
            first, last = np.full(n, 64 * (h + w)), np.full(n, -64 * (h + w))
            np.minimum.at(first, line[sources], coded)
            np.maximum.at(last, line[sources], coded)
            codes[dy, dx] = first[line], last[line]
        first, last = codes[dy, dx]
        edge = first if end == 1 else last
        passed = step > edge // 16 if end == 1 else step < edge // 16
        out = np.where(passed & (out == g) & (g == 0), (edge % 16).astype(g.dtype), out)
    return out


def line_rays(g: Array, axes: tuple[tuple[int, str], ...], last: str) -> Array | None:
    """Full rows ('h'), columns ('v') or both through each cell, by a learned table of its colour's axes; last wins."""
    table = dict(axes)
    present = [int(c) for c in np.unique(g) if c]
    if not present or any(c not in table for c in present):
        return None
    out = g.copy()
    for axis in ("v", "h") if last == "h" else ("h", "v"):
        lines = g.T if axis == "v" else g
        colour = np.zeros(lines.shape[0], dtype=g.dtype)
        for c in present:
            if axis in table[c]:
                has = (lines == c).any(1)
                if (has & (colour != 0)).any():  # two colours want one line
                    return None
                colour[has] = c
        drawn = colour[None, :] if axis == "v" else colour[:, None]
        out = np.where((g == 0) & (drawn != 0), drawn, out)
    return out


def fit_ray_axes(grids: list[Array], targets: list[Array]) -> tuple[tuple[int, str], ...] | None:
    """`line_rays`' table: each input colour's axes ('h', 'v', 'hv' or ''), those where most
    empty cells of the rows or columns through its cells take its colour in the targets (of
    those that no other colour takes); None if the shapes change or every colour has the
    same axes (plain rays)."""
    if any(g.shape != t.shape for g, t in zip(grids, targets, strict=True)):
        return None
    hits, totals = np.zeros((2, 10), dtype=np.int64), np.zeros((2, 10), dtype=np.int64)
    for g, t in zip(grids, targets, strict=True):
        for i, (a, b) in enumerate(((g, t), (g.T, t.T))):
            rows = np.arange(a.shape[0])[:, None] * 10
            has = np.bincount((rows + a).ravel(), minlength=a.shape[0] * 10).reshape(-1, 10) > 0
            empty = a == 0
            took = np.bincount((rows + b)[empty], minlength=a.shape[0] * 10).reshape(-1, 10)  # by target colour
            hits[i] += (has * took).sum(0)
            totals[i] += (has * (took[:, :1] + took)).sum(0)  # cells left empty or taking the colour
    present = sorted({int(c) for g in grids for c in np.unique(g)} - {0})
    axes = tuple((c, "".join(axis for i, axis in enumerate("hv") if totals[i, c] and 2 * hits[i, c] > totals[i, c]))
                 for c in present)
    return axes if len({axis for _, axis in axes}) > 1 else None


def centre_lines(g: Array, c: int) -> Array | None:
    """Colour c over the zeros of each object's middle row and column, grid-wide (None if one has no middle)."""
    objs = objects(g, "multi8")
    if not objs:
        return None
    rows, cols = np.zeros(g.shape[0], dtype=bool), np.zeros(g.shape[1], dtype=bool)
    for obj in objs:
        r, k = obj.box
        if (r.stop - r.start) % 2 == 0 or (k.stop - k.start) % 2 == 0:
            return None
        rows[(r.start + r.stop) // 2] = True
        cols[(k.start + k.stop) // 2] = True
    lines = rows[:, None] | cols[None, :]
    return np.where(lines & (g == 0), np.asarray(c, dtype=g.dtype), g)


def fill_bbox(g: Array, c: int, conn: str) -> Array | None:
    """Colour c into the zero cells inside each object's bounding box."""
    box = np.zeros(g.shape, dtype=bool)
    objs = objects(g, conn)
    if not objs:
        return None
    for obj in objs:
        box[obj.box] = True
    return np.where(box & (g == 0), c, g)


def outline_bbox(g: Array, c: int, conn: str) -> Array | None:
    """Colour c into the zero cells on the border of each object's bounding box."""
    objs = objects(g, conn)
    if not objs:
        return None
    ring = np.zeros(g.shape, dtype=bool)
    for obj in objs:
        rows, cols = obj.box
        ring[rows.start, cols] = ring[rows.stop - 1, cols] = True
        ring[rows, cols.start] = ring[rows, cols.stop - 1] = True
    return np.where(ring & (g == 0), np.asarray(c, dtype=g.dtype), g)


def mark_centres(g: Array, c: int, conn: str) -> Array | None:
    """Colour c into the centre cell of each object's box, whatever it holds (None if a side is even)."""
    objs = objects(g, conn)
    if not objs:
        return None
    out = g.copy()
    for obj in objs:
        rows, cols = obj.box
        if (rows.stop - rows.start) % 2 == 0 or (cols.stop - cols.start) % 2 == 0:
            return None
        out[(rows.start + rows.stop) // 2, (cols.start + cols.stop) // 2] = c
    return out


@grid_memo()
def _midpoint_cells(g: Array, shape: str) -> Array | None:
    """The cells halfway between the two cells of each colour that has two, with their `shape`
    neighbours ('dot': none); None if no colour has two cells with a cell halfway."""
    counts = np.bincount(g.ravel(), minlength=10)
    centres = np.zeros(g.shape, dtype=bool)
    for colour in np.flatnonzero(counts[1:] == 2) + 1:
        ys, xs = np.nonzero(g == colour)
        if (ys[0] + ys[1]) % 2 == 0 and (xs[0] + xs[1]) % 2 == 0:
            centres[(ys[0] + ys[1]) // 2, (xs[0] + xs[1]) // 2] = True
    if not centres.any():
        return None
    return centres | _neighbours(centres, NEIGHBOURS[shape]) if shape != "dot" else centres


def mark_midpoints(g: Array, c: int, shape: str) -> Array | None:
    """Colour c over zeros halfway between the two cells of each colour that has two, and its 'plus' or 'box' cells."""
    cells = _midpoint_cells(g, shape)
    return None if cells is None else np.where(cells & (g == 0), np.asarray(c, dtype=g.dtype), g)


def interior(g: Array, c: int) -> Array:
    """Recolour to c the non-zero cells whose eight neighbours are all non-zero (inside the grid)."""
    solid = _padded(g != 0)
    h, w = g.shape
    inside = g != 0
    for dy, dx in NEIGHBOURS["box"]:
        inside &= solid[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return np.where(inside, c, g)


def paint_empty_lines(g: Array, c: int) -> Array | None:
    """Colour c into every row and column that is all zero (None if there is none)."""
    empty = ~g.any(1)[:, None] | ~g.any(0)[None, :]
    if not empty.any() or empty.all():
        return None
    return np.where(empty, c, g)
