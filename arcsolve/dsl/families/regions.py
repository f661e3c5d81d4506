"""Painting the background's regions: the 4-connected components of zero cells, each filled
whole by what it touches, by its size, or by the sides of the grid it reaches.

`fill_touching` floods the regions next to a colour with that colour; `checker_flood` floods
them with the two colours of a seed, alternating like a checkerboard; `fill_regions` fills
the largest or the smallest regions; `paint_sides` paints each region by the set of the
grid's sides it reaches, as the train pairs showed; `fill_lanes` paints the straight lanes
that cross a region from wall to wall. `cut_across` is the same idea turned round: a zero
cell inside a coloured region cuts a line across that region. `spill` fills a box outline
that has a gap and pours the colour out of the gap; `overflow` fills it with the colour it
holds, which brims over the side with the gap.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import raw_inputs, same_shapes
from arcsolve.dsl.primitives.drawing import NEIGHBOURS
from arcsolve.dsl.primitives.objects import label, label_boxes, objects

Array = np.ndarray

PICKS = ("largest", "smallest")


@grid_memo()
def regions(g: Array) -> tuple[Array, int]:
    """The zero cells' 4-connected components as labels 1..n (0 on non-zero cells), and n."""
    return label(g, g == 0, diagonal=False, by_colour=False)


def _touched(lab: Array, n: int, mask: Array) -> Array:
    """Which labels 0..n have a cell 4-adjacent to a `mask` cell (index 0 is never set)."""
    hit = np.zeros(n + 1, dtype=bool)
    hit[lab[1:][mask[:-1]]] = True
    hit[lab[:-1][mask[1:]]] = True
    hit[lab[:, 1:][mask[:, :-1]]] = True
    hit[lab[:, :-1][mask[:, 1:]]] = True
    hit[0] = False
    return hit


def fill_touching(g: Array, c: int) -> Array | None:
    """Colour c into every zero region (4-connected) that has a cell of colour c beside it."""
    seeds = g == c
    if not seeds.any():
        return None
    lab, n = regions(g)
    hit = _touched(lab, n, seeds)
    if not hit.any():
        return None
    return np.where(hit[lab], np.asarray(c, dtype=g.dtype), g)


def _seed_colours(g: Array) -> tuple[int, int, int] | None:
    """The two colours other than the most frequent non-zero one, and the parity of y + x that
    the first one's cells all have (the second's all have the other); None otherwise."""
    counts = np.bincount(g.ravel(), minlength=10)[1:]
    present = np.flatnonzero(counts) + 1
    if present.size != 3:
        return None
    a, b = sorted(c for c in present.tolist() if c != np.argmax(counts) + 1)
    ys, xs = np.nonzero(g == a)
    parity = (ys + xs) % 2
    if parity.min() != parity.max():
        return None
    ys, xs = np.nonzero(g == b)
    if (((ys + xs) % 2) == parity[0]).any():
        return None
    return a, b, int(parity[0])


def checker_flood(g: Array) -> Array | None:
    """Flood the zero regions beside a seed of two colours with both, alternating as on a checkerboard."""
    seed = _seed_colours(g)
    if seed is None:
        return None
    a, b, parity = seed
    lab, n = regions(g)
    hit = _touched(lab, n, (g == a) | (g == b))
    if not hit.any():
        return None
    ys, xs = np.indices(g.shape)
    colours = np.where((ys + xs) % 2 == parity, a, b).astype(g.dtype)
    return np.where(hit[lab], colours, g)


def fill_regions(g: Array, how: str, c: int) -> Array | None:
    """Colour c into the largest or the smallest zero regions (4-connected; every one that ties)."""
    lab, n = regions(g)
    if n < 2:
        return None
    sizes = np.bincount(lab.ravel(), minlength=n + 1)[1:]
    best = sizes.max() if how == "largest" else sizes.min()
    picked = np.concatenate(([False], sizes == best))
    return np.where(picked[lab], np.asarray(c, dtype=g.dtype), g)


def fill_lanes(g: Array, c: int) -> Array | None:
    """Colour c into every row and column that is zero from end to end but for its two non-zero end cells."""
    h, w = g.shape
    if h < 3 or w < 3:
        return None
    rows = ~g[:, 1:-1].any(1) & (g[:, 0] != 0) & (g[:, -1] != 0)
    cols = ~g[1:-1].any(0) & (g[0] != 0) & (g[-1] != 0)
    if not rows.any() and not cols.any():
        return None
    return np.where((rows[:, None] | cols[None, :]) & (g == 0), np.asarray(c, dtype=g.dtype), g)


def _side_codes(lab: Array, n: int) -> Array:
    """Each label's sides of the grid reached, as bits: 1 top, 2 bottom, 4 left, 8 right."""
    h, w = lab.shape
    top, left, bottom, right = label_boxes(lab, n)
    return (top == 0) * 1 + (bottom == h) * 2 + (left == 0) * 4 + (right == w) * 8


