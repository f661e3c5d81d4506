"""Completing objects and patterns: each object made whole by its own symmetry, and
patterns continued inside the region they partly fill.

`mirror_objects` finds each object's own axis or centre (not the grid's) as the one its
cells agree with most; `mirror_about_core` mirrors an object about the centre of its
symmetric part of one colour, `mirror_across_marker` across the edge its marker colour
marks, `reflect_across_wall` across the nearest straight stretch of a wall colour that
spans it (into a bracket, or out of one); `corner_rays` continues an L's open corner
diagonally; `continue_band` repeats the band of rows (or columns) that holds the content
along it, with the band's own period; `repeat_runs` repeats each row's or column's run of
several colours along its line; `seed_stripes` draws lines through cells spaced evenly along
the grid and repeats them to its far edge; `key_stripes` paints the empty lines in turn in
the colours of a key line on one side; `diagonal_fill` fills a grid whose colours repeat
along diagonals; `close_dashes` fills the gaps of the rows and columns that are more than
half drawn in one colour; `paint_cluster_boxes` paints the cells of other colours in the box
of a shape that noise breaks up. The whole-grid completions are in
`arcsolve.dsl.primitives.completion`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import same_shapes, still_colours
from arcsolve.dsl.primitives.drawing import NEIGHBOURS
from arcsolve.dsl.primitives.objects import label, label_boxes, objects

Array = np.ndarray

GROUPS = ("h", "v", "hv", "rot")
_MAX_WORK = 30_000  # centres x cells x transforms tried for one object; larger objects: None
_MAX_CLUSTER_CELLS = 80  # more cells of the colour: `paint_cluster_boxes` does not apply
_MIN_DASHES = 3  # fewer cells of a colour in a row: not a dashed line (`close_dashes`)
_TRANSFORMS = {"h": ("h",), "v": ("v",), "hv": ("h", "v", "180"), "rot": ("90", "180", "270")}


def _image(ys: Array, xs: Array, sy: Array, sx: Array, transform: str) -> tuple[Array, Array]:
    """The images (Y, X), each (centres, cells), of cells (ys, xs) under a mirror (h, v) or
    a turn (90, 180, 270 degrees) about the centres (sy / 2, sx / 2)."""
    sy, sx = sy[:, None], sx[:, None]
    if transform == "h":
        return ys + 0 * sx, sx - xs
    if transform == "v":
        return sy - ys, xs + 0 * sy
    if transform == "180":
        return sy - ys, sx - xs
    dy, dx = (sy - sx) // 2, (sy + sx) // 2  # a quarter turn: (y, x) -> (dy + x, dx - y)
    return (dy + xs, dx - ys) if transform == "90" else (dx - xs, ys - dy)


@lru_cache(maxsize=4096)
def _centres(top: int, bottom: int, left: int, right: int, group: str) -> tuple[Array, Array]:
    """Twice the coordinates of every centre (or axis) that the group can use inside the box
    of rows top..bottom - 1 and columns left..right - 1."""
    sy = np.arange(2 * top, 2 * bottom - 1) if group != "h" else np.array([0])
    sx = np.arange(2 * left, 2 * right - 1) if group != "v" else np.array([0])
    sy, sx = np.repeat(sy, sx.size), np.tile(sx, sy.size)
    if group == "rot":  # a quarter turn maps cells to cells only about a centre with this parity
        keep = (sy - sx) % 2 == 0
        sy, sx = sy[keep], sx[keep]
    return sy, sx


def _best_centre(framed: Array, m: int, ys: Array, xs: Array, box: tuple[slice, slice], group: str,
                 free: int):
    """The images of the object's cells about the one centre whose images stay in the grid,
    each on its own colour or on a `free` cell, that agree with the most other cells; None if
    no centre or a tie. The grid comes `framed` by m cells of -1 (m its longer side: no image
    lands further off)."""
    rows, cols = box
    sy, sx = _centres(rows.start, rows.stop, cols.start, cols.stop, group)
    if sy.size * ys.size * len(_TRANSFORMS[group]) > _MAX_WORK:
        return None
    colours = framed[ys + m, xs + m]
    agree = np.zeros(sy.size, dtype=int)
    alive = np.arange(sy.size)
    for transform in _TRANSFORMS[group]:  # centres that fail one transform are dropped at once
        y, x = _image(ys, xs, sy[alive], sx[alive], transform)
        seen = framed[y + m, x + m]
        same = seen == colours
        fine = (same | (seen == free)).all(1)
        agree[alive] += (same & ((y != ys) | (x != xs))).sum(1)  # a cell on the axis proves nothing
        alive = alive[fine]
        if alive.size == 0:
            return None
    best = agree[alive].max()
    winners = alive[agree[alive] == best]
    if winners.size > 1:
        return None
    images = (_image(ys, xs, sy[winners], sx[winners], transform) for transform in _TRANSFORMS[group])
    return [(y[0], x[0]) for y, x in images]


def _occluders(g: Array) -> Array:
    """The cells of each object's least frequent colour, for objects of several colours (one
    colour covering part of the object)."""
    hidden = np.zeros(g.shape, dtype=bool)
    for o in objects(g, "multi8"):
        if len(o.colours) > 1:
            counts = np.bincount(g[o.mask], minlength=10)
            counts[counts == 0] = g.size
            hidden |= o.mask & (g == np.argmin(counts))
    return hidden


@grid_memo()
def _mirrored(g: Array, group: str, occluded: bool) -> tuple[Array, Array] | None:
    """The grid with each object's images added, and the mask of the cells added; None if an
    object has no one best centre or two images of different colours meet. Images go onto
    zero cells, or if `occluded` onto the occluders (then erased) but not onto zero cells."""
    hidden = _occluders(g) if occluded else np.zeros(g.shape, dtype=bool)
    known = np.where(hidden, 0, g).astype(g.dtype)
    (h, w), m = g.shape, max(g.shape)
    framed = np.full((h + 2 * m, w + 2 * m), -1, dtype=np.int8)
    framed[m : m + h, m : m + w] = np.where(hidden, -2, known)
    out = known.copy()
    painted = []
    for o in objects(g, "multi8"):
        rows, cols = o.box
        ys, xs = np.nonzero(o.mask[o.box] & (known[o.box] != 0))
        if ys.size < 2:  # a cell alone is its own mirror image
            continue
        ys, xs = ys + rows.start, xs + cols.start
        images = _best_centre(framed, m, ys, xs, o.box, group, -2 if occluded else 0)
        if images is None:
            return None
        for y, x in images:
            new = known[y, x] == 0
            out[y[new], x[new]] = known[ys[new], xs[new]]
            painted.append((y[new], x[new], known[ys[new], xs[new]]))
    if any((out[y, x] != c).any() for y, x, c in painted):  # two cells, one image
        return None
    return out, out != known


def mirror_objects(g: Array, group: str, colour: int) -> Array | None:
    """Complete each object's symmetry (h, v, hv, rot) about its own axis; colour 0: mirrored, -1: occluders erased."""
    found = _mirrored(g, group, colour < 0)
    if found is None:
        return None
    out, added = found
    if colour > 0:
        out = np.where(added, colour, out).astype(g.dtype)
    return None if np.array_equal(out, g) else out.copy()


