"""Connected components, object selection by a property, and splitting a grid into parts.

Everything here is a pure function of numpy grids (2-D integer arrays, background 0).
Selections return None when the property picks no object or ties, so a program that
relies on an ambiguous choice fails instead of guessing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy import ndimage

from arcsolve.dsl.memo import grid_memo

Array = np.ndarray
_PLUS = ndimage.generate_binary_structure(2, 1)  # edge neighbours
_BOX = ndimage.generate_binary_structure(2, 2)  # edge and corner neighbours


def label(g: Array, foreground: Array, diagonal: bool, by_colour: bool) -> tuple[Array, int]:
    """Component labels 1..n of the `foreground` cells (0 elsewhere) and n, numbered in the
    order of each component's first cell (row-major), as `scipy.ndimage.label` numbers them.

    Components of one colour (`by_colour`) through edge neighbours are labelled on a grid
    twice as fine, where a cell between two neighbours is set only if they share a colour:
    a component's first cell there is one of the grid's, so the order is the same. Through
    corners too, a fine grid cannot keep two crossing diagonals apart, so `_label_runs`
    joins runs of cells instead."""
    if not by_colour:
        lab, n = ndimage.label(foreground, _BOX if diagonal else _PLUS)
        return lab.astype(np.int64), n
    if diagonal:
        return _label_runs(g, foreground)
    h, w = g.shape
    fine = np.zeros((2 * h - 1, 2 * w - 1), dtype=bool)
    fine[::2, ::2] = foreground
    fine[::2, 1::2] = foreground[:, :-1] & foreground[:, 1:] & (g[:, :-1] == g[:, 1:])
    fine[1::2, ::2] = foreground[:-1] & foreground[1:] & (g[:-1] == g[1:])
    lab, n = ndimage.label(fine, _PLUS)
    return lab[::2, ::2].astype(np.int64), n


def _label_runs(g: Array, foreground: Array) -> tuple[Array, int]:
    """`label` of one-colour components through edges and corners: horizontal runs of one
    colour, joined where they touch (union-find), numbered by their first cells."""
    h, w = g.shape
    # runs: maximal horizontal stretches of foreground of one colour
    start = foreground.copy()
    start[:, 1:] &= ~foreground[:, :-1] | (g[:, 1:] != g[:, :-1])
    runs = np.where(foreground, start.cumsum().reshape(h, w), 0)
    n_runs = int(np.count_nonzero(start))
    tops, bottoms = [], []  # runs of consecutive rows that touch
    for dx in (-1, 0, 1):
        x0, x1 = max(0, -dx), w - max(0, dx)
        touch = foreground[:-1, x0:x1] & foreground[1:, x0 + dx : x1 + dx] & (g[:-1, x0:x1] == g[1:, x0 + dx : x1 + dx])
        tops.append(runs[:-1, x0:x1][touch])
        bottoms.append(runs[1:, x0 + dx : x1 + dx][touch])
    parent = list(range(n_runs + 1))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    links = np.concatenate(tops) * (n_runs + 1) + np.concatenate(bottoms)
    links = links[np.concatenate(([True], links[1:] != links[:-1]))] if links.size else links  # repeats: slow
    for link in links.tolist():
        a, b = root(link // (n_runs + 1)), root(link % (n_runs + 1))
        if a != b:
            parent[max(a, b)] = min(a, b)  # the smaller run id, the earlier first cell
    numbers = [0] * (n_runs + 1)  # each run's component number: its parent, an earlier run, is numbered first
    n = 0
    for x in range(1, n_runs + 1):
        if parent[x] == x:
            n += 1
            numbers[x] = n
        else:
            numbers[x] = numbers[parent[x]]
    return np.array(numbers)[runs], n


def cut_off(g: Array, open_cells: Array) -> Array:
    """The `open_cells` that cannot reach the grid's border through open cells (4-connected)."""
    lab, n = label(g, open_cells, diagonal=False, by_colour=False)
    outside = np.zeros(n + 1, dtype=bool)
    outside[0] = True  # the cells that are not open
    outside[np.concatenate((lab[0], lab[-1], lab[:, 0], lab[:, -1]))] = True
    return ~outside[lab]


