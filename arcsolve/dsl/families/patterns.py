"""Drawing and pattern operations found missing by studying the train tasks the search did
not solve: stamps learned per kind of object, diagonal connections, line ends continued,
diagonals continued and turned back by what they meet, rays from the edges that step aside
past obstacles, copies onto marker cells (one template, or one per key colour), square
holes filled, crossing lines and rings around where lines cross, stairs grown and shrunk
line by line from a bar, enclosed regions filled by their shape, L-shaped joins, lone
cells moved onto the line of their colour, cells drawn up to the full line of their
colour.
"""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import raw_inputs, same_shapes
from arcsolve.dsl.primitives.blocks import crossing_lines, full_rows
from arcsolve.dsl.primitives.drawing import lines_along
from arcsolve.dsl.primitives.objects import Obj, enclosed, label, objects

Array = np.ndarray
Stamps = tuple[tuple[bytes, tuple[int, int], bytes], ...]  # object key, stamp shape, stamp cells

_UNKNOWN = -1  # a stamp cell the train pairs never showed (it fell outside the grid)
AROUND = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))  # the eight neighbours (dy, dx)
_DIAGONALS = ((1, 1), (1, -1))


def _object_key(g: Array, o: Obj, colours: str) -> tuple[bytes, list[int]]:
    """The object's cells in its bounding box (other cells 0), with the box's size: equal for
    objects of the same shape and colours. With colours 'relative', the colours are numbered
    in reading order (equal for objects that differ only by a renaming of their colours), and
    they come with the key in that order."""
    crop = np.where(o.mask[o.box], g[o.box], 0).astype(np.int8)
    if colours == "exact":
        return bytes(crop.shape) + crop.tobytes(), []
    own = list(dict.fromkeys(crop[crop != 0].tolist()))
    numbers = np.zeros(10, dtype=np.int8)
    numbers[own] = np.arange(1, len(own) + 1)
    return bytes(crop.shape) + numbers[crop].tobytes(), own


def _ring_window(o: Obj) -> tuple[slice, slice]:
    """The object's bounding box grown by one cell on each side, in a grid padded by one."""
    rows, cols = o.box
    return slice(rows.start, rows.stop + 2), slice(cols.start, cols.stop + 2)


def fit_stamps(grids: list[Array], targets: list[Array], colours: str = "exact") -> Stamps | None:
    """For each kind of object (8-connected, same shape and colours, see `_object_key`), what
    the targets show over its box and the ring around it, relative colours written -2 - i for
    the object's i-th colour. None if two objects of a kind disagree, if sizes differ, or if a
    kind that changes anything was seen only once (no evidence of a rule)."""
    table: dict[bytes, Array] = {}
    seen_twice: set[bytes] = set()
    changes: set[bytes] = set()
    for g, t in zip(grids, targets, strict=True):
        if g.shape != t.shape:
            return None
        padded = np.pad(t.astype(np.int8), 1, constant_values=_UNKNOWN)
        before = np.pad(g.astype(np.int8), 1, constant_values=_UNKNOWN)
        for o in objects(g, "multi8"):
            window = _ring_window(o)
            key, own = _object_key(g, o, colours)
            seen = padded[window].copy()
            if (seen != before[window]).any():
                changes.add(key)
            for i, c in enumerate(own):
                seen[padded[window] == c] = -2 - i
            if key in table:
                seen_twice.add(key)
            known = table.setdefault(key, seen)
            both = (known != _UNKNOWN) & (seen != _UNKNOWN)
            if (known[both] != seen[both]).any():
                return None
            table[key] = np.where(known != _UNKNOWN, known, seen)
    if not changes <= seen_twice:
        return None
    return tuple(sorted((key, s.shape, s.tobytes()) for key, s in table.items()))


@lru_cache(maxsize=64)
def _stamp_lookup(table: Stamps) -> dict[bytes, Array]:
    """The stamps of a table by object key, as arrays."""
    return {key: np.frombuffer(cells, dtype=np.int8).reshape(shape) for key, shape, cells in table}