def _core(g: Array, mask: Array) -> Array | None:
    """Of an object's colours, the one whose cells are symmetric in both mirrors about their own
    box's centre, the one with fewest cells if several; None if none or a tie."""
    best: list[tuple[int, int]] = []
    for c in np.unique(g[mask]).tolist():
        part = mask & (g == c)
        ys, xs = np.nonzero(part)
        box = part[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
        if np.array_equal(box, box[::-1]) and np.array_equal(box, box[:, ::-1]):
            best.append((ys.size, c))
    best.sort()
    if not best or (len(best) > 1 and best[0][0] == best[1][0]):
        return None
    return mask & (g == best[0][1])


@grid_memo()
def mirror_about_core(g: Array) -> Array | None:
    """Mirror each many-coloured object in both axes and about the centre of its symmetric core colour."""
    h, w = g.shape
    out = g.copy()
    many = [o for o in objects(g, "multi8") if len(o.colours) > 1]
    if not many:
        return None
    for o in many:
        core = _core(g, o.mask)
        if core is None:
            return None
        ys, xs = np.nonzero(core)
        sy, sx = ys.min() + ys.max(), xs.min() + xs.max()
        cy, cx = np.nonzero(o.mask)
        for y, x in ((sy - cy, cx), (cy, sx - cx), (sy - cy, sx - cx)):
            if y.min() < 0 or y.max() >= h or x.min() < 0 or x.max() >= w:
                return None
            free = out[y, x] == 0
            out[y[free], x[free]] = g[cy[free], cx[free]]
    return out  # unchanged where every object was whole already


_HEADINGS = MappingProxyType({"ul": (-1, -1), "ur": (-1, 1), "dl": (1, -1), "dr": (1, 1)})


def colour_ray(g: Array, colour: int, heading: str) -> Array | None:
    """Shoot a diagonal ray (ul, ur, dl, dr) from the foremost cell of each `colour` object up to an obstacle."""
    dy, dx = _HEADINGS[heading]
    h, w = g.shape
    out = g.copy()
    drawn = False
    for o in objects(g, "colour4"):
        if o.colours != (colour,):
            continue
        ys, xs = np.nonzero(o.mask)
        ahead = dy * ys + dx * xs
        for y, x in zip(ys[ahead == ahead.max()].tolist(), xs[ahead == ahead.max()].tolist(), strict=True):
            y, x = y + dy, x + dx
            while 0 <= y < h and 0 <= x < w and g[y, x] == 0:
                out[y, x] = colour
                drawn = True
                y, x = y + dy, x + dx
    return out if drawn else None


def _marker_axis(main: Array, marker: Array) -> tuple[str, int] | None:
    """The line between an object's main part and its marker, if the marker lies wholly beyond
    one side of the main part's box: ('h', sx) for the column sx / 2 (a left-right mirror),
    ('v', sy) for the row sy / 2."""
    my, mx = np.nonzero(main)
    ky, kx = np.nonzero(marker)
    if kx.min() > mx.max():
        return "h", 2 * mx.max() + 1
    if kx.max() < mx.min():
        return "h", 2 * mx.min() - 1
    if ky.min() > my.max():
        return "v", 2 * my.max() + 1
    if ky.max() < my.min():
        return "v", 2 * my.min() - 1
    return None


@grid_memo()
def mirror_across_marker(g: Array) -> Array | None:
    """Reflect each two-coloured object's main colour across the edge where its marker colour lies, over the marker."""
    h, w = g.shape
    out = g.copy()
    pairs = [o for o in objects(g, "multi8") if len(o.colours) == 2]
    if not pairs:
        return None
    for o in pairs:
        counts = np.bincount(g[o.mask], minlength=10)
        first, second = o.colours
        if counts[first] == counts[second]:
            return None
        colour = first if counts[first] > counts[second] else second
        main = o.mask & (g == colour)
        axis = _marker_axis(main, o.mask & ~main)
        if axis is None:
            return None
        ys, xs = np.nonzero(main)
        mirror, at = axis
        y, x = (at - ys, xs) if mirror == "v" else (ys, at - xs)
        out[o.mask & ~main] = 0
        if y.min() < 0 or y.max() >= h or x.min() < 0 or x.max() >= w or (out[y, x] != 0).any():
            return None  # the image leaves the grid or lands on another object
        out[y, x] = colour
    return out


def _spines(wall: Array) -> Array:
    """The straight stretches of a wall, one row each of an (m, 4) array: axis (0 along a row,
    1 along a column), the line's index, and the stretch's start and stop along it, for each
    run of at least two wall cells."""
    found = []
    for axis, mask in ((0, wall), (1, wall.T)):
        steps = np.diff(np.pad(mask, ((0, 0), (1, 1))).astype(np.int8), axis=1)
        starts, stops = np.argwhere(steps == 1), np.argwhere(steps == -1)  # paired, in reading order
        long = stops[:, 1] - starts[:, 1] >= 2
        found.append(np.column_stack((np.full(long.sum(), axis), starts[long, 0], starts[long, 1], stops[long, 1])))
    return np.concatenate(found)


def reflect_across_wall(g: Array, c: int) -> Array | None:
    """Reflect each object across the nearest straight stretch of colour c that spans it, into a bracket or out."""
    # objects: 8-connected cells of colours other than c; a stretch (`_spines`) spans an object
    # that lies within it along its length, all on one side of it. An object that no stretch
    # spans, or two as near, stays. None if nothing moves, or an image leaves the grid or
    # lands on a cell that is not cleared.
    wall = g == c
    spines = _spines(wall)
    if not len(spines):
        return None
    lab, n = label(g, (g != 0) & ~wall, diagonal=True, by_colour=False)
    if n == 0:
        return None
    top, left, bottom, right = (v[:, None] for v in label_boxes(lab, n))  # (n, 1); bottom, right exclusive
    axis, line, start, stop = spines.T  # (m,)
    rows = axis == 0
    along_lo, along_hi = np.where(rows, left, top), np.where(rows, right, bottom)  # (n, m)
    across_lo, across_hi = np.where(rows, top, left), np.where(rows, bottom, right) - 1
    spans = (along_lo >= start) & (along_hi <= stop) & ((line < across_lo) | (line > across_hi))
    far = g.shape[0] + g.shape[1]
    distance = np.where(spans, np.where(line < across_lo, across_lo - line, line - across_hi), far)
    nearest = distance.min(1)
    moves = (nearest < far) & ((distance == nearest[:, None]).sum(1) == 1)
    if not moves.any():
        return None
    ys, xs = np.nonzero(lab)
    which = lab[ys, xs] - 1
    ys, xs, which = ys[moves[which]], xs[moves[which]], which[moves[which]]
    mirror = distance.argmin(1)[which]
    across = rows[mirror]
    to_y = np.where(across, 2 * line[mirror] - ys, ys)
    to_x = np.where(across, xs, 2 * line[mirror] - xs)
    h, w = g.shape
    if to_y.min() < 0 or to_x.min() < 0 or to_y.max() >= h or to_x.max() >= w:
        return None
    out = g.copy()
    out[ys, xs] = 0
    if (out[to_y, to_x] != 0).any() or np.unique(to_y * w + to_x).size != ys.size:
        return None  # an image lands on another cell, or two images overlap
    out[to_y, to_x] = g[ys, xs]
    return out


def _band_period(band: Array, whole: bool) -> int:
    """The smallest shift p under which the band's columns repeat (each column equal to the
    one p further on), or with `whole` the band's width."""
    w = band.shape[1]
    if whole:
        return w
    return next((p for p in range(1, w) if np.array_equal(band[:, p:], band[:, :-p])), w)


def continue_band(g: Array, axis: str, whole: bool) -> Array | None:
    """Repeat the content's band of rows (axis h) or columns (v) along the grid with its own period."""
    t = g if axis == "h" else g.T
    rows, cols = np.flatnonzero(t.any(1)), np.flatnonzero(t.any(0))
    if rows.size == 0:
        return None
    (top, bottom), (left, right) = rows[[0, -1]], cols[[0, -1]]
    band = t[top : bottom + 1, left : right + 1]
    p = _band_period(band, whole)
    out = t.copy()
    out[top : bottom + 1] = band[:, (np.arange(t.shape[1]) - left) % p]
    out = out if axis == "h" else out.T
    return None if np.array_equal(out, g) else np.ascontiguousarray(out)


def _repeated_rows(t: Array) -> Array | None:
    """Each row's one run of several colours (adjacent non-zero cells) repeated over the row's
    zeros with the run's length as period; None if a row holds two such runs."""
    out = t.copy()
    nz = t != 0
    mixed = nz[:, 1:] & nz[:, :-1] & (t[:, 1:] != t[:, :-1])  # two adjacent colours
    x = np.arange(t.shape[1])
    for y in np.flatnonzero(mixed.any(1)):
        row = t[y]
        edges = np.flatnonzero(np.diff(np.concatenate(([0], nz[y].view(np.int8), [0]))))
        runs = [(s, e) for s, e in zip(edges[::2], edges[1::2], strict=True) if mixed[y, s : e - 1].any()]
        if len(runs) > 1:
            return None
        (s, e), = runs
        out[y] = np.where(row == 0, row[s + (x - s) % (e - s)], row)
    return out


def repeat_runs(g: Array, axis: str) -> Array | None:
    """Repeat each row's (h), column's (v) or both's (hv) run of several colours along its line over zeros."""
    rows = _repeated_rows(g) if "h" in axis else g
    columns = _repeated_rows(g.T) if "v" in axis else g.T
    if rows is None or columns is None:
        return None
    columns = columns.T
    across, down = rows != g, columns != g
    if (across & down & (rows != columns)).any():
        return None  # a row and a column disagree on a cell
    out = np.where(down, columns, rows)
    return None if np.array_equal(out, g) else np.ascontiguousarray(out)


@grid_memo()
def seed_stripes(g: Array) -> Array | None:
    """Lines across the shorter side through cells equally spaced along the longer, repeated in turn to the far edge."""
    h, w = g.shape
    if h == w:
        return None
    t = g if w > h else g.T
    ys, xs = np.nonzero(t)
    order = np.argsort(xs)
    xs, colours = xs[order], t[ys, xs][order]
    if xs.size < 2 or np.unique(xs).size != xs.size:
        return None
    gaps = np.diff(xs)
    if (gaps != gaps[0]).any():
        return None
    at = np.arange(xs[0], t.shape[1], gaps[0])
    out = np.zeros_like(t)
    out[:, at] = colours[np.arange(at.size) % colours.size]
    out = out if t is g else out.T
    return None if np.array_equal(out, g) else np.ascontiguousarray(out)


_SIDES = MappingProxyType({"top": (False, False), "bottom": (True, False), "left": (False, True),
                           "right": (True, True)})  # flipped, transposed: the side's line comes first


def key_stripes(g: Array, side: str) -> Array | None:
    """Paint the empty lines in turn in the colours of the full key line on a side ('top', ...), cyclically."""
    flipped, transposed = _SIDES[side]
    t = g.T if transposed else g
    t = t[::-1] if flipped else t
    key = t[0]
    empty = np.flatnonzero(~t.any(1))
    if key.size < 2 or not key.all() or not empty.size:
        return None
    out = t.copy()
    out[empty] = key[np.arange(empty.size) % key.size, None]
    out = out[::-1] if flipped else out
    return np.ascontiguousarray(out.T if transposed else out)


def _dash_gaps(g: Array, boxed: bool) -> Array:
    """(h, w): for each zero cell in the span of a dashed row, the colour of that row's dashes
    (0 elsewhere). A row's cells of one colour make a dashed line if there are at least
    `_MIN_DASHES` of them and they fill more than half of its span: from the first to the
    last, or with `boxed` the columns of the bounding box of all the grid's cells of that
    colour (a dashed frame whose corner is missing)."""
    gaps = np.zeros_like(g)
    xs = np.arange(g.shape[1])
    for k in np.unique(g[g != 0]).tolist():
        mask = g == k
        count = mask.sum(axis=1)
        first = np.where(mask.any(axis=1), mask.argmax(axis=1), 0)
        last = g.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)
        if boxed:
            present = np.flatnonzero(mask.any(axis=0))
            first, last = np.full_like(first, present[0]), np.full_like(last, present[-1])
        dashed = (count >= _MIN_DASHES) & (2 * count > last - first + 1)
        span = dashed[:, None] & (xs >= first[:, None]) & (xs <= last[:, None]) & (g == 0) & (gaps == 0)
        gaps[span] = k
    return gaps


