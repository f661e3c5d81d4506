"""Cell tables: each cell's new colour looked up from a few of its features, learned from the train pairs.

Where `arcsolve.dsl.learned.rules` keys a cell by its exact neighbourhood, a cell table keys
it by at most two features that say where it stands: is it 0, on which side of the grid's
full lines it lies, is it inside a closed shape of another colour, which sides see a
non-zero cell along its row, column or diagonals, does one colour lie on both sides, is it
enclosed, does it lie in the bounding box of the rarest colour, how many neighbours it has
(and how many of another colour), how far the nearest non-zero cell is, how many colours its
row and column hold, its object's size, rank by size and whether its shape is the only one
of its kind, the parity of its row and column (counted from either end) and their remainder
by 3, its own colour, the parity of its row and column counted from its object's corner and
the half of its object's box it lies in, where its row's first non-zero cell lies and its
column's, which one colour other than its own it touches, and last the form of its object
as a path (its ends and turns). The table gives each key
an *answer*: keep the cell's colour, take the colour first seen in one direction (or the one
seen on both sides), its object's main or marker colour, the non-zero colour that the grid's
mirror images or half turn put on it, the colour of the nearest non-zero cells, the grid's
rarest or commonest colour, or paint one colour. So a table fitted on inputs drawn in red
and blue also answers for green. It is fitted on the train inputs themselves (`fit_tables`):
every key must have one answer that explains all its cells, and the fewest features that
allow that are used. Applied to a grid with a key the train pairs never showed, a table
gives no answer rather than a guess.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import combinations, compress
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.learned.rules import lookup
from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import same_shapes
from arcsolve.dsl.primitives.blocks import full_rows
from arcsolve.dsl.primitives.drawing import NEIGHBOURS
from arcsolve.dsl.primitives.objects import PROPERTIES, cut_off, enclosed, label_boxes, labels, objects

Array = np.ndarray
CellTable = tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]  # features, sorted keys, answers

MAX_FEATURES = 2  # features in one key
MAX_TABLES = 3  # tables kept, of the fewest features that fit
_CHUNK = 256  # combinations of features fitted at once, between looks at the clock
_SAMPLES = (16, 4)  # combinations are first tried on every 16th cell, then every 4th (`_fitting`)
_NONE = 10  # no colour seen
_BASE = 16  # every feature's values are below it

# The colours a cell may take over (`_looks`), in the order the answers number them from 1.
LOOKS = ("up", "down", "left", "right", "between_h", "between_v", "between",
         "up_left", "up_right", "down_left", "down_right", "between_d1", "between_d2",
         "object_main", "object_marker", "mirror_h", "mirror_v", "turned", "rarest", "commonest", "nearest")
FIRST_PAINT = 1 + len(LOOKS)  # answer 0 keeps the colour, 1 + i takes LOOKS[i], FIRST_PAINT + c paints c


def _first_seen(g: Array) -> Array:
    """(4, h, w): the first non-zero colour strictly beyond each cell looking right, left,
    down and up along its row or column (`_NONE` where there is none)."""
    views = (g, g[:, ::-1], g.T, g.T[:, ::-1])
    seen = []
    for k, v in enumerate(views):
        out = np.full(v.shape, _NONE, dtype=np.int64)
        last = np.full(v.shape[0], _NONE, dtype=np.int64)
        for x in range(v.shape[1] - 1, -1, -1):
            out[:, x] = last
            last = np.where(v[:, x] != 0, v[:, x], last)
        out = out[:, ::-1] if k % 2 else out
        seen.append(out.T if k >= 2 else out)
    return np.stack(seen)


def _first_seen_diagonal(g: Array, dy: int, dx: int) -> Array:
    """The first non-zero colour strictly beyond each cell along the diagonal (dy, dx)."""
    if dy < 0:
        return _first_seen_diagonal(g[::-1], -dy, dx)[::-1]
    h, w = g.shape
    out = np.full((h, w), _NONE, dtype=np.int64)
    beyond = slice(1, None) if dx > 0 else slice(None, -1)  # a row's cells one step along, seen from the row above
    here = slice(None, -1) if dx > 0 else slice(1, None)
    for y in range(h - 2, -1, -1):
        below = np.where(g[y + 1] != 0, g[y + 1], out[y + 1])
        out[y, here] = below[beyond]
    return out


@grid_memo(256)
def _looks(g: Array) -> Array:
    """(len(LOOKS), h, w): the colour each cell would take from each of `LOOKS`."""
    right, left, down, up = _first_seen(g)
    between_h = np.where(left == right, left, _NONE)
    between_v = np.where(up == down, up, _NONE)
    between = np.where(between_h != _NONE, between_h, between_v)
    ul, ur, dl, dr = (_first_seen_diagonal(g, dy, dx) for dy, dx in ((-1, -1), (-1, 1), (1, -1), (1, 1)))
    d1 = np.where(ul == dr, ul, _NONE)
    d2 = np.where(ur == dl, ur, _NONE)
    main, marker = _object_colours(g)
    g64 = g.astype(np.int64)
    mirrored = [np.where(m != 0, m, _NONE) for m in (g64[:, ::-1], g64[::-1], g64[::-1, ::-1])]
    return np.stack([up, down, left, right, between_h, between_v, between, ul, ur, dl, dr, d1, d2, main, marker,
                     *mirrored, *_grid_colours(g), _nearest(g)])


def _grid_colours(g: Array) -> tuple[Array, Array]:
    """The grid's one least and one most frequent non-zero colour, on every cell (`_NONE` if
    there is no such colour or two tie)."""
    counts = np.bincount(g.ravel(), minlength=10)[1:]
    present = counts > 0
    out = []
    for pick in (np.where(present, counts, np.iinfo(np.int64).max).min(), counts.max()):
        one = present & (counts == pick)
        colour = int(np.argmax(one)) + 1 if present.any() and one.sum() == 1 else _NONE
        out.append(np.full(g.shape, colour, dtype=np.int64))
    return out[0], out[1]


def _in_rare_box(g: Array, rare: int) -> Array:
    """Whether each cell lies in the bounding box of the cells of colour `rare`, the grid's one
    least frequent non-zero colour (nowhere if two tie, `_NONE`): a few marker cells that
    frame a region."""
    inside = np.zeros(g.shape, dtype=bool)
    if rare != _NONE:
        ys, xs = np.nonzero(g == rare)
        inside[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] = True
    return inside


def _sole(values: Array, marked: Array) -> Array:
    """(h, w): of each cell's values (k, h, w), the one value that all its marked ones share,
    `_NONE` where they differ or none is marked."""
    hi = np.where(marked, values, -1).max(0)
    lo = np.where(marked, values, 99).min(0)
    return np.where(marked.any(0) & (hi == lo), hi, _NONE)


def _nearest(g: Array) -> Array:
    """The colour of the non-zero cells nearest each cell (in steps to an edge neighbour) where
    they have one colour, `_NONE` where colours tie; a non-zero cell's own colour."""
    out = np.where(g != 0, g.astype(np.int64), -1)  # -1: not reached yet
    while (out < 0).any():
        near = _around(out, "plus", -1)
        reached = (near >= 0).any(0) & (out < 0)
        if not reached.any():
            break
        out = np.where(reached, _sole(near, near >= 0), out)
    return np.where(out < 0, _NONE, out)