def stamp_objects(g: Array, colours: str, table: Stamps) -> Array | None:
    """Redraw each object and the ring around it as the train pairs showed for its kind (None on an unseen kind)."""
    objs = objects(g, "multi8")
    if not objs:
        return None
    stamps = _stamp_lookup(table)
    out = np.pad(g, 1)
    free = np.pad(g == 0, 1)
    for o in objs:
        key, own = _object_key(g, o, colours)
        stamp = stamps.get(key)
        if stamp is None:
            return None
        if own:  # relative colours: -2 - i is the object's i-th colour
            refs = stamp <= -2
            stamp = stamp.copy()
            stamp[refs] = np.asarray(own, dtype=np.int8)[-2 - stamp[refs]]
        window = _ring_window(o)
        own_cells = np.pad(o.mask, 1)[window]
        put = (stamp != _UNKNOWN) & (own_cells | free[window])
        out[window][put] = stamp[put]
    return out[1:-1, 1:-1]


@lru_cache(maxsize=256)
def _line_order(h: int, w: int, dy: int, dx: int) -> tuple[Array, Array, Array]:
    """The cells of an h x w grid (flat indices) sorted along the lines of direction (dy, dx),
    line by line and step by step; for each sorted position, where its line starts; and the
    position of each cell in that order."""
    line, step, _ = lines_along(h, w, dy, dx)
    line = line.ravel()
    order = np.lexsort((step.ravel(), line))
    sorted_line = line[order]
    starts = np.flatnonzero(np.r_[True, sorted_line[1:] != sorted_line[:-1]])
    line_start = np.repeat(starts, np.diff(np.r_[starts, h * w]))
    rank = np.empty(h * w, dtype=np.intp)
    rank[order] = np.arange(h * w)
    for a in (order, line_start, rank):
        a.flags.writeable = False
    return order, line_start, rank


def _behind(g: Array, dy: int, dx: int) -> Array:
    """For each cell, the flat index of the nearest non-zero cell at or behind it along (dy, dx)
    on its line, or -1."""
    h, w = g.shape
    order, line_start, rank = _line_order(h, w, dy, dx)
    pos = np.arange(h * w)
    last = np.maximum.accumulate(np.where(g.ravel()[order] != 0, pos, -1))
    found = np.where(last >= line_start, order[np.maximum(last, 0)], -1)
    return found[rank].reshape(h, w)


def _with_none(values: Array, none) -> Array:
    """The values, flattened, with one more at the end: what index -1 (no cell) reads."""
    out = np.empty(values.size + 1, dtype=values.dtype)
    out[:-1] = values.ravel()
    out[-1] = none
    return out


def connect_diagonal(g: Array) -> Array | None:
    """Draw a diagonal line between consecutive same-coloured cells of each diagonal, over zero cells."""
    ys, xs = np.nonzero(g)
    colours = g[ys, xs]
    out = g.copy()
    for dy, dx in _DIAGONALS:
        line = xs * dy - ys * dx  # constant along the direction (dy, dx)
        order = np.lexsort((ys, line))
        y, x, ln, c = ys[order], xs[order], line[order], colours[order]
        pair = (ln[1:] == ln[:-1]) & (c[1:] == c[:-1]) & (y[1:] - y[:-1] > 1)
        if not pair.any():
            continue
        gaps = (y[1:] - y[:-1] - 1)[pair]
        steps = np.arange(gaps.sum()) - np.repeat(np.cumsum(gaps) - gaps, gaps) + 1
        ly, lx = np.repeat(y[:-1][pair], gaps) + steps * dy, np.repeat(x[:-1][pair], gaps) + steps * dx
        free = out[ly, lx] == 0  # the first line wins where two cross
        out[ly[free], lx[free]] = np.repeat(c[:-1][pair], gaps)[free]
    return None if np.array_equal(out, g) else out