@grid_memo()
def _dashed_gaps(g: Array, boxed: bool) -> Array:
    """The gaps of the grid's dashed rows and columns (`_dash_gaps`), each in its line's colour
    (a row's where a row and a column cross); asked once per grid for every colour c."""
    rows = _dash_gaps(g, boxed)
    return np.where(rows != 0, rows, _dash_gaps(g.T, boxed).T)


def close_dashes(g: Array, c: int, boxed: bool) -> Array | None:
    """Colour c (-1: the line's own) into the gaps of each dashed row and column (`_dash_gaps`)."""
    gaps = _dashed_gaps(g, boxed)
    if not gaps.any():
        return None
    out = g.copy()
    out[gaps != 0] = gaps[gaps != 0] if c < 0 else c
    return out


def _clusters(ys: Array, xs: Array) -> Array:
    """Each of the cells (ys, xs) labelled by its group, where the cells of a group lie at most
    one cell apart (Chebyshev distance 2), as the lowest index in the group: every cell takes
    its nearby cells' least label until none changes (for at most `_MAX_CLUSTER_CELLS` cells;
    importing `scipy.sparse.csgraph` for its connected components would add some 18 MB to
    each worker)."""
    near = (np.abs(ys[:, None] - ys) <= 2) & (np.abs(xs[:, None] - xs) <= 2)
    group = np.arange(ys.size)
    while True:
        least = np.where(near, group, ys.size).min(axis=1)
        if np.array_equal(least, group):
            return group
        group = least


