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

from arcsolve.dsl.objects import label, select, split

Array = np.ndarray


# --- lattice group: dihedral transforms, translations --------------------------------


def rot90(g: Array) -> Array:
    """Rotate a quarter turn anticlockwise."""
    return np.rot90(g, 1)


def rot180(g: Array) -> Array:
    """Rotate a half turn."""
    return np.rot90(g, 2)


def rot270(g: Array) -> Array:
    """Rotate a quarter turn clockwise."""
    return np.rot90(g, 3)


def flip_h(g: Array) -> Array:
    """Mirror left-right."""
    return g[:, ::-1]


def flip_v(g: Array) -> Array:
    """Mirror top-bottom."""
    return g[::-1]


def transpose(g: Array) -> Array:
    """Mirror in the main diagonal."""
    return g.T


def antitranspose(g: Array) -> Array:
    """Mirror in the anti-diagonal."""
    return np.rot90(g, 2).T


def shift(g: Array, dy: int, dx: int) -> Array | None:
    """Translate by (dy, dx), filling uncovered cells with 0 (None if nothing stays)."""
    h, w = g.shape
    if abs(dy) >= h or abs(dx) >= w:
        return None
    out = np.zeros_like(g)
    out[max(dy, 0) : h + min(dy, 0), max(dx, 0) : w + min(dx, 0)] = g[
        max(-dy, 0) : h - max(dy, 0), max(-dx, 0) : w - max(dx, 0)
    ]
    return out


def roll(g: Array, dy: int, dx: int) -> Array:
    """Translate cyclically by (dy, dx)."""
    return np.roll(g, (dy, dx), axis=(0, 1))


# --- scaling and tiling ---------------------------------------------------------------


def upscale(g: Array, ky: int, kx: int) -> Array:
    """Blow every cell up into a ky x kx block."""
    return np.repeat(np.repeat(g, ky, 0), kx, 1)


def downscale(g: Array, ky: int, kx: int) -> Array | None:
    """Shrink ky x kx blocks to one cell each, if every block is one colour."""
    h, w = g.shape
    if h % ky or w % kx:
        return None
    small = g[::ky, ::kx]
    return small if np.array_equal(upscale(small, ky, kx), g) else None


def tile(g: Array, ny: int, nx: int) -> Array:
    """Repeat the grid ny times down and nx times across."""
    return np.tile(g, (ny, nx))


def mirror_tile(g: Array, ny: int, nx: int, phase: int) -> Array:
    """Tile with copies mirrored on alternate rows/columns (phase 1: start mirrored)."""
    rows = []
    for i in range(ny):
        row = g[::-1] if ny > 1 and (i + phase) % 2 else g
        flips = [nx > 1 and (j + phase) % 2 for j in range(nx)]
        rows.append(np.hstack([row[:, ::-1] if flip else row for flip in flips]))
    return np.vstack(rows)


def rot_tile(g: Array) -> Array | None:
    """A 2x2 tiling of the square grid turned 0, 90, 180 and 270 degrees clockwise."""
    if g.shape[0] != g.shape[1]:
        return None
    return np.vstack([np.hstack([g, np.rot90(g, 3)]), np.hstack([np.rot90(g, 1), np.rot90(g, 2)])])


def self_tile(g: Array) -> Array:
    """Place a copy of the grid at each non-zero cell of itself (a Kronecker product)."""
    return np.kron((g != 0).astype(g.dtype), g)


def self_tile_inverse(g: Array) -> Array:
    """Place a copy of the grid at each zero cell of itself."""
    return np.kron((g == 0).astype(g.dtype), g)


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
    lab, n = label(g, g != 0, diagonal=True, by_colour=False)
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    return np.where(sizes[lab] == 1, 0, g)


def drop_empty(g: Array) -> Array | None:
    """Remove all-zero rows and columns."""
    rows, cols = g.any(1), g.any(0)
    return g[rows][:, cols] if rows.any() else None


def dedup_lines(g: Array) -> Array:
    """Collapse runs of identical adjacent rows and columns into one."""
    keep_rows = np.r_[True, (g[1:] != g[:-1]).any(1)]
    g = g[keep_rows]
    keep_cols = np.r_[True, (g[:, 1:] != g[:, :-1]).any(0)]
    return g[:, keep_cols]


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


# --- physics and filling --------------------------------------------------------------

# Rotations that turn a direction into "down" (k quarter turns anticlockwise).
_TO_DOWN = MappingProxyType({"down": 0, "left": 1, "up": 2, "right": 3})


def _fall_down(g: Array) -> Array:
    out = np.zeros_like(g)
    for x in range(g.shape[1]):
        col = g[:, x][g[:, x] != 0]
        out[g.shape[0] - col.size :, x] = col
    return out


