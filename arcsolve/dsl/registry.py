"""The DSL: small pure grid functions, each registered with how its parameters are found.

A primitive is `fn(grid, *params) -> grid | None` on 2-D integer numpy arrays with
background 0; None means "does not apply to this grid". `PRIMITIVES` maps each name to
a `Primitive` that also records which parameter kind the search infers for it (see
`arcsolve.dsl.params`) and what it does to the grid's shape, which lets the search
skip last steps that cannot produce the target's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.compose import stack
from arcsolve.dsl.families import FAMILIES
from arcsolve.dsl.learned.cell_tables import CellTable, apply_table
from arcsolve.dsl.learned.object_moves import MoveModel, apply_moves
from arcsolve.dsl.learned.rules import Table, apply_rule
from arcsolve.dsl.learned.stamping import StampModel, apply_stamps
from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.blocks import (
    block_colours,
    cut_pick,
    downscale_any,
    downscale_majority,
    self_tile_colour,
    split_kron,
)
from arcsolve.dsl.primitives.completion import (
    periodic_extend,
    periodic_fill,
    periodic_patch,
    symmetrize,
    symmetry_fill,
    symmetry_fill_patch,
    symmetry_patch,
)
from arcsolve.dsl.primitives.counting import (
    band_colours,
    colour_cell,
    colour_ranking,
    count_objects,
    count_row,
    feature_cell,
    keep_ranked_colour,
)
from arcsolve.dsl.primitives.drawing import (
    centre_lines,
    fill_bbox,
    halo,
    interior,
    line_rays,
    mark_centres,
    mark_midpoints,
    outline_bbox,
    paint_empty_lines,
    rays,
)
from arcsolve.dsl.primitives.geometry import (
    antitranspose,
    crop_centre,
    diagonal,
    downscale,
    flip_h,
    flip_v,
    mirror_tile,
    pad,
    place_on_canvas,
    roll,
    rot90,
    rot180,
    rot270,
    rot_tile,
    self_tile,
    self_tile_inverse,
    shift,
    tile,
    transpose,
    upscale,
    upscale_by_colours,
)
from arcsolve.dsl.primitives.moving import attract, reflect_through, shoot
from arcsolve.dsl.primitives.objects import enclosed, select, split
from arcsolve.dsl.primitives.painting import (
    colour_by,
    colour_by_parity,
    colour_by_size,
    majority_lines,
    majority_objects,
    paint_by_line,
    paint_nearest,
    paint_objects_by_line,
    swap_colours,
)

Array = np.ndarray


# --- cropping and objects -------------------------------------------------------------


def _box(mask: Array) -> tuple[slice, slice] | None:
    rows, cols = np.nonzero(mask.any(1))[0], np.nonzero(mask.any(0))[0]
    if rows.size == 0:
        return None
    return slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)


def crop_bbox(g: Array) -> Array | None:
    """Crop to the bounding box of the non-zero cells."""
    box = _box(g != 0)
    return None if box is None else g[box]


def crop_object(g: Array, how: str, conn: str) -> Array | None:
    """Crop to the bounding box of the object picked by a property (largest, ...)."""
    obj = select(g, how, conn)
    return None if obj is None else obj.crop(g)


def keep_object(g: Array, how: str, conn: str) -> Array | None:
    """Erase every object except the one picked by a property."""
    obj = select(g, how, conn)
    return None if obj is None else np.where(obj.mask, g, 0)


def erase_object(g: Array, how: str, conn: str) -> Array | None:
    """Erase the object picked by a property."""
    obj = select(g, how, conn)
    return None if obj is None else np.where(obj.mask, 0, g)


def denoise(g: Array) -> Array:
    """Erase isolated single cells (components of size 1, 8-connected, any colour)."""
    h, w = g.shape
    filled = np.zeros((h + 2, w + 2), dtype=np.uint8)  # a ring of zeros around the grid
    filled[1:-1, 1:-1] = g != 0
    across = filled[:, :-2] + filled[:, 1:-1] + filled[:, 2:]
    around = across[:-2] + across[1:-1] + across[2:]  # non-zero cells in each 3x3 window
    return np.where((g != 0) & (around == 1), 0, g)


def keep_blocks(g: Array) -> Array | None:
    """Keep only the cells that lie in some 2x2 block of one non-zero colour (a morphological opening)."""
    if min(g.shape) < 2:
        return None
    block = (g[:-1, :-1] != 0) & (g[:-1, :-1] == g[1:, :-1]) & (g[:-1, :-1] == g[:-1, 1:]) & (g[:-1, :-1] == g[1:, 1:])
    keep = np.zeros(g.shape, dtype=bool)
    for dy in (0, 1):
        for dx in (0, 1):
            keep[dy : dy + block.shape[0], dx : dx + block.shape[1]] |= block
    return np.where(keep, g, 0)


def drop_empty(g: Array) -> Array | None:
    """Remove all-zero rows and columns."""
    rows, cols = g.any(1), g.any(0)
    return g[rows][:, cols] if rows.any() else None


def dedup_lines(g: Array) -> Array:
    """Collapse runs of identical adjacent rows and columns into one."""
    keep_rows = np.concatenate(([True], (g[1:] != g[:-1]).any(1)))
    g = g[keep_rows]
    keep_cols = np.concatenate(([True], (g[:, 1:] != g[:, :-1]).any(0)))
    return g[:, keep_cols]


def sort_lines(g: Array, axis: str) -> Array | None:
    """Reorder the rows ('h') or columns ('v') by their non-zero cells, fewest first, ties kept (None if unchanged)."""
    lines = g if axis == "h" else g.T
    order = np.argsort(np.count_nonzero(lines, axis=1), kind="stable")
    if (order == np.arange(order.size)).all():
        return None
    return lines[order] if axis == "h" else lines[order].T


def crop_colour(g: Array, c: int) -> Array | None:
    """Crop to the bounding box of the cells of colour c."""
    box = _box(g == c)
    return None if box is None else g[box]


def trim_border(g: Array) -> Array | None:
    """Remove the outermost ring of cells."""
    return g[1:-1, 1:-1] if min(g.shape) > 2 else None


def crop_corner(g: Array, corner: str, h: int, w: int) -> Array | None:
    """Crop an h x w window at a corner ('tl', 'tr', 'bl', 'br') of a larger grid."""
    H, W = g.shape
    if h > H or w > W or (h, w) == (H, W):
        return None
    rows = slice(0, h) if corner[0] == "t" else slice(H - h, H)
    cols = slice(0, w) if corner[1] == "l" else slice(W - w, W)
    return g[rows, cols]


# --- colours --------------------------------------------------------------------------


def keep_colour(g: Array, c: int) -> Array:
    """Erase every colour but c."""
    return np.where(g == c, g, 0)


def erase_colour(g: Array, c: int) -> Array:
    """Erase colour c."""
    return np.where(g == c, 0, g)


def recolor(g: Array, mapping: tuple[tuple[int, int], ...]) -> Array:
    """Map colours cell-wise by (from, to) pairs; other colours stay."""
    table = np.arange(10, dtype=g.dtype)
    for a, b in mapping:
        table[a] = b
    return table[g]


def swap_background(g: Array) -> Array | None:
    """Swap the most frequent colour with 0, so that it acts as the background."""
    counts = np.bincount(g.ravel(), minlength=10)
    top = int(counts.argmax())
    return None if top == 0 else recolor(g, ((top, 0), (0, top)))


# --- physics and filling --------------------------------------------------------------

# Rotations that turn a direction into "down" (k quarter turns anticlockwise).
_TO_DOWN = MappingProxyType({"down": 0, "left": 1, "up": 2, "right": 3})
_QUARTER_TURNS = (None, rot90, rot180, rot270)


def _turn(g: Array, k: int) -> Array:
    """g turned k quarter turns anticlockwise (as np.rot90, without its overhead)."""
    turn = _QUARTER_TURNS[k % 4]
    return g if turn is None else turn(g)


def _fall_down(g: Array) -> Array:
    filled = g != 0
    above = np.cumsum(filled, axis=0)  # non-zero cells at or above each cell in its column
    ys, xs = np.nonzero(filled)
    out = np.zeros_like(g)
    out[g.shape[0] - above[-1][xs] + above[ys, xs] - 1, xs] = g[ys, xs]
    return out


def gravity(g: Array, direction: str) -> Array:
    """Let non-zero cells fall towards a side, keeping their order in each line."""
    k = _TO_DOWN[direction]
    return _turn(_fall_down(_turn(g, k)), -k)


def _settle_down(g: Array, still: int) -> Array | None:
    """`_fall_down` where cells of colour `still` stay and hold up what falls onto them."""
    fixed = g == still
    moving = (g != 0) & ~fixed
    if not fixed.any() or not moving.any():
        return None
    h = g.shape[0]
    rows = np.arange(h)[:, None]
    floor = np.minimum.accumulate(np.where(fixed, rows, h)[::-1], axis=0)[::-1]  # first still row at or below
    below = np.cumsum(moving[::-1], axis=0)[::-1]  # moving cells at or below each row
    below = np.vstack([below, np.zeros((1, g.shape[1]), dtype=below.dtype)])  # and none below the grid
    ys, xs = np.nonzero(moving)
    # a cell lands above its floor and above the moving cells between them
    target = floor[ys, xs] - (below[ys, xs] - below[floor[ys, xs], xs])
    out = np.where(fixed, g, 0)
    out[target, xs] = g[ys, xs]
    return out


def settle(g: Array, direction: str, still: int) -> Array | None:
    """Let non-zero cells fall towards a side onto the cells of colour `still`, which stay."""
    k = _TO_DOWN[direction]
    out = _settle_down(_turn(g, k), still)
    return None if out is None else _turn(out, -k)


def _nearest_above(g: Array) -> tuple[Array, Array]:
    """Each cell's row of the nearest non-zero cell at or above it in its column (-1 if none),
    and that cell's colour (the top cell's where there is none)."""
    h = g.shape[0]
    last = np.maximum.accumulate(np.where(g != 0, np.arange(h)[:, None], -1), axis=0)
    return last, g[np.maximum(last, 0), np.arange(g.shape[1])]


def _extend_down(g: Array) -> Array:
    last, filled = _nearest_above(g)
    return np.where((g == 0) & (last >= 0), filled, g)


def extend_lines(g: Array, direction: str) -> Array:
    """Extend every non-zero cell as a ray towards a side, over zero cells."""
    k = _TO_DOWN[direction]
    return _turn(_extend_down(_turn(g, k)), -k)


def _dash_down(g: Array, c: int) -> Array:
    last, filled = _nearest_above(g)
    odd = (np.arange(g.shape[0])[:, None] - last) % 2 == 1
    return np.where((g == 0) & (last >= 0), np.where(odd, np.asarray(c, dtype=g.dtype), filled), g)


def extend_dashed(g: Array, direction: str, c: int) -> Array | None:
    """Extend each non-zero cell as a dashed ray to a side, over zeros: c at odd steps (0: gaps), its colour at even."""
    if not g.any():
        return None
    k = _TO_DOWN[direction]
    return _turn(_dash_down(_turn(g, k), c), -k)


def _extend_down_right(g: Array) -> Array:
    """`_extend_down` along the down-right diagonals: row i is slid i cells left (on a wider
    canvas), so that each diagonal becomes a column, extended down, and slid back."""
    h, w = g.shape
    ys, xs = np.indices((h, w))
    cols = xs - ys + h - 1
    skewed = np.zeros((h, w + h - 1), dtype=g.dtype)
    skewed[ys, cols] = g
    return _extend_down(skewed)[ys, cols]


# Each diagonal direction as the flips that turn it into down-right.
_DIAGONAL_FLIPS = MappingProxyType({
    "down_right": (False, False), "down_left": (False, True), "up_right": (True, False), "up_left": (True, True),
})


def extend_diagonals(g: Array, direction: str) -> Array:
    """Extend every non-zero cell as a diagonal ray ('down_right', 'up_left', ...) over zero cells."""
    flip_rows, flip_cols = _DIAGONAL_FLIPS[direction]
    view = g[::-1 if flip_rows else 1, ::-1 if flip_cols else 1]
    return _extend_down_right(view)[::-1 if flip_rows else 1, ::-1 if flip_cols else 1]


def fill_enclosed(g: Array, c: int) -> Array:
    """Colour c into the zero cells that cannot reach the border (4-connected)."""
    return np.where(enclosed(g), c, g)


def _row_gaps(g: Array) -> tuple[Array, Array]:
    """The zero cells between two consecutive non-zero cells of one colour in their row, and
    (on those cells) that colour."""
    h, w = g.shape
    cells = np.arange(h * w).reshape(h, w)
    filled = g != 0
    before = np.maximum.accumulate(np.where(filled, cells, -1), axis=1)  # last non-zero at or left of x
    after = np.minimum.accumulate(np.where(filled, cells, h * w)[:, ::-1], axis=1)[:, ::-1]  # first at or right
    colours = np.append(g.ravel(), np.array([-2, -1], dtype=g.dtype))  # index -1 (none left): -1, h * w: -2
    left = colours[before]
    return ~filled & (left == colours[after]), left


@grid_memo()
def _gaps(g: Array) -> tuple[Array, Array, Array, Array]:
    """`_row_gaps` of the rows and of the columns: row gaps, their colours, column gaps, theirs."""
    rows, row_colours = _row_gaps(g)
    cols, col_colours = _row_gaps(g.T)
    return rows, row_colours, cols.T, col_colours.T


def _connect(g: Array, axis: str, c: int) -> Array:
    rows, row_colours, cols, col_colours = _gaps(g)
    if c:
        row_colours = col_colours = np.asarray(c, dtype=g.dtype)
    if axis in ("h", "v"):
        return np.where(rows, row_colours, g) if axis == "h" else np.where(cols, col_colours, g)
    if axis == "hv":
        return np.where(rows, row_colours, np.where(cols, col_colours, g))
    return np.where(cols, col_colours, np.where(rows, row_colours, g))


def connect(g: Array, axis: str) -> Array:
    """Draw a line between consecutive same-coloured cells of a row, column, or both ('hv'/'vh': first wins)."""
    return _connect(g, axis, 0)


def bridge(g: Array, axis: str, c: int) -> Array:
    """Like connect, but the lines between same-coloured cells are drawn in colour c."""
    return _connect(g, axis, c)


def fill_colour_boxes(g: Array) -> Array:
    """Fill the zero cells in the bounding box of each colour's cells with that colour (smaller boxes on top)."""
    h, w = g.shape
    in_rows = np.zeros((10, h), dtype=bool)  # colour c has a cell in row y
    in_cols = np.zeros((10, w), dtype=bool)
    in_rows[g, np.arange(h)[:, None]] = True
    in_cols[g, np.arange(w)] = True
    boxes = []
    for c in np.flatnonzero(in_rows[1:].any(1)).tolist():
        rows, cols = np.flatnonzero(in_rows[c + 1]), np.flatnonzero(in_cols[c + 1])
        boxes.append(((slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)), c + 1))
    boxes.sort(key=lambda bc: -(bc[0][0].stop - bc[0][0].start) * (bc[0][1].stop - bc[0][1].start))
    out = g.copy()
    for (rows, cols), c in boxes:
        region = out[rows, cols]
        region[g[rows, cols] == 0] = c
    return out