@grid_memo()
def _cluster_box_cells(g: Array, k: int) -> Array | None:
    """The cells not of colour k in the box of each cluster of k cells (`_clusters`); None if
    there are none, or too many cells of colour k. Asked once per grid and colour k."""
    ys, xs = np.nonzero(g == k)
    if not 0 < ys.size <= _MAX_CLUSTER_CELLS:
        return None
    group = _clusters(ys, xs)
    inside = np.zeros(g.shape, dtype=bool)
    for i in np.unique(group).tolist():
        y, x = ys[group == i], xs[group == i]
        inside[y.min() : y.max() + 1, x.min() : x.max() + 1] = True
    inside &= g != k
    return inside if inside.any() else None


def paint_cluster_boxes(g: Array, k: int, c: int) -> Array | None:
    """Colour c over the cells not of colour k in the box of each cluster of k cells at most one cell apart."""
    cells = _cluster_box_cells(g, k)
    if cells is None or (g[cells] == c).all():
        return None
    out = g.copy()
    out[cells] = c
    return out


def _diagonal_motif(ys: Array, xs: Array, colours: Array, step: int) -> Array | None:
    """The smallest p for which the cells' colours depend on (y + step * x) mod p alone, every
    class known, as the colours of the p classes; None if there is none below 10."""
    lines = ys + step * xs
    if np.unique(lines).size != np.unique(lines * 10 + colours).size:  # a line of two colours
        return None
    for p in range(2, 10):
        classes = lines % p
        motif = np.full(p, -1)
        motif[classes] = colours
        if (motif >= 0).all() and (motif[classes] == colours).all():
            return motif
    return None