def _object_colours(g: Array) -> tuple[Array, Array]:
    """For each cell of an object of several colours (any colour, 8-connected), the object's
    most and least frequent colour, where one colour is (`_NONE` elsewhere)."""
    lab, n = labels(g, "multi8")
    counts = np.zeros((n + 1, 10), dtype=np.int64)
    np.add.at(counts, (lab.ravel(), g.ravel().astype(np.int64)), 1)
    counts[0] = 0
    counts[:, 0] = 0
    present = counts > 0
    several = present.sum(1) > 1
    top = counts.max(1, keepdims=True)
    rare = np.where(present, counts, np.iinfo(np.int64).max)  # absent colours are never the rarest
    low = rare.min(1, keepdims=True)
    main = np.where(several & ((counts == top).sum(1) == 1), counts.argmax(1), _NONE)
    marker = np.where(several & ((rare == low).sum(1) == 1), rare.argmin(1), _NONE)
    return main[lab], marker[lab]


def _around(g: Array, shape: str, outside: int) -> Array:
    """(k, h, w): each cell's neighbours in `NEIGHBOURS[shape]`, `outside` beyond the edge."""
    h, w = g.shape
    p = np.full((h + 2, w + 2), outside, dtype=np.int64)
    p[1:-1, 1:-1] = g
    return np.stack([p[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w] for dy, dx in NEIGHBOURS[shape]])