def paint_sides(g: Array, table: tuple[tuple[int, int], ...]) -> Array | None:
    """Paint each zero region the colour a learned table gives the grid's sides it reaches (None on an unseen set)."""
    lab, n = regions(g)
    if n == 0:
        return None
    lookup = np.full(16, -1, dtype=np.int16)
    for code, colour in table:
        lookup[code] = colour
    colours = lookup[_side_codes(lab, n)]
    if (colours < 0).any():
        return None
    return np.where(lab > 0, np.concatenate(([0], colours)).astype(g.dtype)[lab], g)


def _beside(a: Array, fill: int) -> list[Array]:
    """The array shifted so that each cell sees its right, lower, left and upper neighbour
    (`fill` beyond the edge)."""
    h, w = a.shape
    padded = np.full((h + 2, w + 2), fill, dtype=np.int16)
    padded[1:-1, 1:-1] = a
    return [padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w] for dy, dx in NEIGHBOURS["plus"]]


def _cut_lines(g: Array) -> Array | None:
    """The cells of every line that a lone zero cell cuts across the coloured region around
    it: along the shorter side of the region's bounding box, within the box. None unless
    every zero cell has one colour on its sides (the grid's edge aside)."""
    holes = g == 0
    if not holes.any() or holes.all():
        return None
    sides = _beside(g, -1)
    colour = np.maximum.reduce(sides)
    if not ((colour > 0) & np.logical_and.reduce([(s == colour) | (s < 0) for s in sides]))[holes].all():
        return None
    filled = np.where(holes, colour, g)  # each hole in the colour around it, so that it splits no region
    lab, n = label(filled, filled != 0, diagonal=False, by_colour=True)
    top, left, bottom, right = label_boxes(lab, n)
    cut = np.zeros(g.shape, dtype=bool)
    for y, x in zip(*np.nonzero(holes), strict=True):
        i = lab[y, x] - 1
        if bottom[i] - top[i] < right[i] - left[i]:
            cut[top[i] : bottom[i], x] = True
        else:
            cut[y, left[i] : right[i]] = True
    return cut


def cut_across(g: Array) -> Array | None:
    """Extend each zero cell inside a coloured region into a zero line across the region's shorter side."""
    cut = _cut_lines(g)
    if cut is None:
        return None
    out = np.where(cut, np.asarray(0, dtype=g.dtype), g)
    return None if np.array_equal(out, g) else out


def _gap_side(ring: Array, gap: Array) -> tuple[int, int] | None:
    """The outward step (dy, dx) of the one side of a box outline whose gap cells all lie on
    it, none at a corner (None otherwise)."""
    h, w = ring.shape
    ys, xs = np.nonzero(gap)
    corner = ((ys == 0) | (ys == h - 1)) & ((xs == 0) | (xs == w - 1))
    if ys.size == 0 or corner.any():
        return None
    for (dy, dx), on in (((-1, 0), ys == 0), ((1, 0), ys == h - 1), ((0, -1), xs == 0), ((0, 1), xs == w - 1)):
        if on.all():
            return dy, dx
    return None


def _outline(h: int, w: int) -> Array:
    """The outline cells of an h x w box."""
    ring = np.ones((h, w), dtype=bool)
    ring[1:-1, 1:-1] = False
    return ring


def _gapped_outlines(g: Array) -> list[tuple[int, int, int, int, Array, tuple[int, int]]]:
    """Each one-coloured box outline with a gap in one side, none at a corner, that nothing
    fills: its box (top, bottom, left, right; the last two exclusive), the gap's cells in it
    and the gap side's outward step."""
    found = []
    for o in objects(g, "colour4"):
        (y0, y1), (x0, x1) = (o.box[0].start, o.box[0].stop), (o.box[1].start, o.box[1].stop)
        if y1 - y0 < 3 or x1 - x0 < 3:
            continue
        ring = _outline(y1 - y0, x1 - x0)
        mask = o.mask[o.box]
        gap = ring & ~mask
        if (mask & ~ring).any() or (g[o.box][gap] != 0).any():
            continue  # not an outline, or something else fills its gap
        step = _gap_side(ring, gap)
        if step is not None:
            found.append((y0, y1, x0, x1, gap, step))
    return found


def spill(g: Array, c: int) -> Array | None:
    """Colour c inside each box outline of one colour with a gap in one side, and out of the gap to an obstacle."""
    out = g.copy()
    h, w = g.shape
    for y0, y1, x0, x1, gap, step in _gapped_outlines(g):
        inside = out[y0 + 1 : y1 - 1, x0 + 1 : x1 - 1]
        inside[inside == 0] = c
        for y, x in zip(*np.nonzero(gap), strict=True):
            y, x = y + y0, x + x0
            while 0 <= y < h and 0 <= x < w and out[y, x] == 0:
                out[y, x] = c
                y, x = y + step[0], x + step[1]
    return None if np.array_equal(out, g) else out