def _extend_tips(g: Array, c: int | None) -> Array | None:
    """Continue the line ends of colour c (of any colour if None) away from their line."""
    h, w = g.shape
    solid = np.zeros((h + 2, w + 2), dtype=np.int8)
    solid[1:-1, 1:-1] = g != 0
    behind = [solid[1 - dy : 1 - dy + h, 1 - dx : 1 - dx + w] for dy, dx in AROUND]
    tips = (g != 0 if c is None else g == c) & (sum(behind) == 1)
    if not tips.any():
        return None
    out = g
    for (dy, dx), back in zip(AROUND, behind, strict=True):
        sources = tips & (back == 1)
        if not sources.any():
            continue
        nearest = _behind(g, dy, dx)
        out = np.where((g == 0) & _with_none(sources, False)[nearest], g.ravel()[nearest], out)
    return None if np.array_equal(out, g) else out


def extend_tips(g: Array) -> Array | None:
    """Continue each line end (a cell with one non-zero neighbour of eight) away from it, up to an obstacle."""
    return _extend_tips(g, None)


def extend_tips_of(g: Array, c: int) -> Array | None:
    """Continue each line end of colour c away from the line, up to an obstacle; the other ends stay."""
    return _extend_tips(g, c)


def _bounce_path(g: Array, y: int, x: int, dy: int, dx: int) -> list[tuple[int, int]]:
    """The zero cells a diagonal path from (y, x) heading (dy, dx) crosses: a non-zero cell
    beside it across its row or column turns it back along that axis; it ends at the grid's
    edge, where both ways are blocked, or where it would cross itself."""
    h, w = g.shape
    path: list[tuple[int, int]] = []
    seen = set()
    while True:
        ny, nx = y + dy, x + dx
        if not (0 <= ny < h and 0 <= nx < w):
            return path
        if g[ny, nx] != 0:
            flip_y = 0 <= ny < h and g[ny, x] != 0
            flip_x = 0 <= nx < w and g[y, nx] != 0
            if flip_y == flip_x:  # a corner, or a lone cell straight ahead: no way to turn
                return path
            dy, dx = (-dy, dx) if flip_y else (dy, -dx)
            ny, nx = y + dy, x + dx
            if not (0 <= ny < h and 0 <= nx < w) or g[ny, nx] != 0:
                return path
        if (ny, nx, dy, dx) in seen:
            return path
        seen.add((ny, nx, dy, dx))
        path.append((ny, nx))
        y, x = ny, nx


def bounce_diagonals(g: Array, c: int) -> Array | None:
    """Continue each diagonal segment in colour c from its open ends, turning off non-zero cells, up to the edge."""
    out = g.copy()
    drawn = False
    for o in objects(g, "multi8"):
        ys, xs = np.nonzero(o.mask)
        if o.size < 2 or len(o.colours) != 1:
            continue
        order = np.argsort(ys)
        ys, xs = ys[order], xs[order]
        steps = {(int(a), int(b)) for a, b in zip(np.diff(ys), np.diff(xs), strict=True)}
        if len(steps) != 1 or abs(next(iter(steps))[1]) != 1 or next(iter(steps))[0] != 1:
            continue  # not one diagonal line
        dy, dx = next(iter(steps))
        for y, x, sy, sx in ((ys[-1], xs[-1], dy, dx), (ys[0], xs[0], -dy, -dx)):
            for py, px in _bounce_path(g, int(y), int(x), sy, sx):
                out[py, px] = c
                drawn = True
    return out if drawn else None


def detour_rays(g: Array, c: int, side: str) -> Array | None:
    """A ray into the grid from each colour-c cell (0: any) on an edge, stepping aside ('left', 'right') at blocks."""
    h, w = g.shape
    out = g.copy()
    drawn = False
    for y, x in np.argwhere(g == c if c else g != 0).tolist():
        edges = [(dy, dx) for on, dy, dx in ((y == 0, 1, 0), (y == h - 1, -1, 0), (x == 0, 0, 1), (x == w - 1, 0, -1))
                 if on]
        if len(edges) != 1:
            continue  # inside, or a corner: no one way in
        dy, dx = edges[0]
        colour = g[y, x]
        sy, sx = (dx, -dy) if side == "right" else (-dx, dy)  # a quarter turn from the heading
        while True:
            ny, nx = y + dy, x + dx
            if not (0 <= ny < h and 0 <= nx < w):
                break
            if g[ny, nx] != 0:
                ny, nx = y + sy, x + sx
                if not (0 <= ny < h and 0 <= nx < w) or g[ny, nx] != 0:
                    break
            if out[ny, nx] == 0:
                out[ny, nx] = colour
                drawn = True
            y, x = ny, nx
    return out if drawn else None