def gravity(g: Array, direction: str) -> Array:
    """Let non-zero cells fall towards a side, keeping their order in each line."""
    k = _TO_DOWN[direction]
    return np.rot90(_fall_down(np.rot90(g, k)), -k)


def _extend_down(g: Array) -> Array:
    h = g.shape[0]
    last = np.maximum.accumulate(np.where(g != 0, np.arange(h)[:, None], -1), axis=0)
    filled = np.take_along_axis(g, np.maximum(last, 0), axis=0)
    return np.where((g == 0) & (last >= 0), filled, g)


def extend_lines(g: Array, direction: str) -> Array:
    """Extend every non-zero cell as a ray towards a side, over zero cells."""
    k = _TO_DOWN[direction]
    return np.rot90(_extend_down(np.rot90(g, k)), -k)


def fill_enclosed(g: Array, c: int) -> Array:
    """Colour c into the zero cells that cannot reach the border (4-connected)."""
    lab, _ = label(g, g == 0, diagonal=False, by_colour=False)
    outside = np.unique(np.r_[lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    enclosed = (lab != 0) & ~np.isin(lab, outside)
    return np.where(enclosed, c, g)


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


def split_stack(g: Array, mode: str, first_on_top: int) -> Array | None:
    """Split into equal parts and lay them on top of each other (zero is transparent)."""
    parts = split(g, mode)
    if parts is None:
        return None
    out = np.zeros_like(parts[0])
    for p in parts[::-1] if first_on_top else parts:
        out = np.where(p != 0, p, out)
    return out


def split_pick(g: Array, mode: str, how: str) -> Array | None:
    """Split into equal parts and keep the one that is unique / fullest / emptiest."""
    parts = split(g, mode)
    if parts is None:
        return None
    if how == "unique":
        keys = [p.tobytes() for p in parts]
        picks = [p for p, k in zip(parts, keys, strict=True) if keys.count(k) == 1]
    else:
        counts = [int((p != 0).sum()) for p in parts]
        best = max(counts) if how == "fullest" else min(counts)
        picks = [p for p, n in zip(parts, counts, strict=True) if n == best]
    return picks[0] if len(picks) == 1 else None


# --- symmetry completion --------------------------------------------------------------

_SYMMETRIES = MappingProxyType({
    "h": (flip_h,),
    "v": (flip_v,),
    "hv": (flip_h, flip_v, rot180),
    "rot": (rot90, rot180, rot270),
    "diag": (transpose,),
    "all": (flip_h, flip_v, rot180, rot90, rot270, transpose, antitranspose),
})


def symmetrize(g: Array, group: str, noise: int) -> Array | None:
    """Replace `noise` cells by the value of a transformed copy of the grid (symmetry fill)."""
    transforms = _SYMMETRIES[group]
    if g.shape[0] != g.shape[1] and group in ("rot", "diag", "all"):
        return None
    out = g.copy()
    for t in transforms:
        copy = t(g)
        fill = (out == noise) & (copy != noise)
        out[fill] = copy[fill]
    return out


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
PRIMITIVES: MappingProxyType[str, Primitive] = MappingProxyType({p.name: p for p in (
    _p(rot90, shape="transpose"),
    _p(rot180, shape="same"),
    _p(rot270, shape="transpose"),
    _p(flip_h, shape="same"),
    _p(flip_v, shape="same"),
    _p(transpose, shape="transpose"),
    _p(antitranspose, shape="transpose"),
    _p(crop_bbox),
    _p(crop_object, "select"),
    _p(upscale, "grow"),
    _p(downscale, "shrink"),
    _p(tile, "grow"),
    _p(mirror_tile, "mirror_grow"),
    _p(self_tile),
    _p(self_tile_inverse),
    _p(rot_tile),
    _p(split_overlay, "split_op"),
    _p(split_stack, "split_order"),
    _p(split_pick, "split_pick"),
    _p(symmetrize, "symmetry", shape="same"),
    _p(gravity, "direction", shape="same"),
    _p(fill_enclosed, "fill_colour", shape="same"),
    _p(extend_lines, "direction", shape="same"),
    _p(keep_colour, "colour", shape="same"),
    _p(erase_colour, "colour", shape="same"),
    _p(keep_object, "select", shape="same"),
    _p(erase_object, "select", shape="same"),
    _p(denoise, shape="same"),
    _p(drop_empty),
    _p(dedup_lines),
    _p(shift, "shift", shape="same"),
    _p(roll, "shift", shape="same"),
    _p(recolor, "learned", shape="same", cost=0.5),
)})