# --- splitting and overlays -----------------------------------------------------------

_OVERLAYS: MappingProxyType = MappingProxyType({
    "and": lambda m: m.all(0),
    "or": lambda m: m.any(0),
    "xor": lambda m: m.sum(0) == 1,
    "nor": lambda m: ~m.any(0),
    "diff": lambda m: m[0] & ~m[1:].any(0),
})


def split_overlay(g: Array, mode: str, op: str) -> Array | None:
    """Split into equal parts, combine their non-zero masks by and/or/xor/nor/diff into 1s."""
    parts = split(g, mode)
    if parts is None:
        return None
    return _OVERLAYS[op](np.stack(parts) != 0).astype(g.dtype)


def split_stack(g: Array, mode: str, order: int | tuple[int, ...]) -> Array | None:
    """Split into equal parts and lay them on top of each other (zero is transparent), in order or a learned one."""
    parts = split(g, mode)
    if parts is None or (isinstance(order, tuple) and len(order) != len(parts)):
        return None
    if isinstance(order, tuple):  # part indices, bottom first
        parts = tuple(parts[i] for i in order)
    return stack(parts[::-1] if order == 1 else parts)


def _symmetric(p: Array) -> bool:
    return bool(np.array_equal(p, p[::-1]) or np.array_equal(p, p[:, ::-1])
                or (p.shape[0] == p.shape[1] and np.array_equal(p, p.T)))


