"""Measuring parts of a grid and drawing by the measure: the blocks between separator lines
by how many cells they hold, the colours as bars as long as their counts, objects by their
size or a property of it, the grid shrunk by the size of its uniform blocks, and every k-th
line of the grid recoloured.

`fill_blocks` fills each block of a lattice (`arcsolve.dsl.primitives.blocks.cut`) with one colour,
the fullest blocks' own or a key block's cells spread over the lattice; `block_tally`
gives one cell per block, its number of cells, for a learned colour map. `colour_bars`
draws a histogram of the colours; `compress` finds the block size that `downscale` is told;
`interior_by` paints object interiors with the codes of `objects.PROPERTIES`, and
`colour_size` marks the objects of one size; `recolour_stripes` recolours every k-th row
or column. Each is offered only where the train pairs show it could apply, so that it costs
the search little elsewhere.
"""

from __future__ import annotations

from functools import reduce
from itertools import product
from math import gcd

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import same_shapes
from arcsolve.dsl.primitives.blocks import cut
from arcsolve.dsl.primitives.drawing import interior
from arcsolve.dsl.primitives.objects import PROPERTIES, objects, property_codes

Array = np.ndarray

FILLS = ("fullest", "key")
BARS = ("all", "most")
COMPRESSED = ("grid", "content")
_MAX_PERIOD = 5  # the longest stripe period `recolour_stripes` is offered
_MAX_OBJECTS = 30  # more objects on a grid: no sizes offered for `colour_size`


# --- blocks between separator lines ---------------------------------------------------


@grid_memo()
def _lattice(g: Array) -> tuple[Array, Array, Array, Array] | None:
    """The blocks between full separator lines (`blocks.cut`): each cell's block row and
    column (-1 on a separator line) and each block's cells of each colour, separator not
    counted, as an (n rows, n columns, 10) array; None without separators."""
    found = cut(g)
    if found is None:
        return None
    sep = found[0]
    lines = (g == sep).all(1), (g == sep).all(0)
    index = []
    for line in lines:  # a block starts on each non-separator cell after a separator (or the edge)
        starts = ~line & np.concatenate(([True], line[:-1]))
        index.append(np.where(line, -1, starts.cumsum() - 1))
    rows, cols = index
    inside = (rows[:, None] >= 0) & (cols[None, :] >= 0) & (g != sep)
    n_rows, n_cols = rows.max() + 1, cols.max() + 1
    code = (rows[:, None] * n_cols + cols[None, :]) * 10 + g
    counts = np.bincount(code[inside], minlength=n_rows * n_cols * 10).reshape(n_rows, n_cols, 10)
    return rows, cols, counts, lines[0][:, None] | lines[1][None, :]


def _fill(g: Array, rows: Array, cols: Array, colours: Array, lines: Array) -> Array:
    """The grid with each block filled with its colour in `colours` (n rows, n columns)."""
    return np.where(lines, g, colours[rows[:, None], cols[None, :]]).astype(g.dtype)


def fill_blocks(g: Array, how: str) -> Array | None:
    """Fill blocks between separator lines: the fullest with its colour, others 0, or by the emptiest ('key')."""
    found = _lattice(g)
    if found is None:
        return None
    rows, cols, counts, lines = found
    cells = counts[..., 1:].sum(2)
    if how == "fullest":
        if cells.max() == 0:
            return None
        main = counts[..., 1:].argmax(2) + 1  # the smallest colour on a tie
        return _fill(g, rows, cols, np.where(cells == cells.max(), main, 0), lines)
    emptiest = np.flatnonzero(cells == cells.min())
    if emptiest.size != 1:
        return None
    i, j = divmod(int(emptiest[0]), cells.shape[1])
    key = g[(rows == i)[:, None] & (cols == j)[None, :]]
    if key.size != cells.size:
        return None
    return _fill(g, rows, cols, key.reshape(cells.shape), lines)


def block_tally(g: Array) -> Array | None:
    """One cell per block between separator lines: its number of non-zero cells (9 for 9 or more)."""
    found = _lattice(g)
    if found is None:
        return None
    return np.minimum(found[2][..., 1:].sum(2), 9).astype(g.dtype)


# --- colours as bars ------------------------------------------------------------------


def colour_bars(g: Array, which: str) -> Array | None:
    """One column per colour, as tall as its count: all, most first, or the top count's, left to right ('most')."""
    counts = np.bincount(g.ravel(), minlength=10)[1:]
    present = np.flatnonzero(counts)
    if present.size == 0:
        return None
    if which == "all":
        order = present[np.argsort(-counts[present], kind="stable")]
        if np.unique(counts[present]).size != present.size:
            return None
    else:
        top = present[counts[present] == counts.max()]
        left = np.array([np.flatnonzero((g == c + 1).any(0))[0] for c in top])
        if np.unique(left).size != left.size:
            return None
        order = top[np.argsort(left)]
    heights = counts[order]
    filled = np.arange(heights.max())[:, None] < heights[None, :]
    return np.where(filled, order[None, :] + 1, 0).astype(g.dtype)


