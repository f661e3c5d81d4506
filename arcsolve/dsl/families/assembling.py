"""Assembling grids from transformed copies of the input: tilings with a pattern of
mirrors and turns, blocks between separator lines redrawn as turned copies of one another,
reflections that share their edge line, patterns continued to a fixed size, edges grown
outwards, objects set side by side, corner pieces fitted together into a frame, scattered cells
gathered into a small grid, and a pattern of one colour painted by a small key of colours.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import fixed_size, same_shapes
from arcsolve.dsl.primitives.blocks import cut
from arcsolve.dsl.primitives.geometry import antitranspose, flip_h, flip_v, rot90, rot180, rot270, transpose
from arcsolve.dsl.primitives.objects import Obj, line_blocks, objects

Array = np.ndarray

# The eight dihedral transforms, the identity first so that an ambiguous copy reads as plain.
DIHEDRAL: MappingProxyType[str, Callable[[Array], Array]] = MappingProxyType({
    "id": lambda g: g,
    **{fn.__name__: fn for fn in (flip_h, flip_v, rot180, transpose, rot90, rot270, antitranspose)},
})


# --- tilings of transformed copies ------------------------------------------------------


@lru_cache(maxsize=256)
def _layout(text: str) -> tuple[tuple[str, ...], ...]:
    """'id flip_h / flip_v rot180' as rows of transform names."""
    return tuple(tuple(row.split()) for row in text.split("/"))


def dihedral_tile(g: Array, layout: str) -> Array | None:
    """Tile with copies each turned or mirrored as a learned layout says ('id flip_h / rot180 id')."""
    rows = _layout(layout)
    turns = any(name in ("transpose", "rot90", "rot270", "antitranspose") for row in rows for name in row)
    if turns and g.shape[0] != g.shape[1]:
        return None
    return np.concatenate([np.concatenate([DIHEDRAL[name](g) for name in row], 1) for row in rows], 0)


def _fit_layout(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple[str]]:
    """The one layout of transformed copies that builds every target from its grid, if any:
    2 to 16 copies, as many on every pair, of grids larger than one cell (whose copies are all
    alike)."""
    counts = set()
    for g, t in zip(grids, targets, strict=True):
        (h, w), (th, tw) = g.shape, t.shape
        if th % h or tw % w:
            return []
        counts.add((th // h, tw // w))
    if len(counts) != 1:
        return []
    ky, kx = counts.pop()
    if not 2 <= ky * kx <= 16 or any(g.size == 1 for g in grids):
        return []
    square = all(g.shape[0] == g.shape[1] for g in grids)
    names = [n for n in DIHEDRAL if square or n in ("id", "flip_h", "flip_v", "rot180")]
    pairs = list(zip(grids, targets, strict=True))
    looks = {n: [DIHEDRAL[n](g).tobytes() for g, _ in pairs] for n in names}
    blocks = [t.reshape(ky, g.shape[0], kx, g.shape[1]).swapaxes(1, 2) for g, t in pairs]
    rows = []
    for i in range(ky):
        row = []
        for j in range(kx):
            copy = [b[i, j].tobytes() for b in blocks]
            fits = [n for n in names if looks[n] == copy]
            if not fits:
                return []
            row.append(fits[0])
        rows.append(" ".join(row))
    return [(" / ".join(rows),)]


# --- blocks between separator lines -----------------------------------------------------


def arrange_blocks(g: Array, layout: tuple[tuple[int, str], ...]) -> Array | None:
    """Redraw each block between separator lines as a learned (source block, turn or mirror) says, in reading order."""
    # the blocks are `line_blocks`; the layout names, for each, its source block's index and
    # the transform's name in `DIHEDRAL`
    boxes = line_blocks(g)
    if boxes is None or len(boxes) != len(layout):
        return None
    out = g.copy()
    for box, (source, name) in zip(boxes, layout, strict=True):
        block = DIHEDRAL[name](g[boxes[source]])
        if block.shape != out[box].shape:
            return None
        out[box] = block
    return out


def _block_layouts(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple]:
    """The layout that rebuilds every target's blocks from its grid's, if one does: for each
    block, the (source, transform) pairs that fit it on every pair, preferring the block itself
    unchanged, then the lowest source and the first transform; none if nothing changes."""
    if not same_shapes(grids, targets):
        return []
    fits: list[set] | None = None
    for g, t in zip(grids, targets, strict=True):
        boxes = line_blocks(g)
        if boxes is None or (fits is not None and len(fits) != len(boxes)):
            return []
        square = g[boxes[0]].shape[0] == g[boxes[0]].shape[1]
        names = [n for n in DIHEDRAL if square or n in ("id", "flip_h", "flip_v", "rot180")]
        looks: dict[tuple, set] = {}  # each look of a block, by its shape and cells: the blocks and transforms
        for j, box in enumerate(boxes):
            for n in names:
                looks.setdefault(_cells(DIHEDRAL[n](g[box])), set()).add((j, n))
        here = [looks.get(_cells(t[box]), set()) for box in boxes]
        fits = here if fits is None else [a & b for a, b in zip(fits, here, strict=True)]
        if not all(fits):
            return []
    order = list(DIHEDRAL)
    layout = tuple(min(fit, key=lambda f, k=k: (f != (k, "id"), f[0], order.index(f[1])))
                   for k, fit in enumerate(fits))
    return [] if all(f == (k, "id") for k, f in enumerate(layout)) else [(layout,)]


def _cells(block: Array) -> tuple:
    """A block's shape and cells, equal for equal blocks whatever their memory layout."""
    return block.shape, np.ascontiguousarray(block, dtype=np.int8).tobytes()