def split_pick(g: Array, mode: str, how: str) -> Array | None:
    """Split into equal parts and keep the first / unique / unique-by-mask / asymmetric / fullest / emptiest one."""
    parts = split(g, mode)
    if parts is None:
        return None
    if how == "first":
        return parts[0]
    if how in ("unique", "unique_mask"):
        keys = [(p if how == "unique" else p != 0).tobytes() for p in parts]
        picks = [p for p, k in zip(parts, keys, strict=True) if keys.count(k) == 1]
    elif how == "asymmetric":
        picks = [p for p in parts if not _symmetric(p)]
    else:
        counts = [int((p != 0).sum()) for p in parts]
        best = max(counts) if how == "fullest" else min(counts)
        picks = [p for p, n in zip(parts, counts, strict=True) if n == best]
    return picks[0] if len(picks) == 1 else None


# --- learned rules ----------------------------------------------------------------------


def cell_rule(g: Array, table: Table) -> Array | None:
    """Recolour each cell by a rule on its neighbourhood learned from the train pairs (None on an unseen one)."""
    return apply_rule(g, table)


def cell_table(g: Array, table: CellTable) -> Array | None:
    """Recolour each cell by a table on a few of its features learned from the train pairs (None on an unseen key)."""
    return apply_table(g, table)