def stairs(g: Array, grow: int, shrink: int, side: str) -> Array | None:
    """From the one bar at an edge, lines on one side grow a cell each (colour grow), on the other shrink (shrink)."""
    ys, xs = np.nonzero(g)
    if ys.size < 2 or np.unique(g[ys, xs]).size != 1:
        return None
    for k in range(4):  # the quarter turn that lays the bar along a row from the left edge
        t = np.rot90(g, k)
        ys, xs = np.nonzero(t)
        if (ys == ys[0]).all() and xs.min() == 0 and xs.max() == xs.size - 1:
            break
    else:
        return None
    row, length = int(ys[0]), xs.size
    out = t.copy()
    for step in range(1, t.shape[0]):
        for y, colour, n in ((row - step, grow, length + step), (row + step, shrink, length - step)):
            if side == "right":
                y = 2 * row - y
            if 0 <= y < t.shape[0] and n > 0:
                out[y, :n] = colour
    return np.ascontiguousarray(np.rot90(out, -k))


def _pattern(g: Array, o: Obj) -> Array:
    """An object's cells in its bounding box, 0 elsewhere."""
    return np.where(o.mask[o.box], g[o.box], 0)


def _draw_at(out: Array, pattern: Array, y: int, x: int) -> None:
    """Draw a pattern's non-zero cells with its cell (0, 0) at (y, x), clipped to the grid."""
    h, w = out.shape
    cells = np.argwhere(pattern != 0)
    at = cells + (y, x)
    inside = (at >= 0).all(1) & (at[:, 0] < h) & (at[:, 1] < w)
    out[at[inside, 0], at[inside, 1]] = pattern[cells[inside, 0], cells[inside, 1]]


def _without_full_lines(g: Array) -> Array:
    """g with its full lines (rows or columns of one non-zero colour) erased: separators are
    not part of the objects beside them."""
    rows, cols = full_rows(g), full_rows(g.T)
    if not rows.size and not cols.size:
        return g
    out = g.copy()
    out[rows] = 0
    out[:, cols] = 0
    return out


def copy_to_markers(g: Array) -> Array | None:
    """Copy the one object of several cells (lines across the grid aside) onto each lone cell, on its cell or centre."""
    objs = objects(_without_full_lines(g), "multi8")
    shapes = [o for o in objs if o.size > 1]
    markers = [o for o in objs if o.size == 1]
    if len(shapes) != 1 or not markers:
        return None
    pattern = _pattern(g, shapes[0])
    ph, pw = pattern.shape
    out = g.copy()
    for marker in markers:
        y, x = marker.box[0].start, marker.box[1].start
        same = np.argwhere(pattern == g[y, x])
        if len(same) == 1:
            ay, ax = same[0]
        elif ph % 2 and pw % 2:
            ay, ax = ph // 2, pw // 2
        else:
            return None
        out[y, x] = 0
        _draw_at(out, pattern, y - ay, x - ax)
    return out


def copy_to_keys(g: Array, mirrored: str) -> Array | None:
    """Copy onto each lone cell the object with one cell of its colour, aligned there; keys in `mirrored` flip it."""
    objs = objects(g, "multi8")
    shapes = [o for o in objs if o.size > 1]
    markers = [o for o in objs if o.size == 1]
    if not shapes or not markers:
        return None
    patterns = [_pattern(g, o) for o in shapes]
    flipped = set(mirrored.split("+"))
    out = g.copy()
    for marker in markers:
        y, x = marker.box[0].start, marker.box[1].start
        key = g[y, x]
        holders = [p for p in patterns if np.count_nonzero(p == key) == 1]
        if len(holders) != 1:
            return None  # no template, or several, for this key
        pattern = holders[0][:, ::-1] if str(key) in flipped else holders[0]
        [(ay, ax)] = np.argwhere(pattern == key)
        _draw_at(out, pattern, y - ay, x - ax)
    return out