def _neighbours(g: Array, shape: str) -> Array:
    """How many of each cell's neighbours (`NEIGHBOURS[shape]`) are not 0."""
    return (_around(g, shape, 0) != 0).sum(0)


def _other_neighbours(g: Array) -> Array:
    """How many of a non-zero cell's eight neighbours have a non-zero colour not its own (0 on a 0 cell)."""
    around = _around(g, "box", 0)
    return ((around != 0) & (around != g)).sum(0) * (g != 0)


def _touching(g: Array) -> Array:
    """The one non-zero colour other than a cell's own among its four edge neighbours,
    `_NONE` where there is none or more than one."""
    around = _around(g, "plus", 0)
    return _sole(around, (around != 0) & (around != g))


def _same_neighbours(g: Array) -> Array:
    """How many of each cell's four edge neighbours have its colour."""
    return (_around(g, "plus", -1) == g).sum(0)


@grid_memo(256)
def features(g: Array) -> MappingProxyType[str, Array]:
    """Each feature's value for every cell, in the order tables try them; values are below 16."""
    h, w = g.shape
    looks = _looks(g)
    rows, cols = np.indices((h, w))
    lab, n = labels(g, "colour4")
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    sizes[0] = 0
    named = {
        "zero": g == 0,
        "line_side": _line_side(g),
        "inside": _inside(g),
        **{f"has_{name}": look != _NONE for name, look in zip(LOOKS, looks, strict=True)},
        "enclosed": enclosed(g),
        "in_rare_box": _in_rare_box(g, int(looks[LOOKS.index("rarest")].flat[0])),
        "neighbours": _neighbours(g, "plus"),
        "neighbours8": _neighbours(g, "box"),
        "same_neighbours": _same_neighbours(g),
        "alone": sizes[lab] == 1,
        "size": np.minimum(sizes[lab], 4),
        **_object_features(g, lab, sizes),
        "row_parity": rows % 2,
        "row3": rows % 3,
        "column3": cols % 3,
        "other_neighbours": _other_neighbours(g),
        "line_colours": np.minimum(_line_colours(g), 3),
        "distance": np.minimum(_distance(g), 3),
        "column_parity": cols % 2,
        "row_parity_end": (h - 1 - rows) % 2,  # counted from the bottom
        "column_parity_end": (w - 1 - cols) % 2,  # from the right
        "checker": (rows + cols) % 2,
        "edge": (rows == 0) | (cols == 0) | (rows == h - 1) | (cols == w - 1),
        "lines": (g != 0).any(1)[:, None] * 2 + (g != 0).any(0)[None, :],  # its row, its column has content
        "colour": g,
        **_object_places(lab, n, rows, cols),
        "row_mark": np.broadcast_to(_first_marks(g)[:, None], (h, w)),
        "column_mark": np.broadcast_to(_first_marks(g.T)[None, :], (h, w)),
        "touching": _touching(g),
        "path_shape": _path_shapes(lab),
        "grid_place": _grid_places(h, w),
    }
    return MappingProxyType({k: np.asarray(v, dtype=np.int64) for k, v in named.items()})


def _path_shapes(lab: Array) -> Array:
    """For each cell of an object (labelled one colour, 4-connected), the form of the object
    as a path: 4 x its ends (cells with one neighbour in it; at most 3) + its turns (cells
    whose two neighbours in it meet at a right angle; at most 3). An L gives 2 ends and 1
    turn, a U 2 and 2, a T 3 ends; 0 off objects (and on a lone cell)."""
    h, w = lab.shape
    p = np.zeros((h + 2, w + 2), dtype=lab.dtype)
    p[1:-1, 1:-1] = lab
    on = lab > 0
    up, down = on & (p[:-2, 1:-1] == lab), on & (p[2:, 1:-1] == lab)
    left, right = on & (p[1:-1, :-2] == lab), on & (p[1:-1, 2:] == lab)
    count = up.astype(np.int64) + down + left + right
    ends = np.bincount(lab[count == 1], minlength=lab.max() + 1)
    turns = np.bincount(lab[(count == 2) & ~(up & down) & ~(left & right)], minlength=lab.max() + 1)
    shape = 4 * np.minimum(ends, 3) + np.minimum(turns, 3)
    shape[0] = 0
    return shape[lab]