@grid_memo()
def diagonal_fill(g: Array) -> Array | None:
    """Fill the zero cells from the colours repeating along the grid's diagonals (or anti-diagonals)."""
    ys, xs = np.nonzero(g)
    if ys.size == 0 or ys.size == g.size:
        return None
    fills = []
    for step in (1, -1):  # anti-diagonals (y + x constant), then diagonals
        motif = _diagonal_motif(ys, xs, g[ys, xs], step)
        if motif is not None:
            fills.append((motif.size, step, motif))
    if not fills:
        return None
    _, step, motif = min(fills, key=lambda f: f[0])
    y, x = np.indices(g.shape)
    return motif[(y + step * x) % motif.size].astype(g.dtype)


def corner_rays(g: Array) -> Array | None:
    """Shoot a diagonal ray out of the open corner of each L of three cells (2x2 less one) up to an obstacle."""
    h, w = g.shape
    padded = np.zeros((h + 2, w + 2), dtype=g.dtype)
    padded[1:-1, 1:-1] = g
    solid = (padded != 0).view(np.int8)
    around = sum(solid[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w] for dy, dx in NEIGHBOURS["box"])
    open_corners = (g == 0) & (around == 3)
    if not open_corners.any():
        return None
    out = g.copy()
    for dy, dx in NEIGHBOURS["diag"]:
        colour = padded[1 - dy : 1 - dy + h, 1 - dx : 1 - dx + w]  # the cell across the box
        beside = (padded[1 - dy : 1 - dy + h, 1 : 1 + w] == colour) & (padded[1 : 1 + h, 1 - dx : 1 - dx + w] == colour)
        corner = open_corners & (colour != 0) & beside
        for y, x in zip(*np.nonzero(corner), strict=True):
            c = colour[y, x]
            y, x = y + dy, x + dx
            while 0 <= y < h and 0 <= x < w and g[y, x] == 0:
                out[y, x] = c
                y, x = y + dy, x + dx
    return None if np.array_equal(out, g) else out


