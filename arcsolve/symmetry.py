"""The dihedral group D4 on grids: the eight maps that rotate or mirror a grid onto itself.

This is the one home of the eight maps. LatFormer's rotation and reflection experts index
them, the DSL registers them as primitives, and the annotator's lattice rule and the
synthetic tasks apply them. An element is a triple (transpose, flip rows, flip columns),
applied in that order; its index is 4t + 2r + c.
"""

from __future__ import annotations

from functools import cache

import numpy as np

Array = np.ndarray

DIHEDRAL: tuple[tuple[int, int, int], ...] = tuple((t, r, c) for t in (0, 1) for r in (0, 1) for c in (0, 1))
IDENTITY = 0
FLIP_COLS, FLIP_ROWS, ROT180, TRANSPOSE = 1, 2, 3, 4
ROT90, ROT270, ANTITRANSPOSE = DIHEDRAL.index((1, 1, 0)), DIHEDRAL.index((1, 0, 1)), DIHEDRAL.index((1, 1, 1))
ELEMENT_NAMES = (  # by index, as `--explain` says them
    "identity",
    "flip left-right",
    "flip up-down",
    "rotate 180",
    "transpose",
    "rotate 90 clockwise",
    "rotate 90 counter-clockwise",
    "anti-transpose",
)


def rot90(g: Array) -> Array:
    """Rotate a quarter turn anticlockwise."""
    return g[:, ::-1].T


def rot180(g: Array) -> Array:
    """Rotate a half turn."""
    return g[::-1, ::-1]


def rot270(g: Array) -> Array:
    """Rotate a quarter turn clockwise."""
    return g.T[:, ::-1]


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
    return g[::-1, ::-1].T


def apply_dihedral(grid: Array, element: int) -> Array:
    """The grid under the element with this index (a view, not a copy)."""
    t, r, c = DIHEDRAL[element]
    out = grid.T if t else grid
    if r:
        out = out[::-1]
    if c:
        out = out[:, ::-1]
    return out


@cache
def composition_table() -> Array:
    """table[a, b] = index of a∘b (apply b first, then a)."""
    probe = np.arange(9).reshape(3, 3)
    images = [apply_dihedral(probe, e).tobytes() for e in range(8)]
    table = np.zeros((8, 8), dtype=np.int64)
    for a in range(8):
        for b in range(8):
            table[a, b] = images.index(apply_dihedral(apply_dihedral(probe, b), a).tobytes())
    return table