def stamp_around(g: Array, model: StampModel) -> Array | None:
    """Paint around each cell or object the stamp learned from the train pairs (None on an unseen source)."""
    return apply_stamps(g, model)


def move_objects(g: Array, model: MoveModel) -> Array | None:
    """Move or copy each object by the rule of its group learned from the train pairs (None where it cannot)."""
    return apply_moves(g, model)


# --- the registry ---------------------------------------------------------------------


@dataclass(frozen=True)
class Primitive:
    """A registered primitive: its function, parameter kind, shape effect and cost."""

    name: str
    fn: Callable[..., Array | None]
    params: str = "none"  # a key of arcsolve.dsl.params.PARAMS
    shape: str = "any"  # "same": keeps the shape, "transpose": swaps it, "any": changes it
    cost: float = 1.0

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()


def _p(fn: Callable, params: str = "none", shape: str = "any", cost: float = 1.0) -> Primitive:
    return Primitive(fn.__name__, fn, params, shape, cost)


# Ordered roughly by how often they help, since a timed-out search sees the first ones.
REGISTERED: tuple[Primitive, ...] = (
    _p(rot90, shape="transpose"),
    _p(rot180, shape="same"),
    _p(rot270, shape="transpose"),
    _p(flip_h, shape="same"),
    _p(flip_v, shape="same"),
    _p(transpose, shape="transpose"),
    _p(antitranspose, shape="transpose"),
    _p(crop_bbox),
    _p(crop_object, "select_crop"),
    _p(upscale, "grow"),
    _p(downscale, "shrink"),
    _p(downscale_majority, "shrink"),
    _p(block_colours),
    _p(tile, "grow"),
    _p(mirror_tile, "mirror_grow"),
    _p(pad, "pad"),
    _p(place_on_canvas, "canvas"),
    _p(diagonal),
    _p(self_tile),
    _p(self_tile_inverse),
    _p(self_tile_colour, "square_tile"),
    _p(split_kron, "split_pair"),
    _p(rot_tile),
    _p(split_overlay, "split_op"),
    _p(split_stack, "split_order"),
    _p(split_pick, "split_pick"),
    _p(cut_pick, "cut_pick"),
    _p(symmetrize, "symmetry", shape="same"),
    _p(symmetry_patch, "symmetry"),
    _p(symmetry_fill, "lost_colour", shape="same"),
    _p(symmetry_fill_patch, "lost_colour"),
    _p(periodic_fill, "noise", shape="same"),
    _p(periodic_patch, "noise"),
    _p(periodic_extend, "grow"),
    _p(gravity, "direction", shape="same"),
    _p(settle, "settle", shape="same"),
    _p(attract, "anchor", shape="same"),
    _p(shoot, "anchor", shape="same"),
    _p(reflect_through, "anchor_keep", shape="same"),
    _p(fill_enclosed, "fill_colour", shape="same"),
    _p(extend_lines, "direction", shape="same"),
    _p(extend_diagonals, "diagonal_direction", shape="same"),
    _p(connect, "axis", shape="same"),
    _p(bridge, "bridge", shape="same"),
    _p(fill_colour_boxes, shape="same"),
    _p(colour_by_size, "connectivity", shape="same"),
    _p(swap_background, shape="same"),
    _p(swap_colours, shape="same"),
    _p(paint_by_line, "colour_axis", shape="same"),
    _p(paint_objects_by_line, "colour_axis", shape="same"),
    _p(paint_nearest, "split_colour", shape="same"),
    _p(majority_lines, "line_axis", shape="same"),
    _p(majority_objects, shape="same"),
    _p(crop_colour, "colour"),
    _p(trim_border),
    _p(keep_colour, "colour", shape="same"),
    _p(erase_colour, "colour", shape="same"),
    _p(keep_object, "select", shape="same"),
    _p(erase_object, "select", shape="same"),
    _p(keep_ranked_colour, "rank", shape="same"),
    _p(denoise, shape="same"),
    _p(keep_blocks, shape="same"),
    _p(drop_empty),
    _p(dedup_lines),
    _p(sort_lines, "rows_or_columns", shape="same"),
    _p(shift, "shift", shape="same"),
    _p(roll, "shift", shape="same"),
    _p(colour_by, "property", shape="same"),
    _p(halo, "halo", shape="same"),
    _p(rays, "rays", shape="same"),
    _p(extend_dashed, "dashes", shape="same"),
    _p(line_rays, "ray_axes", shape="same"),
    _p(fill_bbox, "drawn_colour", shape="same"),
    _p(outline_bbox, "drawn_colour", shape="same"),
    _p(mark_centres, "marked", shape="same"),
    _p(mark_midpoints, "midpoint", shape="same"),
    _p(centre_lines, "drawn", shape="same"),
    _p(paint_empty_lines, "drawn", shape="same"),
    _p(interior, "recoloured", shape="same"),
    _p(crop_corner, "corner"),
    _p(crop_centre, "window"),
    _p(colour_cell, "rank"),
    _p(colour_ranking, "skip"),
    _p(band_colours),
    _p(count_row),
    _p(count_objects, "connectivity"),
    _p(feature_cell, "feature"),
    _p(upscale_by_colours),
    _p(downscale_any, "pool"),
    *(_p(*row) for family in FAMILIES for row in family.REGISTRY),
    # rarer than the sizes and ranks above: found after them, and longer to name
    _p(colour_by_parity, "connectivity", shape="same", cost=1.2),
    # learned steps: their description length grows with what they learned (`arcsolve.dsl.occam`)
    _p(cell_rule, "cell_rule", shape="same"),
    _p(recolor, "learned", shape="same", cost=0.0),  # a colour map costs its entries alone
    _p(cell_table, "learned", shape="same"),
    _p(stamp_around, "learned", shape="same"),
    _p(move_objects, "learned", shape="same"),
)
PRIMITIVES: MappingProxyType[str, Primitive] = MappingProxyType({p.name: p for p in REGISTERED})