def _object_symmetries(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Every group with the mirrored colours kept, with each colour new in the targets, and with
    occluders erased where the task loses a colour; for grids and targets of one size only."""
    if not same_shapes(grids, targets):
        return []
    new = [c for c in facts.drawn if c not in facts.in_colours]
    colours = [0, *new, *([-1] if facts.lost_colours else [])]
    return list(product(GROUPS, colours))


def _bands(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Both axes, by the smallest period and by the whole band, for grids and targets of one size only."""
    if not same_shapes(grids, targets):
        return []
    return list(product(("h", "v"), (False, True)))


REGISTRY: tuple = (
    (mirror_objects, "object_symmetry", "same"),
    (mirror_about_core, "none", "same"),
    (continue_band, "band", "same"),
    (diagonal_fill, "none", "same"),
    (corner_rays, "none", "same"),
    (mirror_across_marker, "none", "same"),
    (reflect_across_wall, "mirror_wall", "same"),
    (colour_ray, "colour_heading", "same"),
    (repeat_runs, "run_axes", "same"),
    (seed_stripes, "none", "same"),
    (key_stripes, "key_sides", "same"),
    (close_dashes, "dash_colour", "same"),
    (paint_cluster_boxes, "cluster_colours", "same"),
)

PARAM_KINDS: dict = {
    "cluster_colours": lambda grids, targets, facts: list(
        product(still_colours(grids, targets), sorted(set(facts.drawn) | set(facts.recoloured)))),
    "dash_colour": lambda grids, targets, facts: (
        list(product([*facts.drawn, -1], (False, True))) if facts.drawn and same_shapes(grids, targets) else []),
    "object_symmetry": _object_symmetries,
    "band": _bands,
    "key_sides": lambda grids, targets, facts: [(side,) for side in _SIDES] if same_shapes(grids, targets) else [],
    "run_axes": lambda grids, targets, facts: [(a,) for a in ("h", "v", "hv")] if same_shapes(grids, targets) else [],
    "mirror_wall": lambda grids, targets, facts: [(c,) for c in still_colours(grids, targets)],
    "colour_heading": lambda grids, targets, facts: list(
        product(sorted(set(facts.drawn) & set(facts.in_colours) - {0}), _HEADINGS)
    ),
}