@grid_memo()
def enclosed(g: Array) -> Array:
    """The zero cells that cannot reach the grid's border through zero cells (4-connected)."""
    return cut_off(g, g == 0)


@dataclass(frozen=True)
class Obj:
    """One connected component: its mask over the whole grid, its bounding box, its colours
    and its number of cells."""

    mask: Array
    box: tuple[slice, slice]  # rows, columns
    colours: tuple[int, ...]
    size: int

    def crop(self, g: Array) -> Array:
        """The grid inside the object's bounding box."""
        return g[self.box]

    def shape_key(self) -> bytes:
        """The object's own cells, cropped: equal for objects of the same shape."""
        m = self.mask[self.box]
        return bytes(m.shape) + m.tobytes()


@grid_memo(2048)
def labels(g: Array, conn: str) -> tuple[Array, int]:
    """`label` of the non-zero cells: 'multi8' (any colour, 8-conn) or 'colour4' (one colour)."""
    return label(g, g != 0, diagonal=conn == "multi8", by_colour=conn == "colour4")


def label_boxes(lab: Array, n: int) -> tuple[Array, Array, Array, Array]:
    """The bounding box of each label 1..n of a label grid: top, left, bottom, right (the last
    two exclusive), as arrays indexed by label - 1."""
    h, w = lab.shape
    rows, cols = np.zeros((n + 1, h), dtype=bool), np.zeros((n + 1, w), dtype=bool)
    rows[lab, np.arange(h)[:, None]] = True  # the rows and columns that each label has cells in
    cols[lab, np.arange(w)] = True
    return rows[1:].argmax(1), cols[1:].argmax(1), h - rows[1:, ::-1].argmax(1), w - cols[1:, ::-1].argmax(1)


@grid_memo(2048)
def objects(g: Array, conn: str) -> tuple[Obj, ...]:
    """Components of non-zero cells: 'multi8' (any colour, 8-conn) or 'colour4' (one colour),
    in the order of their labels (`labels`)."""
    lab, n = labels(g, conn)
    top, left, bottom, right = (a.tolist() for a in label_boxes(lab, n))
    present = np.zeros((n + 1, 10), dtype=bool)
    present[lab, g] = True
    colours: list[list[int]] = [[] for _ in range(n)]
    for i, c in zip(*(a.tolist() for a in np.nonzero(present[1:])), strict=True):
        colours[i].append(c)
    sizes = np.bincount(lab.ravel(), minlength=n + 1)[1:].tolist()
    masks = lab == np.arange(1, n + 1)[:, None, None]  # (n, h, w)
    return tuple(
        Obj(masks[i], (slice(top[i], bottom[i]), slice(left[i], right[i])), tuple(colours[i]), sizes[i])
        for i in range(n)
    )


def _unique_best(values: list, best) -> int | None:
    """Index of the one value equal to best(values), or None if several tie."""
    target = best(values)
    hits = [i for i, v in enumerate(values) if v == target]
    return hits[0] if len(hits) == 1 else None


def unique_key(keys: list) -> int | None:
    """Index of the one key that no other object shares (None unless exactly one)."""
    counts = Counter(keys)
    singles = [i for i, k in enumerate(keys) if counts[k] == 1]
    return singles[0] if len(singles) == 1 else None


def most_common_key(keys: list) -> int | None:
    """Index of an object whose key is the single most frequent one (shared by several)."""
    counter = Counter(keys)
    counts = [counter[k] for k in keys]
    top = max(counts)
    if top < 2 or sum(c == top for c in counts) != top:
        return None
    return counts.index(top)


def _secondary_cells(g: Array, o: Obj) -> int:
    """How many of the object's cells are not of its most frequent colour."""
    return int(o.size - np.bincount(g[o.mask]).max())