def reflect_tile(g: Array, ny: int, nx: int) -> Array | None:
    """Reflect the grid ny times down and nx times across, each mirror image sharing its edge line."""
    h, w = g.shape
    if (ny > 1 and h < 2) or (nx > 1 and w < 2):
        return None
    return g[_bounce(h, ny * (h - 1) + 1)][:, _bounce(w, nx * (w - 1) + 1)]


@lru_cache(maxsize=256)
def _bounce(n: int, length: int) -> Array:
    """Indices 0, 1, .., n-1, n-2, .., 0, 1, .. up to `length` (just 0s when n = 1)."""
    k = np.arange(length) % max(2 * (n - 1), 1)
    out = np.minimum(k, 2 * (n - 1) - k) if n > 1 else k
    out.flags.writeable = False  # shared by every caller
    return out


def _reflect_counts(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple[int, int]]:
    """The one (ny, nx) with target side = n * (side - 1) + 1 on every pair, if not (1, 1)."""
    counts = set()
    for g, t in zip(grids, targets, strict=True):
        pair = []
        for n, m in zip(g.shape, t.shape, strict=True):
            if n == m:
                pair.append(1)
            elif n > 1 and m > n and (m - 1) % (n - 1) == 0:
                pair.append((m - 1) // (n - 1))
            else:
                return []
        counts.add(tuple(pair))
    if len(counts) != 1 or counts == {(1, 1)}:
        return []
    return [counts.pop()]


# --- continuing a pattern ---------------------------------------------------------------


def _slide(rows: Array, dx: int) -> Array:
    """The rows moved dx cells right (left if negative), zeros coming in."""
    if dx == 0:
        return rows
    out = np.zeros_like(rows)
    if dx > 0:
        out[:, dx:] = rows[:, :-dx]
    else:
        out[:, :dx] = rows[:, -dx:]
    return out


@grid_memo()
def _row_step(g: Array) -> tuple[int, int] | None:
    """The smallest (dy, dx) with every row dy further down equal to its row moved dx across,
    no non-zero cell moved out, zeros moved in: the grid's period down the rows, maybe slanted."""
    h, w = g.shape
    first = np.where(g.any(1), (g != 0).argmax(1), -1)  # each row's first non-zero column
    for dy in range(1, h):
        rows = np.flatnonzero(first[:-dy] >= 0)
        if rows.size == 0 or first[rows[0] + dy] < 0:
            continue
        dx = int(first[rows[0] + dy] - first[rows[0]])  # the one move that can match the first filled row
        upper = g[:-dy]
        kept = upper[:, : w - dx] if dx >= 0 else upper[:, -dx:]
        if np.count_nonzero(kept) == np.count_nonzero(upper) and np.array_equal(g[dy:], _slide(upper, dx)):
            return dy, dx
    return None


def _continue_rows(g: Array, height: int) -> Array | None:
    h = g.shape[0]
    if height == h:
        return g
    step = _row_step(g) if g.any() else None
    if height < h or step is None:
        return None
    dy, dx = step
    out = np.concatenate([g, np.zeros((height - h, g.shape[1]), dtype=g.dtype)])
    for y in range(h, height, dy):
        out[y : y + dy] = _slide(out[y - dy : y], dx)[: height - y]
    return out


def continue_pattern(g: Array, h: int, w: int) -> Array | None:
    """Continue the grid's repeating pattern (slanted too) down and across to h x w."""
    rows = _continue_rows(g, h)
    if rows is None:
        return None
    cols = _continue_rows(np.ascontiguousarray(rows.T), w)
    return None if cols is None else cols.T


# --- edges ------------------------------------------------------------------------------


def grow_edges(g: Array) -> Array:
    """Grow by one cell on each side, each edge cell copied outwards (the four corners stay 0)."""
    h, w = g.shape
    out = np.zeros((h + 2, w + 2), dtype=g.dtype)
    out[1:-1, 1:-1] = g
    out[0, 1:-1], out[-1, 1:-1] = g[0], g[-1]
    out[1:-1, 0], out[1:-1, -1] = g[:, 0], g[:, -1]
    return out


def _room_around(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple]:
    """No parameters, if every target is at least one cell wider than its grid on each side."""
    pairs = zip(grids, targets, strict=True)
    return [()] if all(t.shape[0] >= g.shape[0] + 2 and t.shape[1] >= g.shape[1] + 2 for g, t in pairs) else []


# --- objects set side by side -----------------------------------------------------------

JOIN_ORDERS = ("place", "small_first", "large_first")


def _joined(g: Array, axis: str, conn: str) -> list[Obj] | None:
    """The objects to set side by side along the axis (h: left to right), by place, if
    there are two or more and all of them have one extent across it."""
    objs = objects(g, conn)
    if len(objs) < 2:
        return None
    across, along = (0, 1) if axis == "h" else (1, 0)
    if len({o.box[across].stop - o.box[across].start for o in objs}) != 1:
        return None
    return sorted(objs, key=lambda o: (o.box[along].start, o.box[across].start))


def _joined_shape(g: Array, axis: str, conn: str) -> tuple[int, int] | None:
    """The shape of the objects set side by side along the axis, if they can be."""
    objs = _joined(g, axis, conn)
    if objs is None:
        return None
    across, along = (0, 1) if axis == "h" else (1, 0)
    shape = (objs[0].box[across].stop - objs[0].box[across].start,
             sum(o.box[along].stop - o.box[along].start for o in objs))
    return shape if axis == "h" else shape[::-1]


def join_objects(g: Array, axis: str, conn: str, order: str) -> Array | None:
    """Set the objects, each cropped to its box, side by side along rows (h) or columns (v), by place or size."""
    # other objects' cells inside a box are left out; objects of one size keep their order by place
    objs = _joined(g, axis, conn)
    if objs is None:
        return None
    if order != "place":
        objs = sorted(objs, key=lambda o: o.size if order == "small_first" else -o.size)  # stable: ties by place
    pieces = [np.where(o.mask[o.box], g[o.box], 0).astype(g.dtype) for o in objs]
    return np.hstack(pieces) if axis == "h" else np.vstack(pieces)


def _join_shapes(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple]:
    """The (axis, objects, order) whose objects, set side by side, have every target's size,
    where every target is smaller than its grid."""
    # cheap tests first: the joined objects hold every non-zero cell, and are no taller (h)
    # or wider (v) than the grid
    if any(t.size >= g.size or t.size < np.count_nonzero(g) for g, t in zip(grids, targets, strict=True)):
        return []
    found = []
    for axis in ("h", "v"):
        across = 0 if axis == "h" else 1
        if any(t.shape[across] > g.shape[across] for g, t in zip(grids, targets, strict=True)):
            continue
        for conn in ("multi8", "colour4"):
            if all(_joined_shape(g, axis, conn) == t.shape for g, t in zip(grids, targets, strict=True)):
                found += [(axis, conn, order) for order in JOIN_ORDERS]
    return found


# --- corner pieces fitted together -----------------------------------------------------


def _outer_corner(mask: Array) -> int | None:
    """The corner of a piece's box (0 top left, 1 top right, 2 bottom left, 3 bottom right)
    whose cell is filled while the opposite corner's is empty, if exactly one is."""
    corners = (mask[0, 0], mask[0, -1], mask[-1, 0], mask[-1, -1])
    found = [k for k in range(4) if corners[k] and not corners[3 - k]]
    return found[0] if len(found) == 1 else None


def fit_corners(g: Array) -> Array | None:
    """Fit four pieces together, each in the corner of the frame that its box's one outer corner names."""
    objs = objects(g, "multi8")
    if len(objs) != 4 or min(o.size for o in objs) < 2:
        return None
    placed: dict[int, Array] = {}
    for o in objs:
        corner = _outer_corner(o.mask[o.box])
        if corner is None or corner in placed:
            return None
        placed[corner] = np.where(o.mask[o.box], g[o.box], 0).astype(g.dtype)
    (tl, tr), (bl, br) = (placed[0], placed[1]), (placed[2], placed[3])
    if tl.shape[0] != tr.shape[0] or bl.shape[0] != br.shape[0] or tl.shape[1] != bl.shape[1] \
            or tr.shape[1] != br.shape[1]:
        return None
    return np.block([[tl, tr], [bl, br]])


def _corners_fit(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple]:
    """No parameters, if every target is smaller than its grid and the fitted pieces have its size."""
    pairs = list(zip(grids, targets, strict=True))
    if any(t.size >= g.size for g, t in pairs):
        return []
    return [()] if all((f := fit_corners(g)) is not None and f.shape == t.shape for g, t in pairs) else []


# --- scattered cells gathered ---------------------------------------------------------

GATHER_ORDERS = ("rows", "columns")


def gather_cells(g: Array, order: str, snake: bool, h: int, w: int) -> Array | None:
    """Lay the non-zero cells, read by rows or by columns, into h x w row after row; snake: every other row reversed."""
    ys, xs = np.nonzero(g if order == "rows" else g.T)
    if not 0 < len(ys) <= h * w:
        return None
    cells = np.zeros(h * w, dtype=g.dtype)
    cells[: len(ys)] = (g if order == "rows" else g.T)[ys, xs]
    out = cells.reshape(h, w)
    if snake:
        out[1::2] = out[1::2, ::-1]
    return out


def _gather_sizes(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple]:
    """Both orders, plain and snaking, into the targets' one size, where every target is smaller
    than its grid and every grid has no more non-zero cells than a target has cells."""
    shapes = {t.shape for t in targets}
    if len(shapes) != 1:
        return []
    h, w = shapes.pop()
    if any(g.size <= h * w or np.count_nonzero(g) > h * w for g in grids):
        return []
    return [(order, snake, h, w) for order in GATHER_ORDERS for snake in (False, True)]


# --- a pattern painted by a key --------------------------------------------------------

KEY_PARTS = ("blocks", "objects")  # where the key and the pattern are found (`_key_and_pattern`)
KEY_SIZES = ("pattern", "key")  # whose size the answer takes


def _one_colour(part: Array) -> bool:
    return np.count_nonzero(np.bincount(part.ravel(), minlength=10)[1:]) == 1


def _pattern_first(parts: Sequence[Array]) -> int | None:
    """The index of the pattern among non-empty parts: the one part of one colour with the
    most non-zero cells, if one has more than every other."""
    sizes = [np.count_nonzero(p) if _one_colour(p) else -1 for p in parts]
    best = max(sizes, default=-1)
    return sizes.index(best) if best > 0 and sizes.count(best) == 1 else None


def _key_from_blocks(g: Array) -> tuple[Array, Array] | None:
    """Key and pattern among the blocks between separator lines (`cut`): the pattern is the
    block of one colour with the most cells; the key is the one other non-empty block, or
    the other non-empty blocks, each one cell, laid out as they lie (four corner cells make a
    2 x 2 key)."""
    found = cut(g)
    if found is None:
        return None
    _, blocks = found
    filled = [(i, j, blk) for i, row in enumerate(blocks) for j, blk in enumerate(row) if blk.any()]
    at = _pattern_first([blk for _, _, blk in filled])
    if at is None or len(filled) < 2:
        return None
    pattern = filled.pop(at)[2]
    if len(filled) == 1:
        return filled[0][2], pattern
    if any(blk.size != 1 for _, _, blk in filled):
        return None
    rows = sorted({i for i, _, _ in filled})
    cols = sorted({j for _, j, _ in filled})
    if len(rows) * len(cols) != len(filled):
        return None  # the cells do not fill a rectangle of blocks
    key = np.zeros((len(rows), len(cols)), dtype=g.dtype)
    for i, j, blk in filled:
        key[rows.index(i), cols.index(j)] = blk.flat[0]
    return key, pattern


def _key_from_objects(g: Array) -> tuple[Array, Array] | None:
    """Key and pattern as two objects (any colours, 8-connected): the pattern is the larger,
    of one colour; the key is the other; each is cropped to its box."""
    objs = objects(g, "multi8")
    if len(objs) != 2:
        return None
    own = [np.where(o.mask[o.box], o.crop(g), 0) for o in objs]  # without the other's cells in its box
    at = _pattern_first(own)
    return None if at is None else (own[1 - at], own[at])


@grid_memo()
def _key_and_pattern(g: Array, parts: str) -> tuple[Array, Array] | None:
    return _key_from_blocks(g) if parts == "blocks" else _key_from_objects(g)


def paint_by_key(g: Array, parts: str, size: str) -> Array | None:
    """Paint a pattern of one colour with a small key, each key cell its share, at the pattern's or the key's size."""
    # size 'pattern': the key scaled up to the pattern's size shows through the pattern's cells;
    # size 'key': the pattern shrunk to the key's size (each share wholly set or wholly empty)
    # shows the key where it is set. The key and the pattern are blocks between separator
    # lines or two objects (`KEY_PARTS`, `_key_and_pattern`).
    found = _key_and_pattern(g, parts)
    if found is None:
        return None
    key, pattern = found
    (kh, kw), (ph, pw) = key.shape, pattern.shape
    if ph % kh or pw % kw:
        return None
    fy, fx = ph // kh, pw // kw
    mask = pattern != 0
    if size == "pattern":
        return np.where(mask, np.repeat(np.repeat(key, fy, 0), fx, 1), 0).astype(g.dtype)
    shares = mask.reshape(kh, fy, kw, fx).sum((1, 3))
    if ((shares != 0) & (shares != fy * fx)).any():
        return None
    return np.where(shares != 0, key, 0).astype(g.dtype)


def _key_sizes(grids: Sequence[Array], targets: Sequence[Array]) -> list[tuple[str, str]]:
    """The (parts, size) whose answer has every target's size; only where each target is
    smaller than its grid and fits in it, as a part of the grid does."""
    if any(t.shape[0] > g.shape[0] or t.shape[1] > g.shape[1] or t.shape == g.shape
           for g, t in zip(grids, targets, strict=True)):
        return []
    found = []
    for parts in KEY_PARTS:
        for size in KEY_SIZES:
            outs = [paint_by_key(g, parts, size) for g in grids]
            if all(o is not None and o.shape == t.shape for o, t in zip(outs, targets, strict=True)):
                found.append((parts, size))
    return found


REGISTRY: tuple = (
    (dihedral_tile, "dihedral_layout", "any"),
    (arrange_blocks, "block_layout", "same"),
    (reflect_tile, "reflect_grow", "any"),
    (continue_pattern, "fixed_size", "any"),
    (grow_edges, "room_around", "any"),
    (join_objects, "join", "any"),
    (fit_corners, "corners_fit", "any"),
    (gather_cells, "gather", "any"),
    (paint_by_key, "key_parts", "any"),
)

PARAM_KINDS: dict = {
    "dihedral_layout": lambda grids, targets, facts: _fit_layout(grids, targets),
    "block_layout": lambda grids, targets, facts: _block_layouts(grids, targets),
    "reflect_grow": lambda grids, targets, facts: _reflect_counts(grids, targets),
    "fixed_size": lambda grids, targets, facts: fixed_size(grids, targets),
    "room_around": lambda grids, targets, facts: _room_around(grids, targets),
    "join": lambda grids, targets, facts: _join_shapes(grids, targets),
    "corners_fit": lambda grids, targets, facts: _corners_fit(grids, targets),
    "gather": lambda grids, targets, facts: _gather_sizes(grids, targets),
    "key_parts": lambda grids, targets, facts: _key_sizes(grids, targets),
}