@grid_memo()
def _square_holes(g: Array, k: int) -> Array | None:
    """Non-overlapping k x k squares of zero cells, taken greedily in reading order (None if none)."""
    h, w = g.shape
    if h < k or w < k:
        return None
    empty = sliding_window_view(g == 0, (k, k)).all((2, 3))
    if not empty.any():
        return None
    taken = np.zeros(g.shape, dtype=bool)
    for y, x in zip(*np.nonzero(empty), strict=True):
        if not taken[y : y + k, x : x + k].any():
            taken[y : y + k, x : x + k] = True
    return taken


def fill_squares(g: Array, k: int, c: int) -> Array | None:
    """Colour c into k x k squares of zero cells, non-overlapping, taken in reading order."""
    holes = _square_holes(g, k)
    return None if holes is None else np.where(holes, np.asarray(c, dtype=g.dtype), g)


@grid_memo()
def _holes(g: Array) -> tuple[Array, Array, Array] | None:
    """The enclosed zero regions (4-connected) as labels 1..n, and for each label (0: none)
    whether the region fills its bounding box, and 1 / 0 if that box is a square of odd /
    even side (-1 if it is not square); None if there is no enclosed region."""
    lab, n = label(g, enclosed(g), diagonal=False, by_colour=False)
    if n == 0:
        return None
    ys, xs = np.nonzero(lab)
    ids = lab[ys, xs]
    top, left = np.full(n + 1, 99), np.full(n + 1, 99)
    bottom, right = np.full(n + 1, -1), np.full(n + 1, -1)
    np.minimum.at(top, ids, ys)
    np.minimum.at(left, ids, xs)
    np.maximum.at(bottom, ids, ys)
    np.maximum.at(right, ids, xs)
    height, width = bottom - top + 1, right - left + 1
    full = np.bincount(ids, minlength=n + 1) == height * width
    full[0] = False
    return lab, full, np.where(height == width, height % 2, -1)


# Which enclosed regions `fill_holes` fills: from (fills its box, 1 / 0 for an odd / even
# square and -1 for a rectangle that is not square).
_HOLE_KINDS = MappingProxyType({
    "rect": lambda full, square: full,
    "square": lambda full, square: full & (square >= 0),
    "odd": lambda full, square: full & (square == 1),
    "even": lambda full, square: full & (square == 0),
})


def fill_holes(g: Array, kind: str, c: int) -> Array | None:
    """Colour c into the enclosed zero regions that are full rectangles, squares, or squares of odd or even side."""
    found = _holes(g)
    if found is None:
        return None
    lab, full, square = found
    return np.where(_HOLE_KINDS[kind](full, square)[lab], np.asarray(c, dtype=g.dtype), g)


def _line_colours(g: Array) -> Array | None:
    """Each row's one non-zero colour (0 for an empty row); None if a row has two."""
    top = g.max(1)
    return top if ((g == top[:, None]) | (g == 0)).all() else None


def cross_lines(g: Array, c: int) -> Array | None:
    """Draw each non-zero cell's row and column in its colour over zeros; colour c where a row and a column cross."""
    rows, cols = _line_colours(g), _line_colours(g.T)
    if rows is None or cols is None or np.count_nonzero(g) < 2:
        return None
    across, down = rows[:, None] != 0, cols[None, :] != 0
    zero = g == 0
    out = np.where(zero & across, rows[:, None], g)
    out = np.where(zero & down, cols[None, :], out)
    return np.where(zero & across & down, np.asarray(c, dtype=g.dtype), out)


def ring_crossings(g: Array, c: int) -> Array | None:
    """Draw a ring of colour c around each cell where a full row line crosses a full column line."""
    h, w = g.shape
    rows, cols = crossing_lines(g)
    ys, xs = np.nonzero(rows[1:-1])[0] + 1, np.nonzero(cols[1:-1])[0] + 1  # a line at the edge meets, not crosses
    if not ys.size or not xs.size:
        return None
    ring = np.zeros((h + 2, w + 2), dtype=bool)  # padded by one, so that rings may leave the grid
    for y in ys.tolist():
        for x in xs.tolist():
            ring[y : y + 3, x : x + 3] = True
    ring = ring[1:-1, 1:-1]
    ring[np.ix_(ys, xs)] = False
    return np.where(ring, np.asarray(c, dtype=g.dtype), g)