def _grid_places(h: int, w: int) -> Array:
    """Where a cell lies in the grid: 3 x its row's place + its column's, a place being 0 for
    the first, 1 for the middle (of an odd count) and 2 for the last; 9 for a cell that is
    none of these in its row or its column. So the corners, the middles of the edges and the
    centre each have a value, and every other cell shares one."""

    def places(n: int) -> Array:
        at = np.full(n, 3)
        if n % 2:
            at[n // 2] = 1
        at[-1], at[0] = 2, 0
        return at

    rows, cols = np.meshgrid(places(h), places(w), indexing="ij")
    return np.where((rows == 3) | (cols == 3), 9, 3 * rows + cols)


def _line_side(g: Array) -> Array:
    """Where each cell lies against the grid's full lines (a row or column all of one non-zero
    colour): bit 0 if a full row lies above it, bit 1 if one lies below it, bits 2 and 3 for a
    full column to its left and to its right; a line's own cells see only the other lines.
    Above, below or beside a divider, whatever its colour."""
    h, w = g.shape
    rows, cols = full_rows(g), full_rows(g.T)
    y, x = np.arange(h)[:, None], np.arange(w)[None, :]
    side = np.zeros((h, w), dtype=np.int64)
    if rows.size:
        side |= (y > rows.min()) * 1 | (y < rows.max()) * 2
    if cols.size:
        side |= (x > cols.min()) * 4 | (x < cols.max()) * 8
    return side


def _inside(g: Array) -> Array:
    """Whether a cell lies inside a closed shape of one colour not its own: cut off from the
    grid's border by the cells of that colour (through edge neighbours), whatever it holds.
    Only a colour with 4 cells or more, over 3 rows and 3 columns at least, can close a shape."""
    inside = np.zeros(g.shape, dtype=bool)
    counts = np.bincount(g.ravel(), minlength=10)
    for colour in np.flatnonzero(counts[1:] >= 4) + 1:
        wall = g == colour
        rows, cols = wall.any(1).nonzero()[0], wall.any(0).nonzero()[0]
        if rows[-1] - rows[0] < 2 or cols[-1] - cols[0] < 2:
            continue
        inside |= cut_off(g, ~wall)
    return inside


def _line_colours(g: Array) -> Array:
    """How many non-zero colours its row and its column have together."""
    rows = np.stack([(g == c).any(1) for c in range(1, 10)])  # (9, h)
    cols = np.stack([(g == c).any(0) for c in range(1, 10)])  # (9, w)
    return (rows[:, :, None] | cols[:, None, :]).sum(0)


def _distance(g: Array) -> Array:
    """Steps from each cell to the nearest non-zero cell through edge neighbours (0 on one)."""
    dist = np.where(g != 0, 0, 99)
    for k in range(1, 4):
        near = _around(dist, "plus", 99).min(0)
        dist = np.where((dist == 99) & (near == k - 1), k, dist)
    return dist


def _object_features(g: Array, lab: Array, sizes: Array) -> dict[str, Array]:
    """Features of the object (one colour, 4-connected) a cell is in: is it the one largest or
    the one smallest (no object is, when several share that size), does it touch the edge,
    the rank of its size (1 for the largest, at most 4; 0 off objects), is it the only
    object of its shape."""
    real = sizes[1:]
    if real.size == 0:
        zero = np.zeros(g.shape, dtype=bool)
        return {"largest": zero, "smallest": zero, "object_edge": zero, "size_rank": zero, "lone_shape": zero}
    largest = (sizes == real.max()) & ((real == real.max()).sum() == 1)
    smallest = (sizes == real.min()) & ((real == real.min()).sum() == 1)
    largest[0] = smallest[0] = False
    edge = np.zeros(sizes.size, dtype=bool)
    edge[np.concatenate((lab[0], lab[-1], lab[:, 0], lab[:, -1]))] = True
    edge[0] = False
    objs = objects(g, "colour4")  # in the order of `lab`'s labels
    rank = np.zeros(sizes.size, dtype=np.int64)
    rank[1:] = np.minimum(PROPERTIES["size_rank"](g, objs), 4)  # 1 for the largest size
    lone = np.zeros(sizes.size, dtype=bool)
    if len(objs) > 1:  # with several objects, one whose shape no other has
        lone[1:] = np.array(PROPERTIES["unique_shape"](g, objs)) == 1
    return {"largest": largest[lab], "smallest": smallest[lab], "object_edge": edge[lab],
            "size_rank": rank[lab], "lone_shape": lone[lab]}


def _object_places(lab: Array, n: int, rows: Array, cols: Array) -> dict[str, Array]:
    """Each object cell's row and column parity counted from its object's top row and left
    column, and the half of its object's box it lies in: 1 the top (left) half, 2 the middle
    row (column) of an odd box, 3 the bottom (right) half (one colour, 4-connected; 0 off
    objects)."""
    top, left, bottom, right = (np.concatenate(([0], a)) for a in label_boxes(lab, n))  # by label
    on = lab > 0
    return {"object_row_parity": on & ((rows - top[lab]) % 2 == 1),
            "object_column_parity": on & ((cols - left[lab]) % 2 == 1),
            "object_row_half": on * _half(rows - top[lab], bottom[lab] - top[lab]),
            "object_column_half": on * _half(cols - left[lab], right[lab] - left[lab])}


def _half(offset: Array, size: Array) -> Array:
    """1 for an offset in the first half of a span of that size, 2 for its middle (odd spans),
    3 for the second half."""
    twice = 2 * offset + 1
    return np.where(twice < size, 1, np.where(twice == size, 2, 3))


def _first_marks(g: Array) -> Array:
    """Each row's first non-zero column, from the left; 15 for an empty row and from column 15 on."""
    filled = g != 0
    return np.where(filled.any(1), np.minimum(filled.argmax(1), _BASE - 1), _BASE - 1)


def _answers(g: Array, target: Array) -> Array:
    """One bit set per cell: bit 0 if keeping its colour is right, bit 1 + i if taking
    `LOOKS[i]` is, bit `FIRST_PAINT` + c for painting its target colour c."""
    g64, t = g.astype(np.int64), target.astype(np.int64)
    bits = (g64 == t).astype(np.int64)
    for i, look in enumerate(_looks(g)):
        bits |= (look == t).astype(np.int64) << (1 + i)
    return (bits | (np.int64(1) << (FIRST_PAINT + t))).ravel()


def _fold(columns: Sequence[Array], size: int | tuple[int, ...]) -> Array:
    """Each cell's key from its values of some features (the first the most significant):
    the one encoding that fitting and applying a table share."""
    key = np.zeros(size, dtype=np.int64)
    for column in columns:
        key = key * _BASE + column
    return key


def _keys(g: Array, names: Sequence[str]) -> Array:
    feats = features(g)
    return _fold([feats[name].ravel() for name in names], g.size)


def fit_tables(grids: Sequence[Array], targets: Sequence[Array], deadline: float | None = None) -> list[CellTable]:
    """The tables of the fewest features (at most MAX_FEATURES, in `features`' order) whose
    every key has an answer that is right for all its train cells, at most MAX_TABLES; those
    found by `deadline` (a time.monotonic() value) if one is given."""
    if not same_shapes(grids, targets):
        return []
    answers = np.concatenate([_answers(g, t) for g, t in zip(grids, targets, strict=True)])
    names = list(features(grids[0]))
    values = np.concatenate([np.stack([f.ravel() for f in features(g).values()]) for g in grids], axis=1)
    _, alone = _common(values, answers, [(f,) for f in range(len(names))], 1)
    torn = np.take_along_axis(alone, values, axis=1) == 0  # per feature: cells of keys with no common answer
    tables: list[CellTable] = []
    for k in range(MAX_FEATURES + 1):
        combos = list(combinations(range(len(names)), k))
        for start in range(0, len(combos), _CHUNK):
            if deadline is not None and time.monotonic() > deadline:
                return tables
            for combo in _fitting(values, answers, combos[start : start + _CHUNK], k, torn):
                seen, allowed = _common(values, answers, [combo], k)
                tables.append(_table(tuple(names[f] for f in combo), seen[0], allowed[0]))
                if len(tables) == MAX_TABLES:
                    return tables
        if tables:
            return tables
    return tables


def _fitting(values: Array, answers: Array, combos: Sequence[tuple[int, ...]], k: int,
             torn: Array) -> list[tuple[int, ...]]:
    """The combinations of k features under which every key's cells have an answer in common.

    Two things make this cheaper than fitting each on every cell. A combination of several
    features is tried only on the cells that its first feature alone tears (`torn`): every
    other key of the first feature has a common answer, which the keys that split it keep.
    And most combinations fail, which shows on a sample of the cells, so only those that fit
    every 16th cell, then every 4th (`_SAMPLES`), are tried on all of them."""
    for step in [*(step for step in _SAMPLES if answers.size >= step * _BASE), 1]:
        cells = slice(None, None, step)
        mask = torn[[combo[0] for combo in combos]][:, cells] if k > 1 else None
        seen, allowed = _common(values[:, cells], answers[cells], combos, k, mask)
        combos = list(compress(combos, ~((allowed == 0) & seen).any(1)))
        if not combos:
            break
    return combos


def _common(values: Array, answers: Array, combos: Sequence[tuple[int, ...]], k: int,
            cells: Array | None = None) -> tuple[Array, Array]:
    """For each combination of k features (rows of `values`), (C, _BASE**k) arrays: which
    keys its cells have (only the `cells`, a (C, n) mask, if given), and each key's answers
    right for all of its cells (bits ANDed). The combinations are fitted together, each on a
    range of keys of its own."""
    span = _BASE**k  # every key of k features is below it: no sorting
    keys = _fold([values[[combo[j] for combo in combos]] for j in range(k)], (len(combos), answers.size))
    keys += np.arange(len(combos))[:, None] * span
    answers = np.broadcast_to(answers, keys.shape)
    keys, answers = (keys.ravel(), answers.ravel()) if cells is None else (keys[cells], answers[cells])
    allowed = np.full(len(combos) * span, -1, dtype=np.int64)
    np.bitwise_and.at(allowed, keys, answers)
    seen = np.bincount(keys, minlength=allowed.size) > 0
    return seen.reshape(len(combos), span), allowed.reshape(len(combos), span)


def _table(names: tuple[str, ...], seen: Array, allowed: Array) -> CellTable:
    """The table of these features: each key seen, with the first of its common answers
    (keep first, then take a look, then paint)."""
    keys = np.flatnonzero(seen)
    lowest = allowed[keys] & -allowed[keys]
    return names, tuple(keys.tolist()), tuple(np.log2(lowest).astype(int).tolist())


def fit_table(grids: Sequence[Array], targets: Sequence[Array], names: Sequence[str]) -> CellTable | None:
    """The table keyed by the given features that explains every train cell, or None: what
    `fit_tables` would give for those features, fitted again on fewer pairs."""
    if not same_shapes(grids, targets):
        return None
    answers = np.concatenate([_answers(g, t) for g, t in zip(grids, targets, strict=True)])
    values = np.array([np.concatenate([features(g)[name].ravel() for g in grids]) for name in names],
                      dtype=np.int64).reshape(len(names), answers.size)  # (0, n) for a table of no feature
    seen, allowed = _common(values, answers, [tuple(range(len(names)))], len(names))
    if (seen[0] & (allowed[0] == 0)).any():
        return None
    return _table(tuple(names), seen[0], allowed[0])


def apply_table(g: Array, table: CellTable) -> Array | None:
    """Each cell's new colour by the table; None if some cell's key is not in it or its
    answer takes a colour from a direction that sees none."""
    names, known, answers = table
    at = lookup(known, _keys(g, names))
    if at is None:
        return None
    answer = np.asarray(answers, dtype=np.int64)[at]
    out = np.where(answer >= FIRST_PAINT, answer - FIRST_PAINT, g.ravel().astype(np.int64))
    looks = _looks(g).reshape(len(LOOKS), -1)
    taking = (answer >= 1) & (answer < FIRST_PAINT)
    out[taking] = looks[answer[taking] - 1, np.flatnonzero(taking)]
    if (out == _NONE).any():
        return None
    return out.reshape(g.shape).astype(g.dtype)