def overflow(g: Array) -> Array | None:
    """Fill each box outline with a gap in one side with the one colour it holds, and the line past that side."""
    out = g.copy()
    h, w = g.shape
    for y0, y1, x0, x1, gap, (dy, dx) in _gapped_outlines(g):
        held = np.unique(g[y0 + 1 : y1 - 1, x0 + 1 : x1 - 1])
        held = held[held != 0]
        if held.size != 1:
            continue  # no one colour to pour
        box = out[y0:y1, x0:x1]
        box[(box == 0) & ~_outline(y1 - y0, x1 - x0)] = held[0]
        box[gap] = held[0]
        y = y0 - 1 if dy < 0 else y1 if dy > 0 else None
        x = x0 - 1 if dx < 0 else x1 if dx > 0 else None
        if y is not None and 0 <= y < h:
            line = out[y, x0:x1]
            line[line == 0] = held[0]
        if x is not None and 0 <= x < w:
            line = out[y0:y1, x]
            line[line == 0] = held[0]
    return None if np.array_equal(out, g) else out


def _touching(grids, targets, facts) -> list[tuple]:
    """The colours the targets draw on zero cells that the grids already have."""
    if not same_shapes(grids, targets):
        return []
    return [(c,) for c in facts.drawn if c in facts.in_colours]


def _checker(grids, targets, facts) -> list[tuple]:
    """Tried where the targets draw at least two colours that the inputs have, sizes kept."""
    if not same_shapes(grids, targets) or len(set(facts.drawn) & set(facts.in_colours)) < 2:
        return []
    return [()]


def _picks(grids, targets, facts) -> list[tuple]:
    """Both picks, each colour the targets draw on zero cells; for grids and targets of one size only."""
    if not same_shapes(grids, targets):
        return []
    return list(product(PICKS, facts.drawn))


def _lanes(grids, targets, facts) -> list[tuple]:
    """Each colour the targets draw on zero cells; for grids and targets of one size only."""
    if not same_shapes(grids, targets):
        return []
    return [(c,) for c in facts.drawn]


def _sides(grids, targets, facts) -> list[tuple]:
    """The table from sides reached to colour that every train input's regions agree on, each
    region one colour in its target; fitted on the train inputs themselves (on derived grids
    a table that merely memorises would verify too easily), if it paints something."""
    if not raw_inputs(grids, facts):
        return []
    if not same_shapes(grids, targets) or not facts.drawn:
        return []
    table = np.full(16, -1)
    for g, t in zip(grids, targets, strict=True):
        lab, n = regions(g)
        codes = _side_codes(lab, n)
        lo, hi = np.full(n + 1, 10), np.full(n + 1, -1)
        np.minimum.at(lo, lab.ravel(), t.ravel())
        np.maximum.at(hi, lab.ravel(), t.ravel())
        lo, hi = lo[1:], hi[1:]
        if (lo != hi).any():
            return []  # a region of two colours in its target
        known = table[codes]
        if ((known >= 0) & (known != lo)).any():
            return []
        table[codes] = lo
        if (table[codes] != lo).any():  # two regions with one code, two colours
            return []
    if not (table > 0).any():
        return []
    return [(tuple((code, int(c)) for code, c in enumerate(table.tolist()) if c >= 0),)]


def _pours(grids, targets, facts) -> list[tuple]:
    """Tried where the targets keep the sizes and draw on zero cells."""
    return [()] if facts.drawn and same_shapes(grids, targets) else []


def _cuts(grids, targets, facts) -> list[tuple]:
    """Tried where the targets keep the sizes and put zeros where the grids have colours."""
    if not same_shapes(grids, targets) or len(facts.inputs) != len(targets):
        return []
    if not any(((a != 0) & (b == 0)).any() for a, b in zip(facts.inputs, targets, strict=True) if a.shape == b.shape):
        return []
    return [()]


REGISTRY: tuple = (
    (fill_touching, "touching", "same"),
    (checker_flood, "checker", "same"),
    (fill_regions, "region_pick", "same"),
    (paint_sides, "sides", "same"),
    (fill_lanes, "lanes", "same"),
    (cut_across, "cuts", "same"),
    (spill, "lanes", "same"),
    (overflow, "pours", "same"),
)

PARAM_KINDS: dict = {
    "touching": _touching,
    "checker": _checker,
    "region_pick": _picks,
    "sides": _sides,
    "lanes": _lanes,
    "cuts": _cuts,
    "pours": _pours,
}