def _single_cell(g: Array, colour: int) -> tuple[int, int] | None:
    """Where the grid's one cell of a colour is (None if it has none or several)."""
    ys, xs = np.nonzero(g == colour)
    return (int(ys[0]), int(xs[0])) if len(ys) == 1 else None


def elbow(g: Array, a: int, b: int, c: int, first: str) -> Array | None:
    """Join the one cell of colour a to the one of colour b by an L of colour c over zeros, first along 'h' or 'v'."""
    start, end = _single_cell(g, a), _single_cell(g, b)
    if start is None or end is None:
        return None
    (y0, x0), (y1, x1) = start, end
    turn = (y0, x1) if first == "h" else (y1, x0)
    path = np.zeros(g.shape, dtype=bool)
    for (ya, xa), (yb, xb) in ((start, turn), (turn, end)):
        path[min(ya, yb) : max(ya, yb) + 1, min(xa, xb) : max(xa, xb) + 1] = True
    return np.where(path & (g == 0), np.asarray(c, dtype=g.dtype), g)


def _landing(line: Obj, y: int, x: int) -> tuple[int, int, int] | None:
    """Where a cell at (y, x) lands moving straight onto a line one cell thick, beside it on
    the cell's side, with the distance it moves; None if the line is not across its path."""
    rows, cols = line.box
    if rows.stop - rows.start == 1:
        if not cols.start <= x < cols.stop:
            return None
        to = rows.start - 1 if y < rows.start else rows.start + 1
        return abs(to - y), to, x
    if not rows.start <= y < rows.stop:
        return None
    to = cols.start - 1 if x < cols.start else cols.start + 1
    return abs(to - x), y, to


def join_lines(g: Array) -> Array | None:
    """Move each lone cell straight onto the nearest line of its colour; one with no such line in its path vanishes."""
    lines: dict[int, list[Obj]] = {}
    lone = []
    for o in objects(g, "colour4"):
        rows, cols = o.box
        if o.size == 1:
            lone.append(o)
        elif o.size >= 3 and min(rows.stop - rows.start, cols.stop - cols.start) == 1:
            lines.setdefault(o.colours[0], []).append(o)
    if not lone or not lines:
        return None
    out = g.copy()
    for o in lone:
        y, x = o.box[0].start, o.box[1].start
        out[y, x] = 0
        landings = sorted(filter(None, (_landing(line, y, x) for line in lines.get(int(g[y, x]), []))))
        if len(landings) > 1 and landings[0][0] == landings[1][0]:
            return None
        if landings:
            out[landings[0][1], landings[0][2]] = g[y, x]
    return out


def reach_lines(g: Array) -> Array | None:
    """Draw from each cell off the grid's full lines straight up to the nearest full line of its colour, over zeros."""
    row, col = crossing_lines(g)
    free = (row[:, None] == 0) & (col[None, :] == 0) & np.isin(g, np.concatenate((row, col))) & (g != 0)
    if not free.any():
        return None
    out = g.copy()
    for y, x in zip(*np.nonzero(free), strict=True):
        c = g[y, x]
        reach = [(abs(int(r) - y), int(r), x) for r in np.flatnonzero(row == c)]
        reach += [(abs(int(k) - x), y, int(k)) for k in np.flatnonzero(col == c)]
        if not reach:
            continue
        reach.sort()
        if len(reach) > 1 and reach[0][0] == reach[1][0]:
            return None  # two lines of its colour equally near
        _, ty, tx = reach[0]
        path = out[min(y, ty) : max(y, ty) + 1, min(x, tx) : max(x, tx) + 1]
        path[path == 0] = c
    return None if np.array_equal(out, g) else out