def _has_hole(o: Obj) -> bool:
    """Whether some cell inside the object's box is cut off from the box's border by it."""
    box = o.mask[o.box]
    if min(box.shape) <= 2 or box[1:-1, 1:-1].all():
        return False  # every cell outside the object lies on the box's border
    return bool(enclosed(box.astype(np.int8)).any())  # memoised, so shared by every object of one shape


def _symmetric(g: Array, o: Obj) -> bool:
    c = o.crop(g)
    return bool((c == c[:, ::-1]).all() or (c == c[::-1]).all())


SELECTORS: MappingProxyType[str, Callable[[Array, tuple[Obj, ...]], int | None]] = MappingProxyType({
    "largest": lambda g, objs: _unique_best([o.size for o in objs], max),
    "smallest": lambda g, objs: _unique_best([o.size for o in objs], min),
    "most_colours": lambda g, objs: _unique_best([len(o.colours) for o in objs], max),
    "unique_colour": lambda g, objs: unique_key([o.colours for o in objs]),
    "unique_shape": lambda g, objs: unique_key([o.shape_key() for o in objs]),
    "symmetric": lambda g, objs: unique_key([_symmetric(g, o) for o in objs]),
})

# Selectors only worth cropping to (the search tries them with crop_object alone).
CROP_SELECTORS: MappingProxyType[str, Callable[[Array, tuple[Obj, ...]], int | None]] = MappingProxyType({
    "common_shape": lambda g, objs: most_common_key([o.shape_key() for o in objs]),
    "most_secondary": lambda g, objs: _unique_best([_secondary_cells(g, o) for o in objs], max),
    "least_secondary": lambda g, objs: _unique_best([_secondary_cells(g, o) for o in objs], min),
    "has_hole": lambda g, objs: unique_key([_has_hole(o) for o in objs]),
})


def _dense_ranks(values: list[int], descending: bool) -> list[int]:
    """1 for the best value, 2 for the next distinct one, ... (ties share a rank)."""
    order = sorted(set(values), reverse=descending)
    return [order.index(v) + 1 for v in values]


def _extremes(sizes: list[int]) -> list[int] | None:
    """1 for the largest objects, 2 for the smallest, 3 for the rest (None if all one size)."""
    top, bottom = max(sizes), min(sizes)
    if top == bottom:
        return None
    return [1 if s == top else 2 if s == bottom else 3 for s in sizes]


def _ends(starts: list[int], stops: list[int]) -> list[int] | None:
    """1 for the objects that reach the least start (the topmost, or leftmost), 2 for those
    that reach the greatest stop (the bottommost, or rightmost), 3 for the rest; an object
    at both ends counts as the first. None if every object starts at one place."""
    if len(set(starts)) == 1:
        return None
    first, last = min(starts), max(stops)
    return [1 if a == first else 2 if b == last else 3 for a, b in zip(starts, stops, strict=True)]


def _orientation(o: Obj) -> int:
    """1 for an object wider than tall, 2 for one taller than wide, 3 for a square box."""
    rows, cols = o.box
    h, w = rows.stop - rows.start, cols.stop - cols.start
    return 1 if w > h else 2 if h > w else 3


def _touches_border(g: Array, o: Obj) -> bool:
    rows, cols = o.box
    return rows.start == 0 or cols.start == 0 or rows.stop == g.shape[0] or cols.stop == g.shape[1]


def _key_counts(objs: tuple[Obj, ...]) -> list[int]:
    """For each object, how many objects (itself included) have its shape."""
    keys = [o.shape_key() for o in objs]
    counts = Counter(keys)
    return [counts[k] for k in keys]


def _yes_no(flags: list[bool]) -> list[int]:
    return [1 if f else 2 for f in flags]


