"""The lattice group (dihedral transforms, translations), scaling, tiling and a centred crop of grids."""

from __future__ import annotations

import numpy as np

from arcsolve.symmetry import (  # noqa: F401 - the DSL's dihedral primitives, registered from here
    antitranspose,
    flip_h,
    flip_v,
    rot90,
    rot180,
    rot270,
    transpose,
)

Array = np.ndarray


# --- lattice group: dihedral transforms (`arcsolve.symmetry`), translations ------------


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
    h, w = g.shape
    return g[((np.arange(h) - dy) % h)[:, None], (np.arange(w) - dx) % w]


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


def upscale_by_colours(g: Array) -> Array | None:
    """Blow every cell up into a k x k block, k being the number of non-zero colours (k >= 2)."""
    k = np.count_nonzero(np.bincount(g.ravel(), minlength=10)[1:])
    return upscale(g, k, k) if k >= 2 else None


def tile(g: Array, ny: int, nx: int) -> Array:
    """Repeat the grid ny times down and nx times across."""
    return np.tile(g, (ny, nx))


def pad(g: Array, ky: int, kx: int, corner: str) -> Array:
    """The grid in one corner ('tl', 'tr', 'bl', 'br') of a zero canvas ky times as tall and kx times as wide."""
    h, w = g.shape
    out = np.zeros((h * ky, w * kx), dtype=g.dtype)
    rows = slice(0, h) if corner[0] == "t" else slice(h * ky - h, h * ky)
    cols = slice(0, w) if corner[1] == "l" else slice(w * kx - w, w * kx)
    out[rows, cols] = g
    return out


def place_on_canvas(g: Array, corner: str, h: int, w: int) -> Array | None:
    """The grid in one corner ('tl', 'tr', 'bl', 'br') of an h x w zero canvas that it fits in."""
    H, W = g.shape
    if H > h or W > w:
        return None
    y, x = h - H if corner[0] == "b" else 0, w - W if corner[1] == "r" else 0
    out = np.zeros((h, w), dtype=g.dtype)
    out[y : y + H, x : x + W] = g
    return out


def diagonal(g: Array) -> Array | None:
    """A row or column of N cells laid along the main diagonal of an N x N zero grid."""
    if min(g.shape) != 1 or g.size < 2:
        return None
    out = np.zeros((g.size, g.size), dtype=g.dtype)
    np.fill_diagonal(out, g.ravel())
    return out


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
    return np.vstack([np.hstack([g, rot270(g)]), np.hstack([rot90(g), rot180(g)])])


def _copies_at(mask: Array, g: Array) -> Array:
    """A copy of g at each True cell of a mask of g's shape, zeros elsewhere (np.kron, faster)."""
    h, w = g.shape
    return (mask.astype(g.dtype)[:, None, :, None] * g[None, :, None, :]).reshape(h * h, w * w)


def self_tile(g: Array) -> Array:
    """Place a copy of the grid at each non-zero cell of itself (a Kronecker product)."""
    return _copies_at(g != 0, g)


def self_tile_inverse(g: Array) -> Array:
    """Place a copy of the grid at each zero cell of itself."""
    return _copies_at(g == 0, g)


def crop_centre(g: Array, h: int, w: int) -> Array | None:
    """Crop the h x w window at the centre of a larger grid (None if it is off centre)."""
    H, W = g.shape
    if h > H or w > W or (h, w) == (H, W) or (H - h) % 2 or (W - w) % 2:
        return None
    return g[(H - h) // 2 : (H + h) // 2, (W - w) // 2 : (W + w) // 2]