def _stamps(grids, targets, facts) -> list[tuple]:
    """Stamps fitted on the train inputs themselves (on derived grids a table that merely
    memorises would verify too easily), with colours exact and relative, if the targets
    differ from the inputs."""
    if not raw_inputs(grids, facts):
        return []
    if all(g.shape == t.shape and np.array_equal(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    tables = ((colours, fit_stamps(list(grids), list(targets), colours)) for colours in ("exact", "relative"))
    return [(colours, table) for colours, table in tables if table is not None]


def _full_lines_params(grids, targets, facts) -> list[tuple]:
    """Tried where every train grid has a full line (crossed lines allowed)."""
    return [()] if all(any(lines.any() for lines in crossing_lines(g)) for g in grids) else []


def _hole_params(grids, targets, facts) -> list[tuple]:
    """Each kind of region in each colour that the targets draw on zero cells."""
    return [(kind, c) for kind in _HOLE_KINDS for c in facts.drawn]


def _elbow_params(grids, targets, facts) -> list[tuple]:
    """Pairs of colours that every grid has exactly one cell of, each drawn colour, both turns."""
    present = sorted({int(c) for g in grids for c in np.unique(g)} - {0})
    single = [c for c in present if all(_single_cell(g, c) is not None for g in grids)]
    return [(a, b, c, first) for i, a in enumerate(single) for b in single[i + 1 :]
            for c in facts.drawn for first in ("h", "v")]


def _key_mirrors(grids, targets, facts) -> list[tuple]:
    """No key mirrored ('none'), each lone cells' colour alone, or all of them ('2+3'); where
    every grid has a lone cell and an object of several cells, and the targets keep the sizes
    and draw."""
    if not facts.drawn or not same_shapes(grids, targets):
        return []
    keys: set[int] = set()
    for g in grids:
        objs = objects(g, "multi8")
        sizes = [o.size for o in objs]
        if 1 not in sizes or max(sizes) < 2:
            return []
        keys |= {o.colours[0] for o in objs if o.size == 1}
    keys_sorted = [str(k) for k in sorted(keys)]
    return [("none",), *((k,) for k in keys_sorted), *([("+".join(keys_sorted),)] if len(keys) > 1 else [])]


def _square_holes_params(grids, targets, facts) -> list[tuple]:
    """Square sizes 2 and 3 in each colour that the targets draw on zero cells."""
    return [(k, c) for k in (2, 3) for c in facts.drawn]


def _detour_params(grids, targets, facts) -> list[tuple]:
    """Each colour the targets draw on zero cells that some input has on its edge, and any colour (0) where the
    targets draw several, stepping either way."""
    if not same_shapes(grids, targets):
        return []
    edged = set()
    for g in grids:
        edged |= {int(c) for c in np.concatenate([g[0], g[-1], g[:, 0], g[:, -1]]) if c}
    colours = [c for c in facts.drawn if c in edged]
    return [(c, side) for c in colours + ([0] if len(colours) > 1 else []) for side in ("left", "right")]


def _stairs_params(grids, targets, facts) -> list[tuple]:
    """The colours the targets draw on zero cells, for the growing and the shrinking side, either way round."""
    if not same_shapes(grids, targets):
        return []
    return [(a, b, side) for a in facts.drawn for b in facts.drawn for side in ("left", "right")]


REGISTRY: tuple = (
    (stamp_objects, "stamps", "same"),
    (connect_diagonal, "none", "same"),
    (extend_tips, "none", "same"),
    (extend_tips_of, "drawn", "same"),
    (bounce_diagonals, "drawn", "same"),
    (detour_rays, "detour", "same"),
    (stairs, "stairs", "same"),
    (copy_to_markers, "none", "same"),
    (copy_to_keys, "key_mirrors", "same"),
    (fill_squares, "square_holes", "same"),
    (cross_lines, "drawn", "same"),
    (ring_crossings, "drawn", "same"),
    (fill_holes, "hole_kinds", "same"),
    (elbow, "elbow", "same"),
    (join_lines, "none", "same"),
    (reach_lines, "full_lines", "same"),
)
PARAM_KINDS: dict = {
    "stamps": _stamps,
    "square_holes": _square_holes_params,
    "key_mirrors": _key_mirrors,
    "hole_kinds": _hole_params,
    "elbow": _elbow_params,
    "full_lines": _full_lines_params,
    "detour": _detour_params,
    "stairs": _stairs_params,
}