# --- the grid's own scale, its periodic lines, object interiors -----------------------


def _block_side(changes: Array, n: int) -> int:
    """The largest step that every change between consecutive lines falls on, and n."""
    return reduce(gcd, (np.flatnonzero(changes) + 1).tolist(), n)


@grid_memo()
def compress(g: Array, part: str) -> Array | None:
    """Shrink the grid ('grid') or its non-zero box ('content') by the size of its largest uniform blocks."""
    if part == "content":
        ys, xs = np.nonzero(g)
        if ys.size == 0:
            return None
        g = g[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    ky = _block_side((g[1:] != g[:-1]).any(1), g.shape[0])
    kx = _block_side((g[:, 1:] != g[:, :-1]).any(0), g.shape[1])
    if (ky, kx) == (1, 1):
        return None
    return g[::ky, ::kx].copy()


def recolour_stripes(g: Array, axis: str, k: int, phase: int, c: int) -> Array | None:
    """Recolour to c the non-zero cells of every k-th row ('h') or column ('v'), from the phase-th."""
    n = g.shape[0] if axis == "h" else g.shape[1]
    if n <= k:
        return None
    stripe = np.arange(n) % k == phase
    mask = (stripe[:, None] if axis == "h" else stripe[None, :]) & (g != 0)
    return np.where(mask, np.asarray(c, dtype=g.dtype), g)


def _interior(g: Array) -> Array:
    """The non-zero cells whose eight neighbours are all non-zero (`drawing.interior`)."""
    return (g != 0) & (interior(g, 0) == 0)


def interior_by(g: Array, prop: str, conn: str) -> Array | None:
    """Paint the interior of every object with its code for a property (size rank, ...), for a learned colour map."""
    inside = _interior(g)
    objs = objects(g, conn)
    codes = property_codes(g, objs, prop) if inside.any() else None
    if codes is None:
        return None
    painted = np.tensordot(np.minimum(codes, 9), np.stack([o.mask for o in objs]), axes=1)  # codes past 9 share 9
    return np.where(inside, painted, g).astype(g.dtype)


def colour_size(g: Array, n: int, conn: str) -> Array | None:
    """Paint every object of exactly n cells 1 and every other object 2, for a learned colour map."""
    objs = objects(g, conn)
    sizes = np.array([o.size for o in objs])
    if not (sizes == n).any() or (sizes == n).all():
        return None
    codes = np.where(sizes == n, 1, 2)
    painted = np.tensordot(codes, np.stack([o.mask for o in objs]), axes=1)
    return np.where(g != 0, painted, g).astype(g.dtype)


# --- parameter inference --------------------------------------------------------------


def _filled_like(g: Array, t: Array) -> bool:
    """Whether the target could be the grid with its blocks filled: the grid's separator lines
    stay as they are, and each block is one colour."""
    found = _lattice(g)
    if found is None:
        return False
    rows, cols, counts, lines = found
    if (t[lines] != g[lines]).any():
        return False
    block = rows[:, None] * counts.shape[1] + cols[None, :]
    seen = np.zeros((counts.shape[0] * counts.shape[1], 10), dtype=bool)
    seen[block[~lines], t[~lines]] = True
    return bool((seen.sum(1) <= 1).all())


def _fills(grids, targets, facts) -> list[tuple]:
    """Both fills, where the targets have the grids' sizes and lines and blocks of one colour."""
    if not same_shapes(grids, targets) or not all(_filled_like(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    return [(how,) for how in FILLS]


def _tallies(grids, targets, facts) -> list[tuple]:
    """The tally, where each grid has as many blocks down and across as its target has cells."""
    for g, t in zip(grids, targets, strict=True):
        found = _lattice(g)
        if found is None or found[2].shape[:2] != t.shape:
            return []
    return [()]


@grid_memo()
def _is_chart(t: Array) -> bool:
    """Whether a grid could be a bar chart: each column one colour from the top, no colour twice."""
    colours = t[0]
    return bool(colours.all() and np.unique(colours).size == colours.size
                and ((t == colours) | (t == 0)).all() and (np.diff((t != 0).view(np.int8), axis=0) <= 0).all())


@grid_memo()
def _chart_shape(t: Array) -> tuple[int, int] | None:
    """The height and width of the bar chart a target shows, with its bars standing on any side
    of it and the rest of it empty (other steps turn the chart and set it on that canvas).
    Memoised: the search asks it of the same targets on every state it expands."""
    for view in (t, t[::-1], t.T, t[:, ::-1].T):
        ys, xs = np.nonzero(view)
        if ys.size == 0:
            return None
        h, w = int(ys.max()) + 1, int(xs.max()) + 1
        if _is_chart(view[:h, :w]):
            return h, w
    return None


def _bars(grids, targets, facts) -> list[tuple]:
    """The charts whose size is every target's chart's: the top count high, as wide as the
    colours shown."""
    widths: dict[str, set] = {which: set() for which in BARS}
    for g, t in zip(grids, targets, strict=True):
        shape = _chart_shape(t)
        if shape is None:
            return []
        counts = np.bincount(g.ravel(), minlength=10)[1:]
        if shape[0] != counts.max():
            return []
        widths["all"].add(np.count_nonzero(counts) == shape[1])
        widths["most"].add(np.count_nonzero(counts == counts.max()) == shape[1])
    return [(which,) for which in BARS if widths[which] == {True}]


def _compressible(grids, targets, facts) -> list[tuple]:
    """The parts that every grid has blocks larger than one cell in (the content only where
    it is not the whole grid)."""
    parts = [part for part in COMPRESSED if all(compress(g, part) is not None for g in grids)]
    if parts == list(COMPRESSED) and all(g[[0, -1]].any(1).all() and g[:, [0, -1]].any(0).all() for g in grids):
        return [("grid",)]
    return [(part,) for part in parts]


def _stripes(grids, targets, facts) -> list[tuple]:
    """The stripes (axis, period, phase) and colour that account for every cell that changes:
    each lies on a stripe and turns to c, and every non-zero cell on a stripe changes."""
    if not facts.recoloured or not same_shapes(grids, targets):
        return []
    changes = [g != t for g, t in zip(grids, targets, strict=True)]
    if any(not m.any() or (m & (g == 0)).any() for g, m in zip(grids, changes, strict=True)):
        return []
    colours = {int(c) for t, m in zip(targets, changes, strict=True) for c in np.unique(t[m])}
    if len(colours) != 1:
        return []
    c = colours.pop()
    found = []
    for axis in ("h", "v"):
        lines = [np.flatnonzero(m.any(1 if axis == "h" else 0)) for m in changes]  # the changed lines
        if any((np.diff(line) == 1).any() for line in lines):
            continue  # two neighbouring lines change: no stripes
        for k in range(2, _MAX_PERIOD + 1):
            phases = np.unique(np.concatenate(lines) % k)
            if phases.size != 1:
                continue
            outs = (recolour_stripes(g, axis, k, int(phases[0]), c) for g in grids)
            if all(o is not None and np.array_equal(o != g, m) for o, g, m in zip(outs, grids, changes, strict=True)):
                found.append((axis, k, int(phases[0]), c))
    return found


def _interiors(grids, targets, facts) -> list[tuple]:
    """Every property and connectivity, where on every pair the cells that change are exactly
    the objects' interiors (which a colour map then paints)."""
    if not facts.recoloured or not same_shapes(grids, targets):
        return []
    changes = [g != t for g, t in zip(grids, targets, strict=True)]
    if any(not m.any() or (m & (g == 0)).any() for g, m in zip(grids, changes, strict=True)):
        return []  # (cheap tests first: this runs on every state of a task with same sizes)
    if any(m[[0, -1]].any() or m[:, [0, -1]].any() for m in changes):  # no interior on the border
        return []
    if any(not np.array_equal(m, _interior(g)) for g, m in zip(grids, changes, strict=True)):
        return []
    return list(product(PROPERTIES, ("multi8", "colour4")))


def _sizes(grids, targets, facts) -> list[tuple]:
    """The sizes n and connectivities where, on every pair, the objects of n cells all turn one
    colour and the others all another (only recolouring, so cheap tests come first)."""
    if not facts.recoloured or not same_shapes(grids, targets):
        return []
    if any(((g == 0) != (t == 0)).any() for g, t in zip(grids, targets, strict=True)):
        return []
    found = []
    for conn in ("multi8", "colour4"):
        common = None
        for g, t in zip(grids, targets, strict=True):
            objs = objects(g, conn)
            if len(objs) > _MAX_OBJECTS:
                break
            colours = [np.unique(t[o.mask]) for o in objs]
            if any(c.size != 1 for c in colours):
                break
            by_size: dict[int, set] = {}
            for o, c in zip(objs, colours, strict=True):
                by_size.setdefault(o.size, set()).add(int(c[0]))
            marked = {n for n, cs in by_size.items() if len(cs) == 1
                      and not cs & {c for m, other in by_size.items() if m != n for c in other}}
            common = marked if common is None else common & marked
            if not common:
                break
        else:
            found.extend((n, conn) for n in sorted(common))
    return found


REGISTRY: tuple = (
    (fill_blocks, "block_fill", "same"),
    (block_tally, "block_tally", "any"),
    (colour_bars, "bars", "any"),
    (compress, "compressible", "any"),
    (recolour_stripes, "stripes", "same"),
    (interior_by, "interior_codes", "same"),
    (colour_size, "object_size", "same"),
)
PARAM_KINDS: dict = {
    "block_fill": _fills,
    "block_tally": _tallies,
    "bars": _bars,
    "compressible": _compressible,
    "stripes": _stripes,
    "interior_codes": _interiors,
    "object_size": _sizes,
}