# Codes 1..9 per object, for painting objects by a property (then a learned colour map).
PROPERTIES: MappingProxyType[str, Callable[[Array, tuple[Obj, ...]], list[int] | None]] = MappingProxyType({
    "size_rank": lambda g, objs: _dense_ranks([o.size for o in objs], descending=True),
    "size_rank_asc": lambda g, objs: _dense_ranks([o.size for o in objs], descending=False),
    "extremes": lambda g, objs: _extremes([o.size for o in objs]),
    "has_hole": lambda g, objs: _yes_no([_has_hole(o) for o in objs]),
    "touches_border": lambda g, objs: _yes_no([_touches_border(g, o) for o in objs]),
    "unique_shape": lambda g, objs: _yes_no([n == 1 for n in _key_counts(objs)]),
    "top_bottom": lambda g, objs: _ends([o.box[0].start for o in objs], [o.box[0].stop for o in objs]),
    "left_right": lambda g, objs: _ends([o.box[1].start for o in objs], [o.box[1].stop for o in objs]),
    "orientation": lambda g, objs: [_orientation(o) for o in objs],
})
# The properties an object has on its own, whatever else the grid holds: defined for a lone object.
OWN_PROPERTIES = frozenset({"has_hole", "touches_border", "orientation"})


def property_codes(g: Array, objs: tuple[Obj, ...], prop: str) -> list[int] | None:
    """The objects' codes for a property; for a lone object only a property of its own (the
    others compare objects, and one object has nothing to be compared with)."""
    if not objs or len(objs) == 1 and prop not in OWN_PROPERTIES:
        return None
    return PROPERTIES[prop](g, objs)


@grid_memo(4096)
def select(g: Array, how: str, conn: str) -> Obj | None:
    """The object picked by selector `how` among the `conn` components, or None."""
    objs = objects(g, conn)
    if len(objs) < 2:
        return objs[0] if objs and how in ("largest", "smallest") else None
    index = (SELECTORS[how] if how in SELECTORS else CROP_SELECTORS[how])(g, objs)
    return None if index is None else objs[index]


def cuts(lines: Array) -> list[tuple[int, int]]:
    """Runs of False between True separator lines, as (start, stop) ranges."""
    runs, start = [], None
    for i, sep in enumerate(list(lines) + [True]):
        if not sep and start is None:
            start = i
        elif sep and start is not None:
            runs.append((start, i))
            start = None
    return runs


@grid_memo()
def line_blocks(g: Array) -> tuple[tuple[slice, slice], ...] | None:
    """The equal-sized blocks between full rows/columns of a colour that is not inside them
    (0 last), as (rows, columns) slices in reading order; None without two such blocks."""
    for colour in [int(c) for c in np.unique(g) if c != 0] + [0]:
        # a line of one cell is no separator: 1-row grids have no separator columns
        rows = (g == colour).all(1) & (g.shape[1] > 1)
        cols = (g == colour).all(0) & (g.shape[0] > 1)
        if not rows.any() and not cols.any():
            continue
        boxes = [(slice(a, b), slice(c, d)) for a, b in cuts(rows) for c, d in cuts(cols)]
        clean = not any((g[box] == colour).any() for box in boxes)
        if clean and len(boxes) >= 2 and len({g[box].shape for box in boxes}) == 1:
            return tuple(boxes)
    return None


@grid_memo()
def split(g: Array, mode: str) -> tuple[Array, ...] | None:
    """Equal parts of a grid: by separator lines ('lines'), into halves ('h2', 'v2', 'long2':
    across the longer side), into quarters in reading order ('quarters', each side even and
    over 2), or into squares along the longer side ('squares')."""
    h, w = g.shape
    if mode == "lines":
        boxes = line_blocks(g)
        return None if boxes is None else tuple(g[box] for box in boxes)
    if mode == "long2":
        mode = "v2" if h > w else "h2" if w > h else ""
    if mode == "squares":
        if h > w and h % w == 0:
            return tuple(g[i : i + w] for i in range(0, h, w))
        if w > h and w % h == 0:
            return tuple(g[:, i : i + h] for i in range(0, w, h))
        return None
    if mode == "quarters" and h % 2 == 0 and w % 2 == 0 and h > 2 and w > 2:
        return tuple(g[r : r + h // 2, c : c + w // 2] for r in (0, h // 2) for c in (0, w // 2))
    if mode == "h2" and w % 2 == 0:
        return g[:, : w // 2], g[:, w // 2 :]
    if mode == "v2" and h % 2 == 0:
        return g[: h // 2], g[h // 2 :]
    return None
