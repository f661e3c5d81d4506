"""Pattern completion: fill 'noise' cells from the grid's mirror or translation symmetry.

The `*_patch` variants return only the region that the noise covered, for tasks whose
answer is the hidden part of a symmetric or periodic picture.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from arcsolve.dsl.geometry import antitranspose, flip_h, flip_v, rot90, rot180, rot270, transpose

Array = np.ndarray


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


def _patch(filled: Array | None, g: Array, noise: int) -> Array | None:
    """The part of `filled` under the bounding box of g's noise cells, if none is left there."""
    if filled is None:
        return None
    ys, xs = np.nonzero(g == noise)
    if ys.size == 0:
        return None
    patch = filled[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return None if (patch == noise).any() else patch


def symmetry_patch(g: Array, group: str, noise: int) -> Array | None:
    """What a symmetry fill puts under the noise cells' bounding box."""
    return _patch(symmetrize(g, group, noise), g, noise)


def _consistent(g: Array, known: Array, py: int, px: int) -> bool:
    """Do all known cells in each (y mod py, x mod px) class agree?"""
    h, w = g.shape
    for dy, dx in ((py, 0), (0, px)):
        if dy < h and dx < w:
            a, b = g[dy:, dx:], g[: h - dy, : w - dx]
            both = known[dy:, dx:] & known[: h - dy, : w - dx]
            if (a != b)[both].any():
                return False
    ys, xs = np.nonzero(known)
    codes = np.unique(((ys % py) * px + xs % px) * 10 + g[ys, xs])
    return codes.size == np.unique(codes // 10).size == py * px


def _period(g: Array, noise: int) -> tuple[int, int] | None:
    """The smallest-area (py, px) period of the non-noise cells that repeats at least once."""
    h, w = g.shape
    known = g != noise
    periods = sorted(
        ((py, px) for py in range(1, h + 1) for px in range(1, w + 1)
         if (2 * py <= h or 2 * px <= w)),
        key=lambda p: (p[0] * p[1], p),
    )
    return next((p for p in periods if _consistent(g, known, *p)), None)


def periodic_fill(g: Array, noise: int) -> Array | None:
    """Replace `noise` cells by the grid's translation-periodic pattern."""
    if not (g == noise).any():
        return None
    period = _period(g, noise)
    if period is None:
        return None
    py, px = period
    h, w = g.shape
    ys, xs = np.nonzero(g != noise)
    motif = np.zeros((py, px), dtype=g.dtype)
    motif[ys % py, xs % px] = g[ys, xs]
    return np.tile(motif, (h // py + 1, w // px + 1))[:h, :w]


def periodic_patch(g: Array, noise: int) -> Array | None:
    """What a periodic fill puts under the noise cells' bounding box."""
    return _patch(periodic_fill(g, noise), g, noise)
